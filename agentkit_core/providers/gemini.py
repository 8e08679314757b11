"""Gemini ``generateContent`` / ``streamGenerateContent`` <-> agentkit values.

Parts (the same table in responses, streams, requests and ``functionResponse.parts``)
------------------------------------------------------------------------------------

==========================================  ===============================================================
native ``Part``                             neutral part
==========================================  ===============================================================
``text``                                    ``TextPart(text)``
``text`` with ``thought: true``             ``ReasoningPart(text)`` with ``gemini.thought: true``
``inlineData`` image/audio/video            ``MediaPart(modality, mimeType, InlineBytes(decoded))``
``inlineData`` other MIME types             ``FilePart(InlineBytes(decoded), mime_type=mimeType, name=displayName)``
``fileData`` image/audio/video              ``MediaPart(modality, mimeType, Uri(fileUri))``
``fileData`` other or no MIME type          ``FilePart(Uri(fileUri), mime_type=mimeType, name=displayName)``
``functionCall``                            ``ToolCallPart(ToolCallId(id), name, args)`` (id: see below)
``functionResponse``                        ``ToolResultPart(call_id, output)``, ``agentkit.tool_name`` = ``name``;
                                            ``response`` alone -> ``StructuredOutput(response)``; with
                                            ``parts`` -> ``PartsOutput((StructuredPart(response), *parts))``;
                                            ``is_error`` when ``response`` holds only ``error``
``executableCode``, ``codeExecutionResult`` ``CustomPart("gemini.executableCode" | "gemini.codeExecutionResult",
                                            value=<the part>)``: code the *server* ran, not a call for the loop
``toolCall``, ``toolResponse``, unknown     ``CustomPart("gemini.<field>", value=<the part>)``, as are parts
parts, parts holding several data fields,   this table cannot map (a ``text`` that is not a string, base64
malformed data                              that is not canonical...)
``thoughtSignature`` (on any part)          ``gemini.thought_signature`` (the exact string) and
                                            ``agentkit.provider: "gemini"`` on the part it came on
any other field of a part                   ``gemini.<field>`` (``videoMetadata``, ``mediaResolution``,
                                            ``partMetadata``, ``audioTranscription``, ``thought: false``...)
other fields of ``inlineData`` /            ``gemini.inlineData.<field>``, ``gemini.fileData.<field>``,
``fileData`` / ``functionCall`` /           ``gemini.functionCall.<field>`` (``partialArgs``, ``willContinue``),
``functionResponse``                        ``gemini.functionResponse.<field>`` (``willContinue``, ``scheduling``)
==========================================  ===============================================================

Custom parts keep the whole native part except its signature, in the
spelling it came in.  Markers steer the rebuild and are never sent as
fields: ``gemini.snake_case`` (the consumed fields the client spelled in
snake_case, as camelCase paths: ``["inlineData", "inlineData.mimeType"]``;
python-genai sends such mixes), ``gemini.omitted`` (native fields that were
absent although the part has a value: ``functionCall.args`` -> ``{}``,
``functionResponse.response`` -> ``{}``; on an item, ``role``) and
``gemini.base64: "urlsafe"`` (inline data sent in URL-safe base64).

Function-call ids.  ``functionCall.id`` is optional (Gemini 2.x and most
streams leave it out).  Decoding a response or a stream calls
``new_call_id()`` once for each call without an id and uses what it returns
as the call's id, sent back like an id the server chose.  Without
``new_call_id`` the adapter invents an id (``call_`` + 24 hex digits) and
marks the call ``agentkit.invented_id: true``: an invented id is never sent.
:func:`items_from_request` always invents, and gives each ``functionResponse``
without an id the id of the call it answers (the first unanswered call of
that ``name``, in conversation order), marked invented too.

Contents and items
------------------

* ``systemInstruction`` (or ``system_instruction``) -> one SYSTEM item.
* ``role: "model"`` -> ASSISTANT; any other role (``"user"``, the legacy
  ``"function"``, none) -> USER, or TOOL when the content holds a
  ``functionResponse``: its parts keep the native order, so text sent with the
  results stays in place.
* Fields of a content are item metadata ``gemini.content.<field>``
  (``gemini.content.role``: the role as sent); a content without ``role``
  has the item marker ``gemini.omitted: ["role"]``.

Responses
---------

=======================================  ===========================================================
native field                             neutral field
=======================================  ===========================================================
``candidates[i]``                        one ASSISTANT item each (``n > 1``: in ``index`` order)
``candidates[i].content``                ``Item.parts`` (table above); ``role`` -> ``gemini.content.role``
``candidates[i].finishReason``           ``Item.finish_reason`` (below); verbatim in ``agentkit.finish_reason``
other candidate fields                   item metadata ``gemini.<field>``: ``index``, ``safetyRatings``,
                                         ``citationMetadata``, ``groundingMetadata``, ``finishMessage``,
                                         ``avgLogprobs``, ``logprobsResult``, ``urlContextMetadata``...
``responseId``                           ``Item.id`` (``MessageId``), on every candidate's item
``createTime``                           ``Item.created_at`` (milliseconds) and, verbatim, ``gemini.createTime``
``usageMetadata``                        ``Item.usage`` of the first item only (it covers every candidate)
other response fields                    item metadata ``gemini.<field>``: ``modelVersion``,
                                         ``promptFeedback``, ``modelStatus``... (a candidate field
                                         of the same name wins)
no candidates                            one ASSISTANT item without parts; ``promptFeedback.blockReason``
                                         (a prompt blocked before generation) -> ``BLOCKED``, the reason
                                         in ``agentkit.finish_reason``
=======================================  ===========================================================

Usage (``agentkit_core.usage`` conventions; the native object verbatim in
``Usage.metadata["gemini.usage"]``, per-modality details included):
``input_tokens = promptTokenCount + toolUsePromptTokenCount`` (the prompt
includes ``cachedContentTokenCount``; tool-use prompts, such as code
execution output read back, are input the model reads and are billed as
input), ``cached_input_tokens = cachedContentTokenCount``,
``output_tokens = candidatesTokenCount + thoughtsTokenCount`` (candidates
exclude thoughts), ``reasoning_tokens = thoughtsTokenCount``.  So
``total_tokens == totalTokenCount``.  A breakdown not reported stays ``None``.

Finish reasons:

================================================================  ===================================
``finishReason`` / ``blockReason``                                ``FinishReason``
================================================================  ===================================
``STOP``                                                          ``COMPLETED``; ``TOOL_CALL`` when the
                                                                  candidate holds a ``functionCall``
``MAX_TOKENS``                                                    ``MAX_TOKENS``
``SAFETY``, ``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``,  ``BLOCKED``
``SPII``, ``IMAGE_SAFETY``, ``IMAGE_PROHIBITED_CONTENT``,
``IMAGE_RECITATION``, ``MODEL_ARMOR``; any ``blockReason``
``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``,             ``ERROR``
``TOO_MANY_TOOL_CALLS``; a stream's ``error`` event
``LANGUAGE``, ``OTHER``, ``NO_IMAGE``, ``IMAGE_OTHER``,             ``FinishReason.other(raw)``
``FINISH_REASON_UNSPECIFIED``, anything else
absent (a stream cut short)                                       ``None``
================================================================  ===================================

Streams
-------

Chunks have no part boundaries.  A text part opens with its first chunk and
grows by ``AppendText``; a new part opens when the kind changes (``thought``
flips) or when a chunk's ``thoughtSignature`` cannot belong to the open part:
it joins the open part only when that part has no signature yet and one of
the two has no text (Gemini 3 may send an answer's signature in a last chunk
with empty text; the first answer chunk of Gemini 2.5 opens a part).  Any other part (a ``functionCall``, media, code, unknown)
arrives whole: ``BeginPart``, the fold's header keys, ``CommitPart``, and it
closes the open text part.  Part ids are ``part-<candidate>-<n>``.  The chunk
with a ``finishReason`` commits every part of its candidate; the decoder keeps
the latest ``usageMetadata`` snapshot (``usage``, live) and the finish reason
(``finish_reason``, live, of the first candidate).  Response and candidate
fields of later chunks overwrite earlier ones.  A stream folds to the item the
non-streaming response holding the same content gives.  ``partialArgs`` /
``willContinue`` function-call fragments (Vertex only) are not reassembled:
each chunk's call is its own part, the fields kept as metadata.

Requests (``request_from_items``)
---------------------------------

SYSTEM and DEVELOPER items -> ``systemInstruction`` (one content, parts in
order; written with its original spelling and role); ASSISTANT -> ``role:
"model"``, every other kind -> ``role: "user"`` (``gemini.content.role`` wins),
one content per item; a content whose parts all drop is left out.  Ids go back
as the transcript holds them, except invented ones; a ``functionResponse``
takes its ``name`` from ``agentkit.tool_name`` or from the call earlier in the
transcript (``NormalizeError`` when neither exists), and drops its id when the
call's id was invented.  ``StructuredOutput`` that is not an object, and
``TextOutput``, go as ``{"output": ...}`` (``{"error": ...}`` when
``is_error``); a ``PartsOutput`` that does not start with an object
``StructuredPart`` as ``{"output": <its text>}`` plus its media as ``parts``,
``FilesOutput`` as ``{}`` plus its files.  ``StructuredPart`` goes as JSON text.

Foreign state.  Whose a part is: its ``agentkit.provider`` when set, else
Gemini's when it has ``gemini.*`` metadata.  A ``gemini.thought_signature`` is
sent only on Gemini's parts.  Reasoning that is not Gemini's (Anthropic
thinking, OpenAI encrypted reasoning, neutral summaries) and other providers'
custom parts are dropped: Gemini cannot verify them.  The first
``functionCall`` of an assistant item that did not come from Gemini (no
``gemini.*`` metadata on it or its parts) gets the documented placeholder signature ``skip_thought_signature_validator``
(:data:`SKIP_SIGNATURE`), which Gemini 3 requires on every step of the current
turn and earlier models accept.  Artifact handles cannot be sent
(``NormalizeError``).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, Sequence

from .. import (
    FINISH_REASON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FilePart,
    FilesOutput,
    FinishReason,
    FoldState,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    MessageId,
    Modality,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    PartsOutput,
    ReasoningPart,
    SetMetadata,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    Timestamp,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    Usage,
    fold_all,
)
from ._common import JsonDict, b64decode, b64encode, carried, carry, copy_json, count, dumps, events_from_sse, header, invent_id

__all__ = (
    "GeminiStreamDecoder",
    "SKIP_SIGNATURE",
    "events_from_sse",
    "finish_reason",
    "items_from_request",
    "items_from_response",
    "items_from_stream",
    "request_from_items",
    "stream_decoder",
    "usage_from_native",
)

#: The placeholder signature Google documents for function calls that did not come from Gemini.
SKIP_SIGNATURE = "skip_thought_signature_validator"

NS = "gemini."
CONTENT = NS + "content."
SIGNATURE = NS + "thought_signature"
SNAKE = NS + "snake_case"
OMITTED = NS + "omitted"
BASE64 = NS + "base64"
#: ``gemini.*`` part keys that are markers or the signature, never native fields of the part.
_MARKERS = ("thought_signature", "snake_case", "omitted", "base64")

NewCallId = Callable[[], str]

# -- spelling ---------------------------------------------------------------------------


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _field(native: Mapping[str, Any], camel: str) -> str | None:
    """The key ``native`` spells the field ``camel`` with (camelCase first, then snake_case), or ``None``."""
    if camel in native:
        return camel
    snake = _snake(camel)
    return snake if snake in native else None


def _paths(metadata: Mapping[str, JsonValue], key: str) -> list[str]:
    value = metadata.get(key)
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []


def _split(paths: Iterable[str]) -> tuple[set[str], dict[str, list[str]]]:
    top: set[str] = set()
    nested: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        if rest:
            nested.setdefault(head, []).append(rest)
        else:
            top.add(head)
    return top, nested


def _respell(native: JsonDict, paths: Iterable[str]) -> JsonDict:
    """``native`` with the fields at ``paths`` (camelCase) renamed to snake_case, order kept."""
    top, nested = _split(paths)
    for head, rest in nested.items():
        if isinstance(native.get(head), dict):
            native[head] = _respell(native[head], rest)
    return {(_snake(k) if k in top else k): v for k, v in native.items()} if top else native


def _omit(native: JsonDict, paths: Iterable[str]) -> None:
    top, nested = _split(paths)
    for head, rest in nested.items():
        if isinstance(native.get(head), dict):
            _omit(native[head], rest)
    for name in top:
        native.pop(name, None)


class _Marks:
    """What decoding one native object noted for its rebuild: snake_case spellings, omitted fields."""

    def __init__(self) -> None:
        self.snake: list[str] = []
        self.omitted: list[str] = []

    def key(self, native: Mapping[str, Any], camel: str, path: str = "") -> str | None:
        key = _field(native, camel)
        if key is not None and key != camel:
            self.snake.append(path + camel)
        return key

    def metadata(self) -> dict[str, JsonValue]:
        found: dict[str, JsonValue] = {}
        if self.snake:
            found[SNAKE] = list(self.snake)
        if self.omitted:
            found[OMITTED] = list(self.omitted)
        return found


# -- finish reasons, usage, time --------------------------------------------------------

_FINISH: dict[str, FinishReason] = {
    "STOP": FinishReason.COMPLETED,
    "MAX_TOKENS": FinishReason.MAX_TOKENS,
    **dict.fromkeys(
        (
            "SAFETY",
            "RECITATION",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
            "MODEL_ARMOR",
        ),
        FinishReason.BLOCKED,
    ),
    **dict.fromkeys(("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"), FinishReason.ERROR),
}


def finish_reason(raw: str | None, *, tool_call: bool = False) -> FinishReason | None:
    """A native ``finishReason`` as a :class:`FinishReason`; ``tool_call``: the candidate holds a ``functionCall``."""
    if raw is None:
        return None
    reason = _FINISH.get(raw) or FinishReason.other(raw)
    return FinishReason.TOOL_CALL if tool_call and reason == FinishReason.COMPLETED else reason


def usage_from_native(usage: Mapping[str, Any]) -> Usage:
    """A native ``usageMetadata`` object as :class:`Usage` (conventions in the module docstring)."""
    prompt, tool = count(usage.get("promptTokenCount")), count(usage.get("toolUsePromptTokenCount"))
    candidates, thoughts = count(usage.get("candidatesTokenCount")), count(usage.get("thoughtsTokenCount"))
    tokens = None
    if (prompt, tool, candidates, thoughts) != (None, None, None, None):
        tokens = TokenUsage(
            (prompt or 0) + (tool or 0),
            (candidates or 0) + (thoughts or 0),
            reasoning_tokens=thoughts,
            cached_input_tokens=count(usage.get("cachedContentTokenCount")),
        )
    return Usage(tokens, metadata={NS + "usage": copy_json(dict(usage))})


#: RFC 3339 as protobuf writes ``Timestamp``: date, time, 0 to 9 fraction digits, ``Z`` or an offset.
_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))\Z"
)


def _millis(text: object) -> Timestamp | None:
    """An RFC 3339 time (``2025-06-01T12:00:00.123456Z``) in milliseconds since the epoch, if it is one."""
    import datetime

    match = _TIME.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    offset = 0 if match[8] else (int(match[10]) * 60 + int(match[11])) * (1 if match[9] == "+" else -1)
    try:
        zone = datetime.timezone(datetime.timedelta(minutes=offset))
        moment = datetime.datetime(year, month, day, hour, minute, second, tzinfo=zone)
    except ValueError:
        return None
    since = moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    millis = (since.days * 86400 + since.seconds) * 1000 + int((match[7] or "0").ljust(3, "0")[:3])
    return Timestamp(millis) if millis >= 0 else None


# -- native part -> part ----------------------------------------------------------------


class _Calls:
    """Ids of the function calls of one decode: given, from ``new_call_id``, or invented."""

    def __init__(self, new_call_id: NewCallId | None = None) -> None:
        self._new = new_call_id
        self._pending: dict[str, list[str]] = {}

    def call(self, native_id: str | None, name: str) -> tuple[str, bool]:
        """The id of a ``functionCall``, and whether the adapter invented it."""
        invented = False
        if native_id is None:
            if self._new is None:
                native_id, invented = invent_id("call_"), True
            else:
                native_id = self._new()
                if not isinstance(native_id, str):
                    raise NormalizeError(f"new_call_id() returned {type(native_id).__name__}, expected a string")
        self._pending.setdefault(name, []).append(native_id)
        return native_id, invented

    def answer(self, native_id: str | None, name: str) -> tuple[str, bool]:
        """The call id a ``functionResponse`` answers, and whether the native response lacked it."""
        pending = self._pending.get(name, [])
        if native_id is not None:
            if native_id in pending:
                pending.remove(native_id)
            return native_id, False
        return (pending.pop(0) if pending else invent_id("call_")), True


_MODALITIES = {"image": Modality.IMAGE, "audio": Modality.AUDIO, "video": Modality.VIDEO}


def _media(field: str, mime: str | None, data: InlineBytes | Uri, obj: JsonDict, consumed: list[str], marks: _Marks) -> Part:
    modality = _MODALITIES.get(mime.partition("/")[0].lower()) if mime is not None else None
    if modality is not None and mime is not None:
        return MediaPart(modality, mime, data, metadata=carry(obj, consumed, f"{NS}{field}."))
    name_key = _field(obj, "displayName")
    name = obj.get(name_key) if name_key else None
    if isinstance(name, str) and name_key is not None:
        marks.key(obj, "displayName", field + ".")
        consumed.append(name_key)
    else:  # absent, or carried as it is (its spelling then needs no marker)
        name = None
    return FilePart(data, name=name, mime_type=mime, metadata=carry(obj, consumed, f"{NS}{field}."))


def _inline_data(native: JsonDict, key: str, marks: _Marks, calls: _Calls) -> Part | None:
    blob = native[key]
    if not isinstance(blob, dict):
        return None
    mime_key = _field(blob, "mimeType")
    mime, data = blob.get(mime_key) if mime_key else None, blob.get("data")
    if not isinstance(mime, str) or not isinstance(data, str):
        return None
    raw, urlsafe = b64decode(data), False
    if raw is None:
        raw, urlsafe = b64decode(data, urlsafe=True), True
    if raw is None or mime_key is None:
        return None
    marks.key(native, "inlineData")
    marks.key(blob, "mimeType", "inlineData.")
    part = _media("inlineData", mime, InlineBytes(raw), blob, [mime_key, "data"], marks)
    return part.with_metadata(part.metadata.merged({BASE64: "urlsafe"})) if urlsafe else part


def _file_data(native: JsonDict, key: str, marks: _Marks, calls: _Calls) -> Part | None:
    file = native[key]
    if not isinstance(file, dict):
        return None
    uri_key, mime_key = _field(file, "fileUri"), _field(file, "mimeType")
    uri, mime = file.get(uri_key) if uri_key else None, file.get(mime_key) if mime_key else None
    if not isinstance(uri, str) or uri_key is None or not isinstance(mime, (str, type(None))):
        return None
    marks.key(native, "fileData")
    marks.key(file, "fileUri", "fileData.")
    consumed = [uri_key]
    if mime is not None and mime_key is not None:  # a null MIME type is carried as sent
        marks.key(file, "mimeType", "fileData.")
        consumed.append(mime_key)
    return _media("fileData", mime, Uri(uri), file, consumed, marks)


def _text(native: JsonDict, key: str, marks: _Marks, calls: _Calls) -> Part | None:
    text = native[key]
    if not isinstance(text, str):
        return None
    return ReasoningPart(text) if native.get("thought") is True else TextPart(text)


def _function_call(native: JsonDict, key: str, marks: _Marks, calls: _Calls) -> Part | None:
    call = native[key]
    if not isinstance(call, dict):
        return None
    name, native_id = call.get("name"), call.get("id")
    if not isinstance(name, str) or not isinstance(native_id, (str, type(None))):
        return None
    marks.key(native, "functionCall")
    if "args" not in call:
        marks.omitted.append("functionCall.args")
    call_id, invented = calls.call(native_id, name)
    metadata = carry(call, ("name", "args") if native_id is None else ("id", "name", "args"), NS + "functionCall.")
    if invented:
        metadata[INVENTED_ID_KEY] = True
    return ToolCallPart(ToolCallId(call_id), name, copy_json(call.get("args", {})), metadata=metadata)


def _function_response(native: JsonDict, key: str, marks: _Marks, calls: _Calls) -> Part | None:
    result = native[key]
    if not isinstance(result, dict):
        return None
    name, native_id, response = result.get("name"), result.get("id"), result.get("response", {})
    if not isinstance(name, str) or not isinstance(native_id, (str, type(None))) or not isinstance(response, dict):
        return None
    output: StructuredOutput | PartsOutput = StructuredOutput(copy_json(response))
    if "parts" in result:
        nested = result["parts"]
        if not isinstance(nested, list) or not all(isinstance(p, dict) for p in nested):
            return None
        output = PartsOutput((StructuredPart(copy_json(response)), *(_part(p, calls, _NESTED) for p in nested)))
    marks.key(native, "functionResponse")
    if "response" not in result:
        marks.omitted.append("functionResponse.response")
    call_id, invented = calls.answer(native_id, name)
    consumed = ("name", "response", "parts") if native_id is None else ("id", "name", "response", "parts")
    metadata = carry(result, consumed, NS + "functionResponse.")
    metadata[TOOL_NAME_KEY] = name
    if invented:
        metadata[INVENTED_ID_KEY] = True
    return ToolResultPart(ToolCallId(call_id), output, is_error=set(response) == {"error"}, metadata=metadata)


_Decoder = Callable[[JsonDict, str, _Marks, _Calls], "Part | None"]
_PARTS: dict[str, _Decoder] = {
    "text": _text,
    "inlineData": _inline_data,
    "fileData": _file_data,
    "functionCall": _function_call,
    "functionResponse": _function_response,
}
#: What a ``FunctionResponsePart`` may hold.
_NESTED: dict[str, _Decoder] = {"inlineData": _inline_data, "fileData": _file_data}
#: Data fields this adapter keeps as custom parts (server-side tools); anything unknown joins them.
_SERVER = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
#: Fields that qualify a part's data rather than being it.
_QUALIFIERS = frozenset(
    k for f in ("thought", "thoughtSignature", "videoMetadata", "mediaResolution", "partMetadata") for k in (f, _snake(f))
)


def _part(native: JsonDict, calls: _Calls, table: Mapping[str, _Decoder] = _PARTS) -> Part:
    """One native ``Part`` (or ``FunctionResponsePart``) as a neutral part."""
    sig_key = _field(native, "thoughtSignature")
    signature = native.get(sig_key) if sig_key else None
    signed: dict[str, JsonValue] = {SIGNATURE: signature, PROVIDER_KEY: "gemini"} if isinstance(signature, str) else {}
    found = [(camel, key) for camel in table for key in (_field(native, camel),) if key is not None]
    if len(found) == 1 and (sig_key is None or signed) and not any(_field(native, camel) for camel in _SERVER):
        camel, key = found[0]
        marks = _Marks()
        part = table[camel](native, key, marks, calls)
        if part is not None:
            metadata = carry(native, (key, sig_key or key), NS)
            metadata.update(part.metadata)
            if sig_key not in (None, "thoughtSignature"):
                marks.snake.append("thoughtSignature")
            metadata.update(marks.metadata())
            metadata.update(signed)
            return part.with_metadata(metadata)
    # Kept whole, but for a string signature, which lives where every signature does.
    if signed and sig_key != "thoughtSignature":
        signed[SNAKE] = ["thoughtSignature"]
    kind = next((k for k in native if k not in _QUALIFIERS), "part")
    value = {k: copy_json(v) for k, v in native.items() if not (signed and k == sig_key)}
    return CustomPart(NS + _camel(kind), value=value, metadata=signed)


def _parts(content: JsonDict, calls: _Calls, path: str) -> list[Part]:
    native = content.get("parts")
    if native is None:
        return []
    if not isinstance(native, list):
        raise NormalizeError("expected an array of parts", f"{path}.parts")
    parts = []
    for i, part in enumerate(native):
        if not isinstance(part, dict):
            raise NormalizeError("expected a part object", f"{path}.parts[{i}]")
        parts.append(_part(part, calls))
    return parts


# -- part -> native part ----------------------------------------------------------------


def _extend(native: JsonDict, carried_fields: Mapping[str, Any]) -> None:
    """Add the carried fields ``native`` does not have: metadata never overwrites what the part says."""
    for key, value in carried_fields.items():
        native.setdefault(key, value)


def _from_gemini(metadata: Mapping[str, JsonValue]) -> bool:
    """Whether metadata says Gemini made its owner: ``agentkit.provider`` if set, else any ``gemini.*`` key."""
    provider = metadata.get(PROVIDER_KEY)
    return provider == "gemini" if provider is not None else any(k.startswith(NS) for k in metadata)


def _media_native(part: MediaPart | FilePart) -> JsonDict:
    metadata, data, mime = part.metadata, part.data, part.mime_type
    obj: JsonDict
    if isinstance(data, Uri):
        field, obj = "fileData", {"fileUri": data.value}
        if mime is not None:
            obj["mimeType"] = mime
    elif isinstance(data, InlineBytes):
        field, obj = "inlineData", {"mimeType": "application/octet-stream" if mime is None else mime}
        obj["data"] = b64encode(data.value, urlsafe=metadata.get(BASE64) == "urlsafe")
    elif isinstance(data, InlineText):
        # Media held as text is base64 already; a file's text is its content (text/* or no MIME type).
        text = data.value
        if isinstance(part, FilePart) and (mime is None or mime.startswith("text/")):
            text = b64encode(text.encode("utf-8"))
        field, obj = "inlineData", {"mimeType": "text/plain" if mime is None else mime, "data": text}
    else:
        raise NormalizeError(f"cannot send a {type(part).__name__} held as an artifact handle to Gemini: resolve it first")
    if isinstance(part, FilePart) and part.name is not None:
        obj["displayName"] = part.name
    _extend(obj, carried(metadata, f"{NS}{field}."))
    return {field: obj}


class _Encoder:
    """Builds native parts for one transcript, remembering its function calls."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, bool]] = {}

    def part(self, part: Part) -> JsonDict | None:
        """``part`` as a native part, or ``None`` when it is another provider's state (dropped)."""
        metadata = part.metadata
        native: JsonDict
        if isinstance(part, TextPart):
            native = {"text": part.text}
        elif isinstance(part, ReasoningPart):
            if not _from_gemini(metadata):
                return None
            native = {} if part.summary is None else {"text": part.summary}
        elif isinstance(part, ToolCallPart):
            native = {"functionCall": self._call(part)}
        elif isinstance(part, ToolResultPart):
            native = {"functionResponse": self._result(part)}
        elif isinstance(part, (MediaPart, FilePart)):
            native = _media_native(part)
        elif isinstance(part, StructuredPart):
            native = {"text": dumps(part.value)}
        elif isinstance(part, CustomPart):
            if not part.kind.startswith(NS) or not isinstance(part.value, dict):
                return None
            native = copy_json(part.value)
        else:  # pragma: no cover - every Part variant is handled above
            raise NormalizeError(f"cannot send a {type(part).__name__} to Gemini")
        if not isinstance(part, CustomPart):
            _extend(native, carried(metadata, NS, _MARKERS))
        signature = metadata.get(SIGNATURE)
        if isinstance(signature, str) and metadata.get(PROVIDER_KEY, "gemini") == "gemini":
            native["thoughtSignature"] = signature
        _omit(native, _paths(metadata, OMITTED))
        return _respell(native, _paths(metadata, SNAKE))

    def _call(self, part: ToolCallPart) -> JsonDict:
        invented = part.metadata.get(INVENTED_ID_KEY) is True
        self.calls[part.id.value] = (part.name, invented)
        call: JsonDict = {"name": part.name, "args": copy_json(part.input)}
        _extend(call, carried(part.metadata, NS + "functionCall."))  # an "id": null sent by the client included
        if not invented:
            call["id"] = part.id.value
        return call

    def _result(self, part: ToolResultPart) -> JsonDict:
        metadata, call_id = part.metadata, part.call_id.value
        known = self.calls.get(call_id)
        name = metadata.get(TOOL_NAME_KEY)
        if not isinstance(name, str):
            if known is None:
                raise NormalizeError(
                    f"the result of call {call_id!r} needs the function's name: "
                    "set agentkit.tool_name on it, or keep the call earlier in the transcript"
                )
            name = known[0]
        result: JsonDict = {"name": name}
        result["response"], media = self._response(part)
        if media is not None:
            result["parts"] = media
        _extend(result, carried(metadata, NS + "functionResponse."))  # an "id": null sent by the client included
        if metadata.get(INVENTED_ID_KEY) is not True and not (known and known[1]):
            result["id"] = call_id
        return result

    def _response(self, part: ToolResultPart) -> tuple[JsonDict, list[JsonDict] | None]:
        output, key = part.output, "error" if part.is_error else "output"
        if isinstance(output, StructuredOutput):
            value = output.value
            return (copy_json(value) if isinstance(value, dict) else {key: copy_json(value)}), None
        if isinstance(output, TextOutput):
            return {key: output.text}, None
        if isinstance(output, FilesOutput):
            rest: Sequence[Part] = output.files
        elif isinstance(output, PartsOutput):
            rest = output.parts
        else:  # pragma: no cover - every ToolOutput variant is handled
            raise NormalizeError(f"cannot send a {type(output).__name__} to Gemini")
        response: JsonDict = {}
        if rest and isinstance(rest[0], StructuredPart) and isinstance(rest[0].value, dict):
            response, rest = copy_json(rest[0].value), rest[1:]
        else:
            text = "".join(p.text for p in rest if isinstance(p, TextPart))
            rest = [p for p in rest if not isinstance(p, TextPart)]
            if text:
                response = {key: text}
        media = []
        for p in rest:
            native = self.part(p) if isinstance(p, (MediaPart, FilePart, CustomPart)) else None
            if native is None:
                raise NormalizeError(f"cannot send a {type(p).__name__} inside a Gemini function response")
            media.append(native)
        return response, media


