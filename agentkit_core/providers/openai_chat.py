"""OpenAI Chat Completions <-> agentkit values.

Responses (``items_from_response``; the stream decoder builds the same items)
-----------------------------------------------------------------------------

========================================  ====================================================
native                                    neutral
========================================  ====================================================
``choices[i]``                            one ASSISTANT ``Item`` each, in order
``id``                                    ``Item.id`` (``MessageId``), shared by every choice
``usage``                                 ``Item.usage`` of the first choice only (it covers all)
``choices[i].finish_reason``              ``Item.finish_reason`` (table below); the raw string
                                          in ``agentkit.finish_reason``
``object``; chunks' ``obfuscation``       dropped (a type tag; stream padding)
other top-level fields (``created``,      item metadata ``openai.<field>``: informational, never
``model``, ``service_tier``,              sent back
``system_fingerprint``, Azure
``prompt_filter_results``, ``error``...)
and choice fields (``index``,
``logprobs``, Azure
``content_filter_results``...)
``message.reasoning_content`` (DeepSeek)  ``ReasoningPart(summary=<text>)`` with
or ``message.reasoning`` (OpenRouter,     ``openai.chat.reasoning_field`` = the field's name;
vLLM), a string                           readable text, no ``agentkit.provider`` (below)
``message.content`` (a string)            ``TextPart``; ``null`` gives no part
``message.content`` (a list: some         one part per entry, as in requests (below)
compatible servers)
``message.annotations``                   ``openai.chat.annotations`` (``url_citation``...) on
                                          the content's ``TextPart`` (on the item without one)
``message.refusal`` (a string)            ``TextPart(refusal)`` with ``openai.chat.refusal: true``
``message.audio``                         ``MediaPart(AUDIO, <sniffed MIME>, InlineBytes(<data>))``
                                          with ``openai.chat.audio.<field>`` (``id``,
                                          ``expires_at``, ``transcript``...)
``message.tool_calls[j]``, ``function``   ``ToolCallPart(ToolCallId(id), name, <parsed arguments>)``
``message.tool_calls[j]``, ``custom``     ``ToolCallPart(id, name, <input string>)`` with
                                          ``openai.chat.type: "custom"``
``message.tool_calls[j]``, other type     ``CustomPart("openai.chat.tool_call", value=<call>)``
``message.function_call`` (legacy)        ``ToolCallPart(ToolCallId(name), name, input)`` with
                                          ``openai.chat.legacy_function_call: true`` and
                                          ``agentkit.invented_id: true`` (it has no id)
other message fields                      item metadata ``openai.chat.<field>``, sent back
========================================  ====================================================

Parts come in this order: reasoning, content, refusal, audio, tool calls, the
legacy function call.  Fields of a native object that have no neutral slot
ride on the part or item made from it as ``openai.chat.<field>`` (fields of a
nested object as ``openai.chat.<object>.<field>``: ``openai.chat.function.strict``,
``openai.chat.image_url.detail``) and go back where they came from; fields
never seen before included.

Tool-call arguments are parsed with the fold's convention: empty text is
``{}``, text that is not JSON gives ``input=None`` with the text and the error
in ``agentkit.input_json`` / ``agentkit.input_error``; text that is valid but
not the compact ``json.dumps`` of the input (whitespace...) is kept in
``openai.chat.arguments`` and sent back byte for byte.  A call that arrives
without an id (some compatible servers) gets an invented ``call_...`` id and
``agentkit.invented_id: true``; a call without a name gets ``""``.

Reasoning.  Chat Completions returns no reasoning of its own and has no
opaque reasoning state, so no part it makes carries ``agentkit.provider``.
OpenAI-compatible servers stream readable reasoning in ``reasoning_content``
or ``reasoning``; the first of the two that holds a string becomes the
``ReasoningPart`` (``reasoning_content`` when both do, as vLLM sends; the other
is carried) and is sent back in that field.  Servers that refuse reasoning in
requests (the first DeepSeek reasoner did) need such parts removed first.

Finish reasons (the raw string is always in ``agentkit.finish_reason``):

=================================  ==============================================
``stop``                           ``COMPLETED``; ``BLOCKED`` when the message is a refusal
``length``                         ``MAX_TOKENS``
``tool_calls``, ``function_call``  ``TOOL_CALL``
``content_filter``                 ``BLOCKED``
``null`` / absent                  ``None`` (a stream cut short)
anything else                      ``FinishReason.other(<raw>)``
an ``error`` body or stream event  ``BLOCKED`` when its ``code`` is ``content_filter``
(no finish reason)                 (Azure's prompt filter), else ``ERROR``; the code in
                                   ``agentkit.finish_reason``, the error in ``openai.error``
=================================  ==============================================

Usage: ``input_tokens = prompt_tokens`` (it includes
``prompt_tokens_details.cached_tokens`` and ``cache_write_tokens``),
``cached_input_tokens = cached_tokens``, ``cache_write_input_tokens =
cache_write_tokens``, ``output_tokens = completion_tokens`` (it includes
``completion_tokens_details.reasoning_tokens``), ``reasoning_tokens =
reasoning_tokens``; a breakdown not reported stays ``None``.  The native
object (audio, image and prediction details included) is kept verbatim in
``Usage.metadata["openai.usage"]``.

Streams
-------

A choice's parts open (``BeginPart``) when their field first appears in its
``delta`` and grow as fragments arrive: ``AppendText`` of content, refusal,
reasoning and function-call argument text (so every snapshot's text is a
prefix of the final text); ``AppendBytes`` of the decoded audio; a custom
tool call's input as ``ReplaceStructured`` of the text so far.  The fold's
header keys are sent with ``SetMetadata`` as soon as they are known (a call's
id and name, audio's modality and MIME type).  A choice's ``finish_reason``
commits every part of that choice (``CommitPart`` with ``part_id``, decoded
from what accumulated exactly as a response is), a tool call cut off by
``length`` included; so does an ``error`` event, for every choice.  Content
for a choice after its ``finish_reason`` is refused.  Part ids are
``part-<choice>-<slot>``, slots ``reasoning``, ``content``, ``refusal``,
``audio``, ``tool-<n>`` (the n-th call to appear) and ``function-call``.

Usage arrives after the finish reasons, in a last chunk with ``choices: []``
(``stream_options.include_usage``).  The decoder's live ``usage`` is the
latest one reported and ``finish_reason`` the first choice's once known;
``finish()`` uses the latest usage.  Several choices (``n > 1``) share one
decoder and fold: :meth:`ChatStreamDecoder.finish_all` gives one item per
choice, ``finish`` the first choice's, ``items_from_stream`` all of them.

Requests (``items_from_request`` / ``request_from_items``)
----------------------------------------------------------

========================================  ====================================================
native message                            neutral
========================================  ====================================================
``system``, ``developer``, ``user``,      SYSTEM, DEVELOPER, USER, ASSISTANT; another role is
``assistant``                             USER with ``openai.chat.role``
``tool``                                  TOOL: ``ToolResultPart(tool_call_id, TextOutput |
                                          PartsOutput)``; a ``name`` (some compatible servers)
                                          also in ``agentkit.tool_name``
``function`` (legacy)                     TOOL: ``ToolResultPart(ToolCallId(name), ...)`` with
                                          ``agentkit.tool_name``, ``agentkit.invented_id`` and
                                          ``openai.chat.legacy_function_call``
``content`` a string                      one ``TextPart`` (a lone text part sent as a list
                                          keeps ``openai.chat.type: "text"``)
``text`` / ``refusal`` entries            ``TextPart`` (a refusal entry keeps
                                          ``openai.chat.type: "refusal"``)
``image_url``                             ``MediaPart(IMAGE, mime, data)``: a canonical base64
                                          ``data:`` URL -> ``InlineBytes`` and its MIME type,
                                          any other URL -> ``Uri``
``input_audio``                           ``MediaPart(AUDIO, audio/wav | audio/mpeg |
                                          audio/<format>, InlineBytes)`` (non-canonical base64
                                          stays ``InlineText``)
``file``                                  ``FilePart``: ``file_data`` -> ``InlineBytes`` + MIME
                                          (bare base64 marked ``openai.chat.bare_base64``),
                                          ``file_id`` -> ``Handle``, ``filename`` -> ``name``
any other entry                           ``CustomPart("openai.chat.<type>", value=<entry>)``
assistant ``audio: {"id"}``               ``MediaPart(AUDIO, Handle(id))`` with
                                          ``openai.chat.audio.id``
``content`` null or ``[]`` with nothing   item metadata ``openai.chat.content``
to make parts of
========================================  ====================================================

Writing back, the encoder reads only its own ``openai.chat.*`` keys and the
``agentkit.*`` ones (never ``openai.*`` informational keys, nor the Responses
API's keys on parts it made).  An assistant audio part with
``openai.chat.audio.id`` becomes ``audio: {"id"}``; refusal parts the
``refusal`` field (or a refusal entry); tool calls are sent with their ids,
invented ones included (Chat pairs results with calls by id and requires it);
an assistant message with tool calls and no content gets ``content: null``.
Tool results become ``tool`` messages (``function`` messages when they answer
a legacy call, named from ``agentkit.tool_name`` or the call earlier in the
transcript).  Tool messages take text only: the media and files of a result
follow the run of tool messages as one ``user`` message.

Dropped on purpose: ``ReasoningPart`` that carries ``agentkit.provider``
(another provider's opaque state: Anthropic signatures, Responses encrypted
reasoning, Gemini thought signatures) or did not come from a Chat reasoning
field; other providers' ``CustomPart``; media and files in assistant
messages (Chat takes none); ``ToolResultPart.is_error`` (no such flag);
response-only data (annotations, audio data, transcript and expiry).  A
message with nothing left to send is left out.  Refused with
``NormalizeError``: video or other binary media, an image held as an
artifact handle, a file given by a non-``data:`` URL.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

from .. import (
    CUSTOM_KIND_KEY, FINISH_REASON_KEY, INPUT_JSON_KEY, INVENTED_ID_KEY, MIME_TYPE_KEY, MODALITY_KEY,
    PROVIDER_KEY, TOOL_CALL_ID_KEY, TOOL_NAME_KEY, AppendBytes, AppendText, ArtifactId, BeginPart, CommitPart,
    CustomPart, DataRef, Delta, FilePart, FilesOutput, FinishReason, FoldState, Handle, InlineBytes, InlineText,
    Item, ItemKind, JsonValue, MediaPart, MessageId, Modality, NormalizeError, Part, PartId, PartKind,
    PartsOutput, ProtocolError, ReasoningPart, ReplaceStructured, SetMetadata, StructuredOutput, StructuredPart,
    TextOutput, TextPart, TokenUsage, ToolCallId, ToolCallPart, ToolOutput, ToolResultPart, Uri, Usage,
    fold_all,
)
from ._common import (
    JsonDict, b64decode, b64encode, carried, carry, check_json, copy_json, count, dumps, events_from_sse,
    get_dict, invent_id, parse_arguments,
)

__all__ = (
    "items_from_response",
    "items_from_request",
    "request_from_items",
    "stream_decoder",
    "items_from_stream",
    "events_from_sse",
    "ChatStreamDecoder",
)

#: Response- and choice-level fields on an item: informational, never sent back.
NS = "openai."
#: Fields of the native message, part, call or audio object a value came from: sent back.
CHAT = "openai.chat."
#: Adapter markers under :data:`CHAT` (not native fields).
REFUSAL_KEY = CHAT + "refusal"
LEGACY_KEY = CHAT + "legacy_function_call"
ARGUMENTS_KEY = CHAT + "arguments"
TYPE_KEY = CHAT + "type"
REASONING_FIELD_KEY = CHAT + "reasoning_field"
BARE_KEY = CHAT + "bare_base64"
AUDIO = CHAT + "audio."
#: What :func:`_fields` leaves out: markers on parts, and what an item's message fields are not.
_PART_MARKERS = ("type", "refusal", "legacy_function_call", "arguments", "reasoning_field", "bare_base64",
                 "annotations")
_ITEM_MARKERS = ("role", "content", "annotations")

#: The fields compatible servers stream readable reasoning in, preferred first.
REASONING_FIELDS = ("reasoning_content", "reasoning")
_MESSAGE_FIELDS = ("role", "content", "refusal", "audio", "tool_calls", "function_call", "annotations")
#: Delta fields that make parts.
_PART_FIELDS = frozenset(("content", "refusal", "audio", "tool_calls", "function_call") + REASONING_FIELDS)
_AUDIO_RESPONSE_ONLY = ("data", "expires_at", "transcript")
#: How deep native JSON may nest: carried values land up to four levels deeper in an item.
_MAX_NATIVE_DEPTH = 120

_FINISH = {
    "stop": FinishReason.COMPLETED,
    "length": FinishReason.MAX_TOKENS,
    "tool_calls": FinishReason.TOOL_CALL,
    "function_call": FinishReason.TOOL_CALL,
    "content_filter": FinishReason.BLOCKED,
}
_ROLE_KINDS = {
    "system": ItemKind.SYSTEM,
    "developer": ItemKind.DEVELOPER,
    "user": ItemKind.USER,
    "assistant": ItemKind.ASSISTANT,
    "tool": ItemKind.TOOL,
    "function": ItemKind.TOOL,
}
_KIND_ROLES = {
    ItemKind.SYSTEM: "system",
    ItemKind.DEVELOPER: "developer",
    ItemKind.USER: "user",
    ItemKind.ASSISTANT: "assistant",
    ItemKind.TOOL: "user",  # a TOOL item's parts other than results
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
}
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.S)
_IMAGE_EXT = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
              ".webp": "image/webp"}
_AUDIO_MIME = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_MAGIC = ((b"RIFF", "audio/wav"), (b"ID3", "audio/mpeg"), (b"OggS", "audio/ogg"), (b"fLaC", "audio/flac"))
_OCTETS = "application/octet-stream"


# -- checking native JSON -------------------------------------------------------------------


def _describe(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "an array" if isinstance(v, list) else "an object" if isinstance(v, dict) else type(v).__name__


def _bad(key: str, expected: str, v: object) -> NormalizeError:
    return NormalizeError(f"expected {expected}, got {_describe(v)}", key)


def _under(exc: NormalizeError, *segments: str) -> NormalizeError:
    """``exc`` seen from ``len(segments)`` levels up (``_under(e, "choices", "[0]")``)."""
    for segment in reversed(segments):
        exc = exc.under(segment)
    return exc


def _str(d: Mapping[str, Any], key: str) -> str | None:
    v = d.get(key)
    if v is None or type(v) is str:
        return v
    raise _bad(key, "a string", v)


def _obj(d: Mapping[str, Any], key: str) -> JsonDict | None:
    v = d.get(key)
    if v is None or isinstance(v, dict):
        return v
    raise _bad(key, "an object", v)


def _arr(d: Mapping[str, Any], key: str) -> list[Any] | None:
    v = d.get(key)
    if v is None or isinstance(v, list):
        return v
    raise _bad(key, "an array", v)


def _index(d: Mapping[str, Any]) -> int | None:
    v = d.get("index")
    if v is None or (type(v) is int and v >= 0):
        return v
    raise _bad("index", "a non-negative integer", v)


def _body(v: object, what: str) -> JsonDict:
    if not isinstance(v, dict):
        raise NormalizeError(f"{what} must be a JSON object, got {_describe(v)}")
    check_json(v, _MAX_NATIVE_DEPTH)
    return v


# -- data ------------------------------------------------------------------------------------


def _data_url(url: str) -> tuple[str, bytes | None] | None:
    """A ``data:<mime>;base64,`` URL -> (mime, its bytes if canonical base64); another URL -> None."""
    m = _DATA_URL.fullmatch(url)
    return None if m is None else (m.group(1), b64decode(m.group(2)))


def _image_mime(url: str) -> str:
    path = url.split("?", 1)[0].lower()
    return next((mime for ext, mime in _IMAGE_EXT.items() if path.endswith(ext)), "image/*")


def _sniff(raw: bytes) -> str | None:
    for magic, mime in _AUDIO_MAGIC:
        if raw.startswith(magic):
            return mime
    return "audio/mpeg" if len(raw) > 1 and raw[0] == 0xFF and raw[1] & 0xE0 == 0xE0 else None


def _audio_format(mime: str) -> str | None:
    found = next((fmt for fmt, m in _AUDIO_MIME.items() if m == mime), None)
    return found or (mime[6:] if mime.startswith("audio/") and len(mime) > 6 else None)


def _base64(part: MediaPart) -> str:
    data = part.data
    if isinstance(data, InlineBytes):
        return b64encode(data.value)
    if isinstance(data, InlineText):  # media held as text is base64 text
        return data.value
    raise NormalizeError(f"Chat Completions needs {part.modality.value.lower()} inline, not as a {type(data).__name__}")


# -- usage and finish reasons ------------------------------------------------------------------


def _usage(native: JsonDict) -> Usage:
    prompt, completion = count(native.get("prompt_tokens")), count(native.get("completion_tokens"))
    pd, cd = get_dict(native, "prompt_tokens_details"), get_dict(native, "completion_tokens_details")
    tokens = None
    if prompt is not None and completion is not None:
        tokens = TokenUsage(
            prompt,
            completion,
            reasoning_tokens=count(cd.get("reasoning_tokens")),
            cached_input_tokens=count(pd.get("cached_tokens")),
            cache_write_input_tokens=count(pd.get("cache_write_tokens")),
        )
    return Usage(tokens, metadata={NS + "usage": copy_json(native)})


def _finish(raw: str, refused: bool) -> FinishReason:
    if raw == "stop" and refused:
        return FinishReason.BLOCKED
    return _FINISH.get(raw) or FinishReason.other(raw)


def _error_finish(error: object) -> tuple[FinishReason, str | None]:
    """An ``error`` object that ended the turn -> its finish reason and raw code."""
    code = error.get("code") if isinstance(error, dict) else None
    code = code if type(code) is str else None
    return (FinishReason.BLOCKED if code == "content_filter" else FinishReason.ERROR), code


def _is_refusal(part: Part) -> bool:
    md = part.metadata
    return isinstance(part, TextPart) and (md.get(REFUSAL_KEY) is True or md.get(TYPE_KEY) == "refusal")


# -- native -> parts ---------------------------------------------------------------------------


def _verbatim(p: Any) -> CustomPart:
    """A content entry kept as it came: ``CustomPart("openai.chat.<type>")``."""
    ptype = p.get("type") if isinstance(p, dict) else None
    return CustomPart(CHAT + (ptype if isinstance(ptype, str) else "content"), value=copy_json(p))


def _content_part(p: Any) -> Part:
    """One entry of a content list -> a part; what does not fit is kept verbatim (:func:`_verbatim`)."""
    ptype = p.get("type") if isinstance(p, dict) else None
    if not isinstance(ptype, str):
        return _verbatim(p)
    inner = p.get(ptype)
    part: Part | None = None
    if ptype == "text" and type(p.get("text")) is str:
        part = TextPart(p["text"], metadata=carry(p, ("type", "text"), CHAT))
    elif ptype == "refusal" and type(p.get("refusal")) is str:
        part = TextPart(p["refusal"], metadata=carry(p, ("refusal",), CHAT))
    elif ptype == "image_url" and isinstance(inner, dict) and type(inner.get("url")) is str:
        part = _image(p, inner)
    elif ptype == "input_audio" and isinstance(inner, dict) and type(inner.get("data")) is str:
        part = _input_audio(p, inner)
    elif ptype == "file" and isinstance(inner, dict):
        part = _file(p, inner)
    return part if part is not None else _verbatim(p)


def _nested(p: JsonDict, inner: JsonDict, consumed: Iterable[str]) -> dict[str, JsonValue]:
    """Metadata for an entry ``{"type": T, T: inner, ...}``: its own fields and ``inner``'s."""
    ptype = p["type"]
    return {**carry(p, ("type", ptype), CHAT), **carry(inner, consumed, f"{CHAT}{ptype}.")}


