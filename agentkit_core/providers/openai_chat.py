"""Reference adapter: OpenAI Chat Completions <-> agentkit_core.

A module of functions that satisfies ``agentkit_core.ProviderAdapter``:

* :func:`items_from_response` -- a ``chat.completion`` body -> one ASSISTANT
  :class:`~agentkit_core.Item` per choice;
* :func:`stream_decoder` -- a :class:`ChatStreamDecoder` turning
  ``chat.completion.chunk`` events into deltas, then (:meth:`~ChatStreamDecoder.finish`)
  the same item :func:`items_from_response` gives for the accumulated response;
* :func:`items_from_request` / :func:`request_from_items` -- the ``messages``
  of a request body <-> items, so a transcript can be sent back.

Helpers: :func:`deltas_from_stream`, :func:`items_from_stream`,
:func:`events_from_sse` (a raw ``text/event-stream`` body -> chunk dicts).

Metadata keys are ``"openai.<native field>"`` holding the native JSON value
verbatim.  Every field of a response, choice, message, tool call, audio object
or content part that has no first-class home is carried that way, fields never
seen before included; a field of a nested object that is not mapped is carried
as ``"openai.<object>.<field>"`` (``openai.image_url.foo``), so the encoder
knows where it goes back.  Message-level fields are ``openai.message.<field>``
on the item: those, and only those, are sent back in requests; response- and
choice-level fields (``openai.model``, ``openai.logprobs``...) never are.

Response mapping (``items_from_response``; the stream decoder builds the same)
-----------------------------------------------------------------------------

=====================================  =======================================================
native                                 neutral
=====================================  =======================================================
``id``                                 ``Item.id`` (``MessageId``), shared by every choice
``object``                             consumed (type tag)
``created``, ``model``,                item metadata ``openai.created`` ... (response level)
``service_tier``, ``system_fingerprint``,
``prompt_filter_results`` (Azure), any
other top-level field
``usage``                              ``Item.usage`` of the *first* choice only (see below)
``choices[i]``                         one ASSISTANT item each, in order
``choices[i].index``, ``logprobs``,    item metadata ``openai.index``, ``openai.logprobs``,
``finish_reason``,                     ``openai.finish_reason`` (raw), ``openai.content_filter_results``
``content_filter_results`` (Azure)     (choice level)
``message.role``                       consumed (always ``assistant``)
``message.content`` (string)           ``TextPart``; ``null`` gives no part
``message.annotations``                ``openai.annotations`` on that ``TextPart`` (on the item when
                                       there is no content)
``message.refusal`` (string)           ``TextPart(refusal)`` with ``{"openai.refusal": true}``
``message.audio``                      ``MediaPart(AUDIO, <sniffed MIME>, InlineText(<base64 data>))``;
                                       ``openai.id``, ``openai.expires_at``, ``openai.transcript``
``message.tool_calls[j]``              ``ToolCallPart(ToolCallId(id), function.name, parsed arguments)``;
                                       ``openai.arguments`` = raw string when it is not exactly
                                       ``json.dumps(input, separators=(",", ":"), ensure_ascii=False)``
                                       or not valid JSON (then ``input`` is ``None``; empty text gives
                                       ``{}``, as the fold does); ``openai.index`` (stream index);
                                       ``type: "custom"`` calls keep ``openai.type`` and a string input
``message.function_call`` (legacy)     ``ToolCallPart(ToolCallId(name), name, input)`` with
                                       ``openai.legacy_function_call: true`` (no id exists natively)
any other message field                item metadata ``openai.message.<field>``, sent back in
                                       requests (``reasoning_content`` of compatible servers
                                       included: Chat itself returns no reasoning)
=====================================  =======================================================

Parts are in this order: content, refusal, audio, tool calls, legacy function
call.  Binary media stay base64 text (``InlineText``), byte-exact.

Tokens: ``input_tokens = prompt_tokens`` (it already *includes*
``prompt_tokens_details.cached_tokens`` and ``cache_write_tokens``);
``cached_input_tokens = cached_tokens``; ``cache_write_input_tokens =
cache_write_tokens``; ``output_tokens = completion_tokens`` (it *includes*
``completion_tokens_details.reasoning_tokens``); ``reasoning_tokens =
reasoning_tokens``.  A breakdown the server did not report stays ``None``.
The native usage object is kept verbatim in ``Usage.metadata["openai.usage"]``
(audio, text, image and prediction token details live there).  With ``n > 1``
the usage covers every choice, so only the first choice's item carries it:
summing the items' usage gives the response's usage.

Finish reasons (raw value always in item metadata ``openai.finish_reason``):

=================================  ==========================================
``stop``                           ``COMPLETED`` (``BLOCKED`` when the message is a refusal)
``length``                         ``MAX_TOKENS``
``tool_calls``, ``function_call``  ``TOOL_CALL``
``content_filter``                 ``BLOCKED``
``null`` / absent                  ``None`` (stream cut short)
anything else                      ``FinishReason.other(raw)``
=================================  ==========================================

Streaming: Chat chunks have no part boundaries, so a part opens
(``BeginPart``) when its field first appears in a choice's ``delta``, grows as
fragments arrive (``AppendText`` of content, refusal, base64 audio data and raw
tool-call argument JSON; ``SetMetadata`` for the refusal flag and the audio id,
transcript and expiry, and for the fold's header keys as soon as they are known:
``agentkit.tool_call_id`` and ``agentkit.tool_name`` of a tool call,
``agentkit.modality`` and ``agentkit.mime_type`` of audio, so a snapshot names
the tool while its arguments stream), and every part of a choice is committed (``CommitPart``
with ``part_id``, the authoritative final part) when that choice's
``finish_reason`` arrives.  Part ids follow the Rust reference:
``part-{choice}-content``, ``part-{choice}-tool-{index}``, plus
``part-{choice}-refusal``, ``part-{choice}-audio`` and
``part-{choice}-function-call``.  Part order is the order fields first
appear, which for OpenAI is the order above.

Several choices (``n > 1``) share one decoder and one fold: the part ids name
the choice, the decoder records which choice began each part, and
:meth:`ChatStreamDecoder.finish_all` splits the folded parts back into one
item per choice; :meth:`~ChatStreamDecoder.finish` returns the first choice's
item (what a loop continuing one transcript wants).

Requests (``items_from_request`` / ``request_from_items``)
----------------------------------------------------------

Roles: ``system`` -> SYSTEM, ``developer`` -> DEVELOPER, ``user`` -> USER,
``assistant`` -> ASSISTANT, ``tool`` -> TOOL (one ``ToolResultPart`` with
``TextOutput`` for string content, ``PartsOutput`` of text parts for a list),
legacy ``function`` -> TOOL with ``openai.legacy_function_call``; an unknown
role becomes USER with ``openai.role``.  Content: a string is one ``TextPart``
(written back as a string when an item has exactly one plain text part,
otherwise as a list); ``text`` parts -> ``TextPart``; ``image_url`` ->
``MediaPart(IMAGE)`` (a ``data:`` URL becomes ``InlineText(base64)`` plus its
MIME type, any other URL a ``Uri``; ``detail`` -> ``openai.detail``);
``input_audio`` -> ``MediaPart(AUDIO, audio/wav|audio/mpeg|audio/<format>,
InlineText(base64))``; ``file`` -> ``FilePart`` (``file_data`` data URL ->
``InlineText`` + MIME, ``filename`` -> ``name``, ``file_id`` ->
``Handle(ArtifactId(file_id))``); any other part type ->
``CustomPart("openai.<type>", value=<part verbatim>)``.  An assistant
``audio: {"id"}`` reference becomes ``MediaPart(AUDIO, Handle(id))`` with
``openai.id``.

Writing back: an assistant item's audio part with ``openai.id`` becomes
``audio: {"id": ...}``; refusal text parts the ``refusal`` field; tool calls
their raw ``openai.arguments`` or the compact ``json.dumps`` of ``input``; an
assistant message with no content gets ``content: null`` when it has tool
calls (omitted otherwise, unless the item's ``openai.content`` says
otherwise).  Tool results become ``role: "tool"`` messages; Chat tool
messages take text only, so media and files of a result are re-injected as
one user message after the run of tool messages.  Not representable, dropped:
``ReasoningPart`` (Chat takes no reasoning input), ``CustomPart`` of other
providers, ``ToolResultPart.is_error`` (Chat has no error flag; the output
text is sent as is).  Response-only metadata (model, usage, logprobs,
annotations, transcript, expiry, stream index...) is never echoed.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .. import (
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
    FoldState,
    Handle,
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
    PartKind,
    PartsOutput,
    ProtocolError,
    SetMetadata,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    TokenUsage,
    Uri,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Usage,
    fold_all,
)

__all__ = (
    "items_from_response",
    "stream_decoder",
    "ChatStreamDecoder",
    "deltas_from_stream",
    "items_from_stream",
    "events_from_sse",
    "items_from_request",
    "request_from_items",
    "usage_from_native",
    "finish_reason_from_native",
)

Json = Any
NS = "openai."
#: Prefix of the message-level fields an item carries; these, and only these, go back into requests.
MESSAGE_NS = NS + "message."

#: Adapter marker (not a native field): a tool call/result of the deprecated ``functions`` API.
LEGACY_KEY = NS + "legacy_function_call"
REFUSAL_KEY = NS + "refusal"
ARGUMENTS_KEY = NS + "arguments"
#: The fold's header keys: an open part's id, name, modality and MIME type, shown by snapshot() before the commit.
HEADER_ID = "agentkit.tool_call_id"
HEADER_NAME = "agentkit.tool_name"
HEADER_MODALITY = "agentkit.modality"
HEADER_MIME = "agentkit.mime_type"

_FINISH: dict[str, FinishReason] = {
    "stop": FinishReason.COMPLETED,
    "length": FinishReason.MAX_TOKENS,
    "tool_calls": FinishReason.TOOL_CALL,
    "function_call": FinishReason.TOOL_CALL,
    "content_filter": FinishReason.BLOCKED,
}

# Response/choice-level and part-level fields that a request must never carry back.
_NEVER_ECHO = frozenset(
    {
        "object", "created", "model", "service_tier", "system_fingerprint", "prompt_filter_results",
        "usage", "obfuscation", "index", "logprobs", "finish_reason", "content_filter_results",
        "annotations", "refusal", "transcript", "expires_at", "id", "type", "arguments",
        "legacy_function_call", "content", "role", "detail",
    }
)


# -- small shared helpers -------------------------------------------------------------


def _copy(v: Json) -> Json:
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _carry(meta: dict[str, Json], obj: Mapping[str, Json], consumed: Iterable[str], prefix: str = NS) -> None:
    """Put every field of ``obj`` not in ``consumed`` into ``meta`` as ``prefix + field``."""
    skip = set(consumed)
    for k, v in obj.items():
        if k not in skip:
            meta[prefix + k] = _copy(v)


def _extras(md: Mapping[str, Json], skip: Iterable[str] = ()) -> dict[str, Json]:
    """Flat ``openai.<field>`` entries that go back into a native object."""
    never = _NEVER_ECHO.union(skip)
    out: dict[str, Json] = {}
    for k, v in md.items():
        if k.startswith(NS):
            name = k[len(NS):]
            if "." not in name and name not in never:
                out[name] = _copy(v)
    return out


def _nested(md: Mapping[str, Json], obj: str) -> dict[str, Json]:
    """``openai.<obj>.<field>`` entries: fields of the nested object ``obj``."""
    prefix = f"{NS}{obj}."
    return {k[len(prefix):]: _copy(v) for k, v in md.items() if k.startswith(prefix)}


def _dumps(value: Json) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_arguments(raw: Json) -> tuple[Json, dict[str, Json]]:
    """Arguments string -> (input, metadata): the raw string kept unless ``_dumps`` reproduces it."""
    if not isinstance(raw, str):
        return _copy(raw), {} if raw is None else {ARGUMENTS_KEY: _copy(raw)}
    if not raw.strip():
        return {}, {ARGUMENTS_KEY: raw}
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
        # JSON the wire cannot carry (1e999, a lone surrogate, nesting too deep) counts as malformed.
        Item.from_dict(Item(ItemKind.ASSISTANT, (ToolCallPart(ToolCallId(""), "", value),)).to_dict())
    except (ValueError, RecursionError):  # NormalizeError is a ValueError
        return None, {ARGUMENTS_KEY: raw}
    return value, {} if _dumps(value) == raw else {ARGUMENTS_KEY: raw}


def _arguments(part: ToolCallPart) -> Json:
    raw = part.metadata.get(ARGUMENTS_KEY)
    return raw if raw is not None else _dumps(part.input)


_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.S)
_IMAGE_EXT = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
_AUDIO_MIME = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_FORMAT = {v: k for k, v in _AUDIO_MIME.items()}
_AUDIO_MAGIC = (("UklGR", "audio/wav"), ("SUQz", "audio/mpeg"), ("//", "audio/mpeg"), ("T2dnU", "audio/ogg"), ("ZkxhQ", "audio/flac"))


def _split_url(url: str) -> tuple[str | None, DataRef]:
    """A ``data:<mime>;base64,<b64>`` URL -> (mime, InlineText(b64)); any other URL -> (None, Uri)."""
    m = _DATA_URL.fullmatch(url)
    if m is not None:
        return m.group(1), InlineText(m.group(2))
    return None, DataRef.uri(url)


def _join_url(mime: str | None, data: DataRef, what: str) -> str:
    if isinstance(data, InlineText):
        return data.value if mime is None else f"data:{mime};base64,{data.value}"
    if isinstance(data, InlineBytes):
        import base64

        return f"data:{mime or 'application/octet-stream'};base64,{base64.b64encode(data.value).decode('ascii')}"
    if isinstance(data, Handle):
        raise NormalizeError(f"Chat Completions cannot send {what} held as an artifact handle; resolve it first")
    return str(data.value) if isinstance(data, Uri) else ""


def _image_mime(url: str) -> str:
    path = url.split("?", 1)[0].lower()
    for ext, mime in _IMAGE_EXT.items():
        if path.endswith(ext):
            return mime
    return "image/*"


_UNKNOWN_AUDIO = "application/octet-stream"


def _sniff_audio(b64: str) -> str:
    for magic, mime in _AUDIO_MAGIC:
        if b64.startswith(magic):
            return mime
    return _UNKNOWN_AUDIO


def _b64(data: DataRef, what: str) -> str:
    if isinstance(data, InlineText):
        return data.value
    if isinstance(data, InlineBytes):
        import base64

        return base64.b64encode(data.value).decode("ascii")
    raise NormalizeError(f"Chat Completions needs {what} inline (base64), not a {type(data).__name__}")


# -- usage and finish reasons -----------------------------------------------------------


def _count(v: Json) -> int | None:
    return v if type(v) is int and v >= 0 else None


def usage_from_native(usage: Mapping[str, Json]) -> Usage:
    """A Chat ``usage`` object -> :class:`Usage` (token convention in the module docstring)."""
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    pd = usage.get("prompt_tokens_details")
    cd = usage.get("completion_tokens_details")
    pd = pd if isinstance(pd, dict) else {}
    cd = cd if isinstance(cd, dict) else {}
    tokens = None
    if prompt is not None and completion is not None:
        tokens = TokenUsage(
            prompt,
            completion,
            reasoning_tokens=_count(cd.get("reasoning_tokens")),
            cached_input_tokens=_count(pd.get("cached_tokens")),
            cache_write_input_tokens=_count(pd.get("cache_write_tokens")),
        )
    return Usage(tokens, metadata=MetadataMap({NS + "usage": _copy(dict(usage))}))


def finish_reason_from_native(raw: Json, refused: bool = False) -> FinishReason | None:
    """A choice's ``finish_reason`` -> :class:`FinishReason`; a refusal that stopped is ``BLOCKED``."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        return FinishReason.other(json.dumps(raw))
    if raw == "stop" and refused:
        return FinishReason.BLOCKED
    return _FINISH.get(raw) or FinishReason.other(raw)


