"""Declaring tools: ToolSpec, ToolAnnotations and ToolChoice as values, and their wire forms."""

from __future__ import annotations

import json
import pickle
import unittest

from agentkit_core import NormalizeError, ToolAnnotations, ToolChoice, ToolSpec

SCHEMA = {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}, "required": ["pattern"]}

#: What the Rust crate writes for ``ToolSpec::new("grep_search", ..., schema).with_annotations(ToolAnnotations::read_only())``
#: (serde derive: fields in declaration order, ``output_schema`` skipped when ``None``).
RUST_GREP = (
    '{"name":"grep_search","description":"Search files by regex pattern",'
    '"input_schema":{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]},'
    '"annotations":{"read_only_hint":true,"destructive_hint":false,"idempotent_hint":false,'
    '"needs_approval_hint":false,"supports_streaming_hint":false},"metadata":{}}'
)
#: ``.with_output_schema(...)`` and ``.with_output_limit(ToolOutputLimit::fail(1024))``: ``output_schema`` sits after
#: ``input_schema``, and the limit is a metadata entry.
RUST_WITH_OUTPUT = (
    '{"name":"t","description":"d","input_schema":{"type":"object"},"output_schema":{"type":"string"},'
    '"annotations":{"read_only_hint":false,"destructive_hint":true,"idempotent_hint":false,'
    '"needs_approval_hint":true,"supports_streaming_hint":false},'
    '"metadata":{"agentkit.tool_output_limit":{"max_bytes":1024,"action":"fail"}}}'
)


class ToolSpecTests(unittest.TestCase):
    def grep(self) -> ToolSpec:
        return ToolSpec("grep_search", "Search files by regex pattern", SCHEMA, annotations=ToolAnnotations(read_only_hint=True))

    def test_wire_matches_the_rust_crate(self) -> None:
        self.assertEqual(self.grep().to_json(), RUST_GREP)
        self.assertEqual(ToolSpec.from_json(RUST_GREP), self.grep())
        spec = ToolSpec.from_json(RUST_WITH_OUTPUT)
        self.assertEqual(spec.output_schema, {"type": "string"})
        self.assertTrue(spec.annotations.destructive_hint and spec.annotations.needs_approval_hint)
        self.assertEqual(spec.to_json(), RUST_WITH_OUTPUT)

    def test_output_schema_omitted_when_absent_and_null_reads_as_absent(self) -> None:
        self.assertNotIn("output_schema", self.grep().to_dict())
        d = self.grep().to_dict()
        d["output_schema"] = None
        self.assertEqual(ToolSpec.from_dict(d), self.grep())

    def test_round_trips(self) -> None:
        specs = [
            ToolSpec("a"),
            self.grep(),
            ToolSpec("b", "", True, output_schema=[1, {"x": None}], metadata={"openai.chat.strict": True}),
            ToolSpec("c", "d", None, annotations=ToolAnnotations(supports_streaming_hint=True, idempotent_hint=True)),
        ]
        for spec in specs:
            with self.subTest(spec=spec):
                self.assertEqual(ToolSpec.from_dict(spec.to_dict()), spec)
                self.assertEqual(ToolSpec.from_json(spec.to_json()), spec)
                self.assertEqual(pickle.loads(pickle.dumps(spec)), spec)
                self.assertEqual(ToolSpec.from_dict(list(spec.to_dict().values())) if spec.output_schema is not None else spec, spec)

    def test_schema_is_copied(self) -> None:
        schema = {"type": "object", "properties": {}}
        spec = ToolSpec("t", "", schema)
        schema["properties"]["x"] = 1
        self.assertEqual(spec.input_schema, {"type": "object", "properties": {}})
        spec.to_dict()["input_schema"]["type"] = "array"
        self.assertEqual(spec.input_schema["type"], "object")  # type: ignore[index,call-overload]

    def test_builders(self) -> None:
        spec = ToolSpec("t").with_output_schema({"type": "integer"}).with_annotations(ToolAnnotations(read_only_hint=True))
        spec = spec.with_metadata({"k": [1]})
        self.assertEqual((spec.output_schema, spec.annotations.read_only_hint, dict(spec.metadata)), ({"type": "integer"}, True, {"k": [1]}))

    def test_construction_refusals(self) -> None:
        cases = [
            (lambda: ToolSpec(5), TypeError, "ToolSpec.name"),  # type: ignore[arg-type]
            (lambda: ToolSpec("t", None), TypeError, "ToolSpec.description"),  # type: ignore[arg-type]
            (lambda: ToolSpec("\ud800"), NormalizeError, "ToolSpec.name"),
            (lambda: ToolSpec("t", "", {"a": float("inf")}), NormalizeError, "ToolSpec.input_schema['a']"),
            (lambda: ToolSpec("t", "", {}, output_schema=(1,)), NormalizeError, "ToolSpec.output_schema"),
            (lambda: ToolSpec("t", annotations={}), TypeError, "ToolSpec.annotations"),  # type: ignore[arg-type]
            (lambda: ToolSpec("t", metadata={"k": {1}}), NormalizeError, "ToolSpec.metadata['k']"),
            (lambda: ToolAnnotations(read_only_hint=1), TypeError, "ToolAnnotations.read_only_hint"),  # type: ignore[arg-type]
        ]
        for make, error, where in cases:
            with self.subTest(where=where):
                with self.assertRaises(error) as caught:
                    make()
                self.assertIn(where, str(caught.exception))

    def test_too_deep_schema_refused(self) -> None:
        deep: object = {}
        for _ in range(130):
            deep = {"a": deep}
        with self.assertRaises(NormalizeError) as caught:
            ToolSpec("t", "", deep)  # type: ignore[arg-type]
        self.assertTrue(caught.exception.path.startswith("ToolSpec.input_schema"))
        fits: object = {}
        for _ in range(125):  # the schema sits at level 2: 126 levels in all
            fits = {"a": fits}
        spec = ToolSpec("t", "", fits)  # type: ignore[arg-type]
        self.assertEqual(ToolSpec.from_json(spec.to_json()), spec)

    def test_decode_errors_have_paths(self) -> None:
        good = json.loads(RUST_GREP)
        cases = [
            ({k: v for k, v in good.items() if k != "input_schema"}, "input_schema", "missing field"),
            ({k: v for k, v in good.items() if k != "annotations"}, "annotations", "missing field"),
            ({**good, "annotations": {**good["annotations"], "idempotent_hint": None}}, "annotations.idempotent_hint", "expected a boolean"),
            ({**good, "annotations": {"read_only_hint": True}}, "annotations.destructive_hint", "missing field"),
            ({**good, "name": 3}, "name", "expected a string"),
            ({**good, "metadata": []}, "metadata", ""),
            ({**good, "input_schema": {"x": {1, 2}}}, "input_schema['x']", ""),
            ("spec", "", "expected struct ToolSpec"),
        ]
        for value, path, message in cases:
            with self.subTest(path=path):
                with self.assertRaises(NormalizeError) as caught:
                    ToolSpec.from_dict(value)
                self.assertEqual(caught.exception.path, path)
                self.assertIn(message, caught.exception.message)
        with self.assertRaises(NormalizeError):
            ToolSpec.from_json("[" * 200)

    def test_frozen_and_hashable_when_fields_are(self) -> None:
        with self.assertRaises(AttributeError):
            self.grep().name = "x"  # type: ignore[misc]
        self.assertEqual(hash(ToolAnnotations(read_only_hint=True)), hash(ToolAnnotations(read_only_hint=True)))


