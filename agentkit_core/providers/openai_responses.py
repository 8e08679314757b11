"""Reference adapter: the OpenAI Responses API <-> agentkit_core.

Three directions, all module-level functions (so the module itself satisfies
``agentkit_core.ProviderAdapter``):

* :func:`items_from_response` -- a non-streaming ``Response`` object -> one
  ASSISTANT :class:`Item`;
* :func:`stream_decoder` -- a :class:`ResponsesStreamDecoder` that turns the
  stream events (``response.*``) into deltas and, from the folded parts, builds
  the same item (:func:`deltas_from_stream` is the one-shot convenience);
* :func:`items_from_request` / :func:`request_from_items` -- the transcript
  fields of a request body (``instructions``, ``input``) <-> items.

Parts: one native *content part* -> one Part
---------------------------------------------
A Responses output item may hold several content parts (a ``message`` with
several ``content[]`` entries, a ``reasoning`` item with several ``summary[]``
entries).  Each entry becomes its own Part, exactly as the stream addresses
them (``content_index`` / ``summary_index``); the parts of one native item sit
next to each other and share its ``openai.id``, and :func:`request_from_items`
regroups consecutive parts with the same id into one native item.  Items with
no entries map to one part (a reasoning item with ``summary: []`` is one
``ReasoningPart(summary=None)``).

================================  ==================================================
native                            neutral
================================  ==================================================
``message`` ``content[]`` entry   one part per entry (below); ``role`` -> item kind
 ``output_text``/``input_text``   ``TextPart(text)``
 ``refusal``                      ``TextPart(refusal)`` with ``openai.part.type="refusal"``
 ``input_image``                  ``MediaPart(IMAGE, mime, data)``: data URL ->
                                  ``InlineText(base64)`` + its MIME type; other
                                  ``image_url`` -> ``Uri``; ``file_id`` ->
                                  ``Handle(ArtifactId(file_id))`` (MIME ``image/*``)
 ``input_file``                   ``FilePart(data, name=filename, mime_type)``: ``file_data``
                                  data URL -> ``InlineText`` + MIME, other ``file_data``
                                  -> ``InlineText`` (no MIME); ``file_url`` -> ``Uri``;
                                  ``file_id`` -> ``Handle``
 any other entry type             ``CustomPart("openai.<type>", value=<entry>)``
``message`` with string content   one ``TextPart`` without ``openai.part.type``
``message`` with no entries       ``CustomPart("openai.message", value=<item>)``
``reasoning``                     one ``ReasoningPart(summary=<summary_text>)`` per
                                  ``summary[]`` entry (``None`` if there are none); the
                                  first carries ``data=InlineText(encrypted_content)``;
                                  ``content[]`` (``reasoning_text``) stays in
                                  ``openai.content``; ``redacted`` is always ``False``
``function_call``                 ``ToolCallPart(ToolCallId(call_id), name,
                                  json.loads(arguments))``; item id ``fc_...`` in
                                  ``openai.id``; ``openai.arguments`` holds the raw
                                  string when it is not the compact
                                  ``json.dumps(input, separators=(",", ":"),
                                  ensure_ascii=False)``; text that is not JSON the
                                  wire can carry (empty, truncated, ``NaN``, ``1e999``,
                                  a lone surrogate) gives ``input=None``, never an error
``custom_tool_call``              ``ToolCallPart(call_id, name, input=<the string>)``,
                                  ``openai.type="custom_tool_call"``
``function_call_output``          ``ToolResultPart(call_id, TextOutput(str) or
                                  PartsOutput(<entry parts>))``; ``is_error`` is always
                                  ``False`` (the API has no error flag, and a neutral
                                  ``is_error=True`` is not sent)
``custom_tool_call_output``       the same, with ``openai.type="custom_tool_call_output"``
any other item (``web_search_``   ``CustomPart("openai.<type>", value=<item verbatim>)``
``call``, ``item_reference``...)
================================  ==================================================

Metadata.  Every field of a native *item* that is not mapped to a first-class
field is kept verbatim on each of its parts as ``"openai.<field>"`` (``id``,
``status``, ``phase``, ``type`` of an input ``message`` when present, and any
field never seen before).  Fields of a native *content part* (a
``content[]``/``summary[]``/tool-output entry) are kept as
``"openai.part.<field>"`` (``openai.part.type``, ``openai.part.annotations``,
``openai.part.logprobs``, ``openai.part.detail``...), so item and entry fields
can never clash.  A field that is consumed only when it has the expected type
(``encrypted_content`` a string, ``summary`` a list...) is otherwise kept in
metadata, ``null`` included.

Response level: ``Item.id = MessageId(<resp_...>)``; every other top-level
field but ``output`` and ``usage`` is kept as ``"openai.<field>"`` in the item's
metadata (``openai.status``, ``openai.incomplete_details``, ``openai.model``,
``openai.service_tier``, ``openai.error``, ``openai.created_at``...).

Usage (OpenAI's convention is already the neutral one):

=====================================================  ============================
``usage.input_tokens`` (includes cached and written)   ``input_tokens``
``usage.input_tokens_details.cached_tokens``           ``cached_input_tokens``
``usage.input_tokens_details.cache_write_tokens``      ``cache_write_input_tokens``
``usage.output_tokens`` (includes reasoning)           ``output_tokens``
``usage.output_tokens_details.reasoning_tokens``       ``reasoning_tokens``
the whole ``usage`` object, verbatim                   ``Usage.metadata["openai.usage"]``
=====================================================  ============================

Finish reason, from the response ``status`` (raw values stay in
``openai.status`` / ``openai.incomplete_details``):

========================================================  =====================
``completed``, and the output has a client tool call       ``TOOL_CALL``
(``function_call`` / ``custom_tool_call``)
``completed`` otherwise                                    ``COMPLETED``
``incomplete`` + ``max_output_tokens``                     ``MAX_TOKENS``
``incomplete`` + ``content_filter``                        ``BLOCKED``
``incomplete`` + anything else                             ``other(<reason>)``
``failed`` (or a stream that ended on an ``error`` event)  ``ERROR``
``cancelled``                                              ``CANCELLED``
anything else (``in_progress``, ``queued``...)             ``other(<status>)``
========================================================  =====================

Streaming.  Part ids are ``"<output_index>"`` for a native item's first (or
only) part and ``"<output_index>.<content_index|summary_index>"`` for the
others.  ``output_item.added`` opens reasoning, tool call and server-tool
parts; ``content_part.added`` / ``reasoning_summary_part.added`` open the
others; text, refusal, summary and argument fragments are appended as they
arrive (argument fragments are the raw JSON text, so the fold shows them under
``agentkit.input_json`` while open); each ``annotation.added`` re-sends the
entry's annotations so far (``SetMetadata``); a tool call's ``call_id``, name
and item id are sent as metadata when it opens, as ``openai.*`` keys and as the
fold's header keys ``agentkit.tool_call_id`` and ``agentkit.tool_name``, so a
snapshot names the call while its arguments stream; a custom part (a server
tool item, an unknown entry) is sent ``agentkit.custom_kind`` likewise.  ``output_item.done`` commits every part of the
item, decoded from the done item exactly as the non-streaming path decodes it.
A terminal event (``response.completed`` / ``.incomplete`` / ``.failed``)
closes items that never got their ``done`` from the terminal response's copy,
and an ``error`` event closes them from what arrived.  :meth:`finish` takes
usage, finish reason and response-level metadata from the terminal response.

``encrypted_content`` differs between ``output_item.added``,
``output_item.done`` and the terminal response (each is a fresh encryption;
the SDK documents the ``done`` value as the complete one).  The streamed parts
carry the ``output_item.done`` value; so the non-streaming path agrees with the
stream on the terminal response *with each output item replaced by its
``output_item.done`` copy* -- and that substitution is the only difference.

Requests.  ``instructions`` (a string) <-> a SYSTEM item with one text part
and item metadata ``{"openai.request_field": "instructions"}``; a string
``input`` <-> one USER item marked ``"openai.request_field": "input"``.  Each
native input item becomes one item: ``message`` by role (``user`` -> USER,
``system`` -> SYSTEM, ``developer`` -> DEVELOPER, ``assistant`` -> ASSISTANT,
other roles -> USER with ``openai.role``), tool outputs (``*_output``) -> TOOL,
everything else -> ASSISTANT.  :func:`request_from_items` writes a SYSTEM item
without the marker as a ``system`` message, CONTEXT / NOTIFICATION / TOOL text
as ``user`` messages, and drops reasoning parts without an ``openai.id`` and
custom parts not in the ``openai.`` namespace (they cannot be sent to OpenAI).
``status`` of reasoning / function-call / custom-tool-call items is
response-side state: for an item that came from a response (it has a
``finish_reason``) it is not sent back, as the recorded follow-up requests do;
on items decoded from a request it is echoed as it came.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Iterable, Iterator, Mapping, Sequence, TypeGuard

from agentkit_core import (
    AppendText,
    ArtifactId,
    BeginPart,
    CommitPart,
    CustomPart,
    DataRef,
    Delta,
    FilePart,
    FilesOutput,
    FinishReason,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    MetadataMap,
    MessageId,
    Modality,
    Part,
    PartId,
    PartKind,
    PartsOutput,
    ReasoningPart,
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
    "items_from_response",
    "stream_decoder",
    "deltas_from_stream",
    "items_from_request",
    "request_from_items",
    "ResponsesStreamDecoder",
)

Json = dict[str, Any]

NS = "openai."
PART_NS = "openai.part."
#: The fold's header keys: an open part's call id, tool name or custom kind, shown by snapshot() before the commit.
HEADER_ID = "agentkit.tool_call_id"
HEADER_NAME = "agentkit.tool_name"
HEADER_KIND = "agentkit.custom_kind"
REQUEST_FIELD = "openai.request_field"

_ROLE_KINDS = {
    "user": ItemKind.USER,
    "system": ItemKind.SYSTEM,
    "developer": ItemKind.DEVELOPER,
    "assistant": ItemKind.ASSISTANT,
}
_KIND_ROLES = {kind: role for role, kind in _ROLE_KINDS.items()}
_CLIENT_TOOL_CALLS = ("function_call", "custom_tool_call")
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)


# -- small helpers -------------------------------------------------------------------


def _copy(v: Any) -> Any:
    """A deep copy of JSON data (native payloads are never shared with the items)."""
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _rest(obj: Mapping[str, Any], consumed: Iterable[str], prefix: str) -> dict[str, JsonValue]:
    """Every field of ``obj`` not in ``consumed``, keyed ``prefix + field`` (values copied)."""
    skip = set(consumed)
    return {prefix + k: _copy(v) for k, v in obj.items() if k not in skip}


def _strip(metadata: Mapping[str, JsonValue], prefix: str) -> Json:
    """The entries of ``metadata`` directly under ``prefix`` (not under ``openai.part.``), unprefixed."""
    n = len(prefix)
    out: Json = {}
    for k, v in metadata.items():
        if k.startswith(prefix) and (prefix == PART_NS or not k.startswith(PART_NS)):
            out[k[n:]] = _copy(v)
    return out


def _compact(value: JsonValue) -> str:
    """OpenAI's own argument encoding: compact separators, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _is_count(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _parse_data_url(url: str) -> tuple[str, str] | None:
    m = _DATA_URL.fullmatch(url)
    return None if m is None else (m.group(1), m.group(2))


