"""Private to :mod:`.bedrock`: Converse content blocks -> parts, and the response envelope.

Responses, streams and requests all decode through these rules, so one block
maps the same way wherever it travels; :mod:`._request` writes parts back.
The mapping is tabulated in ``docs/bedrock.md``.  A ``ContentBlock`` is a
union: one key a block (``{"text": ...}``, ``{"toolUse": {...}}``); a block
holding several, or a shape the table does not map, is a custom part kept
verbatim and written back as it came.
"""

from __future__ import annotations

from typing import Callable

from ... import (
    PROVIDER_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    JsonValue,
    MediaPart,
    Modality,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
    Usage,
)
from .._common import JsonDict, b64decode, count, fields_to_metadata, json_object, make_item, make_usage, optional_obj, optional_str, wrong
from .._common.held import as_native
from ._held import RESPONSE, USAGE
from ._keys import NS, OMITTED, PROVIDER, RESULT_JSON

#: ``format`` -> MIME type, for each kind of media block (the Converse API's enums).
IMAGE_FORMATS = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
DOCUMENT_FORMATS = {
    "pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html", "txt": "text/plain", "md": "text/markdown",
}  # fmt: skip
VIDEO_FORMATS = {
    "mkv": "video/x-matroska", "mov": "video/quicktime", "mp4": "video/mp4", "webm": "video/webm", "flv": "video/x-flv",
    "mpeg": "video/mpeg", "mpg": "video/mpg", "wmv": "video/x-ms-wmv", "three_gp": "video/3gpp",
}  # fmt: skip
#: Parts a ``toolResult``'s content cannot hold.
NOT_IN_RESULTS = (ReasoningPart, ToolCallPart, ToolResultPart)

_FINISH: dict[str, FinishReason] = {
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "tool_use": FinishReason.TOOL_CALL,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "guardrail_intervened": FinishReason.BLOCKED,
    "content_filtered": FinishReason.BLOCKED,
    "error": FinishReason.ERROR,  # not a stop reason: what an exception that ended the turn records
}