def _image(p: JsonDict, inner: JsonDict) -> MediaPart:
    url = inner["url"]
    md = _nested(p, inner, ("url",))
    found = _data_url(url)
    if found is not None and found[1] is not None:
        return MediaPart(Modality.IMAGE, found[0], InlineBytes(found[1]), metadata=md)
    return MediaPart(Modality.IMAGE, _image_mime(url) if found is None else found[0], Uri(url), metadata=md)


def _input_audio(p: JsonDict, inner: JsonDict) -> MediaPart:
    fmt = inner.get("format")
    mime = (_AUDIO_MIME.get(fmt) or "audio/" + fmt) if type(fmt) is str and fmt else _OCTETS
    # A format the MIME type does not say again (``mpeg``, ``null``) rides along as it came.
    consumed = ("data", "format") if type(fmt) is str and _audio_format(mime) == fmt else ("data",)
    raw = b64decode(inner["data"])
    data = InlineBytes(raw) if raw is not None else InlineText(inner["data"])
    return MediaPart(Modality.AUDIO, mime, data, metadata=_nested(p, inner, consumed))


def _file(p: JsonDict, inner: JsonDict) -> FilePart | None:
    name, text, file_id = inner.get("filename"), inner.get("file_data"), inner.get("file_id")
    mime, bare, data = None, False, None  # type: tuple[str | None, bool, DataRef | None]
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


