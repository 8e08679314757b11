"""Durable content: the :class:`Part` family.

A part is one coherent unit of content; its data, when it has some, is a
:class:`~.data.DataRef`.  :class:`Part` is the base class of eight frozen
variants, so ``isinstance``, ``match`` and type checkers all work::

    match part:
        case TextPart(text=text): ...
        case ToolCallPart(id=call_id, name=name, input=args): ...

Their wire form is the reference's externally tagged enum:
``{"Text": {"text": "hi", "metadata": {}}}``.  The eight, in the reference's
order: ``TextPart``, ``MediaPart``, ``FilePart``, ``StructuredPart``,
``ReasoningPart`` (here), ``ToolCallPart``, ``ToolResultPart`` (in
:mod:`.tool`, beside the output a result carries) and ``CustomPart`` (here).
:mod:`.tool` imports this module, so it is the one that sees all eight: the
list of variants, and the registry made from it, are written there.
"""

from __future__ import annotations

from dataclasses import field, replace

from . import _check as check, _codec as wire
from ._codec import MAX_DEPTH, MISSING
from ._enum import WireEnum, decode_enum
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, factory, field_values, not_constructible
from .data import DATA_REFS, DataRef, decode_data_ref
from .error import NormalizeError
from .metadata import EMPTY_METADATA, JsonValue, MetadataLike, MetadataMap, as_metadata, metadata_field

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, ClassVar, Mapping, TypeVar

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

if TYPE_CHECKING:
    P = TypeVar("P", bound="Part")


class Modality(WireEnum):
    """What kind of media a :class:`MediaPart` holds."""

    AUDIO = "Audio"
    IMAGE = "Image"
    VIDEO = "Video"
    BINARY = "Binary"


class PartKind(WireEnum):
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
    ``Part::text`` and friends; they belong to the class (``Part.text("hi")``),
    and an instance refuses them with ``AttributeError``.
    """

    __slots__ = ("_depth",)

    part_kind: ClassVar[PartKind]
    _depth: int  # how deep to_dict() nests; measured on first use when a decoder built the part
    if TYPE_CHECKING:
        metadata: MetadataMap

        def to_dict(self) -> dict[str, JsonValue]: ...

        @classmethod
        def _decode(cls, v: object, depth: int) -> Part: ...

    else:
        __init__ = not_constructible("Part", "TextPart, MediaPart, ..., or use Part.text(...) and friends")

    @factory
    def text(text: str) -> TextPart:
        """A :class:`TextPart`."""
        return TextPart(text)

    @factory
    def media(modality: Modality, mime_type: str, data: DataRef) -> MediaPart:
        """A :class:`MediaPart`."""
        return MediaPart(modality, mime_type, data)

    @factory
    def file(data: DataRef) -> FilePart:
        """A :class:`FilePart` with neither name nor MIME type."""
        return FilePart(data)

    @factory
    def structured(value: JsonValue) -> StructuredPart:
        """A :class:`StructuredPart` without schema."""
        return StructuredPart(value)

    @factory
    def reasoning(summary: str) -> ReasoningPart:
        """A :class:`ReasoningPart` holding a readable summary."""
        return ReasoningPart(summary)

    def with_metadata(self: P, metadata: Mapping[str, JsonValue]) -> P:
        """A copy whose metadata is ``metadata`` (replaced, as in the reference)."""
        return replace(self, metadata=metadata)  # type: ignore[type-var]

    def _measure(self) -> int:
        """The depth of :meth:`to_dict`, for a part a decoder built; kept for next time.

        Every variant's wire form is ``{"Tag": {field: ...}}``: two levels above its deepest field.
        """
        depth = 2 + max(map(check.layers, field_values(self)))
        _set_depth(self, depth)
        return depth

    @classmethod
    def from_dict(cls, v: object, /) -> Part:
        """Decode a part from its tagged wire form; raises :class:`NormalizeError`.

        Called on a variant (``TextPart.from_dict``) it also checks the variant.
        """
        return wire.variant(decode_part(v, 1), cls)


_set_depth = filler(Part, "_depth")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class TextPart(Part):
    """Plain user-visible text."""

    part_kind = PartKind.TEXT

    # Declared with field() so the inherited factory Part.text is not taken as a default.
    text: str = field()  # type: ignore[assignment]  # the field shadows the factory on purpose
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, text: str, *, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "TextPart")
        _fill_text(self, check.string(text, "TextPart", "text"), md, check.part_depth("TextPart", md))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Text": {"text": ..., "metadata": {...}}}``."""
        md = self.metadata
        return {"Text": {"text": self.text, "metadata": md.to_dict() if md._data else {}}}

    @classmethod
    def _decode(cls, v: object, depth: int) -> TextPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "TextPart", ("text", "metadata"), depth)
        text = d.get("text", MISSING)
        text = text if type(text) is str and text.isascii() else wire.string(text, "text")
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_text(text, md)


