"""What the interop modules share: reading what users hold, the errors, base64, timestamps.

Private to :mod:`agentkit_core.interop`.  No library is imported: an object is
read by what it has (``model_dump()``, dataclass fields, attributes), as the
providers read SDK objects.
"""

from __future__ import annotations

import binascii
from typing import Any, Callable, Iterable, Mapping

from .. import FinishReason, Item, ItemKind, JsonValue, NormalizeError
from .._codec import SCALARS, copy_json
from .._detect import sniff as sniff_provider
from .._error_text import an, describe, noun

__all__ = (
    "JsonDict", "wrong", "under", "looks_like", "obj", "text", "opt_text", "listed", "b64decode",
    "b64encode", "plain", "ms_of_iso", "iso_of_ms", "carried", "finish_from", "items_checked",
)

JsonDict = dict[str, Any]


def looks_like(value: object) -> str:
    """A noun phrase, with its article, for what ``value`` looks like: ``"an Anthropic Messages request"``."""
    if type(value) is dict:
        found = sniff_provider(value)
        if found is not None:
            return an(found.what)
        if "inputSchema" in value and "name" in value:
            return "an MCP tool"
        if "content" in value and ("isError" in value or "structuredContent" in value):
            return "an MCP tools/call result"
        if type(value.get("type")) is str and type(value.get("data")) is dict:
            return "a LangChain message dict"
        if value.get("kind") in ("request", "response") and "parts" in value:
            return "a pydantic-ai message"
        if "part_kind" in value:
            return "a pydantic-ai message part"
        return an(noun(value))
    if type(value) in (list, str, int, float, bool) or value is None:
        return an(noun(value))
    return f"a Python {type(value).__name__}"


def wrong(expected: str, value: object, path: str = "") -> NormalizeError:
    """``expected an object, found an Anthropic Messages request`` at ``path``."""
    found = looks_like(value) if type(value) is dict else describe(value)
    return NormalizeError(f"expected {expected}, found {found}", path)


def under(exc: NormalizeError, *segments: str) -> NormalizeError:
    """``exc`` seen from ``len(segments)`` levels up: ``under(e, "messages", "[3]")``."""
    for segment in reversed(segments):
        exc = exc.under(segment)
    return exc


def obj(value: object, path: str = "", what: str = "an object") -> JsonDict:
    """``value`` if it is a JSON object, else the error naming ``path`` and what ``value`` looks like."""
    if type(value) is not dict:
        if isinstance(value, Mapping):
            return dict(value)
        raise wrong(what, value, path)
    return value


def text(d: JsonDict, key: str) -> str:
    """The string at ``d[key]``, required."""
    v = d.get(key)
    if type(v) is not str:
        raise NormalizeError("missing field" if key not in d else f"expected a string, found {describe(v)}", key)
    return v


def opt_text(d: JsonDict, key: str) -> str | None:
    """The string at ``d[key]``; ``None`` when absent or null."""
    v = d.get(key)
    if v is None or type(v) is str:
        return v
    raise NormalizeError(f"expected a string, found {describe(v)}", key)


def listed(value: object, path: str, what: str) -> list[Any]:
    """``value`` as a list (any iterable but a string, bytes or a mapping), else the error naming ``path``."""
    if type(value) is list:
        return value
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise wrong(what, value, path)
    return list(value)


def plain(value: object, depth: int = 0) -> Any:
    """An object as the JSON data it stands for: dataclasses by their fields, pydantic models by ``model_dump``.

    A dataclass field named ``_x`` is read as the object's public ``x`` when it
    has one (pydantic-ai's ``ImageUrl._media_type`` is its ``media_type``);
    ``bytes`` become base64 text, a ``datetime`` its ISO text, a ``timedelta``
    its seconds.  Raises :class:`NormalizeError` for what is no JSON data.
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    if depth > 100:
        raise NormalizeError("nested too deeply")
    if type(value) is dict:
        return {k: plain(v, depth + 1) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [plain(v, depth + 1) for v in value]  # type: ignore[attr-defined]
    fields = getattr(type(value), "__dataclass_fields__", None)
    if fields is not None:
        out = {}
        for name in fields:
            if name[0] == "_":
                if not hasattr(value, name[1:]):
                    continue
                name = name[1:]
            out[name] = plain(getattr(value, name), depth + 1)
        return out
    if isinstance(value, (bytes, bytearray)):
        return b64encode(bytes(value))
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):  # UTC written with Z, as pydantic writes it
        iso = isoformat()
        return iso[:-6] + "Z" if type(iso) is str and iso.endswith("+00:00") else iso
    seconds = getattr(value, "total_seconds", None)
    if callable(seconds):
        return seconds()
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump(mode="json", by_alias=True), depth + 1)
    if isinstance(value, (str, int, float)):  # a subclass (an enum member): its plain value
        v = getattr(value, "value", value)
        return v if type(v) in (str, int, float, bool) else str(value)
    raise NormalizeError(f"expected JSON data, found {describe(value)}")


def b64decode(value: object, path: str) -> bytes:
    """Standard base64 text to bytes; bytes (a Python-mode dump) as they are."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if type(value) is not str:
        raise NormalizeError(f"expected base64 text, found {describe(value)}", path)
    import base64

    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise NormalizeError("invalid base64 text", path) from None


