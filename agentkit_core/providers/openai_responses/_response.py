"""The Responses item decoder: native input and output items -> parts, usage, finish reasons.

Private to :mod:`.openai_responses`, whose mapping table (``docs/openai_responses.md``)
this module implements (:mod:`._request` writes it back);
:mod:`._stream` decodes streams with it.
Like every projection it uses only the public names of :mod:`agentkit_core`.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ... import (
    PROVIDER_KEY,
    ArtifactId,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
    Handle,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    Modality,
    Part,
    PartsOutput,
    ReasoningPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
    Usage,
)
from .._common import (
    INPUT_AUDIO_TYPES,
    JsonDict,
    b64decode,
    dumps,
    fields_to_metadata,
    make_item,
    openai_usage,
    optional_arr,
    parse_arguments,
    parse_data_url,
    str_or_none,
    wrong,
)
from .._common.held import as_native
from ._held import RESPONSE, USAGE, unaliased
from ._keys import ENTRY_OF, ENTRY_RAW, NO_SUMMARY, NS, PART_NS, PROVIDER, UNKNOWN

_ROLE_KINDS = {
    "user": ItemKind.USER,
    "system": ItemKind.SYSTEM,
    "developer": ItemKind.DEVELOPER,
    "assistant": ItemKind.ASSISTANT,
}
KIND_ROLES = {kind: role for role, kind in _ROLE_KINDS.items()}
#: Output items the client must answer (run the tool, or approve) before the model goes on.
_CLIENT_CALLS = frozenset(
    ("function_call", "custom_tool_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call", "mcp_approval_request")
)
#: Content entry type -> the field holding its text.
TEXT_FIELDS = {"output_text": "text", "input_text": "text", "refusal": "refusal"}
#: Raw reason (a status, an incomplete reason, ``"error"``) -> finish reason; others are ``other(raw)``.
_FINISH = {
    "completed": FinishReason.COMPLETED,
    "max_output_tokens": FinishReason.MAX_TOKENS,
    "content_filter": FinishReason.BLOCKED,
    "failed": FinishReason.ERROR,
    "error": FinishReason.ERROR,
    "cancelled": FinishReason.CANCELLED,
}


def merged(*maps: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for m in maps:
        out.update(m)
    return out


def call_id_of(v: object) -> ToolCallId | None:
    """``v`` as a call id, ``None`` if it cannot be one (the native block then stays a custom part)."""
    return ToolCallId(v) if isinstance(v, str) else None


# -- native -> parts -----------------------------------------------------------------------


def _entry_part(entry: JsonValue, md: Mapping[str, JsonValue]) -> Part:
    """One content entry (of a message or a tool output) -> one part; ``md`` holds the item's fields."""
    etype = entry.get("type") if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or not isinstance(etype, str):
        return CustomPart(UNKNOWN, value=entry, metadata=merged(md, {PART_NS + "type": etype}))
    field = TEXT_FIELDS.get(etype)
    text = entry.get(field) if field else None
    if field and isinstance(text, str):
        return TextPart(text, metadata=merged(md, fields_to_metadata(entry, (field,), PART_NS)))
    if etype == "input_image":
        url, file_id = entry.get("image_url"), entry.get("file_id")
        if isinstance(url, str):
            found = parse_data_url(url)
            image: DataRef = Uri(url) if found is None else InlineText(found[1])
            mime = "image/*" if found is None else found[0]
            return MediaPart(Modality.IMAGE, mime, image, metadata=merged(md, fields_to_metadata(entry, ("image_url",), PART_NS)))
        if isinstance(file_id, str):
            handle = Handle(ArtifactId(file_id))
            return MediaPart(Modality.IMAGE, "image/*", handle, metadata=merged(md, fields_to_metadata(entry, ("file_id",), PART_NS)))
    if etype == "input_file":
        return _file_part(entry, md)
    audio = entry.get("input_audio")
    if etype == "input_audio" and isinstance(audio, dict) and sorted(audio) == ["data", "format"]:
        data, audio_type = audio["data"], INPUT_AUDIO_TYPES.get(audio["format"]) if isinstance(audio["format"], str) else None
        if isinstance(data, str) and audio_type is not None:
            return MediaPart(Modality.AUDIO, audio_type, InlineText(data), metadata=merged(md, fields_to_metadata(entry, ("input_audio",), PART_NS)))
    return CustomPart(NS + etype, value=entry, metadata=merged(md, {PART_NS + "type": etype}))


