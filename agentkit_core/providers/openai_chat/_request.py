"""Private to :mod:`.openai_chat`: items <-> a request's messages; the encoder is the inverse of :mod:`._response`.

What is sent and what is dropped is said in the docstring of :mod:`.openai_chat`.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from ... import (
    INPUT_JSON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    FilePart,
    FilesOutput,
    Handle,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    Modality,
    ModelSettings,
    NormalizeError,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)
from .._common import (
    JsonDict,
    checked_list,
    copy_json,
    data_url,
    dumps,
    fields_to_metadata,
    holds_text,
    inline_base64,
    json_object,
    metadata_to_fields,
    name_results,
    optional_arr,
    optional_obj,
    optional_str,
    output_text,
    parse_arguments,
    required_str,
    under,
    wrong,
)
from .._common.held import as_native
from .._common.reuse import BuildCache, FastFold, Layered
from .._common.settings import with_settings
from ._fast import fold
from ._held import REQUEST
from ._keys import (
    ARGUMENTS_KEY,
    AUDIO,
    BARE_KEY,
    CHAT,
    ECHO_KEY,
    IN_TOOL_KEY,
    ITEM_MARKERS,
    LEGACY_KEY,
    NO_ARGUMENTS_KEY,
    NO_CONTENT_KEY,
    NO_TYPE_KEY,
    PART_MARKERS,
    REASONING_FIELD_KEY,
    REFUSAL_KEY,
    TYPE_KEY,
)
from ._response import (
    AUDIO_RESPONSE_ONLY,
    KIND_ROLES,
    OCTETS,
    REASONING_FIELDS,
    ROLE_KINDS,
    audio_format,
    base64_of,
    content_part,
    content_parts,
    listed,
    message_parts,
    reasoning_field,
)
from ._settings import checked_body, fields_of
from ._tools import Choice, Tools, tool_fields

# -- items -> request ---------------------------------------------------------------------------


def native_fields(md: Mapping[str, JsonValue], skip: tuple[str, ...] = PART_MARKERS) -> JsonDict:
    """The native fields a part (or, with ``ITEM_MARKERS``, an item) carries, markers left out."""
    return metadata_to_fields(md, CHAT, skip)


def item_fields(item: Item) -> JsonDict:
    """The native message fields an item carries; ``annotations`` too when they came in a request."""
    echo = item.metadata.get(ECHO_KEY) is True
    return native_fields(item.metadata, tuple(m for m in ITEM_MARKERS if not echo or m != "annotations"))


def _no_content(item: Item) -> bool:
    """Whether the item is a request's message that had no ``content`` field."""
    return item.metadata.get(NO_CONTENT_KEY) is True


def _plain(part: Part) -> bool:
    """A text part that a message may send as its bare string ``content``."""
    return type(part) is TextPart and TYPE_KEY not in part.metadata and not native_fields(part.metadata)


def _content_value(entries: list[tuple[Part, JsonValue]]) -> JsonValue:
    first = entries[0][0] if len(entries) == 1 else None
    if isinstance(first, TextPart) and _plain(first):
        return first.text
    return [native for _, native in entries]


def own_custom(part: Part) -> bool:
    return isinstance(part, CustomPart) and part.kind.startswith(CHAT) and part.value is not None


def content_entry(part: Part) -> JsonValue:
    """The content entry for ``part``; ``None`` for what Chat has no entry for (dropped)."""
    md = part.metadata
    if isinstance(part, TextPart):
        if md.get(TYPE_KEY) == "refusal":
            return {**native_fields(md), "type": "refusal", "refusal": part.text}
        own = {"annotations": md[CHAT + "annotations"]} if TYPE_KEY in md and CHAT + "annotations" in md else {}
        return {**native_fields(md), **copy_json(own), "type": "text", "text": part.text}
    if isinstance(part, ReasoningPart) and md.get(TYPE_KEY) == "thinking":  # a Mistral thinking entry, as it came
        entry: JsonDict = {"type": "thinking", **native_fields(md)}
        entry.setdefault("thinking", [{"type": "text", "text": part.summary or ""}])
        return entry
    if isinstance(part, StructuredPart):
        return {"type": "text", "text": dumps(part.value)}
    if isinstance(part, MediaPart):
        return _media_entry(part)
    if isinstance(part, FilePart):
        return _file_entry(part)
    if isinstance(part, CustomPart) and own_custom(part) and part.kind != CHAT + "tool_call":
        return copy_json(part.value)  # type: ignore[no-any-return]
    return None


