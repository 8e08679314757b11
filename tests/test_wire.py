"""The reference's own vectors: byte-identical round trips and accept/reject parity."""

from __future__ import annotations

import json
import os
import unittest

import agentkit_core as ak

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "vectors")

TYPES = {
    name: getattr(ak, name)
    for name in (
        "Item",
        "Part",
        "Delta",
        "Usage",
        "TokenUsage",
        "FinishReason",
        "DataRef",
        "ToolOutput",
        "ItemKind",
        "PartKind",
        "Modality",
    )
}


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read_tsv(name: str) -> list[list[str]]:
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f]


class WireVectors(unittest.TestCase):
    def test_every_reference_value_round_trips_byte_identical(self) -> None:
        rows = read_tsv("reference-wire.tsv")
        self.assertEqual(len(rows), 1650)
        self.assertEqual({r[0] for r in rows}, set(TYPES))
        for lineno, (type_name, text) in enumerate(rows, 1):
            with self.subTest(line=lineno, type=type_name):
                value = TYPES[type_name].from_dict(json.loads(text))
                self.assertEqual(compact(value.to_dict()), text)
                self.assertEqual(value.to_json(), text)  # an item's written from its fields (_line.py)

    def test_decoding_is_stable_under_a_second_round_trip(self) -> None:
        for lineno, (type_name, text) in enumerate(read_tsv("reference-wire.tsv"), 1):
            with self.subTest(line=lineno, type=type_name):
                cls = TYPES[type_name]
                value = cls.from_dict(json.loads(text))
                self.assertEqual(cls.from_dict(json.loads(compact(value.to_dict()))), value)

    def test_accepts_exactly_what_the_reference_accepts(self) -> None:
        rows = read_tsv("reference-judged.tsv")
        self.assertEqual(len(rows), 4349)
        verdicts = {"ok": 0, "err": 0}
        for lineno, (type_name, text, verdict, back) in enumerate(rows, 1):
            verdicts[verdict] += 1
            with self.subTest(line=lineno, type=type_name, verdict=verdict, reference=back[:80]):
                data = json.loads(text)
                if verdict == "ok":
                    value = TYPES[type_name].from_dict(data)
                    self.assertEqual(compact(value.to_dict()), back)
                    self.assertEqual(value.to_json(), back)
                else:
                    with self.assertRaises(ak.NormalizeError) as caught:
                        TYPES[type_name].from_dict(data)
                    self.assertIsInstance(caught.exception, ValueError)
                    self.assertTrue(caught.exception.message)
        self.assertGreater(verdicts["ok"], 500)
        self.assertGreater(verdicts["err"], 3000)


if __name__ == "__main__":
    unittest.main()
