"""fold_iter and afold_iter: the state after each delta, for a reporter's one loop.

What they yield is checked against folding the same deltas one at a time
with ``fold``, which the other fold tests check against the rules.  The async
variant is driven by hand, with ``send(None)``, from async iterables that never
suspend, so it runs where no event loop can (Pyodide without stack
switching); one test runs it on a real loop where ``asyncio.run`` works.
"""

from __future__ import annotations

import inspect
import unittest
from typing import Any, AsyncIterator, Iterator, TypeVar

from agentkit_core import (
    AppendBytes,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FoldState,
    PartId,
    PartKind,
    ProtocolError,
    TextPart,
    ToolCallId,
    ToolCallPart,
    afold_iter,
    fold,
    fold_all,
    fold_iter,
)
from tests.capability import needs_asyncio_run

T = TypeVar("T")

TEXT, TOOL = PartId("t"), PartId("c")
STREAM: list[Delta] = [
    BeginPart(TEXT, PartKind.TEXT),
    AppendText(TEXT, "Let me "),
    BeginPart(TOOL, PartKind.TOOL_CALL),
    AppendText(TOOL, '{"q": '),
    AppendText(TEXT, "look."),
    AppendText(TOOL, '"x"}'),
    CommitPart(TextPart("Let me look.")),
    CommitPart(ToolCallPart(ToolCallId("call_1"), "search", {"q": "x"})),
]


def wires(states: list[FoldState]) -> list[tuple[list[Any], tuple[PartId, ...]]]:
    """What each state shows: its snapshot on the wire and its open ids."""
    return [([p.to_dict() for p in s.snapshot()], s.open_ids) for s in states]


def one_by_one(state: FoldState | tuple[()], deltas: list[Delta]) -> list[FoldState]:
    states = []
    current = state
    for delta in deltas:
        current = fold(current, delta)
        states.append(current)
    return states


class Deltas:
    """An async iterable of deltas that never suspends (and counts how many it gave)."""

    def __init__(self, deltas: list[Any]) -> None:
        self.deltas = deltas
        self.given = 0

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._each()

    async def _each(self) -> AsyncIterator[Any]:
        for delta in self.deltas:
            self.given += 1
            yield delta


def step(agen: AsyncIterator[T]) -> T:
    """The next item of an async iterator whose awaits never suspend; StopAsyncIteration at the end."""
    awaitable = agen.__anext__()
    try:
        awaitable.send(None)  # type: ignore[attr-defined]
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("the async iterator suspended")  # pragma: no cover - Deltas never suspends


def drain(agen: AsyncIterator[T]) -> list[T]:
    items = []
    while True:
        try:
            items.append(step(agen))
        except StopAsyncIteration:
            return items


