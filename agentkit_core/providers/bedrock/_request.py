"""Private to :mod:`.bedrock`: parts -> Converse content blocks, items <-> a request's ``system`` and ``messages``.

The inverse of :mod:`._response`; what is sent and what is dropped is
tabulated in ``docs/bedrock.md``.  Converse takes media as bytes (base64 on
the wire) or an S3 location, never a web URL; a document needs a ``name``
(``"document"`` when the part has none).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ... import (
    PROVIDER_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    ModelSettings,
    NormalizeError,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)
from ..._for_providers import PROVIDERS
from .._common import (
    JsonDict,
    b64decode,
    b64encode,
    checked_list,
    copy_json,
    dumps,
    fields_to_metadata,
    json_object,
    metadata_to_fields,
    name_results,
    parse_data_url,
    wrong,
)
from .._common.held import as_native
from .._common.reuse import BuildCache, fresh
from .._common.settings import with_settings
from ._held import REQUEST
from ._keys import MARKERS, NS, OMITTED, PROVIDER
from ._response import DOCUMENT_FORMATS, IMAGE_FORMATS, NOT_IN_RESULTS, VIDEO_FORMATS, content_blocks, part_from_block
from ._settings import checked_body, fields_of
from ._tools import Choice, Tools, tool_fields

#: The other providers' namespaces: their custom parts (server tools' blocks) cannot be replayed here, so are dropped.
_FOREIGN = tuple(row.namespace for row in PROVIDERS if row.namespace != NS)
_FORMATS = {
    Modality.IMAGE: {mime: fmt for fmt, mime in IMAGE_FORMATS.items()},
    Modality.VIDEO: {mime: fmt for fmt, mime in VIDEO_FORMATS.items()},
}
_DOCUMENTS = {mime: fmt for fmt, mime in DOCUMENT_FORMATS.items()}
_SPELLINGS = {"image/jpg": "image/jpeg", "text/x-markdown": "text/markdown"}
_SYSTEM_KINDS = (ItemKind.SYSTEM, ItemKind.DEVELOPER)
#: Item metadata written back as the message's own fields (a request's message read back keeps them so).
MESSAGE_NS = NS + "message."


# -- part -> native block ---------------------------------------------------------------


def _source(data: DataRef, what: str) -> tuple[JsonDict, str | None]:
    """A ``source`` for ``data`` and the media type a ``data:`` URL names (``None`` if it names none)."""
    if isinstance(data, InlineBytes):
        return {"bytes": b64encode(data.value)}, None
    if isinstance(data, Uri):
        inline = parse_data_url(data.value, exact=False)
        if inline is not None:
            decoded = b64decode(inline[1])
            if decoded is None:
                raise NormalizeError("the data: URL's base64 does not decode")
            return {"bytes": b64encode(decoded)}, inline[0] or None
        if data.value.startswith("s3://"):
            return {"s3Location": {"uri": data.value}}, None
        raise NormalizeError(f"Converse reads {what} as bytes or from an s3:// location, not from a web URL")
    if isinstance(data, InlineText):
        if b64decode(data.value) is None:
            raise NormalizeError(f"{what} held as text must be base64")
        return {"bytes": data.value}, None
    raise NormalizeError("artifact handles must be resolved to data or a URL before sending")


def _media_block(part: MediaPart) -> JsonDict:
    if part.modality is Modality.BINARY:
        return _document_block(part.data, part.mime_type, None)
    formats = _FORMATS.get(part.modality)
    if formats is None:
        raise NormalizeError(f"Converse takes no {part.modality.value.lower()} input")
    key = "image" if part.modality is Modality.IMAGE else "video"
    source, named = _source(part.data, f"an {key}")
    mime = _SPELLINGS.get(named or part.mime_type, named or part.mime_type)
    fmt = formats.get(mime)
    if fmt is None:
        raise NormalizeError(f"Converse reads {key}s of the types {', '.join(formats)}, not {mime!r}")
    return {key: {"format": fmt, "source": source}}


def _document_block(data: DataRef, mime: str | None, name: str | None, omitted: object = None) -> JsonDict:
    if isinstance(data, InlineText) and (mime is None or mime.startswith("text/")):
        document: JsonDict = {"format": _DOCUMENTS.get(mime or "text/plain", "txt"), "name": name or "document", "source": {"text": data.value}}
    else:
        source, named = _source(data, "a document")
        kind = _SPELLINGS.get(named or mime or "", named or mime or "")
        fmt = _DOCUMENTS.get(kind)
        if fmt is None:
            raise NormalizeError(f"Converse reads documents of the types {', '.join(_DOCUMENTS)}, not {kind or 'unnamed'!r}")
        document = {"format": fmt, "name": name or "document", "source": source}
    if isinstance(omitted, list) and "format" in omitted:
        del document["format"]
    return {"document": document}


def _reasoning_block(part: ReasoningPart) -> JsonDict | None:
    if part.metadata.get(PROVIDER_KEY) != PROVIDER:
        return None  # another provider's reasoning, or none's: not Bedrock's to verify
    data = part.data
    if data is not None and not isinstance(data, InlineText):
        raise NormalizeError("Bedrock reasoning keeps its signature or redacted content as InlineText")
    if part.redacted:
        if data is None:
            raise NormalizeError("redacted reasoning without its data cannot be sent back")
        return {"reasoningContent": {"redactedContent": data.value}}
    text: JsonDict = {"text": part.summary or ""}
    if data is not None:
        text["signature"] = data.value
    return {"reasoningContent": {"reasoningText": text}}


def _result_block(part: Part) -> JsonDict | None:
    if isinstance(part, NOT_IN_RESULTS):
        raise NormalizeError(f"a toolResult cannot hold a {type(part).__name__}")
    if isinstance(part, StructuredPart):
        return {"json": copy_json(part.value)} if isinstance(part.value, dict) else {"text": dumps(part.value)}
    return block_from_part(part)


def _result_content(part: ToolResultPart) -> list[JsonDict]:
    output: ToolOutput = part.output
    if isinstance(output, TextOutput):
        return [{"text": output.text}]
    if isinstance(output, StructuredOutput):
        value = output.value
        return [{"json": copy_json(value)}] if isinstance(value, dict) else [{"text": dumps(value)}]
    parts: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else output.files if isinstance(output, FilesOutput) else ()
    blocks = [_result_block(p) for p in parts]
    return [b for b in blocks if b is not None]


def _call_input(part: ToolCallPart) -> JsonDict:
    if part.input is None:
        return {}
    if not isinstance(part.input, dict):
        raise NormalizeError(f"a toolUse input: expected a JSON object, found {type(part.input).__name__}")
    value: JsonDict = copy_json(part.input)
    return value


def block_from_part(part: Part) -> JsonDict | None:
    """The content block of ``part``; ``None`` for a part the encoder drops on purpose."""
    md = part.metadata
    if isinstance(part, TextPart):
        return {"text": part.text} if part.text else None  # Converse refuses an empty text block
    if isinstance(part, ReasoningPart):
        return _reasoning_block(part)
    if isinstance(part, ToolCallPart):
        use: JsonDict = {"toolUseId": part.id.value, "name": part.name, "input": _call_input(part)}
        use.update(metadata_to_fields(md, NS, (*MARKERS, "status")))
        omitted = md.get(OMITTED)
        if isinstance(omitted, list) and "input" in omitted and use["input"] == {}:
            del use["input"]
        return {"toolUse": use}
    if isinstance(part, ToolResultPart):
        result: JsonDict = {"toolUseId": part.call_id.value, "content": _result_content(part)}
        status = "error" if part.is_error else md.get(NS + "status")
        if status in ("success", "error"):
            result["status"] = status
        result.update(metadata_to_fields(md, NS, (*MARKERS, "status")))
        return {"toolResult": result}
    if isinstance(part, MediaPart):
        return _media_block(part)
    if isinstance(part, FilePart):
        return _document_block(part.data, part.mime_type, part.name, md.get(OMITTED))
    if isinstance(part, StructuredPart):
        return {"text": dumps(part.value)}
    if isinstance(part, CustomPart):
        if part.kind.startswith(_FOREIGN):
            return None
        if not part.kind.startswith(NS) or not isinstance(part.value, dict):
            raise NormalizeError(f"custom part {part.kind!r} is not a Converse content block")
        return {k: copy_json(v) for k, v in part.value.items()}
    raise NormalizeError(f"{type(part).__name__} is not a part")


# -- items -> a request's system and messages ---------------------------------------------


def _content(item: Item, path: str) -> list[JsonDict]:
    blocks = []
    for j, part in enumerate(item.parts):
        try:
            block = block_from_part(part)
            if item.kind in _SYSTEM_KINDS and block is not None and set(block) - {"text", "cachePoint", "guardContent"}:
                raise NormalizeError(f"the system prompt holds only text, not a {next(iter(block))} block")
        except NormalizeError as exc:
            raise NormalizeError(f"cannot send this part to Bedrock Converse: {exc.message}", f"{path}.parts[{j}]") from None
        if block is not None:
            blocks.append(block)
    return blocks


class Build:
    """The fold that writes ``system`` and ``messages`` (:class:`~.._common.reuse.Build`): each message is final when made."""

    __slots__ = ("messages", "system")

    def __init__(self) -> None:
        self.messages: list[JsonDict] = []
        self.system: list[JsonDict] | None = None  # None until a SYSTEM or DEVELOPER item comes (an empty one is [])

    def copy(self) -> Build:
        build = type(self)()
        build.messages, build.system = list(self.messages), None if self.system is None else list(self.system)
        return build

    def add(self, i: int, item: Item) -> None:
        content = _content(item, f"items[{i}]")
        if item.kind in _SYSTEM_KINDS:
            self.system = [*(self.system or ()), *content]
            return
        if not content:
            return  # Converse refuses an empty message (foreign reasoning alone, blank text)
        message: JsonDict = {"role": "assistant" if item.kind is ItemKind.ASSISTANT else "user", "content": content}
        message.update(metadata_to_fields(item.metadata, MESSAGE_NS))
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == message["role"] and set(last) == set(message) == {"role", "content"}:
            # Converse wants the roles to alternate: a user's text after tool results joins their message
            self.messages[-1] = {"role": last["role"], "content": [*last["content"], *content]}
            return
        self.messages.append(message)

    def take_final(self) -> list[JsonDict]:
        # the last message stays open: the next item may join it (same role)
        out, self.messages = self.messages[:-1], self.messages[-1:]
        return out

    def rest(self) -> list[JsonDict]:
        return list(self.messages)

    def fields(self, messages: object, count: int) -> JsonDict:
        body: JsonDict = {"messages": messages}
        if self.system is not None:
            body["system"] = list(self.system)
        return body


def transcript_fields(checked: Sequence[Item]) -> JsonDict:
    """``{"messages": [...], "system": [...]}`` for ``checked`` items, raising
    :class:`~agentkit_core.NormalizeError` at ``items[i].parts[j]`` for what Converse cannot take."""
    return fresh(Build(), checked)


# -- requests ---------------------------------------------------------------------------


def items_from_request(body: object) -> list[Item]:
    """A ``Converse`` request body's transcript (``system`` and ``messages``) as items; other fields are not read.

    A message holding a ``toolResult`` is a TOOL item; a tool result gets
    ``agentkit.tool_name`` when an earlier ``toolUse`` has its id.  Raises
    :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native(body, REQUEST)
    items = []
    if "system" in body:
        system = content_blocks(body["system"], "system")
        items.append(Item(ItemKind.SYSTEM, [part_from_block(b) for b in system]))
    messages = body.get("messages", [])
    if not isinstance(messages, list):
        raise wrong("a list of messages", messages, "messages")
    for i, message in enumerate(messages):
        path = f"messages[{i}]"
        json_object(message, path, "a message (a JSON object)")
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise wrong("role 'user' or 'assistant'", role, path + ".role")
        blocks = content_blocks(message.get("content", []), path + ".content")
        parts = [part_from_block(b) for b in blocks]
        kind = ItemKind.ASSISTANT if role == "assistant" else ItemKind.TOOL if any(isinstance(p, ToolResultPart) for p in parts) else ItemKind.USER
        items.append(Item(kind, parts, metadata=fields_to_metadata(message, ("role", "content"), MESSAGE_NS)))
    return name_results(items)


