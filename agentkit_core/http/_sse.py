"""Server-sent events: a ``text/event-stream`` body, whole or in pieces, to the JSON object of each event.

The HTTP layer's parser, fed as h11's readers are: :class:`_Splitter` takes
the body's pieces and gives its lines, :class:`_Events` takes lines and gives
events.  :meth:`Response.events` and :meth:`AsyncResponse.events` read a
response through it, and every provider module re-exports
:func:`events_from_sse` under its own name, so a body read by any client
(httpx, requests, a browser's ``fetch``) decodes the same way.
"""

from __future__ import annotations

from typing import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, overload

from .._error_text import describe
from ..error import NormalizeError
from ..jsontext import JsonValue, parse_json

__all__ = ("events_from_sse", "lines_of", "alines_of")

#: An event's data, a JSON object as ``json.loads`` gives it.
JsonDict = dict[str, JsonValue]


class _Splitter:
    """Pieces of an event-stream body in, its lines (without their ends) out.

    The pieces are either chunks of the body with their line ends (what a
    socket or ``iter_bytes()`` gives: lines are cut wherever the chunks are)
    or lines without their ends (what ``iter_lines()`` of httpx and requests
    gives: every piece a line, ``""`` the blank line between events).  Which
    one is decided by the pieces.  A piece holding a line end means chunks.
    Until one comes, the pieces are held, and all of them belong to the first
    line if they are chunks; an empty piece (or the body's end) then means
    lines if the held pieces, read as lines, make an event whose data parses
    (chunks of one line never do: a JSON value cut in two and joined by a
    newline is either no JSON or the same value).  Otherwise empty pieces are
    nothing (a decoder mid-character gives one) and the end joins the held
    pieces.  Pieces taken as lines are still split at any line end they hold.
    Only CRLF, LF and CR end lines (``str.splitlines`` would also split on
    U+2028 and friends, which JSON strings may hold raw).  Bytes are UTF-8,
    decoded incrementally, so a chunk may end inside a character.
    """

    __slots__ = ("decoder", "split", "pending", "first", "mode", "held", "whole")

    def __init__(self, whole: bool) -> None:
        import codecs
        import re

        self.split = re.compile(r"\r\n|\r|\n").split
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.pending = ""
        self.first = True
        self.mode = "chunks" if whole else ""
        self.held: list[str] = []
        self.whole = whole

    def feed(self, chunk: object, n: int) -> list[str]:
        """The lines that ``chunk``, piece ``n`` of the body, completes."""
        try:
            text = self.decoder.decode(bytes(chunk)) if isinstance(chunk, (bytes, bytearray)) else chunk
        except UnicodeDecodeError as exc:
            raise NormalizeError(f"the body is not UTF-8: {exc.reason}", "" if self.whole else f"[{n}]") from None
        if not isinstance(text, str):
            raise NormalizeError(f"expected text or bytes, found {describe(chunk)}", f"[{n}]")
        if self.first and text:
            text, self.first = text.removeprefix("\ufeff"), False
        if self.mode == "lines":
            return self.split(text)
        if self.mode == "chunks":
            return self._split(text)
        if "\n" in text or "\r" in text:
            self.mode = "chunks"
            held, self.held = "".join(self.held), []
            return self._split(held + text)
        if text:
            self.held.append(text)
            return []
        if _makes_event(self.held):
            self.mode = "lines"
            lines, self.held = self.held + [""], []
            return lines
        return []

    def _split(self, text: str) -> list[str]:
        joined = self.pending + text
        lines = self.split(joined)
        self.pending = lines.pop()  # not ended yet (or "" after a line end)
        if lines and self.pending == "" and joined.endswith("\r"):
            self.pending = lines.pop() + "\r"  # a CR at the very end may be the first half of CRLF
        return lines

    def end(self) -> list[str]:
        """The lines left when the body ends."""
        try:
            tail = self.decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise NormalizeError(f"the body is not UTF-8: {exc.reason}") from None
        if self.mode == "lines" or not self.mode and _makes_event(self.held):
            return self.held + self.split(tail) if tail else self.held
        pending = self.pending + "".join(self.held) + tail
        return self.split(pending.removesuffix("\r")) if pending else []


def _makes_event(lines: list[str]) -> bool:
    """Whether ``lines``, taken as whole lines, make an event whose data is ``[DONE]`` or a JSON object."""
    data = [value[1:] if value.startswith(" ") else value for name, _, value in (ln.partition(":") for ln in lines) if name == "data"]
    if not data:
        return False
    text = "\n".join(data).strip()
    if text == "[DONE]":
        return True
    try:
        return isinstance(parse_json(text), dict)
    except NormalizeError:
        return False