def _media_entry(part: MediaPart) -> JsonDict:
    md = part.metadata
    if part.modality is Modality.IMAGE:
        data = part.data
        if isinstance(data, Uri):
            url = data.value
        elif isinstance(data, Handle):
            raise NormalizeError("Chat Completions cannot send an image held as an artifact handle; resolve it first")
        else:
            url = data_url(part.mime_type, base64_of(part))
        return {**native_fields(md), "type": "image_url", "image_url": {**metadata_to_fields(md, CHAT + "image_url."), "url": url}}
    if part.modality is Modality.AUDIO:
        audio = metadata_to_fields(md, CHAT + "input_audio.")  # a format the MIME type does not say is among them
        audio["data"] = base64_of(part)
        fmt = audio_format(part.mime_type)
        if fmt is not None and "format" not in audio:
            audio["format"] = fmt
        return {**native_fields(md), "type": "input_audio", "input_audio": audio}
    raise NormalizeError(f"Chat Completions takes no {part.modality.value.lower()} input")


def _file_entry(part: FilePart) -> JsonDict:
    md, data = part.metadata, part.data
    file = metadata_to_fields(md, CHAT + "file.")
    if part.name is not None:
        file["filename"] = part.name
    if isinstance(data, Handle):
        file["file_id"] = data.value.value
    elif isinstance(data, Uri):
        if not data.value.startswith("data:"):
            raise NormalizeError("Chat Completions cannot send a file by URL; send its bytes")
        file["file_data"] = data.value
    else:  # inline: a text file's content, or base64 (inline_base64)
        text = inline_base64(part)
        assert text is not None
        mime = part.mime_type or ("text/plain" if holds_text(part) else OCTETS)
        file["file_data"] = text if md.get(BARE_KEY) is True else data_url(mime, text)
    return {**native_fields(md), "type": "file", "file": file}


def _arguments_text(part: ToolCallPart) -> JsonValue:
    """The ``arguments`` a call is sent with: the text it came with while that still says its input."""
    md = part.metadata
    raw = md.get(ARGUMENTS_KEY)
    if raw is None and ARGUMENTS_KEY in md and part.input == {}:
        return None  # a request's call sent with ``arguments: null``
    if isinstance(raw, str) and dumps(parse_arguments(raw)[0]) == dumps(part.input):
        return raw
    if isinstance(raw, (dict, list)) and raw == part.input:
        return part.input
    if part.input is None and isinstance(md.get(INPUT_JSON_KEY), str):
        return md[INPUT_JSON_KEY]
    return dumps(part.input)


def _tool_call(part: ToolCallPart) -> JsonDict:
    md = part.metadata
    kind = "custom" if md.get(TYPE_KEY) == "custom" else "function"
    if kind == "custom":
        text = part.input if isinstance(part.input, str) else dumps(part.input)
        body: JsonDict = {**metadata_to_fields(md, CHAT + "custom."), "name": part.name, "input": text}
    else:
        body = {**metadata_to_fields(md, CHAT + "function."), "name": part.name}
        if not (md.get(NO_ARGUMENTS_KEY) is True and part.input == {}):  # sent without arguments, unedited since
            body["arguments"] = _arguments_text(part)
    typed = {} if md.get(NO_TYPE_KEY) is True else {"type": kind}
    return {**native_fields(md), "id": part.id.value, **typed, kind: body}


