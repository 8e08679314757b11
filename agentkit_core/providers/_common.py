"""What every provider projection needs, written once.

Private to :mod:`agentkit_core.providers`.  Like the projections themselves it
uses only the public names of :mod:`agentkit_core`: these helpers are what a
fifth adapter, written outside the package, would write too.

* carrying native fields with no neutral home as namespaced metadata, and
  writing them back (:func:`carry`, :func:`carried`);
* canonical base64, standard or URL-safe (:func:`b64encode`, :func:`b64decode`);
* tool-call argument text, parsed with the fold's convention for text that is
  not JSON (:func:`parse_arguments`, :func:`dumps`);
* token counts (:func:`count`);
* the fold's header keys for a part about to stream (:func:`header`);
* ``text/event-stream`` bodies (:func:`events_from_sse`), folding a whole
  stream (:func:`fold_stream`), and ids for calls that arrive without one
  (:func:`invent_id`).
"""

from __future__ import annotations

import binascii
import os
from typing import Any, Iterable, Iterator, Mapping, Protocol, Sequence, TypeVar

from .. import (
    CUSTOM_KIND_KEY,
    FILE_NAME_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    MIME_TYPE_KEY,
    MODALITY_KEY,
    TOOL_CALL_ID_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    Delta,
    FilePart,
    FoldState,
    Item,
    JsonValue,
    MediaPart,
    NormalizeError,
    Part,
    ToolCallPart,
    ToolResultPart,
    fold_all,
    parse_json,
)

#: A native JSON object, as ``json.loads`` gives it.
JsonDict = dict[str, Any]

_U64_END = 1 << 64


def copy_json(v: Any) -> Any:
    """A deep copy of JSON data: native payloads are never shared with the values made from them."""
    if isinstance(v, dict):
        return {k: copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [copy_json(x) for x in v]
    return v


# -- carrying native fields -------------------------------------------------------------


def carry(native: Mapping[str, Any], consumed: Iterable[str], prefix: str) -> dict[str, JsonValue]:
    """The fields of ``native`` not in ``consumed``, keyed ``prefix + field``, values copied.

    ``carry(block, ("type", "text"), "anthropic.")`` keeps a text block's
    ``citations`` and ``cache_control`` as ``anthropic.citations`` and
    ``anthropic.cache_control``, fields nobody has seen yet included.
    """
    skip = set(consumed)
    return {prefix + k: copy_json(v) for k, v in native.items() if k not in skip}


def carried(metadata: Mapping[str, JsonValue], prefix: str, skip: Iterable[str] = ()) -> JsonDict:
    """The inverse of :func:`carry`: the ``prefix.<field>`` entries of ``metadata`` as native fields.

    Only direct fields: a key with another dot after ``prefix`` belongs to a
    nested object and is left out, as are the field names in ``skip``.
    """
    n = len(prefix)
    never = set(skip)
    out: JsonDict = {}
    for key, value in metadata.items():
        if key.startswith(prefix):
            name = key[n:]
            if "." not in name and name not in never:
                out[name] = copy_json(value)
    return out


# -- base64 -----------------------------------------------------------------------------


def b64encode(data: bytes, *, urlsafe: bool = False) -> str:
    """``data`` as base64 text, standard (``+/``) or URL-safe (``-_``), padded."""
    import base64

    encoded = base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)
    return encoded.decode("ascii")


def b64decode(text: object, *, urlsafe: bool = False) -> bytes | None:
    """The bytes ``text`` encodes if it is canonical base64 of that alphabet, else ``None``.

    Canonical means it re-encodes to exactly ``text``, so a projection that
    decodes it and encodes it again writes back the very string it read.
    """
    if not isinstance(text, str) or not text.isascii():
        return None
    import base64

    try:
        data = base64.urlsafe_b64decode(text) if urlsafe else base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if b64encode(data, urlsafe=urlsafe) == text else None


# -- tool arguments ---------------------------------------------------------------------


def dumps(value: JsonValue) -> str:
    """Compact JSON text with non-ASCII kept, as OpenAI encodes tool arguments."""
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


#: How deep argument JSON may nest: a tool call's input sits five levels down in an item's wire form.
ARGUMENTS_MAX_DEPTH = 127 - 4


