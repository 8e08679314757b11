"""Types as JSON Schema (schema_of), answers built as types (parse_output), tools from functions (ToolSpec.from_function).

This module's annotations are strings (``from __future__ import annotations``): everything here resolves them.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import random
import sys
import types
import unittest
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

from agentkit_core import Item, ItemKind, ModelSettings, NormalizeError, StructuredPart, TextPart, ToolSpec, parse_output, schema_of

from . import schema_check

#: Docstrings are gone under -OO: what a description read from one is then.
DOCS = sys.flags.optimize < 2


def doc(text: str) -> str:
    return text if DOCS else ""


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass
class Line:
    """One line of an order."""

    sku: str
    qty: int = 1


@dataclass(frozen=True)
class Order:
    items: list[Line]
    color: Color | None = None
    pair: tuple[int, str] = (0, "")
    tags: dict[str, float] = field(default_factory=dict)
    note: Annotated[str, "a free note"] = ""


class Point(TypedDict):
    x: float
    y: float


class Labelled(Point, total=False):
    label: str


if sys.version_info >= (3, 11):
    from typing import NotRequired, Required

    class Marked(TypedDict, total=False):
        a: Required[int]
        b: str

    class Marked2(TypedDict):
        a: int
        b: NotRequired[Annotated[str, "later"]]


@dataclass
class Node:
    value: int
    children: list[Node] = field(default_factory=list)


@dataclass
class Positive:
    n: int

    def __post_init__(self) -> None:
        if self.n <= 0:
            raise ValueError("n must be positive")


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> str:
    """Get the weather for a city.

    Reads the forecast service.

    Args:
        city: The city's name,
            as people write it.
        unit (str): Celsius or Fahrenheit.

    Returns:
        The forecast.
    """
    return city


def rest_style(path: str, limit: Optional[int] = None) -> None:
    """List a folder.

    :param path: the folder
    :param int limit: at most this many
        entries
    :returns: nothing
    """


def place_order(order: Order, rush: bool = False) -> None:
    """Place an order."""


class SchemaOfTests(unittest.TestCase):
    def test_scalars_and_containers(self) -> None:
        cases: list[tuple[Any, dict[str, Any]]] = [
            (str, {"type": "string"}),
            (int, {"type": "integer"}),
            (float, {"type": "number"}),
            (bool, {"type": "boolean"}),
            (None, {"type": "null"}),
            (type(None), {"type": "null"}),
            (Any, {}),
            (list[str], {"type": "array", "items": {"type": "string"}}),
            (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
            (tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}),
            (tuple[()], {"type": "array", "minItems": 0, "maxItems": 0}),  # the empty tuple (no args from 3.11, as bare tuple)
            (tuple, {"type": "array"}),
            (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
            (Optional[str], {"anyOf": [{"type": "string"}, {"type": "null"}]}),
            (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
            (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
            (Literal[1, "a"], {"enum": [1, "a"]}),
            (Level, {"title": "Level", "type": "integer", "enum": [1, 2]}),
            (Annotated[int, "how many"], {"type": "integer", "description": "how many"}),
        ]
        for tp, expected in cases:
            with self.subTest(tp=tp):
                self.assertEqual(schema_of(tp), expected)
        self.assertEqual(schema_of(int | None), schema_of(Optional[int]))

    def test_dataclass_nested(self) -> None:
        schema = schema_of(Order)
        self.assertEqual(schema["required"], ["items"])
        self.assertIs(schema["additionalProperties"], False)
        self.assertNotIn("description", schema)  # dataclass's own generated docstring is not a description
        props: Any = schema["properties"]
        line = props["items"]["items"]
        self.assertEqual(line["title"], "Line")
        self.assertEqual(line.get("description"), doc("One line of an order.") or None)
        self.assertEqual(line["properties"]["qty"], {"type": "integer", "default": 1})
        self.assertEqual(props["color"]["anyOf"][0]["enum"], ["red", "blue"])
        self.assertEqual(props["color"]["default"], None)
        self.assertEqual(props["pair"]["default"], [0, ""])
        self.assertNotIn("default", props["tags"])  # a factory's default is not written
        self.assertEqual(props["note"]["description"], "a free note")
        json.dumps(schema)  # JSON data throughout
        ModelSettings(output_schema=schema)

    def test_typeddict_required_keys(self) -> None:
        schema = schema_of(Labelled)
        self.assertEqual(schema["required"], ["x", "y"])
        self.assertEqual(set(schema["properties"]), {"x", "y", "label"})  # type: ignore[arg-type]
        if sys.version_info >= (3, 11):  # typing.Required and NotRequired
            self.assertEqual(schema_of(Marked)["required"], ["a"])
            self.assertEqual(schema_of(Marked2)["required"], ["a"])
            self.assertEqual(schema_of(Marked2)["properties"]["b"], {"type": "string", "description": "later"})  # type: ignore[index]
            self.assertEqual(parse_output('{"a": 1}', Marked2), {"a": 1})
            self.assertEqual(parse_output('{"a": 1, "b": "x"}', Marked), {"a": 1, "b": "x"})

    def test_strict(self) -> None:
        schema = schema_of(Line, strict=True)
        self.assertEqual(schema["required"], ["sku", "qty"])
        self.assertEqual(schema["properties"]["qty"], {"type": "integer"})  # type: ignore[index]
        with self.assertRaisesRegex(TypeError, r"Order\.tags.*open object"):
            schema_of(Order, strict=True)

    def test_refused(self) -> None:
        for tp, words in ((set[int], "set"), (dict[int, str], "keys are str here"), (Node, "Node contains itself"),
                          (Literal[1.5j], "no JSON scalar"), (object, "object has no JSON Schema")):
            with self.subTest(tp=tp), self.assertRaisesRegex(TypeError, words):
                schema_of(tp)


class ParseOutputTests(unittest.TestCase):
    def test_builds_the_type(self) -> None:
        text = '{"items": [{"sku": "a"}, {"sku": "b", "qty": 3}], "color": "blue", "pair": [2, "x"], "tags": {"t": 1}}'
        order = parse_output(text, Order)
        self.assertEqual(order, Order([Line("a"), Line("b", 3)], Color.BLUE, (2, "x"), {"t": 1.0}))
        self.assertIs(type(order.tags["t"]), float)  # an integer where a number is expected becomes a float
        self.assertEqual(parse_output('{"x": 1, "y": 2.5}', Labelled), {"x": 1.0, "y": 2.5})
        self.assertEqual(parse_output("[1, 2]", tuple[int, ...]), (1, 2))
        self.assertEqual(parse_output("[]", tuple[()]), ())
        self.assertEqual(parse_output('[1, "a"]', tuple), (1, "a"))
        with self.assertRaises(NormalizeError):
            parse_output("[1, 2]", tuple[()])
        self.assertEqual(parse_output('"f"', Literal["c", "f"]), "f")
        self.assertIs(parse_output("2", Level), Level.HIGH)
        self.assertIsNone(parse_output("null", Optional[Line]))
        self.assertEqual(parse_output('"x"', Union[int, str]), "x")
        self.assertEqual(parse_output(b'{"a": [1]}', dict[str, list[int]]), {"a": [1]})
        self.assertEqual(parse_output("[true]", Any), [True])

    def test_from_an_item(self) -> None:
        answer = Item(ItemKind.ASSISTANT, [TextPart('{"sku": '), TextPart('"a"}')])
        self.assertEqual(parse_output(answer, Line), Line("a"))
        self.assertEqual(parse_output(Item(ItemKind.ASSISTANT, [StructuredPart({"sku": "b"})]), Line), Line("b"))
        with self.assertRaisesRegex(NormalizeError, "no text"):
            parse_output(Item(ItemKind.ASSISTANT, []), Line)
        self.assertEqual(parse_output({"sku": "c", "qty": 2}, Line), Line("c", 2))  # parsed already: a tool call's input
        with self.assertRaises(NormalizeError):
            parse_output({"sku": {1, 2}}, Line)  # type: ignore[dict-item]  # not JSON data

    def test_mismatch_names_the_path(self) -> None:
        cases = [
            ('{"items": [{"sku": "a"}, {"sku": "b", "qty": "3"}]}', Order, "items[1].qty", "expected an integer, found '3'"),
            ('{"items": [{"qty": 1}]}', Order, "items[0]", "missing field 'sku'"),
            ('{"items": [], "colour": "red"}', Order, "", "unknown field 'colour'"),
            ('{"items": [], "color": "green"}', Order, "color", "expected a Color ('red', 'blue'), found 'green'"),
            ('{"items": [], "pair": [1]}', Order, "pair", "expected an array of 2 items, found 1"),
            ('{"items": [], "tags": {"a b": "x"}}', Order, "tags['a b']", "expected a number"),
            ('{"x": 1}', Labelled, "", "missing field 'y'"),
            ("1", Literal[True], "", "expected one of true, found 1"),
            ("true", int, "", "expected an integer, found true"),
            ("[1]", Union[int, str], "", "expected int or str, found an array"),
            ('{"n": 0}', Positive, "", "Positive refused it: n must be positive"),
            ("{", Line, "", "invalid JSON"),
        ]
        for text, tp, path, words in cases:
            with self.subTest(text=text):
                with self.assertRaises(NormalizeError) as caught:
                    parse_output(text, tp)
                self.assertEqual(caught.exception.path, path)
                self.assertIn(words, caught.exception.message)

    def test_seeded_round_trips(self) -> None:
        rng = random.Random(35)
        types: list[Any] = [Order, Labelled, list[tuple[Level, Optional[str]]], dict[str, Union[int, list[bool]]], Line]
        for n in range(300):
            tp = types[n % len(types)]
            value = _random_value(rng, tp, 0)
            data = _to_json(value)
            with self.subTest(n=n, data=data):
                self.assertEqual(schema_check.errors(data, schema_of(tp)), [])
                self.assertEqual(parse_output(json.dumps(data), tp), value)


def _random_value(rng: random.Random, tp: Any, depth: int) -> Any:
    import typing

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is str:
        return "".join(rng.choice("ab é\"\\") for _ in range(rng.randrange(4)))
    if tp is int:
        return rng.randrange(-5, 5)
    if tp is float:
        return rng.choice([0.5, -2.25, 3.0])
    if tp is bool:
        return rng.random() < 0.5
    if tp is type(None):
        return None
    if origin is typing.Annotated:
        return _random_value(rng, args[0], depth)
    if origin is list:
        return [_random_value(rng, args[0], depth + 1) for _ in range(rng.randrange(3 if depth < 3 else 1))]
    if origin is tuple:
        return tuple(_random_value(rng, a, depth + 1) for a in args)
    if origin is dict:
        return {f"k{i}": _random_value(rng, args[1], depth + 1) for i in range(rng.randrange(3))}
    if origin in (Union, types.UnionType):
        return _random_value(rng, rng.choice(args), depth)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return rng.choice(list(tp))
    hints = typing.get_type_hints(tp, include_extras=True)
    if dataclasses.is_dataclass(tp):
        return tp(**{f.name: _random_value(rng, hints[f.name], depth + 1) for f in dataclasses.fields(tp) if rng.random() < 0.8 or
                     (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)})
    required = tp.__required_keys__
    return {k: _random_value(rng, h, depth + 1) for k, h in hints.items() if k in required or rng.random() < 0.5}


def _to_json(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return v.value
    if dataclasses.is_dataclass(v):
        return {f.name: _to_json(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, (list, tuple)):
        return [_to_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _to_json(x) for k, x in v.items()}
    return v


class FromFunctionTests(unittest.TestCase):
    def test_name_description_schema(self) -> None:
        spec = ToolSpec.from_function(get_weather)
        self.assertEqual(spec.name, "get_weather")
        self.assertEqual(spec.description, doc("Get the weather for a city."))
        props: dict[str, Any] = {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "days": {"type": "integer", "default": 1},
        }
        if DOCS:
            props["city"]["description"] = "The city's name, as people write it."
            props["unit"]["description"] = "Celsius or Fahrenheit."
        self.assertEqual(spec.input_schema, {"type": "object", "properties": props, "required": ["city"], "additionalProperties": False})
        self.assertEqual(ToolSpec.from_json(spec.to_json()), spec)

    def test_rest_docstring_and_nested_types(self) -> None:
        spec = ToolSpec.from_function(rest_style)
        schema: Any = spec.input_schema
        self.assertEqual(schema["properties"]["limit"].get("description"), doc("at most this many entries") or None)
        self.assertEqual(schema["properties"]["path"].get("description"), doc("the folder") or None)
        self.assertEqual(schema["required"], ["path"])
        order: Any = ToolSpec.from_function(place_order).input_schema
        self.assertEqual(order["properties"]["order"], schema_of(Order))
        self.assertEqual(order["properties"]["rush"], {"type": "boolean", "default": False})

    def test_options_and_decorator(self) -> None:
        spec = ToolSpec.from_function(get_weather, name="weather-now", description="d", strict=True)
        schema: Any = spec.input_schema
        self.assertEqual((spec.name, spec.description, schema["required"]), ("weather-now", "d", ["city", "unit", "days"]))
        self.assertNotIn("default", schema["properties"]["days"])

        @ToolSpec.from_function
        def ping(host: str) -> bool:
            """Ping a host."""
            return True

        self.assertIsInstance(ping, ToolSpec)
        self.assertEqual((ping.name, ping.description), ("ping", doc("Ping a host.")))

    def test_methods_and_no_docstring(self) -> None:
        class Box:
            def put(self, thing: str) -> None:
                pass

        spec = ToolSpec.from_function(Box().put)
        self.assertEqual((spec.name, spec.description, spec.input_schema["required"]), ("put", "", ["thing"]))  # type: ignore[index]

    def test_refused_with_the_parameter_named(self) -> None:
        def star(*names: str) -> None: ...
        def stars(**options: int) -> None: ...
        def positional(a: int, /) -> None: ...
        def bare(a) -> None: ...  # type: ignore[no-untyped-def]
        def odd(a: set[int]) -> None: ...
        def unknown(a: NoSuchType) -> None: ...  # type: ignore[name-defined]  # noqa: F821

        for fn, words in ((star, r"parameter 'names' \(\*names\)"), (stars, r"parameter 'options' \(\*\*options\)"),
                          (positional, "parameter 'a' is positional-only"), (bare, "parameter 'a' has no type annotation"),
                          (odd, "parameter 'a'.*set"), (unknown, "cannot resolve its type annotations")):
            with self.subTest(fn.__name__), self.assertRaisesRegex(TypeError, words):
                ToolSpec.from_function(fn)
        with self.assertRaisesRegex(TypeError, "pass name="):
            ToolSpec.from_function(lambda x: x)


class DocstringTests(unittest.TestCase):
    def test_sections(self) -> None:
        from agentkit_core._docstring import first_paragraph, parameter_docs

        text = """Summary line
        continues here.

        More prose.

        Arguments:
            a (int): first
                and more
            *rest: the rest
            not a parameter line
        Returns:
            b: not a parameter
        :param c: reST
        :returns: no
        """
        self.assertEqual(first_paragraph(text), "Summary line continues here.")
        self.assertEqual(first_paragraph("Args:\n    a: x"), "")
        self.assertEqual(first_paragraph(None), "")
        self.assertEqual(parameter_docs(text), {"a": "first and more", "rest": "the rest", "c": "reST"})
        self.assertEqual(parameter_docs(None), {})


if __name__ == "__main__":
    unittest.main()
