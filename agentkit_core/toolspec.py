"""Declaring tools: what a model is told it may call, and how it must choose.

:class:`ToolSpec` and :class:`ToolAnnotations` speak the JSON of the Rust
``agentkit-tools-core`` crate (``ToolSpec``, ``ToolAnnotations``), so a tool
declared on either side reads on the other.  :class:`ToolChoice` has no
counterpart there; its wire form is this package's own.  Every provider module
writes them in its API's shape (``request_from_items(items, tools=...,
tool_choice=...)``) and reads them back (``tools_from_request``,
``tool_choice_from_request``); native fields with no neutral home ride in
``metadata`` under the provider's namespace.
"""

from __future__ import annotations

from dataclasses import field, replace

from . import _check as check, _codec as wire
from ._codec import MISSING
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, factory
from .error import NormalizeError
from .metadata import EMPTY_METADATA, JsonValue, MetadataLike, MetadataMap, as_metadata, metadata_field

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable, Literal

    ChoiceMode = Literal["auto", "none", "required", "tool"]

__all__ = ("ToolAnnotations", "ToolSpec", "ToolChoice")

_HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "needs_approval_hint", "supports_streaming_hint")
_SPEC_FIELDS = ("name", "description", "input_schema", "output_schema", "annotations", "metadata")
_CHOICE_FIELDS = ("mode", "name", "parallel", "metadata")
_MODES = ("auto", "none", "required", "tool")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ToolAnnotations(Value):
    """Advisory hints about how a tool behaves; all five are ``False`` unless set.

    They steer a host's UI and its permission policy (a policy may ask for
    approval before a ``destructive_hint`` tool runs); nothing enforces them,
    and providers are not told them.  On the wire all five are always written
    and required when read, as the reference does.
    """

    read_only_hint: bool = field(default=False, kw_only=True)
    destructive_hint: bool = field(default=False, kw_only=True)
    idempotent_hint: bool = field(default=False, kw_only=True)
    needs_approval_hint: bool = field(default=False, kw_only=True)
    supports_streaming_hint: bool = field(default=False, kw_only=True)

    def __init__(
        self,
        *,
        read_only_hint: bool = False,
        destructive_hint: bool = False,
        idempotent_hint: bool = False,
        needs_approval_hint: bool = False,
        supports_streaming_hint: bool = False,
    ) -> None:
        flags = (read_only_hint, destructive_hint, idempotent_hint, needs_approval_hint, supports_streaming_hint)
        _fill_annotations(self, *(check.boolean(v, "ToolAnnotations", name) for name, v in zip(_HINTS, flags)))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: the five hints by name, each ``True`` or ``False``."""
        return {name: getattr(self, name) for name in _HINTS}

    @classmethod
    def from_dict(cls, v: object, /) -> ToolAnnotations:
        """Decode annotations; raises :class:`NormalizeError` naming the bad field."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: object, depth: int) -> ToolAnnotations:
        d = wire.struct(v, "ToolAnnotations", _HINTS, depth)
        return _make_annotations(*(wire.boolean(d.get(name, MISSING), name) for name in _HINTS))