def _content_parts(content: Any) -> list[Part]:
    """A message's ``content`` -> parts; ``None`` gives none."""
    if isinstance(content, str):
        return [TextPart(content)]
    if content is None:
        return []
    if not isinstance(content, list):
        raise _bad("content", "a string or an array", content)
    return _listed([_content_part(p) for p in content])


def _listed(parts: list[Part]) -> list[Part]:
    """Parts of a content list: a lone plain text entry is marked, so it goes back as a list."""
    if len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata:
        parts[0] = TextPart(parts[0].text, metadata={TYPE_KEY: "text"})
    return parts


def _arguments(raw: Any) -> tuple[JsonValue, dict[str, JsonValue]]:
    """A call's ``arguments`` -> (input, metadata), keeping text the compact dump would not reproduce."""
    if raw is None:
        return {}, {}
    if isinstance(raw, str):
        value, md = parse_arguments(raw)
        if not md and dumps(value) != raw:
            md = {ARGUMENTS_KEY: raw}
        return value, md
    if isinstance(raw, (dict, list)):  # some compatible servers send the object itself
        return copy_json(raw), {ARGUMENTS_KEY: copy_json(raw)}
    raise _bad("arguments", "a string", raw)


def _call_type(tc: JsonDict) -> str:
    ttype = tc.get("type")
    if ttype is None:
        return "custom" if tc.get("custom") is not None and tc.get("function") is None else "function"
    if type(ttype) is not str:
        raise _bad("type", "a string", ttype)
    return ttype


