"""The AWS event stream (``application/vnd.amazon.eventstream``): binary frames in, messages and events out.

Sans-IO, as :mod:`._sse` is: :class:`EventStreamDecoder` takes the body's
bytes in pieces of any size and gives each whole message
(:class:`EventStreamMessage`: its headers and payload);
:func:`events_from_eventstream` reads a body (whole, in pieces, or async)
into the JSON object of each event, ``{event_type: payload}``, the shape
boto3's event streams yield, and raises an exception message as a
:class:`~agentkit_core.http.ProviderError`.

A message, as AWS's event stream encoding specifies it (all integers big-endian)::

    total length (4) | headers length (4) | prelude CRC32 (4)
    headers (headers length bytes) | payload | message CRC32 (4)

The prelude CRC covers the first 8 bytes, the message CRC everything before
it.  A header is a name (1-byte length, UTF-8), a type byte and a value:
0 true, 1 false (no value), 2 byte, 3 short, 4 integer, 5 long (signed, 1,
2, 4 and 8 bytes), 6 bytes and 7 string (2-byte length, then the bytes; a
string is UTF-8), 8 timestamp (milliseconds since the epoch, 8 bytes, kept
as the integer botocore gives), 9 uuid (16 bytes).  The values read are
botocore's (``bytes`` for bytes and uuids, ``int`` for integers and
timestamps).  A frame whose CRC does not match, whose lengths do not add up,
whose headers exceed 128 KiB or payload 24 MiB (botocore's bounds), or a
body ending inside a frame raises :class:`~agentkit_core.NormalizeError`
naming the message.
"""

from __future__ import annotations

from struct import Struct, error as StructError
from typing import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Union, overload
from zlib import crc32

from .._error_text import describe
from ..error import NormalizeError
from ..jsontext import JsonValue, parse_json
from ._errors import ProviderError

__all__ = (
    "EventStreamDecoder",
    "EventStreamMessage",
    "events_from_eventstream",
    "event_of",
    "EVENTSTREAM_TYPE",
    "MAX_HEADERS_LENGTH",
    "MAX_PAYLOAD_LENGTH",
)

#: The content type of an AWS event stream body.
EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
#: The longest headers a message may carry, in bytes (botocore's bound).
MAX_HEADERS_LENGTH = 128 * 1024
#: The longest payload a message may carry, in bytes (botocore's bound).
MAX_PAYLOAD_LENGTH = 24 * 1024 * 1024
_PRELUDE = 12
_SMALLEST = 16  # a prelude and a message CRC: no headers, no payload
_prelude = Struct(">III").unpack_from
_u32 = Struct(">I").unpack_from
_u16 = Struct(">H").unpack_from
#: Header type -> (struct format of a fixed-size value, its size); 6 and 7 are length-prefixed, 0 and 1 carry none.
_FIXED = {2: Struct(">b"), 3: Struct(">h"), 4: Struct(">i"), 5: Struct(">q"), 8: Struct(">q")}

HeaderValue = Union[bool, int, bytes, str]
#: What an AWS error's HTTP status is when an exception comes inside a 200 stream, by its common name.
_STATUSES = {
    "validationexception": 400,
    "accessdeniedexception": 403,
    "resourcenotfoundexception": 404,
    "modeltimeoutexception": 408,
    "modelstreamerrorexception": 424,
    "throttlingexception": 429,
    "toomanyrequestsexception": 429,
    "internalserverexception": 500,
    "serviceunavailableexception": 503,
}


class EventStreamMessage:
    """One message of an event stream: its ``headers`` (name -> value) and its ``payload`` bytes."""

    __slots__ = ("headers", "payload")

    def __init__(self, headers: dict[str, HeaderValue], payload: bytes) -> None:
        self.headers = headers
        self.payload = payload

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventStreamMessage):
            return self.headers == other.headers and self.payload == other.payload
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventStreamMessage(headers={self.headers!r}, payload=<{len(self.payload)} bytes>)"


def _headers(data: bytes, start: int, end: int, n: int) -> dict[str, HeaderValue]:
    """The headers in ``data[start:end]`` of message ``n``."""
    headers: dict[str, HeaderValue] = {}
    at = start
    try:
        while at < end:
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode("utf-8")
            at += 1 + size
            kind = data[at]
            at += 1
            value: HeaderValue
            if kind == 7 or kind == 6:
                (length,) = _u16(data, at)
                raw = data[at + 2 : at + 2 + length]
                at += 2 + length
                value = raw.decode("utf-8") if kind == 7 else raw
            elif kind == 0 or kind == 1:
                value = kind == 0
            elif kind in _FIXED:
                fixed = _FIXED[kind]
                (value,) = fixed.unpack_from(data, at)
                at += fixed.size
            elif kind == 9:
                value = data[at : at + 16]
                at += 16
            else:
                raise NormalizeError(f"message {n}: header {name!r}: unknown header type {kind}")
            if at > end or not size:
                raise IndexError
            headers[name] = value
    except NormalizeError:
        raise
    except (IndexError, ValueError, StructError):  # a header running past the headers, a name or string not UTF-8
        raise NormalizeError(f"message {n}: the headers do not parse (a header cut short, or a name or string not UTF-8)") from None
    return headers