def _data_url(mime: str, data: DataRef) -> str | None:
    if isinstance(data, InlineText):
        return f"data:{mime};base64,{data.value}"
    if isinstance(data, InlineBytes):
        return f"data:{mime};base64,{base64.b64encode(data.value).decode('ascii')}"
    return None


# -- native -> parts -----------------------------------------------------------------


def _entry_part(entry: object, item_md: Mapping[str, JsonValue]) -> Part:
    """One native content part (a ``content[]`` or tool-output entry) -> one Part."""
    if not isinstance(entry, dict):
        return CustomPart("openai.unknown", value=_copy(entry), metadata=MetadataMap({**item_md, PART_NS + "type": None}))
    etype = entry.get("type")
    if etype in ("output_text", "input_text") and isinstance(entry.get("text"), str):
        return TextPart(entry["text"], metadata=MetadataMap({**item_md, **_rest(entry, ("text",), PART_NS)}))
    if etype == "refusal" and isinstance(entry.get("refusal"), str):
        return TextPart(entry["refusal"], metadata=MetadataMap({**item_md, **_rest(entry, ("refusal",), PART_NS)}))
    if etype == "input_image":
        url, file_id = entry.get("image_url"), entry.get("file_id")
        if isinstance(url, str):
            parsed = _parse_data_url(url)
            image: tuple[str, DataRef] = ("image/*", Uri(url)) if parsed is None else (parsed[0], InlineText(parsed[1]))
            md = _rest(entry, ("image_url",), PART_NS)
            return MediaPart(Modality.IMAGE, image[0], image[1], metadata=MetadataMap({**item_md, **md}))
        if isinstance(file_id, str):
            md = _rest(entry, ("file_id",), PART_NS)
            return MediaPart(Modality.IMAGE, "image/*", Handle(ArtifactId(file_id)), metadata=MetadataMap({**item_md, **md}))
    if etype == "input_file":
        name = entry.get("filename")
        consumed = ["filename"] if isinstance(name, str) else []
        file_ref: DataRef | None = None
        mime: str | None = None
        if isinstance(entry.get("file_data"), str):
            parsed = _parse_data_url(entry["file_data"])
            mime, file_ref = (None, InlineText(entry["file_data"])) if parsed is None else (parsed[0], InlineText(parsed[1]))
            consumed.append("file_data")
        elif isinstance(entry.get("file_url"), str):
            file_ref = Uri(entry["file_url"])
            consumed.append("file_url")
        elif isinstance(entry.get("file_id"), str):
            file_ref = Handle(ArtifactId(entry["file_id"]))
            consumed.append("file_id")
        if file_ref is not None:
            md = _rest(entry, consumed, PART_NS)
            return FilePart(
                file_ref,
                name=name if isinstance(name, str) else None,
                mime_type=mime,
                metadata=MetadataMap({**item_md, **md}),
            )
    kind = f"openai.{etype}" if isinstance(etype, str) else "openai.unknown"
    return CustomPart(kind, value=_copy(entry), metadata=MetadataMap({**item_md, PART_NS + "type": _copy(etype)}))


