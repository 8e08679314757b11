"""What users hold, taken as the body it stands for; another provider's body, refused.

Private to :mod:`agentkit_core.providers`.  Every public function of a
projection that takes a native body, event or usage object starts with
:func:`as_native`, which

* takes an SDK's object for the body it was made from, by duck typing (no SDK
  is imported): pydantic models (the ``anthropic`` and ``openai`` SDKs,
  ``google-genai``) give ``model_dump(exclude_unset=True, by_alias=True,
  mode="json")``, the fields the body had under their wire names; other
  objects ``to_dict()`` or ``to_json_dict()``;
* takes an SDK's dump of a response or event (a dict full of the nulls
  pydantic writes for every unset field) for the body: nulls where the
  provider's API writes none (:attr:`Native.nullable` lists where it does)
  mark a dump, whose nulls are then all read as absent, so the items hold no
  null the body would not; Gemini's snake_case field names become the
  camelCase of its REST bodies (:attr:`Native.camel`), and so do the fields
  around the contents of a Gemini response in snake_case (the API reads
  both spellings).  A request is never taken for a dump: its nulls are the
  caller's, written back;
* takes ``bytes`` at the SDK's bytes fields (``model_dump()`` in Python mode)
  as base64, a ``datetime`` as its ISO text, and SDK objects inside a dict
  (``input=[..., *response.output]``) as their dumps;
* takes the OpenAI SDK's ``error.body`` (the inner ``error`` object alone) for
  the error body it came in (:attr:`Native.bare_error`);
* refuses, with :class:`NormalizeError`, a body that is another provider's or
  holds nothing a body of its kind holds (``{}``), naming what it looks like.

A plain dict of JSON data costs a look for nulls at its top level (and, for
an event, one level down) and one dict lookup (:attr:`Native.sure`) on top of
:func:`native_object`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ... import NormalizeError
from ..._for_providers import NAMES, sniff
from .data import b64encode
from .native import NATIVE_MAX_DEPTH, JsonDict, an, native_object

__all__ = ("Native", "as_native", "as_native_fields", "dumped")


@dataclass(frozen=True, slots=True)
class Native:
    """One kind of native value of one provider: what :func:`as_native` needs to know of it."""

    provider: str
    """The projection module, as :func:`~agentkit_core.providers.detect` names it: ``"anthropic"``."""
    what: str
    """What the value is, for the error of a value that is no JSON object: ``"a response body"``."""
    kind: str = "response"
    """The value's noun after the API's name, for errors: ``"response"``, ``"request"``, ``"stream event"``,
    ``"stream chunk"``; or ``"usage"``, a usage object, never refused by its shape."""
    marks: tuple[str, ...] = ()
    """Fields one of which every value of the kind holds; a value with none (``{}``) is refused."""
    sure: Callable[[JsonDict], bool] | None = None
    """A quick yes: the value is surely this kind (``type == "message"``), so nothing more is checked."""
    nullable: frozenset[str] = frozenset()
    """Fields the API itself writes as null: a null there is no sign of a dump."""
    opaque: frozenset[str] = frozenset()
    """Fields holding the caller's own JSON (tool arguments, schemas): taken as they are, nulls and all."""
    camel: bool = False
    """Whether a dump's snake_case field names are respelled in camelCase (Gemini's responses and chunks)."""
    bytes_fields: frozenset[str] = frozenset()
    """The SDK's ``bytes`` fields, whose dumps hold bytes (Python mode) or URL-safe base64 (JSON mode)."""
    bare_error: bool = False
    """Whether an error object alone (``message`` and ``type`` or ``code``) stands for ``{"error": ...}``."""
    event: bool = field(init=False, repr=False, compare=False)
    """Whether the value is a stream event (its :attr:`kind` begins ``stream``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "event", self.kind.startswith("stream"))


def as_native(value: object, native: Native) -> JsonDict:
    """``value`` (a body, an SDK object or a dump of one) as the checked native body it stands for.

    Raises :class:`NormalizeError` for a value that is no JSON object (nor
    an object that dumps to one), and for another provider's body.
    """
    if type(value) is not dict:
        value = _plain(dumped(value), native, 1)
    if native.kind != "request" and _is_dump(value, native):
        value = _scrub(value, native, 1)
        if native.camel and type(value) is dict:  # google-genai's own fields (its client fills them; the API never
            value = {k: v for k, v in value.items() if k not in _GENAI_ONLY}  # sends them) are not the body's
    elif native.camel and type(value) is dict and _snake_envelope(value):
        value = _respelled(value, 1)
    body = _checked(value, native)
    if native.sure is not None and native.sure(body):
        return body
    if native.bare_error and _bare_error(body, native):
        return {"error": body}
    _check_provider(body, native)
    return body


def as_native_fields(value: object, native: Native) -> JsonDict:
    """``value`` (a request, an SDK object or a dict holding them) as a checked native object, whatever fields it has.

    What :func:`as_native` does to what users hold, without refusing a value for the
    fields it lacks: for the readers of one part of a request (its ``tools``).
    """
    return _checked(value if type(value) is dict else _plain(dumped(value), native, 1), native)


def _checked(value: object, native: Native) -> JsonDict:
    try:
        return native_object(value, native.what)
    except NormalizeError:
        if type(value) is not dict:
            raise
        return native_object(_plain(value, native, 1), native.what)  # SDK objects inside, or bytes: a Python-mode dump


def dumped(value: object, *, quiet: bool = False) -> object:
    """What an SDK object dumps to (its fields under their wire names), or ``value`` if it is none.

    The package's own values (which have ``to_dict`` too) are no SDK's
    objects.  An object whose dump fails raises :class:`NormalizeError`
    naming its type only, or, ``quiet``, stays as it is.
    """
    if type(value).__module__.partition(".")[0] == _ROOT:
        return value
    try:
        if callable(getattr(value, "model_dump", None)):
            return value.model_dump(exclude_unset=True, by_alias=True, mode="json")  # type: ignore[attr-defined]
        for name in ("to_dict", "to_json_dict"):
            method = getattr(value, name, None)
            if callable(method):
                return method()
    except Exception as exc:  # the object's own code failed: say so, as a decoder does
        if quiet:
            return value
        raise NormalizeError(f"cannot dump a Python {type(value).__name__} to its JSON body ({type(exc).__name__})") from None
    return value


_ROOT = __name__.partition(".")[0]


def _is_dump(value: object, native: Native) -> bool:
    """Whether ``value`` is an SDK's dump (its nulls, its spelling), not a body as the API sends it.

    Gemini's API sends neither nulls nor snake_case names: a dump shows by the
    SDK's own top-level fields, or by top-level names all in snake_case.  The
    other APIs send some nulls: a dump shows by nulls where the API writes
    none, two at a body's top level (which may hold one odd null, where a dump
    holds one for every unset field), one in a stream event or the block it
    starts (an event is small: its dump may hold a single null, as a text
    block's ``citations``).
    """
    if type(value) is not dict:
        return False
    if native.camel:
        return _genai_dump(value)
    nullable = native.nullable
    if not native.event:
        return _stray_nulls(value, nullable) >= 2
    if _stray_nulls(value, nullable):
        return True
    for v in value.values():
        if type(v) is list and v:
            v = v[0]
        if type(v) is dict and _stray_nulls(v, nullable):
            return True
    return False


def _stray_nulls(value: JsonDict, nullable: frozenset[str]) -> int:
    """How many of ``value``'s fields are null where the API writes no null."""
    if None not in value.values():  # most objects hold none: one pass in C
        return 0
    found = 0
    for key, v in value.items():
        if v is None and key not in nullable:
            found += 1
    return found


def _genai_dump(value: JsonDict) -> bool:
    """Whether a Gemini body is google-genai's dump: its own fields, or top-level names all snake_case or single words."""
    if not _GENAI_ONLY.isdisjoint(value):
        return True
    snake = False
    for key in value:
        if type(key) is str:
            if "_" in key:
                snake = True
            elif key != key.lower():
                return False  # a camelCase name: the API's spelling
    return snake


#: Top-level fields google-genai's response type adds to the API's.
_GENAI_ONLY = frozenset(
    ("sdk_http_response", "sdkHttpResponse", "automatic_function_calling_history", "automaticFunctionCallingHistory", "parsed")
)


def _scrub(value: object, native: Native, depth: int) -> object:
    """A dump's JSON data as the body: every null dropped (a dump cannot tell which the body had),
    names respelled (:attr:`Native.camel`), the bytes of :attr:`Native.bytes_fields` in standard base64.

    Values at :attr:`Native.opaque` fields are the caller's and kept as they
    are; anything deeper than a body may nest is left for
    :func:`native_object` to refuse.
    """
    if depth > NATIVE_MAX_DEPTH:
        return value
    if type(value) is dict:
        out = {}
        for key, v in value.items():
            if v is None:
                continue
            name = _camel(key) if native.camel and type(key) is str else key
            if key in native.bytes_fields:
                out[name] = _bytes(v)
            else:
                out[name] = v if key in native.opaque else _scrub(v, native, depth + 1)
        return out
    if type(value) is list:
        return [_scrub(v, native, depth + 1) for v in value]
    return value


def _snake_envelope(value: JsonDict) -> bool:
    """Whether a Gemini response spells a field of its own or of a candidate in snake_case."""
    if any(type(k) is str and "_" in k for k in value):
        return True
    candidates = value.get("candidates")
    return type(candidates) is list and any(type(c) is dict and any(type(k) is str and "_" in k for k in c) for c in candidates)


def _respelled(value: object, depth: int) -> object:
    """A Gemini response with the fields around its contents in camelCase (the API reads both spellings).

    A candidate's ``content`` keeps its spelling (the projection marks it
    and writes it back so); nothing else of a response is written back.
    """
    if depth > NATIVE_MAX_DEPTH:
        return value
    if type(value) is dict:
        return {(_camel(k) if type(k) is str else k): v if k == "content" else _respelled(v, depth + 1) for k, v in value.items()}
    if type(value) is list:
        return [_respelled(v, depth + 1) for v in value]
    return value


def _plain(value: object, native: Native, depth: int) -> object:
    """``value`` with the SDK objects inside it dumped and the bytes of :attr:`Native.bytes_fields` in base64."""
    if depth > NATIVE_MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _bytes(v) if k in native.bytes_fields else _plain(v, native, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, native, depth + 1) for v in value]
    if value is None or isinstance(value, (str, int, float, bytes, bytearray, tuple, set)):
        return value
    if callable(getattr(value, "isoformat", None)) and callable(getattr(value, "utcoffset", None)):
        return _timestamp(value)  # a datetime in a Python-mode dump, as the JSON one writes it
    found = dumped(value)
    return value if found is value else _plain(found, native, depth + 1)