def request_from_items(items: Iterable[Item], *, tools: Tools = (), tool_choice: Choice = None,
                       settings: ModelSettings | None = None) -> JsonDict:
    """A ``Converse`` body's transcript fields (``messages``, and ``system`` when a SYSTEM or DEVELOPER item is),
    with ``toolConfig`` when tools or a choice are given.

    Raises :class:`~agentkit_core.NormalizeError` (its path ``items[i].parts[j]``)
    for content Converse cannot take.  ``settings`` (a :class:`~agentkit_core.ModelSettings`)
    add their fields (see :mod:`._settings`); one it has no field for raises ``ValueError``.
    """
    fields = {**transcript_fields(checked_list(items, Item, "items")), **tool_fields(tools, tool_choice)}
    if settings is None:
        return fields
    written = fields_of(settings)
    return checked_body(with_settings(fields, written), written)


#: The builds ``http_request`` keeps (:mod:`.._common.reuse`).
KEPT = BuildCache(Build)


def kept_request(items: Sequence[Item], *, tools: Tools = (), tool_choice: Choice = None) -> JsonDict:
    """:func:`request_from_items` for ``http_request``: the same bytes once encoded, the messages joined from kept pieces."""
    return {**KEPT.fields(items), **tool_fields(tools, tool_choice)}


