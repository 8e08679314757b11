"""pydantic-ai message histories <-> agentkit items.

:func:`items_from_messages` takes pydantic-ai's ``ModelMessage`` list (its
objects, or the JSON form ``ModelMessagesTypeAdapter`` dumps);
:func:`messages_from_items` writes the JSON form
``ModelMessagesTypeAdapter.validate_python`` reads, so a converted history
continues an agent run (``agent.run(..., message_history=...)``).  The library
is never imported.  The full table is in ``docs/interop.md``; in short:

=======================================  ================================================
pydantic-ai                              agentkit
=======================================  ================================================
``ModelRequest``                         one item a part (tool returns in a row share a
                                         TOOL item); the first marked ``pydantic_ai.request``
                                         (the request's other fields), so the way back
                                         starts a new request there
``instructions``                         a SYSTEM item marked ``pydantic_ai.instructions``
``system-prompt``                        SYSTEM item, one ``TextPart``
``user-prompt`` (text or a list)         USER item: text -> ``TextPart``, ``image-url`` /
                                         ``audio-url`` / ``video-url`` -> ``MediaPart(Uri)``,
                                         ``document-url`` -> ``FilePart(Uri)``, ``binary``
                                         -> ``MediaPart`` / ``FilePart(InlineBytes)``; a list
                                         marked ``pydantic_ai.list``
``tool-return``                          ``ToolResultPart`` (text -> ``TextOutput``, other
                                         JSON -> ``StructuredOutput``); ``outcome``
                                         ``failed`` / ``denied`` -> ``is_error``
``retry-prompt``                         ``ToolResultPart(is_error=True)`` marked
                                         ``pydantic_ai.part_kind``; without a tool, a USER
                                         item
``ModelResponse``                        ASSISTANT item: ``provider_response_id`` -> ``id``,
                                         ``usage`` -> ``Usage``, ``finish_reason`` ->
                                         ``finish_reason``, ``timestamp`` -> ``created_at``
``text``, ``thinking``                   ``TextPart``, ``ReasoningPart(summary)``;
                                         ``signature``, ``provider_name``... in
                                         ``pydantic_ai.<field>``
``tool-call`` (args a dict or JSON)      ``ToolCallPart``; JSON text kept in
                                         ``pydantic_ai.args``, invalid JSON in
                                         ``agentkit.input_json`` / ``input_error``
any other part or content kind           ``CustomPart("pydantic_ai.<kind>", value=...)``
every other field (``model_name``,       ``pydantic_ai.<field>`` on the item or part made
timestamps, ``provider_details``...)     from it, written back
=======================================  ================================================

Written back, items of kinds pydantic-ai lacks become its nearest (DEVELOPER
and CONTEXT: system prompts; NOTIFICATION: a user prompt); a finish reason it
has no value for (``CANCELLED``, ``Other``) is left out.  Refused with
:class:`~agentkit_core.NormalizeError`: parts it has no place for (media in
the system prompt, tool results in a response, media held as a handle).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from .. import (
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
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
from ._common import (
    SYSTEM_KINDS,
    JsonDict,
    b64decode,
    b64encode,
    carried,
    iso_of_ms,
    items_checked,
    listed,
    ms_of_iso,
    obj,
    plain,
    under,
    wrong,
)

__all__ = ("items_from_messages", "messages_from_items")

P = "pydantic_ai."
_REQUEST = P + "request"
_LIST = P + "list"
_TIMESTAMP = P + "timestamp"
_PART_KIND = P + "part_kind"
_INSTRUCTIONS, _CONTENT, _OUTCOME, _ARGS, _USAGE_KEY = (P + k for k in ("instructions", "content", "outcome", "args", "usage"))
_MEDIA_KINDS = {"image-url": Modality.IMAGE, "audio-url": Modality.AUDIO, "video-url": Modality.VIDEO}
_URL_KINDS = {m._value_: k for k, m in _MEDIA_KINDS.items()}  # by the member's text: an enum's __hash__ is a Python call
_BINARY = {"image": Modality.IMAGE, "audio": Modality.AUDIO, "video": Modality.VIDEO}
_FINISH = {"stop": FinishReason.COMPLETED, "length": FinishReason.MAX_TOKENS, "content_filter": FinishReason.BLOCKED,
           "tool_call": FinishReason.TOOL_CALL, "error": FinishReason.ERROR}
_FINISH_BACK = {r.kind: raw for raw, r in _FINISH.items()}
_USAGE = frozenset(("input_tokens", "output_tokens", "output_reasoning_tokens", "cache_read_tokens", "cache_write_tokens"))
_QUIET: tuple[object, ...] = (0, 0.0, None, {}, [])


# -- pydantic-ai -> items ---------------------------------------------------------------------------------------------


def items_from_messages(messages: object) -> list[Item]:
    """pydantic-ai's message history (``ModelRequest`` / ``ModelResponse`` objects or their JSON form) -> items.

    Raises :class:`NormalizeError` naming the bad field (``[3].parts[0].content``),
    and for a value that is no pydantic-ai message, naming what it looks like.
    """
    items: list[Item] = []
    for n, message in enumerate(listed(messages, "", "a list of pydantic-ai messages")):
        m = message if type(message) is dict else plain(message)
        try:
            kind = m.get("kind") if type(m) is dict else None
            if kind == "request":
                _request(m, items)
            elif kind == "response":
                items.append(_response(m))
            else:
                raise wrong("a pydantic-ai ModelRequest or ModelResponse", m)
        except NormalizeError as exc:
            raise exc.under(f"[{n}]") from None
    return items


def _time(md: dict[str, Any], value: object) -> int | None:
    """Keep a timestamp's text in ``md`` and give its milliseconds (a ``datetime`` read as its ISO text)."""
    if value is None:
        return None
    if type(value) is not str:
        value = plain(value)
    md[_TIMESTAMP] = value
    return ms_of_iso(value)


