"""Private to :mod:`.anthropic`: the stream decoder (its events are mapped in that module's docstring)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ... import (
    INPUT_ERROR_KEY,
    PROVIDER_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FinishReason,
    FoldState,
    InlineText,
    Item,
    JsonValue,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    ReasoningPart,
    ReplaceStructured,
    SetMetadata,
    TextPart,
    Usage,
)
from .._common import JsonDict, copy_json, json_object, optional_obj, parse_arguments, parse_object_arguments, wrong
from .._common.held import as_native
from .._common.streams import close_items, cut_calls, header, server_call, stream_parts, without_input
from ._held import EVENT
from ._keys import NS, UNKNOWN_DELTAS
from ._response import (
    assistant_item,
    block_type,
    check_message,
    checked_usage,
    custom,
    finish_reason,
    part_from_block,
    usage_from_native,
)

#: Block types whose input streams as ``input_json_delta``.
_TOOL_INPUT_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
#: Block types of a call the server runs, which a result block answering its ``id`` must follow.
_SERVER_CALLS = ("server_tool_use", "mcp_tool_use")
#: Every block type the API documents: a delta meant for another type is an error, not a future delta.
_KNOWN_BLOCKS = frozenset(
    (
        "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document",
        "search_result", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
        "code_execution_tool_result", "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result", "tool_search_tool_result", "container_upload",
        "mcp_tool_use", "mcp_tool_result", "tool_reference", "mid_conv_system", "compaction",
    )
)  # fmt: skip


#: The signature a thinking block starts with, before its ``signature_delta``.
_NO_SIGNATURE = InlineText("")


class _Block:
    """A content block while it streams: the block so far and what its deltas left.

    Text, thinking and input JSON collect as lists of pieces, joined when the
    block closes: growing one string by every delta would copy it each time.
    """

    __slots__ = ("block", "kind", "pieces", "json", "unknown")

    def __init__(self, block: JsonDict, kind: PartKind) -> None:
        # The native block as content_block_start sent it (a copy); signature_delta, citations_delta and
        # compaction_delta change its fields in place.
        self.block = block
        # The part kind its start decoded to; fixed: a block that ends as another kind commits as a custom part.
        self.kind = kind
        # The block's field ("text", "thinking") -> its text so far, in pieces; a text or thinking delta appends.
        self.pieces: dict[str, list[str]] = {}
        # The input_json_delta fragments so far, parsed once when the block stops.
        self.json: list[str] = []
        # Deltas of types nobody knows yet, in order; each one appends (and is shown as a marker).
        self.unknown: list[JsonValue] = []

    def finished(self) -> JsonDict:
        """The block as its deltas left it (a copy)."""
        block = dict(self.block)
        block.update((field, "".join(pieces)) for field, pieces in self.pieces.items())
        return block


class AnthropicStreamDecoder:
    """Turns one stream's events into deltas; :meth:`finish` builds the turn's item.

    It keeps each open block as the SDK's accumulator does (text and thinking
    grow, the signature is set, input JSON collects and is parsed when the
    block closes), so a committed part is the one ``items_from_response``
    gives for the same block.  ``usage`` is the latest :class:`Usage` the
    stream reported (``None`` before ``message_start``) and ``finish_reason``
    the turn's :class:`FinishReason` once known.  An event that does not fit
    raises :class:`NormalizeError` and leaves the decoder as it was.
    """

    usage: Usage | None
    finish_reason: FinishReason | None

    def __init__(self) -> None:
        # The Message so far, checked: message_start sets it, message_delta and extra fields update it.
        self._message: JsonDict = {}
        # The error an error event reported ({} when it held none); None until one comes, then fixed.
        self._error: JsonValue = None
        # Index -> each content block begun and not yet stopped (the open parts); a block start adds one,
        # its stop (or message_stop, or an error) removes it.
        self._open: dict[int, _Block] = {}
        # How many blocks message_start sent whole (each a part of its own, "start-<n>").
        self._starts = 0
        # The id of every part begun, in order; appended as parts begin.
        self._began: list[str] = []
        # Whether message_stop or an error event came; set once, never unset.
        self._ended = False
        # The latest usage the stream reported (live); each message_start or message_delta with usage replaces it.
        self.usage = None
        # The turn's finish reason once known (live): from stop_reason, or ERROR after an error event.
        self.finish_reason = None

    def feed(self, event: object) -> list[Delta]:
        """The deltas one native event stands for (often none)."""
        event = as_native(event, EVENT)
        handler: Callable[[JsonDict], list[Delta]]
        match kind := event.get("type"):
            case "content_block_delta":  # the most frequent first
                handler = self._block_delta
            case "message_start":
                handler = self._message_start
            case "content_block_start":
                handler = self._block_start
            case "content_block_stop":
                handler = self._block_stop
            case "message_delta":
                handler = self._message_delta
            case "message_stop":
                handler = self._message_stop
            case "error":
                handler = self._error_event
            case _:
                return []  # ping and future events: nothing
        merged = None
        if kind in _BLOCK_EVENT_FIELDS:  # fields nobody knows yet join the message's, as the SDK's accumulator merges them
            extras = {k: v for k, v in event.items() if k not in _BLOCK_EVENT_FIELDS[kind] and k not in _MESSAGE_FIELDS}
            if extras:
                merged = _merge_extras(self._message, extras)
        deltas = handler(event)
        if merged is not None:
            self._live(merged)
        return deltas

    def finish(self, parts: Sequence[Part] | FoldState) -> Item:
        """The turn's ASSISTANT item: the folded ``parts`` plus what the message events carried.

        A stream that stopped before ``message_stop`` (or an ``error`` event)
        is closed as :meth:`close` closes it, with ``FinishReason.ERROR``.
        ``parts`` may be the fold state itself (its open parts then close as they stand, not lost) or its parts.
        """
        return self._item(stream_parts(parts), FinishReason.ERROR)

    def finish_all(self, parts: Sequence[Part] | FoldState) -> list[Item]:
        """``[finish(parts)]``: a Messages stream holds one item (the same method as the decoders of several)."""
        return [self.finish(parts)]

    def close(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> Item:
        """The item of a turn stopped before it finished (cancelled; ``ERROR`` for a transport failure).

        ``parts`` is ``FoldState.finalize()`` (or the state itself).  The item
        gets ``reason``, keeps the text and thinking that arrived, and drops a
        ``tool_use`` whose input was cut off (its block never stopped), listed
        under ``agentkit.stream_cut``; a call whose block stopped is kept.  A
        ``server_tool_use`` or ``mcp_tool_use`` block with no result block after
        it goes too, listed under ``dropped_server_calls``: the API refuses it
        without its result, and only the server can give one.  A stream that
        had ended gives :meth:`finish`'s item (a ``pause_turn`` turn keeps its
        server call: the API finishes it when the turn goes back).
        """
        return self._item(stream_parts(parts), reason)

    def close_all(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> list[Item]:
        """``[close(parts, reason)]``: a Messages stream holds one item (the same method as the decoders of several)."""
        return [self.close(parts, reason)]

    def _item(self, parts: list[Part], reason: FinishReason) -> Item:
        item = assistant_item(self._message, parts, self._error)
        if self._ended:
            return item
        open_calls = {f"part-{i}" for i, opened in self._open.items() if opened.kind is PartKind.TOOL_CALL}
        return close_items([item], [False], cut_calls(parts, self._began, open_calls), reason, _unanswered(parts))[0]

    # -- event handlers: each checks everything before it changes anything

    def _message_start(self, event: JsonDict) -> list[Delta]:
        message = copy_json(json_object(event.get("message"), "message"))
        check_message(message, "message")
        content = [part_from_block(b) for b in message.get("content") or ()]
        self._live(message)
        deltas: list[Delta] = []
        for part in content:  # blocks sent whole, under ids no content_block_start uses
            pid = PartId(f"start-{self._starts}")
            self._starts += 1
            self._began.append(pid.value)
            deltas += [BeginPart(pid, part.part_kind), CommitPart(part, part_id=pid)]
        return deltas

    def _block_start(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        if index in self._open:
            raise NormalizeError(f"content block {index} is already open", "index")
        block = copy_json(json_object(event.get("content_block"), "content_block"))
        part = part_from_block(block)
        pid = PartId(f"part-{index}")
        deltas: list[Delta] = [BeginPart(pid, part.part_kind)]
        if isinstance(part, CustomPart):
            deltas.append(ReplaceStructured(pid, copy_json(part.value)))
        shown = part.metadata.without(PROVIDER_KEY).merged(header(part))  # the state arrives with the commit
        if shown:
            deltas.append(SetMetadata(pid, shown))
        if isinstance(part, TextPart) and part.text:
            deltas.append(AppendText(pid, part.text))
        elif isinstance(part, ReasoningPart) and part.summary:
            deltas.append(AppendText(pid, part.summary))
        self._open[index] = _Block(block, part.part_kind)
        self._began.append(pid.value)
        return deltas

    def _block_delta(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        opened = self._opened(index, event)
        delta = json_object(event.get("delta"), "delta")
        pid = PartId(f"part-{index}")
        kind, btype = delta.get("type"), block_type(opened.block)
        rule = _DELTA_RULES.get(kind) if isinstance(kind, str) else None
        if rule is None or (btype not in rule[0] and btype not in _KNOWN_BLOCKS):
            # A delta nobody knows yet, or for a block nobody knows yet: kept, never sent.
            unknown = [*opened.unknown, copy_json(delta)]
            deltas: list[Delta] = [SetMetadata(pid, {UNKNOWN_DELTAS: copy_json(unknown)})]
            opened.unknown = unknown
            return deltas
        blocks, field, apply = rule
        if btype not in blocks:
            raise NormalizeError(f"a {kind} for content block {index}, a {btype} block", "delta.type")
        value = delta.get(field) if field else delta
        if field == "citation":
            value = json_object(value, "delta.citation", "a citation (a JSON object)")
        elif field and not isinstance(value, str):
            raise wrong("a string", value, f"delta.{field}")
        return apply(opened, pid, value)

    def _block_stop(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        self._opened(index, event)
        return self._commit(index)

    def _message_delta(self, event: JsonDict) -> list[Delta]:
        delta, usage = optional_obj(event, "delta"), optional_obj(event, "usage")
        message = copy_json(self._message)
        message.update(copy_json(delta or {}))
        # Message fields (``context_management``, ``input_transformations``) replace the message's; others merge.
        message.update((k, copy_json(v)) for k, v in event.items() if k in _MESSAGE_FIELDS and k not in ("type", "usage"))
        message = _merge_extras(message, {k: v for k, v in event.items() if k not in _MESSAGE_FIELDS and k != "delta"})
        if usage is not None:  # cumulative; null means "not reported here"
            merged = dict(message.get("usage") or {})
            merged.update((k, copy_json(v)) for k, v in usage.items() if v is not None)
            message["usage"] = merged
        check_message(message, "delta")
        self._live(message)
        return []

    def _message_stop(self, event: JsonDict) -> list[Delta]:
        commits = self._commit(*sorted(self._open))
        self._ended = True
        return commits

    def _error_event(self, event: JsonDict) -> list[Delta]:
        error = event.get("error")
        # The event's other fields (``request_id``) fill in what the message lacks, as an error body's do.
        message = {k: copy_json(v) for k, v in event.items() if k != "error"}
        message.update(copy_json(self._message))
        check_message(message, "")
        commits = self._commit(*sorted(self._open))
        self._message = message
        self._error = copy_json(error) if error is not None else {}
        self.finish_reason = FinishReason.ERROR
        self._ended = True
        return commits

    # -- helpers

    def _live(self, message: JsonDict) -> None:
        """Take ``message`` (checked) as the turn's message so far, and update the live attributes."""
        usage = message.get("usage")
        # the message is checked already: a usage object in it needs no second check
        live = None if usage is None else checked_usage(usage) if type(usage) is dict else usage_from_native(usage)
        reason = finish_reason(message.get("stop_reason"))
        self._message = message
        if live is not None:
            self.usage = live
        if self._error is None:
            self.finish_reason = reason

    def _opened(self, index: int, event: JsonDict) -> _Block:
        opened = self._open.get(index)
        if opened is None:
            raise NormalizeError(f"{event['type']} for content block {index}, which is not open", "index")
        return opened

    def _commit(self, *indexes: int) -> list[Delta]:
        """Close the open blocks ``indexes``: their finished parts, committed."""
        commits: list[Delta] = []
        for index in indexes:
            opened = self._open[index]
            block, extra, text = opened.finished(), dict[str, JsonValue](), "".join(opened.json)
            if text:  # a tool_use's input is an object: other JSON is no input, as text that does not parse
                parse = parse_object_arguments if block_type(block) == "tool_use" else parse_arguments
                block["input"], extra = parse(text)
            part = part_from_block(block)
            if block.get("input", {}) is None and INPUT_ERROR_KEY in extra and block_type(block) == "tool_use":
                part = _unparsed_call(block)  # cut off (by max_tokens): the fold's convention, not a custom part
            if part.part_kind is not opened.kind:  # a block that began malformed stays custom
                part = custom(block)
            if isinstance(part, ReasoningPart) and not part.redacted and part.data in (None, _NO_SIGNATURE):
                part = part.with_metadata(part.metadata.without(PROVIDER_KEY))  # cut before its signature
            if opened.unknown:
                extra[UNKNOWN_DELTAS] = copy_json(opened.unknown)
            if extra:
                part = part.with_metadata(part.metadata.merged(extra))
            commits.append(CommitPart(part, part_id=PartId(f"part-{index}")))
        for index in indexes:
            del self._open[index]
        return commits


