"""Edge cases of the kernel that the broader tests do not reach: exact depth limits,
builtin subclasses and cross-type comparisons (the fold's races: tests/test_fold_branches.py)."""

from __future__ import annotations

import json
import unittest
from typing import Any

import agentkit_core as ak
from agentkit_core import (
    CommitPart,
    CostUsage,
    FilePart,
    FilesOutput,
    FinishReason,
    Item,
    ItemKind,
    MetadataMap,
    NormalizeError,
    Part,
    PartKind,
    PartsOutput,
    TextPart,
    Usage,
    _codec as C,
)
from agentkit_core._make import unchecked_maker
from tests.forge import forged


class IntSub(int):
    pass


class FloatSub(float):
    pass


class DictSub(dict):  # type: ignore[type-arg]
    pass


def wrapped(inner_part: dict[str, Any], times: int) -> dict[str, Any]:
    """``inner_part`` inside ``times`` tool results: each wrapper adds four levels."""
    for _ in range(times):
        inner_part = {"ToolResult": {"call_id": "c", "output": {"Parts": [inner_part]}, "is_error": False, "metadata": {}}}
    return inner_part


def item_of(part: dict[str, Any]) -> dict[str, Any]:
    """An item holding ``part``, which then sits at level 3."""
    return {"kind": "Tool", "parts": [part], "metadata": {}}


def file_result(file_struct: Any) -> dict[str, Any]:
    return {"ToolResult": {"call_id": "c", "output": {"Files": [file_struct]}, "is_error": False, "metadata": {}}}


class ExactDepthLimits(unittest.TestCase):
    """Levels count every container from the root; level 127 is the deepest allowed."""

    def test_a_data_reference_at_level_128_is_refused_and_at_124_accepted(self) -> None:
        # Item(1) parts(2) part(3 + 4k) body output Files(+3) FilePart(+4) data(+5)
        file = {"name": None, "mime_type": None, "data": {"InlineText": "x"}, "metadata": {}}
        at_128 = item_of(wrapped(file_result(file), 30))  # part at 123, data at 128
        with self.assertRaises(NormalizeError) as caught:
            Item.from_dict(at_128)
        self.assertIn("recursion limit", caught.exception.message)
        at_124 = item_of(wrapped(file_result(file), 29))
        self.assertEqual(Item.from_dict(at_124).to_dict(), at_124 | {"id": None, "usage": None, "finish_reason": None, "created_at": None})

    def test_a_struct_written_as_an_array_counts_as_a_container(self) -> None:
        # the FilePart struct at level 127 is fine as a map, and its metadata at 128 is not
        file_as_array = [None, None, {"Uri": "u"}, {}]
        with self.assertRaises(NormalizeError):
            Item.from_dict(item_of(wrapped(file_result(file_as_array), 30)))
        ok = item_of(wrapped(file_result([None, None, {"Uri": "u"}, {}]), 29))
        self.assertIsInstance(Item.from_dict(ok), Item)

    def test_metadata_maps_at_the_limit(self) -> None:
        # Part(1) body(2) metadata(3) value(4): with 123 wrappers the innermost {} sits at 127
        def part_with(value: Any) -> dict[str, Any]:
            return {"Text": {"text": "x", "metadata": {"k": value}}}

        value: Any = {}
        for _ in range(123):
            value = {"k": value}
        self.assertIsInstance(Part.from_dict(part_with(value)), TextPart)
        with self.assertRaises(NormalizeError):
            Part.from_dict(part_with({"k": value}))
        with self.assertRaises(NormalizeError):
            Part.from_dict(part_with(DictSub({"k": value})))
        # an empty metadata map at level 128
        file_empty_md = {"name": None, "mime_type": None, "data": {"Uri": "u"}, "metadata": {}}
        with self.assertRaises(NormalizeError):
            Item.from_dict(item_of(wrapped(file_result(file_empty_md), 30)))


