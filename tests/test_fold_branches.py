"""The fold's promises under sharing: folds onto one state from two places, in two threads, at scale.

States share their history (the module docstring of ``agentkit_core.fold``
says how).  These tests fold onto one state while another fold onto it is
half-way through, from a part id whose ``value`` runs the other fold when the
rule reads it, and from real threads, and check that each result is what
folding onto the state alone gives and that the state itself never changes.
They also check that keeping every state costs memory linear in the stream,
with refused deltas in between (a refused ``fold`` writes nothing; a
``fold_all`` that raises leaves its state to be copied once by the next fold
onto it, as a branch would be).
"""

from __future__ import annotations

import copy
import pickle
import sys
import threading
import unittest
import warnings
from typing import Any, Callable, Iterator

from agentkit_core import (
    AppendBytes,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FoldState,
    InlineBytes,
    MediaPart,
    Modality,
    PartId,
    PartKind,
    ProtocolError,
    ReasoningPart,
    TextPart,
    fold,
    fold_all,
)
from tests.capability import needs_threads

P = PartId("p")


class HookedId(PartId):
    """Reads as part id "p", and runs the hook in its ``__dict__`` once, the first time a rule reads it."""

    @property  # replaces the dataclass field on purpose
    def value(self) -> str:
        hook, self.__dict__["hook"] = self.__dict__.get("hook"), None
        if hook is not None:
            hook()
        return "p"


def hooked(delta: Delta, hook: Callable[[], None]) -> Delta:
    """``delta`` addressed to part "p" through a :class:`HookedId` that runs ``hook``."""
    pid = object.__new__(HookedId)
    pid.__dict__["hook"] = hook
    object.__setattr__(delta, "part_id", pid)  # after construction: the id is the point of the test
    return delta


def text_of_part(part: object) -> str:
    if not isinstance(part, (TextPart, ReasoningPart)):
        raise AssertionError(f"not a text or reasoning part: {part!r}")
    return (part.text if isinstance(part, TextPart) else part.summary) or ""


def text_of(state: FoldState) -> str:
    """The text of a state's one part."""
    (part,) = state.snapshot()
    return text_of_part(part)


class InterleavedFoldTest(unittest.TestCase):
    """A fold that runs while another fold onto the same state is half-way through."""

    def setUp(self) -> None:
        self.base = fold_all((), [BeginPart(P, PartKind.TEXT), AppendText(P, "ab")])

    def test_a_commit_landing_while_append_looks_does_not_refuse_the_append(self) -> None:
        inner: list[FoldState] = []
        outer = fold(self.base, hooked(AppendText(P, "c"), lambda: inner.append(fold(self.base, CommitPart(TextPart("done"), part_id=P)))))
        self.assertEqual(len(inner), 1)
        self.assertEqual(outer.snapshot(), (TextPart("abc"),))
        self.assertEqual(outer.open_ids, (P,))
        self.assertEqual(inner[0].parts, (TextPart("done"),))
        self.assertEqual(self.base.snapshot(), (TextPart("ab"),))

    def test_an_append_landing_while_another_looks_gives_two_branches(self) -> None:
        inner: list[FoldState] = []
        outer = fold(self.base, hooked(AppendText(P, "c"), lambda: inner.append(fold(self.base, AppendText(P, "y")))))
        self.assertEqual(text_of(outer), "abc")
        self.assertEqual(text_of(inner[0]), "aby")
        self.assertEqual(text_of(self.base), "ab")
        self.assertEqual(text_of(fold(outer, AppendText(P, "d"))), "abcd")
        self.assertEqual(text_of(fold(inner[0], AppendText(P, "z"))), "abyz")

    def test_a_refusal_that_holds_is_still_raised(self) -> None:
        inner: list[FoldState] = []
        bad = hooked(AppendBytes(P, b"x"), lambda: inner.append(fold(self.base, AppendText(P, "y"))))
        with self.assertRaises(ProtocolError) as cm:
            fold(self.base, bad)
        self.assertIn("AppendBytes to part 'p' (an open Text part)", str(cm.exception))
        self.assertEqual(text_of(inner[0]), "aby")
        self.assertEqual(text_of(self.base), "ab")

    def test_a_fold_inside_fold_all_s_stream_branches_off(self) -> None:
        inner: list[FoldState] = []

        def stream() -> Iterator[Delta]:
            yield AppendText(P, "c")
            inner.append(fold(self.base, AppendText(P, "y")))  # while fold_all holds the branch
            yield AppendText(P, "d")

        outer = fold_all(self.base, stream())
        self.assertEqual(text_of(outer), "abcd")
        self.assertEqual(text_of(inner[0]), "aby")
        self.assertEqual(text_of(self.base), "ab")

    def test_a_failed_fold_all_leaves_its_state_usable(self) -> None:
        with self.assertRaises(ProtocolError):
            fold_all(self.base, [AppendText(P, "c"), AppendText(P, "d"), BeginPart(P, PartKind.TEXT)])
        self.assertEqual(text_of(self.base), "ab")
        after = fold_all(self.base, [AppendText(P, "e")])
        self.assertEqual(text_of(after), "abe")
        self.assertEqual(text_of(fold(after, AppendText(P, "f"))), "abef")


