"""Private to :mod:`.gemini`: native parts -> parts, finish reasons, usage, and a candidate's item.

Responses, streams and requests all decode through these rules (the mapping
table is the docstring of :mod:`.gemini`); :mod:`._request` writes
parts back; :mod:`._keys` holds the ``gemini.*`` keys and the field
spellings.  Like every projection it uses only the public names of the package.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Callable, Mapping, Sequence

from ... import (
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    FilePart,
    FinishReason,
    InlineBytes,
    Item,
    JsonValue,
    MediaPart,
    Modality,
    NormalizeError,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    StructuredPart,
    TextPart,
    Timestamp,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    Usage,
)
from .._common import (
    JsonDict,
    b64decode,
    copy_json,
    count,
    fields_to_metadata,
    invent_id,
    json_object,
    make_item,
    make_usage,
    optional_arr,
    optional_obj,
    optional_str,
    wrong,
)
from .._common.held import as_native
from ._held import RESPONSE, USAGE
from ._keys import (
    BASE64,
    CONTENT,
    NS,
    PROVIDER,
    SIGNATURE,
    SNAKE,
    Marks,
    NewCallId,
    key_of,
    to_camel,
    to_snake,
)

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
    **dict.fromkeys(
        (
            "MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "MISSING_THOUGHT_SIGNATURE",  # the request left out a signature Gemini 3 requires
            "MALFORMED_RESPONSE",
            "error",
        ),
        FinishReason.ERROR,
    ),
}


def finish_reason(raw: str | None) -> FinishReason | None:
    """What a raw ``finishReason`` (or ``"error"``) says alone; ``None`` stays ``None``.

    A candidate holding a ``functionCall`` ends ``TOOL_CALL`` although its
    ``finishReason`` is ``STOP``, and a prompt blocked before generation
    ``BLOCKED`` whatever its ``blockReason``: the item knows, the raw reason does not.
    """
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise wrong("a string", raw, "finishReason")
    return _FINISH.get(raw) or FinishReason.other(raw)


def candidate_finish(raw: str | None, tool_call: bool) -> FinishReason | None:
    """A candidate's finish reason: ``tool_call`` says it holds a ``functionCall``."""
    reason = finish_reason(raw)
    return FinishReason.TOOL_CALL if tool_call and reason == FinishReason.COMPLETED else reason


def usage_from_native(usage: object) -> Usage:
    """A native ``usageMetadata`` object as :class:`Usage` (conventions in the module docstring of :mod:`.gemini`)."""
    return checked_usage(as_native(usage, USAGE))


def checked_usage(native: JsonDict) -> Usage:
    """:func:`usage_from_native` of a usage object checked already (part of a checked body)."""
    prompt, tool = count(native.get("promptTokenCount")), count(native.get("toolUsePromptTokenCount"))
    candidates, thoughts = count(native.get("candidatesTokenCount")), count(native.get("thoughtsTokenCount"))
    reported = (prompt, tool, candidates, thoughts) != (None, None, None, None)
    return make_usage(
        native,
        NS + "usage",
        (prompt or 0) + (tool or 0) if reported else None,
        (candidates or 0) + (thoughts or 0) if reported else None,
        reasoning=thoughts,
        cached=count(native.get("cachedContentTokenCount")),
    )


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


class _Named:
    """The calls of one function name not yet answered, in call order.

    ``order`` may still hold ids answered by id since (``answered`` counts
    them), skipped when an answer without an id takes the oldest: so every
    answer costs constant time, however many calls of the name came before.
    """

    __slots__ = ("order", "open", "answered")

    def __init__(self) -> None:
        self.order: deque[str] = deque()
        self.open: dict[str, int] = {}  # id -> how many calls with it are unanswered
        self.answered: dict[str, int] = {}  # id -> how many of those in ``order`` were answered by id

    def add(self, call_id: str) -> None:
        self.order.append(call_id)
        self.open[call_id] = self.open.get(call_id, 0) + 1

    def answer(self, call_id: str) -> None:
        """The oldest unanswered call with ``call_id`` is answered (none: nothing changes)."""
        if self.open.get(call_id):
            self.open[call_id] -= 1
            self.answered[call_id] = self.answered.get(call_id, 0) + 1

    def take_oldest(self) -> str | None:
        """The oldest unanswered call's id, now answered; ``None`` if every call is."""
        order, answered = self.order, self.answered
        while order:
            call_id = order.popleft()
            skipped = answered.get(call_id)
            if skipped:
                answered[call_id] = skipped - 1
                continue
            self.open[call_id] -= 1
            return call_id
        return None


