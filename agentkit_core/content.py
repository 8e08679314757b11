"""Durable content: the :class:`Part` family and its data references.

A part is one coherent unit of content; its data, when it has some, is a
:class:`~.data.DataRef`.  :class:`Part` is the base class of
eight frozen variants, so ``isinstance``, ``match`` and type checkers all
work::

    match part:
        case TextPart(text=text): ...
        case ToolCallPart(id=call_id, name=name, input=args): ...

Their wire form is the reference's externally tagged enum:
``{"Text": {"text": "hi", "metadata": {}}}``.  Tool calls and tool results
live in :mod:`.tool`; they are parts like the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, TypeVar

from . import _codec as C
from ._value import Value
from .data import DataRef, decode_data_ref
from .metadata import MetadataLike, EMPTY_METADATA, JsonValue, MetadataMap, as_metadata, metadata_field, coerce_metadata

__all__ = (
    "Modality",
    "PartKind",
    "Part",
    "TextPart",
    "MediaPart",
    "FilePart",
    "StructuredPart",
    "ReasoningPart",
    "CustomPart",
)

P = TypeVar("P", bound="Part")


class Modality(C.WireEnum):
    """What kind of media a :class:`MediaPart` holds."""

    AUDIO = "Audio"
    IMAGE = "Image"
    VIDEO = "Video"
    BINARY = "Binary"


class PartKind(C.WireEnum):
    """The eight kinds of :class:`Part`, without payload (what ``BeginPart`` opens)."""

    TEXT = "Text"
    MEDIA = "Media"
    FILE = "File"
    STRUCTURED = "Structured"
    REASONING = "Reasoning"
    TOOL_CALL = "ToolCall"
    TOOL_RESULT = "ToolResult"
    CUSTOM = "Custom"


# -- parts -------------------------------------------------------------------------


class Part(Value):
    """One unit of durable content: the base of the eight part variants.

    Variants: :class:`TextPart`, :class:`MediaPart`, :class:`FilePart`,
    :class:`StructuredPart`, :class:`ReasoningPart`, :class:`ToolCallPart`,
    :class:`ToolResultPart`, :class:`CustomPart`.  ``part.part_kind`` is the
    variant's :class:`PartKind`.  The factories below mirror the reference's
    ``Part::text`` and friends.
    """

    __slots__ = ()

    part_kind: ClassVar[PartKind]
    if TYPE_CHECKING:
        metadata: MetadataMap

        def to_dict(self) -> dict[str, Any]: ...

    @staticmethod
    def text(text: str) -> TextPart:
        """A :class:`TextPart`."""
        return TextPart(text)

    @staticmethod
    def media(modality: Modality, mime_type: str, data: DataRef) -> MediaPart:
        """A :class:`MediaPart`."""
        return MediaPart(modality, mime_type, data)

    @staticmethod
    def file(data: DataRef) -> FilePart:
        """A :class:`FilePart` with neither name nor MIME type."""
        return FilePart(data)

    @staticmethod
    def structured(value: JsonValue) -> StructuredPart:
        """A :class:`StructuredPart` without schema."""
        return StructuredPart(value)

    @staticmethod
    def reasoning(summary: str) -> ReasoningPart:
        """A :class:`ReasoningPart` holding a readable summary."""
        return ReasoningPart(summary)

    def __post_init__(self) -> None:
        # Every variant's dataclass __init__ calls this: a plain mapping becomes a MetadataMap.
        if type(self.metadata) is not MetadataMap:
            coerce_metadata(self)

    def with_metadata(self: P, metadata: Mapping[str, JsonValue]) -> P:
        """A copy whose metadata is ``metadata`` (replaced, as in the reference)."""
        return replace(self, metadata=as_metadata(metadata))  # type: ignore[type-var]

    @classmethod
    def from_dict(cls, v: object, /) -> Part:
        """Decode a part from its tagged wire form; raises :class:`NormalizeError`.

        Called on a variant (``TextPart.from_dict``) it also checks the variant.
        """
        return C.variant(decode_part(v, 1), cls)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TextPart(Part):
    """Plain user-visible text."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, text: str, *, metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.TEXT

    # Declared with field() so the inherited factory Part.text is not taken as a default.
    text: str = field()  # type: ignore[assignment]  # the field shadows the factory on purpose
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        md = self.metadata
        return {"Text": {"text": self.text, "metadata": md.to_dict() if md._data else {}}}

    @classmethod
    def _decode(cls, v: Any, depth: int) -> TextPart:
        d = C.struct(v, "TextPart", ("text", "metadata"), depth)
        return _make_text(C.string(d.get("text", C.MISSING), "text"), metadata_field(d, depth))


