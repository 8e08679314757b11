"""The small JSON Schema validator of ``tests/schema_check.py`` can say no: hand-made bad documents fail."""

from __future__ import annotations

import unittest

from tests import schema_check as S

INPUT = S.load("gen-ai-input-messages.json")
OUTPUT = S.load("gen-ai-output-messages.json")
SYSTEM = S.load("gen-ai-system-instructions.json")
TOOLS = S.load("gen-ai-tool-definitions.json")

GOOD_INPUT = [
    {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
    {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "rainy"}]},
    {"role": "user", "parts": [{"type": "blob", "modality": "image", "mime_type": "image/png", "content": "iVBORw0KGgo="}]},
]


class Validator(unittest.TestCase):
    def test_good_documents_pass(self) -> None:
        self.assertEqual(S.errors(GOOD_INPUT, INPUT), [])
        self.assertEqual(S.errors([{"role": "assistant", "parts": [], "finish_reason": "stop"}], OUTPUT), [])
        self.assertEqual(S.errors([{"type": "text", "content": "Be brief."}], SYSTEM), [])
        self.assertEqual(S.errors([{"type": "function", "name": "f", "parameters": {"type": "object"}}], TOOLS), [])

    def test_bad_documents_fail(self) -> None:
        bad = {
            "not an array": (INPUT, {"role": "user", "parts": []}),
            "no parts": (INPUT, [{"role": "user"}]),
            "no role": (INPUT, [{"parts": []}]),
            "role not a string": (INPUT, [{"role": 1, "parts": []}]),
            "parts not an array": (INPUT, [{"role": "user", "parts": "hi"}]),
            "part without type": (INPUT, [{"role": "user", "parts": [{"content": "hi"}]}]),
            "part type not a string": (INPUT, [{"role": "user", "parts": [{"type": None}]}]),
            "name neither string nor null": (INPUT, [{"role": "user", "parts": [], "name": 3}]),
            "output without finish reason": (OUTPUT, [{"role": "assistant", "parts": []}]),
            "finish reason not a string": (OUTPUT, [{"role": "assistant", "parts": [], "finish_reason": 0}]),
            "system instruction not a part": (SYSTEM, ["Be brief."]),
            "tool without name": (TOOLS, [{"type": "function"}]),
        }
        for why, (schema, document) in bad.items():
            with self.subTest(why):
                self.assertNotEqual(S.errors(document, schema), [])

    def test_a_known_part_type_is_held_to_its_own_definition(self) -> None:
        # The generic part accepts any "type", so a malformed text part passes the whole schema;
        # tests/test_otel.py also checks each standard part against its own definition, which fails.
        text = {"$ref": "#/$defs/TextPart"}
        self.assertEqual(S.errors([{"role": "user", "parts": [{"type": "text", "content": 5}]}], INPUT), [])
        self.assertNotEqual(S.Validator(INPUT).errors({"type": "text", "content": 5}, text), [])
        self.assertNotEqual(S.Validator(INPUT).errors({"type": "text"}, text), [])
        self.assertNotEqual(S.Validator(INPUT).errors({"type": "blob", "modality": "image"}, {"$ref": "#/$defs/BlobPart"}), [])
        function = {"$ref": "#/$defs/FunctionToolDefinition"}
        self.assertEqual(S.errors([{"type": "function", "name": "f", "parameters": 3}], TOOLS), [])  # generic
        self.assertNotEqual(S.Validator(TOOLS).errors({"type": "function", "name": "f", "parameters": 3}, function), [])

    def test_keywords(self) -> None:
        v = S.Validator({"$defs": {}})
        self.assertNotEqual(v.errors(True, {"type": "integer"}), [])  # a bool is no integer
        self.assertEqual(v.errors(1.5, {"type": "number"}), [])
        self.assertNotEqual(v.errors(1, {"const": True}), [])  # 1 == True, but not the same JSON value
        self.assertNotEqual(v.errors("x", {"enum": ["a", "b"]}), [])
        self.assertNotEqual(v.errors(1, {"oneOf": [{"type": "integer"}, {"type": "number"}]}), [])  # both match
        self.assertEqual(v.errors(1.5, {"oneOf": [{"type": "integer"}, {"type": "number"}]}), [])
        self.assertNotEqual(v.errors(1, False), [])

    def test_closed_objects_and_tuples(self) -> None:
        closed = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
        self.assertEqual(S.errors({"a": 1}, closed), [])
        self.assertNotEqual(S.errors({"a": 1, "b": 2}, closed), [])
        self.assertNotEqual(S.errors({"x": "s"}, {"type": "object", "additionalProperties": {"type": "integer"}}), [])
        pair = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}
        self.assertEqual(S.errors([1, "a"], pair), [])
        for bad in ([1], [1, "a", 2], ["a", 1]):
            self.assertNotEqual(S.errors(bad, pair), [], bad)

    def test_an_unknown_keyword_is_refused_not_ignored(self) -> None:
        with self.assertRaises(NotImplementedError):
            S.errors("x", {"pattern": "^y$"})
        with self.assertRaises(NotImplementedError):
            S.errors([], {"uniqueItems": True})
        with self.assertRaises(NotImplementedError):
            S.errors({}, {"$ref": "other.json#/x"})


if __name__ == "__main__":
    unittest.main()
