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

Every skip reason reads ``needs <capability>: <why>``, the capability one of
:data:`CAPABILITIES` (or ``the <name> module``, or a program or library named
by :func:`needs_program` / :func:`needs_library`), so that CI can count skips
by capability and refuse the ones an interpreter must not have
(``tests/runner.py``; on CPython on Linux, no skip for sockets, threads,
processes or signals).  A probe says "absent" only for the answer an
interpreter without the capability gives (Pyodide's thread stubs, an
``ENOTSUP`` from spawning); any other failure raises :class:`ProbeError`,
and the test errors instead of skipping.
"""

from __future__ import annotations

import errno
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import unittest
from typing import Any, Awaitable, Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
AsyncTest = Callable[[Any], Awaitable[None]]


#: Set by ``tests/runner.py --pure``: the inner loop's run, which leaves out every test needing sockets (the loopback
#: server and the peers) or a process, as if the interpreter had neither.  Threads, signals and ``asyncio.run()`` stay.
PURE = False


class ProbeError(RuntimeError):
    """A probe failed for another reason than the capability being absent: an error, not a skip."""


def _errnos(*names: str) -> frozenset[int]:
    return frozenset(getattr(errno, name) for name in names if hasattr(errno, name))


#: What the system answers when it has no such thing at all (or a sandbox forbids it outright).
_UNSUPPORTED = _errnos("ENOSYS", "ENOTSUP", "EOPNOTSUPP", "EPERM", "EACCES")
#: ...and for sockets, also: no IPv4, or no loopback interface to reach.
_NO_LOOPBACK = _UNSUPPORTED | _errnos("EAFNOSUPPORT", "EPROTONOSUPPORT", "EADDRNOTAVAIL", "ENETUNREACH")


@functools.lru_cache(maxsize=None)
def can_start_thread() -> bool:
    """Whether ``threading.Thread(...).start()`` works here (False only on a build with thread stubs)."""
    import threading

    ran: list[bool] = []
    try:
        thread = threading.Thread(target=lambda: ran.append(True))
        thread.start()
        thread.join(30)
    except (RuntimeError, OSError) as exc:
        if sys.thread_info.name == "pthread-stubs":  # built without threads: WebAssembly (Pyodide, WASI)
            return False
        raise ProbeError(f"this interpreter has threads ({sys.thread_info.name}) but cannot start one: {exc!r}") from exc
    if ran != [True]:
        raise ProbeError("a started thread did not run within 30 s")
    return True


@functools.lru_cache(maxsize=None)
def can_serve_loopback() -> bool:
    """Whether a TCP server on 127.0.0.1 can start here and a client connect to it (with a thread to serve)."""
    if PURE or not can_start_thread():
        return False
    try:
        import socket
    except ImportError:
        return False
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=10):
                pass
    except OSError as exc:
        if exc.errno in _NO_LOOPBACK:
            return False
        raise ProbeError(f"sockets exist here but the loopback probe failed: {exc!r}") from exc
    return True


@functools.lru_cache(maxsize=None)
def can_serve_ipv6_loopback() -> bool:
    """Whether a TCP server can listen on [::1] here (a machine may have no IPv6 loopback)."""
    if not can_serve_loopback():
        return False
    import socket

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as server:
            server.bind(("::1", 0))
    except OSError as exc:
        if exc.errno in _NO_LOOPBACK:
            return False
        raise ProbeError(f"the [::1] probe failed: {exc!r}") from exc
    return True


@functools.lru_cache(maxsize=None)
def can_spawn_process() -> bool:
    """Whether this interpreter can start another copy of itself as a process."""
    if PURE:
        return False
    if not sys.executable:
        return False  # an embedded interpreter that cannot name itself
    try:
        done = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, timeout=60)
    except OSError as exc:
        if exc.errno in _UNSUPPORTED:  # Pyodide: ENOTSUP, "emscripten does not support processes"
            return False
        raise ProbeError(f"cannot start {sys.executable}: {exc!r}") from exc
    except subprocess.SubprocessError as exc:
        raise ProbeError(f"{sys.executable} -c pass did not finish: {exc!r}") from exc
    if done.returncode != 0:
        raise ProbeError(f"{sys.executable} -c pass exited {done.returncode}: {done.stderr[-500:]!r}")
    return True


def fast_paths_on() -> bool:
    """Whether the providers take their fast paths (``AGENTKIT_CORE_FAST_PATHS=0``, CI's no-fast-paths run, turns them off)."""
    from agentkit_core._fast_paths import FAST_PATHS

    return FAST_PATHS


def has_signals(*names: str) -> bool:
    """Whether the ``signal`` module has every one of ``names`` (functions or signal numbers)."""
    import signal

    return all(hasattr(signal, name) for name in names)


def can_deliver_signals() -> bool:
    """Whether a signal can be raised here and reaches its handler: ``signal.raise_signal`` and ``SIGINT``."""
    return has_signals("raise_signal", "SIGINT")


@functools.lru_cache(maxsize=None)
def has_library(module: str) -> bool:
    """Whether the (third-party) module ``module`` can be imported here."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def has_program(name: str) -> bool:
    """Whether the program ``name`` is on PATH (never in a ``--pure`` run: the peers are servers and processes)."""
    return not PURE and shutil.which(name) is not None


@functools.lru_cache(maxsize=None)
def can_run_asyncio() -> bool:
    """Whether ``asyncio.run()`` can drive a coroutine to the end here."""
    import asyncio

    async def probe() -> int:
        await asyncio.sleep(0)
        return 42

    coroutine = probe()
    try:
        result = asyncio.run(coroutine)
    except RuntimeError as exc:
        coroutine.close()  # never started: no "never awaited" warning
        if "stack switching" in str(exc):  # Pyodide under plain Node: "WebAssembly stack switching not supported"
            return False
        raise ProbeError(f"asyncio.run() failed here: {exc!r}") from exc
    if result != 42:
        raise ProbeError(f"asyncio.run() returned {result!r}, not 42")
    return True


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
    """Skip where ``probe()`` is False, probed when the test runs (not at import); on a class, each test of it."""

    def decorate(test: F) -> F:
        if isinstance(test, type):
            return _skip_class_unless(test, probe, reason)  # type: ignore[return-value]

        @functools.wraps(test)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not probe():
                raise unittest.SkipTest(reason)
            return test(*args, **kwargs)

        return guarded  # type: ignore[return-value]

    return decorate


def _skip_class_unless(cls: type[unittest.TestCase], probe: Callable[[], bool], reason: str) -> type[unittest.TestCase]:
    """Each test of ``cls`` skips from its ``setUp`` where ``probe()`` is False (and the class fixtures do nothing).

    One skip per test, the same count on every interpreter: CPython 3.12.1
    leaves the tests of a class skipped by ``unittest.skipUnless`` out of its
    total, the other versions count them.
    """
    set_up = cls.setUp

    @functools.wraps(set_up)
    def guarded_set_up(self: unittest.TestCase) -> None:
        if not probe():
            raise unittest.SkipTest(reason)
        set_up(self)

    cls.setUp = guarded_set_up  # type: ignore[method-assign]
    for name in ("setUpClass", "tearDownClass"):
        if name in vars(cls):
            fixture = getattr(cls, name).__func__

            def guarded_fixture(klass: type, fixture: Callable[[type], None] = fixture) -> None:
                if probe():
                    fixture(klass)

            setattr(cls, name, classmethod(guarded_fixture))
    return cls


#: The capabilities a skip may name (``needs <name>: <why>``), each with the probe that finds it, or None where
#: the probe takes arguments.  ``tests/runner.py`` re-probes each skip's capability after the run: a skip for a
#: capability the interpreter has is a failure.  Besides these, a skip may name ``the <module> module``
#: (:func:`needs_module`), a library (:func:`needs_library`) or a program (:func:`needs_program`).
CAPABILITIES: dict[str, Callable[[], bool] | None] = {
    "threads": can_start_thread,
    "sockets": can_serve_loopback,
    "processes": can_spawn_process,
    "signals": None,
    "named pipes": lambda: hasattr(os, "mkfifo"),
    "asyncio.run()": can_run_asyncio,
    "an event loop": None,
    "sys.getallocatedblocks()": counts_allocated_blocks,
    "subinterpreters": can_run_subinterpreter,
    "threads in a subinterpreter": can_start_thread_in_subinterpreter,
    "asyncio in a subinterpreter": can_run_asyncio_in_subinterpreter,
    "fast paths": lambda: fast_paths_on(),
    "[::1]": lambda: can_serve_ipv6_loopback(),
    "a blocked connect": None,  # a system that queues no connect past a full backlog
    "no provider SDK": None,  # tools/sdk_dumps.py records instead where anthropic or openai is installed
    "no js module": lambda: not has_module("js"),  # behaviour outside a browser; Pyodide has js
    # programs the peer and browser tests start (tests/peers.py; CI installs them and refuses these skips)
    "nginx": None,
    "squid": None,
    "openssl": None,
    "chromium": None,
}


def skip_reason(capability: str, why: str) -> str:
    """The reason a test skips with when ``capability`` is missing: ``needs <capability>: <why>``."""
    return f"needs {capability}: {why}"


#: The probe behind each reason a decorator skips with, for the runner to probe again.
PROBES_BY_REASON: dict[str, Callable[[], bool]] = {}


def known_capability(name: str) -> bool:
    """Whether a skip may name ``name``: a listed capability, one a decorator was made for, or a module."""
    return name in CAPABILITIES or any(r.startswith(f"needs {name}: ") for r in PROBES_BY_REASON) or (
        name.startswith("the ") and name.endswith(" module")
    )


def probe_for(reason: str) -> Callable[[], bool] | None:
    """The probe that decides a skip with ``reason``: the decorator's own, else the named capability's, else None."""
    probe = PROBES_BY_REASON.get(reason)
    if probe is None and reason.startswith("needs ") and ": " in reason:
        probe = CAPABILITIES.get(reason[len("needs "):].split(": ", 1)[0])
    return probe


def needs(capability: str, probe: Callable[[], bool], why: str) -> Callable[[F], F]:
    """Skip the test (or each test of the class) where ``probe()`` is False, naming ``capability``."""
    reason = skip_reason(capability, why)
    PROBES_BY_REASON[reason] = probe
    return _skip_unless(probe, reason)


#: Skip the test where no thread can start.
needs_threads = needs("threads", can_start_thread, "this interpreter cannot start one")
#: Skip the test where no loopback TCP server can run (no sockets or no threads: Pyodide).
needs_fast_paths = needs("fast paths", fast_paths_on, "AGENTKIT_CORE_FAST_PATHS=0 turns them off")
needs_loopback = needs("sockets", can_serve_loopback, "this interpreter cannot serve and reach 127.0.0.1")
#: Skip the test where no process can be spawned.
needs_processes = needs("processes", can_spawn_process, "this interpreter cannot spawn one")
#: Skip the test where ``asyncio.run()`` cannot run (no stack switching).
needs_asyncio_run = needs("asyncio.run()", can_run_asyncio, "this interpreter cannot run a loop to completion")
#: Skip the test where ``sys.getallocatedblocks()`` reports nothing.
needs_allocated_blocks = needs("sys.getallocatedblocks()", counts_allocated_blocks, "it reports 0 here")
#: Skip the test where ``os.mkfifo`` does not exist.
needs_named_pipes = needs("named pipes", lambda: hasattr(os, "mkfifo"), "this interpreter has no os.mkfifo")
#: Skip the test where no isolated subinterpreter can be created.
needs_subinterpreters = needs(
    "subinterpreters", can_run_subinterpreter, "this interpreter has no _interpreters or _xxsubinterpreters"
)
#: Skip the test where code in a subinterpreter cannot start a thread.
needs_threads_in_subinterpreters = needs(
    "threads in a subinterpreter", can_start_thread_in_subinterpreter, "this interpreter refuses to start one there"
)
#: Skip the test where asyncio cannot run in a subinterpreter and leave the process alive.
needs_asyncio_in_subinterpreters = needs(
    "asyncio in a subinterpreter", can_run_asyncio_in_subinterpreter, "here it aborts the process at exit"
)


def needs_signals(*names: str) -> Callable[[F], F]:
    """Skip the test where the ``signal`` module lacks one of ``names`` (``"setitimer"``, ``"SIGALRM"``)."""
    return needs("signals", lambda: has_signals(*names), f"this interpreter's signal module lacks one of {', '.join(names)}")


def needs_module(name: str) -> Callable[[F], F]:
    """Skip the test where the standard library module ``name`` cannot be imported."""
    return needs(f"the {name} module", lambda: has_module(name), "this interpreter has none")


def needs_library(distribution: str, module: str) -> Callable[[F], F]:
    """Skip the test where the optional library ``distribution`` (imported as ``module``) is not installed.

    CI installs every such library in a throwaway virtualenv and runs the suite
    there too, where this skip is refused (``.ci/run``).
    """
    return needs(distribution, lambda: has_library(module), f"{module} is not installed here")


def needs_program(name: str) -> Callable[[F], F]:
    """Skip the test where the program ``name`` (``nginx``, ``squid``, ``chromium``) is not on PATH.

    CI installs the programs and refuses the skip (``.ci/run``).
    """
    return needs(name, lambda: has_program(name), "not on PATH")


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
                skip_reason("an event loop", "asyncio.run() cannot run here and no host loop awaited this test")
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
