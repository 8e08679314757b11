"""JSON text in and out: ``to_json``/``from_json`` on every wire type, and transcripts in files."""

from __future__ import annotations

import enum
import json
import os
import pickle
import unittest

import agentkit_core as ak

HERE = os.path.dirname(os.path.abspath(__file__))
WIRE = os.path.join(HERE, "vectors", "reference-wire.tsv")
JUDGED = os.path.join(HERE, "vectors", "reference-judged.tsv")


def reference(value: object) -> str:
    """The reference's compact form, as the issue defines it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def wire_types() -> list[type]:
    """Every public class of the package that has ``from_dict``."""
    return sorted(
        (t for t in (getattr(ak, name) for name in ak.__all__) if isinstance(t, type) and hasattr(t, "from_dict")),
        key=lambda t: t.__name__,
    )


def samples() -> list[object]:
    """One or more values of every wire type."""
    call = ak.ToolCallPart(ak.ToolCallId("c1"), "get_weather", {"city": "Paris", "deep": [[{"x": None}]]})
    image = ak.MediaPart(ak.Modality.IMAGE, "image/png", ak.InlineBytes(b"\x89PNG"), metadata={"k": "\u202e"})
    parts = [
        ak.TextPart("h\u00e9llo \U0001f389 \x1b[2J", metadata={"openai.id": "x"}),
        image,
        ak.FilePart(ak.Uri("https://example.com/a.pdf"), name="a.pdf", mime_type="application/pdf"),
        ak.StructuredPart({"a": [1, 2.5, True, None]}, schema={"type": "object"}),
        ak.ReasoningPart("thinking", data=ak.InlineText("sig"), redacted=True),
        call,
        ak.ToolResultPart(ak.ToolCallId("c1"), ak.ToolOutput.parts([ak.TextPart("sunny")]), is_error=True),
        ak.CustomPart("anthropic.server_tool_use", data=ak.Handle(ak.ArtifactId("art-1")), value=[1, "two"]),
    ]
    usage = ak.Usage(ak.TokenUsage(10, 5, reasoning_tokens=2), cost=ak.CostUsage(0.25, "USD", provider_amount="0.25"),
                     metadata={"gemini.x": 1})
    item = ak.Item(ak.ItemKind.ASSISTANT, parts, id=ak.MessageId("msg-1"), usage=usage,
                   finish_reason=ak.FinishReason.other("pause_turn"), created_at=ak.Timestamp(1_784_000_000_000))
    deltas = [
        ak.BeginPart(ak.PartId("p"), ak.PartKind.TEXT),
        ak.AppendText(ak.PartId("p"), "chunk"),
        ak.AppendBytes(ak.PartId("p"), b"\x00\xff"),
        ak.ReplaceStructured(ak.PartId("p"), {"v": 1}),
        ak.SetMetadata(ak.PartId("p"), {"agentkit.tool_name": "n"}),
        ak.CommitPart(ak.TextPart("done"), part_id=ak.PartId("p")),
    ]
    outputs = [ak.ToolOutput.text("t"), ak.ToolOutput.structured({"s": 1}), ak.ToolOutput.parts([parts[0]]),
               ak.ToolOutput.files([parts[2]])]
    refs = [ak.InlineText("t"), ak.InlineBytes(b"\x01"), ak.Uri("u"), ak.Handle(ak.ArtifactId("h"))]
    ids = [ak.SessionId("s"), ak.TurnId("t"), ak.MessageId("m"), ak.ToolCallId("c"), ak.ToolResultId("r"), ak.TaskId("k"),
           ak.ProviderMessageId("p"), ak.ArtifactId("a"), ak.PartId("q"), ak.ApprovalId("v")]
    enums = [*ak.ItemKind, *ak.PartKind, *ak.Modality]
    return [item, *parts, *deltas, *outputs, *refs, *ids, *enums, usage, usage.tokens, usage.cost,
            ak.FinishReason.COMPLETED, ak.FinishReason.other("x"), ak.MetadataMap({"b": [1], "a": {"c": "\ud7ff"}}),
            ak.Timestamp(0)]


class TestJsonText(unittest.TestCase):
    def test_every_wire_type_has_both_methods_and_samples_cover_them(self) -> None:
        covered = {type(v) for v in samples()}
        for t in wire_types():
            with self.subTest(type=t.__name__):
                self.assertTrue(callable(getattr(t, "from_json", None)))
                self.assertTrue(callable(getattr(t, "to_json", None)))
                self.assertTrue(any(issubclass(c, t) for c in covered), f"no sample of {t.__name__}")

    def test_to_json_is_the_reference_form_and_from_json_reads_it_back(self) -> None:
        for value in samples():
            with self.subTest(value=repr(value)[:80]):
                text = value.to_json()  # type: ignore[attr-defined]
                self.assertIsInstance(text, str)
                self.assertEqual(text, reference(value.to_dict()))  # type: ignore[attr-defined]
                for cls in type(value).__mro__:  # the variant and its public family base
                    if getattr(ak, cls.__name__, None) is cls and hasattr(cls, "from_dict"):
                        back = cls.from_json(text)  # type: ignore[attr-defined]
                        self.assertEqual(back, value)
                        self.assertIs(type(back), type(value))
                self.assertEqual(type(value).from_json(text.encode("utf-8")), value)  # type: ignore[attr-defined]
                self.assertEqual(type(value).from_json(bytearray(text.encode("utf-16"))), value)  # type: ignore[attr-defined]

    def test_byte_identical_to_the_reference_vectors(self) -> None:
        with open(WIRE, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                name, text = line.rstrip("\n").split("\t", 1)
                with self.subTest(line=n, type=name):
                    self.assertEqual(getattr(ak, name).from_json(text).to_json(), text)

    def test_judged_vectors_accepted_and_refused_as_the_reference_did(self) -> None:
        with open(JUDGED, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        for n, (name, text, verdict, written) in enumerate(rows, 1):
            with self.subTest(line=n, type=name):
                if verdict == "ok":
                    self.assertEqual(getattr(ak, name).from_json(text).to_json(), written)
                else:
                    self.assertRaises(ak.NormalizeError, getattr(ak, name).from_json, text)

    def test_a_variant_reads_only_itself(self) -> None:
        text = ak.TextPart("x").to_json()
        self.assertEqual(ak.Part.from_json(text), ak.TextPart("x"))
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.MediaPart.from_json(text)
        self.assertIn("expected a MediaPart, found a TextPart", str(caught.exception))

    def test_invalid_json_raises_normalize_error(self) -> None:
        for text in ("", "{", '{"kind": "User",}', "[1, 2", "NaN", '{"x": Infinity}', b"\xff\xfe\xfd", "\ud800", "{} {}"):
            with self.subTest(text=text):
                with self.assertRaises(ak.NormalizeError) as caught:
                    ak.Item.from_json(text)
                self.assertTrue(caught.exception.message.startswith("invalid JSON"), caught.exception.message)

    def test_wrong_field_raises_with_the_path(self) -> None:
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.Item.from_json('{"kind": "User", "parts": [{"Text": {"text": 5, "metadata": {}}}], "metadata": {}}')
        self.assertEqual((caught.exception.path, caught.exception.location), ("parts[0].Text.text", ""))

    def test_not_text_is_a_type_error(self) -> None:
        for value in (None, 5, {"kind": "User"}, memoryview(b"{}")):
            with self.subTest(value=value):
                with self.assertRaises(TypeError):
                    ak.Item.from_json(value)  # type: ignore[arg-type]
                with self.assertRaises(TypeError):
                    ak.parse_json(value)  # type: ignore[arg-type]

    def test_values_still_have_no_instance_dict(self) -> None:
        for value in samples():
            with self.subTest(type=type(value).__name__):
                if not isinstance(value, enum.Enum):  # enum members are not slotted
                    self.assertFalse(hasattr(value, "__dict__"))


class TestLocatedErrors(unittest.TestCase):
    def test_location_path_and_message(self) -> None:
        err = ak.NormalizeError("invalid type: integer `5`, expected a string", "parts[0].Text.text", "turn.jsonl:3")
        self.assertEqual(str(err), "turn.jsonl:3: parts[0].Text.text: invalid type: integer `5`, expected a string")
        self.assertEqual(str(ak.NormalizeError("bad", "", "f.json")), "f.json: bad")
        self.assertEqual(str(ak.NormalizeError("bad")), "bad")
        self.assertEqual(str(err.under("[2]")), "turn.jsonl:3: [2].parts[0].Text.text: invalid type: integer `5`, expected a string")

    def test_pickles_with_and_without_location(self) -> None:
        for err in (ak.NormalizeError("m", "p", "f:1"), ak.NormalizeError("m", "p"), ak.NormalizeError("m")):
            with self.subTest(err=str(err)):
                back = pickle.loads(pickle.dumps(err))
                self.assertEqual((type(back), back.args, str(back), back.location), (type(err), err.args, str(err), err.location))


if __name__ == "__main__":
    unittest.main()