# -- responses ----------------------------------------------------------------------------


def _candidate_item(
    response: Mapping[str, Any],
    candidate: Mapping[str, Any],
    content: Mapping[str, Any],
    parts: Sequence[Part],
    usage: Usage | None,
    *,
    prompt_only: bool = False,
) -> Item:
    """One candidate's ASSISTANT item (``parts`` already decoded); ``prompt_only``: there is no candidate."""
    metadata = carry(response, ("candidates", "usageMetadata", "responseId"), NS)
    metadata.update(carry(candidate, ("content", "finishReason"), NS))
    metadata.update(carry(content, ("parts",), CONTENT))
    raw = candidate.get("finishReason")
    if prompt_only:
        feedback = response.get("promptFeedback")
        raw = feedback.get("blockReason") if isinstance(feedback, dict) else None
        if isinstance(raw, str):
            metadata[FINISH_REASON_KEY] = raw
            reason: FinishReason | None = FinishReason.BLOCKED
        else:
            reason = None
    elif isinstance(raw, str):
        metadata[FINISH_REASON_KEY] = raw
        reason = finish_reason(raw, tool_call=any(isinstance(p, ToolCallPart) for p in parts))
    else:
        reason = None
    response_id = response.get("responseId")
    return Item(
        ItemKind.ASSISTANT,
        parts,
        id=MessageId(response_id) if isinstance(response_id, str) else None,
        metadata=metadata,
        usage=usage,
        finish_reason=reason,
        created_at=_millis(response.get("createTime")),
    )


