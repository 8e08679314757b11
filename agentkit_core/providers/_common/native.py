"""What a public function of a projection is handed, checked once, and the errors that name the bad field.

A native body or event (:func:`native_object`), a stream's events
(:func:`native_events`), values of the package (:func:`checked_list`); the
errors say what was found where something else belongs (:func:`describe`,
:func:`wrong`, :func:`under`, :func:`json_object`).  The words are the
package's (``expected a string, found 5``: :mod:`agentkit_core._error_text`); the
core's wire decoders write serde's (``invalid type: integer `5`, expected a
string``), pinned by the reference's vectors, for the reference's wire.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any, Iterable, Mapping, TypeVar, cast

from ... import NormalizeError, checked_json
from ..._for_providers import an as an, describe as describe

#: A native JSON object, as ``json.loads`` gives it.
JsonDict = dict[str, Any]

T = TypeVar("T")

#: How deep a native body may nest (the body is level 1).  What a projection
#: carries from it lands a few levels deeper in an item's wire form (a block
#: inside a tool result inside an item), and must stay within the 127 levels
#: the wire reads.
NATIVE_MAX_DEPTH = 120

def wrong(expected: str, value: object, path: str = "") -> NormalizeError:
    """The error for ``value`` at ``path`` where ``expected`` belongs: ``expected a string, found 5``."""
    return NormalizeError(f"expected {expected}, found {describe(value)}", path)


def under(exc: NormalizeError, *segments: str) -> NormalizeError:
    """``exc`` seen from ``len(segments)`` levels up: ``under(e, "choices", "[0]")``."""
    for segment in reversed(segments):
        exc = exc.under(segment)
    return exc


def json_object(value: object, path: str = "", what: str = "an object") -> JsonDict:
    """``value`` if it is a JSON object, else the error naming ``path``."""
    if not isinstance(value, dict):
        raise wrong(what, value, path)
    return value


def native_object(value: object, what: str) -> JsonDict:
    """A copy of ``value``, a native body or event, checked once: a JSON object holding JSON data only.

    Every public function that takes native data starts here, so nothing
    past it meets a value the package's constructors would refuse for its
    type (an object that is not JSON data) or its nesting; the fields are
    then checked where they are read.  Any other mapping is taken as a
    ``dict`` of it.  Raises :class:`NormalizeError` naming ``what``, or
    (from :func:`~agentkit_core.checked_json`) the path to the bad value.
    """
    if type(value) is not dict and isinstance(value, Mapping):  # the exact type first: Mapping's check is slow
        value = dict(value)
    body = json_object(value, "", f"{what} (a JSON object)")
    return cast(JsonDict, checked_json(body, max_depth=NATIVE_MAX_DEPTH))


def native_events(events: object) -> Iterable[object]:
    """``events`` if it is an iterable of stream events (a list, a generator), else :class:`NormalizeError`.

    Text, bytes and a single event are refused: :func:`events_from_sse` turns
    a raw body into events.
    """
    if isinstance(events, (str, bytes, bytearray, Mapping)) or not isinstance(events, Iterable):
        raise wrong("an iterable of parsed stream events (events_from_sse(body) gives them)", events)
    return events


def checked_list(values: object, cls: type[T], name: str) -> list[T]:
    """``values`` (any iterable but a string or a mapping) as a list of ``cls``, else :class:`NormalizeError`.

    For the public functions that take values of the package
    (``request_from_items(items)``, a decoder's ``finish(parts)``): the error's
    path is ``name`` and the index of the first value of another type
    (``items[2]``).
    """
    if type(values) is not list and type(values) is not tuple and (  # the common cases, without the ABCs' checks
            isinstance(values, (str, bytes, bytearray, Mapping)) or not isinstance(values, Iterable)):
        raise NormalizeError(f"expected a sequence of {cls.__name__}s, found {describe(values)}", name)
    out = list(values)
    if not all(map(isinstance, out, repeat(cls))):  # the common case in one C loop; the index of the first other next
        for i, value in enumerate(out):
            if not isinstance(value, cls):
                raise NormalizeError(f"expected {an(cls.__name__)}, found {describe(value)}", f"{name}[{i}]")
    return out