_fill_annotations = filler(ToolAnnotations, *_HINTS)
_make_annotations = unchecked_maker(ToolAnnotations, *_HINTS)
#: The annotations a spec has when none are given: every hint ``False``.
NO_ANNOTATIONS = ToolAnnotations()


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ToolSpec(Value):
    """A tool as a model is told of it: a name, what it does, and the JSON Schema of its input.

    ``ToolSpec(name, description, input_schema)`` mirrors the reference's
    ``ToolSpec::new``.  ``input_schema`` is any JSON value (a JSON Schema,
    usually an object; ``None`` is JSON null, which providers write as no
    schema at all).  ``output_schema`` is the shape the tool returns; no
    provider takes one, so it is not sent, and it is left out of the wire form
    when ``None``.  ``metadata`` holds framework extensions and, for a spec
    read from a provider request, the native fields with no neutral home
    (``openai.chat.strict``, ``anthropic.cache_control``, ...), which that
    provider's encoder writes back.  Schemas are checked and copied when made
    (see :class:`~agentkit_core.ToolCallPart`).
    """

    name: str
    description: str = ""
    input_schema: JsonValue = None
    output_schema: JsonValue = field(default=None, kw_only=True)
    annotations: ToolAnnotations = field(default=NO_ANNOTATIONS, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(
        self,
        name: str,
        description: str = "",
        input_schema: JsonValue = None,
        *,
        output_schema: JsonValue = None,
        annotations: ToolAnnotations = NO_ANNOTATIONS,
        metadata: MetadataLike = EMPTY_METADATA,
    ) -> None:
        md = as_metadata(metadata, "ToolSpec")
        if md is not EMPTY_METADATA:
            check.fits(1 + check.depth(md), "ToolSpec", "metadata")
        _fill_spec(
            self,
            check.string(name, "ToolSpec", "name"),
            check.string(description, "ToolSpec", "description"),
            check.payload(input_schema, "ToolSpec", "input_schema", 2)[0],
            check.payload(output_schema, "ToolSpec", "output_schema", 2)[0],
            check.instance(annotations, ToolAnnotations, "ToolSpec", "annotations", "a ToolAnnotations"),
            md,
        )

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations = NO_ANNOTATIONS,
        strict: bool = False,
    ) -> ToolSpec:
        """The spec of the Python function ``fn``: its name, its docstring, the JSON Schema of its parameters.

        The name is ``fn.__name__`` (or ``name``); the description the
        docstring's first paragraph (or ``description``); each parameter a
        property, described by the docstring's ``Args:`` section (Google
        style) or its ``:param name:`` fields, typed by its annotation as
        :func:`~agentkit_core.schema_of` writes types, required when it has no
        default (a JSON-able default is written).  ``*args``, ``**kwargs``,
        positional-only and unannotated parameters, and types ``schema_of``
        refuses, raise ``TypeError`` naming the parameter.  String annotations
        (``from __future__ import annotations``) are resolved with ``fn``'s
        module globals.  ``strict=True`` writes OpenAI's strict subset (see
        ``schema_of``).

        Used as a decorator (``@ToolSpec.from_function``), the name becomes
        the spec; to keep calling the function, call this on it instead and
        keep both (``spec = ToolSpec.from_function(get_weather)``).  The
        model's arguments come back as JSON data: ``fn(**call.input)`` for
        plain types, or :func:`~agentkit_core.parse_output` for a dataclass
        parameter.
        """
        from .schema import function_schema

        where = f"ToolSpec.from_function({getattr(fn, '__qualname__', type(fn).__name__)})"
        tool_name: Any = name if name is not None else getattr(fn, "__name__", None)
        if name is None and not (isinstance(tool_name, str) and tool_name.isidentifier()):
            raise TypeError(f"{where}: {tool_name!r} is no tool name: pass name=")
        schema = function_schema(fn, where, strict)
        if description is None:
            from ._docstring import first_paragraph

            description = first_paragraph(getattr(fn, "__doc__", None))
        return cls(tool_name, description, schema, annotations=annotations)

    def with_output_schema(self, schema: JsonValue) -> ToolSpec:
        """A copy declaring the JSON shape the tool returns (``None``: none)."""
        return replace(self, output_schema=schema)

    def with_annotations(self, annotations: ToolAnnotations) -> ToolSpec:
        """A copy with ``annotations`` instead."""
        return replace(self, annotations=annotations)

    def with_metadata(self, metadata: MetadataLike) -> ToolSpec:
        """A copy whose metadata is ``metadata`` (replaced)."""
        return replace(self, metadata=metadata)  # type: ignore[arg-type]  # __init__ converts

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: name, description, input schema (and output schema if set), annotations, metadata; JSON copied."""
        d: dict[str, JsonValue] = {"name": self.name, "description": self.description, "input_schema": wire.copy_json(self.input_schema)}
        if self.output_schema is not None:
            d["output_schema"] = wire.copy_json(self.output_schema)
        d["annotations"] = self.annotations.to_dict()
        d["metadata"] = self.metadata.to_dict()
        return d

    @classmethod
    def from_dict(cls, v: object, /) -> ToolSpec:
        """Decode a tool spec (the reference's JSON); raises :class:`NormalizeError` naming the bad field."""
        d = wire.struct(v, "ToolSpec", _SPEC_FIELDS, 1)
        name = wire.string(d.get("name", MISSING), "name")
        description = wire.string(d.get("description", MISSING), "description")
        input_schema = _schema(d.get("input_schema", MISSING), "input_schema")
        output = d.get("output_schema")
        output_schema = None if output is None else _schema(output, "output_schema")
        annotations = wire.field(d, "annotations", ToolAnnotations._decode, 2)
        return _make_spec(name, description, input_schema, output_schema, annotations, metadata_field(d, 1))


def _schema(v: object, key: str) -> JsonValue:
    if v is MISSING:
        wire.fail("missing field", key)
    try:
        return wire.json_value(v, 2)
    except NormalizeError as exc:
        raise exc.under(key) from None


_fill_spec = filler(ToolSpec, *_SPEC_FIELDS)
_make_spec = unchecked_maker(ToolSpec, *_SPEC_FIELDS)


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ToolChoice(Value):
    """How the model must use the tools it is given, and whether it may call several at once.

    ``mode`` is ``"auto"`` (the model decides), ``"none"`` (no tool),
    ``"required"`` (at least one tool, any) or ``"tool"`` (the tool ``name``,
    which only this mode has).  ``parallel`` is ``False`` to allow one call
    per turn at most, ``True`` to allow several, ``None`` for the provider's
    default.  Make one with the factories: ``ToolChoice.auto()``,
    ``ToolChoice.none()``, ``ToolChoice.required()``,
    ``ToolChoice.tool("get_weather")``.  ``metadata`` carries native settings
    with no neutral home (Gemini's ``VALIDATED`` mode, say).

    Wire form (this package's own; the reference has none):
    ``{"mode": "tool", "name": "get_weather", "parallel": null, "metadata": {}}``.
    """

    mode: ChoiceMode
    name: str | None = None
    parallel: bool | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, mode: ChoiceMode, name: str | None = None, *, parallel: bool | None = None, metadata: MetadataLike = EMPTY_METADATA) -> None:
        if mode not in _MODES or type(mode) is not str:
            if not isinstance(mode, str):
                raise check.wrong_type("ToolChoice", "mode", "a string", mode)
            raise check.refused("ToolChoice", "mode", f"unknown mode {mode!r}, expected one of {', '.join(_MODES)}")
        name = check.opt_string(name, "ToolChoice", "name")
        if (name is None) != (mode != "tool"):
            message = "the mode 'tool' needs the tool's name" if name is None else f"only the mode 'tool' names a tool, not {mode!r}"
            raise check.refused("ToolChoice", "name", message)
        if parallel is not None:
            parallel = check.boolean(parallel, "ToolChoice", "parallel")
        md = as_metadata(metadata, "ToolChoice")
        if md is not EMPTY_METADATA:
            check.fits(1 + check.depth(md), "ToolChoice", "metadata")
        _fill_choice(self, mode, name, parallel, md)

    @factory
    def auto(*, parallel: bool | None = None) -> ToolChoice:
        """The model decides whether to call a tool (every provider's default when tools are given)."""
        return ToolChoice("auto", parallel=parallel)

    @factory
    def none() -> ToolChoice:
        """The model calls no tool, though tools are declared."""
        return ToolChoice("none")

    @factory
    def required(*, parallel: bool | None = None) -> ToolChoice:
        """The model must call at least one tool, whichever it picks."""
        return ToolChoice("required", parallel=parallel)

    @factory
    def tool(name: str, *, parallel: bool | None = None) -> ToolChoice:
        """The model must call the tool ``name``."""
        return ToolChoice("tool", name, parallel=parallel)

    def with_parallel(self, parallel: bool | None) -> ToolChoice:
        """A copy with ``parallel`` set."""
        return replace(self, parallel=parallel)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"mode": ..., "name": ..., "parallel": ..., "metadata": {...}}``."""
        return {"mode": self.mode, "name": self.name, "parallel": self.parallel, "metadata": self.metadata.to_dict()}

    @classmethod
    def from_dict(cls, v: object, /) -> ToolChoice:
        """Decode a tool choice; raises :class:`NormalizeError` naming the bad field."""
        d = wire.struct(v, "ToolChoice", _CHOICE_FIELDS, 1)
        mode = wire.string(d.get("mode", MISSING), "mode")
        if mode not in _MODES:
            wire.fail(f"unknown variant {mode!r}, expected one of {', '.join(_MODES)}", "mode")
        name = wire.opt_string(d.get("name"), "name")
        if (name is None) != (mode != "tool"):
            wire.fail("the mode 'tool' needs the tool's name" if name is None else f"only the mode 'tool' names a tool, not {mode!r}", "name")
        parallel = d.get("parallel")
        if parallel is not None:
            parallel = wire.boolean(parallel, "parallel")
        return _make_choice(mode, name, parallel, metadata_field(d, 1))


_fill_choice = filler(ToolChoice, *_CHOICE_FIELDS)
_make_choice = unchecked_maker(ToolChoice, *_CHOICE_FIELDS)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