def _usage(native: Mapping[str, Any]) -> Usage | None:
    usage = native.get("usageMetadata")
    if usage is None:
        return None
    if not isinstance(usage, dict):
        raise NormalizeError("expected an object", "usageMetadata")
    return usage_from_native(usage)


def _object(value: object, path: str, *, optional: bool = False) -> JsonDict:
    """``value`` if it is a JSON object (``None`` as ``{}`` when ``optional``), else :class:`NormalizeError`."""
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise NormalizeError(f"expected an object, found {type(value).__name__}", path)
    return value


def _candidates(native: Mapping[str, Any]) -> list[tuple[int, JsonDict, JsonDict]]:
    """``(index, candidate, content)`` of every candidate, in ``index`` order, their shapes checked."""
    found = native.get("candidates")
    if found is None:
        return []
    if not isinstance(found, list):
        raise NormalizeError("expected an array", "candidates")
    checked = []
    for i, candidate in enumerate(found):
        path = f"candidates[{i}]"
        candidate = _object(candidate, path)
        index, raw = candidate.get("index", 0), candidate.get("finishReason")
        if type(index) is not int:
            raise NormalizeError(f"expected an integer, found {type(index).__name__}", f"{path}.index")
        if raw is not None and not isinstance(raw, str):
            raise NormalizeError(f"expected a string, found {type(raw).__name__}", f"{path}.finishReason")
        content = _object(candidate.get("content"), f"{path}.content", optional=True)
        parts = content.get("parts")
        if parts is not None and not isinstance(parts, list):
            raise NormalizeError("expected an array of parts", f"{path}.content.parts")
        for j, part in enumerate(parts or ()):
            _object(part, f"{path}.content.parts[{j}]")
        checked.append((index, candidate, content))
    return sorted(checked, key=lambda found: found[0])