def _name(body: JsonDict) -> str:
    return _str(body, "name") or ""


def _tool_call_part(tc: Any) -> Part:
    if not isinstance(tc, dict):
        raise _bad("", "an object", tc)
    ttype = _call_type(tc)
    if ttype not in ("function", "custom"):
        return CustomPart(CHAT + "tool_call", value=copy_json(tc))
    try:
        body = _obj(tc, ttype) or {}
        name = _name(body)
        md = carry(tc, ("id", "type", "index", ttype), CHAT)
        if ttype == "custom":
            md[TYPE_KEY] = "custom"
            value: JsonValue = _str(body, "input") or ""
            md.update(carry(body, ("name", "input"), CHAT + "custom."))
        else:
            value, extra = _arguments(body.get("arguments"))
            md.update(extra)
            md.update(carry(body, ("name", "arguments"), CHAT + "function."))
    except NormalizeError as exc:
        raise exc.under(ttype) from None
    call_id = _str(tc, "id")
    if call_id is None:
        call_id, md[INVENTED_ID_KEY] = invent_id("call_"), True
    return ToolCallPart(ToolCallId(call_id), name, value, metadata=md)


def _legacy_call_part(fc: JsonDict) -> ToolCallPart:
    name = _name(fc)
    value, md = _arguments(fc.get("arguments"))
    md.update(carry(fc, ("name", "arguments"), CHAT + "function_call."))
    md[LEGACY_KEY] = md[INVENTED_ID_KEY] = True  # the legacy shape has no id: the name stands in
    return ToolCallPart(ToolCallId(name), name, value, metadata=md)


def _audio_part(audio: JsonDict) -> MediaPart:
    """A message's ``audio``: the answer's data, or (in a request) a reference to it by id."""
    md = carry(audio, ("data",), AUDIO)
    text, audio_id = audio.get("data"), audio.get("id")
    if type(text) is str:
        raw = b64decode(text)
        data: Any = InlineText(text) if raw is None else InlineBytes(raw)
        return MediaPart(Modality.AUDIO, (raw is not None and _sniff(raw)) or _OCTETS, data, metadata=md)
    if type(audio_id) is str:
        return MediaPart(Modality.AUDIO, _OCTETS, Handle(ArtifactId(audio_id)), metadata=md)
    return MediaPart(Modality.AUDIO, _OCTETS, InlineBytes(b""), metadata=md)


def _reasoning_field(msg: JsonDict) -> str | None:
    return next((f for f in REASONING_FIELDS if type(msg.get(f)) is str), None)


def _message_parts(msg: JsonDict, field: str | None) -> list[tuple[str, Part]]:
    """An assistant message's parts in order, each with its stream slot; ``field`` holds the reasoning."""
    out: list[tuple[str, Part]] = []
    if field is not None and type(msg.get(field)) is str:
        out.append(("reasoning", ReasoningPart(msg[field], metadata={REASONING_FIELD_KEY: field})))
    content = msg.get("content")
    if isinstance(content, str):
        notes = {CHAT + "annotations": copy_json(msg["annotations"])} if "annotations" in msg else {}
        out.append(("content", TextPart(content, metadata=notes)))
    else:
        out.extend((f"content-{j}", p) for j, p in enumerate(_content_parts(content)))
    refusal = _str(msg, "refusal")
    if refusal is not None:
        out.append(("refusal", TextPart(refusal, metadata={REFUSAL_KEY: True})))
    audio = _obj(msg, "audio")
    if audio is not None:
        out.append(("audio", _audio_part(audio)))
    for j, tc in enumerate(_arr(msg, "tool_calls") or ()):
        try:
            out.append((f"tool-{j}", _tool_call_part(tc)))
        except NormalizeError as exc:
            raise _under(exc, "tool_calls", f"[{j}]") from None
    fc = _obj(msg, "function_call")
    if fc is not None:
        try:
            out.append(("function-call", _legacy_call_part(fc)))
        except NormalizeError as exc:
            raise exc.under("function_call") from None
    return out


def _item(
    top: JsonDict, choice: JsonDict, msg: JsonDict, parts: Sequence[Part], usage: Usage | None, field: str | None
) -> Item:
    """One choice's item: ``top`` is the response (or the stream's merged chunk fields)."""
    md = carry(top, ("id", "object", "choices", "usage"), NS)
    md.update(carry(choice, ("message", "delta", "finish_reason"), NS))
    if "annotations" in msg and not isinstance(msg.get("content"), str):
        md[CHAT + "annotations"] = copy_json(msg["annotations"])
    md.update(carry(msg, _MESSAGE_FIELDS + ((field,) if field else ()), CHAT))
    raw = choice.get("finish_reason")
    reason: FinishReason | None = None
    if isinstance(raw, str):
        md[FINISH_REASON_KEY] = raw
        reason = _finish(raw, any(isinstance(p, TextPart) and p.text and _is_refusal(p) for p in parts))
    elif top.get("error") is not None:
        reason, code = _error_finish(top["error"])
        if code is not None:
            md[FINISH_REASON_KEY] = code
    rid = top.get("id")
    return Item(
        ItemKind.ASSISTANT,
        parts,
        id=MessageId(rid) if type(rid) is str else None,
        metadata=md,
        usage=usage,
        finish_reason=reason,
    )


def items_from_response(body: Any) -> list[Item]:
    """A ``chat.completion`` body -> one ASSISTANT item per choice.

    A body without choices (an ``error`` body: Azure's prompt filter) still
    gives one item, with its finish reason, usage and metadata.  Raises
    :class:`NormalizeError` naming the field for what it cannot take.
    """
    body = _body(body, "a response body")
    _str(body, "id")
    native_usage = _obj(body, "usage")
    usage = None if native_usage is None else _usage(native_usage)
    choices = _arr(body, "choices") or []
    if not choices:
        return [_item(body, {}, {}, (), usage, None)]
    items = []
    for n, choice in enumerate(choices):
        try:
            if not isinstance(choice, dict):
                raise _bad("", "an object", choice)
            _str(choice, "finish_reason")
            msg = _obj(choice, "message") or {}
            field = _reasoning_field(msg)
            try:
                parts = [p for _, p in _message_parts(msg, field)]
            except NormalizeError as exc:
                raise exc.under("message") from None
        except NormalizeError as exc:
            raise _under(exc, "choices", f"[{n}]") from None
        items.append(_item(body, choice, msg, parts, usage if n == 0 else None, field))
    return items


# -- streams -----------------------------------------------------------------------------------


def _merge_fragment(acc: JsonDict, key: str, value: Any) -> None:
    """A delta field: strings concatenate, lists extend, anything else replaces (``null`` never does)."""
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif isinstance(value, str) and isinstance(old, str):
        acc[key] = old + value
    elif isinstance(value, list) and isinstance(old, list):
        old.extend(copy_json(value))
    else:
        acc[key] = copy_json(value)