#: Fields at pydantic-ai's defaults, left out (the library restores them when it reads the history back).
_DEFAULTS: dict[str, Any] = {"state": "complete", "scope": "conversation", "force_download": False}
_NO = object()


# The fields each reader takes itself; _extras keeps the others.  Sets: a tuple's "in" compared the strings one by one,
# a quarter of _extras's time on a response's thirty fields.
_PROMPT_FIELDS = frozenset(("content", "part_kind", "timestamp"))
_URL_FIELDS = frozenset(("url", "kind", "media_type"))
_BINARY_FIELDS = frozenset(("data", "kind", "media_type"))
_TEXT_CONTENT_FIELDS = frozenset(("content", "kind"))
_RETRY_FIELDS = frozenset(("content", "part_kind", "timestamp", "tool_name", "tool_call_id"))
_RESULT_FIELDS = _RETRY_FIELDS | {"outcome", "content_file_digests"}
_RESPONSE_FIELDS = frozenset(("parts", "kind", "timestamp", "usage", "finish_reason", "provider_response_id"))
_TEXT_FIELDS = frozenset(("content", "part_kind"))
_CALL_FIELDS = frozenset(("tool_call_id", "tool_name", "args", "part_kind"))


def _extras(d: JsonDict, known: frozenset[str], md: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for k, v in d.items():
        if v is not None and k not in known and _DEFAULTS.get(k, _NO) != v:
            md[P + k] = v
    return md


def _request(m: JsonDict, items: list[Item]) -> None:
    parts = listed(m.get("parts"), "parts", "a list of request parts")
    head = {k: v for k, v in m.items() if k not in ("parts", "kind", "instructions") and v is not None and _DEFAULTS.get(k, _NO) != v}
    start = len(items)
    mark = {_REQUEST: head}  # on the request's first item, so the way back starts a request there
    tool: list[Part] = []
    tool_time: int | None = None
    instructions = m.get("instructions")
    if instructions is not None:
        if type(instructions) is not str:
            raise NormalizeError("expected a string", "instructions")
        items.append(Item(ItemKind.SYSTEM, (TextPart(instructions),), metadata={P + "instructions": True, **mark}))
    for n, part in enumerate(parts):
        try:
            p = obj(part, "", "a request part")
            pk = p.get("part_kind")
            if pk in ("tool-return", "retry-prompt") and p.get("tool_name") is not None:
                if not tool:
                    tool_time = ms_of_iso(p.get("timestamp"))
                tool.append(_tool_result(p, pk))
                continue
            if tool:
                items.append(Item(ItemKind.TOOL, tool, created_at=tool_time, metadata=mark if len(items) == start else {}))
                tool = []
            items.append(_prompt(p, pk, mark if len(items) == start else None))
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{n}]") from None
    if tool:
        items.append(Item(ItemKind.TOOL, tool, created_at=tool_time, metadata=mark if len(items) == start else {}))
    if len(items) == start:
        items.append(Item(ItemKind.USER, metadata=mark))


