"""What every provider projection needs, written once.

Private to :mod:`agentkit_core.providers`.  Like the projections themselves it
uses only the public names of :mod:`agentkit_core`: these helpers are what a
fifth adapter, written outside the package, would write too.

* what a public function is handed: a native body or event checked once
  (:func:`native_object`), a stream's events
  (:func:`native_events`), values of the package (:func:`checked_list`);
  the errors that name the bad field (:func:`describe`, :func:`wrong`,
  :func:`under`, :func:`json_object`);
* carrying native fields with no neutral home as namespaced metadata, and
  writing them back (:func:`carry`, :func:`carried`, :func:`copy_json`);
  whose a part is (:func:`in_namespace`, :func:`owned`);
* OpenAI's ``input_audio`` formats (:data:`INPUT_AUDIO_TYPES`);
* canonical base64, standard or URL-safe (:func:`b64encode`, :func:`b64decode`),
  base64 ``data:`` URLs (:func:`data_url`, :func:`parse_data_url`), and what
  inline data holds (:func:`inline_base64`, :func:`holds_text`);
* tool-call argument text, parsed with the fold's convention for text that is
  not JSON (:func:`parse_arguments`, :func:`dumps`);
* a turn's item and its usage (:func:`make_item`, :func:`make_usage`, :func:`openai_usage`,
  :func:`count`, :func:`get_dict`); tool results named from their calls
  (:func:`name_results`);
* ids for calls that arrive without one (:func:`invent_id`).

Streams (the fold's header keys, ``text/event-stream`` bodies, folding a
whole stream) have their own module, :mod:`._streams`.
"""

from __future__ import annotations

import binascii
import os
from typing import Any, Callable, Iterable, Mapping, TypeVar, cast

from ... import (
    FINISH_REASON_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    FilePart,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    MessageId,
    NormalizeError,
    Part,
    Timestamp,
    TokenUsage,
    ToolCallPart,
    ToolResultPart,
    Usage,
    checked_json,
    parse_json,
)

#: A native JSON object, as ``json.loads`` gives it.
JsonDict = dict[str, Any]

T = TypeVar("T")

_U64_END = 1 << 64

#: How deep a native body may nest (the body is level 1).  What a projection
#: carries from it lands a few levels deeper in an item's wire form (a block
#: inside a tool result inside an item), and must stay within the 127 levels
#: the wire reads.
NATIVE_MAX_DEPTH = 120


# -- what a public function is handed ---------------------------------------------------


