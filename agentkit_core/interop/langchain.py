"""LangChain messages <-> agentkit items.

:func:`items_from_messages` takes ``BaseMessage`` objects (read by their
``type`` and ``model_dump()``; LangChain is never imported) or the dicts
``messages_to_dict`` writes; :func:`messages_from_items` writes that dict
form, which ``messages_from_dict`` reads.  The full table is in
``docs/interop.md``; in short:

======================================  =================================================
LangChain                               agentkit
======================================  =================================================
``system`` / ``human`` / ``ai`` /        SYSTEM (DEVELOPER with ``additional_kwargs``
``tool`` message                         ``__openai_role__: "developer"``) / USER /
                                         ASSISTANT / TOOL
``chat`` (a ``role``), ``function``,     by role (``langchain.role``); TOOL; the type in
``AIMessageChunk``...                    ``langchain.type``
``content`` a string                     one ``TextPart`` (``""``: none)
``content`` a list (marked               string -> ``TextPart``; ``text`` -> ``TextPart``
``langchain.list``)                      (``langchain.type``); ``reasoning`` / ``thinking``
                                         -> ``ReasoningPart(summary)``; ``image`` /
                                         ``audio`` / ``video`` -> ``MediaPart``, ``file`` /
                                         ``text-plain`` -> ``FilePart`` (``url`` ->
                                         ``Uri``, ``base64`` -> ``InlineBytes``, ``file_id``
                                         -> ``Handle``); ``image_url`` -> ``MediaPart``
``tool_calls[j]``                        ``ToolCallPart(id, name, args)``
``invalid_tool_calls[j]``                ``ToolCallPart(id, name, None)`` with
                                         ``agentkit.input_json`` / ``input_error``; the
                                         native in ``langchain.invalid_tool_call``
``usage_metadata``                       ``Usage`` (``cache_read``, ``cache_creation``,
                                         ``reasoning`` details); native in
                                         ``langchain.usage_metadata``
``response_metadata.finish_reason`` /    ``finish_reason``; the object in
``stop_reason``                          ``langchain.response_metadata``
tool message ``tool_call_id``,           ``ToolResultPart(call_id, TextOutput |
``content``, ``status="error"``,         PartsOutput, is_error)``, ``agentkit.tool_name``,
``name``, ``artifact``                   ``langchain.artifact``
``id``; ``name``, ``additional_kwargs``  ``Item.id``; ``langchain.<field>``
and any other field
any other content block                  ``CustomPart("langchain.<type>", value=<block>)``
======================================  =================================================

Written back, a ``StructuredOutput`` is its JSON text (LangChain's tool
messages hold text or blocks); another library's or provider's custom parts
are left out.  Refused with :class:`~agentkit_core.NormalizeError`: parts
with no LangChain block (a ``StructuredPart``, tool results outside a TOOL
item).
"""

from __future__ import annotations

import json
from typing import Iterable