_make_text = unchecked_maker(TextPart, "text", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class MediaPart(Part):
    """Modality-tagged media: audio, image, video, or other binary media."""

    part_kind = PartKind.MEDIA

    modality: Modality
    mime_type: str
    data: DataRef
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, modality: Modality, mime_type: str, data: DataRef, *, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "MediaPart")
        data = check.instance(data, DATA_REFS, "MediaPart", "data", "a DataRef")
        modality = modality if type(modality) is Modality else check.member(modality, Modality, "MediaPart", "modality")
        _fill_media(self, modality, check.string(mime_type, "MediaPart", "mime_type"), data, md, check.part_depth("MediaPart", md, data._depth))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Media": {"modality": ..., "mime_type": ..., "data": ..., "metadata": ...}}``."""
        return {
            "Media": {
                "modality": self.modality._value_,
                "mime_type": self.mime_type,
                "data": self.data.to_dict(),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: object, depth: int) -> MediaPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "MediaPart", ("modality", "mime_type", "data", "metadata"), depth)
        modality = decode_enum(Modality, d.get("modality", MISSING), "modality")
        mime_type = d.get("mime_type", MISSING)
        mime_type = mime_type if type(mime_type) is str and mime_type.isascii() else wire.string(mime_type, "mime_type")
        data = wire.field(d, "data", decode_data_ref, depth + 1)
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_media(modality, mime_type, data, md)


_make_media = unchecked_maker(MediaPart, "modality", "mime_type", "data", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class FilePart(Part):
    """A file: an upload, a generated artifact, a local or remote file reference."""

    part_kind = PartKind.FILE

    data: DataRef
    name: str | None = field(default=None, kw_only=True)
    mime_type: str | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, data: DataRef, *, name: str | None = None, mime_type: str | None = None, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "FilePart")
        data = check.instance(data, DATA_REFS, "FilePart", "data", "a DataRef")
        name, mime_type = check.opt_string(name, "FilePart", "name"), check.opt_string(mime_type, "FilePart", "mime_type")
        _fill_file(self, data, name, mime_type, md, check.part_depth("FilePart", md, data._depth))

    @factory
    def named(name: str, data: DataRef) -> FilePart:
        """A file with a name."""
        return FilePart(data, name=name)

    def with_name(self, name: str | None) -> FilePart:
        """A copy with ``name`` set."""
        return replace(self, name=name)

    def with_mime_type(self, mime_type: str | None) -> FilePart:
        """A copy with ``mime_type`` set."""
        return replace(self, mime_type=mime_type)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"File": {...}}``, the struct of :meth:`to_bare_dict` tagged."""
        return {"File": self.to_bare_dict()}

    def to_bare_dict(self) -> dict[str, JsonValue]:
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
    def _decode(cls, v: object, depth: int) -> FilePart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "FilePart", ("name", "mime_type", "data", "metadata"), depth)
        return _make_file(
            wire.field(d, "data", decode_data_ref, depth + 1),
            wire.opt_string(d.get("name"), "name"),
            wire.opt_string(d.get("mime_type"), "mime_type"),
            metadata_field(d, depth),
        )


_make_file = unchecked_maker(FilePart, "data", "name", "mime_type", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class StructuredPart(Part):
    """A machine-readable JSON payload, optionally with the JSON Schema it follows.

    ``value`` may be any JSON value, ``None`` (JSON null) included; ``schema``
    is ``None`` when there is none.  Both are checked and copied when the part
    is made (see :class:`ToolCallPart`).
    """

    part_kind = PartKind.STRUCTURED

    value: JsonValue
    schema: JsonValue | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, value: JsonValue, *, schema: JsonValue | None = None, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "StructuredPart")
        value, value_depth = check.payload(value, "StructuredPart", "value", check.PAYLOAD_LEVEL)
        schema, schema_depth = check.payload(schema, "StructuredPart", "schema", check.PAYLOAD_LEVEL)
        _fill_structured(self, value, schema, md, check.part_depth("StructuredPart", md, value_depth, schema_depth))

    def with_schema(self, schema: JsonValue | None) -> StructuredPart:
        """A copy with ``schema`` set."""
        return replace(self, schema=schema)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Structured": {"value": ..., "schema": ..., "metadata": ...}}``, the JSON copied."""
        schema = self.schema
        return {
            "Structured": {
                "value": wire.copy_json(self.value),
                "schema": None if schema is None else wire.copy_json(schema),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: object, depth: int) -> StructuredPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "StructuredPart", ("value", "schema", "metadata"), depth)
        inner = depth + 1
        schema = d.get("schema")
        return _make_structured(
            wire.field(d, "value", wire.json_value, inner),
            None if schema is None else wire.field(d, "schema", wire.json_value, inner),
            metadata_field(d, depth),
        )