def _tool_output(output: object) -> ToolOutput | None:
    if isinstance(output, str):
        return TextOutput(output)
    if isinstance(output, list):
        return PartsOutput(tuple(_entry_part(e, {}) for e in output))
    return None


def _parse_arguments(raw: str) -> tuple[JsonValue, dict[str, JsonValue]]:
    """A function call's ``input`` and the metadata that keeps ``raw`` when it is not canonical."""
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
        canonical = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        canonical.encode("utf-8")  # a lone surrogate cannot go on the wire either
    except (ValueError, RecursionError):
        return None, {NS + "arguments": raw}
    return value, ({} if canonical == raw else {NS + "arguments": raw})


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parts_from_native_item(item: object) -> list[Part]:
    """One native output or input item -> its parts (see the module table)."""
    if not isinstance(item, dict):
        return [CustomPart("openai.unknown", value=_copy(item))]
    itype = item.get("type")
    if itype == "message" or (itype is None and "role" in item):
        role = item.get("role")
        consumed = ["content"] + (["role"] if role in _ROLE_KINDS else [])
        md = _rest(item, consumed, NS)
        content = item.get("content")
        if isinstance(content, str):
            return [TextPart(content, metadata=MetadataMap(md))]
        if isinstance(content, list) and content:
            return [_entry_part(e, md) for e in content]
        return [CustomPart("openai.message", value=_copy(item))]
    if itype == "reasoning":
        summary, encrypted = item.get("summary"), item.get("encrypted_content")
        consumed = ["type"] + (["summary"] if isinstance(summary, list) else [])
        data: DataRef | None = None
        if isinstance(encrypted, str):
            consumed.append("encrypted_content")
            data = InlineText(encrypted)
        md = _rest(item, consumed, NS)
        entries = summary if isinstance(summary, list) else []
        if not entries:
            return [ReasoningPart(None, data=data, metadata=MetadataMap(md))]
        parts: list[Part] = []
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and isinstance(entry.get("text"), str):
                text: str | None = entry["text"]
                emd = _rest(entry, ("text",), PART_NS)
            else:
                text, emd = None, {PART_NS + "type": None, PART_NS + "entry": _copy(entry)}
            parts.append(ReasoningPart(text, data=data if i == 0 else None, metadata=MetadataMap({**md, **emd})))
        return parts
    call_id, name = item.get("call_id"), item.get("name")
    if itype == "function_call" and isinstance(call_id, str) and isinstance(name, str):
        raw = item.get("arguments")
        if isinstance(raw, str):
            value, extra = _parse_arguments(raw)
            md = {**_rest(item, ("type", "call_id", "name", "arguments"), NS), **extra}
            return [ToolCallPart(ToolCallId(call_id), name, value, metadata=MetadataMap(md))]
    if itype == "custom_tool_call" and isinstance(call_id, str) and isinstance(name, str):
        if isinstance(item.get("input"), str):
            md = _rest(item, ("call_id", "name", "input"), NS)
            return [ToolCallPart(ToolCallId(call_id), name, item["input"], metadata=MetadataMap(md))]
    if itype in ("function_call_output", "custom_tool_call_output") and isinstance(call_id, str):
        output = _tool_output(item.get("output"))
        if output is not None:
            consumed = ["call_id", "output"] + (["type"] if itype == "function_call_output" else [])
            return [ToolResultPart(ToolCallId(call_id), output, metadata=MetadataMap(_rest(item, consumed, NS)))]
    kind = f"openai.{itype}" if isinstance(itype, str) else "openai.unknown"
    return [CustomPart(kind, value=_copy(item))]