#: The fields a ``Message`` defines (``type`` among them): an event's field of one of these names is no extra.
_MESSAGE_FIELDS = frozenset(
    ("id", "type", "role", "content", "model", "stop_reason", "stop_sequence", "stop_details", "usage",
     "container", "context_management", "input_transformations")
)
#: The fields each content block event and ``message_stop`` defines; any other is an extra field of the message.
_BLOCK_EVENT_FIELDS: dict[str, frozenset[str]] = {
    "content_block_start": frozenset(("type", "index", "content_block")),
    "content_block_delta": frozenset(("type", "index", "delta")),
    "content_block_stop": frozenset(("type", "index")),
    "message_stop": frozenset(("type",)),
}


def _merge_extras(message: JsonDict, extras: JsonDict) -> JsonDict:
    """A copy of ``message`` with an event's extra fields merged in as the SDK does: objects merge key by
    key, lists extend, anything else replaces."""

    def merge(old: JsonValue, new: JsonValue) -> JsonValue:
        if isinstance(old, dict) and isinstance(new, dict):
            return {**old, **{k: merge(old[k], v) if k in old else v for k, v in new.items()}}
        if isinstance(old, list) and isinstance(new, list):
            return [*old, *new]
        return new

    merged: JsonDict = dict(copy_json(message))
    for key, value in copy_json(extras).items():
        merged[key] = merge(merged[key], value) if key in merged else value
    return merged