# -- response -> items ----------------------------------------------------------------

_RESPONSE_CONSUMED = ("id", "object", "choices", "usage")
_CHOICE_CONSUMED = ("message", "delta")
_MESSAGE_CONSUMED = ("role", "content", "refusal", "audio", "tool_calls", "function_call")


def _tool_call_part(tc: Mapping[str, Json]) -> ToolCallPart:
    native_type = tc.get("type")
    ttype = native_type if isinstance(native_type, str) else "function"
    body = tc.get(ttype)
    body = body if isinstance(body, dict) else {}
    meta: dict[str, Json] = {}
    consumed = {"id", ttype} if ttype != "function" else {"id", "type", "function"}
    _carry(meta, tc, consumed)
    if ttype == "custom":
        value: Json = _copy(body.get("input"))
        _carry(meta, body, ("name", "input"), f"{NS}{ttype}.")
    else:
        value, raw = _parse_arguments(body.get("arguments"))
        meta.update(raw)
        _carry(meta, body, ("name", "arguments"), f"{NS}{ttype}.")
    call_id = tc.get("id")
    return ToolCallPart(ToolCallId(call_id if isinstance(call_id, str) else ""), str(body.get("name") or ""), value, metadata=MetadataMap(meta))


def _legacy_call_part(fc: Mapping[str, Json]) -> ToolCallPart:
    name = str(fc.get("name") or "")
    value, meta = _parse_arguments(fc.get("arguments"))
    meta[LEGACY_KEY] = True
    _carry(meta, fc, ("name", "arguments"), NS + "function_call.")
    return ToolCallPart(ToolCallId(name), name, value, metadata=MetadataMap(meta))