class BuiltinSubclasses(unittest.TestCase):
    def test_are_normalised_to_exact_types(self) -> None:
        part = Part.from_dict({"Media": {"modality": "Image", "mime_type": "image/png", "data": {"InlineBytes": [IntSub(1), 2]}, "metadata": {"f": FloatSub(1.5), "d": DictSub(a=1), "l": [IntSub(7)]}}})
        self.assertEqual(part.data.value, b"\x01\x02")  # type: ignore[attr-defined]
        self.assertIs(type(part.metadata["f"]), float)
        self.assertIs(type(part.metadata["d"]), dict)
        self.assertIs(type(part.metadata["l"][0]), int)  # type: ignore[index]
        with self.assertRaises(NormalizeError):
            Part.from_dict({"Media": {"modality": "Image", "mime_type": "x", "data": {"InlineBytes": [IntSub(256)]}, "metadata": {}}})
        self.assertEqual(ak.DataRef.from_dict({"InlineBytes": type("L", (list,), {})([3])}), ak.InlineBytes(b"\x03"))

    def test_maker_demands_every_field(self) -> None:
        with self.assertRaises(TypeError):
            unchecked_maker(TextPart, "text")
        self.assertEqual(repr(C.MISSING), "<missing>")

    def test_decoded_values_are_indistinguishable_from_constructed_ones(self) -> None:
        # Decoders build values as a mutable twin, then switch the class: nothing may show it.
        import copy
        import dataclasses
        import pickle

        made = Item(
            ItemKind.ASSISTANT,
            [TextPart("hi", metadata={"k": 1}), ak.ToolCallPart(ak.ToolCallId("c"), "f", {"a": [1]})],
            id=ak.MessageId("m"),
            usage=Usage(ak.TokenUsage(3, 4, reasoning_tokens=1), cost=CostUsage(0.5, "USD")),
        )
        decoded = Item.from_dict(made.to_dict())
        pairs = [(made, decoded), (made.parts[0], decoded.parts[0]), (made.parts[1], decoded.parts[1])]
        pairs += [(made.id, decoded.id), (made.usage, decoded.usage), (made.usage.tokens, decoded.usage.tokens)]  # type: ignore[union-attr]
        for want, got in pairs:
            with self.subTest(type(want).__name__):
                self.assertIs(type(got), type(want))
                self.assertEqual(got, want)
                self.assertEqual(repr(got), repr(want))
                self.assertFalse(hasattr(got, "__dict__"))
                with self.assertRaises(dataclasses.FrozenInstanceError):
                    setattr(got, dataclasses.fields(got)[0].name, None)  # type: ignore[arg-type]
                self.assertEqual(pickle.loads(pickle.dumps(got)), want)
                self.assertEqual(copy.deepcopy(got), want)
        self.assertEqual(hash(decoded.usage.tokens), hash(made.usage.tokens))  # type: ignore[union-attr]
        self.assertEqual(hash(decoded.id), hash(made.id))
        # The twins subclass each value's own class, so the families' variant lists stay exact.
        # (by name: dataclass(slots=True) replaces each class, and the replaced one lingers)
        variants = {"TextPart", "MediaPart", "FilePart", "StructuredPart", "ReasoningPart", "ToolCallPart", "ToolResultPart", "CustomPart"}
        self.assertEqual({c.__name__ for c in Part.__subclasses__()}, variants)