from .. import (
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    Handle,
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
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
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
from .._codec import copy_json
from ._common import SYSTEM_KINDS, JsonDict, b64decode, b64encode, carried, finish_from, items_checked, listed, obj, plain, under, wrong

__all__ = ("items_from_messages", "messages_from_items")

L = "langchain."
_KINDS = {"system": ItemKind.SYSTEM, "human": ItemKind.USER, "ai": ItemKind.ASSISTANT, "tool": ItemKind.TOOL,
          "AIMessageChunk": ItemKind.ASSISTANT, "HumanMessageChunk": ItemKind.USER, "SystemMessageChunk": ItemKind.SYSTEM,
          "ToolMessageChunk": ItemKind.TOOL}
_ROLES = {"system": ItemKind.SYSTEM, "developer": ItemKind.DEVELOPER, "user": ItemKind.USER, "human": ItemKind.USER,
          "assistant": ItemKind.ASSISTANT, "ai": ItemKind.ASSISTANT, "tool": ItemKind.TOOL}
_MEDIA = {"image": Modality.IMAGE, "audio": Modality.AUDIO, "video": Modality.VIDEO}
_MEDIA_BACK = {m._value_: k for k, m in _MEDIA.items()}  # by the member's text: an enum's __hash__ is a Python call
_KNOWN = frozenset(("content", "additional_kwargs", "response_metadata", "type", "name", "id", "tool_calls",
                    "invalid_tool_calls", "usage_metadata", "tool_call_id", "artifact", "status", "role"))
_DEVELOPER = "__openai_role__"


# -- LangChain -> items -----------------------------------------------------------------------------------------------


def items_from_messages(messages: object) -> list[Item]:
    """LangChain messages (``BaseMessage`` objects or ``messages_to_dict`` dicts) -> items, one a message.

    Raises :class:`NormalizeError` naming the bad field (``[2].data.tool_calls[0].args``),
    and for a value that is no LangChain message, naming what it looks like.
    """
    items = []
    for n, message in enumerate(listed(messages, "", "a list of LangChain messages")):
        try:
            items.append(_item(_message(message)))
        except NormalizeError as exc:
            raise exc.under(f"[{n}]") from None
    return items


def _message(message: object) -> JsonDict:
    if type(message) is dict:
        if type(message.get("type")) is str and type(message.get("data")) is dict:
            return message
        raise wrong("a LangChain message (messages_to_dict's {type, data})", message)
    kind, dump = getattr(message, "type", None), getattr(message, "model_dump", None)
    if type(kind) is not str or not callable(dump):
        raise wrong("a LangChain message", message)
    return {"type": kind, "data": plain(dump())}


def _item(m: JsonDict) -> Item:
    t: str = m["type"]
    d: JsonDict = m["data"]
    md: dict[str, JsonValue] = {}
    for k, v in d.items():
        if k not in _KNOWN and v is not None:
            md[L + k] = v
    kwargs = d.get("additional_kwargs") or {}
    if kwargs:
        kwargs = obj(kwargs, "data.additional_kwargs")
    kind = _KINDS.get(t)
    if t == "system" and kwargs.get(_DEVELOPER) == "developer":
        kind = ItemKind.DEVELOPER
        kwargs = {k: v for k, v in kwargs.items() if k != _DEVELOPER}
    elif t == "chat":
        role = d.get("role")
        md[L + "role"] = role
        kind = _ROLES.get(role, ItemKind.USER) if type(role) is str else ItemKind.USER
    elif t == "function":
        kind = ItemKind.TOOL
    if kind is None:
        return Item(ItemKind.USER, (CustomPart(L + "message", value=m),))
    if t not in ("system", "human", "ai", "tool"):
        md[L + "type"] = t
    if kwargs:
        md[L + "additional_kwargs"] = kwargs
    name = d.get("name")
    if name is not None:
        md[L + "name"] = name
    response = d.get("response_metadata") or {}
    if response:
        md[L + "response_metadata"] = response
    mid = d.get("id")
    if mid is not None and type(mid) is not str:
        raise NormalizeError("expected a string", "data.id")
    content = d.get("content", "")
    try:
        if kind is ItemKind.TOOL:
            parts: list[Part] = [_result(d, t, content)]
        else:
            parts = _content(content, md)
            if kind is ItemKind.ASSISTANT:
                parts.extend(_calls(d))
    except NormalizeError as exc:
        raise exc.under("data") from None
    usage = d.get("usage_metadata")
    finish = None
    if kind is ItemKind.ASSISTANT and isinstance(response, dict):
        finish = finish_from(response.get("finish_reason") or response.get("stop_reason") or response.get("done_reason"))
    try:
        return Item(kind, parts, id=None if mid is None else MessageId(mid), metadata=md, finish_reason=finish,
                    usage=None if usage is None else _usage(obj(usage, "data.usage_metadata")))
    except (TypeError, ValueError) as exc:
        raise NormalizeError(str(exc), "data") from None


def _content(content: object, md: dict[str, JsonValue]) -> list[Part]:
    if type(content) is str:
        return [TextPart(content)] if content else []
    md[L + "list"] = True
    parts = []
    for n, block in enumerate(listed(content, "content", "a string or a list of content blocks")):
        try:
            parts.append(_block(block))
        except NormalizeError as exc:
            raise under(exc, "content", f"[{n}]") from None
    return parts


def _block(block: object) -> Part:
    if type(block) is str:
        return TextPart(block)
    b = obj(block, "", "a string or a content block")
    t = b.get("type")
    md: dict[str, JsonValue] = {}
    if t == "text" and type(b.get("text")) is str:
        md[L + "type"] = t
        return TextPart(b["text"], metadata=_rest(b, ("type", "text"), md))
    if t in ("reasoning", "thinking"):
        summary = b.get(t)
        if summary is not None and type(summary) is not str:
            raise NormalizeError("expected a string", t)
        if t == "thinking":
            md[L + "type"] = t
        return ReasoningPart(summary, metadata=_rest(b, ("type", t), md))
    if t in _MEDIA or t in ("file", "text-plain"):
        mime = b.get("mime_type")
        if mime is not None and type(mime) is not str:
            raise NormalizeError("expected a string", "mime_type")
        if t == "text-plain" and type(b.get("text")) is str:
            md[L + "type"] = t
            return FilePart(InlineText(b["text"]), mime_type=mime, metadata=_rest(b, ("type", "text", "mime_type"), md))
        data = _data(b)
        _rest(b, ("type", "url", "base64", "file_id", "mime_type"), md)
        if t in _MEDIA:
            return MediaPart(_MEDIA[t], mime or "", data, metadata=md)
        if t == "text-plain":
            md[L + "type"] = t
        return FilePart(data, mime_type=mime, metadata=md)
    if t == "image_url":
        return _image_url(b)
    if type(t) is not str:
        raise wrong("a content block (type)", b)
    return CustomPart(L + t, value=b)


def _data(b: JsonDict) -> DataRef:
    for key in ("url", "base64", "file_id"):
        v = b.get(key)
        if v is not None:
            if key == "base64":
                return InlineBytes(b64decode(v, key))
            if type(v) is not str:
                raise NormalizeError("expected a string", key)
            return Uri(v) if key == "url" else DataRef.handle(v)
    raise NormalizeError("a block holds url, base64 or file_id")


def _image_url(b: JsonDict) -> MediaPart:
    inner = b.get("image_url")
    md: dict[str, JsonValue] = {L + "type": "image_url"}
    _rest(b, ("type", "image_url"), md)
    if isinstance(inner, dict):
        url = inner.get("url")
        for k, v in inner.items():
            if k != "url":
                md[L + "image_url." + k] = v
    else:
        url = inner
        md[L + "image_url_text"] = True
    if type(url) is not str:
        raise NormalizeError("expected a string", "image_url.url")
    if url.startswith("data:") and ";base64," in url:
        head, _, payload = url.partition(";base64,")
        return MediaPart(Modality.IMAGE, head[5:], InlineBytes(b64decode(payload, "image_url.url")), metadata=md)
    return MediaPart(Modality.IMAGE, "", Uri(url), metadata=md)


def _rest(b: JsonDict, known: tuple[str, ...], md: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for k, v in b.items():
        if k not in known:
            md[L + k] = v
    return md


def _calls(d: JsonDict) -> list[Part]:
    parts: list[Part] = []
    for n, call in enumerate(listed(d.get("tool_calls") or [], "tool_calls", "a list of tool calls")):
        try:
            c = obj(call, "", "a tool call")
            md: dict[str, JsonValue] = {}
            cid, name, args = c.get("id"), c.get("name"), c.get("args")
            if cid is None:
                md[L + "no_id"] = True
            elif type(cid) is not str:
                raise NormalizeError("expected a string", "id")
            if type(name) is not str:
                raise NormalizeError("expected a string", "name")
            _rest(c, ("id", "name", "args", "type"), md)
            parts.append(ToolCallPart(ToolCallId(cid or ""), name, obj(args, "args"), metadata=md))
        except NormalizeError as exc:
            raise under(exc, "tool_calls", f"[{n}]") from None
    for n, call in enumerate(listed(d.get("invalid_tool_calls") or [], "invalid_tool_calls", "a list of tool calls")):
        c = obj(call, f"invalid_tool_calls[{n}]", "an invalid tool call")
        md = {L + "invalid_tool_call": c}
        if type(c.get("args")) is str:
            md[INPUT_JSON_KEY] = c["args"]
        if type(c.get("error")) is str:
            md[INPUT_ERROR_KEY] = c["error"]
        cid, name = c.get("id"), c.get("name")
        parts.append(ToolCallPart(ToolCallId(cid if type(cid) is str else ""), name if type(name) is str else "", None, metadata=md))
    return parts


def _result(d: JsonDict, t: str, content: object) -> ToolResultPart:
    md: dict[str, JsonValue] = {}
    if t == "function":
        call_id = d.get("name")
    else:
        call_id = d.get("tool_call_id")
        artifact = d.get("artifact")
        if artifact is not None:
            md[L + "artifact"] = artifact
    if type(call_id) is not str:
        raise NormalizeError("expected a string", "tool_call_id" if t != "function" else "name")
    name = d.get("name")
    if type(name) is str:
        md[TOOL_NAME_KEY] = name
    output: ToolOutput
    if type(content) is str:
        output = TextOutput(content)
    else:
        inner: dict[str, JsonValue] = {}
        output = PartsOutput(_content(content, inner))
    status = d.get("status")
    if status not in (None, "success", "error"):
        md[L + "status"] = status
    return ToolResultPart(ToolCallId(call_id), output, is_error=status == "error", metadata=md)


def _usage(u: JsonDict) -> Usage:
    def count(v: object, key: str) -> int | None:
        if v is None:
            return None
        if type(v) is not int or v < 0:
            raise NormalizeError("expected a count", f"data.usage_metadata.{key}")
        return v

    into, out = u.get("input_token_details") or {}, u.get("output_token_details") or {}
    tokens = TokenUsage(
        count(u.get("input_tokens", 0), "input_tokens") or 0, count(u.get("output_tokens", 0), "output_tokens") or 0,
        reasoning_tokens=count(out.get("reasoning"), "output_token_details.reasoning"),
        cached_input_tokens=count(into.get("cache_read"), "input_token_details.cache_read"),
        cache_write_input_tokens=count(into.get("cache_creation"), "input_token_details.cache_creation"),
    )
    return Usage(tokens, metadata={L + "usage_metadata": u})


# -- items -> LangChain -----------------------------------------------------------------------------------------------

# The metadata keys the writer reads, spelled once: ``L + "type"`` inside a function is a concatenation every call.
_TYPE, _LIST, _ROLE, _NAME, _KWARGS, _RESPONSE, _MESSAGE, _NO_ID, _INVALID, _ARTIFACT, _STATUS, _USAGE, _URL_TEXT = (
    L + k for k in ("type", "list", "role", "name", "additional_kwargs", "response_metadata", "message", "no_id",
                    "invalid_tool_call", "artifact", "status", "usage_metadata", "image_url_text")
)
_URL_FIELD = L + "image_url."


def messages_from_items(items: Iterable[Item]) -> list[JsonDict]:
    """Items -> LangChain messages in the ``messages_to_dict`` form (``messages_from_dict`` reads it).

    Raises :class:`NormalizeError` naming the item and part LangChain has no block for.
    """
    out: list[JsonDict] = []
    for n, item in enumerate(items_checked(items)):
        md = item.metadata._data
        try:
            if item.kind is ItemKind.TOOL or (md and md.get(_TYPE) == "function"):
                out.extend(_write_results(item, md))
            else:
                out.append(_write(item, md))
        except NormalizeError as exc:
            raise exc.under(f"[{n}]") from None
    return out


# The keys carried leaves out, whole (a third cheaper than slicing each key to look its field up).
_ITEM_SKIP = frozenset(L + k for k in ("type", "role", "list", "additional_kwargs", "response_metadata", "name", "usage_metadata"))
_BLOCK_SKIP = frozenset((_TYPE, _URL_TEXT))
_CALL_SKIP = frozenset((_NO_ID,))


def _base(md: dict[str, JsonValue], mid: MessageId | None, t: str, content: JsonValue, kwargs: JsonDict | None = None) -> JsonDict:
    """A message's ``data``: the item's metadata ``md`` (its map's data) and id ``mid`` as LangChain's fields."""
    if not md:
        return {"content": content, "additional_kwargs": kwargs or {}, "response_metadata": {}, "type": t, "name": None,
                "id": None if mid is None else mid.value}
    given = md.get(_KWARGS)
    if kwargs:
        given = {**given, **kwargs} if type(given) is dict else kwargs
    response = md.get(_RESPONSE)
    data: JsonDict = {
        "content": content,
        "additional_kwargs": copy_json(given) if type(given) is dict else {},
        "response_metadata": copy_json(response) if type(response) is dict else {},
        "type": t,
        "name": md.get(_NAME),
        "id": None if mid is None else mid.value,
    }
    data.update(carried(md, L, _ITEM_SKIP))
    return data


def _dict(value: object) -> JsonDict:
    return copy_json(value) if type(value) is dict else {}  # type: ignore[return-value]


def _write(item: Item, md: dict[str, JsonValue]) -> JsonDict:
    """A message that is no tool result (``md``: the item's metadata, its map's data)."""
    parts = item.parts
    if len(parts) == 1 and type(parts[0]) is CustomPart and parts[0].kind == _MESSAGE:
        return copy_json(parts[0].value)  # type: ignore[return-value]
    assistant = item.kind is ItemKind.ASSISTANT
    content: list[JsonValue] = []
    calls: list[JsonDict] = []
    invalid: list[JsonDict] = []
    for n, part in enumerate(parts):
        if type(part) is TextPart and not part.metadata._data:  # the usual block, its text (saves _write_block's call)
            content.append(part.text)
            continue
        try:
            if type(part) is ToolCallPart and assistant:
                _write_call(part, calls, invalid)
            elif not _foreign(part):
                content.append(_write_block(part))
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{n}]") from None
    listed_ = len(content) > 1 or (content and type(content[0]) is not str) or md.get(_LIST) is True
    body: JsonValue = content if listed_ else (content[0] if content else "")
    t = md.get(_TYPE)
    kwargs = None
    if t == "chat" or (type(t) is str and t not in ("system", "human", "ai", "tool")):
        name: str = t
    elif assistant:
        name = "ai"
    elif item.kind in SYSTEM_KINDS:
        name = "system"
        if item.kind is ItemKind.DEVELOPER:
            kwargs = {_DEVELOPER: "developer"}
    else:
        name = "human"
    data = _base(md, item.id, name, body, kwargs)
    if name == "chat":
        data["role"] = md.get(_ROLE, "user")
    if assistant:
        data["tool_calls"] = calls
        data["invalid_tool_calls"] = invalid
        data["usage_metadata"] = None if item.usage is None else _write_usage(item.usage)
        finish = item.finish_reason
        if finish is not None and not data["response_metadata"]:
            data["response_metadata"] = {"finish_reason": _FINISH_BACK.get(finish.kind, finish.detail)}
    return {"type": name, "data": data}


_FINISH_BACK = {"Completed": "stop", "ToolCall": "tool_calls", "MaxTokens": "length", "Blocked": "content_filter",
                "Cancelled": "cancelled", "Error": "error"}


def _foreign(part: Part) -> bool:
    return type(part) is CustomPart and not part.kind.startswith(L)


def _write_call(part: ToolCallPart, calls: list[JsonDict], invalid: list[JsonDict]) -> None:
    md = part.metadata._data
    native = md.get(_INVALID)
    if isinstance(native, dict):
        invalid.append(_dict(native))
        return
    if part.input is None and type(md.get(INPUT_JSON_KEY)) is str:
        invalid.append({"type": "invalid_tool_call", "id": part.id.value, "name": part.name, "args": md[INPUT_JSON_KEY],
                        "error": md.get(INPUT_ERROR_KEY)})
        return
    args = copy_json(part.input) if isinstance(part.input, dict) else {"input": copy_json(part.input)}
    call = {"name": part.name, "args": args, "id": None if md.get(_NO_ID) is True else part.id.value, "type": "tool_call"}
    if md:
        call.update(carried(md, L, _CALL_SKIP))
    calls.append(call)


def _write_block(part: Part) -> JsonValue:
    md = part.metadata._data
    t = md.get(_TYPE)
    # A block's own metadata is mostly none or its type alone, which the block is written as: nothing else to carry.
    extra = {} if not md or (len(md) == 1 and t is not None) else carried(md, L, _BLOCK_SKIP)
    if type(part) is TextPart:
        return {"type": "text", "text": part.text, **extra} if t == "text" else part.text
    if type(part) is ReasoningPart:
        key = "thinking" if t == "thinking" else "reasoning"
        block: JsonDict = {"type": key}
        if part.summary is not None:
            block[key] = part.summary
        return {**block, **extra}
    if type(part) is CustomPart and part.kind.startswith(L):
        return copy_json(part.value)
    if type(part) is MediaPart and t == "image_url":
        return _write_image_url(part, md, extra)
    if type(part) is MediaPart or type(part) is FilePart:
        kind = _MEDIA_BACK.get(part.modality._value_, "file") if type(part) is MediaPart else ("text-plain" if t == "text-plain" else "file")
        out: JsonDict = {"type": kind}
        data = part.data
        if type(data) is InlineText and kind == "text-plain":
            out["text"] = data.value
        elif type(data) is Uri:
            out["url"] = data.value
        elif type(data) is Handle:
            out["file_id"] = data.value.value
        else:
            assert isinstance(data, (InlineBytes, InlineText))
            out["base64"] = b64encode(data.value if isinstance(data, InlineBytes) else data.value.encode("utf-8"))
        if part.mime_type:
            out["mime_type"] = part.mime_type
        for k, v in extra.items():
            if not k.startswith("image_url."):
                out[k] = v
        return out
    raise NormalizeError(f"LangChain has no content block for a {type(part).__name__}")


def _write_image_url(part: MediaPart, md: dict[str, JsonValue], extra: dict[str, JsonValue]) -> JsonDict:
    """An ``image_url`` block; ``extra``: the part's ``langchain.*`` fields, whose ``image_url.*`` go inside."""
    data = part.data
    if type(data) is Uri:
        url = data.value
    elif type(data) is InlineBytes:
        url = f"data:{part.mime_type};base64,{b64encode(data.value)}"
    else:
        raise NormalizeError("an image_url block holds a URL", "data")
    inner: JsonValue = url if md.get(_URL_TEXT) is True else {"url": url, **{k[20:]: v for k, v in md.items() if k.startswith(_URL_FIELD)}}
    out: JsonDict = {"type": "image_url", "image_url": inner}
    for k, v in extra.items():
        if not k.startswith("image_url."):
            out[k] = v
    return out


def _write_results(item: Item, md: dict[str, JsonValue]) -> list[JsonDict]:
    """One tool message a result (``md``: the item's metadata, its map's data); the item's id on a lone result only."""
    out = []
    results = [p for p in item.parts if not _foreign(p)]
    function = md.get(_TYPE) == "function"
    t = "function" if function else "tool"
    mid = item.id if len(results) == 1 else None
    for n, part in enumerate(results):
        if type(part) is not ToolResultPart:
            raise NormalizeError(f"a LangChain tool message holds a tool result, not a {type(part).__name__}", f"parts[{n}]")
        pmd = part.metadata._data
        output = part.output
        content: JsonValue
        if isinstance(output, TextOutput):
            content = output.text
        elif isinstance(output, StructuredOutput):
            content = json.dumps(output.value)
        else:
            assert isinstance(output, (PartsOutput, FilesOutput))
            parts = output.parts if isinstance(output, PartsOutput) else output.files
            try:
                content = [_write_block(p) for p in parts if not _foreign(p)]
            except NormalizeError as exc:
                raise under(exc, "parts", f"[{n}]") from None
        data = _base(md, mid, t, content)
        name = pmd.get(TOOL_NAME_KEY)
        if type(name) is str:
            data["name"] = name
        if function:
            data["name"] = data["name"] or part.call_id.value
        else:
            data["tool_call_id"] = part.call_id.value
            data["artifact"] = copy_json(pmd.get(_ARTIFACT))
            status = pmd.get(_STATUS)
            data["status"] = status if type(status) is str else "error" if part.is_error else "success"
        out.append({"type": t, "data": data})
    return out


def _write_usage(usage: Usage) -> JsonDict:
    out = _dict(usage.metadata._data.get(_USAGE))
    t = usage.tokens
    if t is None:
        return out
    out["input_tokens"] = t.input_tokens
    out["output_tokens"] = t.output_tokens
    if "total_tokens" not in out:
        out["total_tokens"] = t.total_tokens
    for outer, inner, v in (("input_token_details", "cache_read", t.cached_input_tokens),
                            ("input_token_details", "cache_creation", t.cache_write_input_tokens),
                            ("output_token_details", "reasoning", t.reasoning_tokens)):
        if v is not None:
            details = out.get(outer)
            if type(details) is dict:  # out is a copy already: set in place, not copied again
                details[inner] = v
            else:
                out[outer] = {**(details or {}), inner: v}
    return out


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them."""
    return list(__all__)