def _audio_part(audio: Mapping[str, Json]) -> MediaPart:
    data = audio.get("data")
    data = data if isinstance(data, str) else ""
    meta: dict[str, Json] = {}
    _carry(meta, audio, ("data",))
    return MediaPart(Modality.AUDIO, _sniff_audio(data), InlineText(data), metadata=MetadataMap(meta))


def _message_parts(msg: Mapping[str, Json]) -> list[tuple[str, Part]]:
    """A response message's parts in canonical order, each with its stream slot name."""
    out: list[tuple[str, Part]] = []
    content = msg.get("content")
    if isinstance(content, str):
        meta = {NS + "annotations": _copy(msg["annotations"])} if "annotations" in msg else {}
        out.append(("content", TextPart(content, metadata=MetadataMap(meta))))
    elif isinstance(content, list):  # some compatible servers answer with content parts
        out.extend((f"content-{j}", _content_part(p)) for j, p in enumerate(content))
    refusal = msg.get("refusal")
    if isinstance(refusal, str):
        out.append(("refusal", TextPart(refusal, metadata=MetadataMap({REFUSAL_KEY: True}))))
    audio = msg.get("audio")
    if isinstance(audio, dict):
        out.append(("audio", _audio_part(audio)))
    calls = msg.get("tool_calls")
    for j, tc in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(tc, dict):
            index = tc.get("index", j)
            out.append((f"tool-{index}", _tool_call_part(tc)))
    fc = msg.get("function_call")
    if isinstance(fc, dict):
        out.append(("function-call", _legacy_call_part(fc)))
    return out