def _prompt(p: JsonDict, pk: object, mark: dict[str, Any] | None) -> Item:
    md: dict[str, JsonValue] = {} if mark is None else dict(mark)
    created = _time(md, p.get("timestamp"))
    content = p.get("content")
    if pk == "system-prompt":
        if type(content) is not str:
            raise NormalizeError("expected a string", "content")
        return Item(ItemKind.SYSTEM, (TextPart(content),), metadata=_extras(p, _PROMPT_FIELDS, md), created_at=created)
    if pk == "user-prompt":
        _extras(p, _PROMPT_FIELDS, md)
        if type(content) is str:
            return Item(ItemKind.USER, (TextPart(content),), metadata=md, created_at=created)
        md[_LIST] = True
        parts = []
        for n, entry in enumerate(listed(content, "content", "a string or a list of user content")):
            try:
                parts.append(_user_content(entry))
            except NormalizeError as exc:
                raise under(exc, "content", f"[{n}]") from None
        return Item(ItemKind.USER, parts, metadata=md, created_at=created)
    if pk == "retry-prompt":  # addressed to no tool: feedback on the model's text
        md[_PART_KIND] = pk
        _extras(p, _PROMPT_FIELDS, md)
        if type(content) is not str:
            md[P + "content"] = content
        return Item(ItemKind.USER, (TextPart(content if type(content) is str else json.dumps(content)),), metadata=md, created_at=created)
    if type(pk) is not str:
        raise wrong("a pydantic-ai request part (part_kind)", p)
    return Item(ItemKind.USER, (CustomPart(P + pk, value=p),), created_at=created, metadata=md)


def _user_content(entry: object) -> Part:
    if type(entry) is str:
        return TextPart(entry)
    e = obj(entry, "", "a string or a user content object")
    kind = e.get("kind")
    md: dict[str, JsonValue] = {}
    if kind in _MEDIA_KINDS or kind == "document-url":
        _extras(e, _URL_FIELDS, md)
        url, mime = _url(e)
        if kind == "document-url":
            return FilePart(Uri(url), mime_type=mime, metadata=md)
        return MediaPart(_MEDIA_KINDS[kind], mime or "", Uri(url), metadata=md)
    if kind == "binary":
        _extras(e, _BINARY_FIELDS, md)
        mime = e.get("media_type")
        if type(mime) is not str:
            raise NormalizeError("expected a string", "media_type")
        data = InlineBytes(b64decode(e.get("data"), "data"))
        modality = _BINARY.get(mime.partition("/")[0])
        return FilePart(data, mime_type=mime, metadata=md) if modality is None else MediaPart(modality, mime, data, metadata=md)
    if kind == "text-content" and type(e.get("content")) is str:
        md[_PART_KIND] = kind
        return TextPart(e["content"], metadata=_extras(e, _TEXT_CONTENT_FIELDS, md))
    if type(kind) is not str:
        raise wrong("a pydantic-ai user content object (kind)", e)
    return CustomPart(P + kind, value=e)


def _url(e: JsonDict) -> tuple[str, str | None]:
    url, mime = e.get("url"), e.get("media_type")
    if type(url) is not str:
        raise NormalizeError("expected a string", "url")
    if mime is not None and type(mime) is not str:
        raise NormalizeError("expected a string", "media_type")
    return url, mime


def _tool_result(p: JsonDict, pk: object) -> ToolResultPart:
    call_id, name, content = p.get("tool_call_id"), p.get("tool_name"), p.get("content")
    if type(call_id) is not str:
        raise NormalizeError("expected a string", "tool_call_id")
    if type(name) is not str:
        raise NormalizeError("expected a string", "tool_name")
    md: dict[str, JsonValue] = {TOOL_NAME_KEY: name}
    _time(md, p.get("timestamp"))
    output: ToolOutput = TextOutput(content) if type(content) is str else StructuredOutput(content)
    if pk == "retry-prompt":
        md[_PART_KIND] = pk
        _extras(p, _RETRY_FIELDS, md)
        return ToolResultPart(ToolCallId(call_id), output, is_error=True, metadata=md)
    outcome = p.get("outcome")
    _extras(p, _RESULT_FIELDS, md)
    if outcome not in (None, "success"):
        md[P + "outcome"] = outcome
    if p.get("content_file_digests"):
        md[P + "content_file_digests"] = p["content_file_digests"]
    return ToolResultPart(ToolCallId(call_id), output, is_error=outcome in ("failed", "denied"), metadata=md)


