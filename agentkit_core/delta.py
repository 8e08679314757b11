"""Streaming deltas: the transient events a provider's stream is made of.

Parts are durable; deltas are how they are built while a turn streams.  A
stream opens parts (:class:`BeginPart`), extends them (:class:`AppendText`,
:class:`AppendBytes`, :class:`ReplaceStructured`, :class:`SetMetadata`) and
closes them (:class:`CommitPart`).  :func:`~.fold.fold` turns a stream into
parts.  On the wire each is externally tagged:
``{"AppendText": {"part_id": "p1", "chunk": "Hel"}}``.
"""

from __future__ import annotations

from dataclasses import field

from . import _check as check, _codec as wire
from ._enum import decode_enum
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, not_constructible
from .content import Part, PartKind, decode_part
from .ids import PartId
from .metadata import JsonValue, MetadataLike, MetadataMap, as_metadata, decode_metadata
from .tool import PART_VARIANTS

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, Mapping

__all__ = ("Delta", "BeginPart", "AppendText", "AppendBytes", "ReplaceStructured", "SetMetadata", "CommitPart")


class Delta(Value):
    """One streaming event; the base of the six delta variants.

    Every variant but :class:`CommitPart` addresses an open part by ``part_id``.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, JsonValue]: ...

    else:
        __init__ = not_constructible("Delta", "BeginPart, AppendText, AppendBytes, ReplaceStructured, SetMetadata or CommitPart")

    @classmethod
    def from_dict(cls, v: object, /) -> Delta:
        """Decode a delta; raises :class:`NormalizeError`."""
        return wire.variant(decode_delta(v, 1), cls)


def _part_id(v: object, owner: str) -> PartId:
    return v if type(v) is PartId else check.ident(v, PartId, owner, "part_id")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class BeginPart(Delta):
    """Open a part of ``kind`` under ``part_id``, after every part opened before it."""

    part_id: PartId
    kind: PartKind

    def __init__(self, part_id: PartId, kind: PartKind) -> None:
        kind = kind if type(kind) is PartKind else check.member(kind, PartKind, "BeginPart", "kind")
        _fill_begin(self, _part_id(part_id, "BeginPart"), kind)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"BeginPart": {"part_id": ..., "kind": ...}}``."""
        return {"BeginPart": {"part_id": self.part_id.value, "kind": self.kind._value_}}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class AppendText(Delta):
    """Append ``chunk`` to the open part's text."""

    part_id: PartId
    chunk: str

    def __init__(self, part_id: PartId, chunk: str) -> None:
        _fill_append_text(self, _part_id(part_id, "AppendText"), check.string(chunk, "AppendText", "chunk"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"AppendText": {"part_id": ..., "chunk": ...}}``."""
        return {"AppendText": {"part_id": self.part_id.value, "chunk": self.chunk}}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class AppendBytes(Delta):
    """Append ``chunk`` to the open part's inline bytes (audio, a file...).

    The constructor takes ``bytes``, ``bytearray`` or ``memoryview`` and keeps ``bytes``.
    """

    part_id: PartId
    chunk: bytes

    def __init__(self, part_id: PartId, chunk: bytes | bytearray | memoryview) -> None:
        _fill_append_bytes(self, _part_id(part_id, "AppendBytes"), check.byte_string(chunk, "AppendBytes", "chunk"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"AppendBytes": {"part_id": ..., "chunk": [0..255, ...]}}``."""
        return {"AppendBytes": {"part_id": self.part_id.value, "chunk": list(self.chunk)}}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ReplaceStructured(Delta):
    """Replace the open part's JSON value (a structured value, tool input, custom value).

    ``value`` is checked and copied when the delta is made (see :class:`~.tool.ToolCallPart`).
    """

    part_id: PartId
    value: JsonValue

    def __init__(self, part_id: PartId, value: JsonValue) -> None:
        value, _ = check.payload(value, "ReplaceStructured", "value", check.PAYLOAD_LEVEL)
        _fill_replace(self, _part_id(part_id, "ReplaceStructured"), value)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"ReplaceStructured": {"part_id": ..., "value": ...}}``, the JSON copied."""
        return {"ReplaceStructured": {"part_id": self.part_id.value, "value": wire.copy_json(self.value)}}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class SetMetadata(Delta):
    """Merge ``metadata`` into the open part's metadata (later keys win)."""

    part_id: PartId
    metadata: MetadataMap

    def __init__(self, part_id: PartId, metadata: MetadataLike) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "SetMetadata")
        check.fits(2 + check.depth(md), "SetMetadata", "metadata")
        _fill_set_metadata(self, _part_id(part_id, "SetMetadata"), md)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"SetMetadata": {"part_id": ..., "metadata": {...}}}``."""
        return {"SetMetadata": {"part_id": self.part_id.value, "metadata": self.metadata.to_dict() if self.metadata._data else {}}}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class CommitPart(Delta):
    """Finish a part: ``part`` is authoritative and replaces what was accumulated.

    ``part_id`` (an extension over the reference, which has none) names the
    open part it closes; without it the fold closes the earliest open part of
    the same kind, or appends ``part`` when none is open.  It is written to
    JSON only when set, so reference output stays byte-identical.
    """

    part: Part
    part_id: PartId | None = field(default=None, kw_only=True)

    def __init__(self, part: Part, *, part_id: PartId | None = None) -> None:
        part = check.instance(part, PART_VARIANTS, "CommitPart", "part", "a Part")
        check.fits(2 + check.depth(part), "CommitPart", "part")
        _fill_commit(self, part, None if part_id is None else _part_id(part_id, "CommitPart"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"CommitPart": {"part": ..., "part_id": ...}}``, ``part_id`` only when set."""
        body: dict[str, JsonValue] = {"part": self.part.to_dict()}
        if self.part_id is not None:
            body["part_id"] = self.part_id.value
        return {"CommitPart": body}


