"""Decoders: error paths, depth limits, hostile input, and no aliasing of the caller's data."""

from __future__ import annotations

import json
import sys
import unittest

import agentkit_core as ak
from agentkit_core import Item, NormalizeError, Part, StructuredPart, ToolCallPart

DECODERS = [
    ak.Item,
    ak.Part,
    ak.TextPart,
    ak.FilePart,
    ak.Delta,
    ak.Usage,
    ak.TokenUsage,
    ak.CostUsage,
    ak.FinishReason,
    ak.DataRef,
    ak.ToolOutput,
    ak.ItemKind,
    ak.PartKind,
    ak.Modality,
    ak.MetadataMap,
    ak.ToolCallId,
    ak.Timestamp,
]


class Weird:
    pass


class Touchy:
    """Refuses to be compared or truth-tested: a decoder must not try."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    def __bool__(self) -> bool:
        raise RuntimeError("truth-tested")

    __hash__ = object.__hash__


class StrSub(str):
    pass


class IntSub(int):
    pass


def nested_list(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


ITEM = {
    "id": "msg-1",
    "kind": "Tool",
    "parts": [
        {"Text": {"text": "a", "metadata": {}}},
        {"Text": {"text": "b", "metadata": {}}},
        {
            "ToolResult": {
                "call_id": "call-1",
                "output": {"Parts": [{"Text": {"text": "ok", "metadata": {}}}]},
                "is_error": False,
                "metadata": {},
            }
        },
    ],
    "metadata": {"openai.raw": {"list": [1, 2, {"x": True}]}},
    "usage": {"tokens": {"input_tokens": 1, "output_tokens": 2}, "cost": None, "metadata": {}},
    "finish_reason": {"Other": "stop"},
    "created_at": 17,
}


def mutate(value: object, path: list[object], new: object) -> object:
    value = json.loads(json.dumps(value))
    target = value
    for key in path[:-1]:
        target = target[key]  # type: ignore[index]
    target[path[-1]] = new  # type: ignore[index]
    return value


class ErrorPaths(unittest.TestCase):
    def test_path_names_the_bad_field(self) -> None:
        cases = [
            (["parts", 2, "ToolResult", "output", "Parts", 0, "Text", "text"], 5, "parts[2].ToolResult.output.Parts[0].Text.text"),
            (["parts", 1, "Text", "metadata"], [], "parts[1].Text.metadata"),
            (["metadata", "openai.raw", "list", 2, "x"], float("nan"), "metadata['openai.raw']['list'][2]['x']"),
            (["usage", "tokens", "output_tokens"], -1, "usage.tokens.output_tokens"),
            (["finish_reason"], {"Other": 1}, "finish_reason.Other"),
            (["created_at"], 1.5, "created_at"),
            (["kind"], "tool", "kind"),
            (["id"], 7, "id"),
        ]
        for path, bad, expected in cases:
            with self.subTest(expected=expected):
                with self.assertRaises(NormalizeError) as caught:
                    Item.from_dict(mutate(ITEM, path, bad))
                self.assertEqual(caught.exception.path, expected)
                self.assertTrue(str(caught.exception).startswith(caught.exception.path + ": "))

    def test_unknown_variants_list_the_variants_in_the_reference_order(self) -> None:
        families = {
            Part: "Text, Media, File, Structured, Reasoning, ToolCall, ToolResult, Custom",
            ak.DataRef: "InlineText, InlineBytes, Uri, Handle",
            ak.ToolOutput: "Text, Structured, Parts, Files",
        }
        for family, names in families.items():
            with self.subTest(family.__name__), self.assertRaises(NormalizeError) as caught:
                family.from_dict({"Nope": 1})  # type: ignore[attr-defined]
            self.assertEqual(caught.exception.message, f"unknown variant 'Nope' of {family.__name__}, expected one of {names}")

    def test_missing_required_field(self) -> None:
        data = json.loads(json.dumps(ITEM))
        del data["parts"][0]["Text"]["metadata"]
        with self.assertRaises(NormalizeError) as caught:
            Item.from_dict(data)
        self.assertEqual(caught.exception.path, "parts[0].Text.metadata")
        self.assertIn("missing field", caught.exception.message)

    def test_unknown_fields_are_ignored_and_struct_arrays_accepted(self) -> None:
        data = json.loads(json.dumps(ITEM))
        data["future_field"] = {"anything": [1]}
        self.assertEqual(Item.from_dict(data), Item.from_dict(ITEM))
        self.assertEqual(ak.TokenUsage.from_dict([1, 2, None, None, None]), ak.TokenUsage(1, 2))
        with self.assertRaises(NormalizeError):
            ak.TokenUsage.from_dict([1, 2, None, None])
        with self.assertRaises(NormalizeError):
            ak.TokenUsage.from_dict([1, 2, None, None, None, None])
        self.assertEqual(Part.from_dict({"Text": ["hi", {}]}), ak.TextPart("hi"))


class Depth(unittest.TestCase):
    def test_documented_limit_counts_containers_from_the_root(self) -> None:
        self.assertEqual(ak._codec.MAX_DEPTH, 127)  # serde_json refuses the 128th level
        # A structured part at the root: {"Structured": {"value": <v>}} puts v at level 3.
        ok = {"Structured": {"value": nested_list(125), "schema": None, "metadata": {}}}
        self.assertIsInstance(Part.from_dict(ok), StructuredPart)
        bad = {"Structured": {"value": nested_list(126), "schema": None, "metadata": {}}}
        with self.assertRaises(NormalizeError) as caught:
            Part.from_dict(bad)
        self.assertIn("recursion limit", caught.exception.message)

    def test_recursive_parts_and_self_references_do_not_overflow(self) -> None:
        part: dict[str, object] = {"Text": {"text": "x", "metadata": {}}}
        for _ in range(200):
            part = {"ToolResult": {"call_id": "c", "output": {"Parts": [part]}, "is_error": False, "metadata": {}}}
        with self.assertRaises(NormalizeError):
            Part.from_dict(part)
        loop: dict[str, object] = {}
        loop["a"] = loop
        with self.assertRaises(NormalizeError):
            ak.MetadataMap.from_dict({"k": loop})
        cycle: list[object] = []
        cycle.append(cycle)
        with self.assertRaises(NormalizeError):
            StructuredPart.from_dict({"Structured": {"value": cycle, "schema": None, "metadata": {}}})


class Hostile(unittest.TestCase):
    def test_arbitrary_python_objects_only_ever_raise_normalize_error(self) -> None:
        # Past the recursion limit, so a decoder that recursed without its depth bound would fail; no
        # deeper, because merely freeing a list nested ~5,000 deep overflows Pyodide's stack and kills it.
        deep = nested_list(2 * sys.getrecursionlimit())
        junk: list[object] = [
            None, True, 0, -1, 2**70, 1.5, float("nan"), float("inf"), "", "x", "\ud800", b"x", bytearray(b"x"),
            (), (1,), [], [None], {}, {"x": 1}, {1: 2}, {None: None}, {("t",): 1}, set(), frozenset(), object(),
            Weird(), Weird, Touchy(), {Touchy(): None}, {"k": Touchy()}, [Touchy()], len, ..., NotImplemented, {"Text": None}, {"Text": Weird()}, {"Text": {"text": Weird(), "metadata": {}}},
            {"Text": {"text": "x", "metadata": {"k": Weird()}}}, {"Text": {"text": "x", "metadata": {1: 1}}},
            {"Text": {"text": "x", "metadata": {"k": {2: 1}}}}, {"Text": {"text": "x", "metadata": {"k": [float("inf")]}}},
            {"Text": {"text": "x", "metadata": {"\udfff": 1}}}, {"InlineBytes": [256]}, {"InlineBytes": [1.0]}, {"InlineBytes": b"ab"},
            {"InlineBytes": "AAEC"}, {"Structured": {"value": {1, 2}, "metadata": {}}}, deep, ITEM["parts"],
            {"kind": "User", "parts": None, "metadata": {}}, {"kind": "User", "parts": [1], "metadata": {}},
            {"input_tokens": True, "output_tokens": 1}, {"input_tokens": 1.0, "output_tokens": 1}, {"amount": "1", "currency": "USD"},
            {"amount": 10**400, "currency": "USD"}, {"amount": float("nan"), "currency": "USD"}, {"tokens": [], "metadata": {}},
            {"Other": ["x"]}, {"Handle": None}, {"Files": [{"data": None, "metadata": {}}]}, {"Parts": {"Text": 1}},
            {"AppendBytes": {"part_id": "p", "chunk": [-1]}}, {"CommitPart": {"part": {"Nope": {}}}}, {"BeginPart": {"part_id": "p", "kind": "Nope"}},
        ]
        for cls in DECODERS:
            for index, value in enumerate(junk):
                with self.subTest(cls=cls.__name__, junk=index):
                    try:
                        cls.from_dict(value)  # type: ignore[attr-defined]
                    except NormalizeError as exc:
                        self.assertIsInstance(exc.message, str)

    def test_subclasses_of_builtins_are_normalised(self) -> None:
        part = Part.from_dict({StrSub("Text"): {"text": StrSub("hi"), "metadata": {StrSub("k"): IntSub(3)}}})
        self.assertIs(type(part.text), str)  # type: ignore[attr-defined]
        self.assertIs(type(part.metadata["k"]), int)
        self.assertEqual(json.dumps(part.to_dict()), '{"Text": {"text": "hi", "metadata": {"k": 3}}}')

    def test_lone_surrogates_are_refused_everywhere(self) -> None:
        for path in (["id"], ["parts", 0, "Text", "text"], ["metadata", "openai.raw", "list", 0]):
            with self.subTest(path=path), self.assertRaises(NormalizeError):
                Item.from_dict(mutate(ITEM, path, "a\ud800b"))
        bad_key = json.loads(json.dumps(ITEM))
        bad_key["metadata"]["\ud800"] = 1
        with self.assertRaises(NormalizeError):
            Item.from_dict(bad_key)


class NoAliasing(unittest.TestCase):
    def test_mutating_the_source_after_decoding_changes_nothing(self) -> None:
        data = json.loads(json.dumps(ITEM))
        data["parts"].append({"ToolCall": {"id": "c", "name": "n", "input": {"args": [1, {"deep": 1}]}, "metadata": {"m": {"x": [1]}}}})
        item = Item.from_dict(data)
        before = json.dumps(item.to_dict())
        data["metadata"]["openai.raw"]["list"].append(99)
        data["parts"][3]["ToolCall"]["input"]["args"][1]["deep"] = 2
        data["parts"][3]["ToolCall"]["metadata"]["m"]["x"].clear()
        data["parts"].clear()
        self.assertEqual(json.dumps(item.to_dict()), before)

    def test_mutating_to_dict_output_changes_nothing(self) -> None:
        call = ToolCallPart(ak.ToolCallId("c"), "n", {"a": [1]}, metadata={"m": {"x": 1}})
        out = call.to_dict()
        out["ToolCall"]["input"]["a"].append(2)
        out["ToolCall"]["metadata"]["m"]["x"] = 2
        self.assertEqual(call.input, {"a": [1]})
        self.assertEqual(call.metadata["m"], {"x": 1})


if __name__ == "__main__":
    unittest.main()
