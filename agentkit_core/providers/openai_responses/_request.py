"""The Responses request: parts -> native input items (the inverse of :mod:`._response`), items <-> a request's input.

Private to :mod:`.openai_responses`, whose docstring says how parts regroup
into native items and which parts are not sent.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from ... import (
    INPUT_JSON_KEY,
    CustomPart,
    FilePart,
    FilesOutput,
    Handle,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    Modality,
    ModelSettings,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredPart,
    TextPart,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)
from .._common import (
    INPUT_AUDIO_TYPES,
    JsonDict,
    checked_list,
    copy_json,
    data_url,
    dumps,
    holds_text,
    in_namespace,
    inline_base64,
    metadata_to_fields,
    name_results,
    output_text,
    owned,
    wrong,
)
from .._common.held import as_native
from .._common.reuse import BuildCache, FastFold
from .._common.settings import with_settings
from ._fast import fold
from ._held import REQUEST
from ._keys import ENTRY_OF, ENTRY_RAW, NO_SUMMARY, NS, PART_NS, PROVIDER, REQUEST_FIELD, UNKNOWN
from ._response import KIND_ROLES, input_kind, parts_of, pin_result_types
from ._settings import checked_body, fields_of
from ._tools import Choice, Tools, tool_fields

#: Audio MIME type -> its ``input_audio`` format (other audio goes as an ``input_file``).
_AUDIO_FORMATS = {**{mime: fmt for fmt, mime in INPUT_AUDIO_TYPES.items()}, "audio/x-wav": "wav", "audio/wave": "wav", "audio/mp3": "mp3"}
#: MIME type -> the extension of the ``filename`` an inline file without a name is sent with.
_EXTENSIONS = {
    "application/pdf": ".pdf", "application/json": ".json",
    "text/plain": ".txt", "text/markdown": ".md", "text/csv": ".csv", "text/html": ".html",
}


def _ours(part: Part) -> bool:
    """Whether the Responses API can take ``part`` back: its own state or fields, not another provider's."""
    return owned(part.metadata, PROVIDER, NS)


def _text_type(role: str) -> str:
    return "output_text" if role == "assistant" else "input_text"


def _from_request(part: Part) -> bool:
    """Whether ``part`` is a content entry this API sent (its ``type`` kept), written back as it came."""
    return (PART_NS + "type") in part.metadata


def _entry(part: Part, role: str) -> JsonValue:
    """One part -> one native content entry (of a message, or of a tool output list: ``role`` ``"tool"``)."""
    fields = metadata_to_fields(part.metadata, PART_NS)
    if isinstance(part, CustomPart) and _from_request(part):
        verbatim: JsonValue = copy_json(part.value)
        return verbatim
    if isinstance(part, TextPart):
        etype = fields.pop("type", _text_type(role))
        return {"type": etype, ("refusal" if etype == "refusal" else "text"): part.text, **fields}
    fields.pop("type", None)
    if isinstance(part, MediaPart) and part.modality is Modality.IMAGE:
        data = part.data
        if isinstance(data, Uri):
            return {"type": "input_image", "image_url": data.value, **fields}
        if isinstance(data, Handle):
            return {"type": "input_image", "file_id": data.value.value, **fields}
        return {"type": "input_image", "image_url": data_url(part.mime_type, str(inline_base64(part))), **fields}
    # a tool output list takes no input_audio: audio another API gave goes there as a file
    audio = _input_audio(part) if isinstance(part, MediaPart) and (role != "tool" or _from_request(part)) else None
    if audio is not None:
        return {"type": "input_audio", "input_audio": audio, **fields}
    if isinstance(part, (MediaPart, FilePart)):
        entry: JsonDict = {"type": "input_file"}
        if isinstance(part, FilePart) and part.name is not None:
            entry["filename"] = part.name
        data, mime = part.data, part.mime_type
        if isinstance(data, Uri):
            entry["file_url"] = data.value
        elif isinstance(data, Handle):
            entry["file_id"] = data.value.value
        elif mime is None and isinstance(data, InlineText) and _ours(part):
            entry["file_data"] = data.value  # a file_data that was no data: URL, as it came
        else:
            mime = mime or ("text/plain" if holds_text(part) else "application/octet-stream")
            entry["file_data"] = data_url(mime, str(inline_base64(part)))
            if "filename" not in entry and not _from_request(part):  # the API refuses file_data without one
                entry["filename"] = "file" + _EXTENSIONS.get(mime.lower(), "")
        return {**entry, **fields}
    if isinstance(part, (StructuredPart, CustomPart)):
        return {"type": _text_type(role), "text": dumps(part.value)}
    text = part.summary if isinstance(part, ReasoningPart) else None
    return {"type": _text_type(role), "text": text or ""}