# -- response -> item ----------------------------------------------------------------


def usage_from_native(usage: object) -> Usage | None:
    """The neutral :class:`Usage` of a Responses ``usage`` object (``None`` when absent)."""
    if not isinstance(usage, dict):
        return None
    md = {NS + "usage": _copy(usage)}
    inp, out = usage.get("input_tokens"), usage.get("output_tokens")
    if not (_is_count(inp) and _is_count(out)):
        return Usage(None, metadata=MetadataMap(md))
    in_d = usage.get("input_tokens_details")
    out_d = usage.get("output_tokens_details")
    in_d = in_d if isinstance(in_d, dict) else {}
    out_d = out_d if isinstance(out_d, dict) else {}

    def count(d: Json, key: str) -> int | None:
        v = d.get(key)
        return v if _is_count(v) else None

    tokens = TokenUsage(
        inp,
        out,
        reasoning_tokens=count(out_d, "reasoning_tokens"),
        cached_input_tokens=count(in_d, "cached_tokens"),
        cache_write_input_tokens=count(in_d, "cache_write_tokens"),
    )
    return Usage(tokens, metadata=MetadataMap(md))


def finish_reason_from_native(response: Mapping[str, Any], parts: Sequence[Part]) -> FinishReason | None:
    """The neutral finish reason of a response whose output decoded to ``parts``."""
    status = response.get("status")
    if status == "completed":
        if any(type(p) is ToolCallPart for p in parts):
            return FinishReason.TOOL_CALL
        return FinishReason.COMPLETED
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason == "max_output_tokens":
            return FinishReason.MAX_TOKENS
        if reason == "content_filter":
            return FinishReason.BLOCKED
        return FinishReason.other(reason if isinstance(reason, str) else "incomplete")
    if status == "failed":
        return FinishReason.ERROR
    if status == "cancelled":
        return FinishReason.CANCELLED
    if isinstance(status, str):
        return FinishReason.other(status)
    return None


