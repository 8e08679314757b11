"""Tool value types: the call a model makes, the result it gets back, and that result's output.

Both are parts (:class:`ToolCallPart`, :class:`ToolResultPart`): tool traffic
lives in the transcript like any other content, not in a side channel.
Executing tools is not this package's business; describing them is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable

from . import _codec as C
from ._value import Value
from .content import PART_DECODERS, FilePart, Part, PartKind, decode_part
from .ids import ToolCallId
from .metadata import MetadataLike, EMPTY_METADATA, JsonValue, MetadataMap, metadata_field

__all__ = (
    "ToolCallPart",
    "ToolResultPart",
    "ToolOutput",
    "TextOutput",
    "StructuredOutput",
    "PartsOutput",
    "FilesOutput",
)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolCallPart(Part):
    """A request by the model to run the tool ``name`` with JSON ``input``.

    ``input`` is any JSON value (usually an object; ``None`` is JSON null).
    """

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, id: ToolCallId, name: str, input: JsonValue, *, metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.TOOL_CALL

    id: ToolCallId
    name: str
    input: JsonValue
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        md = self.metadata
        return {
            "ToolCall": {
                "id": self.id.value,
                "name": self.name,
                "input": C.copy_json(self.input),
                "metadata": md.to_dict() if md._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> ToolCallPart:
        d = C.struct(v, "ToolCallPart", ("id", "name", "input", "metadata"), depth)
        return _make_call(
            _make_call_id(C.string(d.get("id", C.MISSING), "id")),
            C.string(d.get("name", C.MISSING), "name"),
            C.field(d, "input", C.json_value, depth + 1),
            metadata_field(d, depth),
        )


_make_call = C.maker(ToolCallPart, "id", "name", "input", "metadata")
_make_call_id = C.maker(ToolCallId, "value")


# -- tool output -------------------------------------------------------------------


class ToolOutput(Value):
    """What a tool returned: text, structured JSON, content parts, or files.

    Variants: :class:`TextOutput`, :class:`StructuredOutput`,
    :class:`PartsOutput`, :class:`FilesOutput`.  On the wire:
    ``{"Text": "..."}``, ``{"Structured": <json>}``, ``{"Parts": [<part>...]}``,
    ``{"Files": [<bare FilePart struct>...]}``.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, Any]: ...

    @staticmethod
    def text(text: str) -> TextOutput:
        """Plain text output (a command's stdout, a file's contents)."""
        return TextOutput(text)

    @staticmethod
    def structured(value: JsonValue) -> StructuredOutput:
        """Machine-readable JSON output."""
        return StructuredOutput(value)

    @staticmethod
    def parts(parts: Iterable[Part]) -> PartsOutput:
        """Mixed content: text, images, files... as parts."""
        return PartsOutput(tuple(parts))

    @staticmethod
    def files(files: Iterable[FilePart]) -> FilesOutput:
        """File references."""
        return FilesOutput(tuple(files))

    @classmethod
    def from_dict(cls, v: object, /) -> ToolOutput:
        """Decode a tool output; raises :class:`NormalizeError`."""
        return C.variant(decode_tool_output(v, 1), cls)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TextOutput(ToolOutput):
    """Text output."""

    text: str = field()  # type: ignore[assignment]  # field(): not the inherited ToolOutput.text factory

    def to_dict(self) -> dict[str, Any]:
        return {"Text": self.text}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StructuredOutput(ToolOutput):
    """JSON output."""

    value: JsonValue

    def to_dict(self) -> dict[str, Any]:
        return {"Structured": C.copy_json(self.value)}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class PartsOutput(ToolOutput):
    """Output made of content parts."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, parts: Iterable[Part]) -> None: ...

    parts: tuple[Part, ...] = field()  # type: ignore[assignment]  # field(): not the inherited factory

    def __post_init__(self) -> None:
        if type(self.parts) is not tuple:
            object.__setattr__(self, "parts", tuple(self.parts))

    def to_dict(self) -> dict[str, Any]:
        return {"Parts": [p.to_dict() for p in self.parts]}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FilesOutput(ToolOutput):
    """Output made of files."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, files: Iterable[FilePart]) -> None: ...

    files: tuple[FilePart, ...] = field()  # type: ignore[assignment]  # field(): not the inherited factory

    def __post_init__(self) -> None:
        if type(self.files) is not tuple:
            object.__setattr__(self, "files", tuple(self.files))

    def to_dict(self) -> dict[str, Any]:
        return {"Files": [f.to_bare_dict() for f in self.files]}


_make_text_output = C.maker(TextOutput, "text")


def _text_output(v: Any, depth: int) -> ToolOutput:
    return _make_text_output(C.string(v, ""))


def _structured_output(v: Any, depth: int) -> ToolOutput:
    return StructuredOutput(C.json_value(v, depth))


def _parts_output(v: Any, depth: int) -> ToolOutput:
    return PartsOutput(C.items(v, depth, decode_part))


def _files_output(v: Any, depth: int) -> ToolOutput:
    return FilesOutput(C.items(v, depth, FilePart._decode))


_OUTPUT_DECODERS: dict[str, Callable[[Any, int], ToolOutput]] = {
    "Text": _text_output,
    "Structured": _structured_output,
    "Parts": _parts_output,
    "Files": _files_output,
}


def decode_tool_output(v: object, depth: int) -> ToolOutput:
    """Decode a tagged tool output whose object sits at nesting level ``depth``."""
    return C.dispatch(v, depth, "ToolOutput", _OUTPUT_DECODERS)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolResultPart(Part):
    """The output of the tool call ``call_id``; ``is_error`` when the tool failed."""

    if TYPE_CHECKING:  # the constructor takes any mapping or iterable; fields store MetadataMap and tuples

        def __init__(self, call_id: ToolCallId, output: ToolOutput, *, is_error: bool = ..., metadata: MetadataLike = ...) -> None: ...

    part_kind: ClassVar[PartKind] = PartKind.TOOL_RESULT

    call_id: ToolCallId
    output: ToolOutput
    is_error: bool = field(default=False, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    @classmethod
    def success(cls, call_id: ToolCallId, output: ToolOutput) -> ToolResultPart:
        """A successful result."""
        return cls(call_id, output)

    @classmethod
    def error(cls, call_id: ToolCallId, output: ToolOutput) -> ToolResultPart:
        """A failed result: ``output`` says what went wrong."""
        return cls(call_id, output, is_error=True)

    def with_is_error(self, is_error: bool) -> ToolResultPart:
        """A copy with ``is_error`` set."""
        return replace(self, is_error=is_error)

    def to_dict(self) -> dict[str, Any]:
        md = self.metadata
        return {
            "ToolResult": {
                "call_id": self.call_id.value,
                "output": self.output.to_dict(),
                "is_error": self.is_error,
                "metadata": md.to_dict() if md._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: Any, depth: int) -> ToolResultPart:
        d = C.struct(v, "ToolResultPart", ("call_id", "output", "is_error", "metadata"), depth)
        return _make_result(
            _make_call_id(C.string(d.get("call_id", C.MISSING), "call_id")),
            C.field(d, "output", decode_tool_output, depth + 1),
            C.boolean(d.get("is_error", C.MISSING), "is_error"),
            metadata_field(d, depth),
        )


_make_result = C.maker(ToolResultPart, "call_id", "output", "is_error", "metadata")


PART_DECODERS["ToolCall"] = ToolCallPart._decode
PART_DECODERS["ToolResult"] = ToolResultPart._decode
PART_DECODERS["Custom"] = PART_DECODERS.pop("Custom")  # the reference's order, which errors list