def assistant_message(parts: Sequence[tuple[int, Part]], item: Item) -> JsonDict | None:
    msg: JsonDict = {"role": "assistant"}
    late: JsonDict = {}  # audio and function_call, which clients send after the content
    entries: list[tuple[Part, JsonValue]] = []
    refusals: list[str] = []
    calls: list[JsonDict] = []
    reasoning: dict[str, str] = {}
    for j, part in parts:
        md = part.metadata
        try:
            if isinstance(part, ReasoningPart) and md.get(TYPE_KEY) == "thinking":
                entries.append((part, content_entry(part)))
            elif isinstance(part, ReasoningPart):
                field = md.get(REASONING_FIELD_KEY)
                if (PROVIDER_KEY not in md and isinstance(field, str) and field in REASONING_FIELDS
                        and part.summary is not None):
                    reasoning[field] = reasoning.get(field, "") + part.summary
            elif isinstance(part, TextPart) and md.get(REFUSAL_KEY) is True and TYPE_KEY not in md:
                refusals.append(part.text)
            elif isinstance(part, MediaPart) and part.modality is Modality.AUDIO and AUDIO + "id" in md:
                late["audio"] = _audio(part, item)
            elif isinstance(part, ToolCallPart) and md.get(LEGACY_KEY) is True:
                fc = metadata_to_fields(md, CHAT + "function_call.")
                late["function_call"] = {**fc, "name": part.name, "arguments": _arguments_text(part)}
            elif isinstance(part, ToolCallPart):
                calls.append(_tool_call(part))
            elif isinstance(part, CustomPart) and part.kind == CHAT + "tool_call" and isinstance(part.value, dict):
                calls.append(copy_json(part.value))
            elif isinstance(part, (TextPart, StructuredPart)) or own_custom(part):
                entry = content_entry(part)
                if entry is not None:
                    entries.append((part, entry))
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{j}]") from None
    if entries:
        msg["content"] = _content_value(entries)
    elif CHAT + "content" in item.metadata:
        msg["content"] = copy_json(item.metadata[CHAT + "content"])
    elif (calls or "function_call" in late) and not _no_content(item):
        msg["content"] = None
    if refusals:
        msg["refusal"] = "".join(refusals)
    msg.update(late)
    if calls:
        msg["tool_calls"] = calls
    msg.update(reasoning)
    msg.update((k, v) for k, v in item_fields(item).items() if k not in msg)
    return msg if len(msg) > 1 or _no_content(item) else None


def _audio(part: MediaPart, item: Item) -> JsonDict:
    """An answer's audio, sent back: its id (the server keeps the audio), or all of it as a request sent it."""
    if item.metadata.get(ECHO_KEY) is not True:
        return metadata_to_fields(part.metadata, AUDIO, AUDIO_RESPONSE_ONLY)
    audio = metadata_to_fields(part.metadata, AUDIO)
    text = inline_base64(part)
    if text is not None:
        audio["data"] = text
    return audio


def plain_message(role: str, parts: Sequence[tuple[int, Part]], item: Item) -> JsonDict | None:
    entries: list[tuple[Part, JsonValue]] = []
    for j, part in parts:
        try:
            entry = content_entry(part)
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{j}]") from None
        if entry is not None:
            entries.append((part, entry))
    if entries:
        content = _content_value(entries)
    elif CHAT + "content" in item.metadata:
        content = copy_json(item.metadata[CHAT + "content"])
    elif _no_content(item):
        return {"role": role, **item_fields(item)}
    else:
        return None
    return {"role": role, "content": content, **item_fields(item)}


def tool_message(
    j: int, part: ToolResultPart, item: Item, calls: Mapping[str, ToolCallPart] | Layered[ToolCallPart], media: list[JsonValue]
) -> JsonDict:
    output = part.output
    content: JsonValue = output_text(output)
    if content is None:
        inner: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else ()
        inner = output.files if isinstance(output, FilesOutput) else inner
        texts: list[tuple[Part, JsonValue]] = []
        for part_in in inner:
            try:
                entry = content_entry(part_in)
            except NormalizeError as exc:
                raise under(exc, "parts", f"[{j}]") from None
            if entry is None:
                continue
            if isinstance(part_in, (TextPart, StructuredPart)) or own_custom(part_in) or IN_TOOL_KEY in part_in.metadata:
                texts.append((part_in, entry))
            else:
                media.append(entry)
        content = _content_value(texts) if texts else ""
    md, call = part.metadata, calls.get(part.call_id.value)
    if content == "" and CHAT + "content" in item.metadata:
        content = copy_json(item.metadata[CHAT + "content"])
    if md.get(LEGACY_KEY) is True or (call is not None and call.metadata.get(LEGACY_KEY) is True):
        name = md.get(TOOL_NAME_KEY)
        if not isinstance(name, str):
            name = part.call_id.value if call is None else call.name
        msg: JsonDict = {"role": "function", "name": name, "content": content}
    else:
        msg = {"role": "tool", "tool_call_id": part.call_id.value, "content": content}
    if content == "" and _no_content(item):
        del msg["content"]
    msg.update((k, v) for k, v in item_fields(item).items() if k not in msg)
    return msg


