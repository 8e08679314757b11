"""Private to :mod:`.openai_chat`: native messages, content entries and tool calls -> parts, and a choice's item.

Responses, streams and requests all decode through these rules (the mapping
table is the docstring of :mod:`.openai_chat`); :mod:`._request` writes
them back.  Like every projection it uses only the public names of the package.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ... import (
    EMPTY_METADATA,
    INVENTED_ID_KEY,
    ArtifactId,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    Modality,
    NormalizeError,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallId,
    ToolCallPart,
    Uri,
    Usage,
)
from .._common import (
    INPUT_AUDIO_TYPES,
    UNREAD,
    JsonDict,
    b64decode,
    dumps,
    fields_to_metadata,
    inline_base64,
    invent_id,
    json_object,
    loads_for_part,
    make_item,
    openai_usage,
    optional_arr,
    optional_obj,
    optional_str,
    parse_arguments,
    parse_data_url,
    under,
    wrong,
)
from .._common.held import as_native
from ._held import RESPONSE, USAGE
from ._keys import (
    ARGUMENTS_KEY,
    AUDIO,
    BARE_KEY,
    CHAT,
    LEGACY_KEY,
    NO_ARGUMENTS_KEY,
    NO_TYPE_KEY,
    NS,
    REASONING_FIELD_KEY,
    REFUSAL_KEY,
    TYPE_KEY,
)

#: The fields compatible servers stream readable reasoning in, preferred first.
REASONING_FIELDS = ("reasoning_content", "reasoning")
MESSAGE_FIELDS = ("role", "content", "refusal", "audio", "tool_calls", "function_call", "annotations")
#: Delta fields that make parts.
PART_FIELDS = frozenset(("content", "refusal", "audio", "tool_calls", "function_call") + REASONING_FIELDS)
AUDIO_RESPONSE_ONLY = ("data", "expires_at", "transcript")

#: What :func:`choice_item` and :func:`_tool_call_part` leave out of the fields they carry, made once.
_TOP_CONSUMED = frozenset(("id", "object", "choices", "usage"))
_CHOICE_CONSUMED = frozenset(("message", "delta", "finish_reason"))
#: By the message's reasoning field (``None``: none).
_MESSAGE_CONSUMED = {f: frozenset(MESSAGE_FIELDS + ((f,) if f else ())) for f in (None,) + REASONING_FIELDS}
_CALL_CONSUMED = {(t, request): frozenset(("id", "type", t) if request else ("id", "type", "index", t))
                  for t in ("function", "custom") for request in (False, True)}
_FUNCTION_CONSUMED = frozenset(("name", "arguments"))

_FINISH = {
    "stop": FinishReason.COMPLETED,
    "length": FinishReason.MAX_TOKENS,
    "tool_calls": FinishReason.TOOL_CALL,
    "function_call": FinishReason.TOOL_CALL,
    "content_filter": FinishReason.BLOCKED,
    "error": FinishReason.ERROR,
    "eos": FinishReason.COMPLETED,  # Together's legacy reason: the end of the sequence
}
ROLE_KINDS = {
    "system": ItemKind.SYSTEM,
    "developer": ItemKind.DEVELOPER,
    "user": ItemKind.USER,
    "assistant": ItemKind.ASSISTANT,
    "tool": ItemKind.TOOL,
    "function": ItemKind.TOOL,
}
KIND_ROLES = {
    ItemKind.SYSTEM: "system",
    ItemKind.DEVELOPER: "developer",
    ItemKind.USER: "user",
    ItemKind.ASSISTANT: "assistant",
    ItemKind.TOOL: "user",  # a TOOL item's parts other than results
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
}
_IMAGE_EXT = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
              ".webp": "image/webp"}
_AUDIO_MAGIC = ((b"RIFF", "audio/wav"), (b"ID3", "audio/mpeg"), (b"OggS", "audio/ogg"), (b"fLaC", "audio/flac"))
OCTETS = "application/octet-stream"


# -- reading native fields -----------------------------------------------------------------


# -- data ------------------------------------------------------------------------------------


def _data_url(url: str) -> tuple[str, bytes | None] | None:
    """A ``data:<mime>;base64,`` URL -> (mime, its bytes if canonical base64); another URL -> None."""
    found = parse_data_url(url)
    return None if found is None else (found[0], b64decode(found[1]))


def _image_mime(url: str) -> str:
    path = url.split("?", 1)[0].lower()
    return next((mime for ext, mime in _IMAGE_EXT.items() if path.endswith(ext)), "image/*")


def sniff_audio(raw: bytes) -> str | None:
    for magic, mime in _AUDIO_MAGIC:
        if raw.startswith(magic):
            return mime
    return "audio/mpeg" if len(raw) > 1 and raw[0] == 0xFF and raw[1] & 0xE0 == 0xE0 else None


def audio_format(mime: str) -> str | None:
    found = next((fmt for fmt, m in INPUT_AUDIO_TYPES.items() if m == mime), None)
    return found or (mime[6:] if mime.startswith("audio/") and len(mime) > 6 else None)


def base64_of(part: MediaPart) -> str:
    text = inline_base64(part)
    if text is None:
        raise NormalizeError(f"Chat Completions needs {part.modality.value.lower()} inline, not as a {type(part.data).__name__}")
    return text


# -- usage and finish reasons ------------------------------------------------------------------


def usage_from_native(usage: object) -> Usage:
    """A native ``usage`` object as :class:`Usage` (the convention is in the docstring of :mod:`.openai_chat`)."""
    return checked_usage(as_native(usage, USAGE))


def checked_usage(native: JsonDict) -> Usage:
    """:func:`usage_from_native` of a usage object checked already (part of a checked body)."""
    return openai_usage(native, NS + "usage", "prompt_tokens", "completion_tokens")


def finish_reason(raw: str | None) -> FinishReason | None:
    """What a raw ``finish_reason`` (or an error's ``code``) says alone; ``None`` stays ``None``.

    A choice whose message is a refusal ends ``BLOCKED``, and one that calls
    a tool ``TOOL_CALL``, although its ``finish_reason`` is ``stop``: the
    item knows, the raw reason does not.
    """
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise wrong("a string", raw, "finish_reason")
    return _FINISH.get(raw) or FinishReason.other(raw)


def turn_finish(raw: object, refused: bool, called: bool, error: object) -> tuple[FinishReason | None, str | None]:
    """A choice's finish reason and the raw one: its ``finish_reason``, else the ``error`` that ended the turn.

    ``stop`` says ``BLOCKED`` for a refusal, and ``TOOL_CALL`` for a message
    that ``called`` a tool (OpenAI says ``stop`` when ``tool_choice`` names
    the function, and so do many compatible servers).
    """
    if isinstance(raw, str):
        if raw == "stop" and (refused or called):
            return (FinishReason.BLOCKED if refused else FinishReason.TOOL_CALL), raw
        return finish_reason(raw), raw
    if error is None:
        return None, None
    code = error.get("code") if isinstance(error, dict) else None
    raw = code if type(code) is str else "error"
    return finish_reason(raw) if raw == "content_filter" else FinishReason.ERROR, raw


def is_refusal(part: Part) -> bool:
    md = part.metadata
    return isinstance(part, TextPart) and (md.get(REFUSAL_KEY) is True or md.get(TYPE_KEY) == "refusal")


# -- native -> parts ---------------------------------------------------------------------------


def verbatim(p: Any) -> CustomPart:
    """A content entry kept as it came: ``CustomPart("openai.chat.<type>")``."""
    ptype = p.get("type") if isinstance(p, dict) else None
    return CustomPart(CHAT + (ptype if isinstance(ptype, str) else "content"), value=p)  # the constructor copies


def content_part(p: Any) -> Part:
    """One entry of a content list -> a part; what does not fit is kept verbatim (:func:`verbatim`)."""
    ptype = p.get("type") if isinstance(p, dict) else None
    if not isinstance(ptype, str):
        return verbatim(p)
    inner = p.get(ptype)
    part: Part | None = None
    if ptype == "text" and type(p.get("text")) is str:
        part = TextPart(p["text"], metadata=fields_to_metadata(p, ("type", "text"), CHAT))
        if "annotations" in p:  # the entry's own, not a response's: the type says so, and they go back
            part = part.with_metadata({**part.metadata, TYPE_KEY: "text"})
    elif ptype == "thinking" and isinstance(inner, list) and all(type(t) is dict and type(t.get("text")) is str for t in inner):
        part = _thinking(p, inner)
    elif ptype == "refusal" and type(p.get("refusal")) is str:
        part = TextPart(p["refusal"], metadata=fields_to_metadata(p, ("refusal",), CHAT))
    elif ptype == "image_url" and isinstance(inner, dict) and type(inner.get("url")) is str:
        part = _image(p, inner)
    elif ptype == "input_audio" and isinstance(inner, dict) and type(inner.get("data")) is str:
        part = _input_audio(p, inner)
    elif ptype == "file" and isinstance(inner, dict):
        part = _file(p, inner)
    return part if part is not None else verbatim(p)


def _thinking(p: JsonDict, pieces: list[JsonDict]) -> ReasoningPart:
    """A Mistral thinking entry, ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}``: its text the
    reasoning's summary.  A list the summary writes back exactly (one plain text piece) is consumed; any other stays
    verbatim in ``openai.chat.thinking``, so the entry goes back as it came."""
    plain = len(pieces) == 1 and pieces[0].keys() == {"type", "text"} and pieces[0]["type"] == "text"
    md = fields_to_metadata(p, ("type", "thinking") if plain else ("type",), CHAT)
    md[TYPE_KEY] = "thinking"
    return ReasoningPart("".join(t["text"] for t in pieces), metadata=md)


def _nested(p: JsonDict, inner: JsonDict, consumed: Iterable[str]) -> dict[str, JsonValue]:
    """Metadata for an entry ``{"type": T, T: inner, ...}``: its own fields and ``inner``'s."""
    ptype = p["type"]
    return {**fields_to_metadata(p, ("type", ptype), CHAT), **fields_to_metadata(inner, consumed, f"{CHAT}{ptype}.")}


