"""Private to :mod:`.anthropic`: content blocks <-> parts, and the ``Message`` envelope.

Responses, streams and requests all go through these rules, so one block maps
the same way wherever it travels.  The mapping is documented in the
docstring of :mod:`.anthropic`; like it, this module uses only the public
names of the package and :mod:`._common`.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

from ... import (
    INPUT_ERROR_KEY,
    PROVIDER_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    FinishReason,
    InlineBytes,
    InlineText,
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
    b64encode,
    carried,
    carry,
    copy_json,
    count,
    dumps,
    json_object,
    make_item,
    make_usage,
    parse_data_url,
    wrong,
)
from .._common.held import take
from ._held import USAGE

#: The provider's name, as ``agentkit.provider`` holds it on reasoning state.
PROVIDER = "anthropic"
NS = PROVIDER + "."
#: Marker keys: they steer the rebuild and are never written as native fields.
OMITTED = NS + "omitted"
STRING_CONTENT = NS + "string_content"
UNKNOWN_DELTAS = NS + "unknown_deltas"
#: On a text part of whitespace only read from a request: the API took it there, so it goes back.
BLANK_SENT = NS + "blank_sent"
_MARKERS = ("omitted", "string_content", "unknown_deltas", "blank_sent")
#: Namespaces of the other providers' custom parts, which the encoder drops.
_FOREIGN = ("openai.", "gemini.")
#: The media types the API reads: base64 images, and base64 or URL documents (besides plain text).
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PDF = "application/pdf"
#: Documents besides ``text/*`` that are text.
_TEXT_TYPES = ("application/json", "application/xml")
#: Media types clients write for one the API names otherwise.
_SPELLINGS = {"image/jpg": "image/jpeg"}
#: Parts a ``tool_result``'s content cannot hold.
_NOT_IN_RESULTS = (ReasoningPart, ToolCallPart, ToolResultPart)

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


def optional(value: object, kind: type, path: str) -> None:
    """Refuse ``value`` unless it is ``None`` or a ``kind``."""
    if value is not None and not isinstance(value, kind):
        raise wrong(f"{kind.__name__} or null", value, path)


def content_blocks(value: object, path: str) -> list[JsonDict]:
    """A list of content blocks (JSON objects)."""
    if not isinstance(value, list):
        raise wrong("a list of content blocks", value, path)
    for i, block in enumerate(value):
        json_object(block, f"{path}[{i}]", "a content block (a JSON object)")
    return value


def check_message(message: JsonDict, path: str) -> None:
    """The fields of a ``Message`` this projection reads have their documented types."""
    at = f"{path}." if path else ""
    optional(message.get("id"), str, at + "id")
    optional(message.get("stop_reason"), str, at + "stop_reason")
    optional(message.get("usage"), dict, at + "usage")
    if message.get("content") is not None:
        content_blocks(message["content"], at + "content")


# -- the message envelope ---------------------------------------------------------------


def finish_reason(stop_reason: str | None) -> FinishReason | None:
    """A native ``stop_reason`` as a :class:`FinishReason` (``None`` stays ``None``)."""
    if stop_reason is None:
        return None
    optional(stop_reason, str, "stop_reason")
    return _FINISH.get(stop_reason) or FinishReason.other(stop_reason)


def usage_from_native(usage: Mapping[str, JsonValue]) -> Usage:
    """A native ``usage`` object as :class:`Usage`; counts that are not counts are unknown (0)."""
    return checked_usage(take(usage, USAGE))


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
    metadata = carry(message, ("id", "role", "content", "usage", "stop_reason"), NS)
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
    metadata = carry(block, consumed, NS)
    metadata[PROVIDER_KEY] = PROVIDER
    return metadata


def _text(block: JsonDict) -> Part:
    text = block.get("text")
    if not isinstance(text, str):
        return custom(block)
    return TextPart(text, metadata=carry(block, ("type", "text"), NS))


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
    metadata = carry(block, ("type", "id", "name", "input"), NS)
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
        if any(isinstance(p, _NOT_IN_RESULTS) for p in output.parts):
            return custom(block)  # not content a tool_result holds: kept as it came
    else:
        return custom(block)
    metadata = carry(block, ["type", "tool_use_id"] + [k for k in ("content", "is_error") if block.get(k) is not None], NS)
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
    metadata = carry(block, ("type", "source"), NS)
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
    return FilePart(data, name=title, mime_type=mime, metadata=carry(block, consumed, NS))


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


# -- part -> native block ---------------------------------------------------------------


def write_extras(native: JsonDict, metadata: Mapping[str, JsonValue]) -> JsonDict:
    """Write ``anthropic.<field>`` metadata back as native fields, then drop the omitted ones."""
    native.update(carried(metadata, NS, _MARKERS))
    omitted = metadata.get(OMITTED)
    for name in omitted if isinstance(omitted, list) else ():
        if isinstance(name, str):
            native.pop(name, None)
    return native


def _base64_source(data: DataRef, mime: str, kinds: tuple[str, ...]) -> JsonDict:
    """A source for ``data``: a URL, or base64 whose media type (a ``data:`` URL's own, else ``mime``) is in ``kinds``."""
    if isinstance(data, Uri):
        inline = parse_data_url(data.value, exact=False)
        if inline is None:
            return {"type": "url", "url": data.value}
        mime, text = inline[0] or mime, inline[1]
    elif isinstance(data, InlineBytes):
        text = b64encode(data.value)
    elif isinstance(data, InlineText):  # media held as its base64 text
        text = data.value
    else:
        raise NormalizeError("artifact handles must be resolved to data or a URL before sending")
    mime = _SPELLINGS.get(mime, mime)
    if mime not in kinds:
        raise NormalizeError(f"the API reads base64 data of the types {', '.join(kinds)}, not {mime!r}")
    return {"type": "base64", "media_type": mime, "data": text}


def _document_source(data: DataRef, mime: str | None) -> JsonDict:
    """A document's source: a PDF (base64 or URL) or UTF-8 plain text, the documents the API reads."""
    inline = parse_data_url(data.value, exact=False) if isinstance(data, Uri) else None
    if isinstance(data, Uri) and inline is None and mime not in (None, PDF):
        raise NormalizeError(f"the API reads a document by URL only as a PDF, not {mime!r}")
    if inline is not None and _is_text(inline[0] or mime):
        decoded = b64decode(inline[1])
        if decoded is None:
            raise NormalizeError("the data: URL's base64 does not decode")
        data, mime = InlineBytes(decoded), inline[0] or mime
    if isinstance(data, InlineBytes) and _is_text(mime):
        try:
            return {"type": "text", "media_type": "text/plain", "data": data.value.decode("utf-8")}
        except UnicodeDecodeError:
            raise NormalizeError(f"a {mime} document that is not UTF-8 text") from None
    if isinstance(data, InlineText) and (mime is None or _is_text(mime)):
        return {"type": "text", "media_type": "text/plain", "data": data.value}
    return _base64_source(data, mime or PDF, (PDF,))


def _is_text(mime: str | None) -> bool:
    """Whether a document of ``mime`` is text, which the API reads as a ``text/plain`` source."""
    return mime is not None and (mime.startswith("text/") or mime in _TEXT_TYPES)


def _file_block(part: FilePart | MediaPart, name: str | None) -> JsonDict:
    mime = part.mime_type
    if isinstance(part.data, Uri):  # a data: URL's own media type rules
        inline = parse_data_url(part.data.value, exact=False)
        mime = inline[0] if inline is not None and inline[0] else mime
    if mime is not None and mime.startswith("image/"):
        return {"type": "image", "source": _base64_source(part.data, mime, IMAGE_TYPES)}
    block = {"type": "document", "source": _document_source(part.data, mime)}
    if name is not None:
        block["title"] = name
    return block


def _reasoning_block(part: ReasoningPart) -> JsonDict | None:
    if part.metadata.get(PROVIDER_KEY) != PROVIDER:
        return None  # another provider's reasoning, or none's: not Anthropic's to verify
    data = part.data
    if data is not None and not isinstance(data, InlineText):
        raise NormalizeError("Anthropic reasoning keeps its signature or redacted data as InlineText")
    if part.redacted:
        if data is None:
            raise NormalizeError("redacted reasoning without its data cannot be sent back")
        return {"type": "redacted_thinking", "data": data.value}
    block: JsonDict = {"type": "thinking"}
    if part.summary is not None:
        block["thinking"] = part.summary
    if data is not None:
        block["signature"] = data.value
    return block


def _tool_input(part: ToolCallPart) -> JsonDict:
    """A call's ``input``: a JSON object, as the API takes no other (``{}`` for none, or text that did not parse)."""
    if part.input is None:
        return {}
    if not isinstance(part.input, dict):  # a custom tool's free text, a JSON array
        raise NormalizeError(f"a tool_use input must be a JSON object, not {type(part.input).__name__}")
    arguments: JsonDict = copy_json(part.input)
    return arguments


def sendable(block: JsonDict, part: Part) -> bool:
    """Whether ``block`` (of ``part``) goes in a request: the API refuses text blocks of whitespace only
    (or none) in most places, so only those read from a request it took (:data:`BLANK_SENT`) go back."""
    text = block.get("text") if block.get("type") == "text" else "x"
    return not isinstance(text, str) or bool(text.strip()) or part.metadata.get(BLANK_SENT) is True


def _tool_content(output: ToolOutput) -> str | list[JsonDict]:
    if isinstance(output, TextOutput):
        return output.text
    if isinstance(output, StructuredOutput):
        return dumps(output.value)
    parts: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else output.files if isinstance(output, FilesOutput) else ()
    blocks = []
    for part in parts:
        if isinstance(part, _NOT_IN_RESULTS):
            raise NormalizeError(f"a tool_result cannot hold a {type(part).__name__}")
        block = block_from_part(part)
        if block is not None and sendable(block, part):
            blocks.append(block)
    return blocks


def block_from_part(part: Part) -> JsonDict | None:
    """The content block of ``part``; ``None`` for a part the encoder drops on purpose."""
    block: JsonDict | None
    if isinstance(part, TextPart):
        block = {"type": "text", "text": part.text}
    elif isinstance(part, ReasoningPart):
        block = _reasoning_block(part)
    elif isinstance(part, ToolCallPart):
        block = {"type": "tool_use", "id": part.id.value, "name": part.name, "input": _tool_input(part)}
    elif isinstance(part, ToolResultPart):
        content = _tool_content(part.output)
        block = {"type": "tool_result", "tool_use_id": part.call_id.value, "content": content, "is_error": part.is_error}
    elif isinstance(part, MediaPart):
        if part.modality is Modality.IMAGE:
            block = {"type": "image", "source": _base64_source(part.data, part.mime_type, IMAGE_TYPES)}
        elif part.modality is Modality.BINARY:
            block = _file_block(part, None)
        else:
            raise NormalizeError(f"the API takes no {part.modality.value.lower()} input")
    elif isinstance(part, FilePart):
        block = _file_block(part, part.name)
    elif isinstance(part, StructuredPart):
        block = {"type": "text", "text": dumps(part.value)}
    elif isinstance(part, CustomPart):
        if part.kind.startswith(_FOREIGN):
            return None  # another provider's block (its server tools): it cannot be replayed here
        if not part.kind.startswith(NS) or not isinstance(part.value, dict):
            raise NormalizeError(f"custom part {part.kind!r} is not an Anthropic block")
        block = {k: copy_json(v) for k, v in part.value.items()}
        if block.get("input", {}) is None and INPUT_ERROR_KEY in part.metadata:
            block["input"] = {}  # a server or MCP tool call whose input was cut off, as a tool_use's
        return block
    else:
        raise NormalizeError(f"{type(part).__name__} is not a part")
    return None if block is None else write_extras(block, part.metadata)