def _assistant_item(response: Mapping[str, Any], parts: Sequence[Part]) -> Item:
    rid = response.get("id")
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(rid) if isinstance(rid, str) else None,
        metadata=MetadataMap(_rest(response, ("id", "output", "usage"), NS)),
        usage=usage_from_native(response.get("usage")),
        finish_reason=finish_reason_from_native(response, parts),
    )


def items_from_response(response: dict[str, Any]) -> list[Item]:
    """A non-streaming Responses ``Response`` -> ``[ASSISTANT item]``."""
    output = response.get("output")
    parts: list[Part] = []
    for native in output if isinstance(output, list) else []:
        parts.extend(parts_from_native_item(native))
    return [_assistant_item(response, parts)]


# -- stream --------------------------------------------------------------------------


def _pid(output_index: int, entry: int = 0) -> PartId:
    return PartId(str(output_index) if entry == 0 else f"{output_index}.{entry}")


_ENTRY_KINDS = {
    "output_text": PartKind.TEXT,
    "input_text": PartKind.TEXT,
    "refusal": PartKind.TEXT,
    "input_image": PartKind.MEDIA,
    "input_file": PartKind.FILE,
}


class _OpenItem:
    """What the stream has said so far about one output item."""

    __slots__ = ("item", "entries", "texts", "annotations", "open")

    def __init__(self, item: Json) -> None:
        self.item = item  # as output_item.added sent it
        self.entries: dict[int, Json] = {}  # content_part / summary_part .added payloads
        self.texts: dict[int, list[str]] = {}  # fragments per entry index
        self.annotations: dict[int, list[Any]] = {}
        self.open: list[int] = []  # entry indices with an open part, in order

    def partial(self) -> Json:
        """The native item rebuilt from what arrived (for a stream cut short)."""
        item: Json = _copy(self.item)
        itype = item.get("type")
        text = {i: "".join(chunks) for i, chunks in self.texts.items()}
        if itype == "message":
            content = []
            for i in sorted(set(self.entries) | set(text)):
                entry = _copy(self.entries.get(i, {"type": "output_text", "annotations": []}))
                entry["refusal" if entry.get("type") == "refusal" else "text"] = text.get(i, "")
                if i in self.annotations:
                    entry["annotations"] = _copy(self.annotations[i])
                content.append(entry)
            item["content"] = content
        elif itype == "reasoning":
            item["summary"] = [
                {**_copy(self.entries.get(i, {"type": "summary_text"})), "text": text.get(i, "")}
                for i in sorted(set(self.entries) | set(text))
            ]
        elif itype == "function_call":
            item["arguments"] = text.get(0, item.get("arguments") or "")
        elif itype == "custom_tool_call":
            item["input"] = text.get(0, item.get("input") or "")
        return item


