"""Private to :mod:`.bedrock`: the ConverseStream decoder (its events are tabulated in ``docs/bedrock.md``).

Events are boto3's shape, ``{event_type: payload}``, which is also what
:func:`agentkit_core.http.events_from_eventstream` reads from the binary
``application/vnd.amazon.eventstream`` body (the payload's ``p``, padding
that hides each event's length, is dropped as botocore drops it).  A text
block has no ``contentBlockStart``: its first delta opens it.
"""

from __future__ import annotations

from typing import Sequence

from ... import (
    PROVIDER_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    JsonValue,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    ReasoningPart,
    SetMetadata,
    ToolCallId,
    ToolCallPart,
    Usage,
)
from .._common import JsonDict, b64decode, b64encode, copy_json, json_object, parse_object_arguments, wrong
from .._common.held import as_native
from .._common.streams import close_items, cut_calls, header, stream_parts, without_input
from ._held import EVENT
from ._keys import DELTAS
from ._response import assistant_item, checked_usage, custom, finish_reason, part_from_block

#: Fields of a ``metadata`` event kept on the item (``usage`` becomes its usage).
_PADDING = "p"


class _Block:
    """A content block while it streams: what its start said and what its deltas left."""

    __slots__ = ("kind", "start", "text", "json", "signature", "redacted", "unknown", "pid")

    def __init__(self, kind: str, start: JsonDict, pid: PartId) -> None:
        self.pid = pid
        self.kind = kind  # "text", "reasoning", "toolUse" or "other"
        self.start = start
        self.text: list[str] = []
        self.json: list[str] = []
        self.signature: str | None = None
        self.redacted: bytes | None = None  # the bytes of every redactedContent delta (each its own base64)
        self.unknown: list[JsonValue] = []

    def block(self) -> tuple[JsonDict, dict[str, JsonValue]]:
        """The native block its deltas made, and the metadata its input's parse adds."""
        extra: dict[str, JsonValue] = {}
        if self.kind == "text":
            return {"text": "".join(self.text)}, extra
        if self.kind == "reasoning":
            if self.redacted is not None:
                return {"reasoningContent": {"redactedContent": b64encode(self.redacted)}}, extra
            text: JsonDict = {"text": "".join(self.text)}
            if self.signature is not None:
                text["signature"] = self.signature
            return {"reasoningContent": {"reasoningText": text}}, extra
        if self.kind == "toolUse":
            use = dict(self.start["toolUse"])
            use["input"] = {}
            joined = "".join(self.json)
            if joined:
                use["input"], extra = parse_object_arguments(joined)
            return {"toolUse": use}, extra
        return {**copy_json(self.start), **({"deltas": copy_json(self.unknown)} if self.unknown else {})}, extra


_KINDS = {"text": PartKind.TEXT, "reasoning": PartKind.REASONING, "toolUse": PartKind.TOOL_CALL, "other": PartKind.CUSTOM}