def _image(p: JsonDict, inner: JsonDict) -> MediaPart:
    url = inner["url"]
    md = _nested(p, inner, ("url",))
    found = _data_url(url)
    if found is not None and found[1] is not None:
        return MediaPart(Modality.IMAGE, found[0], InlineBytes(found[1]), metadata=md)
    return MediaPart(Modality.IMAGE, _image_mime(url) if found is None else found[0], Uri(url), metadata=md)


def _input_audio(p: JsonDict, inner: JsonDict) -> MediaPart:
    fmt = inner.get("format")
    mime = (INPUT_AUDIO_TYPES.get(fmt) or "audio/" + fmt) if type(fmt) is str and fmt else OCTETS
    # A format the MIME type does not say again (``mpeg``, ``null``) rides along as it came.
    consumed = ("data", "format") if type(fmt) is str and audio_format(mime) == fmt else ("data",)
    raw = b64decode(inner["data"])
    data = InlineBytes(raw) if raw is not None else InlineText(inner["data"])
    return MediaPart(Modality.AUDIO, mime, data, metadata=_nested(p, inner, consumed))


def _file(p: JsonDict, inner: JsonDict) -> FilePart | None:
    name, text, file_id = inner.get("filename"), inner.get("file_data"), inner.get("file_id")
    mime: str | None = None
    bare = False
    data: DataRef | None = None
    if type(text) is str:
        key, found = "file_data", _data_url(text)
        if found is not None:
            data = Uri(text) if found[1] is None else InlineBytes(found[1])
            mime = found[0]
        else:
            raw = b64decode(text)
            if raw is None:
                return None
            data, bare = InlineBytes(raw), True
    elif type(file_id) is str:
        key, data = "file_id", Handle(ArtifactId(file_id))
    if data is None:
        return None
    md = _nested(p, inner, (key, "filename") if type(name) is str else (key,))
    if bare:
        md[BARE_KEY] = True
    return FilePart(data, name=name if type(name) is str else None, mime_type=mime, metadata=md)


