"""Private to :mod:`.anthropic`: content blocks -> parts, and the ``Message`` envelope.

Responses, streams and requests all decode through these rules, so one block
maps the same way wherever it travels; :mod:`._request` writes parts back.
The mapping is documented in the docstring of :mod:`.anthropic`; like it, this
module uses only the public names of the package and :mod:`._common`.
"""

from __future__ import annotations

from typing import Callable, Iterable

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
    JsonDict,
    b64decode,
    count,
    fields_to_metadata,
    json_object,
    make_item,
    make_usage,
    optional_obj,
    optional_str,
    parse_data_url,
    wrong,
)
from .._common.held import as_native
from ._held import RESPONSE, USAGE
from ._keys import NS, OMITTED, PROVIDER

#: The media types the API reads: base64 images, and base64 or URL documents (besides plain text).
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PDF = "application/pdf"
#: Parts a ``tool_result``'s content cannot hold.
NOT_IN_RESULTS = (ReasoningPart, ToolCallPart, ToolResultPart)

_FINISH: dict[str, FinishReason] = {
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "tool_use": FinishReason.TOOL_CALL,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "refusal": FinishReason.BLOCKED,
    "error": FinishReason.ERROR,  # not a stop reason: what an error that ended the turn records
}


# -- checks -----------------------------------------------------------------------------


def content_blocks(value: object, path: str) -> list[JsonDict]:
    """A list of content blocks (JSON objects)."""
    if not isinstance(value, list):
        raise wrong("a list of content blocks", value, path)
    for i, block in enumerate(value):
        json_object(block, f"{path}[{i}]", "a content block (a JSON object)")
    return value


def check_message(message: JsonDict, path: str) -> None:
    """The fields of a ``Message`` this projection reads have their documented types."""
    optional_str(message, "id", path)
    optional_str(message, "stop_reason", path)
    optional_obj(message, "usage", path)
    if message.get("content") is not None:
        content_blocks(message["content"], f"{path}.content" if path else "content")


# -- the message envelope ---------------------------------------------------------------


def finish_reason(raw: str | None = None, *, stop_reason: str | None = None) -> FinishReason | None:
    """What a raw ``stop_reason`` (or ``"error"``) says alone; ``None`` stays ``None``.

    ``stop_reason=`` is the parameter's former name, still taken as a keyword.
    """
    if stop_reason is not None:
        if raw is not None:
            raise TypeError("finish_reason() takes raw or its former name stop_reason, not both")
        raw = stop_reason
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise wrong("a string", raw, "stop_reason")
    return _FINISH.get(raw) or FinishReason.other(raw)


def usage_from_native(usage: object) -> Usage:
    """A native ``usage`` object as :class:`Usage`; counts that are not counts are unknown (0)."""
    return checked_usage(as_native(usage, USAGE))


def checked_usage(native: JsonDict) -> Usage:
    """:func:`usage_from_native` of a usage object checked already (part of a checked body)."""
    read = count(native.get("cache_read_input_tokens"))
    write = count(native.get("cache_creation_input_tokens"))
    details = native.get("output_tokens_details")  # newer models: how many output tokens were thinking
    return make_usage(
        native,
        NS + "usage",
        (count(native.get("input_tokens")) or 0) + (read or 0) + (write or 0),
        count(native.get("output_tokens")) or 0,
        reasoning=count(details.get("thinking_tokens")) if isinstance(details, dict) else None,
        cached=read,
        cache_write=write,
    )


def assistant_item(message: JsonDict, parts: Iterable[Part], error: JsonValue = None) -> Item:
    """The ASSISTANT item of a checked ``Message`` whose content became ``parts``.

    ``error`` is the error that ended the turn, if one did.  Empty text parts
    with nothing else are left out.
    """
    metadata = fields_to_metadata(message, ("id", "role", "content", "usage", "stop_reason"), NS)
    stop = message.get("stop_reason")
    finish = finish_reason(stop), stop
    if error is not None:
        if stop is not None:
            metadata[NS + "stop_reason"] = stop
        metadata[NS + "error"] = error
        finish = FinishReason.ERROR, "error"
    usage = message.get("usage")
    return make_item(
        [p for p in parts if not (type(p) is TextPart and not p.text and not p.metadata)],
        metadata,
        message_id=message.get("id"),
        usage=None if usage is None else checked_usage(usage),
        finish=finish,
    )


# -- native block -> part ---------------------------------------------------------------