def _is_refusal(parts: Sequence[Part]) -> bool:
    return any(isinstance(p, TextPart) and p.text and p.metadata.get(REFUSAL_KEY) is True for p in parts)


def _item(response: Mapping[str, Json], choice: Mapping[str, Json], parts: Sequence[Part], first: bool) -> Item:
    meta: dict[str, Json] = {}
    _carry(meta, response, _RESPONSE_CONSUMED)
    _carry(meta, choice, _CHOICE_CONSUMED)
    msg = choice.get("message")
    if isinstance(msg, dict):
        if "annotations" in msg and not isinstance(msg.get("content"), str):
            meta[NS + "annotations"] = _copy(msg["annotations"])
        _carry(meta, msg, _MESSAGE_CONSUMED + ("annotations",), MESSAGE_NS)
    usage = response.get("usage")
    rid = response.get("id")
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(rid) if isinstance(rid, str) else None,
        metadata=MetadataMap(meta),
        usage=usage_from_native(usage) if first and isinstance(usage, dict) else None,
        finish_reason=finish_reason_from_native(choice.get("finish_reason"), _is_refusal(parts)),
    )


def items_from_response(response: Mapping[str, Json]) -> list[Item]:
    """A non-streaming ``chat.completion`` body -> one ASSISTANT item per choice.

    A body without choices (a prompt refused by a filter) still gives one empty
    item, so its usage and metadata survive.
    """
    choices = [c for c in response.get("choices") or () if isinstance(c, dict)]
    if not choices:
        return [_item(response, {}, (), True)]
    items = []
    for n, choice in enumerate(choices):
        msg = choice.get("message")
        parts = [p for _, p in _message_parts(msg if isinstance(msg, dict) else {})]
        items.append(_item(response, choice, parts, n == 0))
    return items


# -- stream -> deltas -------------------------------------------------------------------

# Message fields whose stream fragments are text to concatenate; other delta fields too
# when they are strings (fragments), lists are extended, anything else: the last value wins.
def _merge_fragment(acc: dict[str, Json], key: str, value: Json) -> None:
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif isinstance(value, str) and isinstance(old, str):
        acc[key] = old + value
    elif isinstance(value, list) and isinstance(old, list):
        old.extend(_copy(value))
    else:
        acc[key] = _copy(value)


def _merge_snapshot(acc: dict[str, Json], key: str, value: Json) -> None:
    """Chunk- and choice-level fields repeat a value: the last non-null one wins."""
    if value is None:
        acc.setdefault(key, None)
    else:
        acc[key] = _copy(value)


def _merge_logprobs(acc: dict[str, Json], value: Json) -> None:
    old = acc.get("logprobs")
    if not isinstance(value, dict) or not isinstance(old, dict):
        _merge_snapshot(acc, "logprobs", value)
        return
    for k, v in value.items():
        if isinstance(v, list) and isinstance(old.get(k), list):
            old[k].extend(_copy(v))
        else:
            _merge_snapshot(old, k, v)


class _Choice:
    __slots__ = ("index", "fields", "message", "slots", "calls", "headers", "committed")

    def __init__(self, index: int) -> None:
        self.index = index
        self.fields: dict[str, Json] = {}
        self.message: dict[str, Json] = {}
        self.slots: dict[str, PartId] = {}
        self.calls: dict[Json, dict[str, Json]] = {}  # tool-call stream index -> accumulated call
        self.headers: dict[str, dict[str, Json]] = {}  # part id -> header keys sent so far
        self.committed = False


