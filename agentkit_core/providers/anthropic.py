"""The Anthropic Messages API <-> agentkit_core: pure functions, no I/O.

Content blocks (the same mapping in responses, streams and requests)
--------------------------------------------------------------------

=================================  ===========================================================
native block                       neutral part
=================================  ===========================================================
``text``                           ``TextPart(text)``; ``citations`` (every citation type,
                                   verbatim) in ``"anthropic.citations"``
``thinking``                       ``ReasoningPart(thinking, data=InlineText(signature))``,
                                   ``agentkit.provider: "anthropic"``
``redacted_thinking``              ``ReasoningPart(None, data=InlineText(data), redacted=True)``,
                                   ``agentkit.provider: "anthropic"``
``tool_use``                       ``ToolCallPart(ToolCallId(id), name, input)``
``tool_result``                    ``ToolResultPart(ToolCallId(tool_use_id), output, is_error)``:
                                   string ``content`` -> ``TextOutput``, a block list ->
                                   ``PartsOutput`` of the blocks' parts; ``agentkit.tool_name``
                                   when the request's earlier ``tool_use`` names the tool
``image``, ``base64`` source       ``MediaPart(IMAGE, media_type, InlineBytes(decoded))``
``image``, ``url`` source          ``MediaPart(IMAGE, "image/*", Uri(url))`` (no media type sent)
``document``, ``base64`` PDF       ``FilePart(InlineBytes(decoded), name=title,
                                   mime_type="application/pdf")``
``document``, ``text`` source      ``FilePart(InlineText(data), name=title, mime_type="text/plain")``
``document``, ``url`` source       ``FilePart(Uri(url), name=title, mime_type="application/pdf")``
any other block                    ``CustomPart("anthropic.<type>", value=<the block verbatim>)``
=================================  ===========================================================

``CustomPart`` holds, verbatim: the server tools' blocks (``server_tool_use``,
``web_search_tool_result``, ``web_fetch_tool_result``,
``code_execution_tool_result``, ``bash_code_execution_tool_result``,
``text_editor_code_execution_tool_result``, ``tool_search_tool_result``),
``mcp_tool_use`` / ``mcp_tool_result`` (the API runs these tools itself, so a
loop must not), ``container_upload``, ``search_result``, ``tool_reference``,
``mid_conv_system``, images and documents with a ``file`` source (a Files API
id means nothing to another provider) or a ``content`` source, sources with
fields or base64 this table does not map exactly, blocks whose known fields
have the wrong type, and block types yet to be invented.

Every field of a block the table does not consume is kept in the part's
metadata as ``"anthropic.<field>"``, verbatim (``citations``,
``cache_control``, ``caller``, ``context``, a document's ``citations``
switch, fields nobody has seen yet) and written back.  Two markers complete
the round trip and are never sent:

* ``"anthropic.omitted"``: optional native fields the block left out although
  the part has a value for them (a ``tool_result`` without ``is_error`` is
  ``is_error=False`` plus ``["is_error"]``; a ``tool_use`` without ``input``
  has ``input={}``);
* ``"anthropic.string_content"`` (item metadata): the message's ``content``
  (or the request's ``system``) was a plain string, not a block list.

Messages and items
------------------

=============================================  ================================================
native                                         neutral
=============================================  ================================================
``system`` (string or text blocks)             one ``SYSTEM`` item
``role: "user"``                               ``USER`` item; ``TOOL`` when it holds a
                                               ``tool_result`` (parts in native order, so text
                                               sent beside the results stays in place)
``role: "assistant"``                          ``ASSISTANT`` item
other message fields                           item metadata ``"anthropic.<field>"``
=============================================  ================================================

Back to a request (:func:`request_from_items`): ``SYSTEM`` and ``DEVELOPER``
items become ``system``; ``ASSISTANT`` items assistant messages; ``USER``,
``TOOL``, ``CONTEXT`` and ``NOTIFICATION`` items user messages, one message
per item (the API joins consecutive turns of one role).  Message fields in
item metadata are written back, except on items decoded from a response
(``anthropic.type == "message"``: they describe the response).  What the
encoder does with parts that did not come from Anthropic:

* reasoning is sent only when it holds Anthropic's state
  (``agentkit.provider == "anthropic"``); another provider's reasoning, and
  reasoning with no provider state at all, is dropped: the API verifies
  signatures, and reasoning of earlier turns is not needed to continue;
* another provider's custom parts (``openai.*``, ``gemini.*``: its server
  tools) are dropped; a message left with nothing is not sent;
* ``StructuredPart`` and ``StructuredOutput`` go as their compact JSON text;
  base64 ``data:`` URLs become base64 sources; a document's inline text or
  UTF-8 ``text/*`` bytes a ``text`` source; tool calls whose argument text
  did not parse (``input=None`` with ``agentkit.input_error``) go with ``{}``;
  invented ids (``agentkit.invented_id``) are sent, since the API needs ids;
* audio and video, artifact handles, custom parts of no provider, and parts a
  ``tool_result`` cannot hold raise :class:`~agentkit_core.NormalizeError`.

Responses
---------

=========================================  ==================================================
``Message`` field                          neutral field
=========================================  ==================================================
``id``                                     ``Item.id = MessageId(id)``
``content``                                ``Item.parts``; an empty ``text`` block with
                                           nothing else is left out (the API sends one
                                           before a refusal and refuses it back)
``usage``                                  ``Item.usage``; raw in ``"anthropic.usage"`` of
                                           ``Usage.metadata``
``stop_reason``                            ``Item.finish_reason`` (below); raw in
                                           ``agentkit.finish_reason``
``type``, ``model``, ``stop_sequence``,    item metadata ``"anthropic.<field>"``
``stop_details``, ``container``, others
an error body (``type: "error"``)          no parts, ``ERROR``, ``"anthropic.error"``
=========================================  ==================================================

Tokens: Anthropic's ``input_tokens`` *excludes* cache traffic, so
``TokenUsage.input_tokens = input_tokens + cache_read_input_tokens +
cache_creation_input_tokens``, ``cached_input_tokens =
cache_read_input_tokens`` and ``cache_write_input_tokens =
cache_creation_input_tokens`` (``None`` when not reported);
``output_tokens`` already includes thinking; ``reasoning_tokens`` is ``None``.

Stop reasons: ``end_turn``, ``stop_sequence`` -> ``COMPLETED``; ``tool_use``
-> ``TOOL_CALL``; ``max_tokens``, ``model_context_window_exceeded`` ->
``MAX_TOKENS``; ``refusal`` -> ``BLOCKED`` (``stop_details`` kept); others
(``pause_turn``, future values) -> ``FinishReason.other(raw)``.

Streams
-------

=====================================  ===========================================================
event                                  deltas and state
=====================================  ===========================================================
``message_start``                      the item's id, fields and usage (live ``usage``)
``content_block_start``                ``BeginPart(PartId("part-<index>"))``, then ``SetMetadata``
                                       of the block's fields and the fold's header keys (a tool
                                       call's id and name, a custom part's kind) and, for a
                                       custom part, ``ReplaceStructured`` of the block
``text_delta`` / ``thinking_delta``    ``AppendText`` (text grows by appending only)
``input_json_delta``                   ``AppendText`` of the fragment (tool calls, server tools)
``citations_delta``                    ``SetMetadata`` of ``"anthropic.citations"`` so far
``signature_delta``                    kept for the commit
other delta types                      ``SetMetadata`` of ``"anthropic.unknown_deltas"`` (a marker)
``content_block_stop``                 ``CommitPart(part, part_id=...)``: the finished block's part
``message_delta``                      stop reason (live ``finish_reason``), fields, cumulative usage
``message_stop``                       commits every block still open
``error``                              ``ERROR``, the error in ``"anthropic.error"``; commits every
                                       open block
``ping``, unknown events               nothing
=====================================  ===========================================================

A committed block is the block the SDK's accumulator builds, decoded as in a
response: the stream's item equals the response's.  Tool input is parsed when
its block closes, with the fold's convention for text that is not JSON
(``input=None``, the text and the error in ``agentkit.input_json`` and
``agentkit.input_error``), also for a call cut off by ``max_tokens``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from .. import (
    FINISH_REASON_KEY,
    INPUT_ERROR_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    DataRef,
    Delta,
    FilePart,
    FilesOutput,
    FinishReason,
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
    ReplaceStructured,
    SetMetadata,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
    Usage,
)
from ._common import (
    JsonDict,
    b64decode,
    b64encode,
    carried,
    carry,
    copy_json,
    count,
    dumps,
    events_from_sse,
    fold_stream,
    header,
    parse_arguments,
)

__all__ = (
    "AnthropicStreamDecoder",
    "events_from_sse",
    "finish_reason",
    "items_from_request",
    "items_from_response",
    "items_from_stream",
    "request_from_items",
    "stream_decoder",
    "usage_from_native",
)

#: The provider's name, as ``agentkit.provider`` holds it on reasoning state.
PROVIDER = "anthropic"
NS = PROVIDER + "."
#: Marker keys: they steer the rebuild and are never written as native fields.
OMITTED = NS + "omitted"
STRING_CONTENT = NS + "string_content"
UNKNOWN_DELTAS = NS + "unknown_deltas"
_MARKERS = ("omitted", "string_content", "unknown_deltas")
#: Namespaces of the other providers' custom parts, which the encoder drops.
_FOREIGN = ("openai.", "gemini.")

_FINISH: dict[str, FinishReason] = {
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "tool_use": FinishReason.TOOL_CALL,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "refusal": FinishReason.BLOCKED,
}

_SYSTEM_KINDS = (ItemKind.SYSTEM, ItemKind.DEVELOPER)
_ROLES = {
    ItemKind.USER: "user",
    ItemKind.TOOL: "user",
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
    ItemKind.ASSISTANT: "assistant",
}
_TOOL_INPUT_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
#: Parts a ``tool_result``'s content cannot hold.
_NOT_IN_RESULTS = (ReasoningPart, ToolCallPart, ToolResultPart)
#: Every block type the API documents: a delta meant for another type is an error, not a future delta.
_KNOWN_BLOCKS = frozenset(
    (
        "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document",
        "search_result", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
        "code_execution_tool_result", "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result", "tool_search_tool_result", "container_upload",
        "mcp_tool_use", "mcp_tool_result", "tool_reference", "mid_conv_system",
    )
)


# -- checks and shared rules ------------------------------------------------------------


def _fail(message: str, path: str = "") -> NormalizeError:
    return NormalizeError(message, path)


def _as_normalize(exc: ValueError) -> NormalizeError:
    """A constructor's refusal of a value (a ``ValueError``) as this module's error."""
    return exc if isinstance(exc, NormalizeError) else NormalizeError(str(exc))


def _object(value: object, path: str, what: str = "a JSON object") -> JsonDict:
    if not isinstance(value, dict):
        raise _fail(f"expected {what}, found {type(value).__name__}", path)
    return value


def _blocks(value: object, path: str) -> list[JsonDict]:
    """A list of content blocks (JSON objects)."""
    if not isinstance(value, list):
        raise _fail(f"expected a list of content blocks, found {type(value).__name__}", path)
    for i, block in enumerate(value):
        _object(block, f"{path}[{i}]", "a content block (a JSON object)")
    return value


def _optional(value: object, kind: type, path: str) -> None:
    if value is not None and not isinstance(value, kind):
        raise _fail(f"expected {kind.__name__} or null, found {type(value).__name__}", path)


def _check_message(message: JsonDict, path: str) -> None:
    """The fields of a ``Message`` this module reads have their documented types."""
    _optional(message.get("id"), str, _join(path, "id"))
    _optional(message.get("stop_reason"), str, _join(path, "stop_reason"))
    _optional(message.get("usage"), dict, _join(path, "usage"))
    if message.get("content") is not None:
        _blocks(message["content"], _join(path, "content"))


def _describe(value: object) -> str:
    """A short description of a value found where it does not belong."""
    if isinstance(value, str):
        return repr(value[:40] + "..." if len(value) > 40 else value)
    if isinstance(value, (bool, int, float)) or value is None:
        return repr(value)
    return f"a {type(value).__name__}"


def _join(path: str, field: str) -> str:
    return f"{path}.{field}" if path else field


def finish_reason(stop_reason: str | None) -> FinishReason | None:
    """A native ``stop_reason`` as a :class:`FinishReason` (``None`` stays ``None``)."""
    if stop_reason is None:
        return None
    _optional(stop_reason, str, "stop_reason")
    return _FINISH.get(stop_reason) or FinishReason.other(stop_reason)


def usage_from_native(usage: JsonDict) -> Usage:
    """A native ``usage`` object as :class:`Usage` (the token convention above); counts that are not counts are unknown."""
    _object(usage, "usage")
    read = count(usage.get("cache_read_input_tokens"))
    write = count(usage.get("cache_creation_input_tokens"))
    tokens = TokenUsage(
        (count(usage.get("input_tokens")) or 0) + (read or 0) + (write or 0),
        count(usage.get("output_tokens")) or 0,
        cached_input_tokens=read,
        cache_write_input_tokens=write,
    )
    return Usage(tokens, metadata={NS + "usage": copy_json(usage)})


def _assistant_item(message: JsonDict, parts: Iterable[Part], error: JsonValue = None) -> Item:
    """The ASSISTANT item of a native ``Message`` whose content became ``parts``.

    ``error`` is the error that ended the turn, if one did.
    """
    metadata = carry(message, ("id", "role", "content", "usage", "stop_reason"), NS)
    stop = message.get("stop_reason")
    reason = finish_reason(stop)
    if stop is not None:
        metadata[FINISH_REASON_KEY] = stop
    if error is not None:
        if stop is not None:
            metadata[NS + "stop_reason"] = stop
        metadata[NS + "error"] = copy_json(error)
        metadata[FINISH_REASON_KEY] = "error"
        reason = FinishReason.ERROR
    message_id, usage = message.get("id"), message.get("usage")
    return Item(
        ItemKind.ASSISTANT,
        [p for p in parts if not _empty_text(p)],
        id=None if message_id is None else MessageId(message_id),
        metadata=metadata,
        usage=None if usage is None else usage_from_native(usage),
        finish_reason=reason,
    )


def _empty_text(part: Part) -> bool:
    """An empty text block with nothing else: it carries nothing, and the API refuses it back."""
    return type(part) is TextPart and not part.text and not part.metadata


# -- native block -> part ---------------------------------------------------------------


def _block_type(block: JsonDict) -> str:
    kind = block.get("type")
    return kind if isinstance(kind, str) else "untyped"


def _custom(block: JsonDict) -> CustomPart:
    return CustomPart(NS + _block_type(block), value=copy_json(block))


def _reasoning_meta(block: JsonDict, consumed: Iterable[str]) -> dict[str, JsonValue]:
    metadata = carry(block, consumed, NS)
    metadata[PROVIDER_KEY] = PROVIDER
    return metadata


def _text(block: JsonDict) -> Part:
    text = block.get("text")
    if not isinstance(text, str):
        return _custom(block)
    return TextPart(text, metadata=carry(block, ("type", "text"), NS))


def _thinking(block: JsonDict) -> Part:
    summary, signature = block.get("thinking"), block.get("signature")
    if not isinstance(summary, (str, type(None))) or not isinstance(signature, (str, type(None))):
        return _custom(block)
    # A null field is not consumed: it is carried as null and written back as it came.
    consumed = ["type"] + [k for k in ("thinking", "signature") if block.get(k) is not None]
    return ReasoningPart(
        summary,
        data=None if signature is None else InlineText(signature),
        metadata=_reasoning_meta(block, consumed),
    )


def _redacted_thinking(block: JsonDict) -> Part:
    data = block.get("data")
    if not isinstance(data, str):
        return _custom(block)
    return ReasoningPart(None, data=InlineText(data), redacted=True, metadata=_reasoning_meta(block, ("type", "data")))


def _tool_use(block: JsonDict) -> Part:
    call_id, name = block.get("id"), block.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        return _custom(block)
    metadata = carry(block, ("type", "id", "name", "input"), NS)
    if "input" not in block:
        metadata[OMITTED] = ["input"]
    return ToolCallPart(ToolCallId(call_id), name, copy_json(block.get("input", {})), metadata=metadata)


def _tool_result(block: JsonDict) -> Part:
    call_id, content, is_error = block.get("tool_use_id"), block.get("content", ""), block.get("is_error", False)
    if not isinstance(call_id, str) or not isinstance(is_error, bool):
        return _custom(block)
    output: ToolOutput
    if isinstance(content, str):
        output = TextOutput(content)
    elif isinstance(content, list) and all(isinstance(b, dict) for b in content):
        output = PartsOutput([_part_from_block(b) for b in content])
        if any(isinstance(p, _NOT_IN_RESULTS) for p in output.parts):
            return _custom(block)  # not content a tool_result holds: kept as it came
    else:
        return _custom(block)
    metadata = carry(block, ("type", "tool_use_id", "content", "is_error"), NS)
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
    return None if kind == "url" and _data_url(source["url"]) is not None else source


def _image(block: JsonDict) -> Part:
    metadata = carry(block, ("type", "source"), NS)
    source = _source(block, "base64", ("media_type", "data"))
    if source is not None:
        data = b64decode(source["data"])
        if data is not None:
            return MediaPart(Modality.IMAGE, source["media_type"], InlineBytes(data), metadata=metadata)
    source = _source(block, "url", ("url",))
    if source is not None:
        return MediaPart(Modality.IMAGE, "image/*", Uri(source["url"]), metadata=metadata)
    return _custom(block)


def _document_data(block: JsonDict) -> tuple[DataRef | None, str]:
    """A document's data and MIME type, for the three sources the API documents for PDF and plain text."""
    source = _source(block, "base64", ("media_type", "data"))
    if source is not None:
        decoded = b64decode(source["data"]) if source["media_type"] == "application/pdf" else None
        return (None if decoded is None else InlineBytes(decoded)), "application/pdf"
    source = _source(block, "text", ("media_type", "data"))
    if source is not None:
        return (InlineText(source["data"]) if source["media_type"] == "text/plain" else None), "text/plain"
    source = _source(block, "url", ("url",))
    return (None, "") if source is None else (Uri(source["url"]), "application/pdf")


