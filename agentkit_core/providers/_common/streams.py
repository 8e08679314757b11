"""What every provider's stream decoding needs, written once (private, like :mod:`._common`).

* the fold's header keys for a part about to stream (:func:`header`);
* ``text/event-stream`` bodies, whole or in pieces (:func:`events_from_sse`,
  parsed by the HTTP layer, :mod:`agentkit_core.http`, and re-exported here);
* folding a whole stream (:func:`fold_events`, :func:`fold_stream`), and the
  parts of several items folded together (:func:`split_parts`);
* closing a turn that did not finish (:func:`close_items`: the reason, the
  calls cut off (:func:`cut_calls`) and the unfinished server-side calls
  dropped and listed under ``agentkit.stream_cut``).
"""

from __future__ import annotations

from typing import Iterator, Mapping, Protocol, Sequence

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
)
from ...http import events_from_sse as events_from_sse  # the HTTP layer's; every provider module re-exports it
from . import checked_list, dumps, native_events


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


# -- closing a turn that did not finish -------------------------------------------------------


def stream_parts(parts: object) -> list[Part]:
    """What ``finish()`` and ``close()`` take: folded parts (``FoldState.finalize()``), or the fold state itself."""
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


def without_input(call: Part) -> Part:
    """A call read with an empty input, as the call without one that its unparsed argument text makes (the fold's
    convention: the text and the error go under ``agentkit.input_json`` / ``input_error``); another part as it is."""
    return ToolCallPart(call.id, call.name, None, metadata=call.metadata) if isinstance(call, ToolCallPart) else call


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


def server_call(native: Mapping[str, JsonValue]) -> JsonValue:
    """What ``dropped_server_calls`` lists of a native server-side call: its ``type``, ``id`` and ``name`` (those it has)."""
    return {k: native[k] for k in ("type", "id", "name") if isinstance(native.get(k), str)}


def _dropped(call: ToolCallPart) -> JsonValue:
    text = call.metadata.get(INPUT_JSON_KEY)
    arguments = text if isinstance(text, str) else "" if call.input is None else dumps(call.input)
    return {"id": call.id.value, "name": call.name, "arguments": arguments}


class Decoder(Protocol):
    """What :func:`fold_events` and :func:`fold_stream` need of a stream decoder."""

    def feed(self, event: object, /) -> Sequence[Delta]: ...

    def finish_all(self, parts: Sequence[Part], /) -> list[Item]: ...


#: Deltas :func:`fold_events` folds before it looks for a moment when no part is open: few enough that
#: a segment's fold logs die young, mostly before the collector's youngest generation fills (700
#: tracked allocations; 2,000 on CPython 3.13).  A part's log keeps eleven tracked objects, its deltas
#: some more, so a segment of 64 deltas, 21 calls sent whole, fits.  What outlives two collections is
#: promoted to the oldest generation, and every promotion brings the next full walk of all that is kept
#: nearer: with segments of 256, a stream of calls sent whole promoted 2.55 objects a call; with 64,
#: 2.02 (the call and its id, which the answer keeps).
_SEGMENT = 64


def fold_events(decoder: Decoder, events: object) -> tuple[Part, ...]:
    """Feed every event to ``decoder`` and fold the deltas: the stream's parts.

    Parts still open when the events run out (a stream cut short) are closed
    as they stand, with :meth:`FoldState.finalize`.  ``events`` that are no
    iterable of events raise :class:`NormalizeError` (:func:`native_events`).

    The fold runs in segments: after some hundreds of deltas, at a moment
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


def _segment(events: Iterator[object], decoder: Decoder, limit: int, ended: list[bool]) -> Iterator[Delta]:
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