def _response(m: JsonDict) -> Item:
    parts = []
    for n, part in enumerate(listed(m.get("parts"), "parts", "a list of response parts")):
        try:
            parts.append(_response_part(obj(part, "", "a response part")))
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{n}]") from None
    md: dict[str, JsonValue] = {}
    created = _time(md, m.get("timestamp"))
    _extras(m, _RESPONSE_FIELDS, md)
    usage = m.get("usage")
    rid = m.get("provider_response_id")
    if rid is not None and type(rid) is not str:
        raise NormalizeError("expected a string", "provider_response_id")
    raw = m.get("finish_reason")
    finish = None if raw is None else _FINISH.get(raw) if type(raw) is str and raw in _FINISH else FinishReason.other(str(raw))
    try:
        return Item(
            ItemKind.ASSISTANT, parts, id=None if rid is None else MessageId(rid), metadata=md, created_at=created, finish_reason=finish,
            usage=None if usage is None else _usage(obj(usage, "usage")),
        )
    except (TypeError, ValueError) as exc:
        raise NormalizeError(str(exc)) from None


def _count(u: JsonDict, key: str) -> int:
    v = u.get(key, 0)
    if type(v) is not int or v < 0:
        raise NormalizeError("expected a count", f"usage.{key}")
    return v


def _usage(u: JsonDict) -> Usage:
    tokens = TokenUsage(
        _count(u, "input_tokens"), _count(u, "output_tokens"), reasoning_tokens=_count(u, "output_reasoning_tokens"),
        cached_input_tokens=_count(u, "cache_read_tokens"), cache_write_input_tokens=_count(u, "cache_write_tokens"),
    )
    rest = {k: v for k, v in u.items() if k not in _USAGE and v not in _QUIET}
    return Usage(tokens, metadata={_USAGE_KEY: rest} if rest else {})


def _response_part(p: JsonDict) -> Part:
    pk = p.get("part_kind")
    md: dict[str, JsonValue] = {}
    if pk == "text" and type(p.get("content")) is str:
        return TextPart(p["content"], metadata=_extras(p, _TEXT_FIELDS, md))
    if pk == "thinking" and type(p.get("content")) is str:
        return ReasoningPart(p["content"], metadata=_extras(p, _TEXT_FIELDS, md))
    if pk == "tool-call":
        call_id, name, args = p.get("tool_call_id"), p.get("tool_name"), p.get("args")
        if type(call_id) is not str:
            raise NormalizeError("expected a string", "tool_call_id")
        if type(name) is not str:
            raise NormalizeError("expected a string", "tool_name")
        _extras(p, _CALL_FIELDS, md)
        if type(args) is str:
            try:
                value = json.loads(args) if args else {}
                md[P + "args"] = args
            except ValueError as exc:
                md[INPUT_JSON_KEY], md[INPUT_ERROR_KEY], value = args, str(exc), None
            return ToolCallPart(ToolCallId(call_id), name, value, metadata=md)
        return ToolCallPart(ToolCallId(call_id), name, args, metadata=md)
    if type(pk) is not str:
        raise wrong("a pydantic-ai response part (part_kind)", p)
    return CustomPart(P + pk, value=p)


# -- items -> pydantic-ai ---------------------------------------------------------------------------------------------


def messages_from_items(items: Iterable[Item]) -> list[JsonDict]:
    """Items -> the JSON form of a pydantic-ai message history (what ``ModelMessagesTypeAdapter.validate_python`` reads).

    Raises :class:`NormalizeError` naming the item and part pydantic-ai has no place for.
    """
    checked = items_checked(items)
    names = _Names(checked)
    out: list[JsonDict] = []
    request: JsonDict | None = None
    for n, item in enumerate(checked):
        try:
            if item.kind is ItemKind.ASSISTANT:
                request = None
                out.append(_write_response(item))
                continue
            head = item.metadata._data.get(_REQUEST)
            if request is None or head is not None:
                fields: JsonDict = copy_json(head) if isinstance(head, dict) else {}  # type: ignore[assignment]
                request = {"parts": [], **fields, "kind": "request"}
                out.append(request)
            _write_request(item, request, names)
        except NormalizeError as exc:
            raise exc.under(f"[{n}]") from None
    return out