class ResponsesStreamDecoder:
    """Responses stream events -> deltas; :meth:`finish` builds the turn's item.

    One decoder serves one stream.  Feed every event in order and fold what
    :meth:`feed` returns; then call :meth:`finish` with the folded parts.
    """

    def __init__(self) -> None:
        self._response: Json = {}
        self._error: Json | None = None
        self._items: dict[int, _OpenItem] = {}

    # -- events -----------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> list[Delta]:
        """The deltas of one stream event (the parsed ``data:`` JSON)."""
        etype = event.get("type")
        if not isinstance(etype, str):
            return []
        if etype in ("response.created", "response.in_progress", "response.queued"):
            if isinstance(event.get("response"), dict):
                self._response = event["response"]
            return []
        if etype in ("response.completed", "response.incomplete", "response.failed", "response.cancelled"):
            response = event.get("response")
            if not isinstance(response, dict):
                return []
            self._response = response
            output = response.get("output")
            output = output if isinstance(output, list) else []
            deltas: list[Delta] = []
            for i in sorted(self._items):
                native = output[i] if i < len(output) else self._items[i].partial()
                deltas += self._close(i, native)
            return deltas
        if etype == "error":
            self._error = {k: _copy(v) for k, v in event.items() if k not in ("type", "sequence_number")}
            deltas = []
            for i in sorted(self._items):
                deltas += self._close(i, self._items[i].partial())
            return deltas
        index = event.get("output_index")
        if not _is_count(index):
            return []
        if etype == "response.output_item.added":
            return self._added(index, event.get("item"))
        state = self._items.get(index)
        if state is None:
            return []
        if etype == "response.output_item.done":
            return self._close(index, event.get("item"))
        if etype in ("response.content_part.added", "response.reasoning_summary_part.added"):
            entry = event.get("content_index" if etype == "response.content_part.added" else "summary_index")
            part = event.get("part")
            if not _is_count(entry) or not isinstance(part, dict):
                return []
            state.entries[entry] = part
            kind = PartKind.REASONING if state.item.get("type") == "reasoning" else _ENTRY_KINDS.get(str(part.get("type")), PartKind.CUSTOM)
            deltas = self._begin(index, state, entry, kind)
            if deltas and kind is PartKind.CUSTOM:
                deltas += self._custom_kind(index, entry, part.get("type"))
            return deltas
        if etype in (
            "response.output_text.delta",
            "response.refusal.delta",
            "response.reasoning_summary_text.delta",
            "response.function_call_arguments.delta",
            "response.custom_tool_call_input.delta",
        ):
            entry = event.get("summary_index", event.get("content_index", 0))
            chunk = event.get("delta")
            if not _is_count(entry) or not isinstance(chunk, str) or entry not in state.open:
                return []
            state.texts.setdefault(entry, []).append(chunk)
            return [AppendText(_pid(index, entry), chunk)]
        if etype == "response.output_text.annotation.added":
            entry, at = event.get("content_index"), event.get("annotation_index")
            if not _is_count(entry) or entry not in state.open:
                return []
            notes = state.annotations.setdefault(entry, list(state.entries.get(entry, {}).get("annotations") or []))
            note = _copy(event.get("annotation"))
            if _is_count(at) and at < len(notes):
                notes[at] = note
            else:
                notes.append(note)
            return [SetMetadata(_pid(index, entry), MetadataMap({PART_NS + "annotations": _copy(notes)}))]
        return []  # *.done repeats, web_search_call progress, future events: nothing to fold

    def _begin(self, index: int, state: _OpenItem, entry: int, kind: PartKind) -> list[Delta]:
        if entry in state.open:
            return []
        state.open.append(entry)
        return [BeginPart(_pid(index, entry), kind)]

    def _added(self, index: int, item: object) -> list[Delta]:
        if not isinstance(item, dict) or index in self._items:
            return []
        state = self._items[index] = _OpenItem(item)
        itype = item.get("type")
        if itype == "message":
            return []  # its parts open with content_part.added
        if itype == "reasoning":
            return self._begin(index, state, 0, PartKind.REASONING)
        if itype in _CLIENT_TOOL_CALLS:
            deltas = self._begin(index, state, 0, PartKind.TOOL_CALL)
            shown = {NS + k: _copy(item[k]) for k in ("id", "call_id", "name") if k in item}
            header = {HEADER_ID: item.get("call_id"), HEADER_NAME: item.get("name")}
            shown.update((k, v) for k, v in header.items() if isinstance(v, str))
            deltas.append(SetMetadata(_pid(index), MetadataMap(shown)))
            return deltas
        return self._begin(index, state, 0, PartKind.CUSTOM) + self._custom_kind(index, 0, itype)

    @staticmethod
    def _custom_kind(index: int, entry: int, native_type: object) -> list[Delta]:
        """The header key that lets a snapshot show an open custom part's kind (``openai.<type>``)."""
        if not isinstance(native_type, str):
            return []
        return [SetMetadata(_pid(index, entry), MetadataMap({HEADER_KIND: NS + native_type}))]

    def _close(self, index: int, native: object) -> list[Delta]:
        """Commit every part of output item ``index`` from its final native form."""
        state = self._items.pop(index, None)
        if state is None:
            return []
        parts = parts_from_native_item(native)
        deltas: list[Delta] = []
        for entry, part in enumerate(parts):
            pid = _pid(index, entry)
            if entry in state.open:
                state.open.remove(entry)
            else:
                deltas.append(BeginPart(pid, part.part_kind))
            deltas.append(CommitPart(part, part_id=pid))
        for entry in state.open:  # entries the final item no longer has
            for part in parts_from_native_item(state.partial())[entry : entry + 1]:
                deltas.append(CommitPart(part, part_id=_pid(index, entry)))
        return deltas

    # -- the item -----------------------------------------------------------------

    def finish(self, parts: Sequence[Part]) -> Item:
        """The turn's item: ``parts`` (the folded stream) with the terminal response's usage and metadata."""
        item = _assistant_item(self._response, parts)
        if self._error is not None:
            md = item.metadata.merged({NS + "error": self._error})
            item = Item(
                item.kind,
                item.parts,
                id=item.id,
                metadata=MetadataMap(md),
                usage=item.usage,
                finish_reason=FinishReason.ERROR,
            )
        return item


