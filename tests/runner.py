"""How CI runs the suite: ``python -m unittest discover -s tests -t .`` with every outcome counted.

    python -I tests/runner.py [--label 3.11] [--forbid sockets --forbid threads ...] [unittest names...]
    python -I tests/runner.py --pure     # the inner loop: no sockets, peers or processes, in seconds

It runs what ``unittest`` discovers (or the named modules), prints one line per
test module as it finishes (its tests, failures, skips and seconds) and a
closing line::

    runner[3.11]: 887 tests: 880 passed, 0 failed, 7 skipped (subinterpreters 4, opentelemetry-sdk 3) in 84.1 s

It counts each test once by its outcome, not by ``testsRun`` (CPython 3.12.1
counts no skipped test there, so totals differed between interpreters), and
checks each skip:

- its reason must name a capability, ``needs <capability>: <why>``
  (``tests/capability.py`` writes them so); a skip that names none fails;
- a capability passed with ``--forbid`` must not be missing here: CI refuses
  on CPython on Linux every skip for sockets, threads, processes or signals;
- a skip for a capability that ``tests/capability.py`` can probe must find it
  absent when probed again after the run.

A test that never reported an outcome fails the run too.  Exit status 0 only
when every test passed or skipped as allowed.  Standard library only; the
Pyodide runner uses :class:`Accounting` the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import traceback
import unittest
import warnings
from typing import Any, Callable, Iterable, Iterator, TextIO

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_REASON = re.compile(r"needs (?P<capability>.+?): ")

ErrInfo = Any  # sys.exc_info() triple, as unittest passes it


def capability_of(reason: str) -> str | None:
    """The capability a skip reason names (``needs sockets: ...`` -> ``sockets``), or None."""
    match = _REASON.match(reason)
    return match.group("capability") if match else None


def tests_of(suite: unittest.TestSuite | unittest.TestCase) -> Iterator[unittest.TestCase]:
    """Every test case in ``suite``, in run order."""
    if isinstance(suite, unittest.TestCase):
        yield suite
        return
    for test in suite:
        yield from tests_of(test)


def module_of(test: unittest.TestCase) -> str:
    """The module a test belongs to (a setUpModule or import error belongs to the module it names)."""
    name = type(test).__module__
    if name == "unittest.suite":  # _ErrorHolder: "setUpModule (tests.test_x)", "setUpClass (tests.test_x.Class)"
        kind, _, scope = test.id().partition(" ")
        scope = scope.strip("()")
        return scope if kind.endswith("Module") else scope.rsplit(".", 1)[0]
    if name == "unittest.loader":  # _FailedTest: "unittest.loader._FailedTest.tests.test_x"
        return test.id().removeprefix("unittest.loader._FailedTest.")
    return name


class Accounting(unittest.TestResult):
    """A result that keeps one outcome per test id and prints a line per finished module.

    ``say`` gets each line; ``note`` is told each test as it starts (the
    Pyodide host uses it to name the test during which the interpreter died).
    """

    def __init__(self, say: Callable[[str], object], label: str = "", expected: Iterable[unittest.TestCase] = (),
                 note: Callable[[str], object] | None = None, verbose: bool = False) -> None:
        super().__init__()
        self.say, self.label, self.note, self.verbose = say, label, note, verbose
        self.outcomes: dict[str, str] = {}  # test id -> "passed", "failed", "skipped", ...
        self.reasons: dict[str, str] = {}  # test id -> skip reason
        self.expected = [t.id() for t in expected]
        self.modules = list(dict.fromkeys(module_of(t) for t in expected))
        self._module: str | None = None
        self._module_start = 0.0
        self._module_ids: list[str] = []
        self.started = time.monotonic()

    # -- outcomes ------------------------------------------------------------------
    def _set(self, test: unittest.TestCase, outcome: str) -> None:
        self._enter(test)
        worse = {"passed": 0, "skipped": 1, "expected failure": 1, "failed": 2, "error": 3, "unexpected success": 2}
        old = self.outcomes.get(test.id())
        if old is None or worse[outcome] > worse[old]:
            self.outcomes[test.id()] = outcome
        if self.verbose:
            self.say(f"{self.prefix()}{test} ... {outcome}")
        if test.id() not in self._module_ids:
            self._module_ids.append(test.id())

    def startTest(self, test: unittest.TestCase) -> None:
        self._enter(test)
        if self.note is not None:
            self.note(str(test))
        super().startTest(test)

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self._set(test, "passed")

    def addFailure(self, test: unittest.TestCase, err: ErrInfo) -> None:
        super().addFailure(test, err)
        self._set(test, "failed")

    def addError(self, test: unittest.TestCase, err: ErrInfo) -> None:
        super().addError(test, err)
        self._set(test, "error")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: ErrInfo | None) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._set(test, "failed" if issubclass(err[0], test.failureException) else "error")

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        covered = self._fixture_scope(test)
        if covered is None:
            self.reasons[test.id()] = reason
            self._set(test, "skipped")
            return
        for test_id in covered:  # a setUpModule or setUpClass that skipped: each of its tests skipped, counted
            self.reasons[test_id] = reason
            self.outcomes[test_id] = "skipped"
            self._module_ids.append(test_id)

    def _fixture_scope(self, test: unittest.TestCase) -> list[str] | None:
        """For a skip raised by a module or class fixture, the ids of the tests it covers (none has run)."""
        if type(test).__name__ != "_ErrorHolder":
            return None
        self._enter(test)
        scope = test.id().split(" ", 1)[-1].strip("()")  # "setUpModule (tests.test_x)", "setUpClass (tests.test_x.C)"
        return [i for i in self.expected if i.startswith(scope + ".") and i not in self.outcomes]

    def addExpectedFailure(self, test: unittest.TestCase, err: ErrInfo) -> None:
        super().addExpectedFailure(test, err)
        self._set(test, "expected failure")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._set(test, "unexpected success")

    # -- progress ------------------------------------------------------------------
    def _enter(self, test: unittest.TestCase) -> None:
        module = module_of(test)
        if module != self._module:
            self.end_module()
            self._module, self._module_start, self._module_ids = module, time.monotonic(), []

    def end_module(self) -> None:
        """Print the line of the module that just finished (called once more after the run)."""
        if self._module is None:
            return
        outcomes = [self.outcomes[i] for i in self._module_ids]
        bad = sum(o in ("failed", "error", "unexpected success") for o in outcomes)
        skipped = outcomes.count("skipped")
        place = f"[{self.modules.index(self._module) + 1}/{len(self.modules)}] " if self._module in self.modules else ""
        detail = (f", {bad} FAILED" if bad else "") + (f", {skipped} skipped" if skipped else "")
        self.say(f"{self.prefix()}{place}{self._module}: {len(outcomes)} tests{detail} "
                 f"({time.monotonic() - self._module_start:.1f} s)")
        self._module = None

    def prefix(self) -> str:
        return f"runner[{self.label}]: " if self.label else "runner: "

    # -- the verdict ---------------------------------------------------------------
    def problems(self, forbid: Iterable[str] = ()) -> list[str]:
        """What makes the run fail besides failed tests: skips not allowed here, tests with no outcome."""
        from tests import capability

        forbidden, found = set(forbid), []
        for test_id, reason in sorted(self.reasons.items()):
            name = capability_of(reason)
            if name is None:
                found.append(f"{test_id} skipped without naming a capability ('needs <capability>: <why>'): {reason!r}")
            elif name in forbidden:
                found.append(f"{test_id} skipped for {name}, which this run must have: {reason!r}")
            elif not capability.known_capability(name):
                found.append(f"{test_id} skipped for {name!r}, a capability tests/capability.py does not know: {reason!r}")
            else:
                probe = capability.probe_for(reason)
                try:
                    present = probe() if probe is not None else False
                except Exception as exc:  # noqa: BLE001 - a probe error is reported, not raised
                    found.append(f"{test_id} skipped for {name}, whose probe fails: {exc!r}")
                    continue
                if present:
                    found.append(f"{test_id} skipped for {name}, which this interpreter has: {reason!r}")
        missing = [i for i in self.expected if i not in self.outcomes]
        found += [f"{i} never reported an outcome" for i in missing]
        return found

    def counts(self) -> dict[str, int]:
        values = list(self.outcomes.values())
        return {k: values.count(k) for k in ("passed", "failed", "error", "skipped", "expected failure", "unexpected success")}

    def summary(self) -> str:
        """The closing line: totals, skips by capability, seconds."""
        c = self.counts()
        by_capability: dict[str, int] = {}
        for reason in self.reasons.values():
            name = capability_of(reason) or "unnamed"
            by_capability[name] = by_capability.get(name, 0) + 1
        skips = ", ".join(f"{k} {v}" for k, v in sorted(by_capability.items()))
        bad = c["failed"] + c["error"] + c["unexpected success"]
        kinds = [f"{c[k]} {k}" + ("s" if c[k] > 1 else "") for k in ("error", "unexpected success") if c[k]]
        detail = f" ({', '.join(kinds)} among them)" if kinds else ""
        return (f"{self.prefix()}{len(self.outcomes)} tests: {c['passed'] + c['expected failure']} passed, "
                f"{bad} failed{detail}, {c['skipped']} skipped" + (f" ({skips})" if skips else "")
                + f" in {time.monotonic() - self.started:.1f} s")

    def print_errors(self, stream: TextIO) -> None:
        """The tracebacks of failures and errors, as unittest's text runner prints them."""
        for kind, entries in (("ERROR", self.errors), ("FAIL", self.failures), ("UNEXPECTED SUCCESS", [
                (t, "") for t in self.unexpectedSuccesses])):
            for test, text in entries:
                stream.write("=" * 70 + f"\n{kind}: {test}\n" + "-" * 70 + f"\n{text}\n")


