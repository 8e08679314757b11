"""Reference adapter: the Anthropic Messages API <-> agentkit_core.

A module of functions that satisfies :class:`agentkit_core.ProviderAdapter`:

* :func:`items_from_response`: a non-streaming ``Message`` -> one ASSISTANT item;
* :func:`stream_decoder`: stream events -> deltas, then :meth:`AnthropicStreamDecoder.finish`
  builds the same item from the folded parts (:func:`deltas_from_stream` and
  :func:`item_from_stream` are conveniences);
* :func:`items_from_request` / :func:`request_from_items`: a request body's
  ``system`` and ``messages`` <-> items.

It uses only the standard library and the public ``agentkit_core`` API.

Content blocks (the same mapping in responses, streams and requests)
--------------------------------------------------------------------

================================  ==========================================================
native block                      neutral part
================================  ==========================================================
``text``                          ``TextPart(text)``
``thinking``                      ``ReasoningPart(summary=thinking, data=InlineText(signature))``
``redacted_thinking``             ``ReasoningPart(None, data=InlineText(data), redacted=True)``
``tool_use``                      ``ToolCallPart(ToolCallId(id), name, input)``
``tool_result``                   ``ToolResultPart(ToolCallId(tool_use_id), output, is_error)``;
                                  string content -> ``TextOutput``, a block list ->
                                  ``PartsOutput`` of the blocks' parts
``image`` (base64 / url source)   ``MediaPart(IMAGE, media_type, InlineBytes(decoded))`` /
                                  ``MediaPart(IMAGE, "image/*", Uri(url))`` (a url source
                                  names no media type)
``document`` base64 / url / text  ``FilePart(InlineBytes(decoded) | Uri(url) | InlineText(data),
                                  name=title, mime_type=media_type)`` (url sources are PDFs:
                                  ``application/pdf``)
anything else                     ``CustomPart(kind="anthropic.<type>", value=<the block verbatim>)``:
                                  ``server_tool_use``, ``*_tool_result``, ``search_result``,
                                  ``tool_reference``, documents with a ``content`` or ``file``
                                  source, images or documents whose source has fields this
                                  adapter does not map or base64 that is not canonical,
                                  block types yet to be invented
================================  ==========================================================

Every field of a block that the table does not consume is kept in the part's
metadata as ``"anthropic.<field>"``, value verbatim: ``citations``,
``cache_control``, ``caller``, ``context``, a document's ``citations`` switch,
and fields nobody has seen yet.  :func:`request_from_items` writes them back.
Two markers complete the round trip and are never written as fields:

* ``"anthropic.omitted"``: the optional native fields a block left out although
  the part has a value for them (``tool_result`` without ``is_error`` is
  ``is_error=False`` with ``["is_error"]`` here, so it is rebuilt without it);
* ``"anthropic.string_content"`` (item metadata): the message's ``content``
  (or the request's ``system``) was a plain string, not a block list.

Messages and items
------------------

* ``system`` -> one SYSTEM item (a string: one ``TextPart``, plus the
  ``string_content`` marker; blocks: one ``TextPart`` per block).
* ``role: "user"`` -> USER item; a user message holding any ``tool_result``
  block -> one TOOL item whose parts follow the native block order, so text,
  images or documents sent alongside the results (``messages.tool_results_mixed``)
  stay in that item, in place.
* ``role: "assistant"`` -> ASSISTANT item.
* Back to a request: SYSTEM and DEVELOPER items become ``system`` blocks;
  ASSISTANT items assistant messages; USER, TOOL, CONTEXT and NOTIFICATION
  items user messages, one message per item (the API merges consecutive turns
  of one role itself).  A message's extra fields are item metadata
  ``"anthropic.<field>"`` and are written back, except for items that came
  from a response (their metadata has ``anthropic.type == "message"``): those
  keys describe the response, not a message to send.

Responses
---------

=========================================  ====================================================
``Message`` field                          neutral field
=========================================  ====================================================
``id``                                     ``Item.id = MessageId(id)``
``role``                                   ``Item.kind = ASSISTANT``
``content``                                ``Item.parts`` (table above)
``usage``                                  ``Item.usage`` (below); verbatim in
                                           ``Usage.metadata["anthropic.usage"]``
``stop_reason``                            ``Item.finish_reason`` (below) and, verbatim,
                                           ``"anthropic.stop_reason"``
``type``, ``model``, ``stop_sequence``,    item metadata ``"anthropic.<field>"``, verbatim
``stop_details``, ``container``, others
=========================================  ====================================================

Token convention (``agentkit_core.usage``): Anthropic's ``input_tokens``
*excludes* cache traffic, so ``TokenUsage.input_tokens = input_tokens +
cache_read_input_tokens + cache_creation_input_tokens``;
``cached_input_tokens = cache_read_input_tokens``,
``cache_write_input_tokens = cache_creation_input_tokens`` (``None`` when the
usage object lacks the field); ``output_tokens`` as reported (it already
includes thinking); ``reasoning_tokens`` is ``None`` (not reported).

Stop reasons: ``end_turn``, ``stop_sequence`` -> ``COMPLETED``; ``tool_use`` ->
``TOOL_CALL``; ``max_tokens``, ``model_context_window_exceeded`` -> ``MAX_TOKENS``;
``refusal`` -> ``BLOCKED`` (``stop_details`` kept); anything else (``pause_turn``,
future values) -> ``FinishReason.other(raw)``; a stream that ends with an
``error`` event and no stop reason -> ``ERROR`` (the error object kept as
``"anthropic.error"``).

Streams
-------

Each content block becomes the part ``PartId(f"part-{index}")``:
``content_block_start`` -> ``BeginPart`` (plus ``SetMetadata`` with the block's
extra fields and the fold's header keys, ``agentkit.tool_call_id`` and
``agentkit.tool_name`` for ``tool_use``, ``agentkit.custom_kind`` for custom
parts, so a snapshot names the tool while its input streams; and for custom
parts ``ReplaceStructured`` with the block as it started); ``text_delta`` / ``thinking_delta`` -> ``AppendText`` of the text /
summary; ``input_json_delta`` -> ``AppendText`` of the raw JSON fragment (empty
fragments are skipped); ``citations_delta`` -> ``SetMetadata`` of the citations
so far; ``signature_delta`` only updates the block;  ``content_block_stop`` ->
``CommitPart(part, part_id=...)`` with the finished block's part, which carries
everything (signature, parsed input, citations).  Blocks delivered whole
(``redacted_thinking``, ``*_tool_result``) are begun and committed with nothing
in between.  Tool input that is not valid JSON at ``content_block_stop``
commits as ``input=None`` with the text and the parse error under the fold's
own keys, ``"agentkit.input_json"`` and ``"agentkit.input_error"``; a delta type
this adapter does not know is kept, verbatim, in the part's metadata under
``"anthropic.unknown_deltas"`` (a marker: never sent back).  ``message_start`` / ``message_delta`` feed the item's id, usage
(``message_delta.usage`` is cumulative: its fields overwrite the start's),
stop reason and metadata, which :meth:`AnthropicStreamDecoder.finish` reads.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .. import (
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FilePart,
    FilesOutput,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    MetadataMap,
    Modality,
    NormalizeError,
    Part,
    PartId,
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

__all__ = (
    "AnthropicStreamDecoder",
    "deltas_from_stream",
    "finish_reason",
    "item_from_stream",
    "items_from_request",
    "items_from_response",
    "request_from_items",
    "stream_decoder",
    "usage_from_native",
)

JsonDict = dict[str, Any]

NS = "anthropic."
#: Marker keys: they steer the rebuild and are never written as native fields.
OMITTED = NS + "omitted"
STRING_CONTENT = NS + "string_content"
UNKNOWN_DELTAS = NS + "unknown_deltas"
_MARKERS = frozenset((OMITTED, STRING_CONTENT, UNKNOWN_DELTAS))
#: The fold's keys for tool-call argument text that is not valid JSON (shared by every adapter).
INPUT_JSON = "agentkit.input_json"
INPUT_ERROR = "agentkit.input_error"
#: Prefix of the fold's header keys (``agentkit.tool_name``...), sent when a block opens.
HEADER = "agentkit."

_FINISH: dict[str, FinishReason] = {
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "tool_use": FinishReason.TOOL_CALL,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "refusal": FinishReason.BLOCKED,
}

#: Item kinds sent in the ``system`` field, and the role of every other kind.
_SYSTEM_KINDS = frozenset((ItemKind.SYSTEM, ItemKind.DEVELOPER))
_ROLES = {
    ItemKind.USER: "user",
    ItemKind.TOOL: "user",
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
    ItemKind.ASSISTANT: "assistant",
}


# -- shared helpers --------------------------------------------------------------------


def _extras(native: JsonDict, consumed: Iterable[str]) -> JsonDict:
    """The fields of ``native`` not in ``consumed``, as ``anthropic.*`` metadata (deep copies)."""
    skip = set(consumed)
    return {NS + k: copy.deepcopy(v) for k, v in native.items() if k not in skip}


def _meta(native: JsonDict, consumed: Iterable[str]) -> MetadataMap:
    """:func:`_extras` as a part's metadata."""
    return MetadataMap(_extras(native, consumed))