class _Names:
    """The tool name of each call in the items, looked up only for a result that does not carry its own."""

    def __init__(self, items: list[Item]) -> None:
        self._items = items
        self._names: dict[str, str] | None = None

    def of(self, call_id: str) -> str:
        if self._names is None:
            self._names = {c.id.value: c.name for i in self._items if i.kind is ItemKind.ASSISTANT for c in i.parts
                           if type(c) is ToolCallPart}
        return self._names.get(call_id, "")


def _stamp(item_md: Any, created: int | None, into: JsonDict) -> JsonDict:
    stamp = item_md.get(_TIMESTAMP)
    if type(stamp) is str:
        into["timestamp"] = stamp
    elif created is not None:
        into["timestamp"] = iso_of_ms(created)
    return into


# The keys carried leaves out (written from fields of their own, or marks of the reading).
_ITEM_SKIP = frozenset((_REQUEST, _LIST, _TIMESTAMP, _PART_KIND, _INSTRUCTIONS))
_RETRY_SKIP = _ITEM_SKIP | {_CONTENT}
_RESULT_SKIP = frozenset((_TIMESTAMP, _PART_KIND, _OUTCOME))
_RESPONSE_SKIP = frozenset((_TIMESTAMP,))
_CALL_SKIP = frozenset((_ARGS,))
_CONTENT_SKIP = frozenset((_PART_KIND,))


def _write_request(item: Item, request: JsonDict, names: _Names) -> None:
    md = item.metadata._data
    parts: list[JsonDict] = request["parts"]
    if item.kind in SYSTEM_KINDS:
        if md.get(_INSTRUCTIONS) is True:
            request["instructions"] = item.text_content()
            return
        for n, part in enumerate(item.parts):
            if type(part) is TextPart:
                parts.append(_stamp(md, item.created_at, {"content": part.text, **carried(md, P, _ITEM_SKIP), "part_kind": "system-prompt"}))
            elif not _foreign(part):
                raise NormalizeError(f"a pydantic-ai system prompt holds text only, not a {type(part).__name__}", f"parts[{n}]")
        return
    content: list[JsonValue] = []
    for n, part in enumerate(item.parts):
        if type(part) is TextPart and not part.metadata._data:  # the usual content, its text (saves _write_content's call)
            content.append(part.text)
            continue
        try:
            if type(part) is ToolResultPart:
                parts.append(_write_result(part, names))
            elif type(part) is CustomPart and part.kind.startswith(P) and isinstance(part.value, dict) and "part_kind" in part.value:
                parts.append(copy_json(part.value))  # type: ignore[arg-type]
            elif not _foreign(part):
                content.append(_write_content(part))
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{n}]") from None
    if md.get(_PART_KIND) == "retry-prompt":
        raw = md.get(_CONTENT)
        retry = raw if raw is not None else item.text_content()
        parts.append(_stamp(md, item.created_at, {"content": retry, **carried(md, P, _RETRY_SKIP), "part_kind": "retry-prompt"}))
    elif content:
        single = len(content) == 1 and type(content[0]) is str and md.get(_LIST) is not True
        parts.append(_stamp(md, item.created_at, {"content": content[0] if single else content, **carried(md, P, _ITEM_SKIP), "part_kind": "user-prompt"}))


def _foreign(part: Part) -> bool:
    """Another library's or provider's custom part: left out, as the providers leave out each other's."""
    return type(part) is CustomPart and not part.kind.startswith(P)


def _write_content(part: Part) -> JsonValue:
    md = part.metadata._data
    if not md and type(part) is TextPart:
        return part.text
    if type(part) is TextPart:
        if md.get(_PART_KIND) == "text-content":
            return {"content": part.text, **carried(md, P, _CONTENT_SKIP), "kind": "text-content"}
        return part.text
    if type(part) is CustomPart and part.kind.startswith(P):
        return copy_json(part.value)
    if type(part) is MediaPart or type(part) is FilePart:
        data: DataRef = part.data
        mime = part.mime_type
        if type(data) is Uri:
            kind = _URL_KINDS.get(part.modality._value_, "document-url") if type(part) is MediaPart else "document-url"
            out: JsonDict = {"url": data.value, **carried(md, P), "kind": kind}
            if mime:
                out["media_type"] = mime
            return out
        if type(data) is InlineBytes or type(data) is InlineText:
            raw = data.value if type(data) is InlineBytes else data.value.encode("utf-8")  # type: ignore[union-attr]
            return {"data": b64encode(raw), "media_type": mime or "application/octet-stream", **carried(md, P), "kind": "binary"}
        assert type(data) is Handle
        raise NormalizeError("pydantic-ai has no user content for data held as an artifact handle", "data")
    raise NormalizeError(f"pydantic-ai has no user content for a {type(part).__name__}")


