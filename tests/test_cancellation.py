"""Cancellation: generation semantics, waking waiters, threads and signal handlers.

No test asserts a duration: waits use generous timeouts (10 s) that only a
broken implementation would reach.  Tests that need threads, processes or
``asyncio.run()`` say so (tests/capability.py); the ``async def`` tests run on
the host's own event loop where ``asyncio.run()`` cannot run.
"""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import unittest

from agentkit_core import (
    AgentError,
    CancellationController,
    CancellationHandle,
    TurnCancellation,
    TurnCancelledError,
)
from tests.capability import (
    event_loop_test,
    needs_allocated_blocks,
    needs_asyncio_run,
    needs_processes,
    needs_signals,
    needs_threads,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATIENCE = 10.0  # seconds; only reached when something is broken


def registered(checkpoint: TurnCancellation) -> int:
    """How many callbacks (waiters included) the checkpoint's controller holds."""
    return len(checkpoint._state.callbacks)


def until(predicate: object) -> None:
    """Spin (politely) until ``predicate()`` is true; fail after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.001)


class GenerationTests(unittest.TestCase):
    def test_the_readme_example(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        checkpoint = TurnCancellation(handle)
        self.assertFalse(checkpoint.is_cancelled())
        controller.interrupt()
        self.assertTrue(checkpoint.is_cancelled())

    def test_interrupt_returns_the_new_generation(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        self.assertEqual(controller.generation, 0)
        self.assertEqual(handle.generation, 0)
        self.assertEqual([controller.interrupt() for _ in range(3)], [1, 2, 3])
        self.assertEqual(controller.generation, 3)
        self.assertEqual(handle.generation, 3)
        self.assertEqual(controller.handle().generation, 3)

    def test_checkpoint_records_the_generation(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        controller.interrupt()
        checkpoint = handle.checkpoint()
        self.assertIsInstance(checkpoint, TurnCancellation)
        self.assertEqual(checkpoint.generation, 1)
        self.assertEqual(TurnCancellation(handle).generation, 1)
        controller.interrupt()
        self.assertEqual(checkpoint.generation, 1)

    def test_an_interrupt_cancels_outstanding_checkpoints_and_none_later(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        first, second = handle.checkpoint(), TurnCancellation(handle)
        controller.interrupt()
        self.assertTrue(first.is_cancelled())
        self.assertTrue(second.is_cancelled())
        next_turn = handle.checkpoint()
        self.assertFalse(next_turn.is_cancelled())
        controller.interrupt()
        self.assertTrue(next_turn.is_cancelled())
        self.assertTrue(first.is_cancelled())  # cancelled stays cancelled

    def test_interrupt_while_idle_does_not_cancel_the_next_turn(self) -> None:
        controller = CancellationController()
        controller.interrupt()
        controller.interrupt()
        self.assertFalse(controller.handle().checkpoint().is_cancelled())

    def test_controllers_are_independent(self) -> None:
        a, b = CancellationController(), CancellationController()
        checkpoint = b.handle().checkpoint()
        a.interrupt()
        self.assertFalse(checkpoint.is_cancelled())

    def test_default_checkpoint_is_never_cancelled(self) -> None:
        checkpoint = TurnCancellation()
        self.assertEqual(checkpoint.generation, 0)
        CancellationController().interrupt()
        self.assertFalse(checkpoint.is_cancelled())
        checkpoint.raise_if_cancelled()
        self.assertFalse(checkpoint.wait(0))
        self.assertFalse(checkpoint.wait(0.01))

    def test_checkpoint_wants_a_handle(self) -> None:
        with self.assertRaises(TypeError):
            TurnCancellation(CancellationController())  # type: ignore[arg-type]

    def test_reprs(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        self.assertEqual(repr(controller), "CancellationController(generation=1)")
        self.assertEqual(repr(controller.handle()), "CancellationHandle(generation=1)")
        self.assertEqual(repr(checkpoint), "TurnCancellation(generation=0, cancelled=True)")
        self.assertIsInstance(controller.handle(), CancellationHandle)


class RaiseIfCancelledTests(unittest.TestCase):
    def test_raises_the_dedicated_error_once_cancelled(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        checkpoint.raise_if_cancelled()
        controller.interrupt()
        with self.assertRaises(TurnCancelledError) as caught:
            checkpoint.raise_if_cancelled()
        self.assertIsInstance(caught.exception, AgentError)
        self.assertEqual(caught.exception.generation, 0)
        self.assertIn("cancelled", str(caught.exception))

    def test_error_pickles_and_names_the_public_module(self) -> None:
        error = TurnCancelledError(7)
        again = pickle.loads(pickle.dumps(error))
        self.assertIs(type(again), TurnCancelledError)
        self.assertEqual(again.generation, 7)
        self.assertEqual(str(again), str(error))
        self.assertEqual(TurnCancelledError.__module__, "agentkit_core")


class CallbackTests(unittest.TestCase):
    def test_runs_once_on_the_interrupt(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        calls: list[str] = []
        checkpoint.add_callback(lambda: calls.append("closed"))
        self.assertEqual(calls, [])
        controller.interrupt()
        controller.interrupt()
        self.assertEqual(calls, ["closed"])
        self.assertEqual(registered(checkpoint), 0)

    def test_runs_at_once_when_already_cancelled(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        calls: list[int] = []
        checkpoint.add_callback(lambda: calls.append(1))
        self.assertEqual(calls, [1])
        self.assertEqual(registered(checkpoint), 0)

    def test_remove_callback(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        calls: list[int] = []

        def close() -> None:
            calls.append(1)

        checkpoint.add_callback(close)
        self.assertTrue(checkpoint.remove_callback(close))
        self.assertFalse(checkpoint.remove_callback(close))
        controller.interrupt()
        self.assertEqual(calls, [])
        checkpoint.add_callback(close)  # already cancelled: runs now, nothing left to remove
        self.assertFalse(checkpoint.remove_callback(close))
        self.assertEqual(calls, [1])

    def test_bound_methods_can_be_removed(self) -> None:
        class Stream:
            closed = 0

            def close(self) -> None:
                self.closed += 1

        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        stream = Stream()
        checkpoint.add_callback(stream.close)
        self.assertTrue(checkpoint.remove_callback(stream.close))
        checkpoint.add_callback(stream.close)
        controller.interrupt()
        self.assertEqual(stream.closed, 1)

    def test_only_cancelled_checkpoints_fire(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        calls: list[str] = []
        handle.checkpoint().add_callback(lambda: calls.append("old"))
        controller.interrupt()
        later = handle.checkpoint()
        later.add_callback(lambda: calls.append("new"))
        self.assertEqual(calls, ["old"])
        controller.interrupt()
        self.assertEqual(calls, ["old", "new"])

    def test_a_raising_callback_is_logged_and_the_others_still_run(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        calls: list[int] = []

        def broken() -> None:
            raise OSError("socket already closed")

        checkpoint.add_callback(lambda: calls.append(1))
        checkpoint.add_callback(broken)
        checkpoint.add_callback(lambda: calls.append(2))
        with self.assertLogs("agentkit_core", "ERROR") as logs:
            self.assertEqual(controller.interrupt(), 1)
        self.assertEqual(sorted(calls), [1, 2])
        self.assertIn("socket already closed", "\n".join(logs.output))
        self.assertEqual(controller.generation, 1)

    def test_a_base_exception_propagates_after_the_others_ran(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        calls: list[int] = []

        def stop() -> None:
            raise KeyboardInterrupt

        checkpoint.add_callback(stop)
        checkpoint.add_callback(lambda: calls.append(1))
        with self.assertRaises(KeyboardInterrupt):
            controller.interrupt()
        self.assertEqual(calls, [1])
        self.assertTrue(checkpoint.is_cancelled())


class OnCancelTests(unittest.TestCase):
    def setUp(self) -> None:
        self.controller = CancellationController()
        self.checkpoint = self.controller.handle().checkpoint()
        self.calls: list[str] = []

    def close(self) -> None:
        self.calls.append("closed")

    def test_registers_for_the_block_and_binds_the_checkpoint(self) -> None:
        with self.checkpoint.on_cancel(self.close) as turn:
            self.assertIs(turn, self.checkpoint)
            self.assertEqual(registered(self.checkpoint), 1)
        self.assertEqual(registered(self.checkpoint), 0)
        self.controller.interrupt()  # after the block: nothing runs
        self.assertEqual(self.calls, [])

    def test_runs_once_when_cancelled_inside_the_block(self) -> None:
        with self.checkpoint.on_cancel(self.close):
            self.assertEqual(self.calls, [])
            self.controller.interrupt()
            self.assertEqual(self.calls, ["closed"])
            self.controller.interrupt()
        self.assertEqual(self.calls, ["closed"])
        self.assertEqual(registered(self.checkpoint), 0)

    def test_runs_at_once_when_already_cancelled_and_the_block_still_runs(self) -> None:
        self.controller.interrupt()
        ran = False
        with self.checkpoint.on_cancel(self.close) as turn:
            self.assertEqual(self.calls, ["closed"])
            self.assertTrue(turn.is_cancelled())
            ran = True
        self.assertTrue(ran)
        self.assertEqual(registered(self.checkpoint), 0)

    def test_removed_when_the_block_raises_and_the_error_propagates(self) -> None:
        with self.assertRaises(KeyError):
            with self.checkpoint.on_cancel(self.close):
                raise KeyError("stream broke")
        self.assertEqual(registered(self.checkpoint), 0)
        self.controller.interrupt()
        self.assertEqual(self.calls, [])

    def test_nothing_registers_until_the_block_is_entered(self) -> None:
        scope = self.checkpoint.on_cancel(self.close)
        self.assertEqual(registered(self.checkpoint), 0)
        self.controller.interrupt()
        self.assertEqual(self.calls, [])
        with scope:  # entered after the interrupt: runs at once, like add_callback
            pass
        self.assertEqual(self.calls, ["closed"])

    def test_blocks_nest_and_other_callbacks_stay(self) -> None:
        other: list[int] = []
        self.checkpoint.add_callback(lambda: other.append(1))
        with self.checkpoint.on_cancel(self.close):
            with self.checkpoint.on_cancel(lambda: self.calls.append("inner")):
                self.assertEqual(registered(self.checkpoint), 3)
            self.assertEqual(registered(self.checkpoint), 2)
        self.controller.interrupt()
        self.assertEqual((self.calls, other), ([], [1]))

    def test_on_a_checkpoint_nothing_can_cancel(self) -> None:
        checkpoint = TurnCancellation()
        with checkpoint.on_cancel(self.close) as turn:
            self.assertIs(turn, checkpoint)
            self.controller.interrupt()
        self.assertEqual((self.calls, registered(checkpoint)), ([], 0))

    def test_a_callback_must_be_callable(self) -> None:
        with self.assertRaises(TypeError) as caught:
            with self.checkpoint.on_cancel("close"):  # type: ignore[arg-type]
                self.fail("the block ran")
        self.assertIn("expected a callable, found str", str(caught.exception))
        with self.assertRaises(TypeError):
            self.checkpoint.add_callback(None)  # type: ignore[arg-type]
        self.assertEqual(registered(self.checkpoint), 0)


@needs_signals("raise_signal", "SIGINT")
class SignalHandlerTests(unittest.TestCase):
    def test_a_signal_handler_interrupts_in_this_interpreter(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        calls: list[int] = []
        checkpoint.add_callback(lambda: calls.append(1))
        previous = signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt())
        try:
            signal.raise_signal(signal.SIGINT)  # what pressing Ctrl-C does
        finally:
            signal.signal(signal.SIGINT, previous)
        self.assertTrue(checkpoint.is_cancelled())
        self.assertTrue(checkpoint.wait())  # already cancelled: returns without blocking
        self.assertEqual(calls, [1])


class WaitTests(unittest.TestCase):
    def test_returns_at_once_when_already_cancelled(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        self.assertTrue(checkpoint.wait())
        self.assertTrue(checkpoint.wait(0))
        self.assertTrue(checkpoint.wait(-1))

    def test_times_out_when_nothing_interrupts(self) -> None:
        checkpoint = CancellationController().handle().checkpoint()
        self.assertFalse(checkpoint.wait(0))
        self.assertFalse(checkpoint.wait(-1))
        self.assertFalse(checkpoint.wait(0.01))
        self.assertEqual(registered(checkpoint), 0)

    @needs_threads
    def test_a_huge_timeout_is_accepted(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        threading.Timer(0.01, controller.interrupt).start()
        self.assertTrue(checkpoint.wait(1e300))

    @needs_threads
    def test_a_blocked_waiter_is_woken_from_another_thread(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        results: list[bool] = []
        waiter = threading.Thread(target=lambda: results.append(checkpoint.wait(PATIENCE)))
        waiter.start()
        until(lambda: registered(checkpoint) == 1)  # it is blocked in wait()
        controller.interrupt()
        waiter.join(PATIENCE)
        self.assertFalse(waiter.is_alive())
        self.assertEqual(results, [True])
        self.assertEqual(registered(checkpoint), 0)

    @needs_threads
    def test_the_main_thread_is_woken_from_another_thread(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()

        def interrupt_when_blocked() -> None:
            until(lambda: registered(checkpoint) == 1)
            controller.interrupt()

        helper = threading.Thread(target=interrupt_when_blocked)
        helper.start()
        self.assertTrue(checkpoint.wait())  # no timeout: only the interrupt ends it
        helper.join(PATIENCE)

    @needs_threads
    def test_one_interrupt_wakes_every_waiter(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        shared = handle.checkpoint()
        results: list[bool] = []
        lock = threading.Lock()

        def wait(checkpoint: TurnCancellation) -> None:
            woken = checkpoint.wait(PATIENCE)
            with lock:
                results.append(woken)

        threads = [threading.Thread(target=wait, args=(shared if i % 2 else handle.checkpoint(),)) for i in range(8)]
        for thread in threads:
            thread.start()
        until(lambda: registered(shared) == 8)
        controller.interrupt()
        for thread in threads:
            thread.join(PATIENCE)
        self.assertEqual(results, [True] * 8)

    def test_a_later_checkpoint_keeps_waiting(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        controller.interrupt()
        later = handle.checkpoint()
        self.assertFalse(later.wait(0.01))


class AsyncioTests(unittest.TestCase):
    @event_loop_test
    @needs_threads
    async def test_woken_from_another_thread(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        waiter = asyncio.ensure_future(checkpoint.cancelled())
        await asyncio.sleep(0)
        self.assertEqual(registered(checkpoint), 1)
        thread = threading.Thread(target=controller.interrupt)
        thread.start()
        await asyncio.wait_for(waiter, PATIENCE)
        thread.join(PATIENCE)
        self.assertEqual(registered(checkpoint), 0)

    @event_loop_test
    async def test_woken_from_the_loop_thread(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        waiter = asyncio.ensure_future(checkpoint.cancelled())
        await asyncio.sleep(0)
        self.assertEqual(registered(checkpoint), 1)
        asyncio.get_running_loop().call_later(0.01, controller.interrupt)
        await asyncio.wait_for(waiter, PATIENCE)
        self.assertEqual(registered(checkpoint), 0)

    @event_loop_test
    async def test_already_cancelled_resolves_at_once(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        await checkpoint.cancelled()  # no loop iteration needed: never registers
        self.assertEqual(registered(checkpoint), 0)

    @event_loop_test
    async def test_never_resolves_otherwise_and_unregisters_when_cancelled(self) -> None:
        for checkpoint in (TurnCancellation(), CancellationController().handle().checkpoint()):
            with self.subTest(checkpoint=checkpoint):
                with self.assertRaises(asyncio.TimeoutError):
                    await asyncio.wait_for(checkpoint.cancelled(), 0.02)
                self.assertEqual(registered(checkpoint), 0)

    @event_loop_test
    async def test_one_interrupt_wakes_every_awaiting_task(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        shared = handle.checkpoint()
        waiters = [asyncio.ensure_future((shared if i % 2 else handle.checkpoint()).cancelled()) for i in range(6)]
        await asyncio.sleep(0)
        self.assertEqual(registered(shared), 6)
        controller.interrupt()
        later = handle.checkpoint()
        await asyncio.wait_for(asyncio.gather(*waiters), PATIENCE)
        with self.assertRaises(asyncio.TimeoutError):  # taken after the interrupt: still waiting
            await asyncio.wait_for(later.cancelled(), 0.02)
        self.assertEqual(registered(shared), 0)

    @needs_asyncio_run
    def test_interrupt_after_the_loop_closed_is_harmless(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()

        async def main() -> None:
            # Leave a waiter behind whose loop will be closed.
            asyncio.get_running_loop().create_task(checkpoint.cancelled())
            await asyncio.sleep(0)

        loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda loop, context: None)  # the task left pending on purpose
        loop.run_until_complete(main())
        loop.close()
        self.assertEqual(controller.interrupt(), 1)


class ImportTests(unittest.TestCase):
    @needs_processes
    def test_importing_does_not_import_asyncio(self) -> None:
        code = "import sys; import agentkit_core.cancellation; print('asyncio' in sys.modules)"
        out = subprocess.run(
            [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {ROOT!r}); {code}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "False")


class ThreadTests(unittest.TestCase):
    @needs_threads
    def test_checkpoints_taken_while_another_thread_interrupts(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        interrupts = 3000
        done = threading.Event()
        problems: list[str] = []
        taken: list[list[TurnCancellation]] = [[] for _ in range(4)]
        returned: list[int] = []

        def take(mine: list[TurnCancellation]) -> None:
            last_seen = 0
            while not done.is_set():
                checkpoint = handle.checkpoint()
                cancelled = checkpoint.is_cancelled()
                now = handle.generation
                if checkpoint.generation < last_seen or now < checkpoint.generation:
                    problems.append(f"generation went back: {last_seen} {checkpoint.generation} {now}")
                if cancelled and now <= checkpoint.generation:
                    problems.append(f"cancelled at its own generation {checkpoint.generation}")
                last_seen = checkpoint.generation
                if len(mine) < 20000:
                    mine.append(checkpoint)

        def interrupt() -> None:
            for i in range(interrupts):
                returned.append(controller.interrupt())
                if i % 64 == 0:
                    time.sleep(0)  # let the takers see many generations

        takers = [threading.Thread(target=take, args=(mine,)) for mine in taken]
        for thread in takers:
            thread.start()
        interrupter = threading.Thread(target=interrupt)
        interrupter.start()
        interrupter.join(PATIENCE * 6)
        done.set()
        for thread in takers:
            thread.join(PATIENCE)
        self.assertEqual(problems, [])
        self.assertEqual(returned, list(range(1, interrupts + 1)))
        final = controller.generation
        self.assertEqual(final, interrupts)
        checkpoints = [c for mine in taken for c in mine]
        self.assertGreater(len(checkpoints), 0)
        for checkpoint in checkpoints:
            if checkpoint.is_cancelled() != (checkpoint.generation < final):
                self.fail(f"{checkpoint!r} after the last interrupt (generation {final})")

    @needs_threads
    def test_concurrent_interrupts_each_get_their_own_generation(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        per_thread = 2000
        results: list[list[int]] = [[] for _ in range(4)]
        waiters_woken: list[bool] = []

        def interrupt(out: list[int]) -> None:
            for _ in range(per_thread):
                out.append(controller.interrupt())

        def wait() -> None:
            for _ in range(200):
                waiters_woken.append(handle.checkpoint().wait(PATIENCE))

        threads = [threading.Thread(target=interrupt, args=(out,)) for out in results]
        threads.append(threading.Thread(target=wait))
        for thread in threads:
            thread.start()
        for thread in threads[:-1]:
            thread.join(PATIENCE * 6)
        # The waiter may still be blocked on a checkpoint taken after the last
        # interrupt; one more interrupt per remaining round ends it.
        while threads[-1].is_alive():
            controller.interrupt()
            threads[-1].join(0.001)
        every = sorted(g for out in results for g in out)
        self.assertEqual(every, list(range(1, 4 * per_thread + 1)))
        for out in results:
            self.assertEqual(out, sorted(out))
        self.assertEqual(waiters_woken, [True] * 200)
        self.assertEqual(len(controller._state.published), 1)


SIGNAL_CHILD = r"""
import asyncio, faulthandler, signal, sys, time
sys.path.insert(0, ROOT)
from agentkit_core import CancellationController, TurnCancellation

faulthandler.dump_traceback_later(40, exit=True)  # a deadlock shows where, then exits 1
controller = CancellationController()
handle = controller.handle()
fired = 0

def on_alarm(signum, frame):
    global fired
    fired += 1
    controller.interrupt()

def fail(message):
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    sys.exit(message)

signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
calls = []
def noop():
    calls.append(1)
rounds = waits = 0
deadline = time.monotonic() + 2.0
while time.monotonic() < deadline:
    rounds += 1
    checkpoint = handle.checkpoint()
    checkpoint.is_cancelled()
    checkpoint.wait(0)
    checkpoint.add_callback(noop)
    checkpoint.remove_callback(noop)
    mine = controller.interrupt()
    if not checkpoint.is_cancelled() or handle.generation < mine:
        fail("an interrupt did not cancel")
    if rounds % 8 == 0:
        waits += 1
        if not handle.checkpoint().wait(5.0):  # only the alarm handler can wake it
            fail("wait() was not woken by the signal handler")

async def awaiting():
    for _ in range(200):
        await asyncio.wait_for(handle.checkpoint().cancelled(), 5.0)

asyncio.run(awaiting())
signal.setitimer(signal.ITIMER_REAL, 0, 0)
faulthandler.cancel_dump_traceback_later()
state = controller._state
if len(state.published) != 1 or state.callbacks:
    fail(f"state left behind: {state.published!r} {state.callbacks!r}")
if fired < 100 or waits == 0:
    fail(f"too few alarms to mean anything: fired={fired} waits={waits}")
print(rounds, waits, fired, controller.generation)
"""


@needs_signals("setitimer", "SIGALRM")
class SignalTests(unittest.TestCase):
    @needs_processes
    def test_interrupt_from_a_signal_handler_never_deadlocks(self) -> None:
        script = SIGNAL_CHILD.replace("ROOT", repr(ROOT), 1)
        try:
            out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired as exc:  # pragma: no cover - the failure being tested for
            self.fail(f"the child deadlocked: {exc.stderr!r}")
        self.assertEqual(out.returncode, 0, out.stderr)
        rounds, waits, fired, generation = map(int, out.stdout.split())
        self.assertGreater(rounds, 0)
        self.assertGreaterEqual(generation, rounds + fired)


class MemoryTests(unittest.TestCase):
    @needs_allocated_blocks
    def test_memory_is_stable_over_a_million_interrupts(self) -> None:
        controller = CancellationController()
        handle = controller.handle()
        interrupt = controller.interrupt
        for _ in range(1000):
            interrupt()
            handle.checkpoint()
        gc.collect()
        before = sys.getallocatedblocks()
        for _ in range(1_000_000):
            interrupt()
        gc.collect()
        after = sys.getallocatedblocks()
        self.assertLess(after - before, 1000)
        self.assertEqual(controller.generation, 1_001_000)

    @needs_allocated_blocks
    def test_memory_is_stable_over_many_checkpoints_waits_and_callbacks(self) -> None:
        controller = CancellationController()
        handle = controller.handle()

        def close() -> None:
            pass

        def churn(n: int) -> None:
            for i in range(n):
                checkpoint = handle.checkpoint()
                checkpoint.add_callback(close)
                if i % 2:
                    checkpoint.remove_callback(close)
                checkpoint.wait(0)
                controller.interrupt()

        churn(1000)
        gc.collect()
        before = sys.getallocatedblocks()
        churn(100_000)
        gc.collect()
        self.assertLess(sys.getallocatedblocks() - before, 1000)
        self.assertEqual(controller._state.callbacks, {})


if __name__ == "__main__":
    unittest.main()