def _merge_snapshot(acc: JsonDict, key: str, value: Any) -> None:
    """A chunk or choice field, repeated by every chunk: the last non-null value wins."""
    if value is None:
        acc.setdefault(key, None)
    else:
        acc[key] = copy_json(value)


def _fragment_kind(frag: JsonDict) -> str | None:
    """What a tool-call fragment says its call is: its ``type``, or the body it carries."""
    ttype = _str(frag, "type")
    bodies = [k for k in ("function", "custom") if frag.get(k) is not None]
    for key in bodies:
        body = _obj(frag, key) or {}
        try:
            _str(body, "name")
            _str(body, "arguments" if key == "function" else "input")
        except NormalizeError as exc:
            raise exc.under(key) from None
    if len(bodies) > 1 or (ttype is not None and bodies and bodies[0] != ttype):
        raise NormalizeError(f"a {ttype or bodies[0]} call fragment holds a {bodies[-1]} body")
    return ttype if ttype is not None else bodies[0] if bodies else None


#: (choice index, call index) -> the call's type once known.
_Kinds = dict[tuple[int, int], "str | None"]


class _Choice:
    """What one choice of a stream has sent so far."""

    __slots__ = ("index", "fields", "message", "slots", "calls", "kinds", "headers", "committed",
                 "reasoning", "pending", "sound", "ok")

    def __init__(self, index: int) -> None:
        self.index = index
        self.fields: JsonDict = {}  # choice-level fields, merged
        self.message: JsonDict = {}  # the message the deltas add up to
        self.slots: dict[str, PartId] = {}
        self.calls: dict[int, tuple[str, JsonDict]] = {}  # index (< 0: none sent) -> (slot, call so far)
        self.kinds: dict[int, str | None] = {}  # native index -> the call's type once known
        self.headers: dict[str, dict[str, str]] = {}  # part id -> header keys sent
        self.committed = False
        self.reasoning: str | None = None  # the field the reasoning part reads
        self.pending = ""  # audio base64 not decoded yet (under four characters)
        self.sound = b""  # the audio's first bytes, to tell its MIME type
        self.ok = True  # the audio base64 decoded so far

    def refused(self) -> bool:
        refusal = self.message.get("refusal")
        return isinstance(refusal, str) and refusal != ""