class CopyTest(unittest.TestCase):
    def test_states_pickle_and_deep_copy_as_what_they_show(self) -> None:
        states = [FoldState([TextPart("before")])]
        for delta in [BeginPart(P, PartKind.REASONING), AppendText(P, "th"), AppendBytes(P, b"\x01"), AppendText(P, "ink")]:
            states.append(fold(states[-1], delta))
        states.append(fold_all(states[-1], [AppendText(P, "ing"), CommitPart(ReasoningPart("done"))]))
        self.assertEqual(states[4].snapshot()[1], ReasoningPart("think", data=InlineBytes(b"\x01")))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing deprecated underneath
            copies = {"pickle": [pickle.loads(pickle.dumps(s)) for s in states], "deepcopy": copy.deepcopy(states)}
        for how, copied in copies.items():
            for i, (state, twin) in enumerate(zip(states, copied)):
                with self.subTest(how=how, state=i):
                    self.assertEqual(twin, state)
                    self.assertEqual(twin.parts, state.parts)
                    if twin.is_open:  # and the copy folds on by itself
                        (_, part) = fold(twin, AppendText(P, "!")).snapshot()
                        self.assertEqual(text_of_part(part), text_of_part(state.snapshot()[1]) + "!")
                        self.assertEqual(twin, state)


