"""The words of every argument error outside the wire, written once: ``<where>: expected <a noun>, found <what>``.

What belonged there comes with its article; what was found instead is, for a
Python argument of the wrong type, its type's name and never its value
(which may be an API key): ``TextPart.text: expected a string, found int``;
for a native JSON field, the value when it is a short scalar, else the kind
of container, as :func:`describe` says: ``choices[0].index: expected an
integer, found 'x'``, ``messages: expected an array, found an object``; a
required field that is absent, ``found nothing`` (the providers' typed readers,
``providers/_common/fields.py``).  Nouns are plain English (a string, an integer, a boolean, a number, an
object, an array, bytes) or a class's own name (a ToolCallId).

The wire's decoders (``from_dict`` of the values, :mod:`._codec`) keep serde's
words instead (``invalid type: integer `5`, expected a string``): the
reference's vectors pin them.

:func:`noun` names any JSON value for a one-line message about a file (``JSON
object with keys 'a', 'b'``), :func:`plural` the plural of a detector's noun;
both only look and never raise.
"""

from __future__ import annotations

__all__ = ("an", "describe", "noun", "plural", "wrong_type")


def an(phrase: str) -> str:
    """``phrase`` with its indefinite article: ``an ItemKind``, ``a ToolCallId``, ``an Anthropic message``."""
    return f"{'an' if phrase[:1] in 'AEIOUaeiou' else 'a'} {phrase}"


def describe(value: object) -> str:
    """What a JSON value is, for ``found ...``: the scalar itself (``null``, ``true``, ``5``, ``'text'``), or the kind of container."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 20 else "a number"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a Python {type(value).__name__}"


def wrong_type(where: str, expected: str, value: object) -> TypeError:
    """The error for an argument of the wrong type: ``where: expected <expected>, found <its type's name>``."""
    return TypeError(f"{where}: expected {expected}, found {type(value).__name__}")


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