def content_parts(content: Any) -> list[Part]:
    """A message's ``content`` -> parts; ``None`` gives none."""
    if isinstance(content, str):
        return [TextPart(content)]
    if content is None:
        return []
    if not isinstance(content, list):
        raise wrong("a string or an array", content, "content")
    return listed([content_part(p) for p in content])


def listed(parts: list[Part]) -> list[Part]:
    """Parts of a content list: a lone plain text entry is marked, so it goes back as a list."""
    if len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata:
        parts[0] = TextPart(parts[0].text, metadata={TYPE_KEY: "text"})
    return parts


def _arguments(raw: object) -> tuple[JsonValue, dict[str, JsonValue]]:
    """A call's ``arguments`` -> (input, metadata), keeping text the compact dump would not reproduce."""
    if raw is None or raw == "{}":  # no arguments, or the empty object as OpenAI writes it
        return {}, {}
    if isinstance(raw, str):
        value, md = parse_arguments(raw)
        if not md and dumps(value) != raw:
            md = {ARGUMENTS_KEY: raw}
        return value, md
    if isinstance(raw, (dict, list)):  # some compatible servers send the object itself
        return raw, {ARGUMENTS_KEY: raw}  # the part's constructor copies both
    raise wrong("a string", raw, "arguments")


def _call_type(tc: JsonDict) -> str:
    ttype = optional_str(tc, "type")
    if ttype is None:
        return "custom" if tc.get("custom") is not None and tc.get("function") is None else "function"
    return ttype


