"""The suite's own rules, read from its source with ``ast``.

Every check is a ``self.assert*`` call or an explicit ``raise AssertionError``:
a bare ``assert`` vanishes under ``python -OO``, and CI runs the suite there
too, so a check written that way would pass by default in that run.  Scripts
the suite hands to a fresh interpreter as strings count as well.  And every
test class sits above ``unittest.main()``, or running the file directly
skips it.
"""

from __future__ import annotations

import ast
import os
import textwrap
import unittest
from typing import Any, Iterator

TESTS = os.path.dirname(os.path.abspath(__file__))


def suite_sources() -> Iterator[tuple[str, str]]:
    """(path relative to tests/, text) of every Python file under tests/."""
    for folder, subfolders, files in os.walk(TESTS):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, TESTS), f.read()


def embedded_scripts(tree: ast.AST) -> Iterator[tuple[int, ast.Module]]:
    """String constants in ``tree`` that are Python scripts holding statements (line, parsed script)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "assert" in node.value:
            try:
                script = ast.parse(textwrap.dedent(node.value))
            except SyntaxError:
                continue  # prose, a fragment, a pattern: not a script
            yield node.lineno, script


def bare_asserts(source: str) -> list[int]:
    """Lines of ``source`` holding an ``assert`` statement, in its code or in a script it embeds as a string."""
    tree = ast.parse(source)
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    for line, script in embedded_scripts(tree):
        lines += [line for node in ast.walk(script) if isinstance(node, ast.Assert)]
    return sorted(lines)


def classes_after_main(source: str) -> list[str]:
    """Names of classes defined after a module-level ``if __name__ == "__main__":`` block."""
    seen_main, late = False, []
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).replace("'", '"') == '__name__ == "__main__"':
            seen_main = True
        elif seen_main and isinstance(node, ast.ClassDef):
            late.append(node.name)
    return late


class NoBareAssert(unittest.TestCase):
    def test_the_finder_sees_statements_and_embedded_scripts(self) -> None:
        kw = "ass" + "ert"  # spelled apart, so that this file's own samples are not scripts with the statement
        self.assertEqual(bare_asserts(f"x = 1\n{kw} x\n"), [2])
        self.assertEqual(bare_asserts(f"def f(self):\n    if 1:\n        {kw} self, 'why'\n"), [3])
        self.assertEqual(bare_asserts(f'SCRIPT = """\nimport sys\n{kw} sys.argv\n"""\n'), [1])
        self.assertEqual(bare_asserts(f'SCRIPT = r"""\n    {kw} 1\n"""\n'), [1])  # indented, as in a test body
        self.assertEqual(bare_asserts(f"x = 'every {kw} is prose here'\nself.{kw}True(x)\n"), [])
        self.assertEqual(bare_asserts("raise AssertionError('no')\n"), [])

    def test_no_check_under_tests_is_a_bare_assert(self) -> None:
        found = {path: lines for path, source in suite_sources() if (lines := bare_asserts(source))}
        self.assertEqual(found, {}, "use self.assert* or raise AssertionError: -OO removes assert statements")

    def test_the_suite_reads_its_own_files(self) -> None:
        paths = [path for path, _ in suite_sources()]
        self.assertIn("test_suite_rules.py", paths)
        self.assertIn(os.path.join("fakes", "tools.py"), paths)
        self.assertGreater(len(paths), 50)


_SKIPS = {"skipTest": 0, "SkipTest": 0, "skip": 0, "skipIf": 1, "skipUnless": 1}


def literal_skip_reasons(source: str) -> Iterator[tuple[int, str]]:
    """(line, reason) of each skip in ``source`` whose reason is a string literal (an f-string: its literal start)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        at = _SKIPS.get(name)
        if at is None or len(node.args) <= at:
            continue
        reason = node.args[at]
        if isinstance(reason, ast.Constant) and isinstance(reason.value, str):
            yield node.lineno, reason.value
        elif isinstance(reason, ast.JoinedStr):
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in reason.values)


class SkipsNameACapability(unittest.TestCase):
    def test_every_literal_skip_reason_names_a_known_capability(self) -> None:
        from tests import capability
        from tests.runner import capability_of

        bad = []
        for path, source in suite_sources():
            if path in ("test_suite_rules.py",):  # its samples skip wrongly on purpose
                continue
            for line, reason in literal_skip_reasons(source):
                name = capability_of(reason)
                if name is None or ("{" not in name and not capability.known_capability(name)):
                    bad.append(f"{path}:{line}: {reason!r}")
        self.assertEqual(bad, [], "a skip reads 'needs <capability>: <why>', the capability one tests/capability.py knows")

    def test_the_finder_sees_each_form(self) -> None:
        source = (
            "self.skipTest('a')\nraise unittest.SkipTest(f'needs {x}: b')\n"
            "@unittest.skipIf(c, 'needs d: e')\ndef f(): pass\n"
        )
        self.assertEqual(list(literal_skip_reasons(source)), [(1, "a"), (2, "needs {...}: b"), (3, "needs d: e")])