def _unanswered(parts: Sequence[Part]) -> list[tuple[Part, JsonValue]]:
    """The server-side calls among ``parts`` (``server_tool_use``, ``mcp_tool_use``) no result block answers,
    with what ``dropped_server_calls`` lists of each."""
    blocks = [(p, p.value) for p in parts if isinstance(p, CustomPart) and isinstance(p.value, dict)]
    answered = {block["tool_use_id"] for _, block in blocks if isinstance(block.get("tool_use_id"), str)}
    return [(p, server_call(block)) for p, block in blocks if block.get("type") in _SERVER_CALLS and block.get("id") not in answered]


def _unparsed_call(block: JsonDict) -> Part:
    """The part of a ``tool_use`` block whose streamed input did not parse: its call, with no input."""
    return without_input(part_from_block({**block, "input": {}}))


def _index(event: JsonDict) -> int:
    index = event.get("index")
    if type(index) is not int or index < 0:
        raise wrong("a content block index (an integer >= 0)", index, "index")
    return index


def _append(field: str) -> Callable[[_Block, PartId, Any], list[Delta]]:
    """The rule of a delta that appends to the block's ``field`` (text, thinking)."""

    def apply(opened: _Block, pid: PartId, chunk: str) -> list[Delta]:
        pieces = opened.pieces.get(field)
        if pieces is None:
            so_far = opened.block.get(field)
            if not isinstance(so_far, (str, type(None))):
                raise NormalizeError(f"the block's {field} is not a string", f"delta.{field}")
            pieces = opened.pieces[field] = [so_far or ""]
        deltas: list[Delta] = [AppendText(pid, chunk)] if chunk else []
        pieces.append(chunk)
        return deltas

    return apply


