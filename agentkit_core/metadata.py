"""The metadata bag: a read-only map of string keys to JSON values.

Convention: provider-specific keys are namespaced by provider, ``openai.*``,
``anthropic.*``, ``gemini.*``; the toolkit's own keys use ``agentkit.*``.
Nothing in agentkit depends on provider-specific metadata for correctness.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from . import _check as check, _codec as wire
from ._make import filler
from ._value import refuse_delattr, refuse_setattr
from .error import NormalizeError
from .jsontext import JsonCodec, JsonValue

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from collections.abc import ItemsView, KeysView, ValuesView
    from typing import Any, Iterator

__all__ = ("JsonValue", "MetadataLike", "MetadataMap", "EMPTY_METADATA")

class MetadataMap(JsonCodec, Mapping[str, JsonValue]):
    """A read-only mapping of ``str`` keys to JSON values, its keys kept sorted.

    It is what every part, item and usage carries as ``metadata``.  Build one
    from any mapping (``MetadataMap({"openai.id": "x"})``) or let a constructor
    convert a plain dict for you.  "Changing" it gives a new map:
    :meth:`merged` (later keys win) and :meth:`without`.

    Building one checks and copies the data: keys must be strings, values
    JSON data (no NaN or infinities, no lone surrogates, no tuples or other
    objects JSON has no form for, nested no deeper than ``from_dict`` reads);
    a wrong value raises :class:`NormalizeError` naming the key, anything but
    a mapping ``TypeError``.  The map itself cannot be changed.  Its values
    are plain JSON data (dicts, lists, scalars) that it owns: treat them as
    read-only; :meth:`to_dict` returns a deep copy, so the value you hold and
    the data you exchange never share a container.

    A ``MetadataMap`` compares equal to any mapping with the same items.  It is
    not hashable (its values need not be), and neither is anything that holds one.
    """

    __slots__ = ("_data", "_depth")

    _data: dict[str, JsonValue]
    _depth: int  # how deep to_dict() nests; measured on first use when a decoder built the map

    if not TYPE_CHECKING:
        __setattr__ = refuse_setattr
        __delattr__ = refuse_delattr

    def __init__(self, data: Mapping[str, JsonValue] | None = None, /) -> None:
        checked = as_metadata(data, "MetadataMap", "")
        _set_data(self, checked._data)
        _set_depth(self, check.depth(checked))

    @classmethod
    def _sorted(cls, data: dict[str, JsonValue]) -> MetadataMap:
        """Wrap a dict of valid JSON that is already sorted and owned by the new map (no copy)."""
        self = cls.__new__(cls)
        _set_data(self, data)
        return self

    def _measure(self) -> int:
        """The depth of :meth:`to_dict`, for a map a decoder built; kept for next time."""
        depth = 1 + max(map(check.json_depth, self._data.values()), default=0)
        _set_depth(self, depth)
        return depth

    def __getitem__(self, key: str) -> JsonValue:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    # The Mapping mixins go through __getitem__ one key at a time; the encoders read metadata on every part.
    def get(self, key: str, default: object = None, /) -> Any:
        """``self[key]`` if the key is there, else ``default``."""
        return self._data.get(key, default)

    def items(self) -> ItemsView[str, JsonValue]:
        """A read-only view of the ``(key, value)`` pairs, in key order."""
        return self._data.items()

    def keys(self) -> KeysView[str]:
        """A read-only view of the keys, in order."""
        return self._data.keys()

    def values(self) -> ValuesView[JsonValue]:
        """A read-only view of the values, in key order."""
        return self._data.values()

    def __eq__(self, other: object) -> bool:
        if type(other) is MetadataMap:
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'MetadataMap' (its values are JSON data)")

    def __repr__(self) -> str:
        return f"MetadataMap({self._data!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (MetadataMap, (self._data,))

    def merged(self, other: Mapping[str, JsonValue], /) -> MetadataMap:
        """A new map with ``other``'s keys added; on a clash ``other`` wins.

        ``other`` is checked as the constructor checks its data.
        """
        added = as_metadata(other, "MetadataMap", "merged")
        if not added._data:
            return self
        if not self._data:
            return added
        data = dict(self._data)
        data.update(added._data)
        merged = MetadataMap._sorted(dict(sorted(data.items())))
        mine, theirs = check.depth(self), check.depth(added)
        if theirs >= mine or self._data.keys().isdisjoint(added._data):
            _set_depth(merged, max(mine, theirs))  # else a deepest value may be gone: measured when asked
        return merged

    def without(self, *keys: str) -> MetadataMap:
        """A new map without ``keys`` (absent keys are ignored)."""
        if not any(k in self._data for k in keys):
            return self
        return MetadataMap._sorted({k: v for k, v in self._data.items() if k not in keys})

    def namespace(self, prefix: str, /) -> dict[str, JsonValue]:
        """The entries under ``prefix.``, keyed without it: ``namespace("openai")``."""
        start = prefix + "."
        n = len(start)
        return {k[n:]: wire.copy_json(v) for k, v in self._data.items() if k.startswith(start)}

    def to_dict(self) -> dict[str, JsonValue]:
        """A plain dict (keys sorted, values deep-copied), ready for ``json.dumps``."""
        if not self._data:
            return {}
        return {k: wire.copy_json(v) for k, v in self._data.items()}

    @classmethod
    def from_dict(cls, v: object, /) -> MetadataMap:
        """Decode a JSON object of JSON values; raises :class:`NormalizeError`."""
        return decode_metadata(v, 1)


#: What constructors accept as ``metadata=``: any mapping (stored as a :class:`MetadataMap`) or ``None``.
MetadataLike = MetadataMap | Mapping[str, JsonValue] | None

_set_data, _set_depth = filler(MetadataMap, "_data"), filler(MetadataMap, "_depth")
_new_map = partial(object.__new__, MetadataMap)

#: The shared empty map, every constructor's default.
EMPTY_METADATA = MetadataMap._sorted({})
_set_depth(EMPTY_METADATA, 1)


def _checked(data: Mapping[Any, Any]) -> tuple[dict[str, JsonValue], int]:
    """Check and copy a non-empty mapping: its items, keys sorted, and the depth of its wire form."""
    out = wire.json_object(data if type(data) is dict else dict(data), 1)  # the map is level 1
    return (dict(sorted(out.items())) if len(out) > 1 else out), check.json_depth(out)


def decode_metadata(v: object, depth: int) -> MetadataMap:
    """Decode a metadata map at nesting level ``depth`` (the map's own level)."""
    if type(v) is dict:
        if depth > wire.MAX_DEPTH:
            wire.too_deep()
        if not v:
            return EMPTY_METADATA
        data = wire.json_object(v, depth)
    elif v is wire.MISSING:
        wire.fail("missing field")
    elif isinstance(v, dict):
        return decode_metadata(dict(v), depth)
    else:
        wire.fail(f"invalid type: {wire.describe(v)}, expected a map")
    return MetadataMap._sorted(dict(sorted(data.items())) if len(data) > 1 else data)


def metadata_field(d: dict[str, JsonValue], depth: int) -> MetadataMap:
    """The required ``metadata`` field of struct ``d`` (``d`` at level ``depth``)."""
    v = d.get("metadata", wire.MISSING)
    if type(v) is dict and not v and depth < wire.MAX_DEPTH:
        return EMPTY_METADATA
    try:
        return decode_metadata(v, depth + 1)
    except NormalizeError as exc:
        raise exc.under("metadata") from None


def as_metadata(m: object, owner: str, field: str = "metadata") -> MetadataMap:
    """A constructor's metadata argument (any mapping or ``None``) as a checked :class:`MetadataMap`.

    Errors name ``owner.field`` (``TextPart.metadata['k']``), or ``owner`` alone when ``field`` is empty.
    """
    if type(m) is MetadataMap:
        return m
    if type(m) is dict and len(m) == 1:  # the common case, one key and a scalar: checked here, as json_object would
        for k, v in m.items():
            tv = type(v)
            if type(k) is str and k.isascii() and ((tv is str and v.isascii()) or tv is int or tv is bool or v is None):
                one = _new_map()
                _set_data(one, {k: v})
                _set_depth(one, 1)
                return one
    if m is None or (type(m) is dict and not m):  # before isinstance(m, Mapping), an ABC check costing 4x the rest
        return EMPTY_METADATA
    if not isinstance(m, Mapping):
        raise check.wrong_type(owner, field, "a mapping of strings to JSON values", m)
    if not m:
        return EMPTY_METADATA
    try:
        data, depth = _checked(m)
    except NormalizeError as exc:
        raise check.located(exc, owner, field) from None
    checked = MetadataMap._sorted(data)
    _set_depth(checked, depth)
    return checked


if TYPE_CHECKING:  # pragma: no cover
    _check: Mapping[str, JsonValue] = EMPTY_METADATA


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
