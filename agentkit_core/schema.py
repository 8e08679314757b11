"""Python types as JSON Schema, and JSON answers checked against a type and built into it.

:func:`schema_of` writes the JSON Schema (Draft 2020-12) of a type, for
``ModelSettings(output_schema=...)`` or a tool's input; :func:`parse_output`
reads a model's JSON answer back as that type (dataclass instances, enums,
tuples...), a mismatch a :class:`~agentkit_core.NormalizeError` naming the
path (``items[1].qty``).  :meth:`ToolSpec.from_function
<agentkit_core.ToolSpec.from_function>` builds on the same rules.  The types
understood, and what each becomes, are the table in ``docs/tools-and-output.md``;
anything else is refused with a ``TypeError`` naming where it was met.
No validation library: only what these types need.
"""

from __future__ import annotations

from ._error_text import an, describe
from .error import NormalizeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    from .item import Item
    from .jsontext import JsonValue

    T = TypeVar("T")

__all__ = ("schema_of", "parse_output")

_SCALARS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null", None: "null"}
_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def schema_of(tp: object, /, *, strict: bool = False) -> dict[str, JsonValue]:
    """The JSON Schema (Draft 2020-12) of the type ``tp``, a new dict.

    ``str``, ``int``, ``float``, ``bool``, ``None``, ``list[X]``, ``tuple[X, Y]``
    (``prefixItems``) and ``tuple[X, ...]``, ``dict[str, X]``, ``X | None``,
    ``Optional``, ``Union`` (``anyOf``), ``Literal`` and ``Enum`` (``enum``),
    ``Annotated[X, "description"]``, ``Any`` (any JSON), dataclasses and
    ``TypedDict`` (closed objects: ``additionalProperties: false``; required
    are the fields without a default, and the keys a ``TypedDict`` requires),
    nested.  JSON-able defaults are written as ``default``.

    ``strict=True`` writes the subset OpenAI's strict structured outputs take
    (``ModelSettings.output_schema`` is sent with ``strict: true`` to both
    OpenAI APIs): every property is required (a field with a default must be
    answered too) and no ``default`` is written, and ``dict[str, X]`` (an open
    object) is refused.  Anthropic and Gemini take either form.  A recursive
    type, or one that is none of the above, raises ``TypeError`` naming where
    it was met.

    >>> schema_of(list[int])
    {'type': 'array', 'items': {'type': 'integer'}}
    """
    return _Writer(strict).schema(tp, _name(tp))


def parse_output(answer: Item | str | bytes | bytearray | JsonValue, tp: type[T], /) -> T:
    """The JSON of ``answer`` checked against ``tp`` and built as it: ``tp``'s value.

    ``answer`` is the model's answer item (its text; or, when it has no text,
    its one :class:`~agentkit_core.StructuredPart`'s value), JSON text
    (``str`` or bytes), or JSON data already parsed (a dict or a list: a tool
    call's ``input``, to build a dataclass parameter).  Built: dataclass instances (through their constructor, defaults
    filled in), ``TypedDict`` s and dicts, lists, tuples, enum members,
    literals, ``None`` for an optional; a union's members are tried in order
    and the first that fits wins.  An object key the type does not have is
    refused, as the schema says.  Any mismatch raises
    :class:`~agentkit_core.NormalizeError` whose ``path`` names the bad value
    (``items[1].qty``); a type :func:`schema_of` refuses raises ``TypeError``.

    >>> parse_output('[1, 2]', list[int])
    [1, 2]
    """
    from .item import Item
    from .jsontext import parse_json

    if isinstance(answer, (str, bytes, bytearray)):
        value: JsonValue = parse_json(answer)
    elif isinstance(answer, Item):
        value = _answer_json(answer, parse_json)
    else:
        from .jsontext import checked_json

        value = checked_json(answer)
    built: T = _Reader().build(value, tp, _name(tp))
    return built