class Build(FastFold):
    """The fold that writes the ``messages`` (:class:`~.._common.reuse.Build`): each message is final when made."""

    __slots__ = ("messages", "media", "calls")

    #: Items of the common shapes take the fast path (:class:`.FastFold`, the tests turn it off to compare).
    fold_fast = staticmethod(fold)

    def __init__(self) -> None:
        self.messages: list[JsonDict] = []
        self.media: list[JsonValue] = []  # entries of tool results, sent as one user message before the next message
        self.calls: Layered[ToolCallPart] = Layered()

    def copy(self) -> Build:
        build = type(self)()
        build.messages, build.media, build.calls = list(self.messages), list(self.media), self.calls.copy()
        return build

    def _send(self, msg: JsonDict | None) -> None:
        if msg is not None:
            if self.media:
                self.messages.append({"role": "user", "content": self.media})
                self.media = []
            self.messages.append(msg)

    #: The content entry of a part (:func:`content_entry`), for the fast path's parts of other kinds.
    entry = staticmethod(content_entry)

    def add_general(self, n: int, item: Item) -> None:
        """:meth:`add` for any item (the fast path's way out, :func:`._fast.fold`)."""
        try:
            parts = list(enumerate(item.parts))
            rest = [(j, p) for j, p in parts if not isinstance(p, ToolResultPart)]
            self.calls.update((p.id.value, p) for _, p in rest if isinstance(p, ToolCallPart))
            if item.kind is ItemKind.ASSISTANT:
                self._send(assistant_message(rest, item))
            results = [tool_message(j, p, item, self.calls, self.media) for j, p in parts if isinstance(p, ToolResultPart)]
            self.messages.extend(results)
            if item.kind is not ItemKind.ASSISTANT and (rest or not results):
                role = item.metadata.get(CHAT + "role")
                self._send(plain_message(role if isinstance(role, str) else KIND_ROLES[item.kind], rest, item))
        except NormalizeError as exc:
            raise under(exc, "items", f"[{n}]") from None

    def take_final(self) -> list[JsonDict]:
        out, self.messages = self.messages, []
        return out

    def rest(self) -> list[JsonDict]:
        return [{"role": "user", "content": self.media}] if self.media else []

    def fields(self, messages: object, count: int) -> JsonDict:
        return {"messages": messages}


def messages_of(items: Sequence[Item]) -> list[JsonDict]:
    """Checked items -> the ``messages`` of a Chat Completions request (media of tool results follow as one user message)."""
    build = Build()  # reuse.fresh's fold, without its calls through the protocol
    build.add_all(items)
    messages = build.take_final()
    messages += build.rest()
    return messages


# -- request -> items ---------------------------------------------------------------------------


def items_from_request(body: object) -> list[Item]:
    """The ``messages`` of a request body -> one item per message.

    Raises :class:`NormalizeError` naming the field for what it cannot take.
    """
    messages = optional_arr(as_native(body, REQUEST), "messages") or []
    items = []
    for n, msg in enumerate(messages):
        try:
            items.append(_request_item(msg))
        except NormalizeError as exc:
            raise under(exc, "messages", f"[{n}]") from None
    return name_results(items)