def _write_extras(native: JsonDict, metadata: Mapping[str, Any]) -> JsonDict:
    """Write a part's or item's ``anthropic.*`` metadata back as native fields; apply ``omitted``."""
    for key, value in metadata.items():
        if key.startswith(NS) and key not in _MARKERS:
            native[key[len(NS) :]] = copy.deepcopy(value)
    for name in metadata.get(OMITTED) or ():
        native.pop(name, None)
    return native


def _canonical_b64decode(text: object) -> bytes | None:
    """The bytes ``text`` encodes if it is base64 that re-encodes to itself exactly, else ``None``."""
    if not isinstance(text, str):
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode("ascii") == text else None


def finish_reason(stop_reason: str | None) -> FinishReason | None:
    """A native ``stop_reason`` as a :class:`FinishReason` (``None`` stays ``None``)."""
    if stop_reason is None:
        return None
    return _FINISH.get(stop_reason) or FinishReason.other(stop_reason)


def _count(usage: JsonDict, key: str) -> int | None:
    value = usage.get(key)
    return value if type(value) is int else None


def usage_from_native(usage: JsonDict) -> Usage:
    """A native ``usage`` object as :class:`Usage` (see the token convention above)."""
    cache_read = _count(usage, "cache_read_input_tokens")
    cache_write = _count(usage, "cache_creation_input_tokens")
    tokens = TokenUsage(
        (_count(usage, "input_tokens") or 0) + (cache_read or 0) + (cache_write or 0),
        _count(usage, "output_tokens") or 0,
        cached_input_tokens=cache_read,
        cache_write_input_tokens=cache_write,
    )
    return Usage(tokens, metadata=MetadataMap({NS + "usage": copy.deepcopy(usage)}))