def function_schema(fn: Callable[..., Any], where: str, strict: bool) -> dict[str, JsonValue]:
    """The JSON Schema of ``fn``'s keyword arguments: an object, a property a parameter (see :meth:`ToolSpec.from_function`)."""
    import inspect

    from ._docstring import parameter_docs

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where}: no signature to read ({exc})") from None
    hints = type_hints(fn, where)
    docs = parameter_docs(getattr(fn, "__doc__", None))
    writer = _Writer(strict)
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    for name, p in signature.parameters.items():
        at = f"{where}: parameter {name!r}"
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind is p.VAR_POSITIONAL else "**"
            raise TypeError(f"{at} ({star}{name}): a model passes arguments by name, as one JSON object, so {star}{name} cannot be declared")
        if p.kind is p.POSITIONAL_ONLY:
            raise TypeError(f"{at} is positional-only, and a model passes arguments by name")
        if name not in hints:
            raise TypeError(f"{at} has no type annotation, so its JSON Schema is unknown")
        prop = writer.schema(hints[name], at)
        if docs.get(name):
            prop = {**prop, "description": docs[name]}
        has_default = p.default is not p.empty
        ok, value = jsonable(p.default) if has_default else (False, None)
        if ok and not strict:
            prop = {**prop, "default": value}
        properties[name] = prop
        if not has_default or strict:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _answer_json(answer: Item, parse_json: Callable[[str], JsonValue]) -> JsonValue:
    from .content import StructuredPart, TextPart

    if any(type(p) is TextPart for p in answer.parts):
        return parse_json(answer.text_content())
    structured = [p for p in answer.parts if isinstance(p, StructuredPart)]
    if len(structured) == 1:
        return structured[0].value
    raise NormalizeError("the answer holds no text to read as JSON" if not structured else "the answer holds several structured parts")


def _name(tp: object) -> str:
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) and getattr(tp, "__module__", "") != "typing" else repr(tp).replace("typing.", "")


def _typing() -> Any:
    import typing

    return typing


def type_hints(owner: object, where: str) -> dict[str, Any]:
    """``owner``'s annotations resolved (string annotations too, with its module's globals), ``Annotated`` kept."""
    typing = _typing()
    try:
        hints: dict[str, Any] = typing.get_type_hints(owner, include_extras=True)
    except Exception as exc:  # NameError for a name the module does not have, SyntaxError, TypeError
        raise TypeError(f"{where}: cannot resolve its type annotations ({type(exc).__name__}: {exc})") from None
    return hints


def jsonable(v: object) -> tuple[bool, JsonValue]:
    """``(True, v as JSON data)`` when ``v`` is JSON-able (enum members as their values, tuples as lists), else ``(False, None)``."""
    import enum

    if isinstance(v, enum.Enum):
        v = v.value
    if v is None or isinstance(v, (bool, int, str)):
        return True, v
    if isinstance(v, float):
        return v - v == 0, v  # finite
    if isinstance(v, (list, tuple)):
        items = [jsonable(x) for x in v]
        return all(ok for ok, _ in items), [x for _, x in items]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        pairs = {k: jsonable(x) for k, x in v.items()}
        return all(ok for ok, _ in pairs.values()), {k: x for k, (_, x) in pairs.items()}
    return False, None


def _enum_schema(values: list[JsonValue]) -> dict[str, JsonValue]:
    """``{"type": ..., "enum": values}``, the type written when every value has the same JSON type."""
    kinds = {_JSON_TYPES.get(type(v)) for v in values}
    out: dict[str, JsonValue] = {}
    if len(kinds) == 1 and None not in kinds:
        out["type"] = kinds.pop()
    out["enum"] = values
    return out


def _user_doc(cls: type) -> str:
    """A class's own docstring's first paragraph ("" for none, or for the one ``dataclass`` writes)."""
    doc = cls.__doc__ or ""
    if not doc or doc.startswith(f"{cls.__name__}(") or "__doc__" not in cls.__dict__:
        return ""
    from ._docstring import first_paragraph

    return first_paragraph(doc)