def _document(block: JsonDict) -> Part:
    data, mime = _document_data(block)
    title = block.get("title")
    if data is None or not isinstance(title, (str, type(None))):
        return _custom(block)
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


def _part_from_block(block: JsonDict) -> Part:
    decode = _BLOCK_DECODERS.get(_block_type(block))
    return _custom(block) if decode is None else decode(block)


# -- part -> native block ---------------------------------------------------------------


def _write_extras(native: JsonDict, metadata: Mapping[str, JsonValue]) -> JsonDict:
    """Write ``anthropic.<field>`` metadata back as native fields, then drop the omitted ones."""
    native.update(carried(metadata, NS, _MARKERS))
    omitted = metadata.get(OMITTED)
    for name in omitted if isinstance(omitted, list) else ():
        if isinstance(name, str):
            native.pop(name, None)
    return native


def _data_url(uri: str) -> tuple[str, str] | None:
    """``(media type, base64 data)`` of a base64 ``data:`` URL, else ``None``."""
    head, comma, data = uri[5:].partition(",") if uri[:5].lower() == "data:" else ("", "", "")
    if not comma or not head.lower().endswith(";base64"):
        return None
    return head.split(";")[0], data


def _image_source(data: DataRef, mime: str) -> JsonDict:
    if isinstance(data, InlineBytes):
        return {"type": "base64", "media_type": mime, "data": b64encode(data.value)}
    if isinstance(data, InlineText):  # an image held as its base64 text
        return {"type": "base64", "media_type": mime, "data": data.value}
    if isinstance(data, Uri):
        inline = _data_url(data.value)
        if inline is not None:
            return {"type": "base64", "media_type": inline[0] or mime, "data": inline[1]}
        return {"type": "url", "url": data.value}
    raise _fail("artifact handles must be resolved to data or a URL before sending")


