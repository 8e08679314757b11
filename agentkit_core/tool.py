"""Tool traffic: the call a model makes, the result it gets back, and that result's output.

Read in three sections:

* the two tool variants of the :class:`Part` family, :class:`ToolCallPart` and
  :class:`ToolResultPart` (the other six are in :mod:`.content`): tool traffic
  lives in the transcript like any other content, not in a side channel;
* the :class:`ToolOutput` family, what a result carries: :class:`TextOutput`,
  :class:`StructuredOutput`, :class:`PartsOutput`, :class:`FilesOutput`, with
  their decoders and ``decode_tool_output``;
* the Part registry, written once here because this is the one module that
  sees all eight part variants: ``PART_VARIANTS`` in the reference's order,
  and ``PART_TYPES`` and ``content.PART_DECODERS`` made from it.  Parts hold
  outputs and outputs hold parts, so the registry and both families meet here.

Executing tools is not this package's business; describing them is.
"""

from __future__ import annotations

from dataclasses import field, replace

from . import _check as check, _codec as wire
from ._codec import MAX_DEPTH, MISSING
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, factory, not_constructible
from .content import (
    PART_DECODERS,
    CustomPart,
    FilePart,
    MediaPart,
    Part,
    PartKind,
    ReasoningPart,
    StructuredPart,
    TextPart,
)
from .error import NormalizeError
from .ids import ToolCallId
from .keys import INVENTED_ID_KEY, TOOL_NAME_KEY
from .metadata import EMPTY_METADATA, JsonValue, MetadataLike, MetadataMap, as_metadata, metadata_field

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, Iterable

__all__ = (
    "ToolCallPart",
    "ToolResultPart",
    "ToolOutput",
    "TextOutput",
    "StructuredOutput",
    "PartsOutput",
    "FilesOutput",
)


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ToolCallPart(Part):
    """A request by the model to run the tool ``name`` with JSON ``input``.

    ``input`` is any JSON value (usually an object; ``None`` is JSON null).
    The constructor checks it and keeps a copy, which nothing else holds: a
    change to the dict you passed in does not reach the part.  Treat the
    copy, ``part.input``, as read-only too; ``to_dict()`` hands out copies.
    """

    part_kind = PartKind.TOOL_CALL

    id: ToolCallId
    name: str
    input: JsonValue
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, id: ToolCallId, name: str, input: JsonValue, *, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "ToolCallPart")
        if type(id) is not ToolCallId:
            id = check.ident(id, ToolCallId, "ToolCallPart", "id")
        input, input_depth = check.payload(input, "ToolCallPart", "input", check.PAYLOAD_LEVEL)
        _fill_call(self, id, check.string(name, "ToolCallPart", "name"), input, md, check.part_depth("ToolCallPart", md, input_depth))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"ToolCall": {"id": ..., "name": ..., "input": ..., "metadata": ...}}``, the input copied."""
        md = self.metadata
        input = self.input
        if type(input) is dict or type(input) is list:
            try:  # the part's wire depth, as check.depth(self) gives it, without the call
                depth = self._depth
            except AttributeError:
                depth = self._measure()
            # {"ToolCall": {"input": {...}}} three deep holds no container in input: one C-level copy.
            input = input.copy() if depth <= check.PAYLOAD_LEVEL else wire.copy_json(input)
        return {
            "ToolCall": {
                "id": self.id.value,
                "name": self.name,
                "input": input,
                "metadata": md.to_dict() if md._data else {},
            }
        }

    @classmethod
    def _decode(cls, v: object, depth: int) -> ToolCallPart:
        # The common case of each field is settled here, anything else by the rule in _codec.
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "ToolCallPart", ("id", "name", "input", "metadata"), depth)
        id = d.get("id", MISSING)
        id = id if type(id) is str and id.isascii() else wire.string(id, "id")
        name = d.get("name", MISSING)
        name = name if type(name) is str and name.isascii() else wire.string(name, "name")
        input = d.get("input", MISSING)
        try:
            input = wire.json_object(input, depth + 1) if type(input) is dict and depth < MAX_DEPTH else wire.json_value(input, depth + 1)
        except NormalizeError as exc:
            raise exc.under("input") from None
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_call(_make_call_id(id), name, input, md)


_make_call = unchecked_maker(ToolCallPart, "id", "name", "input", "metadata")
_make_call_id = unchecked_maker(ToolCallId, "value")
_fill_call = filler(ToolCallPart, "id", "name", "input", "metadata", "_depth")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ToolResultPart(Part):
    """The output of the tool call ``call_id``; ``is_error`` when the tool failed."""

    part_kind = PartKind.TOOL_RESULT

    call_id: ToolCallId
    output: ToolOutput
    is_error: bool = field(default=False, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, call_id: ToolCallId, output: ToolOutput, *, is_error: bool = False, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "ToolResultPart")
        if type(call_id) is not ToolCallId:
            call_id = check.ident(call_id, ToolCallId, "ToolResultPart", "call_id")
        output = check.instance(output, OUTPUTS, "ToolResultPart", "output", "a ToolOutput")
        output_depth = check.depth(output)
        check.fits(2 + output_depth, "ToolResultPart", "output")
        depth = check.part_depth("ToolResultPart", md, output_depth)
        _fill_result(self, call_id, output, check.boolean(is_error, "ToolResultPart", "is_error"), md, depth)

    @factory
    def success(call_id: ToolCallId, output: ToolOutput) -> ToolResultPart:
        """A successful result."""
        return ToolResultPart(call_id, output)

    @factory
    def error(call_id: ToolCallId, output: ToolOutput) -> ToolResultPart:
        """A failed result: ``output`` says what went wrong."""
        return ToolResultPart(call_id, output, is_error=True)

    @factory
    def failure(call: ToolCallPart, message: str) -> ToolResultPart:
        """The error result of ``call``: ``is_error``, the text ``message``, and the call's tool name.

        For a call that was cancelled, refused or failed before the tool
        answered.  The name goes in ``agentkit.tool_name``, for the providers
        that match results by name (Gemini); an id the adapter invented for
        the call (``agentkit.invented_id``) is marked so on the result too.
        """
        call = check.instance(call, ToolCallPart, "ToolResultPart.failure", "call", "a ToolCallPart")
        metadata: dict[str, JsonValue] = {TOOL_NAME_KEY: call.name}
        if call.metadata.get(INVENTED_ID_KEY) is True:
            metadata[INVENTED_ID_KEY] = True
        return ToolResultPart(call.id, TextOutput(message), is_error=True, metadata=metadata)

    def with_is_error(self, is_error: bool) -> ToolResultPart:
        """A copy with ``is_error`` set."""
        return replace(self, is_error=is_error)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"ToolResult": {"call_id": ..., "output": ..., "is_error": ..., "metadata": ...}}``."""
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
    def _decode(cls, v: object, depth: int) -> ToolResultPart:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "ToolResultPart", ("call_id", "output", "is_error", "metadata"), depth)
        call_id = d.get("call_id", MISSING)
        call_id = call_id if type(call_id) is str and call_id.isascii() else wire.string(call_id, "call_id")
        try:
            output = decode_tool_output(d.get("output", MISSING), depth + 1)
        except NormalizeError as exc:
            raise exc.under("output") from None
        is_error = d.get("is_error", MISSING)
        if is_error is not False and is_error is not True:
            is_error = wire.boolean(is_error, "is_error")
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_result(_make_call_id(call_id), output, is_error, md)


