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
from typing import Iterator

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


class MainComesLast(unittest.TestCase):
    def test_the_finder_sees_a_late_class(self) -> None:
        source = "import unittest\nclass A: pass\nif __name__ == '__main__':\n    unittest.main()\nclass B: pass\n"
        self.assertEqual(classes_after_main(source), ["B"])

    def test_no_test_class_sits_after_unittest_main(self) -> None:
        found = {path: late for path, source in suite_sources() if (late := classes_after_main(source))}
        self.assertEqual(found, {}, "a class after unittest.main() does not run when its file runs directly")


if __name__ == "__main__":
    unittest.main()