class EventStreamDecoder:
    """Bytes of an event stream body in, whole :class:`EventStreamMessage`\\ s out.

    ``feed(data)`` gives the messages ``data`` completes (a frame may come in
    any number of pieces); ``end()`` says the body is over and raises
    :class:`~agentkit_core.NormalizeError` if it ended inside a frame.  A bad
    frame raises at once (the stream cannot be resynchronised).
    """

    __slots__ = ("_held", "_have", "_need", "_n", "_parsed")

    def __init__(self) -> None:
        self._parsed: dict[bytes, dict[str, HeaderValue]] = {}  # header bytes -> their headers, for this stream
        self._held: list[bytes] = []  # the pieces of a frame not complete yet
        self._have = 0  # their bytes
        self._need = _PRELUDE  # the bytes the next step waits for (a prelude, or the frame it announced)
        self._n = 0  # messages given so far

    def feed(self, data: bytes | bytearray | memoryview) -> list[EventStreamMessage]:
        """The messages ``data`` completes, in order."""
        return [EventStreamMessage(dict(headers), payload) for headers, payload in self.frames(data)]

    def frames(self, data: bytes | bytearray | memoryview) -> list[tuple[dict[str, HeaderValue], bytes]]:
        """:meth:`feed` as ``(headers, payload)`` pairs; the headers are shared between equal frames: do not change them."""
        if self._held:
            self._held.append(bytes(data))
            self._have += len(data)
            if self._have < self._need:  # a long frame in many pieces is joined once, not once a piece
                return []
            buffer = b"".join(self._held)
        else:
            buffer = bytes(data)
        messages: list[tuple[dict[str, HeaderValue], bytes]] = []
        at, size = 0, len(buffer)
        view = memoryview(buffer)
        parsed = self._parsed
        while size - at >= _PRELUDE:
            total, headers_length, prelude_crc = _prelude(buffer, at)
            n = self._n + 1
            prelude = crc32(view[at : at + 8])
            if prelude != prelude_crc:
                raise NormalizeError(f"message {n}: the prelude's CRC32 does not match (a corrupt or unaligned frame)")
            if headers_length > MAX_HEADERS_LENGTH:
                raise NormalizeError(f"message {n}: headers of {headers_length} bytes exceed the {MAX_HEADERS_LENGTH} allowed")
            payload_length = total - headers_length - _SMALLEST
            if payload_length < 0:
                raise NormalizeError(f"message {n}: a total length of {total} bytes cannot hold {headers_length} bytes of headers")
            if payload_length > MAX_PAYLOAD_LENGTH:
                raise NormalizeError(f"message {n}: a payload of {payload_length} bytes exceeds the {MAX_PAYLOAD_LENGTH} allowed")
            if size - at < total:
                self._need = total
                break
            end = at + total - 4
            if crc32(view[at + 8 : end], prelude) != _u32(buffer, end)[0]:
                raise NormalizeError(f"message {n}: the message's CRC32 does not match (a corrupt frame)")
            payload_start = at + _PRELUDE + headers_length
            raw = buffer[at + _PRELUDE : payload_start]
            headers = parsed.get(raw)  # frames of one event type carry the same header bytes: parsed once
            if headers is None:
                headers = _headers(raw, 0, headers_length, n) if headers_length else {}
                if len(parsed) < 64:
                    parsed[raw] = headers
            messages.append((headers, buffer[payload_start:end]))
            self._n = n
            at += total
        else:
            self._need = _PRELUDE
        rest = buffer[at:] if at else buffer
        self._held, self._have = ([rest], len(rest)) if rest else ([], 0)
        return messages

    def end(self) -> None:
        """Say the body is over: :class:`~agentkit_core.NormalizeError` if it ended inside a frame."""
        if self._have:
            left, self._held, self._have = self._have, [], 0
            raise NormalizeError(f"message {self._n + 1}: the body ended inside a frame ({left} bytes of it came)")


def event_of(message: EventStreamMessage, n: int = 0) -> dict[str, JsonValue] | None:
    """A message as boto3's event streams give it: ``{event_type: payload JSON object}``.

    An ``event`` message with an ``:event-type`` header gives its payload (a
    JSON object, ``{}`` when empty) under that name; an ``exception`` or
    ``error`` message raises :class:`~agentkit_core.http.ProviderError` (its
    ``error_type`` the ``:exception-type`` or ``:error-code``, its message the
    payload's ``message`` or the ``:error-message``); ``None`` for a message
    that is neither (an event with no type).  ``n`` numbers the message in errors.
    """
    return _event(message.headers, message.payload, n)