class _Writer:
    """One schema being written: the strict flag, and the classes being written (a recursive type is refused)."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.open: list[object] = []

    def schema(self, tp: object, where: str) -> dict[str, JsonValue]:
        typing = _typing()
        if _is_scalar(tp):
            return {"type": _SCALARS[tp]}
        if tp is typing.Any:
            return {}
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated:
            out = self.schema(args[0], where)
            described = next((a for a in args[1:] if isinstance(a, str)), None)
            return out if described is None else {**out, "description": described}
        if origin is not None and origin in _marks(typing):
            return self.schema(args[0], where)
        if tp is list or origin is list:
            return {"type": "array"} if not args else {"type": "array", "items": self.schema(args[0], f"{where}[]")}
        if tp is tuple or origin is tuple:
            return self.fixed(args, where, tp is tuple or tp is typing.Tuple)
        if tp is dict or origin is dict:
            return self.mapping(args, where)
        if _is_union(tp, origin, typing):
            return {"anyOf": [self.schema(a, where) for a in args]}
        if origin is typing.Literal:
            return _enum_schema([self.literal(a, where) for a in args])
        if isinstance(tp, type):
            import dataclasses
            import enum

            if issubclass(tp, enum.Enum):
                return self.enum(tp, where)
            if dataclasses.is_dataclass(tp) or typing.is_typeddict(tp):
                return self.object(tp, where)
        raise TypeError(f"{where}: {_name(tp)} has no JSON Schema here (see agentkit_core.schema_of for the types it takes)")

    def literal(self, v: object, where: str) -> JsonValue:
        ok, value = jsonable(v)
        if not ok or isinstance(value, (list, dict)):
            raise TypeError(f"{where}: the literal {v!r} is no JSON scalar")
        return value

    def enum(self, tp: type, where: str) -> dict[str, JsonValue]:
        values = [self.literal(m.value, f"{where}.{m.name}") for m in tp]  # type: ignore[attr-defined]
        out = {"title": tp.__name__, **_enum_schema(values)}
        doc = _user_doc(tp)
        if doc and doc != "An enumeration.":
            out["description"] = doc
        return out

    def fixed(self, args: tuple[object, ...], where: str, bare: bool) -> dict[str, JsonValue]:
        if bare:  # tuple, typing.Tuple: any array (tuple[()], the empty one, has no args either from 3.11)
            return {"type": "array"}
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.schema(args[0], f"{where}[]")}
        if args == ((),):  # tuple[()] before 3.11
            args = ()
        items: list[JsonValue] = [self.schema(a, f"{where}[{n}]") for n, a in enumerate(args)]
        out: dict[str, JsonValue] = {"type": "array"}
        if items:
            out["prefixItems"] = items
        out["minItems"] = out["maxItems"] = len(items)
        return out

    def mapping(self, args: tuple[object, ...], where: str) -> dict[str, JsonValue]:
        if self.strict:
            raise TypeError(f"{where}: a dict is an open object, which strict schemas cannot have (use a dataclass or a TypedDict)")
        if not args:
            return {"type": "object"}
        if args[0] is not str:
            raise TypeError(f"{where}: JSON object keys are strings, so a dict's keys are str here (found {_name(args[0])})")
        return {"type": "object", "additionalProperties": self.schema(args[1], f"{where}[]")}

    def object(self, tp: type, where: str) -> dict[str, JsonValue]:
        if tp in self.open:
            raise TypeError(f"{where}: {tp.__name__} contains itself, and a recursive type has no inline schema")
        self.open.append(tp)
        try:
            fields = object_fields(tp)
            properties: dict[str, JsonValue] = {}
            required: list[JsonValue] = []
            for name, (hint, needed, has_default, default, description) in fields.items():
                prop = self.schema(hint, f"{tp.__name__}.{name}")
                if description:
                    prop = {**prop, "description": description}
                ok, value = jsonable(default) if has_default else (False, None)
                if ok and not self.strict:
                    prop = {**prop, "default": value}
                properties[name] = prop
                if needed or self.strict:
                    required.append(name)
        finally:
            self.open.pop()
        out: dict[str, JsonValue] = {"type": "object", "title": tp.__name__}
        doc = _user_doc(tp)
        if doc:
            out["description"] = doc
        out["properties"] = properties
        out["required"] = required
        out["additionalProperties"] = False
        return out


def _is_scalar(tp: object) -> bool:
    try:
        return tp in _SCALARS
    except TypeError:  # unhashable (Annotated with a dict in it)
        return False


def _marks(typing: Any) -> tuple[object, ...]:
    """``typing.Required`` and ``typing.NotRequired`` (3.11+); none before."""
    return (typing.Required, typing.NotRequired) if hasattr(typing, "Required") else ()


def _is_union(tp: object, origin: object, typing: Any) -> bool:
    import types

    return origin is typing.Union or isinstance(tp, types.UnionType)


def object_fields(tp: type) -> dict[str, tuple[object, bool, bool, object, str]]:
    """The fields of a dataclass or ``TypedDict`` ``tp``: name to (type, required, has a default, the default, description)."""
    import dataclasses

    typing = _typing()
    hints = type_hints(tp, tp.__name__)
    out: dict[str, tuple[object, bool, bool, object, str]] = {}
    if dataclasses.is_dataclass(tp):
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            has_default = f.default is not dataclasses.MISSING
            missing = not has_default and f.default_factory is dataclasses.MISSING
            default = f.default if has_default else None
            described = f.metadata.get("description", "")
            out[f.name] = (hints[f.name], missing, has_default, default, described if isinstance(described, str) else "")
        return out
    required = set(getattr(tp, "__required_keys__", ()))
    marks = _marks(typing)
    for name, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:  # Annotated[Required[int], ...] or Required[Annotated[int, ...]]
            origin = typing.get_origin(typing.get_args(hint)[0])
        needed = origin is marks[0] if origin is not None and origin in marks else name in required
        out[name] = (hint, needed, False, None, "")
    return out


class _Reader:
    """Builds a value of a type from JSON data, the path of a mismatch carried up by :meth:`NormalizeError.under`."""

    def build(self, v: Any, tp: object, where: str) -> Any:
        typing = _typing()
        if _is_scalar(tp):
            return _scalar(v, tp)
        if tp is typing.Any:
            return v
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated or (origin is not None and origin in _marks(typing)):
            return self.build(v, args[0], where)
        if tp is list or origin is list:
            items = _expect(v, list, "an array")
            return items if not args else [self.at(x, args[0], f"[{n}]", where) for n, x in enumerate(items)]
        if tp is tuple or origin is tuple:
            return self.fixed(_expect(v, list, "an array"), args, where, tp is tuple or tp is typing.Tuple)
        if tp is dict or origin is dict:
            obj = _expect(v, dict, "an object")
            return dict(obj) if not args else {k: self.at(x, args[1], _key(k), where) for k, x in obj.items()}
        if _is_union(tp, origin, typing):
            return self.union(v, args, where)
        if origin is typing.Literal:
            for a in args:
                ok, value = jsonable(a)
                if ok and type(value) is type(v) and value == v:
                    return a
            raise NormalizeError(f"expected one of {', '.join(describe(jsonable(a)[1]) for a in args)}, found {describe(v)}")
        if isinstance(tp, type):
            import dataclasses
            import enum

            if issubclass(tp, enum.Enum):
                for member in tp:
                    if type(member.value) is type(v) and member.value == v:
                        return member
                raise NormalizeError(f"expected a {tp.__name__} ({', '.join(describe(m.value) for m in tp)}), found {describe(v)}")
            if dataclasses.is_dataclass(tp) or typing.is_typeddict(tp):
                return self.object(_expect(v, dict, "an object"), tp, dataclasses.is_dataclass(tp))
        _Writer(False).schema(tp, where)  # raises the TypeError naming the type
        raise AssertionError("unreachable")  # pragma: no cover

    def at(self, v: object, tp: object, segment: str, where: str) -> Any:
        try:
            return self.build(v, tp, where)
        except NormalizeError as exc:
            raise exc.under(segment) from None

    def fixed(self, items: list[JsonValue], args: tuple[Any, ...], where: str, bare: bool) -> tuple[object, ...]:
        if bare:
            return tuple(items)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(self.at(x, args[0], f"[{n}]", where) for n, x in enumerate(items))
        if args == ((),):
            args = ()
        if len(items) != len(args):
            raise NormalizeError(f"expected an array of {len(args)} items, found {len(items)}")
        return tuple(self.at(x, a, f"[{n}]", where) for n, (x, a) in enumerate(zip(items, args)))

    def union(self, v: object, args: tuple[object, ...], where: str) -> object:
        errors: list[NormalizeError] = []
        for a in args:
            try:
                return self.build(v, a, where)
            except NormalizeError as exc:
                errors.append(exc)
        real = [(a, e) for a, e in zip(args, errors) if a not in (None, type(None))]
        if len(real) == 1 and v is not None:  # an Optional: the one type's own complaint says the most
            raise real[0][1]
        raise NormalizeError(f"expected {' or '.join(_name(a) for a in args)}, found {describe(v)}")

    def object(self, obj: dict[str, JsonValue], tp: type, is_dataclass: bool) -> object:
        fields = object_fields(tp)
        for key in obj:
            if key not in fields:
                raise NormalizeError(f"unknown field {key[:40]!r}, expected one of {', '.join(fields)}" if fields else f"unknown field {key[:40]!r}")
        built: dict[str, object] = {}
        for name, (hint, needed, _, _, _) in fields.items():
            if name in obj:
                built[name] = self.at(obj[name], hint, name, tp.__name__)
            elif needed:
                raise NormalizeError(f"missing field {name!r} of {tp.__name__}")
        if not is_dataclass:
            return built
        try:
            return tp(**built)
        except NormalizeError:
            raise
        except (TypeError, ValueError) as exc:  # the class's own checks (__post_init__) refused the value
            raise NormalizeError(f"{tp.__name__} refused it: {exc}") from None


def _key(k: str) -> str:
    return k if k.isidentifier() else f"[{k[:40]!r}]"


def _expect(v: object, kind: type, phrase: str) -> Any:
    if type(v) is not kind:
        raise NormalizeError(f"expected {phrase}, found {describe(v)}")
    return v


def _scalar(v: object, tp: object) -> object:
    if tp is float:
        if type(v) is int:
            return float(v)
        if type(v) is float:
            return v
        raise NormalizeError(f"expected a number, found {describe(v)}")
    kind = type(None) if tp is None else tp
    if type(v) is not kind:
        raise NormalizeError(f"expected {'null' if kind is type(None) else an(_SCALARS[tp])}, found {describe(v)}")
    return v


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them."""
    return list(__all__)