def _input_audio(part: MediaPart) -> JsonDict | None:
    """The ``input_audio`` object of inline audio of a MIME type the API takes, else ``None``."""
    data, fmt = inline_base64(part), _AUDIO_FORMATS.get(part.mime_type.lower())
    if part.modality is not Modality.AUDIO or data is None or fmt is None:
        return None
    return {"data": data, "format": fmt}


def _output_native(output: ToolOutput) -> JsonValue:
    text = output_text(output)
    if text is not None:
        return text
    if isinstance(output, PartsOutput):
        return [_entry(p, "tool") for p in output.parts]
    if isinstance(output, FilesOutput):
        return [_entry(f, "tool") for f in output.files]
    return ""


def _group_key(part: Part) -> tuple[str, JsonValue] | None:
    """Parts with equal keys, side by side, form one native item; ``None``: a native item alone."""
    if isinstance(part, (ToolCallPart, ToolResultPart)):
        return None
    if isinstance(part, CustomPart) and (PART_NS + "type") not in part.metadata:
        return None
    return ("reasoning" if isinstance(part, ReasoningPart) else "message", part.metadata.get(NS + "id"))


def _groups(parts: Iterable[Part]) -> Iterator[list[Part]]:
    group: list[Part] = []
    key: tuple[str, JsonValue] | None = None
    for part in parts:
        k = _group_key(part)
        if group and (k is None or k != key):
            yield group
            group = []
        group.append(part)
        key = k
    if group:
        yield group


def _reasoning_native(group: list[Part], fields: JsonDict) -> JsonDict:
    lists: dict[str, list[JsonValue]] = {"content": [], "summary": []}
    encrypted: str | None = None
    for part in group:
        assert isinstance(part, ReasoningPart)
        md = part.metadata
        if encrypted is None and isinstance(part.data, InlineText):
            encrypted = part.data.value
        of = md.get(ENTRY_OF)
        if not isinstance(of, str) or of not in lists:
            of = "content" if md.get(PART_NS + "type") == "reasoning_text" else "summary"
        assert isinstance(of, str)
        if part.summary is not None:
            entry = metadata_to_fields(md, PART_NS)
            lists[of].append({"type": entry.pop("type", "reasoning_text" if of == "content" else "summary_text"), "text": part.summary, **entry})
        elif ENTRY_RAW in md:
            lists[of].append(copy_json(md[ENTRY_RAW]))
    native: JsonDict = {"type": "reasoning", **fields}
    if lists["content"]:
        native["content"] = lists["content"]
    if lists["summary"] or ("summary" not in fields and NO_SUMMARY not in group[0].metadata):
        native["summary"] = lists["summary"]
    if encrypted is not None:
        native["encrypted_content"] = encrypted
    return native


def native_items(item: Item, custom_calls: set[str]) -> Iterator[JsonValue]:
    """The native input items of one item's parts.

    ``custom_calls`` holds the call ids of the ``custom_tool_call`` items
    written so far (this function adds the item's own): a result without
    ``openai.type`` that answers one is a ``custom_tool_call_output``.
    """
    kept = [p for p in item.parts if not isinstance(p, ReasoningPart) or _ours(p)]
    for group in _groups(kept):
        first = group[0]
        fields = metadata_to_fields(first.metadata, NS)
        if isinstance(first, ToolCallPart):
            if fields.get("type") == "custom_tool_call":
                custom_calls.add(first.id.value)
                raw = first.metadata.get(INPUT_JSON_KEY)  # a cut-off input the fold could not parse: its text
                text = first.input if isinstance(first.input, str) else raw if isinstance(raw, str) else dumps(first.input)
                yield {"call_id": first.id.value, "name": first.name, "input": text, **fields}
                continue
            raw, args = fields.pop("arguments", None), first.metadata.get(INPUT_JSON_KEY)
            if not isinstance(args, str):
                args = raw if isinstance(raw, str) else dumps(first.input)
            yield {"type": "function_call", "call_id": first.id.value, "name": first.name, "arguments": args, **fields}
        elif isinstance(first, ToolResultPart):
            answers_custom = first.call_id.value in custom_calls
            kind = fields.pop("type", "custom_tool_call_output" if answers_custom else "function_call_output")
            yield {"type": kind, "call_id": first.call_id.value, "output": _output_native(first.output), **fields}
        elif isinstance(first, CustomPart) and (PART_NS + "type") not in first.metadata:
            if in_namespace(first.kind, NS) and (first.value is not None or first.kind == UNKNOWN):
                yield copy_json(first.value)  # a null input item, too, as it came
        elif isinstance(first, ReasoningPart):
            yield _reasoning_native(group, fields)
        else:
            role = fields.pop("role") if "role" in fields else KIND_ROLES.get(item.kind, "user")
            if role == "assistant":  # output_text and refusal entries only: another API's media and files stay out
                group = [p for p in group if _from_request(p) or not isinstance(p, (MediaPart, FilePart))]
            if not group:
                continue
            if len(group) == 1 and isinstance(group[0], TextPart) and not _from_request(group[0]):
                yield {"role": role, "content": group[0].text, **fields}
            else:
                yield {"role": role, "content": [_entry(p, role) for p in group], **fields}