def _assistant_item(message: JsonDict, parts: Sequence[Part], error: JsonDict | None = None) -> Item:
    """The ASSISTANT item of a native ``Message`` (its ``content`` already turned into ``parts``)."""
    metadata = _extras(message, ("id", "role", "content", "usage"))
    raw_usage = message.get("usage")
    reason = finish_reason(message.get("stop_reason"))
    if error is not None:
        metadata[NS + "error"] = copy.deepcopy(error)
        reason = reason or FinishReason.ERROR
    message_id = message.get("id")
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(message_id) if isinstance(message_id, str) else None,
        metadata=MetadataMap(metadata),
        usage=usage_from_native(raw_usage) if isinstance(raw_usage, dict) else None,
        finish_reason=reason,
    )


# -- native block -> part --------------------------------------------------------------


def _custom(block: JsonDict) -> CustomPart:
    return CustomPart(f"{NS}{block.get('type')}", value=copy.deepcopy(block))


def _text(block: JsonDict) -> Part:
    if not isinstance(block.get("text"), str):
        return _custom(block)
    return TextPart(block["text"], metadata=_meta(block, ("type", "text")))


def _thinking(block: JsonDict) -> Part:
    summary, signature = block.get("thinking"), block.get("signature")
    if not isinstance(summary, (str, type(None))) or not isinstance(signature, (str, type(None))):
        return _custom(block)
    consumed = ["type"]
    if summary is not None:
        consumed.append("thinking")
    if signature is not None:
        consumed.append("signature")
    return ReasoningPart(
        summary,
        data=None if signature is None else InlineText(signature),
        metadata=_meta(block, consumed),
    )