def _file_part(entry: JsonDict, md: Mapping[str, JsonValue]) -> Part:
    name = str_or_none(entry.get("filename"))
    used = ["filename"] if name is not None else []
    mime: str | None = None
    data: DataRef
    file_data, url, file_id = entry.get("file_data"), entry.get("file_url"), entry.get("file_id")
    if isinstance(file_data, str):
        found = parse_data_url(file_data)
        mime, data = (None, InlineText(file_data)) if found is None else (found[0], InlineText(found[1]))
        if found is not None and found[0].startswith("text/"):  # a text file's InlineText is its content
            content = _utf8(b64decode(found[1]))
            if content is None:
                return CustomPart("openai.input_file", value=entry, metadata=merged(md, {PART_NS + "type": "input_file"}))
            data = InlineText(content)
        used.append("file_data")
    elif isinstance(url, str):
        data = Uri(url)
        used.append("file_url")
    elif isinstance(file_id, str):
        data = Handle(ArtifactId(file_id))
        used.append("file_id")
    else:
        return CustomPart("openai.input_file", value=entry, metadata=merged(md, {PART_NS + "type": "input_file"}))
    return FilePart(data, name=name, mime_type=mime, metadata=merged(md, fields_to_metadata(entry, used, PART_NS)))


def _utf8(raw: bytes | None) -> str | None:
    """``raw`` as text if it is UTF-8."""
    try:
        return None if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _message_parts(item: JsonDict, kind: ItemKind) -> list[tuple[str, Part]]:
    role = item.get("role")
    used = ["content"] + (["role"] if role == KIND_ROLES.get(kind) else [])
    md = fields_to_metadata(item, used, NS)
    content = item.get("content")
    if isinstance(content, str):
        return [("c0", TextPart(content, metadata=md))]
    if isinstance(content, list) and content:
        return [(f"c{i}", _entry_part(e, md)) for i, e in enumerate(content)]
    return [("item", CustomPart("openai.message", value=item))]


def _reasoning_parts(item: JsonDict) -> list[tuple[str, Part]]:
    content, summary, encrypted = item.get("content"), item.get("summary"), item.get("encrypted_content")
    used = ["type"]
    entries: list[tuple[str, int, JsonValue]] = []
    if isinstance(content, list) and content:
        used.append("content")
        entries += [("content", i, e) for i, e in enumerate(content)]
    if isinstance(summary, list):
        used.append("summary")
        entries += [("summary", i, e) for i, e in enumerate(summary)]
    data = InlineText(encrypted) if isinstance(encrypted, str) else None
    if data is not None:
        used.append("encrypted_content")
    md = fields_to_metadata(item, used, NS)
    if "summary" not in item:
        md[NO_SUMMARY] = True
    if data is not None or isinstance(item.get("id"), str):
        md[PROVIDER_KEY] = PROVIDER
    if not entries:
        return [("item", ReasoningPart(None, data=data, metadata=_from_here(md)))]
    parts: list[tuple[str, Part]] = []
    for of, i, entry in entries:
        text = entry.get("text") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and isinstance(text, str):
            emd = fields_to_metadata(entry, ("text",), PART_NS)
            if (entry.get("type") == "reasoning_text") != (of == "content"):
                emd[ENTRY_OF] = of
            part = ReasoningPart(text, data=data, metadata=_from_here(merged(md, emd)))
        else:
            part = ReasoningPart(None, data=data, metadata=merged(md, {ENTRY_RAW: entry, ENTRY_OF: of}))
        parts.append((f"{of[0]}{i}", part))
        data = None
    return parts