class Calls:
    """Ids of the function calls of one decode: given, from ``new_call_id``, or invented."""

    def __init__(self, new_call_id: NewCallId | None = None) -> None:
        self._new = new_call_id
        self._pending: dict[str, _Named] = {}

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
        named = self._pending.get(name)
        if named is None:
            named = self._pending[name] = _Named()
        named.add(native_id)
        return native_id, invented

    def answer(self, native_id: str | None, name: str) -> tuple[str, bool]:
        """The call id a ``functionResponse`` answers, and whether the native response lacked it.

        A response with an id answers the oldest unanswered call with that id; one without, the
        oldest unanswered call of its function (an invented id if there is none).
        """
        named = self._pending.get(name)
        if native_id is not None:
            if named is not None:
                named.answer(native_id)
            return native_id, False
        oldest = named.take_oldest() if named is not None else None
        return (oldest if oldest is not None else invent_id("call_")), True


_MODALITIES = {"image": Modality.IMAGE, "audio": Modality.AUDIO, "video": Modality.VIDEO}


def _media(field: str, mime: str | None, data: InlineBytes | Uri, obj: JsonDict, consumed: list[str], marks: Marks) -> Part:
    modality = _MODALITIES.get(mime.partition("/")[0].lower()) if mime is not None else None
    if modality is not None and mime is not None:
        return MediaPart(modality, mime, data, metadata=fields_to_metadata(obj, consumed, f"{NS}{field}."))
    name_key = key_of(obj, "displayName")
    name = obj.get(name_key) if name_key else None
    if isinstance(name, str) and name_key is not None:
        marks.key(obj, "displayName", field + ".")
        consumed.append(name_key)
    else:  # absent, or carried as it is (its spelling then needs no marker)
        name = None
    return FilePart(data, name=name, mime_type=mime, metadata=fields_to_metadata(obj, consumed, f"{NS}{field}."))


def _inline_data(native: JsonDict, key: str, marks: Marks, calls: Calls) -> Part | None:
    blob = native[key]
    if not isinstance(blob, dict):
        return None
    mime_key = key_of(blob, "mimeType")
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


def _file_data(native: JsonDict, key: str, marks: Marks, calls: Calls) -> Part | None:
    file = native[key]
    if not isinstance(file, dict):
        return None
    uri_key, mime_key = key_of(file, "fileUri"), key_of(file, "mimeType")
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


def _text(native: JsonDict, key: str, marks: Marks, calls: Calls) -> Part | None:
    text = native[key]
    if not isinstance(text, str):
        return None
    return ReasoningPart(text) if native.get("thought") is True else TextPart(text)


def _function_call(native: JsonDict, key: str, marks: Marks, calls: Calls) -> Part | None:
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
    metadata = fields_to_metadata(call, ("name", "args") if native_id is None else ("id", "name", "args"), NS + "functionCall.")
    if invented:
        metadata[INVENTED_ID_KEY] = True
    return ToolCallPart(ToolCallId(call_id), name, call.get("args", {}), metadata=metadata)


def _function_response(native: JsonDict, key: str, marks: Marks, calls: Calls) -> Part | None:
    result = native[key]
    if not isinstance(result, dict):
        return None
    name, native_id, response = result.get("name"), result.get("id"), result.get("response", {})
    if not isinstance(name, str) or not isinstance(native_id, (str, type(None))) or not isinstance(response, dict):
        return None
    output: StructuredOutput | PartsOutput = StructuredOutput(response)  # the constructors copy
    if "parts" in result:
        nested = result["parts"]
        if not isinstance(nested, list) or not all(isinstance(p, dict) for p in nested):
            return None
        output = PartsOutput((StructuredPart(response), *(part_from_native(p, calls, _NESTED) for p in nested)))
    marks.key(native, "functionResponse")
    if "response" not in result:
        marks.omitted.append("functionResponse.response")
    call_id, invented = calls.answer(native_id, name)
    consumed = ("name", "response", "parts") if native_id is None else ("id", "name", "response", "parts")
    metadata = fields_to_metadata(result, consumed, NS + "functionResponse.")
    metadata[TOOL_NAME_KEY] = name
    if invented:
        metadata[INVENTED_ID_KEY] = True
    return ToolResultPart(ToolCallId(call_id), output, is_error=set(response) == {"error"}, metadata=metadata)


_Decoder = Callable[[JsonDict, str, Marks, Calls], "Part | None"]
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
    k for f in ("thought", "thoughtSignature", "videoMetadata", "mediaResolution", "partMetadata") for k in (f, to_snake(f))
)
#: Both spellings of every field :func:`part_from_native` looks for -> the field's camelCase name.
_SPELLINGS = {key: camel for camel in (*_PARTS, *_SERVER, "thoughtSignature") for key in (camel, to_snake(camel))}