_make_text = C.maker(TextPart, "text", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MediaPart(Part):
    """Modality-tagged media: audio, image, video, or other binary media."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, modality: Modality, mime_type: str, data: DataRef, *, metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.MEDIA

    modality: Modality
    mime_type: str
    data: DataRef
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "Media": {
                "modality": self.modality._value_,
                "mime_type": self.mime_type,
                "data": self.data.to_dict(),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> MediaPart:
        d = C.struct(v, "MediaPart", ("modality", "mime_type", "data", "metadata"), depth)
        return _make_media(
            C.decode_enum(Modality, d.get("modality", C.MISSING), "modality"),
            C.string(d.get("mime_type", C.MISSING), "mime_type"),
            C.field(d, "data", decode_data_ref, depth + 1),
            metadata_field(d, depth),
        )


_make_media = C.maker(MediaPart, "modality", "mime_type", "data", "metadata")


_FILE_FIELDS = ("name", "mime_type", "data", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FilePart(Part):
    """A file: an upload, a generated artifact, a local or remote file reference."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, data: DataRef, *, name: str | None = ..., mime_type: str | None = ..., metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.FILE

    data: DataRef
    name: str | None = field(default=None, kw_only=True)
    mime_type: str | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    @classmethod
    def named(cls, name: str, data: DataRef) -> FilePart:
        """A file with a name."""
        return cls(data, name=name)

    def with_name(self, name: str | None) -> FilePart:
        """A copy with ``name`` set."""
        return replace(self, name=name)

    def with_mime_type(self, mime_type: str | None) -> FilePart:
        """A copy with ``mime_type`` set."""
        return replace(self, mime_type=mime_type)

    def to_dict(self) -> dict[str, Any]:
        return {"File": self.to_bare_dict()}

    def to_bare_dict(self) -> dict[str, Any]:
        """The untagged struct, as ``ToolOutput`` files embed it."""
        return {
            "name": self.name,
            "mime_type": self.mime_type,
            "data": self.data.to_dict(),
            "metadata": self.metadata.to_dict() if self.metadata._data else {},
        }

    @classmethod
    def from_bare_dict(cls, v: object, /) -> FilePart:
        """Decode the untagged struct; raises :class:`NormalizeError`."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: Any, depth: int) -> FilePart:
        d = C.struct(v, "FilePart", _FILE_FIELDS, depth)
        return _make_file(
            C.field(d, "data", decode_data_ref, depth + 1),
            C.opt_string(d.get("name"), "name"),
            C.opt_string(d.get("mime_type"), "mime_type"),
            metadata_field(d, depth),
        )


_make_file = C.maker(FilePart, "data", "name", "mime_type", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StructuredPart(Part):
    """A machine-readable JSON payload, optionally with the JSON Schema it follows.

    ``value`` may be any JSON value, ``None`` (JSON null) included.
    """

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, value: JsonValue, *, schema: JsonValue | None = ..., metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.STRUCTURED

    value: JsonValue
    schema: JsonValue | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def with_schema(self, schema: JsonValue | None) -> StructuredPart:
        """A copy with ``schema`` set."""
        return replace(self, schema=schema)

    def to_dict(self) -> dict[str, Any]:
        schema = self.schema
        return {
            "Structured": {
                "value": C.copy_json(self.value),
                "schema": None if schema is None else C.copy_json(schema),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> StructuredPart:
        d = C.struct(v, "StructuredPart", ("value", "schema", "metadata"), depth)
        inner = depth + 1
        schema = d.get("schema")
        return _make_structured(
            C.field(d, "value", C.json_value, inner),
            None if schema is None else C.field(d, "schema", C.json_value, inner),
            metadata_field(d, depth),
        )


_make_structured = C.maker(StructuredPart, "value", "schema", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ReasoningPart(Part):
    """Reasoning the provider supplied: a readable summary, opaque data, or both.

    ``redacted`` marks reasoning whose content is hidden (the data may still be
    echoed back to the provider).  The reference's ``ReasoningPart::summary(text)``
    factory is :meth:`from_summary` here, since ``summary`` is the field.
    """

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, summary: str | None = ..., *, data: DataRef | None = ..., redacted: bool = ..., metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.REASONING

    summary: str | None = None
    data: DataRef | None = field(default=None, kw_only=True)
    redacted: bool = field(default=False, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    @classmethod
    def from_summary(cls, text: str) -> ReasoningPart:
        """Readable reasoning (the reference's ``ReasoningPart::summary``)."""
        return cls(text)

    @classmethod
    def redacted_summary(cls, text: str) -> ReasoningPart:
        """A summary of reasoning whose content is redacted."""
        return cls(text, redacted=True)

    def with_data(self, data: DataRef | None) -> ReasoningPart:
        """A copy with ``data`` set."""
        return replace(self, data=data)

    def with_redacted(self, redacted: bool) -> ReasoningPart:
        """A copy with ``redacted`` set."""
        return replace(self, redacted=redacted)

    def to_dict(self) -> dict[str, Any]:
        data = self.data
        return {
            "Reasoning": {
                "summary": self.summary,
                "data": None if data is None else data.to_dict(),
                "redacted": self.redacted,
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> ReasoningPart:
        d = C.struct(v, "ReasoningPart", ("summary", "data", "redacted", "metadata"), depth)
        data = d.get("data")
        return _make_reasoning(
            C.opt_string(d.get("summary"), "summary"),
            None if data is None else C.field(d, "data", decode_data_ref, depth + 1),
            C.boolean(d.get("redacted", C.MISSING), "redacted"),
            metadata_field(d, depth),
        )


_make_reasoning = C.maker(ReasoningPart, "summary", "data", "redacted", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class CustomPart(Part):
    """The escape hatch for provider content with no first-class part yet.

    ``kind`` names it, conventionally namespaced (``"anthropic.server_tool_use"``);
    ``data`` and ``value`` carry its payload.  ``value`` is ``None`` when absent:
    on the wire ``null`` and absence read the same.
    """

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, kind: str, *, data: DataRef | None = ..., value: JsonValue | None = ..., metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.CUSTOM

    kind: str
    data: DataRef | None = field(default=None, kw_only=True)
    value: JsonValue | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def with_data(self, data: DataRef | None) -> CustomPart:
        """A copy with ``data`` set."""
        return replace(self, data=data)

    def with_value(self, value: JsonValue | None) -> CustomPart:
        """A copy with ``value`` set."""
        return replace(self, value=value)

    def to_dict(self) -> dict[str, Any]:
        data = self.data
        return {
            "Custom": {
                "kind": self.kind,
                "data": None if data is None else data.to_dict(),
                "value": C.copy_json(self.value),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> CustomPart:
        d = C.struct(v, "CustomPart", ("kind", "data", "value", "metadata"), depth)
        value, data = d.get("value"), d.get("data")
        return _make_custom(
            C.string(d.get("kind", C.MISSING), "kind"),
            None if data is None else C.field(d, "data", decode_data_ref, depth + 1),
            None if value is None else C.field(d, "value", C.json_value, depth + 1),
            metadata_field(d, depth),
        )


_make_custom = C.maker(CustomPart, "kind", "data", "value", "metadata")


#: Tag -> decoder of the variant's body.  :mod:`.tool` adds ToolCall and ToolResult.
PART_DECODERS: dict[str, Callable[[Any, int], Part]] = {
    "Text": TextPart._decode,
    "Media": MediaPart._decode,
    "File": FilePart._decode,
    "Structured": StructuredPart._decode,
    "Reasoning": ReasoningPart._decode,
    "Custom": CustomPart._decode,
}


def decode_part(v: object, depth: int) -> Part:
    """Decode a tagged part whose object sits at nesting level ``depth``."""
    return C.dispatch(v, depth, "Part", PART_DECODERS)