def parse_arguments(text: str) -> tuple[JsonValue, dict[str, JsonValue]]:
    """Tool-call argument text -> ``(input, metadata)``, with the fold's convention for bad text.

    Empty text is ``{}``.  Text that is not JSON the wire can carry (malformed,
    NaN, a lone surrogate, nested too deep) gives ``None`` with the text and the
    error under ``agentkit.input_json`` / ``agentkit.input_error``; it never raises.
    """
    if not text.strip():
        return {}, {}
    try:
        return parse_json(text, max_depth=ARGUMENTS_MAX_DEPTH), {}
    except NormalizeError as exc:
        return None, {INPUT_JSON_KEY: text, INPUT_ERROR_KEY: exc.message}


# -- usage ------------------------------------------------------------------------------


def count(v: object) -> int | None:
    """``v`` if it is a token count (an exact ``int``, ``0 <= v < 2**64``), else ``None``."""
    return v if type(v) is int and 0 <= v < _U64_END else None


def get_dict(native: Mapping[str, Any], key: str) -> JsonDict:
    """``native[key]`` when it is a JSON object, else ``{}``."""
    value = native.get(key)
    return value if isinstance(value, dict) else {}


# -- streams ----------------------------------------------------------------------------


def header(part: Part) -> dict[str, JsonValue]:
    """The fold's header keys for ``part``: what ``snapshot()`` shows of it while it streams."""
    if isinstance(part, ToolCallPart):
        return {TOOL_CALL_ID_KEY: part.id.value, TOOL_NAME_KEY: part.name}
    if isinstance(part, ToolResultPart):
        return {TOOL_CALL_ID_KEY: part.call_id.value}
    if isinstance(part, MediaPart):
        return {MODALITY_KEY: part.modality.value, MIME_TYPE_KEY: part.mime_type}
    if isinstance(part, FilePart):
        found = {FILE_NAME_KEY: part.name, MIME_TYPE_KEY: part.mime_type}
        return {k: v for k, v in found.items() if v is not None}
    if isinstance(part, CustomPart):
        return {CUSTOM_KIND_KEY: part.kind}
    return {}


_LINE_END = "\r\n", "\n", "\r"


def _lines(body: str | bytes | bytearray | Iterable[str | bytes]) -> Iterator[str]:
    """The lines of an event-stream body, without their ends.

    Only CRLF, LF and CR end lines (``str.splitlines`` would also split on
    U+2028 and friends, which JSON strings may hold raw).
    """
    import re

    split = re.compile(r"\r\n|\r|\n").split
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8")
    if isinstance(body, str):
        lines = split(body.removeprefix("\ufeff"))
        if lines and not lines[-1]:
            lines.pop()
        yield from lines
        return
    pending = ""
    first = True
    for chunk in body:
        text = chunk.decode("utf-8") if isinstance(chunk, (bytes, bytearray)) else chunk
        if first:
            text, first = text.removeprefix("\ufeff"), False
        lines = split(pending + text)
        pending = lines.pop()  # not ended yet (or "" after a line end)
        if lines and pending == "" and (pending + text).endswith("\r"):
            pending = lines.pop() + "\r"  # a CR at the very end may be the first half of CRLF
        yield from lines
    if pending:
        yield from split(pending.removesuffix("\r"))


def events_from_sse(body: str | bytes | bytearray | Iterable[str | bytes]) -> Iterator[JsonDict]:
    """A ``text/event-stream`` body -> the JSON object of each event's data, in order.

    ``body`` is the whole body (text or bytes) or any iterable of its pieces,
    an HTTP response read line by line included, so events come out as they
    arrive.  Follows the event-stream rules: ``event:``, ``id:`` and
    ``retry:`` lines and ``:`` comments are skipped; one space after ``data:``
    is dropped; several ``data:`` lines of one event are joined with newlines;
    a blank line ends an event; CRLF, LF and CR all end lines.  Padding around
    the JSON is ignored, and ``data: [DONE]`` (OpenAI's end marker) ends the
    stream.  Data that is not a JSON object raises :class:`NormalizeError`
    naming the event.
    """
    data: list[str] = []
    n = 0
    for line in _lines(body):
        if not line:
            if data:
                n += 1
                event = _event(data, n)
                data = []
                if event is None:
                    return
                yield event
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        event = _event(data, n + 1)
        if event is not None:
            yield event