class ChatStreamDecoder:
    """One Chat Completions stream (every choice of it) -> deltas, then items.

    Feed each parsed ``chat.completion.chunk`` to :meth:`feed` and fold what
    it returns; then :meth:`finish` (the first choice) or :meth:`finish_all`
    (every choice) with the folded parts.  ``usage`` is the latest usage the
    stream reported and ``finish_reason`` the first choice's finish reason,
    ``None`` until known.  :meth:`response` is the equivalent ``chat.completion``.
    A chunk the decoder cannot take raises :class:`NormalizeError` and leaves
    the decoder as it was.
    """

    def __init__(self) -> None:
        self.usage: Usage | None = None
        self._top: JsonDict = {}
        self._usage: JsonDict | None = None
        self._choices: dict[int, _Choice] = {}
        self._began: list[int] = []  # the choice of every part begun, in order
        self._events = 0

    @property
    def finish_reason(self) -> FinishReason | None:
        """The first choice's finish reason once it is known (an ``error`` event ends every choice)."""
        first = self._choices[min(self._choices)] if self._choices else None
        raw = None if first is None else first.fields.get("finish_reason")
        if isinstance(raw, str):
            return _finish(raw, first is not None and first.refused())
        error = self._top.get("error")
        return None if error is None else _error_finish(error)[0]

    # -- events ------------------------------------------------------------------------------

    def feed(self, event: Any, /) -> list[Delta]:
        """One parsed chunk -> the deltas it implies."""
        self._events += 1
        try:
            self._check(event)
        except NormalizeError as exc:
            raise NormalizeError(f"event {self._events}: {exc.message}", exc.path) from None
        out: list[Delta] = []
        for k, v in event.items():
            if k == "usage" and v is not None:
                self._usage, self.usage = copy_json(v), _usage(v)
            elif k not in ("choices", "object", "obfuscation", "usage"):
                _merge_snapshot(self._top, k, v)
        for ch in event.get("choices") or ():
            self._feed_choice(ch, out)
        if event.get("error") is not None:  # the turn ends here
            for index in sorted(self._choices):
                if not self._choices[index].committed:
                    self._commit(self._choices[index], out)
        return out

    def _check(self, event: Any) -> None:
        """Everything :meth:`feed` could refuse, refused before anything changes."""
        _body(event, "a stream event")
        _str(event, "id")
        _obj(event, "usage")
        ending: set[int] = set()  # choices this event finishes
        kinds: _Kinds = {}  # (choice, call) -> type, as this event leaves it
        for n, ch in enumerate(_arr(event, "choices") or ()):
            try:
                if not isinstance(ch, dict):
                    raise _bad("", "an object", ch)
                index = _index(ch) or 0
                st = self._choices.get(index)
                closed = index in ending or (st is not None and st.committed)
                delta = _obj(ch, "delta")
                if delta is not None:
                    try:
                        self._check_delta(index, st, delta, closed, kinds)
                    except NormalizeError as exc:
                        raise exc.under("delta") from None
                if _str(ch, "finish_reason") is not None:
                    ending.add(index)
            except NormalizeError as exc:
                raise _under(exc, "choices", f"[{n}]") from None

    def _check_delta(self, index: int, st: _Choice | None, delta: JsonDict, closed: bool, kinds: _Kinds) -> None:
        _str(delta, "content")
        _str(delta, "refusal")
        for key in ("audio", "function_call"):
            obj = _obj(delta, key)
            for field in ("data", "transcript", "id") if key == "audio" else ("name", "arguments"):
                try:
                    _str(obj or {}, field)
                except NormalizeError as exc:
                    raise exc.under(key) from None
        for m, frag in enumerate(_arr(delta, "tool_calls") or ()):
            try:
                if not isinstance(frag, dict):
                    raise _bad("", "an object", frag)
                _str(frag, "id")
                self._check_kind(index, st, _index(frag), _fragment_kind(frag), kinds)
            except NormalizeError as exc:
                raise _under(exc, "tool_calls", f"[{m}]") from None
        if closed:
            for key in _PART_FIELDS:
                v = delta.get(key)
                if v not in (None, "", [], {}) and (key not in REASONING_FIELDS or isinstance(v, str)):
                    raise NormalizeError("content for a choice after its finish_reason", key)

    @staticmethod
    def _check_kind(index: int, st: _Choice | None, call: int | None, kind: str | None, kinds: _Kinds) -> None:
        """A call keeps its type: a fragment may not turn a function call into a custom one."""
        if call is None:
            return  # a call without an index is a new call
        key = (index, call)
        began = key in kinds or (st is not None and call in st.calls)
        known = kinds[key] if key in kinds else None if st is None else st.kinds.get(call)
        if kind is not None and began and kind != known and (known is not None or kind not in ("function", "custom")):
            raise NormalizeError(f"a fragment of a {known or 'function'} call says it is {kind}", "type")
        kinds[key] = known if kind is None else kind

    def _feed_choice(self, ch: JsonDict, out: list[Delta]) -> None:
        index = ch.get("index") or 0
        st = self._choices.get(index)
        if st is None:
            st = self._choices[index] = _Choice(index)
        for k, v in ch.items():
            if k == "logprobs" and isinstance(v, dict) and isinstance(st.fields.get(k), dict):
                for lk, lv in v.items():  # token lists grow; anything else is a snapshot
                    (_merge_fragment if isinstance(lv, list) else _merge_snapshot)(st.fields[k], lk, lv)
            elif k != "delta":
                _merge_snapshot(st.fields, k, v)
        delta = ch.get("delta")
        if isinstance(delta, dict):
            self._apply(st, delta, out)
        if ch.get("finish_reason") is not None and not st.committed:
            self._commit(st, out)

    def _open(self, st: _Choice, slot: str, kind: PartKind, out: list[Delta]) -> PartId:
        pid = st.slots.get(slot)
        if pid is None:
            pid = st.slots[slot] = PartId(f"part-{st.index}-{slot}")
            out.append(BeginPart(pid, kind))
            self._began.append(st.index)
            if slot == "refusal":
                out.append(SetMetadata(pid, {REFUSAL_KEY: True}))
        return pid

    @staticmethod
    def _header(st: _Choice, pid: PartId, found: Mapping[str, object], out: list[Delta]) -> None:
        """Send the fold's header keys of an open part as soon as they are known (or change)."""
        sent = st.headers.setdefault(pid.value, {})
        new = {k: v for k, v in found.items() if isinstance(v, str) and v and sent.get(k) != v}
        if new:
            sent.update(new)
            out.append(SetMetadata(pid, new))

    def _apply(self, st: _Choice, delta: JsonDict, out: list[Delta]) -> None:
        msg = st.message
        for k, v in delta.items():
            if k in _PART_FIELDS and (v is None or st.committed):
                msg.setdefault(k, None)  # checked: nothing but empty values after the commit
            elif k in ("content", "refusal"):
                self._text(st, k, k, v, PartKind.TEXT, out)
            elif k in REASONING_FIELDS and isinstance(v, str) and st.reasoning in (None, k):
                st.reasoning = k
                self._text(st, k, "reasoning", v, PartKind.REASONING, out)
            elif k == "audio":
                self._audio(st, v, out)
            elif k == "tool_calls":
                for frag in v:
                    self._tool_call(st, frag, out)
            elif k == "function_call":
                self._function_call(st, v, out)
            elif k == "role":
                _merge_snapshot(msg, k, v)
            else:
                _merge_fragment(msg, k, v)

    def _text(self, st: _Choice, key: str, slot: str, text: str, kind: PartKind, out: list[Delta]) -> None:
        pid = self._open(st, slot, kind, out)
        _merge_fragment(st.message, key, text)
        if text:
            out.append(AppendText(pid, text))

    def _audio(self, st: _Choice, frag: JsonDict, out: list[Delta]) -> None:
        pid = self._open(st, "audio", PartKind.MEDIA, out)
        acc = st.message.get("audio")
        if not isinstance(acc, dict):
            acc = st.message["audio"] = {}
        chunk = b""
        for k, v in frag.items():
            if k in ("data", "transcript") and isinstance(v, str):
                _merge_fragment(acc, k, v)
                if k == "data":
                    chunk = self._audio_bytes(st, v)
            else:
                _merge_snapshot(acc, k, v)
        found: dict[str, object] = {MODALITY_KEY: Modality.AUDIO.value, MIME_TYPE_KEY: _sniff(st.sound)}
        found.update({AUDIO + k: acc.get(k) for k in ("id", "transcript")})
        self._header(st, pid, found, out)
        if chunk:
            out.append(AppendBytes(pid, chunk))

    @staticmethod
    def _audio_bytes(st: _Choice, text: str) -> bytes:
        """Decode what whole base64 quads have arrived; after bad base64, nothing more (the commit has it)."""
        if not st.ok:
            return b""
        text = st.pending + text
        cut = len(text) - len(text) % 4
        st.pending = text[cut:]
        raw = b64decode(text[:cut]) if cut else b""
        if raw is None:
            st.ok = False
            return b""
        if len(st.sound) < 16:
            st.sound += raw[: 16 - len(st.sound)]
        return raw

    def _tool_call(self, st: _Choice, frag: JsonDict, out: list[Delta]) -> None:
        call = frag.get("index")
        if call is None:  # a whole call without an index: a new call, under a key no index can take
            call = -1 - sum(1 for k in st.calls if k < 0)
        kind = _fragment_kind(frag)
        if call not in st.calls:
            slot = f"tool-{len(st.calls)}"
            calls = st.message.get("tool_calls")
            if not isinstance(calls, list):
                calls = st.message["tool_calls"] = []
            calls.append({})
            st.calls[call] = (slot, calls[-1])
            st.kinds[call] = kind
            opaque = kind not in (None, "function", "custom")
            pid = self._open(st, slot, PartKind.CUSTOM if opaque else PartKind.TOOL_CALL, out)
            if opaque:
                self._header(st, pid, {CUSTOM_KIND_KEY: CHAT + "tool_call"}, out)
        slot, acc = st.calls[call]
        st.kinds[call] = st.kinds[call] or kind
        pid = st.slots[slot]
        for k, v in frag.items():
            if k in ("function", "custom") and isinstance(v, dict):
                body = acc.get(k)
                if not isinstance(body, dict):
                    body = acc[k] = {}
                for bk, bv in v.items():
                    if bk in ("arguments", "input") and isinstance(bv, str):
                        _merge_fragment(body, bk, bv)
                        if k == "custom":
                            out.append(ReplaceStructured(pid, body[bk]))
                        elif bv:
                            out.append(AppendText(pid, bv))
                    elif bv is not None and bv != "" or bk not in body:
                        _merge_snapshot(body, bk, bv)
            elif v is not None or k not in acc:
                acc[k] = copy_json(v)
        if st.kinds[call] in (None, "function", "custom"):
            body = acc.get(st.kinds[call] or "function")
            name = body.get("name") if isinstance(body, dict) else None
            self._header(st, pid, {TOOL_CALL_ID_KEY: acc.get("id"), TOOL_NAME_KEY: name}, out)

    def _function_call(self, st: _Choice, frag: JsonDict, out: list[Delta]) -> None:
        pid = self._open(st, "function-call", PartKind.TOOL_CALL, out)
        acc = st.message.get("function_call")
        if not isinstance(acc, dict):
            acc = st.message["function_call"] = {}
        for k, v in frag.items():
            if k == "arguments" and isinstance(v, str):
                _merge_fragment(acc, k, v)
                if v:
                    out.append(AppendText(pid, v))
            elif v is not None and v != "" or k not in acc:
                _merge_snapshot(acc, k, v)
        name = acc.get("name")
        self._header(st, pid, {TOOL_CALL_ID_KEY: name, TOOL_NAME_KEY: name}, out)  # the name stands in for the id

    def _commit(self, st: _Choice, out: list[Delta]) -> None:
        """Close every part of the choice with the part decoded from what accumulated."""
        st.committed = True
        for slot, part in _message_parts(st.message, st.reasoning):
            pid = st.slots.get(slot)
            if pid is None:
                pid = self._open(st, slot, part.part_kind, out)
            out.append(CommitPart(part, part_id=pid))

    # -- results -----------------------------------------------------------------------------

    def response(self) -> JsonDict:
        """The ``chat.completion`` body equivalent to what was fed so far."""
        body: JsonDict = copy_json(self._top)
        body["object"] = "chat.completion"
        body["choices"] = [
            {**copy_json(st.fields), "message": copy_json(st.message)} for _, st in sorted(self._choices.items())
        ]
        if self._usage is not None:
            body["usage"] = copy_json(self._usage)
        return body

    def finish_all(self, parts: Sequence[Part], /) -> list[Item]:
        """The folded parts of the whole stream -> one item per choice, in choice order.

        ``parts`` is ``FoldState.parts``, or ``finalize()`` for a stream cut
        short: a part for every part the decoder began, in the order begun.
        """
        if not all(isinstance(p, Part) for p in parts):
            raise ProtocolError("finish_all takes the folded parts (FoldState.parts or finalize())")
        order = sorted(self._choices)
        if not order:
            return [_item(self._top, {}, {}, list(parts), self.usage, None)]
        groups: dict[int, list[Part]] = {c: [] for c in order}
        if len(parts) == len(self._began):
            for c, part in zip(self._began, parts):
                groups[c].append(part)
        elif len(order) == 1:
            groups[order[0]] = list(parts)
        else:
            raise ProtocolError(
                f"finish_all got {len(parts)} parts, but the decoder began {len(self._began)} across "
                f"{len(order)} choices; pass every folded part (FoldState.parts or finalize())"
            )
        return [
            _item(self._top, st.fields, st.message, groups[c], self.usage if n == 0 else None, st.reasoning)
            for n, (c, st) in enumerate((c, self._choices[c]) for c in order)
        ]

    def finish(self, parts: Sequence[Part], /) -> Item:
        """The folded parts -> the first choice's item (:meth:`finish_all` gives every choice's)."""
        return self.finish_all(parts)[0]