def _request_item(msg: Any) -> Item:
    role = required_str(json_object(msg), "role")
    md: dict[str, JsonValue] = {}
    kind = ROLE_KINDS.get(role)
    if kind is None:
        kind, md[CHAT + "role"] = ItemKind.USER, role
    if "annotations" in msg:
        md[ECHO_KEY] = True  # a request's annotations go back, unlike a response's
    if kind is ItemKind.TOOL:
        return _result_item(msg, role == "function", md)
    content = msg.get("content")
    consumed: tuple[str, ...] = ("role", "content")
    if kind is ItemKind.ASSISTANT:
        field = reasoning_field(msg)
        parts = [p for _, p in message_parts(msg, field, request=True)]
        consumed += _made_parts(msg) + ((field,) if field else ())
        calls = bool(msg.get("tool_calls")) or msg.get("function_call") is not None
        if any(k in AUDIO_RESPONSE_ONLY for k in optional_obj(msg, "audio") or ()):
            md[ECHO_KEY] = True
    else:
        parts, calls = content_parts(content), False
    if "content" not in msg:
        md[NO_CONTENT_KEY] = True
    elif not isinstance(content, str) and not content and (content is not None or not calls):
        md[CHAT + "content"] = copy_json(content)  # null (without calls) or []: say so
    md.update(fields_to_metadata(msg, consumed, CHAT))
    return Item(kind, parts, metadata=md)


def _made_parts(msg: JsonDict) -> tuple[str, ...]:
    """The fields of an assistant message that made parts; others (``refusal: null``, ``annotations``...) are carried."""
    kinds = {"refusal": str, "audio": dict, "function_call": dict, "tool_calls": list}
    return tuple(k for k, t in kinds.items() if isinstance(msg.get(k), t) and msg[k] != [])


def _result_item(msg: JsonDict, legacy: bool, md: dict[str, JsonValue]) -> Item:
    key = "name" if legacy else "tool_call_id"
    call_id = required_str(msg, key)
    part_md: dict[str, JsonValue] = {LEGACY_KEY: True, INVENTED_ID_KEY: True} if legacy else {}
    name = optional_str(msg, "name")
    if name is not None:
        part_md[TOOL_NAME_KEY] = name
    content = msg.get("content")
    output: ToolOutput
    if isinstance(content, str):
        output = TextOutput(content)
    elif isinstance(content, list):  # media and files (a compatible server's extension) go back where they were
        parts = [content_part(p) for p in content]
        marked = [p.with_metadata({**p.metadata, IN_TOOL_KEY: True}) if isinstance(p, (MediaPart, FilePart)) else p
                  for p in parts]
        output = PartsOutput(tuple(listed(marked)))
        if not content:
            md[CHAT + "content"] = []
    elif content is None:
        output = TextOutput("")
        if "content" in msg:
            md[CHAT + "content"] = None
        else:
            md[NO_CONTENT_KEY] = True
    else:
        raise wrong("a string or an array", content, "content")
    md.update(fields_to_metadata(msg, ("role", "content", key), CHAT))
    return Item(ItemKind.TOOL, (ToolResultPart(ToolCallId(call_id), output, metadata=part_md),), metadata=md)


# -- items -> request ---------------------------------------------------------------------------


def request_from_items(items: Iterable[Item], *, tools: Tools = (), tool_choice: Choice = None,
                       settings: ModelSettings | None = None) -> JsonDict:
    """Items -> ``{"messages": [...]}``, the transcript of a Chat Completions request body, and the tool fields when given.

    Raises :class:`NormalizeError` naming the part for content Chat cannot
    send (video, an image held as an artifact handle, a file by URL).  ``settings`` (a
    :class:`~agentkit_core.ModelSettings`) add their fields (see :mod:`._settings`); one the API
    has no field for raises ``ValueError``.
    """
    fields: JsonDict = {"messages": messages_of(checked_list(items, Item, "items"))}
    if tool_choice is not None or type(tools) is not tuple or tools:  # else neither given: no tool fields, nothing to check
        fields.update(tool_fields(tools, tool_choice))
    if settings is None:
        return fields
    written = fields_of(settings)
    return checked_body(with_settings(fields, written), written)


#: The builds ``http_request`` keeps (:mod:`.._common.reuse`).
KEPT = BuildCache(Build)


def kept_request(items: Sequence[Item], *, tools: Tools = (), tool_choice: Choice = None) -> JsonDict:
    """:func:`request_from_items` for ``http_request``: the same bytes once encoded, the messages joined from kept pieces."""
    return {**KEPT.fields(items), **tool_fields(tools, tool_choice)}