def _redacted_thinking(block: JsonDict) -> Part:
    if not isinstance(block.get("data"), str):
        return _custom(block)
    return ReasoningPart(None, data=InlineText(block["data"]), redacted=True, metadata=_meta(block, ("type", "data")))


def _tool_use(block: JsonDict) -> Part:
    if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str) or "input" not in block:
        return _custom(block)
    return ToolCallPart(
        ToolCallId(block["id"]),
        block["name"],
        copy.deepcopy(block["input"]),
        metadata=_meta(block, ("type", "id", "name", "input")),
    )


def _tool_result(block: JsonDict) -> Part:
    call_id, content, is_error = block.get("tool_use_id"), block.get("content", ""), block.get("is_error", False)
    if not isinstance(call_id, str) or not isinstance(is_error, bool):
        return _custom(block)
    output: ToolOutput
    if isinstance(content, str):
        output = TextOutput(content)
    elif isinstance(content, list) and all(isinstance(b, dict) for b in content):
        output = PartsOutput(tuple(_part_from_block(b) for b in content))
    else:
        return _custom(block)
    metadata = _extras(block, ("type", "tool_use_id", "content", "is_error"))
    omitted = [name for name in ("content", "is_error") if name not in block]
    if omitted:
        metadata[OMITTED] = omitted
    return ToolResultPart(ToolCallId(call_id), output, is_error=is_error, metadata=MetadataMap(metadata))


def _image(block: JsonDict) -> Part:
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64" and set(source) == {"type", "media_type", "data"}:
        data = _canonical_b64decode(source["data"])
        if data is not None and isinstance(source["media_type"], str):
            return MediaPart(Modality.IMAGE, source["media_type"], InlineBytes(data), metadata=_meta(block, ("type", "source")))
    if isinstance(source, dict) and source.get("type") == "url" and set(source) == {"type", "url"}:
        if isinstance(source["url"], str):
            return MediaPart(Modality.IMAGE, "image/*", Uri(source["url"]), metadata=_meta(block, ("type", "source")))
    return _custom(block)


def _document(block: JsonDict) -> Part:
    source = block.get("source")
    if not isinstance(source, dict):
        return _custom(block)
    kind, keys = source.get("type"), set(source)
    data: InlineBytes | InlineText | Uri | None = None
    mime: object = None
    if kind == "base64" and keys == {"type", "media_type", "data"}:
        decoded = _canonical_b64decode(source["data"])
        data, mime = (None if decoded is None else InlineBytes(decoded)), source["media_type"]
    elif kind == "text" and keys == {"type", "media_type", "data"} and isinstance(source["data"], str):
        data, mime = InlineText(source["data"]), source["media_type"]
    elif kind == "url" and keys == {"type", "url"} and isinstance(source["url"], str):
        data, mime = Uri(source["url"]), "application/pdf"
    if data is None or not isinstance(mime, str):
        return _custom(block)
    title = block.get("title")
    consumed = ("type", "source", "title") if isinstance(title, str) else ("type", "source")
    return FilePart(
        data,
        name=title if isinstance(title, str) else None,
        mime_type=mime,
        metadata=_meta(block, consumed),
    )


_BLOCK_DECODERS = {
    "text": _text,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "image": _image,
    "document": _document,
}


def _part_from_block(block: JsonDict) -> Part:
    decode = _BLOCK_DECODERS.get(block.get("type"))  # type: ignore[arg-type]
    return _custom(block) if decode is None else decode(block)


# -- part -> native block --------------------------------------------------------------


def _unsupported(part: Part, why: str) -> NormalizeError:
    return NormalizeError(f"cannot send a {type(part).__name__} to the Anthropic Messages API: {why}")


def _source(part: MediaPart | FilePart, default_mime: str) -> JsonDict:
    data, mime = part.data, part.mime_type or default_mime
    if isinstance(data, InlineBytes):
        return {"type": "base64", "media_type": mime, "data": base64.b64encode(data.value).decode("ascii")}
    if isinstance(data, Uri):
        return {"type": "url", "url": data.value}
    if isinstance(data, InlineText):
        if isinstance(part, MediaPart):  # an image held as its base64 text
            return {"type": "base64", "media_type": mime, "data": data.value}
        return {"type": "text", "media_type": mime, "data": data.value}
    raise _unsupported(part, "artifact handles must be resolved to data or a URL first")