class ThreadTest(unittest.TestCase):
    """Threads that fold onto the same states, switching as often as the interpreter can."""

    def run_threads(self, work: Callable[[int], Any], n: int) -> list[Any]:
        """``work(i)`` in ``n`` threads at once; their results, in order."""
        results: list[Any] = [None] * n
        errors: list[BaseException] = []

        def run(i: int) -> None:
            try:
                results[i] = work(i)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
        finally:
            sys.setswitchinterval(interval)
        self.assertFalse(any(t.is_alive() for t in threads), "a folding thread hung")
        self.assertEqual(errors, [])
        return results

    @needs_threads
    def test_threads_folding_step_by_step_onto_one_state_stay_independent(self) -> None:
        base = fold_all((), [BeginPart(P, PartKind.REASONING), AppendText(P, "base:")])
        letters = "wxyz"

        def work(i: int) -> tuple[list[FoldState], list[str]]:
            state, states, seen = base, [], []
            for n in range(400):
                state = fold(state, AppendText(P, letters[i]))
                if n % 50 == 7:  # and sometimes onto the shared state again, or bytes
                    fold(base, AppendText(P, letters[i]))
                    state = fold(state, AppendBytes(P, bytes([i])))
                states.append(state)
                seen.append(text_of(state))
            return states, seen

        results = self.run_threads(work, len(letters))
        self.assertEqual(text_of(base), "base:")
        for i, (states, seen) in enumerate(results):
            with self.subTest(thread=i):
                self.assertEqual(seen, ["base:" + letters[i] * (n + 1) for n in range(400)])
                self.assertEqual([text_of(s) for s in states], seen)  # unchanged since
                (part,) = states[-1].snapshot()
                self.assertEqual(part, ReasoningPart("base:" + letters[i] * 400, data=InlineBytes(bytes([i]) * 8)))

    @needs_threads
    def test_threads_folding_onto_the_newest_state_at_once(self) -> None:
        rounds, letters = 150, "wxyz"
        tips = [fold_all((), [BeginPart(P, PartKind.TEXT), AppendText(P, f"{r}:")]) for r in range(rounds)]
        start = threading.Barrier(len(letters))

        def work(i: int) -> list[FoldState]:
            got = []
            for r, tip in enumerate(tips):  # every thread folds onto the same newest state at once
                start.wait(30)
                if i == 0 and r % 3 == 0:
                    got.append(fold(tip, CommitPart(TextPart("closed"))))
                else:
                    got.append(fold(tip, AppendText(P, letters[i])))
            return got

        results = self.run_threads(work, len(letters))
        for r, tip in enumerate(tips):
            with self.subTest(round=r):
                self.assertEqual(tip.snapshot(), (TextPart(f"{r}:"),))
                for i, got in enumerate(results):
                    expected = TextPart("closed") if i == 0 and r % 3 == 0 else TextPart(f"{r}:{letters[i]}")
                    self.assertEqual(got[r].snapshot(), (expected,))
                    self.assertEqual(got[r].is_open, expected.text != "closed")

    @needs_threads
    def test_threads_folding_whole_streams_onto_one_state(self) -> None:
        base = fold_all((), [BeginPart(P, PartKind.TEXT), AppendText(P, "<")])
        media = PartId("m")

        def work(i: int) -> list[FoldState]:
            stream: list[Delta] = [AppendText(P, str(i))] * 200 + [BeginPart(media, PartKind.MEDIA)]
            stream += [AppendBytes(media, bytes([i]))] * 50 + [CommitPart(TextPart(f"done {i}"))]
            return [fold_all(base, stream) for _ in range(5)]

        results = self.run_threads(work, 4)
        self.assertEqual(base.snapshot(), (TextPart("<"),))
        for i, states in enumerate(results):
            for state in states:
                with self.subTest(thread=i):
                    expected = MediaPart(Modality.BINARY, "application/octet-stream", InlineBytes(bytes([i]) * 50))
                    self.assertEqual(state.snapshot(), (TextPart(f"done {i}"), expected))

    @needs_threads
    def test_reading_old_states_while_another_thread_folds(self) -> None:
        states = [fold_all((), [BeginPart(P, PartKind.TEXT)])]

        def work(i: int) -> list[str]:
            if i == 0:  # the writer
                for n in range(2000):
                    states.append(fold(states[-1], AppendText(P, chr(97 + n % 26))))
                return []
            return [text_of(states[n % len(states)]) for n in range(3000)]  # readers

        results = self.run_threads(work, 3)
        alphabet = "".join(chr(97 + n % 26) for n in range(2000))
        self.assertEqual([text_of(s) for s in states], [alphabet[:n] for n in range(2001)])
        for seen in results[1:]:
            for text in seen:
                self.assertEqual(text, alphabet[: len(text)])


class CostTest(unittest.TestCase):
    def kept_bytes(self, n: int, refuse_every: int) -> int:
        """Bytes held by every state of an ``n``-chunk stream, with refused deltas every few steps."""
        import tracemalloc

        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            states = [fold((), BeginPart(P, PartKind.TEXT))]
            for i in range(n):
                if i % refuse_every == 0:
                    for refused in (AppendBytes(P, b"x"), BeginPart(P, PartKind.TEXT), AppendText(PartId("q"), "x")):
                        try:
                            fold(states[-1], refused)
                        except ProtocolError:
                            pass
                states.append(fold(states[-1], AppendText(P, "0123456789")))
            held = tracemalloc.get_traced_memory()[0] - start
            self.assertEqual(len(text_of(states[-1])), 10 * n)
            del states
            return held
        finally:
            tracemalloc.stop()

    def test_keeping_every_state_costs_memory_linear_in_the_stream(self) -> None:
        for refuse_every in (1000, 5):
            with self.subTest(refuse_every=refuse_every):
                small, large = self.kept_bytes(1000, refuse_every), self.kept_bytes(8000, refuse_every)
                # Linear: 8x the stream, about 8x the bytes (a copy per step would be ~64x).
                self.assertLess(large / small, 12)


if __name__ == "__main__":
    unittest.main()