def finish_reason(raw: str | None = None) -> FinishReason | None:
    """What a raw ``stopReason`` says alone (an unknown one is ``FinishReason.other``); ``None`` stays ``None``."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise wrong("a string", raw, "stopReason")
    return _FINISH.get(raw) or FinishReason.other(raw)


def usage_from_native(usage: object) -> Usage:
    """A native ``usage`` object (``inputTokens``, ``outputTokens``, cache reads and writes) as :class:`Usage`."""
    return checked_usage(as_native(usage, USAGE))


def checked_usage(native: JsonDict) -> Usage:
    """:func:`usage_from_native` of a checked usage object: the input counts cache reads and writes too."""
    read, write = count(native.get("cacheReadInputTokens")), count(native.get("cacheWriteInputTokens"))
    given = count(native.get("inputTokens"))
    return make_usage(
        native, NS + "usage", None if given is None else given + (read or 0) + (write or 0), count(native.get("outputTokens")),
        cached=read, cache_write=write,
    )


def content_blocks(value: object, path: str) -> list[JsonDict]:
    """A list of content blocks (JSON objects)."""
    if not isinstance(value, list):
        raise wrong("a list of content blocks", value, path)
    for i, block in enumerate(value):
        json_object(block, f"{path}[{i}]", "a content block (a JSON object)")
    return value


def check_response(body: JsonDict) -> JsonDict:
    """The checked ``output.message`` of a response (``{}`` when it has none)."""
    optional_str(body, "stopReason")
    optional_obj(body, "usage")
    optional_obj(body, "metrics")
    output = optional_obj(body, "output") or {}
    message = optional_obj(output, "message", "output") or {}
    if "content" in message:
        content_blocks(message["content"], "output.message.content")
    return message


def assistant_item(body: JsonDict, message: JsonDict, parts: list[Part], error: JsonValue = None) -> Item:
    """The ASSISTANT item of a checked response (or a stream's gathered fields) whose content became ``parts``."""
    metadata = fields_to_metadata(body, ("output", "stopReason", "usage"), NS)
    metadata.update(fields_to_metadata(message, ("role", "content"), NS + "message."))
    stop = body.get("stopReason")
    finish = finish_reason(stop), stop
    if error is not None:
        if stop is not None:
            metadata[NS + "stopReason"] = stop
        metadata[NS + "error"] = error
        finish = FinishReason.ERROR, "error"
    usage = body.get("usage")
    return make_item(parts, metadata, usage=None if usage is None else checked_usage(usage), finish=finish)


# -- native block -> part ---------------------------------------------------------------


def block_key(block: JsonDict) -> str:
    """The block's one key (``"text"``, ``"toolUse"``), or ``"unknown"`` for a block of none or several."""
    return next(iter(block)) if len(block) == 1 else "unknown"


def custom(block: JsonDict) -> CustomPart:
    """The block verbatim, as a custom part ``bedrock.<key>``."""
    return CustomPart(NS + block_key(block), value=block)  # the constructor keeps a copy


def _source(value: JsonDict) -> DataRef | None:
    """A media source: ``{"bytes": base64}`` or ``{"s3Location": {"uri": ...}}`` alone (a document's ``text`` too)."""
    source = value.get("source")
    if not isinstance(source, dict) or len(source) != 1:
        return None
    if "bytes" in source:
        data = b64decode(source["bytes"])
        return None if data is None else InlineBytes(data)
    location = source.get("s3Location")
    if isinstance(location, dict) and set(location) == {"uri"} and isinstance(location["uri"], str):
        return Uri(location["uri"])
    text = source.get("text")
    return InlineText(text) if isinstance(text, str) else None


def _media(block: JsonDict, key: str, formats: dict[str, str], modality: Modality) -> Part:
    value = block[key]
    if not isinstance(value, dict) or not set(value) <= {"format", "source"}:
        return custom(block)
    fmt = value.get("format")
    mime, data = formats.get(fmt) if isinstance(fmt, str) else None, _source(value)
    if mime is None or data is None or isinstance(data, InlineText):
        return custom(block)
    return MediaPart(modality, mime, data)


def _text(block: JsonDict) -> Part:
    text = block["text"]
    return TextPart(text) if isinstance(text, str) else custom(block)


def _image(block: JsonDict) -> Part:
    return _media(block, "image", IMAGE_FORMATS, Modality.IMAGE)


def _video(block: JsonDict) -> Part:
    return _media(block, "video", VIDEO_FORMATS, Modality.VIDEO)


def _document(block: JsonDict) -> Part:
    value = block["document"]
    if not isinstance(value, dict) or not {"source"} <= set(value) <= {"format", "name", "source"}:
        return custom(block)
    name, fmt, data = value.get("name"), value.get("format"), _source(value)
    mime = DOCUMENT_FORMATS.get(fmt) if isinstance(fmt, str) else None
    if data is None or (fmt is not None and mime is None) or not isinstance(name, (str, type(None))):
        return custom(block)
    if isinstance(data, InlineText):
        mime = mime or "text/plain"
    metadata: dict[str, JsonValue] = {} if "format" in value else {OMITTED: ["format"]}
    return FilePart(data, name=name, mime_type=mime, metadata=metadata)


def _tool_use(block: JsonDict) -> Part:
    use = block["toolUse"]
    if not isinstance(use, dict):
        return custom(block)
    call_id, name, arguments = use.get("toolUseId"), use.get("name"), use.get("input", {})
    if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(arguments, dict):
        return custom(block)
    metadata = fields_to_metadata(use, ("toolUseId", "name", "input"), NS)
    if "input" not in use:
        metadata[OMITTED] = ["input"]
    return ToolCallPart(ToolCallId(call_id), name, arguments, metadata=metadata)


def _result_part(block: JsonDict) -> Part:
    """A block of a ``toolResult``'s content: ``{"json": value}`` is a structured part, the others as anywhere."""
    if set(block) == {"json"}:
        from ... import StructuredPart

        return StructuredPart(block["json"])
    return part_from_block(block)


def _tool_result(block: JsonDict) -> Part:
    result = block["toolResult"]
    if not isinstance(result, dict):
        return custom(block)
    call_id, content, status = result.get("toolUseId"), result.get("content", []), result.get("status")
    if not isinstance(call_id, str) or not isinstance(content, list) or status not in (None, "success", "error"):
        return custom(block)
    if not all(isinstance(b, dict) for b in content):
        return custom(block)
    metadata = fields_to_metadata(result, ("toolUseId", "content", "status"), NS)
    if status is not None:
        metadata[NS + "status"] = status
    output: ToolOutput
    if len(content) == 1 and set(content[0]) == {"text"} and isinstance(content[0]["text"], str):
        output = TextOutput(content[0]["text"])
    elif len(content) == 1 and set(content[0]) == {"json"}:
        output = StructuredOutput(content[0]["json"])
        metadata[RESULT_JSON] = True
    else:
        output = PartsOutput([_result_part(b) for b in content])
        if any(isinstance(p, NOT_IN_RESULTS) for p in output.parts):
            return custom(block)
    return ToolResultPart(ToolCallId(call_id), output, is_error=status == "error", metadata=metadata)


def _reasoning(block: JsonDict) -> Part:
    value = block["reasoningContent"]
    if not isinstance(value, dict) or len(value) != 1:
        return custom(block)
    meta: dict[str, JsonValue] = {PROVIDER_KEY: PROVIDER}
    if "redactedContent" in value:
        data = value["redactedContent"]
        if not isinstance(data, str) or b64decode(data) is None:
            return custom(block)
        return ReasoningPart(None, data=InlineText(data), redacted=True, metadata=meta)
    text = value.get("reasoningText")
    if not isinstance(text, dict) or not set(text) <= {"text", "signature"}:
        return custom(block)
    summary, signature = text.get("text"), text.get("signature")
    if not isinstance(summary, (str, type(None))) or not isinstance(signature, (str, type(None))):
        return custom(block)
    if signature is None:
        meta = {}  # no signature: nothing for Bedrock to verify, so nothing of its own to keep
    return ReasoningPart(summary, data=None if signature is None else InlineText(signature), metadata=meta)


_BLOCK_DECODERS: dict[str, Callable[[JsonDict], Part]] = {
    "text": _text,
    "image": _image,
    "video": _video,
    "document": _document,
    "toolUse": _tool_use,
    "toolResult": _tool_result,
    "reasoningContent": _reasoning,
}


def part_from_block(block: JsonDict) -> Part:
    """The part of a content block (a JSON object)."""
    decode = _BLOCK_DECODERS.get(block_key(block))
    return custom(block) if decode is None else decode(block)


def items_from_response(body: object) -> list[Item]:
    """A ``Converse`` response body (or boto3's answer) as items: one ASSISTANT item with usage and finish reason.

    ``metrics`` (``latencyMs``), ``additionalModelResponseFields``, ``trace`` and
    the other fields ride as ``bedrock.<field>`` metadata.  Raises
    :class:`~agentkit_core.NormalizeError` for a body that is not a Converse response.
    """
    body = as_native(body, RESPONSE)
    body = {k: v for k, v in body.items() if k != "ResponseMetadata"}  # boto3's own, not the API's
    if "error" in body and "output" not in body:  # an error body: the turn ended in it
        rest = {k: v for k, v in body.items() if k != "error"}
        return [assistant_item(rest, check_response(rest), [], body["error"])]
    message = check_response(body)
    return [assistant_item(body, message, [part_from_block(b) for b in message.get("content") or ()])]