def stream_decoder() -> ResponsesStreamDecoder:
    """A fresh decoder for one Responses stream."""
    return ResponsesStreamDecoder()


def deltas_from_stream(events: Iterable[dict[str, Any]], decoder: ResponsesStreamDecoder | None = None) -> Iterator[Delta]:
    """Every delta of a whole stream of events (pass ``decoder`` to call :meth:`finish` after)."""
    dec = decoder if decoder is not None else ResponsesStreamDecoder()
    for event in events:
        yield from dec.feed(event)


# -- requests ------------------------------------------------------------------------


def _input_kind(native: object) -> ItemKind:
    if not isinstance(native, dict):
        return ItemKind.ASSISTANT
    itype = native.get("type")
    if itype == "message" or (itype is None and "role" in native):
        return _ROLE_KINDS.get(native.get("role"), ItemKind.USER)  # type: ignore[arg-type]
    if isinstance(itype, str) and itype.endswith("_output"):
        return ItemKind.TOOL
    return ItemKind.ASSISTANT


def items_from_request(request: dict[str, Any]) -> list[Item]:
    """The transcript of a Responses request body: ``instructions`` and ``input`` as items."""
    items: list[Item] = []
    instructions = request.get("instructions")
    if isinstance(instructions, str):
        items.append(Item(ItemKind.SYSTEM, (TextPart(instructions),), metadata=MetadataMap({REQUEST_FIELD: "instructions"})))
    inp = request.get("input")
    if isinstance(inp, str):
        items.append(Item(ItemKind.USER, (TextPart(inp),), metadata=MetadataMap({REQUEST_FIELD: "input"})))
    elif isinstance(inp, list):
        for native in inp:
            items.append(Item(_input_kind(native), tuple(parts_from_native_item(native))))
    return items


def _entry_dict(part: Part, role: str) -> Json:
    """One part -> one native content entry (message content, tool output list)."""
    fields = _strip(part.metadata, PART_NS)
    if isinstance(part, CustomPart) and (PART_NS + "type") in part.metadata:
        verbatim: Json = _copy(part.value)
        return verbatim
    if isinstance(part, TextPart):
        etype = fields.pop("type", "output_text" if role == "assistant" else "input_text")
        return {"type": etype, ("refusal" if etype == "refusal" else "text"): part.text, **fields}
    if isinstance(part, MediaPart) and part.modality is Modality.IMAGE:
        fields.pop("type", None)
        data = part.data
        if isinstance(data, Uri):
            return {"type": "input_image", "image_url": data.value, **fields}
        if isinstance(data, Handle):
            return {"type": "input_image", "file_id": data.value.value, **fields}
        return {"type": "input_image", "image_url": _data_url(part.mime_type, data), **fields}
    if isinstance(part, (MediaPart, FilePart)):
        fields.pop("type", None)
        entry: Json = {"type": "input_file"}
        name = part.name if isinstance(part, FilePart) else None
        mime = part.mime_type
        if name is not None:
            entry["filename"] = name
        data = part.data
        if isinstance(data, Uri):
            entry["file_url"] = data.value
        elif isinstance(data, Handle):
            entry["file_id"] = data.value.value
        elif mime is None and isinstance(data, InlineText):
            entry["file_data"] = data.value
        else:
            entry["file_data"] = _data_url(mime or "application/octet-stream", data)
        return {**entry, **fields}
    if isinstance(part, StructuredPart):
        return {"type": "input_text", "text": _compact(part.value)}
    if isinstance(part, CustomPart):
        return {"type": "input_text", "text": _compact(part.value)}
    return {"type": "input_text", "text": ""}