def block_type(block: JsonDict) -> str:
    """The block's ``type``, or ``"untyped"``."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else "untyped"


def custom(block: JsonDict) -> CustomPart:
    """The block verbatim, as a custom part."""
    return CustomPart(NS + block_type(block), value=block)  # the constructor keeps a copy


def _reasoning_meta(block: JsonDict, consumed: Iterable[str]) -> dict[str, JsonValue]:
    metadata = fields_to_metadata(block, consumed, NS)
    metadata[PROVIDER_KEY] = PROVIDER
    return metadata


def _text(block: JsonDict) -> Part:
    text = block.get("text")
    if not isinstance(text, str):
        return custom(block)
    return TextPart(text, metadata=fields_to_metadata(block, ("type", "text"), NS))


def _thinking(block: JsonDict) -> Part:
    summary, signature = block.get("thinking"), block.get("signature")
    if not isinstance(summary, (str, type(None))) or not isinstance(signature, (str, type(None))):
        return custom(block)
    # A null field is not consumed: it is carried as null and written back as it came.
    consumed = ["type"] + [k for k in ("thinking", "signature") if block.get(k) is not None]
    data = None if signature is None else InlineText(signature)
    return ReasoningPart(summary, data=data, metadata=_reasoning_meta(block, consumed))


def _redacted_thinking(block: JsonDict) -> Part:
    data = block.get("data")
    if not isinstance(data, str):
        return custom(block)
    return ReasoningPart(None, data=InlineText(data), redacted=True, metadata=_reasoning_meta(block, ("type", "data")))


def _tool_use(block: JsonDict) -> Part:
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("input", {})
    if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(arguments, dict):
        return custom(block)  # an input the API never sends
    metadata = fields_to_metadata(block, ("type", "id", "name", "input"), NS)
    if "input" not in block:
        metadata[OMITTED] = ["input"]
    return ToolCallPart(ToolCallId(call_id), name, arguments, metadata=metadata)


def _tool_result(block: JsonDict) -> Part:
    call_id, content, is_error = block.get("tool_use_id"), block.get("content"), block.get("is_error")
    # A null content or is_error (a client's None) reads as the field left out, and is carried as null.
    content, is_error = "" if content is None else content, False if is_error is None else is_error
    if not isinstance(call_id, str) or not isinstance(is_error, bool):
        return custom(block)
    output: ToolOutput
    if isinstance(content, str):
        output = TextOutput(content)
    elif isinstance(content, list) and all(isinstance(b, dict) for b in content):
        output = PartsOutput([part_from_block(b) for b in content])
        if any(isinstance(p, NOT_IN_RESULTS) for p in output.parts):
            return custom(block)  # not content a tool_result holds: kept as it came
    else:
        return custom(block)
    metadata = fields_to_metadata(block, ["type", "tool_use_id"] + [k for k in ("content", "is_error") if block.get(k) is not None], NS)
    omitted: list[JsonValue] = [name for name in ("content", "is_error") if name not in block]
    if omitted:
        metadata[OMITTED] = omitted
    return ToolResultPart(ToolCallId(call_id), output, is_error=is_error, metadata=metadata)


def _source(block: JsonDict, kind: str, fields: tuple[str, ...]) -> JsonDict | None:
    """The block's ``source`` if it is of ``kind`` with exactly ``fields`` (besides ``type``), all strings.

    A ``url`` that is a ``data:`` URL is not taken: the encoder turns those into base64.
    """
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != kind or set(source) != {"type", *fields}:
        return None
    if not all(isinstance(source[f], str) for f in fields):
        return None
    return None if kind == "url" and parse_data_url(source["url"], exact=False) is not None else source


def _image(block: JsonDict) -> Part:
    metadata = fields_to_metadata(block, ("type", "source"), NS)
    source = _source(block, "base64", ("media_type", "data"))
    data = None if source is None or source["media_type"] not in IMAGE_TYPES else b64decode(source["data"])
    if source is not None and data is not None:
        return MediaPart(Modality.IMAGE, source["media_type"], InlineBytes(data), metadata=metadata)
    source = _source(block, "url", ("url",))
    if source is not None:
        return MediaPart(Modality.IMAGE, "image/*", Uri(source["url"]), metadata=metadata)
    return custom(block)


def _document_data(block: JsonDict) -> tuple[DataRef | None, str]:
    """A document's data and MIME type, for the sources the API documents for PDF and plain text."""
    source = _source(block, "base64", ("media_type", "data"))
    if source is not None:
        decoded = b64decode(source["data"]) if source["media_type"] == PDF else None
        return (None if decoded is None else InlineBytes(decoded)), PDF
    source = _source(block, "text", ("media_type", "data"))
    if source is not None:
        return (InlineText(source["data"]) if source["media_type"] == "text/plain" else None), "text/plain"
    source = _source(block, "url", ("url",))
    return (None, "") if source is None else (Uri(source["url"]), PDF)


def _document(block: JsonDict) -> Part:
    data, mime = _document_data(block)
    title = block.get("title")
    if data is None or not isinstance(title, (str, type(None))):
        return custom(block)
    consumed = ("type", "source", "title") if title is not None else ("type", "source")
    return FilePart(data, name=title, mime_type=mime, metadata=fields_to_metadata(block, consumed, NS))


_BLOCK_DECODERS: dict[str, Callable[[JsonDict], Part]] = {
    "text": _text,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "image": _image,
    "document": _document,
}


def part_from_block(block: JsonDict) -> Part:
    """The part of a content block (a JSON object)."""
    decode = _BLOCK_DECODERS.get(block_type(block))
    return custom(block) if decode is None else decode(block)


def items_from_response(body: object) -> list[Item]:
    """A non-streaming response body as items: one ASSISTANT item with usage and finish reason.

    An error body (``{"type": "error", "error": {...}}``) gives an item with no
    parts and finish reason ``ERROR``.  Raises :class:`~agentkit_core.NormalizeError`
    for a body that is not a ``Message``.
    """
    body = as_native(body, RESPONSE)
    if body.get("type") == "error" and "error" in body:
        rest = {k: v for k, v in body.items() if k != "error"}
        check_message(rest, "")
        return [assistant_item(rest, (), body["error"])]
    check_message(body, "")
    return [assistant_item(body, [part_from_block(b) for b in body.get("content") or ()])]