_make_result = unchecked_maker(ToolResultPart, "call_id", "output", "is_error", "metadata")
_fill_result = filler(ToolResultPart, "call_id", "output", "is_error", "metadata", "_depth")


# -- the tool output family ----------------------------------------------------------


class ToolOutput(Value):
    """What a tool returned: text, structured JSON, content parts, or files.

    Variants: :class:`TextOutput`, :class:`StructuredOutput`,
    :class:`PartsOutput`, :class:`FilesOutput`.  On the wire:
    ``{"Text": "..."}``, ``{"Structured": <json>}``, ``{"Parts": [<part>...]}``,
    ``{"Files": [<bare FilePart struct>...]}``.  The factories belong to the
    class (``ToolOutput.text("ok")``); an instance refuses them.
    """

    __slots__ = ("_depth",)

    _depth: int  # how deep to_dict() nests; measured on first use when a decoder built the output

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, JsonValue]: ...

        def _measure(self) -> int: ...

    else:
        __init__ = not_constructible("ToolOutput", "TextOutput, StructuredOutput, PartsOutput or FilesOutput, or use ToolOutput.text(...) and friends")

    @factory
    def text(text: str) -> TextOutput:
        """Plain text output (a command's stdout, a file's contents)."""
        return TextOutput(text)

    @factory
    def structured(value: JsonValue) -> StructuredOutput:
        """Machine-readable JSON output."""
        return StructuredOutput(value)

    @factory
    def parts(parts: Iterable[Part]) -> PartsOutput:
        """Mixed content: text, images, files... as parts."""
        return PartsOutput(parts)

    @factory
    def files(files: Iterable[FilePart]) -> FilesOutput:
        """File references."""
        return FilesOutput(files)

    @classmethod
    def from_dict(cls, v: object, /) -> ToolOutput:
        """Decode a tool output; raises :class:`NormalizeError`."""
        return wire.variant(decode_tool_output(v, 1), cls)