def items_from_response(body: Mapping[str, Any], *, new_call_id: NewCallId | None = None) -> list[Item]:
    """A ``GenerateContentResponse`` body as items: one ASSISTANT item per candidate, in ``index`` order.

    ``new_call_id`` names function calls that arrive without an id (see the
    module docstring); without it the adapter invents ids.
    """
    response = _object(body, "")
    usage = _usage(response)
    candidates = _candidates(response)
    if not candidates:
        return [_candidate_item(response, {}, {}, (), usage, prompt_only=True)]
    calls = _Calls(new_call_id)
    items = []
    for n, (_, candidate, content) in enumerate(candidates):
        parts = [_part(p, calls) for p in content.get("parts") or ()]
        items.append(_candidate_item(response, candidate, content, parts, usage if n == 0 else None))
    return items


# -- streams ------------------------------------------------------------------------------


class _Candidate:
    """What a stream told about one candidate so far."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.fields: JsonDict = {}  # candidate fields but content, latest value each
        self.content: JsonDict = {}  # content fields but parts
        self.count = 0  # parts begun
        self.open: _Open | None = None  # the text or thought part still growing
        self.call = False  # a functionCall arrived


class _Open:
    """A streaming text part: its id, the native part so far, and that part decoded."""

    def __init__(self, part_id: PartId, native: JsonDict, part: TextPart | ReasoningPart) -> None:
        self.part_id, self.native, self.part = part_id, native, part


def _text_of(part: TextPart | ReasoningPart) -> str:
    return part.text if isinstance(part, TextPart) else part.summary or ""


class GeminiStreamDecoder:
    """Turns the chunks of one ``streamGenerateContent`` stream into deltas; :meth:`finish` builds the item.

    ``usage`` is the latest usage snapshot the stream sent (``None`` before
    any) and ``finish_reason`` the first candidate's finish reason (``None``
    until known); both change while the stream runs.
    """

    def __init__(self, new_call_id: NewCallId | None = None) -> None:
        self.usage: Usage | None = None
        self.finish_reason: FinishReason | None = None
        self._calls = _Calls(new_call_id)
        self._response: JsonDict = {}
        self._candidates: dict[int, _Candidate] = {}
        self._owners: list[int] = []  # candidate index of every part, in the order parts began
        self._error: JsonDict | None = None

    def feed(self, event: Mapping[str, Any]) -> list[Delta]:
        """The deltas one chunk (a parsed ``data:`` payload) stands for."""
        chunk = _object(event, "")
        deltas: list[Delta] = []
        if "error" in chunk and "candidates" not in chunk:
            self._error = _object(copy_json(chunk["error"]), "error")
            for opened in self._candidates.values():
                self._close(opened, deltas)
            return deltas
        usage = _usage(chunk)
        candidates = _candidates(chunk)  # checked before anything changes
        self._response.update((k, copy_json(v)) for k, v in chunk.items() if k not in ("candidates", "usageMetadata"))
        if usage is not None:
            self.usage = usage
        for index, native, content in candidates:
            candidate = self._candidates.get(index)
            if candidate is None:
                candidate = self._candidates[index] = _Candidate(index)
            candidate.fields.update((k, copy_json(v)) for k, v in native.items() if k != "content")
            candidate.content.update((k, copy_json(v)) for k, v in content.items() if k != "parts")
            for part in content.get("parts") or ():
                self._part(candidate, part, deltas)
            if native.get("finishReason") is not None:
                self._close(candidate, deltas)
        first = self._first()
        if first is not None and isinstance(first.fields.get("finishReason"), str):
            self.finish_reason = finish_reason(first.fields["finishReason"], tool_call=first.call)
        elif first is None and not candidates:
            feedback = self._response.get("promptFeedback")
            if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
                self.finish_reason = FinishReason.BLOCKED
        return deltas

    def _first(self) -> _Candidate | None:
        return self._candidates[min(self._candidates)] if self._candidates else None

    def _begin(self, candidate: _Candidate, kind: PartKind, deltas: list[Delta]) -> PartId:
        pid = PartId(f"part-{candidate.index}-{candidate.count}")
        candidate.count += 1
        self._owners.append(candidate.index)
        deltas.append(BeginPart(pid, kind))
        return pid

    def _part(self, candidate: _Candidate, native: JsonDict, deltas: list[Delta]) -> None:
        part = _part(native, self._calls)
        if not isinstance(part, (TextPart, ReasoningPart)):  # arrives whole
            self._close(candidate, deltas)
            candidate.call = candidate.call or isinstance(part, ToolCallPart)
            pid = self._begin(candidate, part.part_kind, deltas)
            if header(part):
                deltas.append(SetMetadata(pid, header(part)))
            deltas.append(CommitPart(part, part_id=pid))
            return
        text = _text_of(part)
        opened = candidate.open
        if opened is not None and type(opened.part) is type(part):
            # A signature with text of its own starts a part; an empty chunk's joins the open one if it has none.
            signed, open_signed = SIGNATURE in part.metadata, SIGNATURE in opened.part.metadata
            if not signed or (not open_signed and (text == "" or _text_of(opened.part) == "")):
                whole = copy_json(opened.native)
                whole.update((k, copy_json(v)) for k, v in native.items() if k != "text")
                whole["text"] = _text_of(opened.part) + text
                grown = _part(whole, self._calls)
                if type(grown) is type(part):
                    if grown.metadata != opened.part.metadata:
                        deltas.append(SetMetadata(opened.part_id, grown.metadata))
                    if text:
                        deltas.append(AppendText(opened.part_id, text))
                    opened.native, opened.part = whole, grown
                    return
        self._close(candidate, deltas)
        pid = self._begin(candidate, part.part_kind, deltas)
        if part.metadata:
            deltas.append(SetMetadata(pid, part.metadata))
        if text:
            deltas.append(AppendText(pid, text))
        candidate.open = _Open(pid, copy_json(native), part)

    def _close(self, candidate: _Candidate, deltas: list[Delta]) -> None:
        opened = candidate.open
        if opened is not None:
            candidate.open = None
            deltas.append(CommitPart(opened.part, part_id=opened.part_id))

    def finish(self, parts: Sequence[Part]) -> Item:
        """The first candidate's ASSISTANT item: the folded ``parts`` plus what the chunks carried."""
        return self.finish_all(parts)[0]

    def finish_all(self, parts: Sequence[Part]) -> list[Item]:
        """One ASSISTANT item per candidate, in ``index`` order, from the folded ``parts`` of the whole stream."""
        if len(self._candidates) > 1 and len(parts) == len(self._owners):
            owned: dict[int, list[Part]] = {}
            for owner, part in zip(self._owners, parts):
                owned.setdefault(owner, []).append(part)
        else:
            first = self._first()
            owned = {first.index if first else 0: list(parts)}
        if not self._candidates:
            candidates = [_Candidate(0)] if parts else []
        else:
            candidates = [self._candidates[i] for i in sorted(self._candidates)]
        items = []
        for n, candidate in enumerate(candidates):
            parts_of = owned.get(candidate.index, ())
            item = _candidate_item(self._response, candidate.fields, candidate.content, parts_of, self.usage if n == 0 else None)
            items.append(self._with_error(item))
        if not items:
            items.append(self._with_error(_candidate_item(self._response, {}, {}, (), self.usage, prompt_only=True)))
        return items

    def _with_error(self, item: Item) -> Item:
        if self._error is None:
            return item
        item = item.with_metadata(item.metadata.merged({NS + "error": copy_json(self._error)}))
        return item if item.finish_reason is not None else item.with_finish_reason(FinishReason.ERROR)