def _new_header(st: _Choice, pid: PartId, header: Mapping[str, Json]) -> dict[str, Json]:
    """The header keys of an open part not sent yet (or changed): sent as soon as they are known."""
    sent = st.headers.setdefault(pid.value, {})
    changed = {k: v for k, v in header.items() if isinstance(v, str) and v and sent.get(k) != v}
    sent.update(changed)
    return changed


class ChatStreamDecoder:
    """One Chat Completions stream (all of its choices) -> deltas, then items.

    Feed every parsed chunk to :meth:`feed` and fold what it returns; then
    :meth:`finish` (first choice) or :meth:`finish_all` (every choice) with the
    folded parts.  :meth:`response` is the equivalent non-streaming body.
    """

    def __init__(self) -> None:
        self._top: dict[str, Json] = {}
        self._choices: dict[int, _Choice] = {}
        self._began: list[int] = []  # the choice of every part begun, in begin order

    # -- events ----------------------------------------------------------------------

    def feed(self, event: Mapping[str, Json], /) -> list[Delta]:
        """One parsed ``chat.completion.chunk`` -> the deltas it implies."""
        out: list[Delta] = []
        for k, v in event.items():
            if k in ("choices", "obfuscation", "object"):  # obfuscation: stream padding, safe to drop
                continue
            if k == "usage":
                if v is not None:
                    self._top["usage"] = _copy(v)
                continue
            _merge_snapshot(self._top, k, v)
        choices = event.get("choices")
        for ch in choices if isinstance(choices, list) else ():
            if isinstance(ch, dict):
                self._feed_choice(ch, out)
        return out

    def _feed_choice(self, ch: Mapping[str, Json], out: list[Delta]) -> None:
        index = ch.get("index", 0)
        index = index if type(index) is int else 0
        st = self._choices.get(index)
        if st is None:
            st = self._choices[index] = _Choice(index)
        for k, v in ch.items():
            if k == "delta":
                continue
            if k == "logprobs":
                _merge_logprobs(st.fields, v)
            else:
                _merge_snapshot(st.fields, k, v)
        delta = ch.get("delta")
        if isinstance(delta, dict):
            self._apply(st, delta, out)
        if ch.get("finish_reason") is not None and not st.committed:
            self._commit(st, out)

    def _open(self, st: _Choice, slot: str, kind: PartKind, out: list[Delta]) -> PartId:
        pid = st.slots.get(slot)
        if pid is None:
            pid = st.slots[slot] = PartId(f"part-{st.index}-{slot}")
            out.append(BeginPart(pid, kind))
            self._began.append(st.index)
            if slot == "refusal":
                out.append(SetMetadata(pid, MetadataMap({REFUSAL_KEY: True})))
        return pid

    def _apply(self, st: _Choice, delta: Mapping[str, Json], out: list[Delta]) -> None:
        msg = st.message
        for k, v in delta.items():
            if k in ("content", "refusal") and isinstance(v, str):
                pid = self._open(st, k, PartKind.TEXT, out)
                _merge_fragment(msg, k, v)
                if v:
                    out.append(AppendText(pid, v))
            elif k == "audio" and isinstance(v, dict):
                self._apply_audio(st, v, out)
            elif k == "tool_calls" and isinstance(v, list):
                for frag in v:
                    if isinstance(frag, dict):
                        self._apply_tool_call(st, frag, out)
            elif k == "function_call" and isinstance(v, dict):
                self._apply_function_call(st, v, out)
            elif k == "role" or (k in _MESSAGE_CONSUMED and v is None):
                _merge_snapshot(msg, k, v)
            else:
                _merge_fragment(msg, k, v)

    def _apply_audio(self, st: _Choice, frag: Mapping[str, Json], out: list[Delta]) -> None:
        pid = self._open(st, "audio", PartKind.MEDIA, out)
        acc = st.message.setdefault("audio", {})
        changed: dict[str, Json] = {}
        for k, v in frag.items():
            if k in ("data", "transcript") and isinstance(v, str):
                _merge_fragment(acc, k, v)
                if k == "data" and v:
                    out.append(AppendText(pid, v))
                elif k == "transcript":
                    changed[NS + k] = acc[k]
            elif acc.get(k) != v:
                _merge_snapshot(acc, k, v)
                changed[NS + k] = _copy(v)
        mime = _sniff_audio(str(acc.get("data") or ""))
        changed.update(_new_header(st, pid, {HEADER_MODALITY: Modality.AUDIO.value, HEADER_MIME: None if mime == _UNKNOWN_AUDIO else mime}))
        if changed:
            out.append(SetMetadata(pid, MetadataMap(changed)))

    def _apply_tool_call(self, st: _Choice, frag: Mapping[str, Json], out: list[Delta]) -> None:
        index = frag.get("index", len(st.calls))
        pid = self._open(st, f"tool-{index}", PartKind.TOOL_CALL, out)
        acc = st.calls.get(index)
        if acc is None:
            acc = st.calls[index] = {}
            st.message.setdefault("tool_calls", [])
            if not isinstance(st.message["tool_calls"], list):
                st.message["tool_calls"] = []
            st.message["tool_calls"].append(acc)
        for k, v in frag.items():
            if isinstance(v, dict) and k in ("function", "custom"):
                body = acc.setdefault(k, {})
                for bk, bv in v.items():
                    if bk in ("arguments", "input") and isinstance(bv, str):
                        _merge_fragment(body, bk, bv)
                        if bv:
                            out.append(AppendText(pid, bv))
                    elif bv is not None and bv != "" or bk not in body:
                        _merge_snapshot(body, bk, bv)
            elif v is not None or k not in acc:
                _merge_snapshot(acc, k, v)
        native_type = acc.get("type")
        body = acc.get(native_type if isinstance(native_type, str) else "function")
        header = _new_header(st, pid, {HEADER_ID: acc.get("id"), HEADER_NAME: body.get("name") if isinstance(body, dict) else None})
        if header:
            out.append(SetMetadata(pid, MetadataMap(header)))

    def _apply_function_call(self, st: _Choice, frag: Mapping[str, Json], out: list[Delta]) -> None:
        pid = self._open(st, "function-call", PartKind.TOOL_CALL, out)
        acc = st.message.setdefault("function_call", {})
        for k, v in frag.items():
            if k == "arguments" and isinstance(v, str):
                _merge_fragment(acc, k, v)
                if v:
                    out.append(AppendText(pid, v))
            elif v is not None and v != "" or k not in acc:
                _merge_snapshot(acc, k, v)
        name = acc.get("name")
        header = _new_header(st, pid, {HEADER_ID: name, HEADER_NAME: name})  # the legacy call's id is its name
        if header:
            out.append(SetMetadata(pid, MetadataMap(header)))

    def _commit(self, st: _Choice, out: list[Delta]) -> None:
        st.committed = True
        for slot, part in _message_parts(st.message):
            pid = st.slots.get(slot)
            if pid is None:  # a field that arrived whole with no fragment: open it now
                pid = self._open(st, slot, part.part_kind, out)
            out.append(CommitPart(part, part_id=pid))

    # -- results -----------------------------------------------------------------------

    def response(self) -> dict[str, Json]:
        """The non-streaming ``chat.completion`` body equivalent to what was fed so far."""
        body = {k: _copy(v) for k, v in self._top.items() if k != "usage"}
        body["object"] = "chat.completion"
        body["choices"] = [
            {**_copy(st.fields), "message": _copy(st.message)} for _, st in sorted(self._choices.items())
        ]
        if "usage" in self._top:
            body["usage"] = _copy(self._top["usage"])
        return body

    def finish_all(self, parts: Sequence[Part], /) -> list[Item]:
        """The folded parts of the whole stream -> one item per choice, in choice order.

        ``parts`` is ``FoldState.parts`` (or ``finalize()`` for a stream cut
        short): one part for every part the decoder began, in begin order.
        """
        order = sorted(self._choices)
        groups: dict[int, list[Part]] = {c: [] for c in order}
        if len(parts) == len(self._began):
            for c, part in zip(self._began, parts):
                groups[c].append(part)
        elif len(order) <= 1:
            groups = {c: list(parts) for c in order}
        else:
            raise ProtocolError(
                f"finish_all got {len(parts)} parts, but the decoder began {len(self._began)} across "
                f"{len(order)} choices; pass every folded part (FoldState.parts or finalize())"
            )
        body = self.response()
        if not order:
            return [_item(body, {}, list(parts), True)]
        return [_item(body, choice, groups[c], n == 0) for n, (c, choice) in enumerate(zip(order, body["choices"]))]

    def finish(self, parts: Sequence[Part], /) -> Item:
        """The folded parts -> the first choice's item (see :meth:`finish_all` for ``n > 1``)."""
        return self.finish_all(parts)[0]