def _event(data: list[str], n: int) -> JsonDict | None:
    text = "\n".join(data).strip()
    if text == "[DONE]":
        return None
    try:
        value = parse_json(text)
    except NormalizeError as exc:
        raise NormalizeError(f"event {n}: {exc.message}") from None
    if not isinstance(value, dict):
        raise NormalizeError(f"event {n}: the data is not a JSON object")
    return value


class Decoder(Protocol):
    """What :func:`fold_stream` needs of a stream decoder."""

    def feed(self, event: Any, /) -> Sequence[Delta]: ...

    def finish(self, parts: Sequence[Part], /) -> Item: ...


def fold_stream(decoder: Decoder, events: Iterable[Any]) -> list[Item]:
    """Feed every event to ``decoder``, fold the deltas, and finish: the turn's items.

    Parts still open when the events run out (a stream cut short) are closed
    as they stand, with :meth:`FoldState.finalize`.
    """
    state = fold_all(FoldState(), (delta for event in events for delta in decoder.feed(event)))
    return [decoder.finish(state.finalize())]


def invent_id(prefix: str) -> str:
    """A fresh id for a call the provider sent without one: ``prefix`` and 24 random hex digits."""
    return prefix + os.urandom(12).hex()


# -- checking what a public function was given --------------------------------------------


def checked_object(value: object, what: str) -> JsonDict:
    """``value`` as a fresh JSON object holding JSON data only, else :class:`NormalizeError`.

    What the projections' public functions are handed (a body, a stream
    event) is checked once, here, through the public metadata decoder: keys
    are strings, values JSON (no tuples, sets, NaN or lone surrogates),
    nesting bounded.  The error names ``what`` or the path to the bad field.
    The copy shares no container with ``value``, so the values built from it
    never share one with the caller's data either.
    """
    from .. import MetadataMap

    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if not isinstance(value, dict):
        raise NormalizeError(f"{what} must be a JSON object, not a {type(value).__name__}")
    return dict(MetadataMap.from_dict(value))


T = TypeVar("T")


def checked_list(values: object, cls: type[T], what: str) -> list[T]:
    """``values`` (any iterable but a string or a mapping) as a list of ``cls``, else :class:`NormalizeError`.

    For the projections' public functions that take values of the package
    (``request_from_items(items)``, a decoder's ``finish(parts)``): the error
    names ``what`` and the index of the first value of another type.
    """
    if isinstance(values, (str, bytes, bytearray, Mapping)) or not isinstance(values, Iterable):
        raise NormalizeError(f"expected {what}, not a {type(values).__name__}")
    out = list(values)
    for i, value in enumerate(out):
        if not isinstance(value, cls):
            raise NormalizeError(f"expected {cls.__name__}, not a {type(value).__name__}", f"[{i}]")
    return out
# -- native input -----------------------------------------------------------------------


def check_json(value: object, max_depth: int = 120) -> None:
    """Raise :class:`NormalizeError` unless ``value`` is JSON data every value can carry.

    A projection takes bodies someone else parsed: this refuses, before any
    value is made from them, what a constructor would refuse with a
    ``TypeError`` or a bare ``ValueError`` (objects that are not JSON data,
    keys that are not strings, NaN and infinities, strings holding a lone
    surrogate) and containers nested deeper than ``max_depth`` levels (the
    root is level 1), so carried values stay within the wire's nesting limit.
    Iterative: no input can exhaust the stack.
    """
    import math

    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    raise NormalizeError("invalid Unicode: a string holds a lone surrogate") from None
        elif isinstance(v, (dict, list)):
            if depth > max_depth:
                raise NormalizeError(f"containers nest deeper than {max_depth} levels")
            if isinstance(v, dict):
                if not all(type(k) is str for k in v):
                    raise NormalizeError("an object has a key that is not a string")
                stack.extend((k, depth) for k in v)
                stack.extend((x, depth + 1) for x in v.values())
            else:
                stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise NormalizeError("a number is not finite (NaN or an infinity)")
        elif v is not None and not isinstance(v, int):
            raise NormalizeError(f"a Python {type(v).__name__} is not JSON data")
