"""What the interpreter running the suite can do, found by trying it.

A test may skip only for a capability the interpreter lacks (Pyodide has no
threads and no processes; plain Node has no stack switching for
``asyncio.run``), never because of a platform's name.  Each probe runs once,
on first use, and the skip reason names the capability.

    @needs_threads
    def test_wakes_from_another_thread(self): ...

An ``async def`` test is marked :func:`event_loop_test`.  Where
``asyncio.run()`` works it runs there, on a fresh loop.  Where it cannot (no
stack switching), a host that drives its own event loop awaits the test's body
on that loop before the suite runs (:func:`await_event_loop_tests`; the
Pyodide runner, ``tools/pyodide/run.mjs``, does), and the test then reports
that outcome in its place.  With neither, the test skips.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import unittest
from typing import Any, Awaitable, Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
AsyncTest = Callable[[Any], Awaitable[None]]


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
def can_serve_loopback() -> bool:
    """Whether a TCP server on 127.0.0.1 can start here and a client connect to it (with a thread to serve)."""
    if not can_start_thread():
        return False
    try:
        import socket

        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=10):
                pass
    except (OSError, ImportError, RuntimeError):
        return False
    return True


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

    coroutine = probe()
    try:
        return asyncio.run(coroutine) == 42
    except Exception:  # noqa: BLE001 - any failure means: not available
        coroutine.close()  # never started: no "never awaited" warning
        return False


@functools.lru_cache(maxsize=None)
def counts_allocated_blocks() -> bool:
    """Whether ``sys.getallocatedblocks()`` reports memory (it returns 0 without pymalloc)."""
    return sys.getallocatedblocks() > 0


@functools.lru_cache(maxsize=None)
def has_module(name: str) -> bool:
    """Whether the standard library module ``name`` can be imported here."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def subinterpreters() -> Any:
    """CPython's private subinterpreter module (``_interpreters`` from 3.13, ``_xxsubinterpreters`` before), or None."""
    for name in ("_interpreters", "_xxsubinterpreters"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def create_isolated_interpreter(module: Any) -> Any:
    """A new isolated subinterpreter (its own modules; from 3.12 its own GIL too); the caller destroys it."""
    if hasattr(module, "new_config"):  # 3.13: named configs, "isolated" is the default
        return module.create(module.new_config("isolated"))
    return module.create(isolated=True)  # 3.10 to 3.12


def run_in_interpreter(module: Any, interpreter: Any, script: str, shared: dict[str, object] | None = None) -> None:
    """Run ``script`` in the subinterpreter; an exception in it becomes an AssertionError here."""
    try:
        failure = module.run_string(interpreter, script, shared)
    except Exception as exc:  # up to 3.12: RunFailedError
        raise AssertionError(f"in the subinterpreter: {exc}") from None
    if failure is not None:  # 3.13: a snapshot of the exception
        raise AssertionError(f"in the subinterpreter: {getattr(failure, 'errdisplay', None) or failure}")


def _runs_in_a_subinterpreter(script: str) -> bool:
    module = subinterpreters()
    if module is None:
        return False
    try:
        interpreter = create_isolated_interpreter(module)
    except Exception:  # noqa: BLE001 - any failure means: not available
        return False
    try:
        run_in_interpreter(module, interpreter, script)
    except AssertionError:
        return False
    finally:
        module.destroy(interpreter)
    return True


@functools.lru_cache(maxsize=None)
def can_run_subinterpreter() -> bool:
    """Whether an isolated subinterpreter can be created here and run code."""
    return _runs_in_a_subinterpreter("x = 1")


@functools.lru_cache(maxsize=None)
def can_start_thread_in_subinterpreter() -> bool:
    """Whether code in an isolated subinterpreter can start a thread (3.10 and 3.11 refuse)."""
    return (
        can_run_subinterpreter()
        and can_start_thread()
        and _runs_in_a_subinterpreter("import threading; t = threading.Thread(target=len, args=((),)); t.start(); t.join()")
    )


_ASYNCIO_IN_A_SUBINTERPRETER = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.capability import create_isolated_interpreter, run_in_interpreter, subinterpreters
module = subinterpreters()
interpreter = create_isolated_interpreter(module)
try:
    run_in_interpreter(module, interpreter, "import asyncio; asyncio.run(asyncio.sleep(0))")
finally:
    module.destroy(interpreter)
"""


@functools.lru_cache(maxsize=None)
def can_run_asyncio_in_subinterpreter() -> bool:
    """Whether asyncio runs in an isolated subinterpreter without taking the process down.

    Tried in a throwaway process: where it fails, it fails by aborting the
    interpreter at exit (CPython 3.12.1 does), which no test process survives.
    """
    if not (can_run_subinterpreter() and can_spawn_process()):
        return False
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _ASYNCIO_IN_A_SUBINTERPRETER, root], capture_output=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


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
#: Skip the test where no loopback TCP server can run (no sockets or no threads: Pyodide).
needs_loopback = _skip_unless(can_serve_loopback, "needs sockets: this interpreter cannot serve and reach 127.0.0.1")
#: Skip the test where no process can be spawned.
needs_processes = _skip_unless(can_spawn_process, "needs processes: this interpreter cannot spawn one")
#: Skip the test where ``asyncio.run()`` cannot run (no stack switching).
needs_asyncio_run = _skip_unless(can_run_asyncio, "needs asyncio.run(): this interpreter cannot run a loop to completion")
#: Skip the test where ``sys.getallocatedblocks()`` reports nothing.
needs_allocated_blocks = _skip_unless(counts_allocated_blocks, "needs sys.getallocatedblocks(): it reports 0 here")
#: Skip the test where no isolated subinterpreter can be created.
needs_subinterpreters = _skip_unless(
    can_run_subinterpreter, "needs subinterpreters: this interpreter has no _interpreters or _xxsubinterpreters"
)
#: Skip the test where code in a subinterpreter cannot start a thread.
needs_threads_in_subinterpreters = _skip_unless(
    can_start_thread_in_subinterpreter, "needs threads in a subinterpreter: this interpreter refuses to start one there"
)
#: Skip the test where asyncio cannot run in a subinterpreter and leave the process alive.
needs_asyncio_in_subinterpreters = _skip_unless(
    can_run_asyncio_in_subinterpreter, "needs asyncio in a subinterpreter: here it aborts the process at exit"
)


def needs_module(name: str) -> Callable[[F], F]:
    """Skip the test where the module ``name`` cannot be imported."""
    return _skip_unless(lambda: has_module(name), f"needs the {name} module: this interpreter has none")


# -- async def tests ------------------------------------------------------------------

#: The body of every event_loop_test wrapper, by wrapper.
_BODIES: dict[Callable[..., None], AsyncTest] = {}
#: Outcomes of bodies a host's loop awaited, by test id: None for success, else what the body raised.
_AWAITED: dict[str, BaseException | None] = {}


def event_loop_test(body: AsyncTest) -> Callable[[Any], None]:
    """Mark an ``async def`` test method; see the module docstring for where it runs.

    Put capability decorators (``@needs_threads``) under this one, so that they
    guard the body wherever it runs.
    """

    @functools.wraps(body)
    def run(self: unittest.TestCase) -> None:
        if can_run_asyncio():
            import asyncio

            asyncio.run(body(self))  # type: ignore[arg-type]
            return
        try:
            outcome = _AWAITED.pop(self.id())
        except KeyError:
            raise unittest.SkipTest(
                "needs an event loop: asyncio.run() cannot run here and no host loop awaited this test"
            ) from None
        if outcome is not None:
            raise outcome

    _BODIES[run] = body
    return run


def _tests(suite: unittest.TestSuite | unittest.TestCase) -> Iterator[unittest.TestCase]:
    if isinstance(suite, unittest.TestCase):
        yield suite
        return
    for test in suite:
        yield from _tests(test)


async def await_event_loop_tests(suite: unittest.TestSuite) -> int:
    """Await the body of every event_loop_test in ``suite`` on the running loop; how many there were.

    For a host whose loop cannot be run from inside a test (Pyodide without
    stack switching): call this from a coroutine the host awaits, then run
    ``suite`` as usual, and each of those tests reports the outcome of its body.
    Each body runs between its test case's ``setUp`` and ``tearDown``.
    """
    if can_run_asyncio():
        return 0  # the tests run their bodies themselves
    count = 0
    for test in _tests(suite):
        body = _BODIES.get(getattr(type(test), getattr(test, "_testMethodName", ""), None))  # type: ignore[arg-type]
        if body is None:
            continue
        count += 1
        outcome: BaseException | None = None
        try:
            test.setUp()
            try:
                await body(test)
            finally:
                test.tearDown()
                test.doCleanups()
        except Exception as exc:  # noqa: BLE001 - reported by the test itself
            outcome = exc
        _AWAITED[test.id()] = outcome
    return count