def stream_decoder(*, new_call_id: NewCallId | None = None) -> GeminiStreamDecoder:
    """A decoder for one stream; ``new_call_id`` names calls that arrive without an id."""
    return GeminiStreamDecoder(new_call_id)


def items_from_stream(events: Iterable[Mapping[str, Any]], *, new_call_id: NewCallId | None = None) -> list[Item]:
    """Decode and fold a whole stream: one item per candidate (parts still open are closed as they stand)."""
    decoder = GeminiStreamDecoder(new_call_id)
    state = fold_all(FoldState(), (delta for event in events for delta in decoder.feed(event)))
    return decoder.finish_all(state.finalize())


# -- requests -----------------------------------------------------------------------------


def _content_item(content: JsonDict, calls: _Calls, path: str, kind: ItemKind | None = None) -> Item:
    parts = _parts(content, calls, path)
    metadata = carry(content, ("parts",), CONTENT)
    omitted: list[JsonValue] = [f for f in ("role", "parts") if f not in content and kind is None]
    if omitted:
        metadata[OMITTED] = omitted
    if kind is None:
        if content.get("role") == "model":
            kind = ItemKind.ASSISTANT
        elif any(isinstance(p, ToolResultPart) for p in parts):
            kind = ItemKind.TOOL
        else:
            kind = ItemKind.USER
    return Item(kind, parts, metadata=metadata)