def stream_decoder() -> ChatStreamDecoder:
    """A fresh decoder for one stream."""
    return ChatStreamDecoder()


def items_from_stream(events: Iterable[Any]) -> list[Item]:
    """Decode and fold a whole stream of parsed chunks: one item per choice.

    Parts still open when the events run out (a stream cut short) are closed
    as they stand, with :meth:`FoldState.finalize`.
    """
    if isinstance(events, (str, bytes, bytearray, Mapping)) or not isinstance(events, Iterable):
        raise NormalizeError("items_from_stream takes the parsed events; events_from_sse(body) gives them")
    decoder = ChatStreamDecoder()
    state = fold_all(FoldState(), (delta for event in events for delta in decoder.feed(event)))
    return decoder.finish_all(state.finalize())


# -- request -> items ---------------------------------------------------------------------------


def items_from_request(body: Any) -> list[Item]:
    """The ``messages`` of a request body -> one item per message.

    Raises :class:`NormalizeError` naming the field for what it cannot take.
    """
    messages = _arr(_body(body, "a request body"), "messages") or []
    items = []
    for n, msg in enumerate(messages):
        try:
            items.append(_request_item(msg))
        except NormalizeError as exc:
            raise _under(exc, "messages", f"[{n}]") from None
    return items


def _request_item(msg: Any) -> Item:
    if not isinstance(msg, dict):
        raise _bad("", "an object", msg)
    role = msg.get("role")
    if type(role) is not str:
        raise _bad("role", "a string", role)
    md: dict[str, JsonValue] = {}
    kind = _ROLE_KINDS.get(role)
    if kind is None:
        kind, md[CHAT + "role"] = ItemKind.USER, role
    if kind is ItemKind.TOOL:
        return _result_item(msg, role == "function", md)
    content = msg.get("content")
    consumed: tuple[str, ...] = ("role", "content")
    if kind is ItemKind.ASSISTANT:
        field = _reasoning_field(msg)
        parts = [p for _, p in _message_parts(msg, field)]
        consumed = _MESSAGE_FIELDS + ((field,) if field else ())
        calls = bool(msg.get("tool_calls")) or msg.get("function_call") is not None
        if "annotations" in msg and not isinstance(content, str):
            md[CHAT + "annotations"] = copy_json(msg["annotations"])
    else:
        parts, calls = _content_parts(content), False
    if "content" in msg and not isinstance(content, str) and not content and (content is not None or not calls):
        md[CHAT + "content"] = copy_json(content)  # null (without calls) or []: say so
    md.update(carry(msg, consumed, CHAT))
    return Item(kind, parts, metadata=md)


def _result_item(msg: JsonDict, legacy: bool, md: dict[str, JsonValue]) -> Item:
    key = "name" if legacy else "tool_call_id"
    call_id = msg.get(key)
    if type(call_id) is not str:
        raise _bad(key, "a string", call_id)
    part_md: dict[str, JsonValue] = {LEGACY_KEY: True, INVENTED_ID_KEY: True} if legacy else {}
    name = _str(msg, "name")
    if name is not None:
        part_md[TOOL_NAME_KEY] = name
    content = msg.get("content")
    output: ToolOutput
    if isinstance(content, str):
        output = TextOutput(content)
    elif isinstance(content, list):  # text entries; anything else goes back as it came
        texts = (_content_part(p) if isinstance(p, dict) and p.get("type") == "text" else _verbatim(p) for p in content)
        output = PartsOutput(tuple(_listed(list(texts))))
        if not content:
            md[CHAT + "content"] = []
    elif content is None:
        output = TextOutput("")
        if "content" in msg:
            md[CHAT + "content"] = None
    else:
        raise _bad("content", "a string or an array", content)
    md.update(carry(msg, ("role", "content", key), CHAT))
    return Item(ItemKind.TOOL, (ToolResultPart(ToolCallId(call_id), output, metadata=part_md),), metadata=md)


# -- items -> request ---------------------------------------------------------------------------


def _fields(md: Mapping[str, JsonValue], skip: tuple[str, ...] = _PART_MARKERS) -> JsonDict:
    """The native fields a part (or, with ``_ITEM_MARKERS``, an item) carries, markers left out."""
    return carried(md, CHAT, skip)


def _plain(part: Part) -> bool:
    """A text part that a message may send as its bare string ``content``."""
    return type(part) is TextPart and TYPE_KEY not in part.metadata and not _fields(part.metadata)


def _content_value(entries: list[tuple[Part, JsonValue]]) -> JsonValue:
    first = entries[0][0] if len(entries) == 1 else None
    if isinstance(first, TextPart) and _plain(first):
        return first.text
    return [native for _, native in entries]


def _own_custom(part: Part) -> bool:
    return isinstance(part, CustomPart) and part.kind.startswith(CHAT) and part.value is not None


def _entry(part: Part) -> JsonValue:
    """The content entry for ``part``; ``None`` for what Chat has no entry for (dropped)."""
    md = part.metadata
    if isinstance(part, TextPart):
        if md.get(TYPE_KEY) == "refusal":
            return {**_fields(md), "type": "refusal", "refusal": part.text}
        return {**_fields(md), "type": "text", "text": part.text}
    if isinstance(part, StructuredPart):
        return {"type": "text", "text": dumps(part.value)}
    if isinstance(part, MediaPart):
        return _media_entry(part)
    if isinstance(part, FilePart):
        return _file_entry(part)
    if isinstance(part, CustomPart) and _own_custom(part) and part.kind != CHAT + "tool_call":
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
            url = f"data:{part.mime_type};base64,{_base64(part)}"
        return {**_fields(md), "type": "image_url", "image_url": {**carried(md, CHAT + "image_url."), "url": url}}
    if part.modality is Modality.AUDIO:
        audio = carried(md, CHAT + "input_audio.")  # a format the MIME type does not say is among them
        audio["data"] = _base64(part)
        fmt = _audio_format(part.mime_type)
        if fmt is not None and "format" not in audio:
            audio["format"] = fmt
        return {**_fields(md), "type": "input_audio", "input_audio": audio}
    raise NormalizeError(f"Chat Completions takes no {part.modality.value.lower()} input")