def stream_decoder() -> ChatStreamDecoder:
    """A fresh decoder for one stream."""
    return ChatStreamDecoder()


def deltas_from_stream(events: Iterable[Mapping[str, Json]], decoder: ChatStreamDecoder | None = None) -> Iterator[Delta]:
    """Every delta of a whole stream of parsed chunks."""
    decoder = decoder or ChatStreamDecoder()
    for event in events:
        yield from decoder.feed(event)


def items_from_stream(events: Iterable[Mapping[str, Json]]) -> list[Item]:
    """Decode and fold a whole stream: one item per choice."""
    decoder = ChatStreamDecoder()
    state = fold_all(FoldState(), deltas_from_stream(events, decoder))
    return decoder.finish_all(state.finalize())


def events_from_sse(body: str) -> Iterator[dict[str, Json]]:
    """A raw ``text/event-stream`` body -> parsed chunks (``data: [DONE]`` ends it)."""
    for block in re.split(r"\r?\n\r?\n", body):
        data = "\n".join(line[5:].lstrip(" ") for line in block.splitlines() if line.startswith("data:"))
        if not data.strip():
            continue
        if data.strip() == "[DONE]":
            return
        yield json.loads(data)


# -- request -> items --------------------------------------------------------------------

_ROLE_KINDS = {
    "system": ItemKind.SYSTEM,
    "developer": ItemKind.DEVELOPER,
    "user": ItemKind.USER,
    "assistant": ItemKind.ASSISTANT,
    "tool": ItemKind.TOOL,
    "function": ItemKind.TOOL,
}
_KIND_ROLES = {
    ItemKind.SYSTEM: "system",
    ItemKind.DEVELOPER: "developer",
    ItemKind.USER: "user",
    ItemKind.ASSISTANT: "assistant",
    ItemKind.TOOL: "user",  # only a TOOL item's non-result parts land here
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
}