def _timestamp(value: Any) -> object:
    try:
        text = value.isoformat()
    except Exception:  # not a datetime after all: left for native_object to refuse
        return value
    return text[:-6] + "Z" if type(text) is str and text.endswith("+00:00") else text


def _bytes(value: Any) -> object:
    """Bytes as standard base64; a string of URL-safe base64 (a JSON dump's) as standard; anything else as it is."""
    if isinstance(value, (bytes, bytearray)):
        return b64encode(bytes(value))
    if type(value) is str:
        return value.replace("-", "+").replace("_", "/")
    return value


def _camel(name: str) -> str:
    if "_" not in name.strip("_"):
        return name
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _bare_error(body: JsonDict, native: Native) -> bool:
    """Whether ``body`` is an error object alone (OpenAI's SDK gives ``error.body`` so)."""
    return isinstance(body.get("message"), str) and ("type" in body or "code" in body) and not any(m in body for m in native.marks)


def _check_provider(body: JsonDict, native: Native) -> None:
    """Refuse ``body`` when it is another provider's, or holds nothing a value of its kind holds."""
    if native.kind == "usage":
        return
    expected = f"{NAMES[native.provider]} {native.kind}"
    found = sniff(body)
    if found is not None and found.sure:
        wrong_kind = found.message or found.request != (native.kind == "request")
        if found.module != native.provider or wrong_kind:
            raise NormalizeError(f"expected {an(expected)}, found {an(found.what)}")
        return
    if "error" in body or any(mark in body for mark in native.marks):
        return  # an error body is the provider's own
    keys = ", ".join(repr(k) for k in list(body)[:5]) + (", ..." if len(body) > 5 else "")
    found_what = f"an object with keys {keys}" if body else "an empty object"
    raise NormalizeError(f"expected {an(expected)}, found {found_what}")