def _block_from_part(part: Part) -> JsonDict:
    block: JsonDict
    if isinstance(part, TextPart):
        block = {"type": "text", "text": part.text}
    elif isinstance(part, ReasoningPart):
        if part.data is not None and not isinstance(part.data, InlineText):
            raise _unsupported(part, "reasoning data must be the signature or redacted data as InlineText")
        if part.redacted:
            if part.data is None:
                raise _unsupported(part, "redacted reasoning without its data cannot be echoed")
            block = {"type": "redacted_thinking", "data": part.data.value}
        else:
            block = {"type": "thinking"}
            if part.summary is not None:
                block["thinking"] = part.summary
            if part.data is not None:
                block["signature"] = part.data.value
    elif isinstance(part, ToolCallPart):
        block = {"type": "tool_use", "id": part.id.value, "name": part.name, "input": copy.deepcopy(part.input)}
    elif isinstance(part, ToolResultPart):
        block = {
            "type": "tool_result",
            "tool_use_id": part.call_id.value,
            "content": _tool_content(part.output),
            "is_error": part.is_error,
        }
    elif isinstance(part, MediaPart):
        if part.modality is not Modality.IMAGE:
            raise _unsupported(part, f"the API takes no {part.modality.value} input")
        block = {"type": "image", "source": _source(part, "image/png")}
    elif isinstance(part, FilePart):
        if (part.mime_type or "").startswith("image/"):
            block = {"type": "image", "source": _source(part, "image/png")}
        else:
            block = {"type": "document", "source": _source(part, "application/pdf")}
            if part.name is not None:
                block["title"] = part.name
    elif isinstance(part, StructuredPart):
        block = {"type": "text", "text": json.dumps(part.value, ensure_ascii=False)}
    elif isinstance(part, CustomPart):
        if not part.kind.startswith(NS) or not isinstance(part.value, dict):
            raise _unsupported(part, f"custom part {part.kind!r} is not an Anthropic block")
        return copy.deepcopy(part.value)
    else:  # pragma: no cover - every Part variant is handled above
        raise _unsupported(part, "unknown part")
    return _write_extras(block, part.metadata)


def _tool_content(output: ToolOutput) -> str | list[JsonDict]:
    if isinstance(output, TextOutput):
        return output.text
    if isinstance(output, PartsOutput):
        return [_block_from_part(p) for p in output.parts]
    if isinstance(output, FilesOutput):
        return [_block_from_part(f) for f in output.files]
    if isinstance(output, StructuredOutput):
        return json.dumps(output.value, ensure_ascii=False)
    raise NormalizeError(f"unknown tool output {type(output).__name__}")  # pragma: no cover


# -- responses -------------------------------------------------------------------------


def items_from_response(response: JsonDict) -> list[Item]:
    """A non-streaming ``Message`` as items: one ASSISTANT item with usage and finish reason."""
    parts = [_part_from_block(b) for b in response.get("content") or () if isinstance(b, dict)]
    return [_assistant_item(response, parts)]


# -- streams ---------------------------------------------------------------------------


def _header(part: Part) -> JsonDict:
    """The fold's header keys for an open part: what its commit will carry in its own fields.

    Sent with the block's ``SetMetadata`` so ``FoldState.snapshot()`` shows the
    tool's id and name (or the media type, file name, custom kind) while the
    block streams; the committed part carries the real fields.
    """
    if isinstance(part, ToolCallPart):
        return {HEADER + "tool_call_id": part.id.value, HEADER + "tool_name": part.name}
    if isinstance(part, MediaPart):
        return {HEADER + "modality": part.modality.value, HEADER + "mime_type": part.mime_type}
    if isinstance(part, FilePart):
        header = {HEADER + "file_name": part.name, HEADER + "mime_type": part.mime_type}
        return {k: v for k, v in header.items() if v is not None}
    if isinstance(part, CustomPart):
        return {HEADER + "custom_kind": part.kind}
    return {}