def _name(body: JsonDict) -> str:
    return optional_str(body, "name") or ""


def _tool_call_part(tc: Any, request: bool) -> Part:
    if not request and type(tc) is dict and tc.get("type") == "function" and tc.keys() <= _CALL_CONSUMED["function", False]:
        # The common shape (an id, a function of a name and arguments text, nothing else): what the general path
        # below makes of it, without its readers; anything else, and every error, is the general path's.
        body, call_id = tc.get("function"), tc.get("id")
        if type(body) is dict and type(call_id) is str and body.keys() <= _FUNCTION_CONSUMED:
            name, raw = body.get("name"), body.get("arguments")
            if type(name) is str and type(raw) is str:
                args = loads_for_part(raw)
                if args is not UNREAD:  # checked once, by the part's constructor
                    try:
                        return ToolCallPart(ToolCallId(call_id), name, args, metadata=EMPTY_METADATA if dumps(args) == raw else {ARGUMENTS_KEY: raw})
                    except NormalizeError:
                        pass  # not JSON the wire carries (NaN, a lone surrogate, too deep): the general reading says so
                args, extra = _arguments(raw)
                return ToolCallPart(ToolCallId(call_id), name, args, metadata=extra or EMPTY_METADATA)
    json_object(tc)
    ttype = _call_type(tc)
    if ttype not in ("function", "custom"):
        return CustomPart(CHAT + "tool_call", value=tc)
    try:
        body = optional_obj(tc, ttype) or {}
        name = _name(body)
        # A stream's fragment index is no field of the call; a request that sends one sends it again.
        md = fields_to_metadata(tc, _CALL_CONSUMED[ttype, request], CHAT)
        if request and "type" not in tc:
            md[NO_TYPE_KEY] = True
        if ttype == "custom":
            md[TYPE_KEY] = "custom"
            value: JsonValue = optional_str(body, "input") or ""
            md.update(fields_to_metadata(body, ("name", "input"), CHAT + "custom."))
        else:
            value = _function_input(body, md, request)
    except NormalizeError as exc:
        raise exc.under(ttype) from None
    call_id = optional_str(tc, "id")
    if call_id is None:
        call_id, md[INVENTED_ID_KEY] = invent_id("call_"), True
    return ToolCallPart(ToolCallId(call_id), name, value, metadata=md or EMPTY_METADATA)


def _function_input(body: JsonDict, md: dict[str, JsonValue], request: bool) -> JsonValue:
    """A ``function`` call's input; what its ``arguments`` and other fields say beside it goes in ``md``."""
    raw = body.get("arguments")
    value, extra = _arguments(raw)
    if extra:
        md.update(extra)
    if request and raw is None:  # absent or null: sent back so, while the input is {}
        md.update({NO_ARGUMENTS_KEY: True} if "arguments" not in body else {ARGUMENTS_KEY: None})
    if not body.keys() <= _FUNCTION_CONSUMED:  # fields beside the two read
        md.update(fields_to_metadata(body, _FUNCTION_CONSUMED, CHAT + "function."))
    return value


def _legacy_call_part(fc: JsonDict) -> ToolCallPart:
    name = _name(fc)
    value, md = _arguments(fc.get("arguments"))
    md.update(fields_to_metadata(fc, ("name", "arguments"), CHAT + "function_call."))
    md[LEGACY_KEY] = md[INVENTED_ID_KEY] = True  # the legacy shape has no id: the name stands in
    return ToolCallPart(ToolCallId(name), name, value, metadata=md)


def _audio_part(audio: JsonDict) -> MediaPart:
    """A message's ``audio``: the answer's data, or (in a request) a reference to it by id."""
    md = fields_to_metadata(audio, ("data",), AUDIO)
    text, audio_id = audio.get("data"), audio.get("id")
    if type(text) is str:
        raw = b64decode(text)
        data: DataRef = InlineText(text) if raw is None else InlineBytes(raw)
        return MediaPart(Modality.AUDIO, (raw is not None and sniff_audio(raw)) or OCTETS, data, metadata=md)
    if type(audio_id) is str:
        return MediaPart(Modality.AUDIO, OCTETS, Handle(ArtifactId(audio_id)), metadata=md)
    return MediaPart(Modality.AUDIO, OCTETS, InlineBytes(b""), metadata=md)