def _event(headers: dict[str, HeaderValue], payload: bytes, n: int) -> dict[str, JsonValue] | None:
    kind = headers.get(":message-type", "event")
    if kind == "event":
        name = headers.get(":event-type")
        if not isinstance(name, str):
            return None
        if not payload:
            return {name: {}}
        try:
            value = parse_json(payload.decode("utf-8"))  # AWS's JSON payloads are UTF-8
        except (NormalizeError, UnicodeDecodeError) as exc:
            why = exc.message if isinstance(exc, NormalizeError) else "the payload is not UTF-8"
            raise NormalizeError(f"message {n}: {name}: {why}") from None
        if not isinstance(value, dict):
            raise NormalizeError(f"message {n}: {name}: the payload is not a JSON object")
        return {name: value}
    raise _error(EventStreamMessage(headers, payload), kind)


def _error(message: EventStreamMessage, kind: object) -> ProviderError:
    """The :class:`ProviderError` an ``exception`` (or ``error``) message stands for."""
    headers = message.headers
    name = headers.get(":exception-type") if kind == "exception" else headers.get(":error-code")
    error_type = name if isinstance(name, str) else str(kind)
    text = headers.get(":error-message")
    said = text if isinstance(text, str) else ""
    try:
        body = parse_json(message.payload) if message.payload else None
    except NormalizeError:
        body = None
    if isinstance(body, dict):
        found = body.get("message", body.get("Message"))
        said = found if isinstance(found, str) and found else said
    elif not said and message.payload:
        said = message.payload[:300].decode("utf-8", "replace")
    status = _STATUSES.get(error_type.lower(), 500 if kind == "exception" else 400)
    original = headers.get(":original-status-code")  # some services send the status the error would have had
    if type(original) is int and 400 <= original < 600:
        status = original
    return ProviderError(status, error_type, " ".join(said.split()) or error_type, body=message.payload)


def _pieces(body: object) -> Iterable[object]:
    if isinstance(body, (bytes, bytearray, memoryview)):
        return [body]
    if isinstance(body, (str, Mapping)) or not isinstance(body, Iterable):
        raise NormalizeError(f"expected an application/vnd.amazon.eventstream body (bytes, or an iterable of its pieces), found {describe(body)}")
    return body


def _piece(chunk: object, n: int) -> bytes | bytearray | memoryview:
    if not isinstance(chunk, (bytes, bytearray, memoryview)):
        raise NormalizeError(f"expected bytes, found {describe(chunk)}", f"[{n}]")
    return chunk


@overload
def events_from_eventstream(body: AsyncIterable[bytes]) -> AsyncIterator[dict[str, JsonValue]]: ...


@overload
def events_from_eventstream(body: bytes | bytearray | memoryview | Iterable[bytes]) -> Iterator[dict[str, JsonValue]]: ...


def events_from_eventstream(body: object) -> Iterator[dict[str, JsonValue]] | AsyncIterator[dict[str, JsonValue]]:
    """An ``application/vnd.amazon.eventstream`` body -> ``{event_type: payload}`` for each event, in order.

    ``body`` is the whole body (bytes) or any iterable of its pieces (an HTTP
    response read in chunks of any size, ``Response.chunks()``), so events
    come out as they arrive; an async iterable of pieces gives an async
    iterator.  Each event is the JSON object boto3's event stream yields for
    it (``{"contentBlockDelta": {...}}``); an exception message raises
    :class:`~agentkit_core.http.ProviderError`; a bad frame, or a body that
    ends inside one, :class:`~agentkit_core.NormalizeError`.
    """
    if hasattr(body, "__aiter__"):
        return _aevents(body)
    return _events(_pieces(body))


def _events(pieces: Iterable[object]) -> Iterator[dict[str, JsonValue]]:
    decoder = EventStreamDecoder()
    n = 0
    for i, chunk in enumerate(pieces):
        for headers, payload in decoder.frames(_piece(chunk, i)):
            n += 1
            event = _event(headers, payload, n)
            if event is not None:
                yield event
    decoder.end()


async def _aevents(body: AsyncIterable[object]) -> AsyncIterator[dict[str, JsonValue]]:
    decoder = EventStreamDecoder()
    n = i = 0
    async for chunk in body:
        for headers, payload in decoder.frames(_piece(chunk, i)):
            n += 1
            event = _event(headers, payload, n)
            if event is not None:
                yield event
        i += 1
    decoder.end()