def _output_native(output: ToolOutput) -> Any:
    if isinstance(output, TextOutput):
        return output.text
    if isinstance(output, StructuredOutput):
        return _compact(output.value)
    if isinstance(output, PartsOutput):
        return [_entry_dict(p, "user") for p in output.parts]
    if isinstance(output, FilesOutput):
        return [_entry_dict(f, "user") for f in output.files]
    return ""


def _group_key(part: Part) -> tuple[str, JsonValue] | None:
    """Parts with equal keys, next to each other, form one native item; ``None``: alone."""
    if isinstance(part, (ToolCallPart, ToolResultPart)):
        return None
    if isinstance(part, CustomPart) and (PART_NS + "type") not in part.metadata:
        return None
    category = "reasoning" if isinstance(part, ReasoningPart) else "message"
    return (category, part.metadata.get(NS + "id"))


def _groups(parts: Sequence[Part]) -> Iterator[list[Part]]:
    group: list[Part] = []
    key: tuple[str, JsonValue] | None = None
    for part in parts:
        k = _group_key(part)
        if group and (k is None or k != key):
            yield group
            group = []
        group.append(part)
        key = k
    if group:
        yield group


def _native_items(item: Item) -> Iterator[Json]:
    from_response = item.finish_reason is not None
    for group in _groups(item.parts):
        first = group[0]
        fields = _strip(first.metadata, NS)
        if isinstance(first, ToolCallPart):
            if from_response:
                fields.pop("status", None)
            if fields.get("type") == "custom_tool_call":
                inp = first.input if isinstance(first.input, str) else _compact(first.input)
                yield {"call_id": first.id.value, "name": first.name, "input": inp, **fields}
            else:
                args = fields.pop("arguments", None)
                if not isinstance(args, str):
                    args = _compact(first.input)
                yield {"type": "function_call", "call_id": first.id.value, "name": first.name, "arguments": args, **fields}
        elif isinstance(first, ToolResultPart):
            yield {
                "type": fields.pop("type", "function_call_output"),
                "call_id": first.call_id.value,
                "output": _output_native(first.output),
                **fields,
            }
        elif isinstance(first, CustomPart) and (PART_NS + "type") not in first.metadata:
            if first.kind.startswith(NS) and isinstance(first.value, dict):
                yield _copy(first.value)
        elif isinstance(first, ReasoningPart):
            if "id" not in fields:
                continue  # reasoning from elsewhere: OpenAI cannot take it back
            if from_response:
                fields.pop("status", None)
            summary: list[Json] = []
            encrypted: str | None = None
            for p in group:
                assert isinstance(p, ReasoningPart)
                pf = _strip(p.metadata, PART_NS)
                if "entry" in pf:
                    summary.append(pf["entry"])
                elif p.summary is not None or "type" in pf:
                    summary.append({"type": pf.pop("type", "summary_text"), "text": p.summary or "", **pf})
                if encrypted is None and isinstance(p.data, InlineText):
                    encrypted = p.data.value
            native: Json = {"type": "reasoning", "summary": summary, **fields}
            if encrypted is not None:
                native["encrypted_content"] = encrypted
            yield native
        else:
            role = fields.pop("role", None)
            if not isinstance(role, str):
                role = _KIND_ROLES.get(item.kind, "user")
            if len(group) == 1 and isinstance(first, TextPart) and (PART_NS + "type") not in first.metadata:
                content: Any = first.text
            else:
                content = [_entry_dict(p, role) for p in group]
            yield {"role": role, "content": content, **fields}


def request_from_items(items: Sequence[Item]) -> dict[str, Any]:
    """The transcript fields of a Responses request: ``{"input": [...]}`` (+ ``instructions``)."""
    body: dict[str, Any] = {}
    native: list[Json] = []
    bare_input: str | None = None
    for item in items:
        field = item.metadata.get(REQUEST_FIELD)
        if field == "instructions" and item.kind is ItemKind.SYSTEM and "instructions" not in body:
            body["instructions"] = item.text_content()
            continue
        if field == "input" and len(item.parts) == 1 and isinstance(item.parts[0], TextPart):
            bare_input = item.parts[0].text
        native.extend(_native_items(item))
    if bare_input is not None and len(native) == 1:
        body["input"] = bare_input
    else:
        body["input"] = native
    return body