class AnthropicStreamDecoder:
    """Turns one stream's events into deltas; :meth:`finish` builds the turn's item.

    It keeps each open block as the SDK's accumulator would (text and thinking
    grow, the signature is set, raw input JSON collects and is parsed at
    ``content_block_stop``), so the committed part is the one
    :func:`items_from_response` gives for the same block.
    """

    def __init__(self) -> None:
        self._message: JsonDict = {}
        self._error: JsonDict | None = None
        self._blocks: dict[int, JsonDict] = {}
        self._json: dict[int, str] = {}
        self._unknown: dict[int, list[Any]] = {}

    def feed(self, event: JsonDict) -> list[Delta]:
        """The deltas one native event stands for (often none)."""
        handler = _EVENT_HANDLERS.get(event.get("type"))  # type: ignore[arg-type]
        return [] if handler is None else handler(self, event)

    def finish(self, parts: Sequence[Part]) -> Item:
        """The turn's ASSISTANT item: the folded ``parts`` plus what the message events carried."""
        return _assistant_item(self._message, parts, self._error)

    # event handlers

    def _message_start(self, event: JsonDict) -> list[Delta]:
        message = copy.deepcopy(event.get("message") or {})
        self._message = message
        content = message.get("content") or []
        return [CommitPart(_part_from_block(b)) for b in content if isinstance(b, dict)]

    def _block_start(self, event: JsonDict) -> list[Delta]:
        index, block = event["index"], copy.deepcopy(event["content_block"])
        self._blocks[index] = block
        self._json[index] = ""
        pid = PartId(f"part-{index}")
        part = _part_from_block(block)
        deltas: list[Delta] = [BeginPart(pid, part.part_kind)]
        if isinstance(part, CustomPart):
            deltas.append(ReplaceStructured(pid, copy.deepcopy(part.value)))
            deltas.append(SetMetadata(pid, MetadataMap(_header(part))))
        elif part.metadata or _header(part):
            deltas.append(SetMetadata(pid, part.metadata.merged(_header(part))))
        if isinstance(part, TextPart) and part.text:
            deltas.append(AppendText(pid, part.text))
        elif isinstance(part, ReasoningPart) and part.summary:
            deltas.append(AppendText(pid, part.summary))
        return deltas

    def _open(self, event: JsonDict) -> tuple[int, JsonDict]:
        index = event.get("index")
        block = self._blocks.get(index)  # type: ignore[arg-type]
        if block is None:
            raise NormalizeError(f"{event.get('type')} for content block {index!r}, which is not open")
        return index, block  # type: ignore[return-value]

    def _block_delta(self, event: JsonDict) -> list[Delta]:
        index, block = self._open(event)
        delta, pid = event["delta"], PartId(f"part-{index}")
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
            return [AppendText(pid, delta["text"])] if delta["text"] else []
        if kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
            return [AppendText(pid, delta["thinking"])] if delta["thinking"] else []
        if kind == "signature_delta":
            block["signature"] = delta["signature"]
            return []
        if kind == "input_json_delta":
            self._json[index] += delta["partial_json"]
            return [AppendText(pid, delta["partial_json"])] if delta["partial_json"] else []
        if kind == "citations_delta":
            block["citations"] = [*(block.get("citations") or []), copy.deepcopy(delta["citation"])]
            return [SetMetadata(pid, MetadataMap({NS + "citations": copy.deepcopy(block["citations"])}))]
        self._unknown.setdefault(index, []).append(copy.deepcopy(delta))
        return [SetMetadata(pid, MetadataMap({UNKNOWN_DELTAS: copy.deepcopy(self._unknown[index])}))]

    def _block_stop(self, event: JsonDict) -> list[Delta]:
        index, block = self._open(event)
        del self._blocks[index]
        raw = self._json.pop(index, "")
        extra: JsonDict = {}
        if raw:
            try:
                block["input"] = json.loads(raw)
            except ValueError as exc:  # never a crash: keep the text, as the fold does
                block["input"] = None
                extra = {INPUT_JSON: raw, INPUT_ERROR: str(exc)}
        part = _part_from_block(block)
        if index in self._unknown:
            extra[UNKNOWN_DELTAS] = self._unknown.pop(index)
        if extra:
            part = part.with_metadata(part.metadata.merged(extra))
        return [CommitPart(part, part_id=PartId(f"part-{index}"))]

    def _message_delta(self, event: JsonDict) -> list[Delta]:
        for key, value in event.items():
            if key == "delta":
                self._message.update(copy.deepcopy(value))
            elif key == "usage" and isinstance(value, dict):  # cumulative; null means "not reported here"
                usage = self._message.get("usage")
                usage = dict(usage) if isinstance(usage, dict) else {}
                usage.update((k, copy.deepcopy(v)) for k, v in value.items() if v is not None)
                self._message["usage"] = usage
            elif key != "type":
                self._message[key] = copy.deepcopy(value)
        return []

    def _error_event(self, event: JsonDict) -> list[Delta]:
        self._error = copy.deepcopy(event.get("error") or {})
        return []


