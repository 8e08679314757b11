"""Cancellation benchmarks: how fast an interrupt wakes a waiter, and what a check costs.

Wake-up latency is the time from just before ``interrupt()`` in one thread to
the moment the waiting thread (or asyncio task) runs again, as a median over
many rounds.  Each is compared with a ``threading.Event().wait()`` woken by
``set()`` the same way in the same run, with the 1 ms target, and with the
reference, whose ``cancelled()`` polls every 10 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from typing import Callable

from bench import Row, paired, verdict

from agentkit_core import CancellationController

REFERENCE_POLL = 10e-3
TARGET = 1e-3
SETTLE = 0.002  # let the waiter block before waking it


def _rounds(quick: bool) -> int:
    return 40 if quick else 300


def _wake_latency(rounds: int, arm: Callable[[], tuple[Callable[[], object], Callable[[], object]]]) -> float:
    """Median seconds from ``wake()`` to the waiter running; ``arm()`` gives (block, wake)."""
    latencies: list[float] = []
    ready = threading.Semaphore(0)
    woke = threading.Semaphore(0)
    armed: list[tuple[Callable[[], object], Callable[[], object]]] = []
    stamp: list[float] = [0.0]

    def waiter() -> None:
        for _ in range(rounds):
            block, _wake = armed[-1]
            ready.release()
            block()
            latencies.append(time.perf_counter() - stamp[0])
            woke.release()

    armed.append(arm())
    thread = threading.Thread(target=waiter)
    thread.start()
    for _ in range(rounds):
        ready.acquire()
        time.sleep(SETTLE)
        _block, wake = armed[-1]
        armed.append(arm())  # the next round's pair, before waking this one
        stamp[0] = time.perf_counter()
        wake()
        woke.acquire()
    thread.join()
    return statistics.median(latencies)


def _event_pair() -> tuple[Callable[[], object], Callable[[], object]]:
    event = threading.Event()
    return event.wait, event.set


def _checkpoint_pair() -> tuple[Callable[[], object], Callable[[], object]]:
    controller = CancellationController()
    return controller.handle().checkpoint().wait, controller.interrupt


def _asyncio_latency(rounds: int) -> float:
    """Median seconds from ``interrupt()`` in this thread to a task awaiting ``cancelled()``."""
    controller = CancellationController()
    handle = controller.handle()
    latencies: list[float] = []
    ready = threading.Semaphore(0)
    stamp: list[float] = [0.0]

    async def waiting() -> None:
        for _ in range(rounds):
            checkpoint = handle.checkpoint()
            ready.release()
            await checkpoint.cancelled()
            latencies.append(time.perf_counter() - stamp[0])

    thread = threading.Thread(target=asyncio.run, args=(waiting(),))
    thread.start()
    for _ in range(rounds):
        ready.acquire()
        time.sleep(SETTLE)
        stamp[0] = time.perf_counter()
        controller.interrupt()
    thread.join()
    return statistics.median(latencies)


def _check_cost(quick: bool) -> tuple[float, float]:
    n = 20_000 if quick else 200_000
    checkpoint = CancellationController().handle().checkpoint()
    event = threading.Event()

    def loop(check: Callable[[], bool]) -> Callable[[], None]:
        def run() -> None:
            for _ in range(n):
                check()

        return run

    mine, base, _ = paired(loop(checkpoint.is_cancelled), loop(event.is_set), rounds=3 if quick else 7)
    return mine / n, base / n


def _latency_row(name: str, latency: float, baseline: float) -> Row:
    return Row(
        "cancel",
        name,
        f"{latency * 1e6:.0f} us median",
        f"{latency / baseline:.2f}x Event().wait() ({baseline * 1e6:.0f} us); "
        f"reference polls {REFERENCE_POLL * 1e3:.0f} ms",
        verdict(latency < TARGET, "< 1 ms"),
    )


def measure(quick: bool) -> list[Row]:
    """Wake-up latency of ``wait()`` and ``await cancelled()``, and the cost of ``is_cancelled()``."""
    rounds = _rounds(quick)
    baseline = _wake_latency(rounds, _event_pair)
    blocking = _wake_latency(rounds, _checkpoint_pair)
    awaiting = _asyncio_latency(rounds)
    mine, base = _check_cost(quick)
    return [
        _latency_row("wait() wake-up after interrupt()", blocking, baseline),
        _latency_row("await cancelled() wake-up", awaiting, baseline),
        Row(
            "cancel",
            "is_cancelled()",
            f"{mine * 1e9:.0f} ns/call",
            f"{mine / base:.2f}x Event.is_set() ({base * 1e9:.0f} ns)",
            verdict(mine / base <= 2.0, "<= 2x"),
        ),
    ]