def _signature(opened: _Block, pid: PartId, signature: str) -> list[Delta]:
    opened.block["signature"] = signature
    return []


def _input_json(opened: _Block, pid: PartId, fragment: str) -> list[Delta]:
    deltas: list[Delta] = [AppendText(pid, fragment)] if fragment else []
    opened.json.append(fragment)
    return deltas


def _compaction(opened: _Block, pid: PartId, delta: JsonDict) -> list[Delta]:
    """A ``compaction_delta``: its summary text extends the block's (a long summary comes in several deltas);
    its other fields (the encrypted state) replace the block's, but a null never erases a value already there."""
    for key, value in delta.items():
        if key == "type" or (value is None and opened.block.get(key) is not None):
            continue
        so_far = opened.block.get(key)
        if key == "content" and isinstance(value, str) and isinstance(so_far, str):
            value = so_far + value
        opened.block[key] = copy_json(value)
    return [ReplaceStructured(pid, copy_json(opened.block))]


def _citation(opened: _Block, pid: PartId, citation: JsonDict) -> list[Delta]:
    so_far = opened.block.get("citations")
    if not isinstance(so_far, (list, type(None))):
        raise NormalizeError("the block's citations are not a list", "delta.citation")
    citations = [*(so_far or ()), copy_json(citation)]
    deltas: list[Delta] = [SetMetadata(pid, {NS + "citations": copy_json(citations)})]
    opened.block["citations"] = citations
    return deltas


#: Delta type -> (the block types it applies to, the delta's field (``""``: the whole delta), how it applies).
_DELTA_RULES: dict[str, tuple[tuple[str, ...], str, Callable[[_Block, PartId, Any], list[Delta]]]] = {
    "text_delta": (("text",), "text", _append("text")),
    "thinking_delta": (("thinking",), "thinking", _append("thinking")),
    "signature_delta": (("thinking",), "signature", _signature),
    "input_json_delta": (_TOOL_INPUT_BLOCKS, "partial_json", _input_json),
    "citations_delta": (("text",), "citation", _citation),
    "compaction_delta": (("compaction",), "", _compaction),
}


def stream_decoder() -> AnthropicStreamDecoder:
    """A fresh decoder for one stream: ``feed(event)``, ``finish(parts)``, live ``usage`` and ``finish_reason``."""
    return AnthropicStreamDecoder()