_EVENT_HANDLERS = {
    "message_start": AnthropicStreamDecoder._message_start,
    "content_block_start": AnthropicStreamDecoder._block_start,
    "content_block_delta": AnthropicStreamDecoder._block_delta,
    "content_block_stop": AnthropicStreamDecoder._block_stop,
    "message_delta": AnthropicStreamDecoder._message_delta,
    "error": AnthropicStreamDecoder._error_event,
}


def stream_decoder() -> AnthropicStreamDecoder:
    """A decoder for one stream."""
    return AnthropicStreamDecoder()


def deltas_from_stream(events: Iterable[JsonDict], decoder: AnthropicStreamDecoder | None = None) -> Iterator[Delta]:
    """Every delta of a stream of events, in order."""
    decoder = decoder or AnthropicStreamDecoder()
    for event in events:
        yield from decoder.feed(event)


def item_from_stream(events: Iterable[JsonDict]) -> Item:
    """Decode and fold a whole stream: the item :func:`items_from_response` gives for its message."""
    from .. import FoldState, fold_all

    decoder = AnthropicStreamDecoder()
    state = fold_all(FoldState(), deltas_from_stream(events, decoder))
    return decoder.finish(state.parts)


# -- requests --------------------------------------------------------------------------


def _content_item(kind: ItemKind, content: object, extras: JsonDict) -> Item:
    if isinstance(content, str):
        return Item(kind, (TextPart(content),), metadata=MetadataMap({**extras, STRING_CONTENT: True}))
    blocks = content if isinstance(content, list) else []
    return Item(kind, tuple(_part_from_block(b) for b in blocks if isinstance(b, dict)), metadata=MetadataMap(extras))


def items_from_request(request: JsonDict) -> list[Item]:
    """A request body's transcript (``system`` and ``messages``) as items."""
    items: list[Item] = []
    if "system" in request:
        items.append(_content_item(ItemKind.SYSTEM, request["system"], {}))
    for message in request.get("messages") or ():
        content = message.get("content")
        if message.get("role") == "assistant":
            kind = ItemKind.ASSISTANT
        elif isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            kind = ItemKind.TOOL
        else:
            kind = ItemKind.USER
        items.append(_content_item(kind, content, _extras(message, ("role", "content"))))
    return items


def _native_content(item: Item) -> str | list[JsonDict]:
    parts = item.parts
    if item.metadata.get(STRING_CONTENT) and len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata:
        return parts[0].text
    return [_block_from_part(p) for p in parts]


def request_from_items(items: Sequence[Item]) -> JsonDict:
    """The transcript fields of a request body: ``{"system": ..., "messages": [...]}``.

    ``system`` is present only when an item is SYSTEM or DEVELOPER.  Raises
    :class:`~agentkit_core.NormalizeError` for content the API cannot take
    (audio, artifact handles, another provider's custom parts).
    """
    system_items = [item for item in items if item.kind in _SYSTEM_KINDS]
    body: JsonDict = {}
    if len(system_items) == 1:
        body["system"] = _native_content(system_items[0])
    elif system_items:
        body["system"] = [_block_from_part(p) for item in system_items for p in item.parts]
    messages: list[JsonDict] = []
    for item in items:
        role = _ROLES.get(item.kind)
        if role is None:
            continue
        message: JsonDict = {"role": role, "content": _native_content(item)}
        if item.metadata.get(NS + "type") != "message":  # a response's fields are not message fields
            _write_extras(message, item.metadata)
        messages.append(message)
    body["messages"] = messages
    return body
