"""``tools/vendor.py``: the package copied under another name works on its own."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENDOR = os.path.join(ROOT, "tools", "vendor.py")


def vendor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, VENDOR, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


class TestVendor(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.dest = self._tmp.name

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def test_copy_imports_and_round_trips_under_its_new_name(self) -> None:
        proc = vendor(self.dest, "--name", "akc_copy")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("    from akc_copy import Item, ItemKind, Part, Delta, fold, NormalizeError\n", proc.stdout)
        target = os.path.join(self.dest, "akc_copy")
        package = os.path.join(ROOT, "agentkit_core")
        expected = sorted(n for n in os.listdir(package) if n.endswith(".py") or n == "py.typed")
        self.assertEqual(sorted(os.listdir(target)), expected)  # no __pycache__, nothing else
        for name in expected:  # copied byte for byte: nothing is rewritten
            with open(os.path.join(package, name), "rb") as a, open(os.path.join(target, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        # The copy's own command line runs under its own name, isolated from this checkout.
        code = "import sys, runpy; sys.path.insert(0, sys.argv[1]); sys.argv = ['x', 'demo', '--deltas']; " \
               "runpy.run_module('akc_copy', run_name='__main__')"
        proc = subprocess.run([sys.executable, "-I", "-c", code, self.dest], capture_output=True, text=True, cwd=self.dest)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stdout.startswith('{"BeginPart":'))

    def test_refuses_to_overwrite_without_force(self) -> None:
        target = os.path.join(self.dest, "akc")
        os.makedirs(target)
        with open(os.path.join(target, "mine.py"), "w") as f:
            f.write("x = 1\n")
        proc = vendor(self.dest, "--name", "akc")
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr, f"vendor: error: {target} exists and is not empty (use --force to replace it)\n")
        proc = vendor(self.dest, "--name", "akc", "--force")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("mine.py", os.listdir(target))

    def test_refuses_a_bad_name(self) -> None:
        proc = vendor(self.dest, "--name", "not-a-module")
        self.assertEqual((proc.returncode, proc.stderr), (2, "vendor: error: 'not-a-module' is not a valid module name\n"))


if __name__ == "__main__":
    unittest.main()