def _document_source(data: DataRef, mime: str | None) -> JsonDict:
    if isinstance(data, InlineBytes) and (mime or "").startswith("text/"):
        try:
            return {"type": "text", "media_type": "text/plain", "data": data.value.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    if isinstance(data, InlineText) and (mime is None or mime.startswith("text/")):
        return {"type": "text", "media_type": "text/plain", "data": data.value}
    return _image_source(data, mime or "application/pdf")


def _file_block(part: FilePart | MediaPart, name: str | None) -> JsonDict:
    mime = part.mime_type
    if mime is not None and mime.startswith("image/"):
        return {"type": "image", "source": _image_source(part.data, mime)}
    block = {"type": "document", "source": _document_source(part.data, mime)}
    if name is not None:
        block["title"] = name
    return block


def _reasoning_block(part: ReasoningPart) -> JsonDict | None:
    if part.metadata.get(PROVIDER_KEY) != PROVIDER:
        return None  # another provider's reasoning, or none's: not Anthropic's to verify
    data = part.data
    if data is not None and not isinstance(data, InlineText):
        raise _fail("Anthropic reasoning keeps its signature or redacted data as InlineText")
    if part.redacted:
        if data is None:
            raise _fail("redacted reasoning without its data cannot be sent back")
        return {"type": "redacted_thinking", "data": data.value}
    block: JsonDict = {"type": "thinking"}
    if part.summary is not None:
        block["thinking"] = part.summary
    if data is not None:
        block["signature"] = data.value
    return block


def _tool_content(output: ToolOutput) -> str | list[JsonDict]:
    if isinstance(output, TextOutput):
        return output.text
    if isinstance(output, StructuredOutput):
        return dumps(output.value)
    parts: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else output.files if isinstance(output, FilesOutput) else ()
    blocks = []
    for part in parts:
        if isinstance(part, _NOT_IN_RESULTS):
            raise _fail(f"a tool_result cannot hold a {type(part).__name__}")
        block = _block_from_part(part)
        if block is not None:
            blocks.append(block)
    return blocks


def _block_from_part(part: Part) -> JsonDict | None:
    """The native block of ``part``; ``None`` for a part the encoder drops on purpose."""
    block: JsonDict | None
    if isinstance(part, TextPart):
        block = {"type": "text", "text": part.text}
    elif isinstance(part, ReasoningPart):
        block = _reasoning_block(part)
    elif isinstance(part, ToolCallPart):
        unparsed = part.input is None and INPUT_ERROR_KEY in part.metadata
        block = {"type": "tool_use", "id": part.id.value, "name": part.name, "input": {} if unparsed else copy_json(part.input)}
    elif isinstance(part, ToolResultPart):
        content = _tool_content(part.output)
        block = {"type": "tool_result", "tool_use_id": part.call_id.value, "content": content, "is_error": part.is_error}
    elif isinstance(part, MediaPart):
        if part.modality is Modality.IMAGE:
            block = {"type": "image", "source": _image_source(part.data, part.mime_type)}
        elif part.modality is Modality.BINARY:
            block = _file_block(part, None)
        else:
            raise _fail(f"the API takes no {part.modality.value.lower()} input")
    elif isinstance(part, FilePart):
        block = _file_block(part, part.name)
    elif isinstance(part, StructuredPart):
        block = {"type": "text", "text": dumps(part.value)}
    elif isinstance(part, CustomPart):
        if part.kind.startswith(_FOREIGN):
            return None  # another provider's block (its server tools): it cannot be replayed here
        if not part.kind.startswith(NS) or not isinstance(part.value, dict):
            raise _fail(f"custom part {part.kind!r} is not an Anthropic block")
        return copy_json(part.value)  # type: ignore[no-any-return]
    else:
        raise _fail(f"{type(part).__name__} is not a part")
    return None if block is None else _write_extras(block, part.metadata)


# -- responses --------------------------------------------------------------------------


def items_from_response(body: JsonDict) -> list[Item]:
    """A non-streaming response body as items: one ASSISTANT item with usage and finish reason.

    An error body (``{"type": "error", "error": {...}}``) gives an item with no
    parts and finish reason ``ERROR``.  Raises :class:`NormalizeError` for a
    body that is not a ``Message``.
    """
    try:
        _object(body, "", "a response body (a JSON object)")
        if body.get("type") == "error" and "error" in body:
            rest = {k: v for k, v in body.items() if k != "error"}
            _check_message(rest, "")
            return [_assistant_item(rest, (), body["error"])]
        _check_message(body, "")
        return [_assistant_item(body, [_part_from_block(b) for b in body.get("content") or ()])]
    except NormalizeError:
        raise
    except ValueError as exc:
        raise _as_normalize(exc) from None


# -- streams ----------------------------------------------------------------------------


class _Open:
    """A content block while it streams: the block so far and what its deltas left."""

    __slots__ = ("block", "kind", "json", "unknown")

    def __init__(self, block: JsonDict, kind: PartKind) -> None:
        self.block = block
        self.kind = kind
        self.json = ""
        self.unknown: list[JsonValue] = []


class AnthropicStreamDecoder:
    """Turns one stream's events into deltas; :meth:`finish` builds the turn's item.

    It keeps each open block as the SDK's accumulator does (text and thinking
    grow, the signature is set, input JSON collects and is parsed when the
    block closes), so a committed part is the one :func:`items_from_response`
    gives for the same block.  ``usage`` is the latest :class:`Usage` the
    stream reported (``None`` before ``message_start``) and ``finish_reason``
    the turn's :class:`FinishReason` once known.  An event that does not fit
    raises :class:`NormalizeError` and leaves the decoder as it was.
    """

    usage: Usage | None
    finish_reason: FinishReason | None

    def __init__(self) -> None:
        self._message: JsonDict = {}
        self._error: JsonValue = None
        self._open: dict[int, _Open] = {}
        self._starts = 0
        self.usage = None
        self.finish_reason = None

    def feed(self, event: JsonDict) -> list[Delta]:
        """The deltas one native event stands for (often none)."""
        _object(event, "", "a stream event (a JSON object)")
        kind = event.get("type")
        handler = _EVENT_HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []  # ping, and events yet to be invented
        try:
            return handler(self, event)
        except NormalizeError:
            raise
        except ValueError as exc:
            raise _as_normalize(exc) from None

    def finish(self, parts: Sequence[Part]) -> Item:
        """The turn's ASSISTANT item: the folded ``parts`` plus what the message events carried."""
        try:
            return _assistant_item(self._message, parts, self._error)
        except ValueError as exc:
            raise _as_normalize(exc) from None

    # -- event handlers: each checks everything before it changes anything

    def _message_start(self, event: JsonDict) -> list[Delta]:
        message = copy_json(_object(event.get("message"), "message"))
        _check_message(message, "message")
        content = [_part_from_block(b) for b in message.get("content") or ()]
        self._live(message)
        deltas: list[Delta] = []
        for part in content:  # blocks sent whole, under ids no content_block_start uses
            pid = PartId(f"start-{self._starts}")
            self._starts += 1
            deltas += [BeginPart(pid, part.part_kind), CommitPart(part, part_id=pid)]
        return deltas

    def _block_start(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        if index in self._open:
            raise _fail(f"content block {index} is already open", "index")
        block = copy_json(_object(event.get("content_block"), "content_block"))
        part = _part_from_block(block)
        self._open[index] = _Open(block, part.part_kind)
        pid = PartId(f"part-{index}")
        deltas: list[Delta] = [BeginPart(pid, part.part_kind)]
        if isinstance(part, CustomPart):
            deltas.append(ReplaceStructured(pid, copy_json(part.value)))
        if part.metadata or header(part):
            deltas.append(SetMetadata(pid, part.metadata.merged(header(part))))
        if isinstance(part, TextPart) and part.text:
            deltas.append(AppendText(pid, part.text))
        elif isinstance(part, ReasoningPart) and part.summary:
            deltas.append(AppendText(pid, part.summary))
        return deltas

    def _block_delta(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        opened = self._opened(index, event)
        delta = _object(event.get("delta"), "delta")
        pid = PartId(f"part-{index}")
        kind, block_type = delta.get("type"), _block_type(opened.block)
        rule = _DELTA_RULES.get(kind) if isinstance(kind, str) else None
        if rule is None or (block_type not in rule[0] and block_type not in _KNOWN_BLOCKS):
            opened.unknown.append(copy_json(delta))  # a delta nobody knows yet, or for a block nobody knows yet
            return [SetMetadata(pid, {UNKNOWN_DELTAS: copy_json(opened.unknown)})]
        blocks, field, apply = rule
        if block_type not in blocks:
            raise _fail(f"a {kind} for content block {index}, a {block_type} block", "delta.type")
        value = delta.get(field)
        if field == "citation":
            value = _object(value, "delta.citation", "a citation (a JSON object)")
        elif not isinstance(value, str):
            raise _fail(f"expected a string, found {type(value).__name__}", f"delta.{field}")
        return apply(opened, pid, value)

    def _block_stop(self, event: JsonDict) -> list[Delta]:
        index = _index(event)
        self._opened(index, event)
        return self._commit(index)

    def _message_delta(self, event: JsonDict) -> list[Delta]:
        delta, usage = event.get("delta"), event.get("usage")
        _optional(delta, dict, "delta")
        _optional(usage, dict, "usage")
        message = copy_json(self._message)
        message.update(copy_json(delta or {}))
        message.update((k, copy_json(v)) for k, v in event.items() if k not in ("type", "delta", "usage"))
        if usage is not None:  # cumulative; null means "not reported here"
            merged = dict(message.get("usage") or {})
            merged.update((k, copy_json(v)) for k, v in usage.items() if v is not None)
            message["usage"] = merged
        _check_message(message, "delta")
        self._live(message)
        return []

    def _message_stop(self, event: JsonDict) -> list[Delta]:
        return self._commit(*sorted(self._open))

    def _error_event(self, event: JsonDict) -> list[Delta]:
        error = event.get("error")
        commits = self._commit(*sorted(self._open))
        self._error = copy_json(error) if error is not None else {}
        self.finish_reason = FinishReason.ERROR
        return commits

    # -- helpers

    def _live(self, message: JsonDict) -> None:
        """Take ``message`` (checked) as the turn's message so far, and update the live attributes."""
        usage = message.get("usage")
        live = None if usage is None else usage_from_native(usage)
        reason = finish_reason(message.get("stop_reason"))
        self._message = message
        if live is not None:
            self.usage = live
        if self._error is None:
            self.finish_reason = reason

    def _opened(self, index: int, event: JsonDict) -> _Open:
        opened = self._open.get(index)
        if opened is None:
            raise _fail(f"{event['type']} for content block {index}, which is not open", "index")
        return opened

    def _commit(self, *indexes: int) -> list[Delta]:
        """Close the open blocks ``indexes``: their finished parts, committed."""
        commits: list[Delta] = []
        for index in indexes:
            opened = self._open[index]
            block, extra = dict(opened.block), dict[str, JsonValue]()
            if opened.json:
                block["input"], extra = parse_arguments(opened.json)
            part = _part_from_block(block)
            if part.part_kind is not opened.kind:  # a block that began malformed stays custom
                part = _custom(block)
            if opened.unknown:
                extra[UNKNOWN_DELTAS] = copy_json(opened.unknown)
            if extra:
                part = part.with_metadata(part.metadata.merged(extra))
            commits.append(CommitPart(part, part_id=PartId(f"part-{index}")))
        for index in indexes:
            del self._open[index]
        return commits


def _index(event: JsonDict) -> int:
    index = event.get("index")
    if type(index) is not int or index < 0:
        raise _fail(f"expected a content block index (an integer >= 0), found {_describe(index)}", "index")
    return index


def _append(field: str) -> Callable[[_Open, PartId, Any], list[Delta]]:
    """The rule of a delta that appends to the block's ``field`` (text, thinking)."""

    def apply(opened: _Open, pid: PartId, chunk: str) -> list[Delta]:
        so_far = opened.block.get(field)
        if not isinstance(so_far, (str, type(None))):
            raise _fail(f"the block's {field} is not a string", f"delta.{field}")
        opened.block[field] = (so_far or "") + chunk
        return [AppendText(pid, chunk)] if chunk else []

    return apply


def _signature(opened: _Open, pid: PartId, signature: str) -> list[Delta]:
    opened.block["signature"] = signature
    return []


def _input_json(opened: _Open, pid: PartId, fragment: str) -> list[Delta]:
    opened.json += fragment
    return [AppendText(pid, fragment)] if fragment else []


def _citation(opened: _Open, pid: PartId, citation: JsonDict) -> list[Delta]:
    so_far = opened.block.get("citations")
    if not isinstance(so_far, (list, type(None))):
        raise _fail("the block's citations are not a list", "delta.citation")
    citations = opened.block["citations"] = [*(so_far or ()), copy_json(citation)]
    return [SetMetadata(pid, {NS + "citations": copy_json(citations)})]


#: Delta type -> (the block types it applies to, the delta's field, how it applies).
_DELTA_RULES: dict[str, tuple[tuple[str, ...], str, Callable[[_Open, PartId, Any], list[Delta]]]] = {
    "text_delta": (("text",), "text", _append("text")),
    "thinking_delta": (("thinking",), "thinking", _append("thinking")),
    "signature_delta": (("thinking",), "signature", _signature),
    "input_json_delta": (_TOOL_INPUT_BLOCKS, "partial_json", _input_json),
    "citations_delta": (("text",), "citation", _citation),
}

_EVENT_HANDLERS: dict[str, Callable[[AnthropicStreamDecoder, JsonDict], list[Delta]]] = {
    "message_start": AnthropicStreamDecoder._message_start,
    "content_block_start": AnthropicStreamDecoder._block_start,
    "content_block_delta": AnthropicStreamDecoder._block_delta,
    "content_block_stop": AnthropicStreamDecoder._block_stop,
    "message_delta": AnthropicStreamDecoder._message_delta,
    "message_stop": AnthropicStreamDecoder._message_stop,
    "error": AnthropicStreamDecoder._error_event,
}


def stream_decoder() -> AnthropicStreamDecoder:
    """A fresh decoder for one stream."""
    return AnthropicStreamDecoder()


def items_from_stream(events: Iterable[JsonDict]) -> list[Item]:
    """Decode and fold a whole stream of events: the item :func:`items_from_response` gives for its message."""
    return fold_stream(AnthropicStreamDecoder(), events)


# -- requests ---------------------------------------------------------------------------


def _content_item(kind: ItemKind, content: object, metadata: dict[str, JsonValue], path: str) -> Item:
    if isinstance(content, str):
        metadata[STRING_CONTENT] = True
        return Item(kind, [TextPart(content)], metadata=metadata)
    return Item(kind, [_part_from_block(b) for b in _blocks(content, path)], metadata=metadata)


def _with_tool_names(item: Item, names: dict[str, str]) -> Item:
    """``item`` with ``agentkit.tool_name`` on each tool result whose call the request named earlier."""
    parts = [
        p.with_metadata(p.metadata.merged({TOOL_NAME_KEY: names[p.call_id.value]}))
        if isinstance(p, ToolResultPart) and p.call_id.value in names
        else p
        for p in item.parts
    ]
    return item.with_parts(parts)


def items_from_request(body: JsonDict) -> list[Item]:
    """A request body's transcript (``system`` and ``messages``) as items; other fields are not read.

    A tool result gets ``agentkit.tool_name`` when an earlier ``tool_use`` of
    the same request has its id.  Raises :class:`NormalizeError` naming the
    bad field.
    """
    try:
        _object(body, "", "a request body (a JSON object)")
        items = []
        if "system" in body:
            items.append(_content_item(ItemKind.SYSTEM, body["system"], {}, "system"))
        messages = body.get("messages", [])
        if not isinstance(messages, list):
            raise _fail(f"expected a list of messages, found {type(messages).__name__}", "messages")
        names: dict[str, str] = {}
        for i, message in enumerate(messages):
            path = f"messages[{i}]"
            _object(message, path, "a message (a JSON object)")
            role, content = message.get("role"), message.get("content")
            if role == "assistant":
                kind = ItemKind.ASSISTANT
            elif role == "user":
                has_result = isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
                kind = ItemKind.TOOL if has_result else ItemKind.USER
            else:
                raise _fail(f"expected role 'user' or 'assistant', found {_describe(role)}", path + ".role")
            item = _content_item(kind, content, carry(message, ("role", "content"), NS), path + ".content")
            if kind is ItemKind.ASSISTANT:
                names.update((p.id.value, p.name) for p in item.parts if isinstance(p, ToolCallPart))
            elif kind is ItemKind.TOOL and names:
                item = _with_tool_names(item, names)
            items.append(item)
        return items
    except NormalizeError:
        raise
    except ValueError as exc:
        raise _as_normalize(exc) from None


def _native_content(item: Item, path: str) -> str | list[JsonDict] | None:
    """The message content of ``item``; ``None`` when every part was dropped."""
    parts = item.parts
    if item.metadata.get(STRING_CONTENT) is True and len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata:
        return parts[0].text
    blocks = []
    for j, part in enumerate(parts):
        try:
            block = _block_from_part(part)
        except NormalizeError as exc:
            raise _fail(f"cannot send this part to the Anthropic Messages API: {exc.message}", f"{path}.parts[{j}]") from None
        if block is not None:
            blocks.append(block)
    return blocks if blocks or not parts else None


def request_from_items(items: Sequence[Item]) -> JsonDict:
    """The transcript fields of a request body: ``{"system": ..., "messages": [...]}``, nothing else.

    ``system`` is present only when an item is SYSTEM or DEVELOPER.  Raises
    :class:`NormalizeError` (its path ``items[i].parts[j]``) for content the
    API cannot take.
    """
    try:
        body: JsonDict = {}
        system: list[str | list[JsonDict]] = []
        messages: list[JsonDict] = []
        for i, item in enumerate(items):
            path = f"items[{i}]"
            if not isinstance(item, Item):
                raise _fail(f"expected an Item, found {type(item).__name__}", path)
            content = _native_content(item, path)
            if content is None:
                continue
            if item.kind in _SYSTEM_KINDS:
                system.append(content)
                continue
            message: JsonDict = {"role": _ROLES[item.kind], "content": content}
            if item.metadata.get(NS + "type") != "message":  # a response's fields are not message fields
                _write_extras(message, item.metadata)
            messages.append(message)
        if len(system) == 1:
            body["system"] = system[0]
        elif system:
            body["system"] = [block for content in system for block in _blocks_of(content)]
        body["messages"] = messages
        return body
    except NormalizeError:
        raise
    except ValueError as exc:
        raise _as_normalize(exc) from None


def _blocks_of(content: str | list[JsonDict]) -> list[JsonDict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content
