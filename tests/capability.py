"""What the interpreter running the suite can do, found by trying it.

A test may skip only for a capability the interpreter lacks (Pyodide has no
threads and no processes; plain Node has no stack switching for
``asyncio.run``), never because of a platform's name.  Each probe runs once,
on first use, and the skip reason names the capability.

    @needs_threads
    def test_wakes_from_another_thread(self): ...
"""

from __future__ import annotations

import functools
import subprocess
import sys
import unittest
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=None)
def can_start_thread() -> bool:
    """Whether ``threading.Thread(...).start()`` works here."""
    import threading

    ran: list[bool] = []
    try:
        thread = threading.Thread(target=lambda: ran.append(True))
        thread.start()
        thread.join(30)
    except (RuntimeError, OSError):
        return False
    return ran == [True]


@functools.lru_cache(maxsize=None)
def can_spawn_process() -> bool:
    """Whether this interpreter can start another copy of itself as a process."""
    if not sys.executable:
        return False
    try:
        done = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError, RuntimeError):
        return False
    return done.returncode == 0


@functools.lru_cache(maxsize=None)
def can_run_asyncio() -> bool:
    """Whether ``asyncio.run()`` can drive a coroutine to the end here."""
    import asyncio

    async def probe() -> int:
        await asyncio.sleep(0)
        return 42

    try:
        return asyncio.run(probe()) == 42
    except Exception:  # noqa: BLE001 - any failure means: not available
        return False


@functools.lru_cache(maxsize=None)
def counts_allocated_blocks() -> bool:
    """Whether ``sys.getallocatedblocks()`` reports memory (it returns 0 without pymalloc)."""
    return sys.getallocatedblocks() > 0


def _skip_unless(probe: Callable[[], bool], reason: str) -> Callable[[F], F]:
    def decorate(test: F) -> F:
        @functools.wraps(test)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not probe():
                raise unittest.SkipTest(reason)
            return test(*args, **kwargs)

        return guarded  # type: ignore[return-value]

    return decorate


#: Skip the test where no thread can start.
needs_threads = _skip_unless(can_start_thread, "needs threads: this interpreter cannot start one")
#: Skip the test where no process can be spawned.
needs_processes = _skip_unless(can_spawn_process, "needs processes: this interpreter cannot spawn one")
#: Skip the test where ``asyncio.run()`` cannot run (no stack switching).
needs_asyncio_run = _skip_unless(can_run_asyncio, "needs asyncio.run(): this interpreter cannot run a loop to completion")
#: Skip the test where ``sys.getallocatedblocks()`` reports nothing.
needs_allocated_blocks = _skip_unless(counts_allocated_blocks, "needs sys.getallocatedblocks(): it reports 0 here")