def items_from_request(body: Mapping[str, Any]) -> list[Item]:
    """The transcript a request body holds (``systemInstruction`` and ``contents``) as items."""
    request = _object(body, "")
    calls = _Calls()
    items = []
    system_key = _field(request, "systemInstruction")
    if system_key is not None and request[system_key] is not None:
        item = _content_item(_object(request[system_key], system_key), calls, system_key, ItemKind.SYSTEM)
        if system_key != "systemInstruction":
            item = item.with_metadata(item.metadata.merged({SNAKE: ["systemInstruction"]}))
        items.append(item)
    contents = request.get("contents")
    if contents is not None and not isinstance(contents, list):
        raise NormalizeError("expected an array", "contents")
    for i, content in enumerate(contents or ()):
        items.append(_content_item(_object(content, f"contents[{i}]"), calls, f"contents[{i}]"))
    return items


def _content(item: Item, encoder: _Encoder, role: str | None) -> JsonDict | None:
    parts = []
    for n, part in enumerate(item.parts):
        try:
            native = encoder.part(part)
        except NormalizeError as exc:
            raise exc.under(f"parts[{n}]") from None
        if native is not None:
            parts.append(native)
    if not parts:
        return None
    metadata = item.metadata
    if item.kind is ItemKind.ASSISTANT and not _from_gemini(metadata) and not any(_from_gemini(p.metadata) for p in item.parts):
        call = next((p for p in parts if "functionCall" in p), None)
        if call is not None and "thoughtSignature" not in call:
            call["thoughtSignature"] = SKIP_SIGNATURE
    content = carried(metadata, CONTENT)
    if role is not None and "role" not in content and "role" not in _paths(metadata, OMITTED):
        content["role"] = role
    content["parts"] = parts
    return content


def request_from_items(items: Sequence[Item]) -> JsonDict:
    """The transcript fields of a request body: ``{"contents": [...], "systemInstruction": {...}}``.

    ``systemInstruction`` is there only when an item is SYSTEM or DEVELOPER.
    Raises :class:`NormalizeError` for what Gemini cannot take (see the module
    docstring).
    """
    encoder = _Encoder()
    contents: list[JsonDict] = []
    system: list[tuple[Item, JsonDict]] = []
    for n, item in enumerate(items):
        instruction = item.kind in (ItemKind.SYSTEM, ItemKind.DEVELOPER)
        role = None if instruction else "model" if item.kind is ItemKind.ASSISTANT else "user"
        try:
            content = _content(item, encoder, role)
        except NormalizeError as exc:
            raise exc.under(f"[{n}]") from None
        if content is not None and instruction:
            system.append((item, content))
        elif content is not None:
            contents.append(content)
    body: JsonDict = {"contents": contents}
    if system:
        snake = any("systemInstruction" in _paths(item.metadata, SNAKE) for item, _ in system)
        merged = system[0][1] if len(system) == 1 else {"parts": [p for _, content in system for p in content["parts"]]}
        body["system_instruction" if snake else "systemInstruction"] = merged
    return body
