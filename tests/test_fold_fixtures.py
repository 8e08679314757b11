"""Replay the golden fold fixtures in tests/fold_fixtures (format: its README.md).

The expected parts were written by hand from the rules, so these tests check
the fold against the rules, not against an earlier run of itself.
"""

from __future__ import annotations

import json
import os
import unittest
from typing import Any

from agentkit_core import Delta, FoldState, Part, fold, fold_all

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fold_fixtures")

#: Shapes the issue asks the fixtures to cover; removing one must fail a test.
REQUIRED = (
    "text_streaming",
    "openai_compatible",
    "anthropic",
    "parallel_tool_calls",
    "audio_bytes",
    "buffered",
    "out_of_order_commits",
    "commit_matching_by_kind",
    "commit_is_authoritative",
    "metadata_merging",
    "structured_replace",
    "custom_part",
    "open_placeholders",
)


def names() -> list[str]:
    return sorted(f[: -len(".deltas.jsonl")] for f in os.listdir(HERE) if f.endswith(".deltas.jsonl"))


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def compact(value: Any) -> str:
    """Byte-exact comparison: values, key order and number types all count."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def load_deltas(name: str) -> tuple[list[str], list[Delta]]:
    with open(os.path.join(HERE, f"{name}.deltas.jsonl"), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    return lines, [Delta.from_dict(json.loads(line)) for line in lines]


class FoldFixtureTest(unittest.TestCase):
    def test_the_required_fixtures_are_present_and_complete(self) -> None:
        found = names()
        for name in REQUIRED:
            self.assertIn(name, found)
        for f in os.listdir(HERE):
            if f.endswith(".json") or f.endswith(".jsonl"):
                stem = f.split(".")[0]
                self.assertIn(stem, found, f"{f} has no deltas file")
                self.assertTrue(os.path.exists(os.path.join(HERE, f"{stem}.parts.json")), f"{stem} has no parts file")

    def test_delta_lines_are_the_wire_format(self) -> None:
        for name in names():
            with self.subTest(fixture=name):
                lines, deltas = load_deltas(name)
                self.assertTrue(deltas)
                for line, delta in zip(lines, deltas):
                    self.assertEqual(json.dumps(delta.to_dict(), ensure_ascii=False), line)

    def test_replay(self) -> None:
        for name in names():
            with self.subTest(fixture=name):
                _, deltas = load_deltas(name)
                expected = [compact(p) for p in read_json(os.path.join(HERE, f"{name}.parts.json"))]
                state = fold_all((), deltas)
                self.assertEqual([compact(p.to_dict()) for p in state.parts], expected)
                # Every expected part also decodes to the part the fold built.
                self.assertEqual(tuple(Part.from_dict(json.loads(p)) for p in expected), state.parts)
                snapshot_path = os.path.join(HERE, f"{name}.snapshot.json")
                if os.path.exists(snapshot_path):
                    self.assertTrue(state.is_open, "a snapshot file means the stream ends with open parts")
                    snapshot = [compact(p) for p in read_json(snapshot_path)]
                    self.assertEqual([compact(p.to_dict()) for p in state.snapshot()], snapshot)
                else:
                    self.assertFalse(state.is_open, f"open at the end: {state.open_ids}")
                    self.assertEqual(state.snapshot(), state.parts)

    def test_replay_one_delta_at_a_time_gives_the_same_state(self) -> None:
        for name in names():
            with self.subTest(fixture=name):
                _, deltas = load_deltas(name)
                state = FoldState()
                for delta in deltas:
                    state = fold(state, delta)
                whole = fold_all((), deltas)
                self.assertEqual(state, whole)
                self.assertEqual(state.parts, whole.parts)


if __name__ == "__main__":
    unittest.main()