class Comparisons(unittest.TestCase):
    def test_values_compare_hash_and_show_by_fields(self) -> None:
        self.assertEqual(ak.TokenUsage(1, 2), ak.TokenUsage(1, 2))
        self.assertNotEqual(ak.TokenUsage(1, 2), ak.TokenUsage(1, 3))
        self.assertEqual(hash(ak.TokenUsage(1, 2)), hash(ak.TokenUsage(1, 2)))
        self.assertEqual(len({ak.InlineText("a"), ak.InlineText("a"), ak.Uri("a")}), 2)
        # exactly the same class: same fields in another variant, or a subclass, are not equal
        self.assertNotEqual(ak.InlineText("a"), ak.Uri("a"))
        self.assertIs(ak.InlineText("a").__eq__(ak.Uri("a")), NotImplemented)
        sub = type("Sub", (ak.InlineText,), {"__slots__": ()})("a")
        self.assertNotEqual(sub, ak.InlineText("a"))
        self.assertEqual(repr(ak.TokenUsage(1, 2)), "TokenUsage(input_tokens=1, output_tokens=2, reasoning_tokens=None, cached_input_tokens=None, cache_write_input_tokens=None)")
        # Constructors refuse NaN and cycles; values built around them still compare and show safely.
        nan = float("nan")
        self.assertEqual(forged(ak.StructuredPart, value=nan, schema=None, metadata=ak.EMPTY_METADATA), forged(ak.StructuredPart, value=nan, schema=None, metadata=ak.EMPTY_METADATA))
        with self.assertRaises(TypeError):
            hash(TextPart("x"))  # its metadata is a mapping
        # a value reached again through its own payload shows as "..."
        loop: list[Any] = []
        part = forged(ak.StructuredPart, value=loop, schema=None, metadata=ak.EMPTY_METADATA)
        loop.append(part)
        self.assertEqual(repr(part), "StructuredPart(value=[...], schema=None, metadata=MetadataMap({}))")
        # a subclass that is no dataclass has no fields: object's equality, hash and repr
        alien_class = type("Alien", (ak.Delta,), {"__slots__": ()})
        alien = forged(alien_class)
        self.assertEqual(alien, alien)
        self.assertNotEqual(alien, forged(alien_class))
        self.assertEqual(hash(alien), object.__hash__(alien))
        self.assertTrue(repr(alien).startswith("<"))

    def test_enums_order_only_within_their_own_type(self) -> None:
        a, b = ItemKind.USER, ItemKind.TOOL
        self.assertTrue(a < b and a <= b and b > a and b >= a and not a > b and not b <= a)
        for op in ("__lt__", "__le__", "__gt__", "__ge__"):
            self.assertIs(getattr(a, op)(PartKind.TEXT), NotImplemented)

    def test_values_refuse_foreign_operands(self) -> None:
        self.assertFalse(MetadataMap({"a": 1}) == 1)
        self.assertTrue(MetadataMap({"a": 1}) == {"a": 1})
        with self.assertRaises(TypeError):
            CostUsage(1.0, "USD") + 1  # type: ignore[operator]
        with self.assertRaises(TypeError):
            "x" + Usage()  # type: ignore[operator]
        self.assertEqual(0 + Usage(), Usage())

    def test_output_containers_store_tuples(self) -> None:
        self.assertEqual(PartsOutput([TextPart("a")]).parts, (TextPart("a"),))
        self.assertIsInstance(FilesOutput([FilePart(ak.Uri("u"))]).files, tuple)


class WireEdges(unittest.TestCase):
    def test_unit_variant_with_null_payload(self) -> None:
        self.assertIs(FinishReason.from_dict({"Completed": None}), FinishReason.COMPLETED)

    def test_a_commit_part_id_that_is_not_valid_unicode_is_ignored(self) -> None:
        delta = ak.Delta.from_dict({"CommitPart": {"part": {"Text": {"text": "x", "metadata": {}}}, "part_id": "\ud800"}})
        self.assertEqual(delta, CommitPart(TextPart("x")))
        delta = ak.Delta.from_dict({"CommitPart": {"part": {"Text": {"text": "x", "metadata": {}}}, "part_id": 5}})
        self.assertIsNone(delta.part_id)  # type: ignore[attr-defined]
        kept = ak.Delta.from_dict({"CommitPart": {"part": {"Text": {"text": "x", "metadata": {}}}, "part_id": "p"}})
        self.assertEqual(json.dumps(kept.to_dict()), '{"CommitPart": {"part": {"Text": {"text": "x", "metadata": {}}}, "part_id": "p"}}')


if __name__ == "__main__":
    unittest.main()
