"""Private to :mod:`.openai_responses`: what the stream decoder keeps of each output item while it streams."""

from __future__ import annotations

from typing import Callable

from ... import CustomPart, JsonValue, Part, PartId, PartKind, ReasoningPart, TextPart, ToolCallId, ToolCallPart
from .._common import JsonDict, copy_json, parse_arguments, str_or_none
from ._keys import NS
from ._response import call_id_of

#: Item type -> the field its item-level fragments (``"item"`` key) build.
ITEM_TEXT = {"function_call": "arguments", "custom_tool_call": "input", "code_interpreter_call": "code", "mcp_call": "arguments"}


class Slot:
    """One part the decoder has begun: its id, kind and the entry key it belongs to."""

    __slots__ = ("pid", "kind", "key", "stand_in")

    def __init__(self, pid: PartId, kind: PartKind, key: str | None, stand_in: Callable[[str], Part]) -> None:
        # The part's id, the kind it began as, the entry key it belongs to ("c0", "s1", "item"; None for a
        # reasoning item's placeholder, until its entry is known) and how to close it as it stands: all fixed.
        self.pid, self.kind, self.key, self.stand_in = pid, kind, key, stand_in


class OpenItem:
    """What the stream has said so far of one output item."""

    __slots__ = ("item", "slots", "placeholder", "entries", "texts", "done", "annotations")

    def __init__(self, item: JsonDict) -> None:
        self.item = item  # as output_item.added sent it, status updated by progress events
        self.slots: dict[str, Slot] = {}  # entry key ("c0", "s1", "item") -> its open part
        self.placeholder: Slot | None = None  # a reasoning item's first part, before its entry is known
        self.entries: dict[str, JsonDict] = {}  # the entries announced (*.part.added, *.part.done)
        self.texts: dict[str, list[str]] = {}  # fragments per entry key
        self.done: dict[str, str] = {}  # full texts of *.done events
        self.annotations: dict[str, list[JsonValue]] = {}  # annotations added per entry key, in order

    def text(self, key: str) -> str:
        """Entry ``key``'s text: its ``*.done`` text, else the fragments joined (once: the join is kept)."""
        if key in self.done:
            return self.done[key]
        pieces = self.texts.get(key)
        if not pieces:
            return ""
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0]

    def partial(self) -> JsonDict:
        """The native item rebuilt from what arrived, for an item that never got its ``done``."""
        item: JsonDict = copy_json(self.item)
        itype = item.get("type")
        keys = sorted(set(self.entries) | set(self.texts) | set(self.done), key=lambda k: (k[0], int(k[1:]) if k[1:].isdigit() else -1))
        if itype == "message":
            content: list[JsonValue] = []
            for key in (k for k in keys if k[0] == "c"):
                entry = copy_json(self.entries.get(key, {"type": "output_text", "annotations": []}))
                entry["refusal" if entry.get("type") == "refusal" else "text"] = self.text(key)
                if key in self.annotations:
                    entry["annotations"] = copy_json(self.annotations[key])
                content.append(entry)
            item["content"] = content
        elif itype == "reasoning":
            for of, default in (("content", "reasoning_text"), ("summary", "summary_text")):
                found = [k for k in keys if k[0] == of[0]]
                if found:
                    item[of] = [{**copy_json(self.entries.get(k, {"type": default})), "text": self.text(k)} for k in found]
        elif isinstance(itype, str) and itype in ITEM_TEXT and ("item" in self.texts or "item" in self.done):
            item[ITEM_TEXT[itype]] = self.text("item")
        elif itype == "apply_patch_call" and ("item" in self.texts or "item" in self.done):
            operation = item.get("operation")
            item["operation"] = {**(operation if isinstance(operation, dict) else {}), "diff": self.text("item")}
        elif itype == "shell_call" and any(k[0] == "k" for k in keys):
            action, commands = item.get("action"), [self.text(k) for k in keys if k[0] == "k"]
            item["action"] = {**(action if isinstance(action, dict) else {}), "commands": commands}
        return item


def default_entry(itype: object, key: str, etype: str) -> JsonDict:
    """The entry a text event implies when no ``*.part.added`` announced it."""
    if itype == "reasoning":
        return {"type": "summary_text" if key[0] == "s" else "reasoning_text"}
    return {"type": "refusal"} if ".refusal." in etype else {"type": "output_text", "annotations": []}


def stand_in(kind: PartKind, state: OpenItem, key: str | None) -> Callable[[str], Part]:
    """How to close a part of ``kind`` whose final form turned out to be of another kind: as it stood."""

    def make(_: str) -> Part:
        text = state.text(key or "item")
        if kind is PartKind.TEXT:
            return TextPart(text)
        if kind is PartKind.REASONING:
            return ReasoningPart(text or None)
        if kind is PartKind.TOOL_CALL:
            call_id = call_id_of(state.item.get("call_id")) or ToolCallId("call")
            value, md = parse_arguments(text)
            return ToolCallPart(call_id, str_or_none(state.item.get("name")) or "", value, metadata=md)
        return CustomPart(NS + str(state.item.get("type")), value=copy_json(state.item))

    return make