def load(names: list[str]) -> unittest.TestSuite:
    """The named tests, or what ``discover -s tests -t .`` finds."""
    loader = unittest.TestLoader()
    if names:
        return loader.loadTestsFromNames(names)
    return loader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests/runner.py", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--label", default="", help="what to call this run in its lines (e.g. the interpreter)")
    parser.add_argument("--forbid", action="append", default=[], metavar="CAPABILITY",
                        help="a capability whose skip fails the run (repeatable)")
    parser.add_argument("--pure", action="store_true",
                        help="leave out the tests that need sockets or processes (they skip as if absent)")
    parser.add_argument("names", nargs="*", help="test modules, classes or methods (default: discover everything)")
    args = parser.parse_args(argv)
    sys.dont_write_bytecode = True
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    os.chdir(ROOT)
    if args.pure:
        from tests import capability

        capability.PURE = True
        if {"sockets", "processes"} & set(args.forbid):
            parser.error("--pure leaves out the tests that need sockets or processes: it cannot also forbid their skips")

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        suite = load(args.names)
    except Exception:  # noqa: BLE001 - reported, and the run fails
        say(f"runner[{args.label}]: could not load the tests:\n{traceback.format_exc()}")
        return 1
    expected = list(tests_of(suite))
    result = Accounting(say, args.label, expected)
    with warnings.catch_warnings():
        if not sys.warnoptions:
            warnings.simplefilter("default")  # as unittest's text runner does
        suite.run(result)
    result.end_module()
    result.print_errors(sys.stdout)
    problems = result.problems(args.forbid)
    for problem in problems:
        say(f"{result.prefix()}refused: {problem}")
    say(result.summary())
    ok = result.wasSuccessful() and not problems and bool(result.outcomes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