def _fields(native: JsonDict) -> dict[str, str]:
    """The fields of :data:`_SPELLINGS` that ``native`` holds: camelCase name -> its key (:func:`key_of`'s choice).

    One pass over the part's few keys, rather than a lookup of both
    spellings of every field a part might hold.
    """
    found: dict[str, str] = {}
    for key in native:
        camel = _SPELLINGS.get(key)
        if camel is not None and (key == camel or camel not in found):  # camelCase wins, as in key_of
            found[camel] = key
    return found


def part_from_native(native: JsonDict, calls: Calls, table: Mapping[str, _Decoder] = _PARTS) -> Part:
    """One native ``Part`` (or ``FunctionResponsePart``) as a neutral part."""
    fields = _fields(native)
    sig_key = fields.get("thoughtSignature")
    signature = native.get(sig_key) if sig_key else None
    signed: dict[str, JsonValue] = {SIGNATURE: signature, PROVIDER_KEY: PROVIDER} if isinstance(signature, str) else {}
    found = [(camel, key) for camel, key in fields.items() if camel in table]
    if len(found) == 1 and (sig_key is None or signed) and not any(camel in fields for camel in _SERVER):
        camel, key = found[0]
        marks = Marks()
        part = table[camel](native, key, marks, calls)
        if part is not None:
            if sig_key not in (None, "thoughtSignature"):
                marks.snake.append("thoughtSignature")
            carried, marked = fields_to_metadata(native, (key, sig_key or key), NS), marks.metadata()
            if not (carried or marked or signed):
                return part  # the usual text or call: nothing to add to the decoder's own metadata
            return part.with_metadata({**carried, **part.metadata, **marked, **signed})
    # Kept whole, but for a string signature, which lives where every signature does.
    if signed and sig_key != "thoughtSignature":
        signed[SNAKE] = ["thoughtSignature"]
    kind = next((k for k in native if k not in _QUALIFIERS), "part")
    value = {k: v for k, v in native.items() if not (signed and k == sig_key)}
    return CustomPart(NS + to_camel(kind), value=value, metadata=signed)


def parts_from_content(content: JsonDict, calls: Calls, path: str) -> list[Part]:
    parts = []
    for i, part in enumerate(optional_arr(content, "parts", path) or ()):
        parts.append(part_from_native(json_object(part, f"{path}.parts[{i}]"), calls))
    return parts



# -- responses ----------------------------------------------------------------------------


def candidate_item(
    response: Mapping[str, JsonValue],
    candidate: Mapping[str, JsonValue],
    content: Mapping[str, JsonValue],
    parts: Sequence[Part],
    usage: Usage | None,
    *,
    prompt_only: bool = False,
    error: JsonDict | None = None,
) -> Item:
    """One candidate's ASSISTANT item (``parts`` already decoded); ``prompt_only``: there is no candidate.

    ``error`` is the error a stream ended with, if it did.
    """
    metadata = fields_to_metadata(response, ("candidates", "usageMetadata", "responseId"), NS)
    metadata.update(fields_to_metadata(candidate, ("content", "finishReason"), NS))
    metadata.update(fields_to_metadata(content, ("parts",), CONTENT))
    raw = candidate.get("finishReason")
    blocked = block_reason(response)
    finish: tuple[FinishReason | None, str | None] = (None, None)
    if isinstance(raw, str) and not prompt_only:
        finish = candidate_finish(raw, any(isinstance(p, ToolCallPart) for p in parts)), raw
    elif blocked is not None:  # before generation, or ending a stream that had begun (the SDKs' fixtures)
        finish = FinishReason.BLOCKED, blocked
    if error is not None:
        metadata[NS + "error"] = error
        if finish[0] is None:
            finish = FinishReason.ERROR, "error"
    return make_item(
        parts,
        metadata,
        message_id=response.get("responseId"),
        usage=usage,
        finish=finish,
        created_at=_millis(response.get("createTime")),
    )


def block_reason(response: Mapping[str, JsonValue]) -> str | None:
    """``promptFeedback.blockReason`` when it is a string: the prompt was blocked."""
    feedback = response.get("promptFeedback")
    reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
    return reason if isinstance(reason, str) else None


def usage_of(native: Mapping[str, JsonValue]) -> Usage | None:
    usage = optional_obj(native, "usageMetadata")
    return None if usage is None else checked_usage(usage)


def candidates_of(native: Mapping[str, JsonValue]) -> list[tuple[int, JsonDict, JsonDict]]:
    """``(index, candidate, content)`` of every candidate, in ``index`` order, their shapes checked."""
    found = optional_arr(native, "candidates")
    if found is None:
        return []
    checked = []
    for i, candidate in enumerate(found):
        path = f"candidates[{i}]"
        candidate = json_object(candidate, path)
        index = candidate.get("index", 0)
        if type(index) is not int:
            raise wrong("an integer", index, f"{path}.index")
        optional_str(candidate, "finishReason", path)
        content = optional_obj(candidate, "content", path) or {}
        for j, part in enumerate(optional_arr(content, "parts", f"{path}.content") or ()):
            json_object(part, f"{path}.content.parts[{j}]")
        checked.append((index, candidate, content))
    return sorted(checked, key=lambda found: found[0])