def _write_result(part: ToolResultPart, names: _Names) -> JsonDict:
    md = part.metadata._data
    name = md.get(TOOL_NAME_KEY)
    if type(name) is not str:
        name = names.of(part.call_id.value)
    output = part.output
    content: JsonValue
    if isinstance(output, TextOutput):
        content = output.text
    elif isinstance(output, StructuredOutput):
        content = copy_json(output.value)
    else:
        parts = output.parts if isinstance(output, PartsOutput) else output.files
        content = [_write_content(p) for p in parts if not _foreign(p)]
    extra = carried(md, P, _RESULT_SKIP)
    out: JsonDict = {"tool_name": name, "content": content, "tool_call_id": part.call_id.value, **extra}
    _stamp(md, None, out)
    if md.get(_PART_KIND) == "retry-prompt":
        out["part_kind"] = "retry-prompt"
        return out
    outcome = md.get(_OUTCOME)
    if type(outcome) is str:
        out["outcome"] = outcome
    elif part.is_error:
        out["outcome"] = "failed"
    out["part_kind"] = "tool-return"
    return out


def _write_response(item: Item) -> JsonDict:
    parts: list[JsonDict] = []
    for n, part in enumerate(item.parts):
        try:
            written = _write_response_part(part)
        except NormalizeError as exc:
            raise under(exc, "parts", f"[{n}]") from None
        if written is not None:
            parts.append(written)
    md = item.metadata._data
    out: JsonDict = {"parts": parts, **carried(md, P, _RESPONSE_SKIP)}
    _stamp(md, item.created_at, out)
    if item.usage is not None:
        out["usage"] = _write_usage(item.usage)
    if item.finish_reason is not None and item.finish_reason.kind in _FINISH_BACK:
        out["finish_reason"] = _FINISH_BACK[item.finish_reason.kind]
    if item.id is not None:
        out["provider_response_id"] = item.id.value
    out["kind"] = "response"
    return out


def _write_usage(usage: Usage) -> JsonDict:
    rest = usage.metadata._data.get(_USAGE_KEY)
    out: JsonDict = copy_json(rest) if isinstance(rest, dict) else {}  # type: ignore[assignment]
    t = usage.tokens
    if t is not None:  # stores, not update(**) and a loop over pairs: 0.5 us -> 0.3 us a response
        out["input_tokens"] = t.input_tokens
        out["output_tokens"] = t.output_tokens
        if t.reasoning_tokens is not None:
            out["output_reasoning_tokens"] = t.reasoning_tokens
        if t.cached_input_tokens is not None:
            out["cache_read_tokens"] = t.cached_input_tokens
        if t.cache_write_input_tokens is not None:
            out["cache_write_tokens"] = t.cache_write_input_tokens
    return out


def _write_response_part(part: Part) -> JsonDict | None:
    md = part.metadata._data
    if not md and type(part) is TextPart:
        return {"content": part.text, "part_kind": "text"}
    if type(part) is TextPart:
        return {"content": part.text, **carried(md, P), "part_kind": "text"}
    if type(part) is ReasoningPart:
        return {"content": part.summary or "", **carried(md, P), "part_kind": "thinking"}
    if type(part) is ToolCallPart:
        args: JsonValue = copy_json(part.input)
        text = md.get(_ARGS)
        if args is None and type(md.get(INPUT_JSON_KEY)) is str:
            args = md[INPUT_JSON_KEY]
        elif type(text) is str and _same(text, args):
            args = text
        return {"tool_name": part.name, "args": args, "tool_call_id": part.id.value, **carried(md, P, _CALL_SKIP), "part_kind": "tool-call"}
    if type(part) is CustomPart:
        if part.kind.startswith(P) and isinstance(part.value, dict):
            return copy_json(part.value)  # type: ignore[return-value]
        return None
    if (type(part) is MediaPart or type(part) is FilePart) and type(part.data) is InlineBytes:
        mime = part.mime_type or "application/octet-stream"
        return {"content": {"data": b64encode(part.data.value), "media_type": mime, "kind": "binary"}, **carried(md, P), "part_kind": "file"}
    raise NormalizeError(f"a pydantic-ai response has no part for a {type(part).__name__}")


def _same(text: str, value: object) -> bool:
    try:
        return bool(json.loads(text) == value) if text else value == {}
    except ValueError:
        return False


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them."""
    return list(__all__)
