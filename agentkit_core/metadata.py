"""The metadata bag: a read-only map of string keys to JSON values.

Convention: provider-specific keys are namespaced by provider, ``openai.*``,
``anthropic.*``, ``gemini.*``; the toolkit's own keys use ``agentkit.*``.
Nothing in agentkit depends on provider-specific metadata for correctness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Union

from . import _codec as C
from .error import NormalizeError
from .jsontext import JsonCodec, JsonValue

__all__ = ("JsonValue", "MetadataLike", "MetadataMap", "EMPTY_METADATA")

#: What constructors accept as ``metadata=``: any mapping (stored as a :class:`MetadataMap`) or ``None``.
MetadataLike = Union["MetadataMap", Mapping[str, JsonValue], None]


class MetadataMap(JsonCodec, Mapping[str, JsonValue]):
    """A read-only mapping of ``str`` keys to JSON values, its keys kept sorted.

    It is what every part, item and usage carries as ``metadata``.  Build one
    from any mapping (``MetadataMap({"openai.id": "x"})``) or let a constructor
    convert a plain dict for you.  "Changing" it gives a new map:
    :meth:`merged` (later keys win) and :meth:`without`.

    The map itself cannot be changed.  Its values are plain JSON data (dicts,
    lists, scalars); treat them as read-only too: decoders hand you fresh
    copies and :meth:`to_dict` returns a deep copy, so the value you hold and
    the data you exchange never share a container.

    A ``MetadataMap`` compares equal to any mapping with the same items.  It is
    not hashable (its values need not be), and neither is anything that holds one.
    """

    __slots__ = ("_data",)

    _data: dict[str, JsonValue]

    def __init__(self, data: Mapping[str, JsonValue] | None = None, /) -> None:
        if not data:
            self._data = {}
        elif type(data) is MetadataMap:
            self._data = data._data
        else:
            self._data = dict(sorted(data.items()))

    @classmethod
    def _sorted(cls, data: dict[str, JsonValue]) -> MetadataMap:
        """Wrap a dict that is already sorted and owned by the new map (no copy)."""
        self = cls.__new__(cls)
        self._data = data
        return self

    def __getitem__(self, key: str) -> JsonValue:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

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

    def __reduce__(self) -> tuple[Any, ...]:
        return (MetadataMap, (self._data,))

    def merged(self, other: Mapping[str, JsonValue], /) -> MetadataMap:
        """A new map with ``other``'s keys added; on a clash ``other`` wins."""
        if not other:
            return self
        if not self._data:
            return MetadataMap(other)
        data = dict(self._data)
        data.update(other)
        return MetadataMap._sorted(dict(sorted(data.items())))

    def without(self, *keys: str) -> MetadataMap:
        """A new map without ``keys`` (absent keys are ignored)."""
        if not any(k in self._data for k in keys):
            return self
        return MetadataMap._sorted({k: v for k, v in self._data.items() if k not in keys})

    def namespace(self, prefix: str, /) -> dict[str, JsonValue]:
        """The entries under ``prefix.``, keyed without it: ``namespace("openai")``."""
        start = prefix + "."
        n = len(start)
        return {k[n:]: C.copy_json(v) for k, v in self._data.items() if k.startswith(start)}

    def to_dict(self) -> dict[str, JsonValue]:
        """A plain dict (keys sorted, values deep-copied), ready for ``json.dumps``."""
        if not self._data:
            return {}
        return {k: C.copy_json(v) for k, v in self._data.items()}

    @classmethod
    def from_dict(cls, v: object, /) -> MetadataMap:
        """Decode a JSON object of JSON values; raises :class:`NormalizeError`."""
        return decode_metadata(v, 1)


#: The shared empty map, every constructor's default.
EMPTY_METADATA = MetadataMap()


def decode_metadata(v: object, depth: int) -> MetadataMap:
    """Decode a metadata map at nesting level ``depth`` (the map's own level)."""
    if type(v) is dict:
        if depth > C.MAX_DEPTH:
            C.too_deep()
        if not v:
            return EMPTY_METADATA
        data = C.json_object(v, depth)
    elif v is C.MISSING:
        C.fail("missing field")
    elif isinstance(v, dict):
        return decode_metadata(dict(v), depth)
    else:
        C.fail(f"invalid type: {C.describe(v)}, expected a map")
    return MetadataMap._sorted(dict(sorted(data.items())) if len(data) > 1 else data)


def metadata_field(d: dict[str, Any], depth: int) -> MetadataMap:
    """The required ``metadata`` field of struct ``d`` (``d`` at level ``depth``)."""
    v = d.get("metadata", C.MISSING)
    if type(v) is dict and not v and depth < C.MAX_DEPTH:
        return EMPTY_METADATA
    try:
        return decode_metadata(v, depth + 1)
    except NormalizeError as exc:
        raise exc.under("metadata") from None


def coerce_metadata(self: Any) -> None:
    """Store ``self.metadata`` (any mapping or ``None``) as a :class:`MetadataMap`.

    Called from ``__post_init__`` of every value with metadata, when it is not one already.
    """
    object.__setattr__(self, "metadata", as_metadata(self.metadata))


def as_metadata(m: Mapping[str, JsonValue] | None) -> MetadataMap:
    """Coerce a constructor argument to a :class:`MetadataMap` (no copy if it is one)."""
    if type(m) is MetadataMap:
        return m
    return MetadataMap(m) if m else EMPTY_METADATA


if TYPE_CHECKING:  # pragma: no cover
    _check: Mapping[str, JsonValue] = EMPTY_METADATA