def answer_parts(content: Mapping[str, Any]) -> list[JsonDict]:
    """A checked candidate content's parts but empty ones (``{}``, sent by image models; the API refuses it back)."""
    return [p for p in content.get("parts") or () if p]


# -- integer enums: Vertex AI's REST transport asks for them ($alt=json;enum-encoding=int) -------------------------

#: The enums an answer holds, as google.cloud.aiplatform.v1's protos number them (the first ten finish reasons and
#: every other value here are numbered the same by google.ai.generativelanguage); a number beyond a table is kept
#: as its decimal text.
FINISH_REASONS = ("FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "BLOCKLIST",
                  "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "MODEL_ARMOR", "IMAGE_SAFETY",
                  "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "IMAGE_OTHER", "UNEXPECTED_TOOL_CALL", "NO_IMAGE")
BLOCK_REASONS = ("BLOCKED_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT")
MODALITIES = ("MODALITY_UNSPECIFIED", "TEXT", "IMAGE", "VIDEO", "AUDIO", "DOCUMENT")
HARM_PROBABILITIES = ("HARM_PROBABILITY_UNSPECIFIED", "NEGLIGIBLE", "LOW", "MEDIUM", "HIGH")
_DETAILS = ("promptTokensDetails", "candidatesTokensDetails", "cacheTokensDetails", "toolUsePromptTokensDetails")


def _named(names: tuple[str, ...], value: JsonValue) -> JsonValue:
    """``value``'s name in ``names`` when it is an integer (its decimal text beyond the table), else ``value``."""
    if type(value) is not int:
        return value
    return names[value] if 0 <= value < len(names) else str(value)


def _listed(obj: object, key: str) -> list[JsonValue]:
    """``obj[key]`` when ``obj`` is an object and that is a list, else nothing (the checks come later)."""
    value = obj.get(key) if type(obj) is dict else None
    return value if type(value) is list else []


def _enum_fields(native: Mapping[str, JsonValue]) -> list[tuple[dict[str, Any], str, tuple[str, ...]]]:
    """Every ``(object, key, names)`` of ``native`` whose enum value is an integer."""
    found: list[tuple[dict[str, JsonValue], str, tuple[str, ...]]] = []

    def look(obj: object, key: str, names: tuple[str, ...]) -> None:
        if type(obj) is dict and type(obj.get(key)) is int:
            found.append((obj, key, names))

    for candidate in _listed(native, "candidates"):
        look(candidate, "finishReason", FINISH_REASONS)
        for rating in _listed(candidate, "safetyRatings"):
            look(rating, "probability", HARM_PROBABILITIES)
    feedback = native.get("promptFeedback")
    look(feedback, "blockReason", BLOCK_REASONS)
    for rating in _listed(feedback, "safetyRatings"):
        look(rating, "probability", HARM_PROBABILITIES)
    usage = native.get("usageMetadata")
    for field in _DETAILS:
        for detail in _listed(usage, field):
            look(detail, "modality", MODALITIES)
    return found


def named_enums(native: JsonDict) -> JsonDict:
    """``native`` (a checked response or chunk) with every integer enum as its name (``"finishReason": 1`` as
    ``"STOP"``), as Vertex AI's REST transport sends them with ``enum-encoding=int``; unchanged (the same object)
    when it holds none, a copy otherwise."""
    if not _enum_fields(native):
        return native
    native = copy_json(native)
    for obj, key, names in _enum_fields(native):
        obj[key] = _named(names, obj[key])
    return native


def items_from_response(body: object, *, new_call_id: NewCallId | None = None) -> list[Item]:
    """A ``GenerateContentResponse`` body as items: one ASSISTANT item per candidate, in ``index`` order.

    ``new_call_id`` names function calls that arrive without an id (see the
    module docstring); without it the adapter invents ids.
    """
    response = named_enums(as_native(body, RESPONSE))
    usage = usage_of(response)
    candidates = candidates_of(response)
    if not candidates:  # blocked before generation, or an error body (``{"error": ...}``, as a stream may end)
        error = json_object(response["error"], "error") if "error" in response else None
        return [candidate_item(response, {}, {}, (), usage, prompt_only=True, error=error)]
    calls = Calls(new_call_id)
    items = []
    for n, (_, candidate, content) in enumerate(candidates):
        parts = [part_from_native(p, calls) for p in answer_parts(content)]
        items.append(candidate_item(response, candidate, content, parts, usage if n == 0 else None))
    return items