def describe(value: object) -> str:
    """What ``value`` is, for an error message: the scalar itself, or the kind of container."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if len(repr(value)) <= 20 else "a number"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a Python {type(value).__name__}"


def wrong(expected: str, value: object, path: str = "") -> NormalizeError:
    """The error for ``value`` at ``path`` where ``expected`` belongs: ``expected a string, found 5``."""
    return NormalizeError(f"expected {expected}, found {describe(value)}", path)


def under(exc: NormalizeError, *segments: str) -> NormalizeError:
    """``exc`` seen from ``len(segments)`` levels up: ``under(e, "choices", "[0]")``."""
    for segment in reversed(segments):
        exc = exc.under(segment)
    return exc


def json_object(value: object, path: str = "", what: str = "an object") -> JsonDict:
    """``value`` if it is a JSON object, else the error naming ``path``."""
    if not isinstance(value, dict):
        raise wrong(what, value, path)
    return value


def native_object(value: object, what: str) -> JsonDict:
    """A copy of ``value``, a native body or event, checked once: a JSON object holding JSON data only.

    Every public function that takes native data starts here, so nothing
    past it meets a value the package's constructors would refuse for its
    type (an object that is not JSON data) or its nesting; the fields are
    then checked where they are read.  Any other mapping is taken as a
    ``dict`` of it.  Raises :class:`NormalizeError` naming ``what``, or
    (from :func:`~agentkit_core.checked_json`) the path to the bad value.
    """
    if type(value) is not dict and isinstance(value, Mapping):  # the exact type first: Mapping's check is slow
        value = dict(value)
    body = json_object(value, "", f"{what} (a JSON object)")
    return cast(JsonDict, checked_json(body, max_depth=NATIVE_MAX_DEPTH))


def native_events(events: object) -> Iterable[Any]:
    """``events`` if it is an iterable of stream events (a list, a generator), else :class:`NormalizeError`.

    Text, bytes and a single event are refused: :func:`events_from_sse` turns
    a raw body into events.
    """
    if isinstance(events, (str, bytes, bytearray, Mapping)) or not isinstance(events, Iterable):
        raise wrong("an iterable of parsed stream events (events_from_sse(body) gives them)", events)
    return events


def checked_list(values: object, cls: type[T], name: str) -> list[T]:
    """``values`` (any iterable but a string or a mapping) as a list of ``cls``, else :class:`NormalizeError`.

    For the public functions that take values of the package
    (``request_from_items(items)``, a decoder's ``finish(parts)``): the error's
    path is ``name`` and the index of the first value of another type
    (``items[2]``).
    """
    article = "an" if cls.__name__[:1] in "AEIOU" else "a"
    if isinstance(values, (str, bytes, bytearray, Mapping)) or not isinstance(values, Iterable):
        raise NormalizeError(f"expected a sequence of {cls.__name__}s, found {describe(values)}", name)
    out = list(values)
    for i, value in enumerate(out):
        if not isinstance(value, cls):
            raise NormalizeError(f"expected {article} {cls.__name__}, found {describe(value)}", f"{name}[{i}]")
    return out


# -- carrying native fields -------------------------------------------------------------


def copy_json(v: Any) -> Any:
    """A deep copy of JSON data: native payloads are never shared with the values made from them."""
    if isinstance(v, dict):
        return {k: copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [copy_json(x) for x in v]
    return v


def carry(native: Mapping[str, Any], consumed: Iterable[str], prefix: str) -> dict[str, JsonValue]:
    """The fields of ``native`` not in ``consumed``, keyed ``prefix + field``: metadata for a value.

    ``carry(block, ("type", "text"), "anthropic.")`` keeps a text block's
    ``citations`` and ``cache_control`` as ``anthropic.citations`` and
    ``anthropic.cache_control``, fields nobody has seen yet included.  The
    values are ``native``'s own, not copies: hand the map to a constructor,
    which checks and copies the metadata it keeps.  A hot caller passes a
    ``frozenset``, used as it is.
    """
    skip = consumed if type(consumed) is frozenset else set(consumed)
    return {prefix + k: v for k, v in native.items() if k not in skip}


def carried(metadata: Mapping[str, JsonValue], prefix: str, skip: Iterable[str] = ()) -> JsonDict:
    """The inverse of :func:`carry`: the ``prefix.<field>`` entries of ``metadata`` as native fields.

    Only direct fields: a key with another dot after ``prefix`` belongs to a
    nested object (or, for ``openai.``, to Chat's ``openai.chat.``) and is
    left out, as are the field names in ``skip``.
    """
    n = len(prefix)
    never = set(skip)
    out: JsonDict = {}
    for key, value in metadata.items():
        if key.startswith(prefix):
            name = key[n:]
            if "." not in name and name not in never:
                out[name] = copy_json(value)
    return out


#: Namespaces nested in another provider's: ``openai.chat.*`` is Chat Completions', not the Responses API's.
_NESTED_NAMESPACES = ("openai.chat.",)


def in_namespace(key: str, namespace: str) -> bool:
    """Whether the metadata key or custom kind ``key`` is the provider's whose namespace is ``namespace``.

    Every provider owns its prefix (``anthropic.``, ``gemini.``,
    ``openai.chat.``), and the Responses API ``openai.`` but for Chat's
    ``openai.chat.``: neither OpenAI projection ever writes the other's fields.
    """
    if not key.startswith(namespace):
        return False
    return not any(key.startswith(inner) for inner in _NESTED_NAMESPACES if inner != namespace and inner.startswith(namespace))


def owned(metadata: Mapping[str, JsonValue], provider: str | None, namespace: str) -> bool:
    """Whether a part is this provider's to send back as its own state or fields.

    ``agentkit.provider`` decides when it is set (it must be ``provider``;
    ``None`` for a provider that keeps no opaque state, so no marked part is
    its own); without it, metadata in the provider's ``namespace`` says the
    part came from this API.
    """
    owner = metadata.get(PROVIDER_KEY)
    if owner is not None:
        return owner == provider
    return any(in_namespace(key, namespace) for key in metadata)


#: OpenAI's ``input_audio`` formats (Chat Completions and Responses) -> the MIME type of their data.
INPUT_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}


# -- base64 -----------------------------------------------------------------------------


def b64encode(data: bytes, *, urlsafe: bool = False) -> str:
    """``data`` as base64 text, standard (``+/``) or URL-safe (``-_``), padded."""
    import base64

    encoded = base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)
    return encoded.decode("ascii")


def b64decode(text: object, *, urlsafe: bool = False) -> bytes | None:
    """The bytes ``text`` encodes if it is canonical base64 of that alphabet, else ``None``.

    Canonical means it re-encodes to exactly ``text``, so a projection that
    decodes it and encodes it again writes back the very string it read.
    """
    if not isinstance(text, str) or not text.isascii():
        return None
    import base64

    try:
        data = base64.urlsafe_b64decode(text) if urlsafe else base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if b64encode(data, urlsafe=urlsafe) == text else None


def data_url(mime: str, base64_text: str) -> str:
    """The base64 ``data:`` URL of ``base64_text`` with media type ``mime``."""
    return f"data:{mime};base64,{base64_text}"


def parse_data_url(url: str, *, exact: bool = True) -> tuple[str, str] | None:
    """``(media type, base64 text)`` of a base64 ``data:`` URL; ``None`` for any other URL.

    ``exact`` (for a decoder that must write back what it read): only a URL
    that :func:`data_url` gives back unchanged, ``data:<type>;base64,<data>``
    with a media type.
    Otherwise (for an encoder taking what comes) the scheme and ``;base64``
    in any case, parameters before it (dropped) and an empty media type too.
    """
    if url[:5].lower() != "data:":
        return None
    head, comma, data = url[5:].partition(",")
    if not comma or not head.lower().endswith(";base64"):
        return None
    mime = head.split(";")[0]
    if exact and (not mime or data_url(mime, data) != url):
        return None
    return mime, data


def holds_text(part: MediaPart | FilePart) -> bool:
    """Whether ``part``'s ``InlineText`` is its content rather than base64: a file of a ``text/*`` or no MIME type."""
    return isinstance(part, FilePart) and isinstance(part.data, InlineText) and (part.mime_type or "text/").startswith("text/")


def inline_base64(part: MediaPart | FilePart) -> str | None:
    """A media or file part's inline data as base64 text; ``None`` for a URI or an artifact handle.

    The one rule every encoder follows for ``InlineText``: media hold base64
    text (what a decoder keeps when the base64 is not canonical), and so does
    a file of a MIME type other than ``text/*``; a file of a ``text/*`` or no
    MIME type holds its content (:func:`holds_text`), sent as UTF-8.
    """
    data = part.data
    if isinstance(data, InlineBytes):
        return b64encode(data.value)
    if not isinstance(data, InlineText):
        return None
    return b64encode(data.value.encode("utf-8")) if holds_text(part) else data.value


# -- tool arguments ---------------------------------------------------------------------


def dumps(value: JsonValue) -> str:
    """Compact JSON text with non-ASCII kept, as OpenAI encodes tool arguments."""
    return (_ENCODE or _compact_encoder())(value)


#: The encoder :func:`dumps` uses, made on first use (``json.dumps`` with options builds one per call).
_ENCODE: Callable[[JsonValue], str] | None = None


def _compact_encoder() -> Callable[[JsonValue], str]:
    """What :func:`dumps` calls: the stdlib's C encoder, made once, else ``JSONEncoder.encode``.

    ``JSONEncoder.encode`` builds its C encoder (``json.encoder.c_make_encoder``,
    with the same arguments as here) at every call, which costs more than
    encoding a tool call's arguments; where the accelerator is missing, the
    encoder's own ``encode`` does the work.  No circularity check: the values
    are the package's, copied trees.
    """
    global _ENCODE
    import json.encoder

    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    make = getattr(json.encoder, "c_make_encoder", None)  # undeclared in typeshed; None without the accelerator
    if make is None:
        _ENCODE = encoder.encode
        return _ENCODE
    chunks = make(None, encoder.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)

    def encode(value: JsonValue) -> str:
        return "".join(chunks(value, 0))

    _ENCODE = encode
    return _ENCODE


#: How deep argument JSON may nest: a tool call's input sits five levels down in an item's wire form.
ARGUMENTS_MAX_DEPTH = 127 - 4


def parse_arguments(text: str) -> tuple[JsonValue, dict[str, JsonValue]]:
    """Tool-call argument text -> ``(input, metadata)``, with the fold's convention for bad text.

    Empty text is ``{}``.  Text that is not JSON the wire can carry (malformed,
    NaN, a lone surrogate, nested too deep) gives ``None`` with the text and the
    error under ``agentkit.input_json`` / ``agentkit.input_error``; it never raises.
    """
    if not text.strip():
        return {}, {}
    try:
        return parse_json(text, max_depth=ARGUMENTS_MAX_DEPTH), {}
    except NormalizeError as exc:
        return None, {INPUT_JSON_KEY: text, INPUT_ERROR_KEY: str(exc)}  # the words finalize() uses


# -- a turn's item and its usage ------------------------------------------------------------


def count(v: object) -> int | None:
    """``v`` if it is a token count (an exact ``int``, ``0 <= v < 2**64``), else ``None``."""
    return v if type(v) is int and 0 <= v < _U64_END else None


def get_dict(native: Mapping[str, Any], key: str) -> JsonDict:
    """``native[key]`` when it is a JSON object, else ``{}``."""
    value = native.get(key)
    return value if isinstance(value, dict) else {}


def make_usage(
    native: JsonDict,
    key: str,
    input_tokens: int | None,
    output_tokens: int | None,
    *,
    reasoning: int | None = None,
    cached: int | None = None,
    cache_write: int | None = None,
) -> Usage:
    """The :class:`Usage` of a checked native usage object, kept verbatim in its metadata under ``key``.

    The counts are the caller's, already in the package's convention (input
    includes cache reads and writes, output includes reasoning); ``None``
    input or output means the provider reported no token counts.
    """
    tokens = None
    if input_tokens is not None and output_tokens is not None:
        tokens = TokenUsage(
            input_tokens,
            output_tokens,
            reasoning_tokens=reasoning,
            cached_input_tokens=cached,
            cache_write_input_tokens=cache_write,
        )
    return Usage(tokens, metadata={key: native})  # the constructor keeps a copy


def openai_usage(usage: JsonDict, key: str, input_field: str, output_field: str) -> Usage:
    """The usage object of both OpenAI APIs (checked by :func:`native_object`), whose fields differ only in name.

    ``input_field`` (``prompt_tokens``, ``input_tokens``) includes cache reads
    and writes, broken out as ``cached_tokens`` and ``cache_write_tokens`` in
    ``<input_field>_details``; ``output_field`` includes the reasoning
    tokens, ``reasoning_tokens`` of ``<output_field>_details``.  The object is
    kept verbatim under ``key``.
    """
    details_in, details_out = get_dict(usage, input_field + "_details"), get_dict(usage, output_field + "_details")
    return make_usage(
        usage,
        key,
        count(usage.get(input_field)),
        count(usage.get(output_field)),
        reasoning=count(details_out.get("reasoning_tokens")),
        cached=count(details_in.get("cached_tokens")),
        cache_write=count(details_in.get("cache_write_tokens")),
    )


def make_item(
    parts: Iterable[Part],
    metadata: dict[str, JsonValue],
    *,
    message_id: object = None,
    usage: Usage | None = None,
    finish: tuple[FinishReason | None, str | None] = (None, None),
    created_at: Timestamp | None = None,
) -> Item:
    """A turn's ASSISTANT item: ``finish`` is the normalised finish reason and the raw one.

    The raw reason goes in ``agentkit.finish_reason``; ``message_id`` is the
    item's id when it is a string.
    """
    reason, raw = finish
    if raw is not None:
        metadata[FINISH_REASON_KEY] = raw
    return Item(
        ItemKind.ASSISTANT,
        list(parts),
        id=MessageId(message_id) if isinstance(message_id, str) else None,
        metadata=metadata,
        usage=usage,
        finish_reason=reason,
        created_at=created_at,
    )


def name_results(items: list[Item]) -> list[Item]:
    """``items`` with ``agentkit.tool_name`` on every tool result that lacks it and answers a call made earlier."""
    names: dict[str, str] = {}
    out = []
    for item in items:
        parts = []
        for part in item.parts:
            if isinstance(part, ToolCallPart):
                names[part.id.value] = part.name
            elif isinstance(part, ToolResultPart) and TOOL_NAME_KEY not in part.metadata and part.call_id.value in names:
                part = part.with_metadata(part.metadata.merged({TOOL_NAME_KEY: names[part.call_id.value]}))
            parts.append(part)
        out.append(item if parts == list(item.parts) else item.with_parts(parts))
    return out


# -- ids -------------------------------------------------------------------------------


def invent_id(prefix: str) -> str:
    """A fresh id for a call the provider sent without one: ``prefix`` and 24 random hex digits."""
    return prefix + os.urandom(12).hex()
