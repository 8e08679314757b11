"""The fuzzer: a short seeded run, and a replay of every crasher it ever found.

``tools/fuzz.py`` writes each failure to ``tests/fuzz_crashers/<hash>.json``;
every such file is replayed here, so a crasher stays a regression test once
the package is fixed.  The long run is in docs/development.md ("Fuzzing").
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
import unittest
from types import ModuleType
from typing import Any, Callable

from tests.capability import needs_signals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRASHERS = os.path.join(ROOT, "tests", "fuzz_crashers")


def load_fuzz() -> ModuleType:
    """``tools/fuzz.py`` as a module (``tools`` is not a package)."""
    name = "agentkit_core_tools_fuzz"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tools", "fuzz.py"))
    if spec is None or spec.loader is None:
        raise AssertionError("cannot load tools/fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fuzz: Any = load_fuzz()


class TestShortRun(unittest.TestCase):
    def test_seeded_run_finds_nothing(self) -> None:
        start = time.perf_counter()
        crashes = fuzz.run(iterations=10000, seed=2024, max_crashes=3)  # a broken package fails fast
        self.assertEqual([c.signature for c in crashes], [])
        self.assertLess(time.perf_counter() - start, 30)

    def test_runs_are_reproducible(self) -> None:
        import random

        seeds = fuzz.load_seeds()
        first = [repr(x) for x, _ in zip(fuzz.cases(random.Random(5), seeds), range(200))]
        second = [repr(x) for x, _ in zip(fuzz.cases(random.Random(5), seeds), range(200))]
        self.assertEqual(first, second)
        self.assertGreater(len(set(first)), 150)

    def test_the_checks_catch_what_they_promise_to(self) -> None:
        import agentkit_core as ak

        # a decoder that breaks the round trip
        original = ak.TokenUsage.to_dict
        ak.TokenUsage.to_dict = lambda self: {**original(self), "input_tokens": 0}  # type: ignore[method-assign]
        try:
            problem = fuzz.check("TokenUsage", {"input_tokens": 1, "output_tokens": 2})
        finally:
            ak.TokenUsage.to_dict = original  # type: ignore[method-assign]
        self.assertRegex(problem or "", "^round trip changed the value")
        self.assertIsNone(fuzz.check("fold-raw", [object()]))  # fold refuses it politely
        slow = fuzz.DECODERS["Timestamp"]
        def slow_timestamp(v: object) -> ak.Timestamp:
            time.sleep(0.06)
            return ak.Timestamp.from_dict(v)

        fuzz.DECODERS["Timestamp"] = slow_timestamp
        limit, fuzz.TIME_LIMIT = fuzz.TIME_LIMIT, 0.05  # the rule, not the number: a second's sleep proves no more
        try:
            self.assertRegex(fuzz.check("Timestamp", 5) or "", r"^slow: took 0\.\d\d s \(limit 0.05 s\)")
        finally:
            fuzz.DECODERS["Timestamp"] = slow
            fuzz.TIME_LIMIT = limit
        def meddle(v: dict[str, object], then: Callable[[], object]) -> object:
            v["added"] = True
            return then()

        for name, then in (("Meddler", lambda: ak.Timestamp.from_dict(5)), ("Refuser", lambda: ak.Timestamp.from_dict("x"))):
            fuzz.DECODERS[name] = lambda v, then=then: meddle(v, then)
            try:
                self.assertEqual(fuzz.check(name, {}), f"{name}.from_dict changed its input")
            finally:
                del fuzz.DECODERS[name]
        fuzz.DECODERS["Boom"] = lambda v: 1 // 0
        try:
            self.assertRegex(fuzz.check("Boom", 5) or "", r"^Boom.from_dict raised ZeroDivisionError: .* \[at ")
        finally:
            del fuzz.DECODERS["Boom"]

    @needs_signals("setitimer", "SIGALRM")
    def test_a_stuck_input_is_interrupted_and_reported_slow(self) -> None:
        self.assertIs(threading.current_thread(), threading.main_thread())  # unittest runs tests there
        fuzz.DECODERS["Stuck"] = lambda v: time.sleep(30)
        hard, fuzz.HARD_LIMIT = fuzz.HARD_LIMIT, 0.2
        try:
            start = time.perf_counter()
            self.assertRegex(fuzz.check("Stuck", 5) or "", r"^slow: still running after 0.2 s \(interrupted")
            self.assertLess(time.perf_counter() - start, 5)
        finally:
            fuzz.HARD_LIMIT = hard
            del fuzz.DECODERS["Stuck"]

    def test_crash_records_round_trip_their_input(self) -> None:
        import agentkit_core as ak

        weird = [
            {1: float("nan"), "$x": (1, b"\x00"), "k": {frozenset(), 2j}.__len__()},
            fuzz.StrSub("s"), fuzz.IntSub(3), fuzz.DictSub(a=1), fuzz.ListSub([1]), "\ud800", float("-inf"),
            fuzz.forged(ak.AppendText, part_id=ak.PartId("p"), chunk=5),  # what the constructor refuses, built around it
            ak.CommitPart(ak.TextPart("t", metadata={"a": 1}), part_id=ak.PartId("p")),
            ak.BeginPart(ak.PartId("p"), ak.PartKind.TEXT), ak.Timestamp(5), bytearray(b"ab"), {1, 2}, fuzz.Opaque(),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = fuzz.Crash("fold-raw", weird, "a problem").write(tmp)
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        again = fuzz.decode_input(record["input"])
        self.assertEqual(repr(again[:-1]), repr(weird[:-1]))
        self.assertEqual([type(x) for x in again], [type(x) for x in weird])


class TestCrashers(unittest.TestCase):
    """Every crasher the fuzzer wrote: each must now behave."""

    def test_replay(self) -> None:
        paths = sorted(glob.glob(os.path.join(CRASHERS, "*.json")))
        self.assertGreaterEqual(len(paths), 2, f"the crashers in {CRASHERS} are gone: nothing to replay")
        for path in paths:
            with self.subTest(crasher=os.path.basename(path)):
                with open(path, encoding="utf-8") as f:
                    record = json.load(f)
                self.assertIsNone(fuzz.check(record["target"], fuzz.decode_input(record["input"])), record["problem"])


if __name__ == "__main__":
    unittest.main()