class ToolChoiceTests(unittest.TestCase):
    def test_factories(self) -> None:
        self.assertEqual(ToolChoice.auto(), ToolChoice("auto"))
        self.assertEqual(ToolChoice.none().mode, "none")
        self.assertEqual(ToolChoice.required(parallel=False), ToolChoice("required", parallel=False))
        self.assertEqual(ToolChoice.tool("get_weather"), ToolChoice("tool", "get_weather"))
        self.assertEqual(ToolChoice.auto().with_parallel(True).parallel, True)
        with self.assertRaises(AttributeError):
            ToolChoice.auto().tool  # noqa: B018  (a factory, refused on an instance)

    def test_wire_form_round_trips(self) -> None:
        choice = ToolChoice.tool("get_weather", parallel=False)
        self.assertEqual(choice.to_json(), '{"mode":"tool","name":"get_weather","parallel":false,"metadata":{}}')
        for c in (choice, ToolChoice.auto(), ToolChoice.none(), ToolChoice("required", metadata={"gemini.mode": "VALIDATED"})):
            with self.subTest(choice=c):
                self.assertEqual(ToolChoice.from_json(c.to_json()), c)
                self.assertEqual(pickle.loads(pickle.dumps(c)), c)

    def test_refusals(self) -> None:
        cases = [
            (lambda: ToolChoice("any"), NormalizeError, "ToolChoice.mode"),  # type: ignore[arg-type]
            (lambda: ToolChoice(1), TypeError, "ToolChoice.mode"),  # type: ignore[arg-type]
            (lambda: ToolChoice("tool"), NormalizeError, "ToolChoice.name"),
            (lambda: ToolChoice("auto", "x"), NormalizeError, "ToolChoice.name"),
            (lambda: ToolChoice("tool", 3), TypeError, "ToolChoice.name"),  # type: ignore[arg-type]
            (lambda: ToolChoice.auto(parallel=0), TypeError, "ToolChoice.parallel"),  # type: ignore[arg-type]
        ]
        for make, error, where in cases:
            with self.subTest(where=where):
                with self.assertRaises(error) as caught:
                    make()
                self.assertIn(where, str(caught.exception))
        for bad, path in (
            ({"mode": "any", "name": None, "parallel": None, "metadata": {}}, "mode"),
            ({"mode": "tool", "name": None, "parallel": None, "metadata": {}}, "name"),
            ({"mode": "auto", "name": None, "parallel": "yes", "metadata": {}}, "parallel"),
            ({"mode": "auto", "name": None, "parallel": None}, "metadata"),
        ):
            with self.subTest(bad=bad):
                with self.assertRaises(NormalizeError) as caught:
                    ToolChoice.from_dict(bad)
                self.assertEqual(caught.exception.path, path)


if __name__ == "__main__":
    unittest.main()