_make_structured = unchecked_maker(StructuredPart, "value", "schema", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ReasoningPart(Part):
    """Reasoning the provider supplied: a readable summary, opaque data, or both.

    ``redacted`` marks reasoning whose content is hidden (the data may still be
    echoed back to the provider).  The reference's ``ReasoningPart::summary(text)``
    factory is :meth:`from_summary` here, since ``summary`` is the field.
    """

    part_kind = PartKind.REASONING

    summary: str | None = None
    data: DataRef | None = field(default=None, kw_only=True)
    redacted: bool = field(default=False, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, summary: str | None = None, *, data: DataRef | None = None, redacted: bool = False, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "ReasoningPart")
        if data is not None:
            data = check.instance(data, DATA_REFS, "ReasoningPart", "data", "a DataRef or None")
        summary, redacted = check.opt_string(summary, "ReasoningPart", "summary"), check.boolean(redacted, "ReasoningPart", "redacted")
        _fill_reasoning(self, summary, data, redacted, md, check.part_depth("ReasoningPart", md, 0 if data is None else data._depth))

    @factory
    def from_summary(text: str) -> ReasoningPart:
        """Readable reasoning (the reference's ``ReasoningPart::summary``)."""
        return ReasoningPart(text)

    @factory
    def redacted_summary(text: str) -> ReasoningPart:
        """A summary of reasoning whose content is redacted."""
        return ReasoningPart(text, redacted=True)

    def with_data(self, data: DataRef | None) -> ReasoningPart:
        """A copy with ``data`` set."""
        return replace(self, data=data)

    def with_redacted(self, redacted: bool) -> ReasoningPart:
        """A copy with ``redacted`` set."""
        return replace(self, redacted=redacted)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Reasoning": {"summary": ..., "data": ..., "redacted": ..., "metadata": ...}}``."""
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
    def _decode(cls, v: object, depth: int) -> ReasoningPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "ReasoningPart", ("summary", "data", "redacted", "metadata"), depth)
        summary = d.get("summary")
        if summary is not None and (type(summary) is not str or not summary.isascii()):
            summary = wire.opt_string(summary, "summary")
        data = d.get("data")
        if data is not None:
            try:
                data = decode_data_ref(data, depth + 1)
            except NormalizeError as exc:
                raise exc.under("data") from None
        redacted = d.get("redacted", MISSING)
        if redacted is not False and redacted is not True:
            redacted = wire.boolean(redacted, "redacted")
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_reasoning(summary, data, redacted, md)


_make_reasoning = unchecked_maker(ReasoningPart, "summary", "data", "redacted", "metadata")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class CustomPart(Part):
    """The escape hatch for provider content with no first-class part yet.

    ``kind`` names it, conventionally namespaced (``"anthropic.server_tool_use"``);
    ``data`` and ``value`` carry its payload.  ``value`` is ``None`` when absent:
    on the wire ``null`` and absence read the same.
    """

    part_kind = PartKind.CUSTOM

    kind: str
    data: DataRef | None = field(default=None, kw_only=True)
    value: JsonValue | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, kind: str, *, data: DataRef | None = None, value: JsonValue | None = None, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "CustomPart")
        if data is not None:
            data = check.instance(data, DATA_REFS, "CustomPart", "data", "a DataRef or None")
        value, value_depth = check.payload(value, "CustomPart", "value", check.PAYLOAD_LEVEL)
        depth = check.part_depth("CustomPart", md, 0 if data is None else data._depth, value_depth)
        _fill_custom(self, check.string(kind, "CustomPart", "kind"), data, value, md, depth)

    def with_data(self, data: DataRef | None) -> CustomPart:
        """A copy with ``data`` set."""
        return replace(self, data=data)

    def with_value(self, value: JsonValue | None) -> CustomPart:
        """A copy with ``value`` set."""
        return replace(self, value=value)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Custom": {"kind": ..., "data": ..., "value": ..., "metadata": ...}}``, the JSON copied."""
        data = self.data
        return {
            "Custom": {
                "kind": self.kind,
                "data": None if data is None else data.to_dict(),
                "value": wire.copy_json(self.value),
                "metadata": self.metadata.to_dict() if self.metadata._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: object, depth: int) -> CustomPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "CustomPart", ("kind", "data", "value", "metadata"), depth)
        value, data = d.get("value"), d.get("data")
        return _make_custom(
            wire.string(d.get("kind", MISSING), "kind"),
            None if data is None else wire.field(d, "data", decode_data_ref, depth + 1),
            None if value is None else wire.field(d, "value", wire.json_value, depth + 1),
            metadata_field(d, depth),
        )


_make_custom = unchecked_maker(CustomPart, "kind", "data", "value", "metadata")


_fill_text = filler(TextPart, "text", "metadata", "_depth")
_fill_media = filler(MediaPart, "modality", "mime_type", "data", "metadata", "_depth")
_fill_file = filler(FilePart, "data", "name", "mime_type", "metadata", "_depth")
_fill_structured = filler(StructuredPart, "value", "schema", "metadata", "_depth")
_fill_reasoning = filler(ReasoningPart, "summary", "data", "redacted", "metadata", "_depth")
_fill_custom = filler(CustomPart, "kind", "data", "value", "metadata", "_depth")


#: Tag -> decoder of the variant's body (``decoder(body, depth)``), for all eight variants: empty
#: here, filled by :mod:`.tool` from its ``PART_VARIANTS``, in the reference's order.
PART_DECODERS: dict[str, Callable[[object, int], Part]] = {}

#: ``decode_part(v, depth)``: decode a tagged part whose object sits at nesting level ``depth``.
decode_part = wire.dispatcher("Part", PART_DECODERS)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