def reasoning_field(msg: JsonDict) -> str | None:
    return next((f for f in REASONING_FIELDS if type(msg.get(f)) is str), None)


def message_parts(msg: JsonDict, field: str | None, *, request: bool = False) -> list[tuple[str, Part]]:
    """An assistant message's parts in order, each with its stream slot; ``field`` holds the reasoning.

    A ``request`` message keeps its ``annotations`` on the item (the caller's) and its calls' ``index``.
    """
    out: list[tuple[str, Part]] = []
    if field is not None and type(msg.get(field)) is str:
        out.append(("reasoning", ReasoningPart(msg[field], metadata={REASONING_FIELD_KEY: field})))
    content = msg.get("content")
    if isinstance(content, str):
        notes = {CHAT + "annotations": msg["annotations"]} if "annotations" in msg and not request else {}
        out.append(("content", TextPart(content, metadata=notes)))
    else:
        out.extend((f"content-{j}", p) for j, p in enumerate(content_parts(content)))
    refusal = optional_str(msg, "refusal")
    if refusal is not None:
        out.append(("refusal", TextPart(refusal, metadata={REFUSAL_KEY: True})))
    audio = optional_obj(msg, "audio")
    if audio is not None:
        out.append(("audio", _audio_part(audio)))
    for j, tc in enumerate(optional_arr(msg, "tool_calls") or ()):
        try:
            out.append((f"tool-{j}", _tool_call_part(tc, request)))
        except NormalizeError as exc:
            raise under(exc, "tool_calls", f"[{j}]") from None
    fc = optional_obj(msg, "function_call")
    if fc is not None:
        try:
            out.append(("function-call", _legacy_call_part(fc)))
        except NormalizeError as exc:
            raise exc.under("function_call") from None
    return out


def choice_item(
    top: JsonDict, choice: JsonDict, msg: JsonDict, parts: Sequence[Part], usage: Usage | None, field: str | None
) -> Item:
    """One choice's item: ``top`` is the response (or the stream's merged chunk fields)."""
    md = fields_to_metadata(top, _TOP_CONSUMED, NS)
    if choice:
        md.update(fields_to_metadata(choice, _CHOICE_CONSUMED, NS))
    if msg:
        if "annotations" in msg and not isinstance(msg.get("content"), str):
            md[CHAT + "annotations"] = msg["annotations"]
        md.update(fields_to_metadata(msg, _MESSAGE_CONSUMED[field], CHAT))
    refused, called = _refused_or_called(parts)
    finish = turn_finish(choice.get("finish_reason"), refused, called, top.get("error"))
    return make_item(parts, md, message_id=top.get("id"), usage=usage, finish=finish)


def _refused_or_called(parts: Sequence[Part]) -> tuple[bool, bool]:
    """Whether ``parts`` hold a refusal with text, and whether they call a tool: what ``stop`` means."""
    refused = called = False
    for p in parts:
        if isinstance(p, TextPart):
            refused = refused or (bool(p.text) and is_refusal(p))
        elif isinstance(p, ToolCallPart) or (isinstance(p, CustomPart) and p.kind == CHAT + "tool_call"):
            called = True
    return refused, called


def items_from_response(body: object) -> list[Item]:
    """A ``chat.completion`` body -> one ASSISTANT item per choice.

    A body without choices (an ``error`` body: Azure's prompt filter) still
    gives one item, with its finish reason, usage and metadata.  Raises
    :class:`NormalizeError` naming the field for what it cannot take.
    """
    body = as_native(body, RESPONSE)
    optional_str(body, "id")
    native_usage = optional_obj(body, "usage")
    usage = None if native_usage is None else checked_usage(native_usage)
    choices = optional_arr(body, "choices") or []
    if not choices:
        return [choice_item(body, {}, {}, (), usage, None)]
    items = []
    for n, choice in enumerate(choices):
        try:
            if not isinstance(choice, dict):
                raise wrong("an object", choice)
            optional_str(choice, "finish_reason")
            msg = optional_obj(choice, "message") or {}
            field = reasoning_field(msg)
            try:
                parts = [p for _, p in message_parts(msg, field)]
            except NormalizeError as exc:
                raise exc.under("message") from None
        except NormalizeError as exc:
            raise under(exc, "choices", f"[{n}]") from None
        items.append(choice_item(body, choice, msg, parts, usage if n == 0 else None, field))
    return items