class FoldIterTest(unittest.TestCase):
    def test_yields_the_state_after_each_delta(self) -> None:
        states = list(fold_iter((), STREAM))
        self.assertEqual(len(states), len(STREAM))
        self.assertEqual(wires(states), wires(one_by_one((), STREAM)))
        self.assertEqual(states[-1].parts, fold_all((), STREAM).parts)
        self.assertFalse(states[-1].is_open)

    def test_every_yielded_state_stays_valid(self) -> None:
        kept = list(fold_iter((), STREAM))
        pictures = wires(kept)
        for state in kept:  # folding onto old states afterwards must not disturb any of them
            fold(state, CommitPart(TextPart("branch")))
        self.assertEqual(wires(kept), pictures)
        self.assertEqual(kept[1].snapshot(), (TextPart("Let me "),))

    def test_starts_from_a_state_or_committed_parts(self) -> None:
        history = [TextPart("earlier")]
        from_parts = list(fold_iter(history, STREAM[:2]))
        from_state = list(fold_iter(FoldState(history), STREAM[:2]))
        self.assertEqual(wires(from_parts), wires(from_state))
        self.assertEqual(from_parts[-1].snapshot(), (TextPart("earlier"), TextPart("Let me ")))
        self.assertEqual(list(fold_iter((), [])), [])

    def test_is_lazy(self) -> None:
        pulled: list[Delta] = []

        def source() -> Iterator[Delta]:
            for delta in STREAM:
                pulled.append(delta)
                yield delta

        states = fold_iter((), source())
        self.assertTrue(inspect.isgenerator(states))
        self.assertEqual(pulled, [])
        first = next(states)
        self.assertEqual(pulled, STREAM[:1])
        self.assertEqual(first.snapshot(), (TextPart(""),))

    def test_a_delta_that_does_not_fit_raises_with_its_index(self) -> None:
        bad = [*STREAM[:2], AppendBytes(TEXT, b"x"), AppendText(TEXT, "never")]
        states = fold_iter((), bad)
        got = [next(states), next(states)]
        with self.assertRaises(ProtocolError) as cm:
            next(states)
        with self.assertRaises(ProtocolError) as alone:
            fold(got[-1], bad[2])
        self.assertEqual(str(cm.exception), f"delta #2: {alone.exception}")
        with self.assertRaises(ProtocolError) as whole:
            fold_all((), bad)
        self.assertEqual(str(cm.exception), str(whole.exception))
        self.assertEqual(list(states), [])  # the generator is finished
        self.assertEqual(got[-1].snapshot(), (TextPart("Let me "),))  # and what it yielded stands

    def test_bad_arguments_are_refused_at_the_call(self) -> None:
        with self.assertRaises(ProtocolError):
            fold_iter("not a state", STREAM)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            fold_iter((), 5)  # type: ignore[arg-type]

    def test_things_that_are_not_deltas_are_refused_with_their_index(self) -> None:
        with self.assertRaises(ProtocolError) as cm:
            list(fold_iter((), [STREAM[0], "AppendText"]))  # type: ignore[list-item]
        self.assertEqual(str(cm.exception), "delta #1: fold: expected a Delta, found str")


class AfoldIterTest(unittest.TestCase):
    def test_yields_what_fold_iter_yields(self) -> None:
        states = drain(afold_iter((), Deltas(STREAM)))
        self.assertEqual(wires(states), wires(list(fold_iter((), STREAM))))
        self.assertEqual(states[-1].parts, fold_all((), STREAM).parts)

    def test_is_an_async_generator_that_pulls_one_delta_per_state(self) -> None:
        source = Deltas(STREAM)
        states = afold_iter([TextPart("earlier")], source)
        self.assertTrue(inspect.isasyncgen(states))
        self.assertEqual(source.given, 0)
        first = step(states)
        self.assertEqual(source.given, 1)
        self.assertEqual(first.snapshot(), (TextPart("earlier"), TextPart("")))

    def test_a_delta_that_does_not_fit_raises_with_its_index(self) -> None:
        bad = [*STREAM[:3], BeginPart(TOOL, PartKind.TEXT)]
        states = afold_iter((), Deltas(bad))
        got = [step(states) for _ in range(3)]
        with self.assertRaises(ProtocolError) as cm:
            step(states)
        with self.assertRaises(ProtocolError) as whole:
            fold_all((), bad)
        self.assertEqual(str(cm.exception), str(whole.exception))
        self.assertTrue(str(cm.exception).startswith("delta #3: BeginPart for part 'c'"))
        with self.assertRaises(StopAsyncIteration):
            step(states)
        self.assertEqual(got[-1].open_ids, (TEXT, TOOL))

    def test_bad_arguments_are_refused_at_the_call(self) -> None:
        with self.assertRaises(ProtocolError):
            afold_iter(5, Deltas(STREAM))  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            afold_iter((), STREAM)  # type: ignore[arg-type]  # a plain list is not an async iterable

    @needs_asyncio_run
    def test_on_a_running_loop(self) -> None:
        import asyncio

        async def arriving() -> AsyncIterator[Delta]:
            for delta in STREAM:
                await asyncio.sleep(0)  # a real suspension between deltas, as a network stream has
                yield delta

        async def report() -> list[str]:
            lines = []
            async for state in afold_iter((), arriving()):
                lines.append(" | ".join(type(p).__name__ for p in state.snapshot()))
            return lines

        lines = asyncio.run(report())
        self.assertEqual(len(lines), len(STREAM))
        self.assertEqual(lines[0], "TextPart")
        self.assertEqual(lines[-1], "TextPart | ToolCallPart")


if __name__ == "__main__":
    unittest.main()