def _content_part(p: Json) -> Part:
    if not isinstance(p, dict):
        return CustomPart(NS + "content", value=_copy(p))
    ptype = p.get("type")
    meta: dict[str, Json] = {}
    inner = p.get(ptype) if isinstance(ptype, str) else None
    if ptype == "text" and isinstance(p.get("text"), str):
        _carry(meta, p, ("type", "text"))
        return TextPart(p["text"], metadata=MetadataMap(meta))
    if ptype == "image_url" and isinstance(inner, dict) and isinstance(inner.get("url"), str):
        _carry(meta, p, ("type", "image_url"))
        if "detail" in inner:
            meta[NS + "detail"] = inner["detail"]
        _carry(meta, inner, ("url", "detail"), NS + "image_url.")
        mime, data = _split_url(inner["url"])
        return MediaPart(Modality.IMAGE, mime or _image_mime(inner["url"]), data, metadata=MetadataMap(meta))
    if ptype == "input_audio" and isinstance(inner, dict) and isinstance(inner.get("data"), str):
        _carry(meta, p, ("type", "input_audio"))
        _carry(meta, inner, ("data", "format"), NS + "input_audio.")
        fmt = inner.get("format")
        mime = _AUDIO_MIME.get(fmt, f"audio/{fmt}") if isinstance(fmt, str) else "application/octet-stream"
        return MediaPart(Modality.AUDIO, mime, InlineText(inner["data"]), metadata=MetadataMap(meta))
    if ptype == "file" and isinstance(inner, dict) and ("file_data" in inner or "file_id" in inner):
        _carry(meta, p, ("type", "file"))
        if isinstance(inner.get("file_data"), str):
            mime, ref = _split_url(inner["file_data"])
            if mime is None:  # bare base64 data
                ref = InlineText(inner["file_data"])
            consumed = ("file_data", "filename")
        elif isinstance(inner.get("file_id"), str):
            mime, ref = None, Handle(ArtifactId(inner["file_id"]))
            consumed = ("file_id", "filename")
        else:
            return CustomPart(f"{NS}{ptype}", value=_copy(p))
        _carry(meta, inner, consumed, NS + "file.")
        name = inner.get("filename")
        return FilePart(ref, name=name if isinstance(name, str) else None, mime_type=mime, metadata=MetadataMap(meta))
    return CustomPart(f"{NS}{ptype}", value=_copy(p))


def _content_parts(content: Json) -> list[Part]:
    if isinstance(content, str):
        return [TextPart(content)]
    if not isinstance(content, list):
        return []
    parts = [_content_part(p) for p in content]
    if len(parts) == 1 and isinstance(parts[0], TextPart) and not _extras(parts[0].metadata):
        # One text part in list form: remember the form, or it would come back as a string.
        parts[0] = parts[0].with_metadata(parts[0].metadata.merged({NS + "type": "text"}))
    return parts


def _tool_output(content: Json) -> ToolOutput:
    if isinstance(content, str):
        return TextOutput(content)
    return PartsOutput(tuple(_content_parts(content)))


def _message_item(msg: Mapping[str, Json]) -> Item:
    role = msg.get("role")
    meta: dict[str, Json] = {}
    kind = _ROLE_KINDS.get(role) if isinstance(role, str) else None
    if kind is None:
        kind = ItemKind.USER
        meta[NS + "role"] = _copy(role)
    if role in ("tool", "function"):
        legacy = role == "function"
        call_id = msg.get("name") if legacy else msg.get("tool_call_id")
        part_meta = {LEGACY_KEY: True} if legacy else {}
        _carry(meta, msg, ("role", "content", "name" if legacy else "tool_call_id"), MESSAGE_NS)
        result = ToolResultPart(ToolCallId(str(call_id or "")), _tool_output(msg.get("content")), metadata=MetadataMap(part_meta))
        return Item(kind, (result,), metadata=MetadataMap(meta))
    content = msg.get("content")
    parts = _content_parts(content)
    has_calls = bool(msg.get("tool_calls")) or isinstance(msg.get("function_call"), dict)
    if not parts and "content" in msg and (content is not None or not has_calls):
        meta[NS + "content"] = _copy(content)  # null with no tool calls, or []: say so
    consumed = ["role", "content"]
    if kind is ItemKind.ASSISTANT:
        consumed += ["refusal", "audio", "tool_calls", "function_call"]
        if isinstance(msg.get("refusal"), str):
            parts.append(TextPart(msg["refusal"], metadata=MetadataMap({REFUSAL_KEY: True})))
        audio = msg.get("audio")
        if isinstance(audio, dict) and isinstance(audio.get("id"), str):
            audio_meta: dict[str, Json] = {}
            _carry(audio_meta, audio, ())
            parts.append(MediaPart(Modality.AUDIO, "application/octet-stream", Handle(ArtifactId(audio["id"])), metadata=MetadataMap(audio_meta)))
        elif audio is not None:
            consumed.remove("audio")
        calls = msg.get("tool_calls")
        for tc in calls if isinstance(calls, list) else ():
            parts.append(_tool_call_part(tc) if isinstance(tc, dict) else CustomPart(NS + "tool_call", value=_copy(tc)))
        if isinstance(msg.get("function_call"), dict):
            parts.append(_legacy_call_part(msg["function_call"]))
    _carry(meta, msg, consumed, MESSAGE_NS)
    return Item(kind, tuple(parts), metadata=MetadataMap(meta))


def items_from_request(request: Mapping[str, Json]) -> list[Item]:
    """The ``messages`` of a request body -> one item per message."""
    messages = request.get("messages")
    return [_message_item(m) for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


# -- items -> request ----------------------------------------------------------------------


def _native_part(part: Part) -> dict[str, Json] | None:
    """A content part for a user/system/developer (or assistant) message; None if Chat has none."""
    md = part.metadata
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text, **_extras(md)}
    if isinstance(part, StructuredPart):
        return {"type": "text", "text": _dumps(part.value)}
    if isinstance(part, MediaPart) and part.modality is Modality.IMAGE:
        image: dict[str, Json] = {"url": _join_url(part.mime_type if isinstance(part.data, (InlineText, InlineBytes)) else None, part.data, "an image")}
        if NS + "detail" in md:
            image["detail"] = _copy(md[NS + "detail"])
        image.update(_nested(md, "image_url"))
        return {"type": "image_url", "image_url": image, **_extras(md)}
    if isinstance(part, MediaPart) and part.modality is Modality.AUDIO:
        mime = part.mime_type
        fmt = _AUDIO_FORMAT.get(mime, mime[6:] if mime.startswith("audio/") else mime)
        audio = {"data": _b64(part.data, "input audio"), "format": fmt, **_nested(md, "input_audio")}
        return {"type": "input_audio", "input_audio": audio, **_extras(md)}
    if isinstance(part, FilePart):
        file: dict[str, Json] = {}
        if part.name is not None:
            file["filename"] = part.name
        if isinstance(part.data, Handle):
            file["file_id"] = part.data.value.value
        else:
            file["file_data"] = _join_url(part.mime_type, part.data, "a file")
        file.update(_nested(md, "file"))
        return {"type": "file", "file": file, **_extras(md)}
    if isinstance(part, CustomPart) and part.kind.startswith(NS) and part.value is not None:
        return _copy(part.value)  # type: ignore[no-any-return]
    return None  # reasoning, other providers' custom parts, video: Chat has nowhere to put them


