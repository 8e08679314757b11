"""Typed readers of native fields, the one way every projection reads a field it consumes.

``optional_str(native, key, at)`` and its siblings (``_obj``, ``_arr``,
``_int``; ``required_*`` for a field that must be there) return the field when
it has its JSON type, ``None`` when it is absent or ``null`` (the optional
ones), and otherwise raise :class:`~agentkit_core.NormalizeError` with the
package's words (``expected a string, found 5``) and the path of the field:
``at`` (the object's own path, ``"choices[0]"``, empty at the top) and the key.
:func:`json_object` reads a value already in hand (an array's element).

Two readers never raise, for fields a projection consumes only when they have
the expected type and otherwise carries as they came: :func:`str_or_none` and
:func:`obj_or_empty`.

They sit on every decoding path, so each is a ``get`` and one type test.
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, NormalizeError
from ..._for_providers import describe
from .native import JsonDict, json_object as json_object, wrong

__all__ = (
    "optional_str",
    "optional_obj",
    "optional_arr",
    "optional_int",
    "required_str",
    "required_obj",
    "required_arr",
    "json_object",
    "str_or_none",
    "obj_or_empty",
)


def _path(at: str, key: str) -> str:
    return f"{at}.{key}" if at else key


def optional_str(native: Mapping[str, JsonValue], key: str, at: str = "") -> str | None:
    """``native[key]`` if it is a string, ``None`` if it is absent or null, else the error at ``at.key``."""
    v = native.get(key)
    if v is None or type(v) is str:
        return v
    raise wrong("a string", v, _path(at, key))


def optional_obj(native: Mapping[str, JsonValue], key: str, at: str = "") -> JsonDict | None:
    """``native[key]`` if it is a JSON object, ``None`` if it is absent or null, else the error at ``at.key``."""
    v = native.get(key)
    if v is None or isinstance(v, dict):
        return v
    raise wrong("an object", v, _path(at, key))


def optional_arr(native: Mapping[str, JsonValue], key: str, at: str = "") -> list[JsonValue] | None:
    """``native[key]`` if it is a JSON array, ``None`` if it is absent or null, else the error at ``at.key``."""
    v = native.get(key)
    if v is None or isinstance(v, list):
        return v
    raise wrong("an array", v, _path(at, key))


def optional_int(native: Mapping[str, JsonValue], key: str, at: str = "", *, minimum: int = 0) -> int | None:
    """``native[key]`` if it is an integer (never a boolean) of at least ``minimum``, ``None`` if absent or null."""
    v = native.get(key)
    if v is None or (type(v) is int and v >= minimum):
        return v
    raise wrong("a non-negative integer" if minimum == 0 else f"an integer of at least {minimum}", v, _path(at, key))


def _missing(noun: str, native: Mapping[str, JsonValue], key: str, at: str) -> NormalizeError:
    found = describe(native[key]) if key in native else "nothing"
    return NormalizeError(f"expected {noun}, found {found}", _path(at, key))


def required_str(native: Mapping[str, JsonValue], key: str, at: str = "") -> str:
    """``native[key]`` if it is a string, else the error at ``at.key`` (``found nothing`` when it is absent)."""
    v = native.get(key)
    if type(v) is str:
        return v
    raise _missing("a string", native, key, at)


def required_obj(native: Mapping[str, JsonValue], key: str, at: str = "") -> JsonDict:
    """``native[key]`` if it is a JSON object, else the error at ``at.key``."""
    v = native.get(key)
    if isinstance(v, dict):
        return v
    raise _missing("an object", native, key, at)


def required_arr(native: Mapping[str, JsonValue], key: str, at: str = "") -> list[JsonValue]:
    """``native[key]`` if it is a JSON array, else the error at ``at.key``."""
    v = native.get(key)
    if isinstance(v, list):
        return v
    raise _missing("an array", native, key, at)


def str_or_none(value: object) -> str | None:
    """``value`` if it is a string, else ``None``: for a field read only when it is one (and carried otherwise)."""
    return value if type(value) is str else None


def obj_or_empty(native: Mapping[str, JsonValue], key: str) -> JsonDict:
    """``native[key]`` if it is a JSON object, else ``{}``: for an object read only when it is one."""
    value = native.get(key)
    return value if isinstance(value, dict) else {}
