"""The Responses stream decoder: ``response.*`` events -> deltas, then the turn's item.

Private to :mod:`.openai_responses`, whose docstring says what each event
does; the parts it commits come from :mod:`._response`, so a stream
folds to the item the non-streaming path gives.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ... import (
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FinishReason,
    FoldState,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    Part,
    PartId,
    PartKind,
    ReasoningPart,
    SetMetadata,
    ToolCallPart,
    Usage,
)
from .._common import JsonDict, copy_json, count, str_or_none
from .._common.held import as_native
from .._common.streams import began_parts, close_items, cut_calls, header, server_call, stream_parts
from ._held import EVENT, unaliased
from ._keys import NS, PART_NS, UNKNOWN
from ._open import OpenItem, Slot, default_entry, stand_in
from ._response import TEXT_FIELDS, call_id_of, client_call, finish_of, keyed_parts, response_item, usage_of

# -- the decoder --------------------------------------------------------------------------------

_APPENDABLE = (PartKind.TEXT, PartKind.REASONING, PartKind.TOOL_CALL)
_PHASES = frozenset(("in_progress", "searching", "interpreting", "generating", "completed", "failed"))
#: Text events: type -> (the index field naming the entry, or None for the item itself; the field holding the text).
_TEXT_EVENTS = {
    "response.output_text.delta": ("content_index", "delta"),
    "response.refusal.delta": ("content_index", "delta"),
    "response.reasoning_text.delta": ("content_index", "delta"),
    "response.reasoning_summary_text.delta": ("summary_index", "delta"),
    "response.function_call_arguments.delta": (None, "delta"),
    "response.custom_tool_call_input.delta": (None, "delta"),
    "response.code_interpreter_call_code.delta": (None, "delta"),
    "response.mcp_call_arguments.delta": (None, "delta"),
    "response.output_text.done": ("content_index", "text"),
    "response.refusal.done": ("content_index", "refusal"),
    "response.reasoning_text.done": ("content_index", "text"),
    "response.reasoning_summary_text.done": ("summary_index", "text"),
    "response.function_call_arguments.done": (None, "arguments"),
    "response.custom_tool_call_input.done": (None, "input"),
    "response.code_interpreter_call_code.done": (None, "code"),
    "response.mcp_call_arguments.done": (None, "arguments"),
    "response.apply_patch_call_operation_diff.delta": (None, "delta"),
    "response.apply_patch_call_operation_diff.done": (None, "diff"),
}


class ResponsesStreamDecoder:
    """Responses stream events -> deltas; :meth:`finish` builds the turn's item.

    One decoder serves one stream: feed every event in order (the parsed
    ``data:`` JSON, as :func:`events_from_sse` gives it) and fold what
    :meth:`feed` returns, then call :meth:`finish` with the folded parts.
    ``usage`` is the latest :class:`Usage` the stream reported (``None``
    before any) and ``finish_reason`` the turn's :class:`FinishReason`
    (``None`` until the event that ends the turn).
    """

    usage: Usage | None
    finish_reason: FinishReason | None

    def __init__(self) -> None:
        # The latest usage a response event held (live); each one holding usage replaces it.
        self.usage = None
        # The turn's finish reason (live): None until the terminal or error event sets it, then fixed.
        self.finish_reason = None
        # The raw reason beside it (a status, an incomplete reason, "error"); set with it.
        self._raw: str | None = None
        # The latest response object a response.* event held; each one replaces it.
        self._response: JsonDict = {}
        # What an error event reported; None until one comes.
        self._error: JsonDict | None = None
        # Output index -> each output item added and not yet done (its parts are the open parts);
        # output_item.added adds one, output_item.done, the terminal or an error event closes it.
        self._open: dict[int, OpenItem] = {}
        # (output index, final native item) of every item closed, in the order closed; appended on close.
        self._closed: list[tuple[int, JsonDict]] = []
        # The id (else the index) and the (index, type) of every item announced; added as items are added.
        self._seen: set[object] = set()
        # Output index -> how many parts its item has begun (part ids "<index>", "<index>.<n>"); counts up.
        self._ordinals: dict[int, int] = {}
        # The id of every part begun, in order; appended as parts begin.
        self._began: list[str] = []
        # Reasoning item id -> its encrypted_content in the terminal response; filled by the terminal event.
        self._encrypted: dict[str, str] = {}
        # Whether the terminal or an error event came; set once, and events after it are ignored.
        self._ended = False

    # -- events -------------------------------------------------------------------------

    def feed(self, event: object) -> list[Delta]:
        """The deltas of one stream event; :class:`NormalizeError` if it is not a JSON object."""
        checked = copy_json(as_native(event, EVENT))  # the decoder keeps and updates parts of it
        if "response" in checked:
            checked["response"] = unaliased(checked["response"])
        etype = checked.get("type")
        if etype is None and isinstance(checked.get("error"), dict):
            etype = "error"  # {"error": {...}}: an error payload with no event type
        if self._ended or not isinstance(etype, str):
            return []
        match etype:
            case _ if etype in _TEXT_EVENTS:  # the most frequent first: text and argument deltas, and their done
                return self._on_text(checked)
            case "response.created" | "response.in_progress" | "response.queued":
                return self._on_response(checked)
            case "response.completed" | "response.incomplete" | "response.failed" | "response.cancelled":
                return self._on_terminal(checked)
            case "error":
                return self._on_error(checked)
            case "response.output_item.added":
                return self._on_added(checked)
            case "response.output_item.done":
                return self._on_done(checked)
            case (
                "response.content_part.added" | "response.content_part.done"
                | "response.reasoning_summary_part.added" | "response.reasoning_summary_part.done"
            ):
                return self._on_part(checked)
            case "response.shell_call_command.added" | "response.shell_call_command.delta" | "response.shell_call_command.done":
                return self._on_command(checked)
            case "response.output_text.annotation.added" | "response.output_text_annotation.added":  # its older name
                return self._on_annotation(checked)
            case _:  # progress events (searching, generating...) and events yet to be invented
                return self._progress(etype, checked)

    def _take_response(self, event: JsonDict) -> JsonDict:
        response = event.get("response")
        if isinstance(response, dict):
            self._response = response
            usage = usage_of(response.get("usage"))
            if usage is not None:
                self.usage = usage
        return self._response

    def _on_response(self, event: JsonDict) -> list[Delta]:
        self._take_response(event)
        return []

    def _on_terminal(self, event: JsonDict) -> list[Delta]:
        response = self._take_response(event)
        status = response.get("status")
        if not isinstance(status, str):
            status = str(event["type"]).rpartition(".")[2]
        output = response.get("output")
        output = output if isinstance(output, list) else []
        deltas: list[Delta] = []
        for index in sorted(self._open):
            deltas += self._close(index, self._terminal_copy(index, output))
        for index, native in enumerate(output):
            if isinstance(native, dict) and not self._announced(index, native):
                self._open_item(index, native)
                deltas += self._close(index, native)
            elif isinstance(native, dict) and native.get("type") == "reasoning":  # the version meant to be replayed
                item_id, encrypted = native.get("id"), native.get("encrypted_content")
                if isinstance(item_id, str) and isinstance(encrypted, str):
                    self._encrypted[item_id] = encrypted
        self._end(finish_of(status, response.get("incomplete_details"), [n for _, n in sorted(self._closed, key=lambda c: c[0])]))
        return deltas

    def _on_error(self, event: JsonDict) -> list[Delta]:
        fields = {k: v for k, v in event.items() if k not in ("type", "sequence_number")}
        envelope = fields.get("error")  # {"error": {...}}, as the API also sends it, or the fields themselves
        self._error = envelope if isinstance(envelope, dict) and len(fields) == 1 else fields
        deltas: list[Delta] = []
        for index in sorted(self._open):
            deltas += self._close(index, None)
        self._end((FinishReason.ERROR, "error"))
        return deltas

    def _end(self, finish: tuple[FinishReason | None, str | None]) -> None:
        self.finish_reason, self._raw = finish
        self._ended = True

    @staticmethod
    def _key(index: int, item: JsonDict) -> object:
        item_id = item.get("id")
        return item_id if isinstance(item_id, str) else index

    def _announced(self, index: int, native: JsonDict) -> bool:
        """Whether the stream announced output item ``native``: its id, or an item of its type at its index.

        A terminal response may name an item otherwise than its events did
        (OpenRouter renews the ``rs_tmp_...`` id of a reasoning item).
        """
        return self._key(index, native) in self._seen or (index, str_or_none(native.get("type"))) in self._seen

    def _terminal_copy(self, index: int, output: list[JsonValue]) -> JsonDict | None:
        item = self._open[index].item
        item_id = item.get("id")
        for native in output:
            if isinstance(native, dict) and isinstance(item_id, str) and native.get("id") == item_id:
                return native
        native = output[index] if index < len(output) else None
        if isinstance(native, dict) and native.get("type") == item.get("type") and not isinstance(item_id, str):
            return native
        return None

    def _index(self, event: JsonDict) -> OpenItem | None:
        index = count(event.get("output_index"))
        return None if index is None else self._open.get(index)

    def _on_added(self, event: JsonDict) -> list[Delta]:
        index, item = count(event.get("output_index")), event.get("item")
        if index is None or not isinstance(item, dict) or index in self._open:
            return []
        state = self._open_item(index, item)
        itype = item.get("type")
        if itype == "message":
            return []
        if itype == "reasoning":
            return self._begin(index, state, None, PartKind.REASONING)
        if itype in ("function_call", "custom_tool_call"):
            call_id, name = call_id_of(item.get("call_id")), str_or_none(item.get("name"))
            if call_id is not None and name is not None:
                shown = header(ToolCallPart(call_id, name, None))
                if isinstance(item.get("id"), str):
                    shown[NS + "id"] = item["id"]
                if itype == "custom_tool_call":  # so a call the stream cuts off still goes back as one
                    shown[NS + "type"] = itype
                return self._begin(index, state, "item", PartKind.TOOL_CALL, shown)
        kind = NS + itype if isinstance(itype, str) else UNKNOWN
        return self._begin(index, state, "item", PartKind.CUSTOM, header(CustomPart(kind)))

    def _open_item(self, index: int, item: JsonDict) -> OpenItem:
        self._seen.update((self._key(index, item), (index, str_or_none(item.get("type")))))
        state = self._open[index] = OpenItem(item)
        return state

    def _on_part(self, event: JsonDict) -> list[Delta]:
        state, part = self._index(event), event.get("part")
        summary = event["type"].startswith("response.reasoning_summary_part.")
        entry = count(event.get("summary_index" if summary else "content_index"))
        if state is None or entry is None or not isinstance(part, dict):
            return []
        key = f"{'s' if summary else 'c'}{entry}"
        state.entries[key] = part
        if event["type"].endswith(".done"):
            return []
        return self._slot(count(event.get("output_index")) or 0, state, key)[1]

    def _on_text(self, event: JsonDict) -> list[Delta]:
        state = self._index(event)
        index_field, text_field = _TEXT_EVENTS[event["type"]]
        entry = count(event.get(index_field)) if index_field else 0
        text = event.get(text_field)
        if state is None or entry is None or not isinstance(text, str):
            return []
        if index_field is None:
            key = "item"
        else:
            key = f"{'s' if index_field == 'summary_index' else 'c'}{entry}"
            state.entries.setdefault(key, default_entry(state.item.get("type"), key, event["type"]))
        if event["type"].endswith(".done"):  # the whole text, once: the tail the deltas missed, if any
            before = state.text(key)
            state.done[key] = text
            chunk = text[len(before) :] if text.startswith(before) else ""
        else:
            state.texts.setdefault(key, []).append(text)
            state.done.pop(key, None)
            chunk = text
        slot, deltas = self._slot(count(event.get("output_index")) or 0, state, key)
        if chunk and slot is not None and slot.kind in _APPENDABLE:
            deltas.append(AppendText(slot.pid, chunk))
        return deltas

    def _on_command(self, event: JsonDict) -> list[Delta]:
        """``shell_call_command.added`` / ``delta`` / ``done``: a command of a shell call, kept for a call cut short."""
        state, entry = self._index(event), count(event.get("command_index"))
        text = event.get("delta" if event["type"].endswith(".delta") else "command")
        if state is not None and entry is not None and isinstance(text, str):
            key = f"k{entry}"
            if event["type"].endswith(".done"):
                state.done[key] = text
            else:
                state.texts.setdefault(key, []).append(text)
                state.done.pop(key, None)
        return []

    def _on_annotation(self, event: JsonDict) -> list[Delta]:
        state, entry, at = self._index(event), count(event.get("content_index")), count(event.get("annotation_index"))
        if state is None or entry is None:
            return []
        key = f"c{entry}"
        known = state.entries.get(key, {}).get("annotations")
        notes = state.annotations.setdefault(key, copy_json(known) if isinstance(known, list) else [])
        note = event.get("annotation")
        if at is not None and at < len(notes):
            notes[at] = note
        else:
            notes.append(note)
        slot = state.slots.get(key)
        if slot is None:
            return []
        return [SetMetadata(slot.pid, {PART_NS + "annotations": copy_json(notes)})]

    def _progress(self, etype: str, event: JsonDict) -> list[Delta]:
        """``response.<x>_call.<phase>`` (and ``mcp_list_tools``): the open part's ``openai.status``."""
        parts = etype.split(".")
        if len(parts) != 3 or parts[0] != "response" or parts[2] not in _PHASES:
            return []
        if not (parts[1].endswith("_call") or parts[1] == "mcp_list_tools"):
            return []
        state = self._index(event)
        if state is None:
            return []
        state.item["status"] = parts[2]
        slot = state.slots.get("item")
        return [] if slot is None else [SetMetadata(slot.pid, {NS + "status": parts[2]})]

    def _on_done(self, event: JsonDict) -> list[Delta]:
        index, item = count(event.get("output_index")), event.get("item")
        if index is None:
            return []
        if index not in self._open:  # no added event (a stream resumed past it): the done item is the whole item
            if not isinstance(item, dict) or self._announced(index, item):
                return []
            self._open_item(index, item)
        return self._close(index, item if isinstance(item, dict) else None)

    # -- parts --------------------------------------------------------------------------

    def _new_pid(self, index: int) -> PartId:
        n = self._ordinals.get(index, 0)
        self._ordinals[index] = n + 1
        pid = str(index) if n == 0 else f"{index}.{n}"
        self._began.append(pid)
        return PartId(pid)

    def _begin(
        self, index: int, state: OpenItem, key: str | None, kind: PartKind, shown: Mapping[str, JsonValue] = {}
    ) -> list[Delta]:
        pid = self._new_pid(index)
        slot = Slot(pid, kind, key, stand_in(kind, state, key))
        if key is None:
            state.placeholder = slot
        else:
            state.slots[key] = slot
        return [BeginPart(pid, kind)] + ([SetMetadata(pid, shown)] if shown else [])

    def _slot(self, index: int, state: OpenItem, key: str) -> tuple[Slot | None, list[Delta]]:
        """The open part of entry ``key``, begun (or the placeholder claimed) when there is none yet."""
        slot = state.slots.get(key)
        if slot is not None or key == "item":
            return slot, []
        kind = PartKind.REASONING if state.item.get("type") == "reasoning" else PartKind.TEXT
        if kind is PartKind.TEXT:
            etype = state.entries.get(key, {}).get("type", "output_text")
            if state.item.get("type") != "message" or not isinstance(etype, str) or etype not in TEXT_FIELDS:
                kind = PartKind.CUSTOM
        holder = state.placeholder
        if holder is not None and holder.kind is kind:
            state.placeholder, holder.key = None, key
            holder.stand_in = stand_in(kind, state, key)
            state.slots[key] = holder
            return holder, []
        shown = header(CustomPart(NS + str(state.entries.get(key, {}).get("type")))) if kind is PartKind.CUSTOM else {}
        deltas = self._begin(index, state, key, kind, shown)
        return state.slots[key], deltas

    def _close(self, index: int, native: JsonDict | None) -> list[Delta]:
        """Commit every part of output item ``index`` from its final form (``None``: from what arrived)."""
        state = self._open.pop(index)
        final = native if native is not None else state.partial()
        self._closed.append((index, final))
        slots = dict(state.slots)
        holder = state.placeholder
        deltas: list[Delta] = []
        for key, part in keyed_parts(final, ItemKind.ASSISTANT):
            slot = slots.pop(key, None)
            if slot is None and holder is not None:
                slot, holder = holder, None
            deltas += self._commit(index, slot, part)
        leftover = list(slots.values()) + ([holder] if holder is not None else [])
        if leftover:
            arrived = dict(keyed_parts(state.partial(), ItemKind.ASSISTANT))
            for slot in leftover:
                found = arrived.get(slot.key or "item")
                deltas += self._commit(index, slot, found if found is not None else slot.stand_in(""))
        return deltas

    def _commit(self, index: int, slot: Slot | None, part: Part) -> list[Delta]:
        if slot is not None and slot.kind is part.part_kind:
            return [CommitPart(part, part_id=slot.pid)]
        deltas: list[Delta] = []
        if slot is not None:  # the item changed shape: close the part as it stood, then add the real one
            deltas.append(CommitPart(slot.stand_in(""), part_id=slot.pid))
        pid = self._new_pid(index)
        return deltas + [BeginPart(pid, part.part_kind), CommitPart(part, part_id=pid)]

    # -- the item -----------------------------------------------------------------------

    def finish(self, parts: Sequence[Part] | FoldState) -> Item:
        """The turn's item: ``parts`` (the folded stream) with the response's id, usage, metadata and finish reason.

        A stream that stopped before its terminal event (``response.completed``
        and its kin, or ``error``) is closed as :meth:`close` closes it, with
        ``FinishReason.ERROR``.
        ``parts`` may be the fold state itself (its open parts then close as they stand, not lost) or its parts.
        """
        return self._item(stream_parts(parts), FinishReason.ERROR)

    def close(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> Item:
        """The item of a turn stopped before it finished (cancelled; ``ERROR`` for a transport failure).

        ``parts`` is ``FoldState.finalize()`` (or the state itself).  The item
        gets ``reason``, keeps the text and reasoning that arrived, and drops a
        call whose output item never got its ``done`` (its arguments were cut
        off), listed under ``agentkit.stream_cut``; a call whose item was done
        is kept.  A hosted tool's item (``web_search_call``, ``mcp_call``...)
        that never got its ``done`` goes too, listed under
        ``dropped_server_calls``: it is not finished, and only the server could
        finish it.  A stream that had ended gives :meth:`finish`'s item.
        """
        return self._item(stream_parts(parts), reason)

    def _replayable(self, part: Part) -> Part:
        """A reasoning part with the ``encrypted_content`` of the terminal response, when it sent another.

        The stream sends a reasoning item's encrypted state more than once
        (``output_item.done``, then ``response.completed``) and the versions
        differ; the terminal response's is the one the API means to be replayed.
        """
        item_id = part.metadata.get(NS + "id")
        if not isinstance(part, ReasoningPart) or not isinstance(item_id, str) or item_id not in self._encrypted:
            return part
        data = InlineText(self._encrypted[item_id])
        if isinstance(part.data, InlineText) and part.data != data:
            return part.with_data(data)
        return part

    def _item(self, parts: list[Part], reason: FinishReason) -> Item:
        extra: dict[str, JsonValue] = {} if self._error is None else {NS + "error": self._error}
        if self._encrypted:
            parts = [self._replayable(p) for p in parts]
        item = response_item(self._response, parts, self.usage, (self.finish_reason, self._raw), extra)
        if self._ended:
            return item
        slots = [slot for state in self._open.values() for slot in (*state.slots.values(), state.placeholder) if slot]
        open_calls = {slot.pid.value for slot in slots if slot.kind is PartKind.TOOL_CALL}
        hosted = {
            slot.pid.value: server_call(state.item)
            for state in self._open.values()
            if _hosted_call(state.item)
            for slot in (*state.slots.values(), state.placeholder)
            if slot is not None
        }
        cut = cut_calls(parts, self._began, open_calls)
        return close_items([item], [False], cut, reason, began_parts(parts, self._began, hosted))[0]

    def close_all(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> list[Item]:
        """``[close(parts, reason)]``: a Responses stream holds one item (the same method as the decoders of several)."""
        return [self.close(parts, reason)]

    def finish_all(self, parts: Sequence[Part] | FoldState) -> list[Item]:
        """``[finish(parts)]``: a Responses stream holds one item (the same method as the decoders of several)."""
        return [self.finish(parts)]


def _hosted_call(native: JsonDict) -> bool:
    """Whether output item ``native`` is a call the server runs (a hosted tool's, or its MCP tool listing)."""
    itype = native.get("type")
    if not isinstance(itype, str) or not (itype.endswith("_call") or itype == "mcp_list_tools"):
        return False
    return not client_call(itype, native)


def stream_decoder() -> ResponsesStreamDecoder:
    """A fresh decoder for one Responses stream."""
    return ResponsesStreamDecoder()
