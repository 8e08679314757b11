"""What a JSON value looks like, when it is not what a reader expected.

:func:`sniff_provider` recognises the bodies of the four provider APIs the
package projects (it is :mod:`agentkit_core.providers`' detector, so a file of
them can be pointed at the projection that reads it); :func:`noun` names any
other JSON value for a one-line message.  Both only look: they never raise,
whatever the value.
"""

from __future__ import annotations

from ._detect import Provider
from ._detect import sniff as sniff_provider
from ._words import an

__all__ = ("Provider", "sniff_provider", "noun", "an", "plural")


def noun(value: object) -> str:
    """A singular noun phrase without article for any parsed JSON value (not a provider body).

    ``"agentkit item"``, ``"JSON object with keys 'a', 'b'"``, ``"JSON number"``...
    Keys are shown as ``repr`` does, so control characters in them stay escaped.
    """
    if type(value) is dict:
        if "kind" in value and "parts" in value:
            return "agentkit item"
        if len(value) == 1:
            body = next(iter(value.values()))
            if type(body) is dict and ("part_id" in body or "part" in body):
                return "agentkit delta"
        if "role" in value and "content" in value:
            return "chat message (role and content)"
        if not value:
            return "empty JSON object"
        keys = [repr(k) if len(k) <= 30 else repr(k[:27] + "...") for k in list(value)[:5]]
        more = ", ..." if len(value) > 5 else ""
        return f"JSON object with {'key' if len(value) == 1 else 'keys'} {', '.join(keys)}{more}"
    if type(value) is list:
        return "JSON array" if value else "empty JSON array"
    if type(value) is str:
        return "JSON string"
    if value is True or value is False:
        return "JSON boolean"
    if value is None:
        return "JSON null"
    return "JSON number"


def plural(what: str) -> str:
    """The plural of a :attr:`Provider.what` noun (each ends in a word that takes ``s``)."""
    return what + "s"
