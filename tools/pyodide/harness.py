"""The Python half of ``tools/pyodide/run.mjs``: the test suite, run inside Pyodide.

``run.mjs`` calls these in turn, from the repository root:

1. :func:`collect` (synchronously, outside any event loop): finds the tests
   exactly as ``python -m unittest ARGS`` would (by default the README's
   ``discover -s tests -t .``), without running them;
2. :func:`await_bodies` (awaited by JavaScript, on Pyodide's own event loop):
   the bodies of the ``async def`` tests, which cannot run their own loop here
   (``asyncio.run()`` needs WebAssembly stack switching);
3. :func:`run` (synchronously): the suite, as ``python -m unittest`` runs it,
   each outcome counted by ``tests/runner.py``'s :class:`Accounting`; the
   async tests report what their bodies did.  Returns the counts and the skips
   refused (a skip must name a capability Pyodide lacks).

Standard library only, like the tests.
"""

from __future__ import annotations

import sys
import unittest
import warnings
from typing import Any, Callable

#: Capabilities whose skip fails the run here although Pyodide lacks them: run.mjs awaits the async tests itself.
FORBID = ("an event loop",)

_held: list[tuple[dict[str, Any], unittest.TestSuite]] = []


class _Hold:
    """A test runner that keeps what ``unittest.main`` gives it, to run later."""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def run(self, test: unittest.TestSuite | unittest.TestCase) -> unittest.TestResult:
        _held.append((self.options, test if isinstance(test, unittest.TestSuite) else unittest.TestSuite([test])))
        return unittest.TestResult()  # nothing ran yet


def collect(argv: list[str]) -> int:
    """Parse ``argv`` as ``python -m unittest`` does and collect the tests; how many."""
    sys.dont_write_bytecode = True  # never write __pycache__ into the mounted checkout
    _held.clear()
    unittest.main(module=None, argv=["python -m unittest", *argv], testRunner=_Hold, exit=False)
    if not _held:  # pragma: no cover - unittest.main always calls the runner
        raise RuntimeError("unittest found nothing to run")
    from tests.capability import can_run_asyncio

    can_run_asyncio()  # probed here, outside any running loop, where a test would call it
    return _held[-1][1].countTestCases()


async def await_bodies() -> int:
    """Await the async tests' bodies on the running loop; how many."""
    from tests.capability import await_event_loop_tests

    return await await_event_loop_tests(_held[-1][1])


def run(note: Callable[[str], object] = print) -> dict[str, Any]:
    """Run the collected suite, counting every outcome as ``tests/runner.py`` does; the counts.

    A line per test module as it finishes; the tracebacks at the end.  Each
    skip must name a capability that Pyodide lacks (probed again after the
    run); ``refused`` lists the skips that do not, which fail the run.  ``note``
    is told each test as it starts, so that a host whose interpreter dies
    mid-run (a fatal error is not an exception) can say in which test.
    """
    from tests.runner import Accounting, tests_of

    options, suite = _held[-1]
    expected = list(tests_of(suite))
    result = Accounting(lambda line: print(line, flush=True), "pyodide", expected, note=note,
                        verbose=options.get("verbosity", 1) > 1)
    with warnings.catch_warnings():
        if not sys.warnoptions:
            warnings.simplefilter("default")  # as unittest's text runner does
        suite.run(result)
    result.end_module()
    result.print_errors(sys.stdout)
    refused = result.problems(FORBID)
    counts = result.counts()
    return {
        "run": len(result.outcomes),
        "passed": counts["passed"] + counts["expected failure"],
        "failures": counts["failed"] + counts["unexpected success"],
        "errors": counts["error"],
        "skipped": counts["skipped"],
        "summary": result.summary(),
        "refused": refused,
    }