def _pieces(body: object) -> tuple[bool, Iterable[object]]:
    whole = isinstance(body, (str, bytes, bytearray))
    if whole:
        return True, [body]
    if isinstance(body, Mapping) or not isinstance(body, Iterable):
        raise NormalizeError(f"expected a text/event-stream body (text, bytes, or an iterable of their pieces or lines), found {describe(body)}")
    return False, body


def lines_of(body: object) -> Iterator[str]:
    """The lines of an event-stream body (see :func:`events_from_sse`), without their ends, as they arrive."""
    whole, pieces = _pieces(body)
    splitter = _Splitter(whole)
    for n, chunk in enumerate(pieces):
        yield from splitter.feed(chunk, n)
    yield from splitter.end()


async def alines_of(body: AsyncIterable[object]) -> AsyncIterator[str]:
    """:func:`lines_of` of an async iterable of pieces."""
    splitter = _Splitter(False)
    n = 0
    async for chunk in body:
        for line in splitter.feed(chunk, n):
            yield line
        n += 1
    for line in splitter.end():
        yield line


class _Events:
    """Lines in, events out: the event-stream rules of :func:`events_from_sse`."""

    __slots__ = ("data", "n", "over")

    def __init__(self) -> None:
        self.data: list[str] = []
        self.n = 0
        self.over = False  # after ``[DONE]``

    def line(self, line: str) -> JsonDict | None:
        """The event ``line`` ends, if it ends one (``over`` is set at ``[DONE]``)."""
        if not line:
            if not self.data:
                return None
            self.n += 1
            event = _event(self.data, self.n)
            self.data = []
            self.over = event is None
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if name == "data":
            self.data.append(value[1:] if value.startswith(" ") else value)
        return None

    def end(self) -> JsonDict | None:
        """The event the body ended inside of, if its data parses."""
        return _event(self.data, self.n + 1, cut=True) if self.data and not self.over else None


@overload
def events_from_sse(body: AsyncIterable[str | bytes]) -> AsyncIterator[JsonDict]: ...


@overload
def events_from_sse(body: str | bytes | bytearray | Iterable[str | bytes]) -> Iterator[JsonDict]: ...


def events_from_sse(body: object) -> Iterator[JsonDict] | AsyncIterator[JsonDict]:
    """A ``text/event-stream`` body -> the JSON object of each event's data, in order.

    ``body`` is the whole body (text or bytes) or any iterable of its pieces,
    an HTTP response read in chunks of any size included, so events come out
    as they arrive.  The pieces may also be lines without their ends, as
    ``iter_lines()`` of httpx and requests yields them (``""`` then is the
    blank line that ends an event).  An async iterable of pieces (httpx's
    ``aiter_lines()`` or ``aiter_bytes()``, a :class:`agentkit_core.http.AsyncResponse`'s
    chunks) gives an async iterator of the same events: ``async for event in
    events_from_sse(pieces)``.  Follows the event-stream rules: ``event:``,
    ``id:`` and ``retry:`` lines and ``:`` comments are skipped; one space
    after ``data:`` is dropped; several ``data:`` lines of one event are
    joined with newlines; a blank line ends an event; CRLF, LF and CR all end
    lines.  Padding around the JSON is ignored, and ``data: [DONE]`` (OpenAI's
    end marker) ends the stream.  A body that ends inside an event keeps it
    when its data parses, and drops it when it does not (a stream cut short;
    the event-stream rules drop an event no blank line ended).  Data that is
    not a JSON object, and a body that is not UTF-8 text, raise
    :class:`NormalizeError` naming the event or the piece.
    """
    if hasattr(body, "__aiter__"):
        return _aevents(body)
    return _events(body)


def _events(body: object) -> Iterator[JsonDict]:
    events = _Events()
    for line in lines_of(body):
        event = events.line(line)
        if events.over:
            return
        if event is not None:
            yield event
    last = events.end()
    if last is not None:
        yield last


async def _aevents(body: AsyncIterable[object]) -> AsyncIterator[JsonDict]:
    events = _Events()
    async for line in alines_of(body):
        event = events.line(line)
        if events.over:
            return
        if event is not None:
            yield event
    last = events.end()
    if last is not None:
        yield last


def _event(data: list[str], n: int, cut: bool = False) -> JsonDict | None:
    """Event ``n``'s JSON object; ``None`` for ``[DONE]``, and for data ``cut`` short that does not parse."""
    text = "\n".join(data).strip()
    if text == "[DONE]":
        return None
    try:
        value = parse_json(text)
    except NormalizeError as exc:
        if cut:
            return None  # a stream cut short mid-event: the event-stream rules drop what never ended
        raise NormalizeError(f"event {n}: {exc.message}") from None
    if not isinstance(value, dict):
        raise NormalizeError(f"event {n}: the data is not a JSON object")
    return value
