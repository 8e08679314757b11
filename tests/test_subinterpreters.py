"""The package in an isolated subinterpreter, where the interpreter has them (CPython's private modules).

An isolated subinterpreter has its own GIL and imports its own copy of every
module, so the package must work there from scratch and share no module-level
state with the main interpreter.  Results come back as JSON through a pipe:
only strings, bytes and integers cross between interpreters.
"""

from __future__ import annotations

import json
import os
import unittest
from typing import Any

from tests.capability import (
    create_isolated_interpreter,
    needs_asyncio_in_subinterpreters,
    needs_subinterpreters,
    needs_threads_in_subinterpreters,
    run_in_interpreter,
    subinterpreters,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Run first in every subinterpreter: the package from this checkout, and report(value) to send
# JSON back through the pipe whose write end is `fd`.
PRELUDE = """
import json, os, sys
sys.path.insert(0, root)
def report(value):
    os.write(fd, json.dumps(value).encode() + b"\\n")
"""

ROUND_TRIP_FOLD_CANCEL = """
import agentkit_core as ak
item = ak.Item(ak.ItemKind.ASSISTANT, [ak.TextPart("hi"), ak.ToolCallPart(ak.ToolCallId("c1"), "get_weather", {"city": "Paris"})])
wire = json.dumps(item.to_dict(), separators=(",", ":"), ensure_ascii=False)
again = ak.Item.from_dict(json.loads(wire))
text, call = ak.PartId("t"), ak.PartId("c")
state = ak.fold_all((), [
    ak.BeginPart(text, ak.PartKind.TEXT), ak.BeginPart(call, ak.PartKind.TOOL_CALL),
    ak.AppendText(text, "Let me "), ak.AppendText(call, '{"city": '), ak.AppendText(text, "check."),
    ak.AppendText(call, '"Paris"}'),
])
snapshot = [p.to_dict() for p in state.snapshot()]
finalized = [p.to_dict() for p in state.finalize()]
controller = ak.CancellationController()
checkpoint = controller.handle().checkpoint()
calls = []
with checkpoint.on_cancel(lambda: calls.append("closed")):
    before = checkpoint.is_cancelled()
    generation = controller.interrupt()
try:
    checkpoint.raise_if_cancelled()
    raised = None
except ak.TurnCancelledError as exc:
    raised = type(exc).__module__
report({
    "wire": wire, "equal": again == item, "snapshot": snapshot, "finalized": finalized,
    "cancel": [before, generation, checkpoint.is_cancelled(), checkpoint.wait(0), calls, raised],
    "next_turn": controller.handle().checkpoint().is_cancelled(),
})
"""

WAIT_WOKEN_BY_A_THREAD = """
import threading
import agentkit_core as ak
controller = ak.CancellationController()
turn = controller.handle().checkpoint()
threading.Timer(0.01, controller.interrupt).start()
report(turn.wait(10))
"""

AWAIT_CANCELLED = """
import asyncio
import agentkit_core as ak
controller = ak.CancellationController()
async def main():
    turn = controller.handle().checkpoint()
    asyncio.get_running_loop().call_later(0.01, controller.interrupt)
    await asyncio.wait_for(turn.cancelled(), 10)
    return controller.generation
report(asyncio.run(main()))
"""

# Module-level state of the package: the value classes' field cache and the finish reasons' registry.
STATE = """
import agentkit_core as ak
from agentkit_core import _value, finish
report({
    "fields": sorted(c.__name__ for c in _value._FIELDS),
    "registry": sorted(finish._BY_NAME),
    "marks": [getattr(m, "_marked_by", None) for m in (ak, _value, finish)],
})
_value._FIELDS[type("SubinterpreterOnly", (), {})] = None
finish._BY_NAME["SubinterpreterOnly"] = finish.FinishReason.other("x")
ak._marked_by = "subinterpreter"
report("marked")
"""


class Subinterpreter:
    """An isolated subinterpreter with the checkout on its path and a pipe back to this one."""

    def __init__(self) -> None:
        self.module = subinterpreters()
        self.id = create_isolated_interpreter(self.module)
        self.read, self.write = os.pipe()
        self.pending = b""
        try:
            self.run(PRELUDE, root=ROOT, fd=self.write)
        except BaseException:
            self.close()
            raise

    def run(self, script: str, **shared: object) -> None:
        run_in_interpreter(self.module, self.id, script, shared or None)

    def received(self) -> Any:
        """The next value the subinterpreter reported."""
        while b"\n" not in self.pending:
            chunk = os.read(self.read, 65536)
            if not chunk:  # pragma: no cover - only when the pipe closed early
                raise AssertionError("the subinterpreter reported nothing")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> None:
        try:
            self.module.destroy(self.id)
        finally:
            os.close(self.read)
            os.close(self.write)


class SubinterpreterTests(unittest.TestCase):
    def open(self) -> Subinterpreter:
        sub = Subinterpreter()
        self.addCleanup(sub.close)
        return sub

    @needs_subinterpreters
    def test_round_trips_folds_and_cancels(self) -> None:
        import agentkit_core as ak

        sub = self.open()
        sub.run(ROUND_TRIP_FOLD_CANCEL)
        got = sub.received()
        item = ak.Item(
            ak.ItemKind.ASSISTANT,
            [ak.TextPart("hi"), ak.ToolCallPart(ak.ToolCallId("c1"), "get_weather", {"city": "Paris"})],
        )
        self.assertEqual(got["wire"], json.dumps(item.to_dict(), separators=(",", ":"), ensure_ascii=False))
        self.assertEqual(ak.Item.from_dict(json.loads(got["wire"])), item)  # what it wrote reads here
        self.assertTrue(got["equal"])
        self.assertEqual(
            got["snapshot"],
            [
                ak.TextPart("Let me check.").to_dict(),
                ak.ToolCallPart(ak.ToolCallId(""), "", None, metadata={ak.INPUT_JSON_KEY: '{"city": "Paris"}'}).to_dict(),
            ],
        )
        self.assertEqual(got["finalized"][1]["ToolCall"]["input"], {"city": "Paris"})
        self.assertEqual(got["cancel"], [False, 1, True, True, ["closed"], "agentkit_core"])
        self.assertFalse(got["next_turn"])

    @needs_subinterpreters
    @needs_threads_in_subinterpreters
    def test_a_thread_wakes_a_blocking_wait_there(self) -> None:
        sub = self.open()
        sub.run(WAIT_WOKEN_BY_A_THREAD)
        self.assertIs(sub.received(), True)

    @needs_subinterpreters
    @needs_asyncio_in_subinterpreters
    def test_await_cancelled_there(self) -> None:
        sub = self.open()
        sub.run(AWAIT_CANCELLED)
        self.assertEqual(sub.received(), 1)

    @needs_subinterpreters
    def test_module_level_state_is_not_shared(self) -> None:
        import agentkit_core as ak
        from agentkit_core import _value, finish

        self.assertEqual(ak.Item.text(ak.ItemKind.USER, "fill the caches"), ak.Item.text(ak.ItemKind.USER, "fill the caches"))
        marker = type("MainInterpreterOnly", (), {})
        _value._FIELDS[marker] = None
        ak._marked_by = "main"  # type: ignore[attr-defined]
        self.addCleanup(_value._FIELDS.pop, marker)
        self.addCleanup(delattr, ak, "_marked_by")
        registry = dict(finish._BY_NAME)

        first, second = self.open(), self.open()
        first.run(STATE)
        seen = first.received()
        self.assertNotIn("MainInterpreterOnly", seen["fields"])
        self.assertLess(len(seen["fields"]), len(_value._FIELDS))  # nothing filled it there yet
        self.assertEqual(seen["registry"], sorted(registry))
        self.assertEqual(seen["marks"], [None, None, None])
        self.assertEqual(first.received(), "marked")

        self.assertNotIn("SubinterpreterOnly", [c.__name__ for c in _value._FIELDS])
        self.assertEqual(finish._BY_NAME, registry)
        self.assertEqual(ak._marked_by, "main")  # type: ignore[attr-defined]

        second.run(STATE)  # a second subinterpreter sees neither
        seen = second.received()
        self.assertNotIn("SubinterpreterOnly", seen["fields"])
        self.assertNotIn("SubinterpreterOnly", seen["registry"])
        self.assertEqual(seen["marks"], [None, None, None])
        self.assertEqual(second.received(), "marked")


if __name__ == "__main__":
    unittest.main()