def _content_value(parts: Sequence[Part]) -> Json:
    """String form for exactly one plain text part, else the list of content parts."""
    if len(parts) == 1 and isinstance(parts[0], TextPart) and not _extras(parts[0].metadata) and NS + "type" not in parts[0].metadata:
        return parts[0].text
    native = [_native_part(p) for p in parts]
    return [p for p in native if p is not None]


def _tool_call(part: ToolCallPart) -> dict[str, Json]:
    md = part.metadata
    ttype = md.get(NS + "type", "function")
    ttype = ttype if isinstance(ttype, str) else "function"
    if ttype == "custom":
        body: dict[str, Json] = {"name": part.name, "input": _copy(part.input)}
    else:
        body = {"name": part.name, "arguments": _arguments(part)}
    body.update(_nested(md, ttype))
    return {"id": part.id.value, "type": ttype, ttype: body, **_extras(md)}


def _assistant_message(item: Item) -> dict[str, Json]:
    msg: dict[str, Json] = {"role": "assistant"}
    content: list[Part] = []
    refusals: list[str] = []
    audio_id: Json = None
    calls: list[dict[str, Json]] = []
    legacy: dict[str, Json] | None = None
    for p in item.parts:
        if isinstance(p, TextPart) and p.metadata.get(REFUSAL_KEY) is True:
            refusals.append(p.text)
        elif isinstance(p, MediaPart) and p.modality is Modality.AUDIO and NS + "id" in p.metadata:
            audio_id = p.metadata[NS + "id"]  # the server keeps the audio; send its id back
        elif isinstance(p, ToolCallPart) and p.metadata.get(LEGACY_KEY) is True:
            legacy = {"name": p.name, "arguments": _arguments(p), **_nested(p.metadata, "function_call")}
        elif isinstance(p, ToolCallPart):
            calls.append(_tool_call(p))
        elif isinstance(p, (TextPart, StructuredPart, CustomPart)) and _native_part(p) is not None:
            content.append(p)
    if content:
        msg["content"] = _content_value(content)
    elif NS + "content" in item.metadata:
        msg["content"] = _copy(item.metadata[NS + "content"])
    elif calls or legacy is not None:
        msg["content"] = None
    if refusals:
        msg["refusal"] = "".join(refusals)
    if audio_id is not None:
        msg["audio"] = {"id": audio_id}
    if calls:
        msg["tool_calls"] = calls
    if legacy is not None:
        msg["function_call"] = legacy
    return msg


def _tool_message(part: ToolResultPart, carry: Mapping[str, Json], injected: list[Part]) -> dict[str, Json]:
    output = part.output
    texts: list[Part]
    if isinstance(output, TextOutput):
        content: Json = output.text
    elif isinstance(output, StructuredOutput):
        content = _dumps(output.value)
    else:
        media: Sequence[Part] = output.files if isinstance(output, FilesOutput) else output.parts if isinstance(output, PartsOutput) else ()
        texts = [p for p in media if isinstance(p, (TextPart, StructuredPart))]
        injected.extend(p for p in media if not isinstance(p, (TextPart, StructuredPart)))
        content = _content_value(texts) if texts else ""
    if part.metadata.get(LEGACY_KEY) is True:
        msg: dict[str, Json] = {"role": "function", "name": part.call_id.value, "content": content}
    else:
        msg = {"role": "tool", "tool_call_id": part.call_id.value, "content": content}
    msg.update(carry)
    msg.update(_extras(part.metadata))
    return msg


def request_from_items(items: Sequence[Item]) -> dict[str, Json]:
    """Items -> ``{"messages": [...]}`` of a Chat Completions request body.

    Tool results become ``tool`` messages; the media and files a result holds
    follow the run of tool messages as one ``user`` message (tool messages take
    text only).  Raises :class:`NormalizeError` for data Chat cannot send
    (an image or file held as an artifact handle, audio input given by URL).
    """
    messages: list[dict[str, Json]] = []
    injected: list[Part] = []

    def flush() -> None:
        if injected:
            messages.append({"role": "user", "content": [p for p in map(_native_part, injected) if p is not None]})
            injected.clear()

    for item in items:
        carry = _nested(item.metadata, "message")
        results = [p for p in item.parts if isinstance(p, ToolResultPart)]
        for result in results:
            messages.append(_tool_message(result, carry, injected))
        rest = [p for p in item.parts if not isinstance(p, ToolResultPart)]
        if results and not rest:
            continue
        flush()
        if item.kind is ItemKind.ASSISTANT:
            msg = _assistant_message(item.with_parts(rest))
        else:
            role = item.metadata.get(NS + "role", _KIND_ROLES[item.kind])
            content = [p for p in rest if _native_part(p) is not None]
            msg = {"role": role}
            if content:
                msg["content"] = _content_value(content)
            else:
                msg["content"] = _copy(item.metadata.get(NS + "content", ""))
        msg.update(carry)
        messages.append(msg)
    flush()
    return {"messages": messages}