_fill_begin = filler(BeginPart, "part_id", "kind")
_fill_append_text = filler(AppendText, "part_id", "chunk")
_fill_append_bytes = filler(AppendBytes, "part_id", "chunk")
_fill_replace = filler(ReplaceStructured, "part_id", "value")
_fill_set_metadata = filler(SetMetadata, "part_id", "metadata")
_fill_commit = filler(CommitPart, "part", "part_id")

_make_begin = unchecked_maker(BeginPart, "part_id", "kind")
_make_append_text = unchecked_maker(AppendText, "part_id", "chunk")
_make_append_bytes = unchecked_maker(AppendBytes, "part_id", "chunk")
_make_replace = unchecked_maker(ReplaceStructured, "part_id", "value")
_make_set_metadata = unchecked_maker(SetMetadata, "part_id", "metadata")
_make_commit = unchecked_maker(CommitPart, "part", "part_id")
_make_part_id = unchecked_maker(PartId, "value")


def _decode_part_id(d: dict[str, JsonValue]) -> PartId:
    return _make_part_id(wire.string(d.get("part_id", wire.MISSING), "part_id"))


def _begin(v: object, depth: int) -> Delta:
    d = wire.struct(v, "BeginPart", ("part_id", "kind"), depth)
    return _make_begin(_decode_part_id(d), decode_enum(PartKind, d.get("kind", wire.MISSING), "kind"))


def _append_text(v: object, depth: int) -> Delta:
    d = wire.struct(v, "AppendText", ("part_id", "chunk"), depth)
    return _make_append_text(_decode_part_id(d), wire.string(d.get("chunk", wire.MISSING), "chunk"))


def _append_bytes(v: object, depth: int) -> Delta:
    d = wire.struct(v, "AppendBytes", ("part_id", "chunk"), depth)
    return _make_append_bytes(_decode_part_id(d), wire.field(d, "chunk", wire.byte_array, depth + 1))


def _replace_structured(v: object, depth: int) -> Delta:
    d = wire.struct(v, "ReplaceStructured", ("part_id", "value"), depth)
    return _make_replace(_decode_part_id(d), wire.field(d, "value", wire.json_value, depth + 1))


def _set_metadata(v: object, depth: int) -> Delta:
    d = wire.struct(v, "SetMetadata", ("part_id", "metadata"), depth)
    return _make_set_metadata(_decode_part_id(d), wire.field(d, "metadata", decode_metadata, depth + 1))


def _commit(v: object, depth: int) -> Delta:
    d = wire.struct(v, "CommitPart", ("part",), depth)
    part_id = d.get("part_id")
    if type(part_id) is not str or not (part_id.isascii() or wire.valid_unicode(part_id)):
        part_id = None  # the reference ignores the field; so do we unless it is a string
    part = wire.field(d, "part", decode_part, depth + 1)
    return _make_commit(part, None if part_id is None else _make_part_id(part_id))


_DECODERS: dict[str, Callable[[object, int], Delta]] = {
    "BeginPart": _begin,
    "AppendText": _append_text,
    "AppendBytes": _append_bytes,
    "ReplaceStructured": _replace_structured,
    "SetMetadata": _set_metadata,
    "CommitPart": _commit,
}


#: ``decode_delta(v, depth)``: decode a tagged delta whose object sits at nesting level ``depth``.
decode_delta = wire.dispatcher("Delta", _DECODERS)


if TYPE_CHECKING:  # pragma: no cover
    _m: Mapping[str, JsonValue] = MetadataMap()


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