# -- requests ------------------------------------------------------------------------------


def items_from_request(body: object) -> list[Item]:
    """The transcript of a request body: ``instructions`` and ``input`` as items (see the module docs).

    Raises :class:`NormalizeError` if ``body`` is not a JSON object of JSON data,
    ``instructions`` is not a string or ``input`` neither a string nor a list.
    """
    request = as_native(body, REQUEST)
    items: list[Item] = []
    instructions, inp = request.get("instructions"), request.get("input")
    if isinstance(instructions, str) or (instructions is None and "instructions" in request):
        texts = (TextPart(instructions),) if instructions is not None else ()
        items.append(Item(ItemKind.SYSTEM, texts, metadata={REQUEST_FIELD: "instructions"}))
    elif instructions is not None:
        raise wrong("a string", instructions, "instructions")
    if isinstance(inp, str):
        items.append(Item(ItemKind.USER, (TextPart(inp),), metadata={REQUEST_FIELD: "input"}))
    elif isinstance(inp, list):
        custom_calls: set[str] = set()
        for native in inp:
            kind = input_kind(native)
            items.append(Item(kind, pin_result_types(parts_of(native, kind), custom_calls)))
    elif inp is not None:
        raise wrong("a string or a list of input items", inp, "input")
    return name_results(items)


def request_from_items(items: Iterable[Item], *, tools: Tools = (), tool_choice: Choice = None,
                       settings: ModelSettings | None = None) -> JsonDict:
    """The transcript fields of a request body: ``{"input": [...]}``, plus ``instructions`` (see the module docs), and the tool fields when given.

    Raises :class:`NormalizeError` if ``items`` holds something that is not an :class:`Item`.
    ``settings`` (a :class:`~agentkit_core.ModelSettings`) add their fields (see :mod:`._settings`);
    one the API has no field for raises ``ValueError``.
    """
    build = Build()  # reuse.fresh's fold, without its calls through the protocol
    build.add_all(checked_list(items, Item, "items"))
    native = build.take_final()
    fields = build.fields(native, len(native))
    if tool_choice is not None or type(tools) is not tuple or tools:  # else neither given: no tool fields, nothing to check
        fields.update(tool_fields(tools, tool_choice))
    if settings is None:
        return fields
    written = fields_of(settings)
    return checked_body(with_settings(fields, written), written)


class Build(FastFold):
    """The fold that writes ``instructions`` and ``input`` (:class:`~.._common.reuse.Build`): each input item is final when made."""

    __slots__ = ("native", "instructions", "bare", "custom_calls")

    #: Items of the common shapes take the fast path (:class:`.FastFold`, the tests turn it off to compare).
    fold_fast = staticmethod(fold)

    def __init__(self) -> None:
        self.native: list[JsonValue] = []
        self.instructions: list[str | None] = []  # the first instructions item's text, if one came
        self.bare: str | None = None
        self.custom_calls: set[str] = set()

    def copy(self) -> Build:
        build = type(self)()
        build.native, build.instructions, build.bare = list(self.native), self.instructions, self.bare
        build.custom_calls = set(self.custom_calls)
        return build

    #: The general path's writers of a content entry and of a result's output, for the fast path.
    entry = staticmethod(_entry)
    output = staticmethod(_output_native)

    def add_general(self, n: int, item: Item) -> None:
        """:meth:`add` for any item (the fast path's way out, :func:`._fast.fold`)."""
        field = item.metadata.get(REQUEST_FIELD)
        if field == "instructions" and item.kind is ItemKind.SYSTEM and not self.instructions:
            self.instructions = [item.text_content() if item.parts else None]
            return
        if field == "input" and len(item.parts) == 1 and isinstance(item.parts[0], TextPart):
            self.bare = item.parts[0].text
        self.native.extend(native_items(item, self.custom_calls))

    def take_final(self) -> list[JsonValue]:
        out, self.native = self.native, []
        return out

    def rest(self) -> list[JsonValue]:
        return []

    def fields(self, messages: object, count: int) -> JsonDict:
        body: JsonDict = {"instructions": self.instructions[0]} if self.instructions else {}
        body["input"] = self.bare if self.bare is not None and count == 1 else messages
        return body


#: The builds ``http_request`` keeps (:mod:`.._common.reuse`).
KEPT = BuildCache(Build)


def kept_request(items: Sequence[Item], *, tools: Tools = (), tool_choice: Choice = None) -> JsonDict:
    """:func:`request_from_items` for ``http_request``: the same bytes once encoded, the input joined from kept pieces."""
    return {**KEPT.fields(items), **tool_fields(tools, tool_choice)}