_set_output_depth = filler(ToolOutput, "_depth")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class TextOutput(ToolOutput):
    """Text output."""

    text: str = field()  # type: ignore[assignment]  # field(): not the inherited ToolOutput.text factory

    def __init__(self, text: str) -> None:
        _fill_text_output(self, check.string(text, "TextOutput", "text"), 1)

    def _measure(self) -> int:
        return 1

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Text": "..."}``."""
        return {"Text": self.text}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class StructuredOutput(ToolOutput):
    """JSON output, checked and copied when made (see :class:`ToolCallPart`)."""

    value: JsonValue

    def __init__(self, value: JsonValue) -> None:
        value, depth = check.payload(value, "StructuredOutput", "value", 2)
        _fill_structured_output(self, value, 1 + depth)

    def _measure(self) -> int:
        depth = 1 + check.json_depth(self.value)
        _set_output_depth(self, depth)
        return depth

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Structured": ...}``, the JSON copied."""
        return {"Structured": wire.copy_json(self.value)}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class PartsOutput(ToolOutput):
    """Output made of content parts; the constructor takes any iterable of parts and keeps a tuple."""

    parts: tuple[Part, ...] = field()  # type: ignore[assignment]  # field(): not the inherited factory

    def __init__(self, parts: Iterable[Part]) -> None:
        checked, deepest = check.members(parts, PART_TYPES, "PartsOutput", "parts", "Part")
        _fill_parts_output(self, checked, check.sequence_depth(checked, deepest, 2, "PartsOutput", "parts"))

    def _measure(self) -> int:
        depth = 2 + max(map(check.depth, self.parts), default=0)
        _set_output_depth(self, depth)
        return depth

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Parts": [...]}``, each part in its own wire form."""
        return {"Parts": [p.to_dict() for p in self.parts]}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class FilesOutput(ToolOutput):
    """Output made of files; the constructor takes any iterable of file parts and keeps a tuple."""

    files: tuple[FilePart, ...] = field()  # type: ignore[assignment]  # field(): not the inherited factory

    def __init__(self, files: Iterable[FilePart]) -> None:
        checked, deepest = check.members(files, _FILE_TYPES, "FilesOutput", "files", "FilePart")
        # Files are written untagged, one level shallower than a FilePart.
        _fill_files_output(self, checked, check.sequence_depth(checked, deepest, 1, "FilesOutput", "files"))

    def _measure(self) -> int:
        depth = max(2, 1 + max(map(check.depth, self.files), default=0))
        _set_output_depth(self, depth)
        return depth

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Files": [...]}``, each file as its untagged struct."""
        return {"Files": [f.to_bare_dict() for f in self.files]}


_fill_text_output = filler(TextOutput, "text", "_depth")
_fill_structured_output = filler(StructuredOutput, "value", "_depth")
_fill_parts_output = filler(PartsOutput, "parts", "_depth")
_fill_files_output = filler(FilesOutput, "files", "_depth")

_make_text_output = unchecked_maker(TextOutput, "text")


def _text_output(v: object, depth: int) -> ToolOutput:
    return _make_text_output(v if type(v) is str and v.isascii() else wire.string(v, ""))


def _structured_output(v: object, depth: int) -> ToolOutput:
    return _make_structured_output(wire.json_value(v, depth))


def _parts_output(v: object, depth: int) -> ToolOutput:
    return _make_parts_output(wire.variants(v, depth, "Part", PART_DECODERS))


def _files_output(v: object, depth: int) -> ToolOutput:
    return _make_files_output(wire.items(v, depth, FilePart._decode))


_make_structured_output = unchecked_maker(StructuredOutput, "value")
_make_parts_output = unchecked_maker(PartsOutput, "parts")
_make_files_output = unchecked_maker(FilesOutput, "files")

#: The tool output variants, for checking a field that holds one.
OUTPUTS = (TextOutput, StructuredOutput, PartsOutput, FilesOutput)
_FILE_TYPES = frozenset((FilePart,))


_OUTPUT_DECODERS: dict[str, Callable[[object, int], ToolOutput]] = {
    "Text": _text_output,
    "Structured": _structured_output,
    "Parts": _parts_output,
    "Files": _files_output,
}


#: ``decode_tool_output(v, depth)``: decode a tagged tool output whose object sits at nesting level ``depth``.
decode_tool_output = wire.dispatcher("ToolOutput", _OUTPUT_DECODERS)


# -- the Part registry -------------------------------------------------------------

#: The eight part variants, in the reference's order (which errors listing the tags follow).
PART_VARIANTS = (TextPart, MediaPart, FilePart, StructuredPart, ReasoningPart, ToolCallPart, ToolResultPart, CustomPart)
#: The same, as a set, for checking fields that hold parts.
PART_TYPES = frozenset(PART_VARIANTS)
# content.PART_DECODERS (tag -> decoder of the variant's body) is declared there, for Part.from_dict
# and decode_part, and filled here, the one place that sees every variant.
PART_DECODERS.update({variant.part_kind._value_: variant._decode for variant in PART_VARIANTS})


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