class MainComesLast(unittest.TestCase):
    def test_the_finder_sees_a_late_class(self) -> None:
        source = "import unittest\nclass A: pass\nif __name__ == '__main__':\n    unittest.main()\nclass B: pass\n"
        self.assertEqual(classes_after_main(source), ["B"])

    def test_no_test_class_sits_after_unittest_main(self) -> None:
        found = {path: late for path, source in suite_sources() if (late := classes_after_main(source))}
        self.assertEqual(found, {}, "a class after unittest.main() does not run when its file runs directly")


def samples() -> tuple[type[unittest.TestCase], ...]:
    """Test classes for the runner to count, made here so that discovery does not run them."""
    from tests.capability import needs_module

    needs_module("json")  # registers the probe behind that reason, for the runner to probe again

    class _Sample(unittest.TestCase):
        def test_passes(self) -> None:
            pass

        def test_skips_for_json(self) -> None:  # the reason needs_module("json") gives, where json exists
            self.skipTest("needs the json module: this interpreter has none")

        def test_skips_for_nothing(self) -> None:
            self.skipTest("not today")

        def test_skips_for_a_made_up_capability(self) -> None:
            self.skipTest("needs unicorns: none here")

        def test_skips_for_nginx(self) -> None:
            self.skipTest("needs nginx: not installed")

        def test_fails_in_a_subtest(self) -> None:
            with self.subTest(n=1):
                self.fail("on purpose")

    @unittest.skip("needs a blocked connect: a class skipped whole, which 3.12.1 leaves out of testsRun")
    class _SkippedClass(unittest.TestCase):
        def test_one(self) -> None:
            pass

        def test_two(self) -> None:
            pass

    return _Sample, _SkippedClass


class RunnerAccounting(unittest.TestCase):
    """``tests/runner.py`` counts each test once and refuses the skips it claims to."""

    def run_sample(self, *names: str, forbid: tuple[str, ...] = ()) -> tuple[Any, list[str]]:
        from tests.runner import Accounting, tests_of

        loader = unittest.TestLoader()
        classes = {cls.__name__: cls for cls in samples()}
        suite = unittest.TestSuite(loader.loadTestsFromTestCase(classes[name]) for name in names)
        lines: list[str] = []
        result = Accounting(lines.append, "sample", list(tests_of(suite)))
        suite.run(result)
        result.end_module()
        return result, result.problems(forbid)

    def test_each_test_counts_once_and_a_whole_skipped_class_counts_each_test(self) -> None:
        result, _ = self.run_sample("_Sample", "_SkippedClass")
        self.assertEqual(len(result.outcomes), 8)
        self.assertEqual(result.counts()["skipped"], 6)
        failing = [i for i, outcome in result.outcomes.items() if outcome == "failed"]
        self.assertEqual([i.rsplit(".", 1)[-1] for i in failing], ["test_fails_in_a_subtest"])
        self.assertRegex(result.summary(), r"^runner\[sample\]: 8 tests: 1 passed, 1 failed, 6 skipped ")

    def test_the_skips_it_refuses(self) -> None:
        _, problems = self.run_sample("_Sample", "_SkippedClass", forbid=("nginx",))
        refused = {p.split(" ", 1)[0].rsplit(".", 1)[-1]: p for p in problems}
        self.assertEqual(
            sorted(refused),
            ["test_skips_for_a_made_up_capability", "test_skips_for_json", "test_skips_for_nginx", "test_skips_for_nothing"],
        )
        self.assertIn("which this interpreter has", refused["test_skips_for_json"])
        self.assertIn("without naming a capability", refused["test_skips_for_nothing"])
        self.assertIn("does not know", refused["test_skips_for_a_made_up_capability"])
        self.assertIn("which this run must have", refused["test_skips_for_nginx"])

    def test_a_test_that_never_reports_is_refused(self) -> None:
        from tests.runner import Accounting

        sample = samples()[0]("test_passes")
        result = Accounting(lambda line: None, "", [sample])
        self.assertEqual(result.problems(), [f"{sample.id()} never reported an outcome"])

    def test_a_probe_that_fails_otherwise_than_absent_is_an_error(self) -> None:
        import errno
        from unittest import mock

        from tests import capability

        capability.can_spawn_process.cache_clear()
        self.addCleanup(capability.can_spawn_process.cache_clear)
        self.addCleanup(setattr, capability, "PURE", capability.PURE)
        capability.PURE = False  # the probe itself, also in a --pure run
        with mock.patch.object(capability.subprocess, "run", side_effect=OSError(errno.EMFILE, "Too many open files")):
            with self.assertRaises(capability.ProbeError):
                capability.can_spawn_process()
        capability.can_spawn_process.cache_clear()
        with mock.patch.object(capability.subprocess, "run", side_effect=OSError(errno.ENOTSUP, "no processes")):
            self.assertFalse(capability.can_spawn_process())


if __name__ == "__main__":
    unittest.main()
