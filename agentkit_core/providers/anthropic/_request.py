"""Private to :mod:`.anthropic`: parts -> content blocks, items <-> a request's ``system`` and ``messages``.

The inverse of :mod:`._response`; what is sent and what is dropped is said in
the docstring of :mod:`.anthropic`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from ... import (
    EMPTY_METADATA,
    INPUT_ERROR_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
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
from ..._for_providers import FAST_PATHS, PROVIDERS
from .._common import (
    JsonDict,
    b64decode,
    b64encode,
    bare,
    checked_list,
    copy_json,
    dumps,
    fields_to_metadata,
    json_object,
    metadata_to_fields,
    name_results,
    output_text,
    parse_data_url,
    wrong,
)
from .._common.held import as_native
from .._common.reuse import BuildCache, by_kind, fresh
from .._common.settings import with_settings
from ._held import REQUEST
from ._keys import BLANK_SENT, MARKERS, NS, OMITTED, PROVIDER, STRING_CONTENT, SYSTEM_ROLE
from ._response import IMAGE_TYPES, NOT_IN_RESULTS, PDF, content_blocks, part_from_block
from ._settings import checked_body, fields_of, with_choice_type
from ._tools import Choice, Tools, tool_fields

#: Namespaces of the other providers' custom parts, which the encoder drops.
_FOREIGN = tuple(row.namespace for row in PROVIDERS if row.namespace != NS)
#: Documents besides ``text/*`` that are text.
_TEXT_TYPES = ("application/json", "application/xml")
#: Media types clients write for one the API names otherwise.
_SPELLINGS = {"image/jpg": "image/jpeg"}
_SYSTEM_KINDS = (ItemKind.SYSTEM, ItemKind.DEVELOPER)
_ROLES = {
    ItemKind.USER: "user",
    ItemKind.TOOL: "user",
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
    ItemKind.ASSISTANT: "assistant",
}
_ROLE_IDS = by_kind(_ROLES)
#: What a part may carry and still take the fast path: a result its tool's name (which the API does not take; a
#: request read back names its results), reasoning its owner (``agentkit.provider``, all a thinking block has).
_PART_KEYS: dict[type, frozenset[str]] = {ToolResultPart: frozenset((TOOL_NAME_KEY,)), ReasoningPart: frozenset((PROVIDER_KEY,))}
_NONE: frozenset[str] = frozenset()


# -- part -> native block ---------------------------------------------------------------


def write_extras(native: JsonDict, metadata: Mapping[str, JsonValue]) -> JsonDict:
    """Write ``anthropic.<field>`` metadata back as native fields, then drop the omitted ones."""
    if metadata is EMPTY_METADATA or not metadata:  # bare(metadata), inlined: most blocks carry nothing
        return native
    native.update(metadata_to_fields(metadata, NS, MARKERS))
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
        raise NormalizeError(f"a tool_use input: expected a JSON object, found {type(part.input).__name__}")
    arguments: JsonDict = copy_json(part.input)
    return arguments


def sendable(block: JsonDict, part: Part, answered: bool = False) -> bool:
    """Whether ``block`` (of ``part``) goes in a request: the API refuses text blocks of whitespace only
    (or none) in most places, so only those read from a request it took (:data:`BLANK_SENT`) go back, and
    those of an Anthropic answer (``answered``: what came from the API goes back to it as it came), unless empty."""
    text = block.get("text") if block.get("type") == "text" else "x"
    if not isinstance(text, str) or text.strip() or part.metadata.get(BLANK_SENT) is True:
        return True
    return answered and text != ""


def _tool_content(output: ToolOutput) -> str | list[JsonDict]:
    text = output_text(output)
    if text is not None:
        return text
    parts: Sequence[Part] = output.parts if isinstance(output, PartsOutput) else output.files if isinstance(output, FilesOutput) else ()
    blocks = []
    for part in parts:
        if isinstance(part, NOT_IN_RESULTS):
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


# -- items -> a request's system and messages ---------------------------------------------


def _native_content(item: Item, path: str) -> str | list[JsonDict]:
    """The message (or system) content of ``item``: a string, or the blocks of the parts the encoder keeps."""
    parts = item.parts
    if item.metadata.get(STRING_CONTENT) is True and len(parts) == 1 and type(parts[0]) is TextPart:
        text = parts[0].text
        if block_from_part(parts[0]) == {"type": "text", "text": text}:  # nothing the string would lose
            return text
    blocks = []
    answered = item.kind is ItemKind.ASSISTANT and item.metadata.get(NS + "type") == "message"  # Anthropic's own answer
    for j, part in enumerate(parts):
        try:
            block = block_from_part(part)
            if item.kind in _SYSTEM_KINDS and block is not None and block.get("type") != "text" and not isinstance(part, CustomPart):
                raise NormalizeError(f"the system prompt holds only text, not a {block.get('type')} block")
        except NormalizeError as exc:
            raise NormalizeError(f"cannot send this part to the Anthropic Messages API: {exc.message}", f"{path}.parts[{j}]") from None
        if block is not None and sendable(block, part, answered):
            blocks.append(block)
    return blocks


def _from_response(item: Item) -> bool:
    """Whether ``item`` came from a response or stream (a request's messages have no ``type``, usage or stop)."""
    return NS + "type" in item.metadata or item.usage is not None or item.finish_reason is not None


def _empty_prefill(item: Item, last: bool) -> bool:
    """Whether ``item`` is a request's empty final assistant message, the one empty message the API takes."""
    return last and not item.parts and item.kind is ItemKind.ASSISTANT and not _from_response(item)


def _blocks_of(content: str | list[JsonDict]) -> list[JsonDict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


class Build:
    """The fold that writes ``system`` and ``messages`` (:class:`~.._common.reuse.Build`): each message is final when made.

    An empty final assistant message (a request's prefill) is sent only while it is last, so it is in :meth:`rest`.
    """

    __slots__ = ("messages", "system", "last")

    #: Whether items that carry nothing take :meth:`_bare` (the tests turn it off to compare;
    #: ``AGENTKIT_CORE_FAST_PATHS=0``: never).  Measured gain: a fresh ``http_request`` of 1,500 items
    #: (``tools/bench.py --only requests``) 5.6 ms with it, 6.7 ms without: 1.2x.
    fast = FAST_PATHS

    def __init__(self) -> None:
        self.messages: list[JsonDict] = []
        self.system: list[str | list[JsonDict]] = []
        self.last: Item | None = None

    def copy(self) -> Build:
        build = type(self)()
        build.messages, build.system, build.last = list(self.messages), list(self.system), self.last
        return build

    def add(self, i: int, item: Item) -> None:
        self.last = item
        md = item.metadata
        content: str | list[JsonDict] | None = _bare_content(item) if self.fast and (md is EMPTY_METADATA or not md) else None
        if content is None:
            content = _native_content(item, f"items[{i}]")
        in_place = item.kind in _SYSTEM_KINDS and item.metadata.get(SYSTEM_ROLE) == "system"
        if item.kind in _SYSTEM_KINDS and not in_place:
            if content != [] or not item.parts:  # kept unless every part was dropped
                self.system.append(content)
            return
        if content == [] and not in_place:
            return  # the API refuses an empty message (a refusal's item, foreign reasoning alone); a last prefill is in rest()
        self.messages.append(_message(item, content))

    def take_final(self) -> list[JsonDict]:
        out, self.messages = self.messages, []
        return out

    def rest(self) -> list[JsonDict]:
        last = self.last
        return [_message(last, [])] if last is not None and _empty_prefill(last, True) else []

    def fields(self, messages: object, count: int) -> JsonDict:
        system = self.system
        body: JsonDict = {}
        if len(system) == 1:
            body["system"] = system[0]
        elif system:
            body["system"] = [block for content in system for block in _blocks_of(content)]
        body["messages"] = messages
        return body


def _bare_content(item: Item) -> list[JsonDict] | None:
    """:func:`_native_content` of an item that carries nothing (no metadata on it or its parts, but what
    :data:`_PART_KEYS` lets through) of texts, calls, text results and reasoning, the common case; ``None`` for
    any other (the general path takes it)."""
    blocks: list[JsonDict] = []
    system = item.kind in _SYSTEM_KINDS
    for part in item.parts:
        kind = type(part)
        md = part.metadata
        if md is not EMPTY_METADATA and md and not (md.keys() <= _PART_KEYS.get(kind, _NONE)):  # not bare(md), inlined
            return None
        if kind is TextPart:
            text: str = part.text
            if text.strip():  # the API refuses blank text blocks: they are not sent
                blocks.append({"type": "text", "text": text})
        elif system:
            return None
        elif kind is ToolCallPart:
            value = part.input  # type: ignore[attr-defined]
            if type(value) is not dict:
                return None
            blocks.append({"type": "tool_use", "id": part.id.value, "name": part.name, "input": copy_json(value)})  # type: ignore[attr-defined]
        elif kind is ToolResultPart:
            output = part.output  # type: ignore[attr-defined]
            if type(output) is TextOutput:  # output_text(output), inlined: the fast path makes no call it can spare
                content: str = output.text
            elif type(output) is StructuredOutput:
                content = dumps(output.value)
            else:
                return None
            blocks.append({"type": "tool_result", "tool_use_id": part.call_id.value, "content": content,  # type: ignore[attr-defined]
                           "is_error": part.is_error})  # type: ignore[attr-defined]
        elif kind is ReasoningPart:
            if md is not EMPTY_METADATA and md:  # its owner named: Anthropic's thinking goes back, another's is dropped
                data = part.data  # type: ignore[attr-defined]
                if (data is not None and type(data) is not InlineText) or (part.redacted and data is None):  # type: ignore[attr-defined]
                    return None  # the general path says what is wrong
                thinking = _reasoning_block(part)  # type: ignore[arg-type]
                if thinking is not None:
                    blocks.append(thinking)
            # reasoning no provider marked is not Anthropic's to verify: dropped
        else:
            return None
    return blocks


def _message(item: Item, content: str | list[JsonDict]) -> JsonDict:
    message: JsonDict = {"role": _ROLE_IDS.get(id(item.kind), "system"), "content": content}
    if not bare(item.metadata) and not _from_response(item):  # a response's fields describe it, not a message to send
        write_extras(message, item.metadata)
    return message


def transcript_fields(checked: Sequence[Item]) -> JsonDict:
    """``{"system": ..., "messages": [...]}`` for ``checked`` items (``system`` only when a SYSTEM or DEVELOPER
    item is), raising :class:`~agentkit_core.NormalizeError` at ``items[i].parts[j]`` for what the API cannot take."""
    return fresh(Build(), checked)


# -- requests ---------------------------------------------------------------------------


def _content_item(kind: ItemKind, content: object, metadata: dict[str, JsonValue], path: str) -> Item:
    if isinstance(content, str):
        metadata[STRING_CONTENT] = True
        return Item(kind, [TextPart(content)], metadata=metadata)
    return Item(kind, [_sent(part_from_block(b)) for b in content_blocks(content, path)], metadata=metadata)


def _sent(part: Part) -> Part:
    """``part`` of a request the API took: a text part of whitespace only marked to go back (:data:`BLANK_SENT`),
    in a tool result's parts too."""
    if type(part) is TextPart and not part.text.strip():
        return part.with_metadata(part.metadata.merged({BLANK_SENT: True}))
    if isinstance(part, ToolResultPart) and isinstance(part.output, PartsOutput):
        parts = [_sent(p) for p in part.output.parts]
        if parts != list(part.output.parts):
            return replace(part, output=PartsOutput(parts))
    return part


def _message_kind(message: JsonDict, path: str) -> ItemKind:
    role, content = message.get("role"), message.get("content")
    if role == "assistant":
        return ItemKind.ASSISTANT
    if role == "system":
        return ItemKind.SYSTEM
    if role != "user":
        raise wrong("role 'user', 'assistant' or 'system'", role, path + ".role")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return ItemKind.TOOL
    return ItemKind.USER


def items_from_request(body: object) -> list[Item]:
    """A request body's transcript (``system`` and ``messages``) as items; other fields are not read.

    A tool result gets ``agentkit.tool_name`` when an earlier ``tool_use`` of
    the same request has its id.  Raises :class:`~agentkit_core.NormalizeError`
    naming the bad field.
    """
    body = as_native(body, REQUEST)
    items = []
    if "system" in body:
        items.append(_content_item(ItemKind.SYSTEM, body["system"], {}, "system"))
    messages = body.get("messages", [])  # absent is none; null is no list
    if not isinstance(messages, list):
        raise wrong("a list of messages", messages, "messages")
    for i, message in enumerate(messages):
        path = f"messages[{i}]"
        json_object(message, path, "a message (a JSON object)")
        kind = _message_kind(message, path)
        consumed = ("content",) if kind is ItemKind.SYSTEM else ("role", "content")  # a system message keeps its role
        item = _content_item(kind, message.get("content"), fields_to_metadata(message, consumed, NS), path + ".content")
        items.append(item)
    return name_results(items)


def request_from_items(items: Iterable[Item], *, tools: Tools = (), tool_choice: Choice = None,
                       settings: ModelSettings | None = None) -> JsonDict:
    """A request body's transcript fields, ``{"system": ..., "messages": [...]}``, and its ``tools`` and ``tool_choice``.

    ``system`` is present only when a SYSTEM or DEVELOPER item is; the tool fields when given.  Raises
    :class:`~agentkit_core.NormalizeError` (its path ``items[i].parts[j]``) for
    content the API cannot take.  ``settings`` (a :class:`~agentkit_core.ModelSettings`) add
    their fields (see :mod:`._settings`); one the API has no field for raises ``ValueError``.
    """
    fields = {**transcript_fields(checked_list(items, Item, "items")), **tool_fields(tools, tool_choice)}
    if settings is None:
        return fields
    written = fields_of(settings)
    return checked_body(with_choice_type(with_settings(fields, written)), written)


#: The builds ``http_request`` keeps (:mod:`.._common.reuse`).
KEPT = BuildCache(Build)


def kept_request(items: Sequence[Item], *, tools: Tools = (), tool_choice: Choice = None) -> JsonDict:
    """:func:`request_from_items` for ``http_request``: the same bytes once encoded, the messages joined from kept pieces."""
    return {**KEPT.fields(items), **tool_fields(tools, tool_choice)}