def _file_entry(part: FilePart) -> JsonDict:
    md, data = part.metadata, part.data
    file = carried(md, CHAT + "file.")
    if part.name is not None:
        file["filename"] = part.name
    if isinstance(data, Handle):
        file["file_id"] = data.value.value
    elif isinstance(data, Uri):
        if not data.value.startswith("data:"):
            raise NormalizeError("Chat Completions cannot send a file by URL; send its bytes")
        file["file_data"] = data.value
    elif isinstance(data, (InlineBytes, InlineText)):  # inline text is the file's contents
        raw, mime = (data.value, _OCTETS) if isinstance(data, InlineBytes) else (data.value.encode("utf-8"), "text/plain")
        text = b64encode(raw)
        file["file_data"] = text if md.get(BARE_KEY) is True else f"data:{part.mime_type or mime};base64,{text}"
    return {**_fields(md), "type": "file", "file": file}


def _arguments_text(part: ToolCallPart) -> JsonValue:
    """The ``arguments`` a call is sent with: the text it came with while that still says its input."""
    md = part.metadata
    raw = md.get(ARGUMENTS_KEY)
    if isinstance(raw, str) and dumps(parse_arguments(raw)[0]) == dumps(part.input):
        return raw
    if isinstance(raw, (dict, list)) and raw == part.input:
        return part.input
    if part.input is None and isinstance(md.get(INPUT_JSON_KEY), str):
        return md[INPUT_JSON_KEY]
    return dumps(part.input)


def _tool_call(part: ToolCallPart) -> JsonDict:
    md = part.metadata
    if md.get(TYPE_KEY) == "custom":
        text = part.input if isinstance(part.input, str) else dumps(part.input)
        body: JsonDict = {**carried(md, CHAT + "custom."), "name": part.name, "input": text}
        return {**_fields(md), "id": part.id.value, "type": "custom", "custom": body}
    body = {**carried(md, CHAT + "function."), "name": part.name, "arguments": _arguments_text(part)}
    return {**_fields(md), "id": part.id.value, "type": "function", "function": body}


def _assistant_message(parts: Sequence[tuple[int, Part]], item: Item) -> JsonDict | None:
    msg: JsonDict = {"role": "assistant"}
    entries: list[tuple[Part, JsonValue]] = []
    refusals: list[str] = []
    calls: list[JsonDict] = []
    reasoning: dict[str, str] = {}
    for j, part in parts:
        md = part.metadata
        try:
            if isinstance(part, ReasoningPart):
                field = md.get(REASONING_FIELD_KEY)
                if PROVIDER_KEY not in md and isinstance(field, str) and field in REASONING_FIELDS and part.summary:
                    reasoning[field] = reasoning.get(field, "") + part.summary
            elif isinstance(part, TextPart) and md.get(REFUSAL_KEY) is True and TYPE_KEY not in md:
                refusals.append(part.text)
            elif isinstance(part, MediaPart) and part.modality is Modality.AUDIO and AUDIO + "id" in md:
                msg["audio"] = carried(md, AUDIO, _AUDIO_RESPONSE_ONLY)  # the server keeps the audio: its id
            elif isinstance(part, ToolCallPart) and md.get(LEGACY_KEY) is True:
                fc = carried(md, CHAT + "function_call.")
                msg["function_call"] = {**fc, "name": part.name, "arguments": _arguments_text(part)}
            elif isinstance(part, ToolCallPart):
                calls.append(_tool_call(part))
            elif isinstance(part, CustomPart) and part.kind == CHAT + "tool_call" and isinstance(part.value, dict):
                calls.append(copy_json(part.value))
            elif isinstance(part, (TextPart, StructuredPart)) or _own_custom(part):
                entry = _entry(part)
                if entry is not None:
                    entries.append((part, entry))
        except NormalizeError as exc:
            raise _under(exc, "parts", f"[{j}]") from None
    msg.update(reasoning)
    if entries:
        msg["content"] = _content_value(entries)
    elif CHAT + "content" in item.metadata:
        msg["content"] = copy_json(item.metadata[CHAT + "content"])
    elif calls or "function_call" in msg:
        msg["content"] = None
    if refusals:
        msg["refusal"] = "".join(refusals)
    if calls:
        msg["tool_calls"] = calls
    msg.update((k, v) for k, v in _fields(item.metadata, _ITEM_MARKERS).items() if k not in msg)
    return msg if len(msg) > 1 else None


def _message(role: str, parts: Sequence[tuple[int, Part]], item: Item) -> JsonDict | None:
    entries: list[tuple[Part, JsonValue]] = []
    for j, part in parts:
        try:
            entry = _entry(part)
        except NormalizeError as exc:
            raise _under(exc, "parts", f"[{j}]") from None
        if entry is not None:
            entries.append((part, entry))
    if entries:
        content = _content_value(entries)
    elif CHAT + "content" in item.metadata:
        content = copy_json(item.metadata[CHAT + "content"])
    else:
        return None
    return {**_fields(item.metadata, _ITEM_MARKERS), "role": role, "content": content}


def _tool_message(
    j: int, part: ToolResultPart, item: Item, calls: Mapping[str, ToolCallPart], media: list[JsonValue]
) -> JsonDict:
    output = part.output
    content: JsonValue
    if isinstance(output, TextOutput):
        content = output.text
    elif isinstance(output, StructuredOutput):
        content = dumps(output.value)
    else:
        inner: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else ()
        inner = output.files if isinstance(output, FilesOutput) else inner
        texts: list[tuple[Part, JsonValue]] = []
        for part_in in inner:
            try:
                entry = _entry(part_in)
            except NormalizeError as exc:
                raise _under(exc, "parts", f"[{j}]") from None
            if entry is None:
                continue
            if isinstance(part_in, (TextPart, StructuredPart)) or _own_custom(part_in):
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
    return {**_fields(item.metadata, _ITEM_MARKERS), **msg}


def request_from_items(items: Iterable[Item]) -> dict[str, Any]:
    """Items -> ``{"messages": [...]}``, the transcript of a Chat Completions request body.

    Raises :class:`NormalizeError` naming the part for content Chat cannot
    send (video, an image held as an artifact handle, a file by URL).
    """
    messages: list[JsonDict] = []
    media: list[JsonValue] = []  # entries of tool results, sent as one user message after the tool messages
    calls: dict[str, ToolCallPart] = {}

    def send(msg: JsonDict | None) -> None:
        if msg is not None:
            if media:
                messages.append({"role": "user", "content": list(media)})
                media.clear()
            messages.append(msg)

    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise NormalizeError(f"request_from_items takes a sequence of items, got {type(items).__name__}")
    for n, item in enumerate(items):
        try:
            if not isinstance(item, Item):
                raise NormalizeError(f"expected an Item, got {type(item).__name__}")
            parts = list(enumerate(item.parts))
            rest = [(j, p) for j, p in parts if not isinstance(p, ToolResultPart)]
            calls.update((p.id.value, p) for _, p in rest if isinstance(p, ToolCallPart))
            if item.kind is ItemKind.ASSISTANT:
                send(_assistant_message(rest, item))
            results = [_tool_message(j, p, item, calls, media) for j, p in parts if isinstance(p, ToolResultPart)]
            messages.extend(results)
            if item.kind is not ItemKind.ASSISTANT and (rest or not results):
                role = item.metadata.get(CHAT + "role")
                send(_message(role if isinstance(role, str) else _KIND_ROLES[item.kind], rest, item))
        except NormalizeError as exc:
            raise _under(exc, "items", f"[{n}]") from None
    if media:
        messages.append({"role": "user", "content": media})
    return {"messages": messages}
