"""Streaming deltas: the transient events a provider's stream is made of.

Parts are durable; deltas are how they are built while a turn streams.  A
stream opens parts (:class:`BeginPart`), extends them (:class:`AppendText`,
:class:`AppendBytes`, :class:`ReplaceStructured`, :class:`SetMetadata`) and
closes them (:class:`CommitPart`).  :func:`~.fold.fold` turns a stream into
parts.  On the wire each is externally tagged:
``{"AppendText": {"part_id": "p1", "chunk": "Hel"}}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from . import _codec as C
from ._value import Value
from .content import Part, PartKind, decode_part
from .ids import PartId
from .metadata import MetadataLike, JsonValue, MetadataMap, decode_metadata, coerce_metadata

__all__ = ("Delta", "BeginPart", "AppendText", "AppendBytes", "ReplaceStructured", "SetMetadata", "CommitPart")


class Delta(Value):
    """One streaming event; the base of the six delta variants.

    Every variant but :class:`CommitPart` addresses an open part by ``part_id``.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, Any]: ...

    @classmethod
    def from_dict(cls, v: object, /) -> Delta:
        """Decode a delta; raises :class:`NormalizeError`."""
        return C.variant(decode_delta(v, 1), cls)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BeginPart(Delta):
    """Open a part of ``kind`` under ``part_id``, after every part opened before it."""

    part_id: PartId
    kind: PartKind

    def to_dict(self) -> dict[str, Any]:
        return {"BeginPart": {"part_id": self.part_id.value, "kind": self.kind._value_}}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class AppendText(Delta):
    """Append ``chunk`` to the open part's text."""

    part_id: PartId
    chunk: str

    def to_dict(self) -> dict[str, Any]:
        return {"AppendText": {"part_id": self.part_id.value, "chunk": self.chunk}}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class AppendBytes(Delta):
    """Append ``chunk`` to the open part's inline bytes (audio, a file...)."""

    part_id: PartId
    chunk: bytes

    def to_dict(self) -> dict[str, Any]:
        return {"AppendBytes": {"part_id": self.part_id.value, "chunk": list(self.chunk)}}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ReplaceStructured(Delta):
    """Replace the open part's JSON value (a structured value, tool input, custom value)."""

    part_id: PartId
    value: JsonValue

    def to_dict(self) -> dict[str, Any]:
        return {"ReplaceStructured": {"part_id": self.part_id.value, "value": C.copy_json(self.value)}}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SetMetadata(Delta):
    """Merge ``metadata`` into the open part's metadata (later keys win)."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, part_id: PartId, metadata: MetadataLike) -> None: ...

    part_id: PartId
    metadata: MetadataMap

    def __post_init__(self) -> None:
        if type(self.metadata) is not MetadataMap:
            coerce_metadata(self)

    def to_dict(self) -> dict[str, Any]:
        return {"SetMetadata": {"part_id": self.part_id.value, "metadata": self.metadata.to_dict() if self.metadata._data else {}}}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class CommitPart(Delta):
    """Finish a part: ``part`` is authoritative and replaces what was accumulated.

    ``part_id`` (an extension over the reference, which has none) names the
    open part it closes; without it the fold closes the earliest open part of
    the same kind, or appends ``part`` when none is open.  It is written to
    JSON only when set, so reference output stays byte-identical.
    """

    part: Part
    part_id: PartId | None = field(default=None, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"part": self.part.to_dict()}
        if self.part_id is not None:
            body["part_id"] = self.part_id.value
        return {"CommitPart": body}


def _part_id(d: dict[str, Any]) -> PartId:
    return PartId(C.string(d.get("part_id", C.MISSING), "part_id"))


def _begin(v: Any, depth: int) -> Delta:
    d = C.struct(v, "BeginPart", ("part_id", "kind"), depth)
    return BeginPart(_part_id(d), C.decode_enum(PartKind, d.get("kind", C.MISSING), "kind"))


def _append_text(v: Any, depth: int) -> Delta:
    d = C.struct(v, "AppendText", ("part_id", "chunk"), depth)
    return AppendText(_part_id(d), C.string(d.get("chunk", C.MISSING), "chunk"))


def _append_bytes(v: Any, depth: int) -> Delta:
    d = C.struct(v, "AppendBytes", ("part_id", "chunk"), depth)
    return AppendBytes(_part_id(d), C.field(d, "chunk", C.byte_array, depth + 1))


def _replace_structured(v: Any, depth: int) -> Delta:
    d = C.struct(v, "ReplaceStructured", ("part_id", "value"), depth)
    return ReplaceStructured(_part_id(d), C.field(d, "value", C.json_value, depth + 1))


def _set_metadata(v: Any, depth: int) -> Delta:
    d = C.struct(v, "SetMetadata", ("part_id", "metadata"), depth)
    return SetMetadata(_part_id(d), C.field(d, "metadata", decode_metadata, depth + 1))


def _commit(v: Any, depth: int) -> Delta:
    d = C.struct(v, "CommitPart", ("part",), depth)
    part_id = d.get("part_id")
    if type(part_id) is not str or not (part_id.isascii() or C.valid_unicode(part_id)):
        part_id = None  # the reference ignores the field; so do we unless it is a string
    return CommitPart(C.field(d, "part", decode_part, depth + 1), part_id=None if part_id is None else PartId(part_id))


_DECODERS: dict[str, Callable[[Any, int], Delta]] = {
    "BeginPart": _begin,
    "AppendText": _append_text,
    "AppendBytes": _append_bytes,
    "ReplaceStructured": _replace_structured,
    "SetMetadata": _set_metadata,
    "CommitPart": _commit,
}


def decode_delta(v: object, depth: int) -> Delta:
    """Decode a tagged delta whose object sits at nesting level ``depth``."""
    return C.dispatch(v, depth, "Delta", _DECODERS)


if TYPE_CHECKING:  # pragma: no cover
    _m: Mapping[str, JsonValue] = MetadataMap()