def _from_here(md: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A reasoning part's metadata, ``openai.type`` added when nothing else says the part is this API's.

    The encoder sends back only reasoning that came from this API (an
    ``agentkit.provider`` mark or Responses metadata): a bare
    ``{"type": "reasoning", "summary": []}`` would otherwise be dropped.
    """
    if not md:
        md[NS + "type"] = "reasoning"
    return md


def _call_parts(item: JsonDict, itype: str) -> list[tuple[str, Part]] | None:
    call_id, name = call_id_of(item.get("call_id")), str_or_none(item.get("name"))
    if call_id is None or name is None:
        return None
    if itype == "function_call":
        raw = item.get("arguments")
        if not isinstance(raw, str):
            return None
        value, md = parse_arguments(raw)
        if not md and dumps(value) != raw:
            md = {NS + "arguments": raw}
        md = merged(fields_to_metadata(item, ("type", "call_id", "name", "arguments"), NS), md)
        return [("item", ToolCallPart(call_id, name, value, metadata=md))]
    text = item.get("input")
    if not isinstance(text, str):
        return None
    return [("item", ToolCallPart(call_id, name, text, metadata=fields_to_metadata(item, ("call_id", "name", "input"), NS)))]


def _result_parts(item: JsonDict, itype: str) -> list[tuple[str, Part]] | None:
    call_id, output = call_id_of(item.get("call_id")), item.get("output")
    result: ToolOutput
    if call_id is None:
        return None
    if isinstance(output, str):
        result = TextOutput(output)
    elif isinstance(output, list):
        result = PartsOutput(_entry_part(e, {}) for e in output)
    else:
        return None
    used = ("call_id", "output", "type") if itype == "function_call_output" else ("call_id", "output")
    return [("item", ToolResultPart(call_id, result, metadata=fields_to_metadata(item, used, NS)))]


def keyed_parts(item: JsonValue, kind: ItemKind) -> list[tuple[str, Part]]:
    """One native item -> its parts, each with the key of the entry it came from (for the stream)."""
    if not isinstance(item, dict):
        return [("item", CustomPart(UNKNOWN, value=item))]
    itype = item.get("type")
    found: list[tuple[str, Part]] | None = None
    if itype == "message" or (itype is None and "role" in item):
        found = _message_parts(item, kind)
    elif itype == "reasoning":
        found = _reasoning_parts(item)
    elif itype in ("function_call", "custom_tool_call"):
        found = _call_parts(item, itype)
    elif itype in ("function_call_output", "custom_tool_call_output"):
        found = _result_parts(item, itype)
    if found is not None:
        return found
    md = {PROVIDER_KEY: PROVIDER} if isinstance(item.get("encrypted_content"), str) else {}
    return [("item", CustomPart(NS + itype if isinstance(itype, str) else UNKNOWN, value=item, metadata=md))]


def parts_of(item: JsonValue, kind: ItemKind) -> list[Part]:
    return [part for _, part in keyed_parts(item, kind)]


def pin_result_types(parts: list[Part], custom_calls: set[str]) -> list[Part]:
    """``parts`` of a request, a ``function_call_output`` that answers a ``custom_tool_call`` marked as one.

    The encoder writes a result without ``openai.type`` that answers a call in
    ``custom_calls`` as a ``custom_tool_call_output``, as the API wants; the
    mark keeps a request that sent the other type as it came.  The custom
    calls among ``parts`` join ``custom_calls``.
    """
    out: list[Part] = []
    for part in parts:
        if isinstance(part, ToolCallPart) and part.metadata.get(NS + "type") == "custom_tool_call":
            custom_calls.add(part.id.value)
        elif isinstance(part, ToolResultPart) and part.call_id.value in custom_calls and NS + "type" not in part.metadata:
            part = part.with_metadata(part.metadata.merged({NS + "type": "function_call_output"}))
        out.append(part)
    return out


# -- response -> item ----------------------------------------------------------------------


def usage_from_native(usage: object) -> Usage:
    """A native ``usage`` object as :class:`Usage` (the convention is in the docstring of :mod:`.openai_responses`)."""
    return openai_usage(as_native(usage, USAGE), NS + "usage", "input_tokens", "output_tokens")


def usage_of(native: object) -> Usage | None:
    """The neutral usage of a checked body's ``usage`` field; ``None`` when it holds no object."""
    return openai_usage(native, NS + "usage", "input_tokens", "output_tokens") if isinstance(native, dict) else None


def client_call(itype: str, native: JsonDict) -> bool:
    """Whether output item ``native`` of type ``itype`` is a call the client runs.

    A ``tool_search_call`` is when its ``execution`` is ``client``; a
    ``shell_call`` is not when its ``environment`` is a container (the hosted
    shell, whose outputs the server may leave out of the response).
    """
    if itype == "tool_search_call":
        return native.get("execution") == "client"
    if itype == "shell_call":
        environment = native.get("environment")
        kind = environment.get("type") if isinstance(environment, dict) else None
        return not (isinstance(kind, str) and kind.startswith("container"))
    return itype in _CLIENT_CALLS


def _awaits_client(output: Sequence[JsonDict]) -> bool:
    types = [(str_or_none(o.get("type")) or "", o) for o in output]
    calls = {str_or_none(o.get("call_id") or o.get("id")) for t, o in types if client_call(t, o)}
    answered = {str_or_none(o.get("call_id")) for t, o in types if t.endswith("_output")}
    return bool(calls - answered)


def _refused(output: Sequence[JsonDict]) -> bool:
    refusal = False
    for native in output:
        itype = native.get("type")
        if itype == "reasoning":
            continue
        content = native.get("content")
        if itype != "message" or not isinstance(content, list):
            return False
        for entry in content:
            if not isinstance(entry, dict) or entry.get("type") != "refusal":
                return False
            refusal = True
    return refusal


def finish_reason(raw: str | None) -> FinishReason | None:
    """What a raw reason alone says: a ``status``, an ``incomplete_details.reason``, or ``"error"``.

    ``None`` stays ``None``.  A ``completed`` turn ends ``TOOL_CALL`` or
    ``BLOCKED`` when its output says so: the item knows, the raw reason does not.
    """
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise wrong("a string", raw, "status")
    return _FINISH.get(raw) or FinishReason.other(raw)


def finish_of(
    status: object, details: object, output: Sequence[JsonDict], error: object = None
) -> tuple[FinishReason | None, str | None]:
    """The neutral finish reason and the raw one (see the module table); ``error`` is the body's ``error``."""
    if not isinstance(status, str):
        return (FinishReason.ERROR, "error") if isinstance(error, dict) else (None, None)
    raw = status
    if status == "incomplete":
        raw = (str_or_none(details.get("reason")) if isinstance(details, dict) else None) or status
    reason = finish_reason(raw)
    if status == "completed" and _awaits_client(output):
        reason = FinishReason.TOOL_CALL
    elif status == "completed" and _refused(output):
        reason = FinishReason.BLOCKED
    return reason, raw


def response_item(
    response: JsonDict,
    parts: Sequence[Part],
    usage: Usage | None,
    finish: tuple[FinishReason | None, str | None],
    extra: Mapping[str, JsonValue] = {},
) -> Item:
    rid = response.get("id")
    md = fields_to_metadata(response, ("id", "output", "usage") if isinstance(rid, str) else ("output", "usage"), NS)
    md.update(extra)
    return make_item(parts, md, message_id=rid, usage=usage, finish=finish)


def output_of(response: JsonDict) -> list[JsonValue]:
    return optional_arr(response, "output") or []


# -- requests ----------------------------------------------------------------------------


def input_kind(native: object) -> ItemKind:
    if not isinstance(native, dict):
        return ItemKind.ASSISTANT
    itype, role = native.get("type"), native.get("role")
    if itype == "message" or (itype is None and "role" in native):
        return _ROLE_KINDS.get(role, ItemKind.USER) if isinstance(role, str) else ItemKind.USER
    if itype == "mcp_approval_response":
        return ItemKind.USER
    if isinstance(itype, str) and itype.endswith("_output"):
        return ItemKind.TOOL
    return ItemKind.ASSISTANT


def items_from_response(body: object) -> list[Item]:
    """A non-streaming ``Response`` object -> ``[ASSISTANT item]`` (see the module table).

    Raises :class:`NormalizeError` if ``body`` is not a JSON object of JSON data
    or its ``output`` is not a list.
    """
    response = unaliased(as_native(body, RESPONSE))
    output = output_of(response)
    parts = [part for native in output for part in parts_of(native, ItemKind.ASSISTANT)]
    natives = [o for o in output if isinstance(o, dict)]
    finish = finish_of(response.get("status"), response.get("incomplete_details"), natives, response.get("error"))
    return [response_item(response, parts, usage_of(response.get("usage")), finish)]