def b64encode(data: bytes) -> str:
    """Bytes as standard base64 text, padded, without newlines."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def ms_of_iso(value: object) -> int | None:
    """Milliseconds since the epoch of an ISO 8601 time (``2025-01-02T03:04:05Z``; no zone is UTC); ``None`` if it is none."""
    if type(value) is not str:
        return None
    try:
        return _SEEN[value]
    except KeyError:
        pass
    if len(_SEEN) > 4096:  # a history's parts share their times: a small memo, never a growing one
        _SEEN.clear()
    ms = _SEEN[value] = _ms_of_iso(value)
    return ms


_SEEN: dict[str, int | None] = {}


def _ms_of_iso(value: str) -> int | None:
    from datetime import datetime, timedelta, timezone

    try:
        t = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    ms = (t - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)
    return ms if 0 <= ms < 2**64 else None


def iso_of_ms(ms: int) -> str:
    """An ISO 8601 UTC time, ``Z``-suffixed as pydantic writes it, for milliseconds since the epoch."""
    from datetime import datetime, timedelta, timezone

    t = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    return t.isoformat().replace("+00:00", "Z")


def carried(md: Mapping[str, JsonValue], prefix: str, skip: frozenset[str] = frozenset()) -> dict[str, JsonValue]:
    """The metadata under ``prefix`` but the keys in ``skip`` (whole keys) as a library's fields, ``prefix`` cut; copies, so
    what is written shares nothing with the items (``md``: a map's data)."""
    if not md:
        return {}
    n = len(prefix)
    return {k[n:]: v if type(v) in SCALARS else copy_json(v) for k, v in md.items() if k not in skip and k.startswith(prefix)}


_FINISHES = {
    "stop": FinishReason.COMPLETED, "end_turn": FinishReason.COMPLETED, "STOP": FinishReason.COMPLETED,
    "length": FinishReason.MAX_TOKENS, "max_tokens": FinishReason.MAX_TOKENS, "MAX_TOKENS": FinishReason.MAX_TOKENS,
    "tool_call": FinishReason.TOOL_CALL, "tool_calls": FinishReason.TOOL_CALL, "tool_use": FinishReason.TOOL_CALL,
    "function_call": FinishReason.TOOL_CALL, "content_filter": FinishReason.BLOCKED, "refusal": FinishReason.BLOCKED,
    "SAFETY": FinishReason.BLOCKED, "error": FinishReason.ERROR,
}


def finish_from(raw: object) -> FinishReason | None:
    """A finish reason string of any of the usual spellings as a :class:`FinishReason`; another string as ``Other``."""
    if type(raw) is not str:
        return None
    return _FINISHES.get(raw) or FinishReason.other(raw)


def items_checked(items: object, name: str = "items") -> list[Item]:
    """``items`` as a list of :class:`Item` (``TypeError`` for anything else, as the providers' encoders do)."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise TypeError(f"{name}: expected an iterable of Item, found {type(items).__name__}")
    out = list(items)
    for n, item in enumerate(out):
        if type(item) is not Item:
            raise TypeError(f"{name}[{n}]: expected an Item, found {type(item).__name__}")
    return out


#: Item kinds that speak for the system (the developer's and loaded context are system text to libraries without them).
#: A tuple, not a set: ``in`` compares members by identity, where a set would call the enum's ``__hash__``, a Python
#: function (a fifth of the time of writing a system message back).
SYSTEM_KINDS = (ItemKind.SYSTEM, ItemKind.DEVELOPER, ItemKind.CONTEXT)

MakeItem = Callable[..., Item]