class BedrockStreamDecoder:
    """Turns one ConverseStream's events into deltas; :meth:`finish` builds the turn's item.

    A committed part is the one ``items_from_response`` gives for the same
    block.  ``usage`` is the latest :class:`Usage` the stream reported and
    ``finish_reason`` the turn's :class:`FinishReason` once known.  An event
    that does not fit raises :class:`NormalizeError`.
    """

    usage: Usage | None
    finish_reason: FinishReason | None

    def __init__(self) -> None:
        self._body: JsonDict = {}  # the response's fields as the events gave them (stopReason, usage, metrics...)
        self._message: JsonDict = {}  # messageStart's fields (role)
        self._open: dict[int, _Block] = {}
        self._began: list[str] = []
        self._error: JsonValue = None
        self._ended = False
        self.usage = None
        self.finish_reason = None

    def feed(self, event: object) -> list[Delta]:
        """The deltas one native event stands for (often none)."""
        event = as_native(event, EVENT)
        if len(event) != 1:
            raise NormalizeError(f"expected one event type, found {len(event)} keys")
        kind, payload = next(iter(event.items()))
        payload = json_object(payload, kind, "an event (a JSON object)")
        if kind == "contentBlockDelta":  # the most frequent first; its padding is never read
            return self._delta(payload)
        if _PADDING in payload:
            payload = {k: v for k, v in payload.items() if k != _PADDING}
        if kind == "contentBlockStart":
            return self._start(payload)
        if kind == "contentBlockStop":
            return self._commit(_index(payload))
        if kind == "messageStart":
            self._message = copy_json(payload)
            return []
        if kind == "messageStop":
            reason = payload.get("stopReason")
            if not isinstance(reason, (str, type(None))):
                raise wrong("a string", reason, "messageStop.stopReason")
            commits = self._commit(*sorted(self._open))
            self._body.update(copy_json(payload))
            self._ended = True
            if self._error is None:
                self.finish_reason = finish_reason(reason)
            return commits
        if kind == "metadata":
            usage = payload.get("usage")
            if usage is not None:
                usage = json_object(usage, "metadata.usage", "a usage object (a JSON object)")
                self.usage = checked_usage(usage)
            self._body.update(copy_json(payload))
            return []
        if kind.endswith("Exception"):  # an exception event, as boto3 hands it in a dump
            commits = self._commit(*sorted(self._open))
            self._error = {"type": kind, **copy_json(payload)}
            self.finish_reason = FinishReason.ERROR
            self._ended = True
            return commits
        return []

    def finish(self, parts: Sequence[Part] | FoldState) -> Item:
        """The turn's ASSISTANT item: the folded ``parts`` plus what the events carried (a stream that stopped
        before ``messageStop`` is closed as :meth:`close` closes it, with ``FinishReason.ERROR``)."""
        return self._item(stream_parts(parts), FinishReason.ERROR)

    def finish_all(self, parts: Sequence[Part] | FoldState) -> list[Item]:
        """``[finish(parts)]``: a Converse stream holds one item."""
        return [self.finish(parts)]

    def close(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> Item:
        """The item of a turn stopped before it finished: ``reason``, what arrived, and a ``toolUse`` whose
        input was cut off dropped (listed under ``agentkit.stream_cut``)."""
        return self._item(stream_parts(parts), reason)

    def close_all(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> list[Item]:
        """``[close(parts, reason)]``: a Converse stream holds one item."""
        return [self.close(parts, reason)]

    def _item(self, parts: list[Part], reason: FinishReason) -> Item:
        item = assistant_item(self._body, self._message, parts, self._error)
        if self._ended:
            return item
        open_calls = {f"part-{i}" for i, opened in self._open.items() if opened.kind == "toolUse"}
        return close_items([item], [False], cut_calls(parts, self._began, open_calls), reason)[0]

    def _open_block(self, index: int, kind: str, start: JsonDict) -> list[Delta]:
        pid = PartId(f"part-{index}")
        self._open[index] = _Block(kind, start, pid)
        self._began.append(pid.value)
        deltas: list[Delta] = [BeginPart(pid, _KINDS[kind])]
        if kind == "toolUse":
            use = start["toolUse"]
            deltas.append(SetMetadata(pid, header(ToolCallPart(ToolCallId(use["toolUseId"]), use["name"], {}))))
        return deltas

    def _start(self, payload: JsonDict) -> list[Delta]:
        index = _index(payload)
        if index in self._open:
            raise NormalizeError(f"content block {index} is already open", "contentBlockIndex")
        start = json_object(payload.get("start", {}), "start", "a block start (a JSON object)")
        use = start.get("toolUse")
        if set(start) == {"toolUse"} and isinstance(use, dict) and isinstance(use.get("toolUseId"), str) and isinstance(use.get("name"), str):
            return self._open_block(index, "toolUse", copy_json(start))
        return self._open_block(index, "other", {"contentBlockStart": copy_json(start)})

    def _delta(self, payload: JsonDict) -> list[Delta]:
        index = _index(payload)
        delta = json_object(payload.get("delta"), "delta", "a delta (a JSON object)")
        opened = self._open.get(index)
        deltas: list[Delta] = []
        if opened is None:
            kind = "text" if "text" in delta else "reasoning" if "reasoningContent" in delta else "other"
            deltas += self._open_block(index, kind, {"contentBlockDelta": {}} if kind == "other" else {})
            opened = self._open[index]
        text = delta.get("text")
        if type(text) is str and len(delta) == 1 and opened.kind == "text":  # the common delta, first
            opened.text.append(text)
            if text:
                deltas.append(AppendText(opened.pid, text))
            return deltas
        pid = opened.pid
        use, reasoning = delta.get("toolUse"), delta.get("reasoningContent")
        if set(delta) == {"toolUse"} and isinstance(use, dict) and opened.kind == "toolUse":
            fragment = use.get("input", "")
            if not isinstance(fragment, str):
                raise wrong("a string", fragment, "delta.toolUse.input")
            opened.json.append(fragment)
            return deltas + ([AppendText(pid, fragment)] if fragment else [])
        if set(delta) == {"reasoningContent"} and isinstance(reasoning, dict) and opened.kind == "reasoning":
            for key, value in reasoning.items():
                if not isinstance(value, str):
                    raise wrong("a string", value, f"delta.reasoningContent.{key}")
                if key == "text":
                    opened.text.append(value)
                    if value:
                        deltas.append(AppendText(pid, value))
                elif key == "signature":
                    opened.signature = value
                elif key == "redactedContent":
                    data = b64decode(value)
                    if data is None:
                        raise wrong("base64", value, "delta.reasoningContent.redactedContent")
                    opened.redacted = (opened.redacted or b"") + data
                else:
                    opened.unknown.append({key: value})
            return deltas
        opened.unknown.append(copy_json(delta))  # a delta nobody knows yet (a citation...): kept, never sent
        return deltas + [SetMetadata(pid, {DELTAS: copy_json(opened.unknown)})]

    def _commit(self, *indexes: int) -> list[Delta]:
        commits: list[Delta] = []
        for index in indexes:
            opened = self._open.pop(index, None)
            if opened is None:
                raise NormalizeError(f"contentBlockStop for content block {index}, which is not open", "contentBlockIndex")
            block, extra = opened.block()
            if opened.kind == "toolUse" and block["toolUse"]["input"] is None:  # its input did not parse (cut off)
                part = without_input(part_from_block({"toolUse": {**block["toolUse"], "input": {}}}))
            else:
                part = part_from_block(block) if opened.kind != "other" else custom(block)
            if _KINDS[opened.kind] is not part.part_kind:
                part = custom(block)
            if isinstance(part, ReasoningPart) and not part.redacted and part.data is None:
                part = part.with_metadata(part.metadata.without(PROVIDER_KEY))  # no signature: nothing to verify
            if opened.unknown and opened.kind != "other":
                extra[DELTAS] = copy_json(opened.unknown)
            if extra:
                part = part.with_metadata(part.metadata.merged(extra))
            commits.append(CommitPart(part, part_id=PartId(f"part-{index}")))
        return commits


def _index(payload: JsonDict) -> int:
    index = payload.get("contentBlockIndex")
    if type(index) is not int or index < 0:
        raise wrong("a content block index (an integer >= 0)", index, "contentBlockIndex")
    return index


def stream_decoder() -> BedrockStreamDecoder:
    """A fresh decoder for one stream: ``feed(event)``, ``finish(parts)``, live ``usage`` and ``finish_reason``."""
    return BedrockStreamDecoder()
