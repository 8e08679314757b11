"""What every provider's stream decoding needs, written once (private, like :mod:`._common`).

* the fold's header keys for a part about to stream (:func:`header`);
* ``text/event-stream`` bodies, whole or in pieces (:func:`events_from_sse`);
* folding a whole stream (:func:`fold_events`, :func:`fold_stream`), and the
  parts of several items folded together (:func:`split_parts`).
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Protocol, Sequence, overload

from ... import (
    CUSTOM_KIND_KEY,
    FILE_NAME_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    MIME_TYPE_KEY,
    MODALITY_KEY,
    STREAM_CUT_KEY,
    TOOL_CALL_ID_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    Delta,
    FilePart,
    FinishReason,
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
from . import JsonDict, checked_list, dumps, native_events, wrong

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
            raise wrong("text or bytes", chunk, f"[{n}]")
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
        raise wrong("a text/event-stream body (text, bytes, or an iterable of their pieces or lines)", body)
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


# -- closing a turn that did not finish -------------------------------------------------------


def stream_parts(parts: object) -> list[Part]:
    """What ``close()`` takes: folded parts (``FoldState.finalize()``), or the fold state itself."""
    return list(parts.finalize()) if isinstance(parts, FoldState) else checked_list(parts, Part, "parts")


def cut_calls(parts: Sequence[Part], began: Sequence[str], open_calls: set[str]) -> list[Part]:
    """The tool calls among ``parts`` whose arguments were cut off.

    ``began`` is the id of every part the decoder began, in order (the fold's
    order); ``open_calls`` the ids of the calls it had not finished.  Parts of
    another count (not ``finalize()``'s) are judged by their own look: a call
    whose argument text did not parse.
    """
    if len(parts) == len(began):
        return [p for p, pid in zip(parts, began) if pid in open_calls and isinstance(p, ToolCallPart)]
    return [p for p in parts if isinstance(p, ToolCallPart) and INPUT_ERROR_KEY in p.metadata]


def began_parts(parts: Sequence[Part], began: Sequence[str], shown: Mapping[str, JsonValue]) -> list[tuple[Part, JsonValue]]:
    """The parts among ``parts`` the decoder began under the ids ``shown`` holds, each with its value there.

    ``began`` is as :func:`cut_calls` takes it; parts of another count give none.
    """
    if len(parts) != len(began):
        return []
    return [(p, shown[pid]) for p, pid in zip(parts, began) if pid in shown]


def close_items(
    items: list[Item],
    ended: Sequence[bool],
    cut: Sequence[Part],
    reason: FinishReason,
    server: Sequence[tuple[Part, JsonValue]] = (),
) -> list[Item]:
    """``items`` of a stream that stopped early: each whose stream had not ended gets ``reason`` and, under
    ``agentkit.stream_cut``, the calls among ``cut`` it held, which it no longer holds.

    ``server`` pairs each unfinished server-side call (a part the API would
    refuse without its result, which only the server gives) with what
    ``dropped_server_calls`` lists of it; those parts go too.
    """
    if not isinstance(reason, FinishReason):
        raise TypeError(f"close: expected a FinishReason, found {type(reason).__name__}")
    dropped = {id(p) for p in cut}
    unfinished = {id(p): shown for p, shown in server}
    closed = []
    for item, done in zip(items, ended):
        if not done:
            calls: list[JsonValue] = [_dropped(p) for p in item.parts if id(p) in dropped and isinstance(p, ToolCallPart)]
            cut_off: dict[str, JsonValue] = {"dropped_calls": calls}
            servers: list[JsonValue] = [unfinished[id(p)] for p in item.parts if id(p) in unfinished]
            if servers:
                cut_off["dropped_server_calls"] = servers
            metadata: dict[str, JsonValue] = {**item.metadata, STREAM_CUT_KEY: cut_off}
            kept = [p for p in item.parts if id(p) not in dropped and id(p) not in unfinished]
            item = item.with_parts(kept).with_metadata(metadata).with_finish_reason(reason)
        closed.append(item)
    return closed


def server_call(native: Mapping[str, Any]) -> JsonValue:
    """What ``dropped_server_calls`` lists of a native server-side call: its ``type``, ``id`` and ``name`` (those it has)."""
    return {k: native[k] for k in ("type", "id", "name") if isinstance(native.get(k), str)}


def _dropped(call: ToolCallPart) -> JsonValue:
    text = call.metadata.get(INPUT_JSON_KEY)
    arguments = text if isinstance(text, str) else "" if call.input is None else dumps(call.input)
    return {"id": call.id.value, "name": call.name, "arguments": arguments}


class Decoder(Protocol):
    """What :func:`fold_events` and :func:`fold_stream` need of a stream decoder."""

    def feed(self, event: Any, /) -> Sequence[Delta]: ...

    def finish_all(self, parts: Sequence[Part], /) -> list[Item]: ...


#: Deltas :func:`fold_events` folds before it looks for a moment when no part is open.
_SEGMENT = 4096


def fold_events(decoder: Decoder, events: object) -> tuple[Part, ...]:
    """Feed every event to ``decoder`` and fold the deltas: the stream's parts.

    Parts still open when the events run out (a stream cut short) are closed
    as they stand, with :meth:`FoldState.finalize`.  ``events`` that are no
    iterable of events raise :class:`NormalizeError` (:func:`native_events`).

    The fold runs in segments: after some thousands of deltas, at a moment
    when no part is open, the committed parts are taken out and the fold
    starts afresh, which gives the same parts (the fold's rules only look at
    open parts).  A fold state keeps a log of every part it holds, and
    CPython's collector re-walks every such object as they accumulate, so a
    stream of many small parts (Gemini's calls) would cost more per part the
    longer it ran.  Where parts stay open, segments grow twofold each time, so
    the looking stays linear too.
    """
    stream = iter(native_events(events))
    done: list[Part] = []
    state, limit, ended = FoldState(), _SEGMENT, [False]
    while True:
        state = fold_all(state, _segment(stream, decoder, limit, ended))
        if ended[0]:
            return (*done, *state.finalize())
        if state.is_open:
            limit *= 2
        else:
            done += state.parts
            state, limit = FoldState(), _SEGMENT


def _segment(events: Iterator[Any], decoder: Decoder, limit: int, ended: list[bool]) -> Iterator[Delta]:
    """The deltas of the next events, up to the event that makes them ``limit`` or more; ``ended[0]`` is set
    when the events run out."""
    n = 0
    for event in events:
        deltas = decoder.feed(event)
        yield from deltas
        n += len(deltas)
        if n >= limit:
            return
    ended[0] = True


def fold_stream(decoder: Decoder, events: object) -> list[Item]:
    """Feed, fold and finish a whole stream: ``decoder.finish_all(fold_events(decoder, events))``."""
    return decoder.finish_all(fold_events(decoder, events))


def split_parts(parts: Sequence[Part], owners: Sequence[int], order: Sequence[int]) -> dict[int, list[Part]]:
    """The folded parts of a stream of several items (choices, candidates), by the item each began in.

    ``owners`` is the item of every part the decoder began, in the order it
    began them (the order the fold keeps); ``order`` the items.  With a single
    item any parts are its own.  Parts that cannot be the decoder's (another
    count) raise :class:`NormalizeError`.
    """
    groups: dict[int, list[Part]] = {n: [] for n in order}
    if len(parts) == len(owners):
        for owner, part in zip(owners, parts):
            groups[owner].append(part)
    elif len(order) == 1:
        groups[order[0]] = list(parts)
    else:
        raise NormalizeError(
            f"{len(parts)} parts for a stream whose decoder began {len(owners)} across {len(order)} items; "
            "pass every folded part (FoldState.parts or finalize())",
            "parts",
        )
    return groups
