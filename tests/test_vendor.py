"""``tools/vendor.py``: the package copied under another name works on its own.

The tool proves each copy in a fresh interpreter, so copying needs a process;
its refusals do not, and are also tried in this interpreter.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import socket
import subprocess
import sys
import tempfile
import unittest
from types import ModuleType

from tests.capability import needs_processes
from tests.test_packaging import package_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENDOR = os.path.join(ROOT, "tools", "vendor.py")


def vendor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, VENDOR, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


def vendor_tool() -> ModuleType:
    """``tools/vendor.py`` imported as a module of this interpreter."""
    spec = importlib.util.spec_from_file_location("agentkit_vendor_tool", VENDOR)
    if spec is None or spec.loader is None:
        raise AssertionError(f"cannot load {VENDOR}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def vendor_here(*args: str) -> tuple[int, str, str]:
    """Run the tool's ``main(args)`` in this interpreter: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = vendor_tool().main(list(args))
    return status, out.getvalue(), err.getvalue()


class TestVendor(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.dest = self._tmp.name

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def test_copies_every_module_and_subpackage(self) -> None:
        self.assertEqual(vendor_tool().files(), package_files())
        self.assertIn(os.path.join("providers", "__init__.py"), package_files())

    @needs_processes
    def test_copy_imports_and_round_trips_under_its_new_name(self) -> None:
        proc = vendor(self.dest, "--name", "akc_copy")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("    from akc_copy import Item, ItemKind, Part, Delta, fold, NormalizeError\n", proc.stdout)
        target = os.path.join(self.dest, "akc_copy")
        package = os.path.join(ROOT, "agentkit_core")
        expected = package_files()
        copied = sorted(
            os.path.relpath(os.path.join(folder, name), target) for folder, _, names in os.walk(target) for name in names
        )
        self.assertEqual(copied, expected)  # no __pycache__, nothing else
        for name in expected:  # copied byte for byte: nothing is rewritten
            with open(os.path.join(package, name), "rb") as a, open(os.path.join(target, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        # The copy's own command line runs under its own name, isolated from this checkout.
        code = "import sys, runpy; sys.path.insert(0, sys.argv[1]); sys.argv = ['x', 'demo', '--deltas']; " \
               "runpy.run_module('akc_copy', run_name='__main__')"
        proc = subprocess.run([sys.executable, "-I", "-c", code, self.dest], capture_output=True, text=True, cwd=self.dest)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stdout.startswith('{"BeginPart":'))

    @needs_processes
    def test_the_command_line_names_itself_by_its_dotted_name_in_every_command(self) -> None:
        # Vendored as outer.akc: the usage error, --version and turn's own errors all say "outer.akc"
        # (turn once said "outer", the parser "outer.akc").
        outer = os.path.join(self.dest, "outer")
        proc = vendor(outer, "--name", "akc")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(outer, "__init__.py"), "w") as f:
            f.write("")
        transcript = os.path.join(self.dest, "t.jsonl")
        with open(transcript, "w") as f:
            f.write('{"id":null,"kind":"User","parts":[{"Text":{"text":"hi","metadata":{}}}],"metadata":{},'
                    '"usage":null,"finish_reason":null,"created_at":null}\n')
        with socket.socket() as probe:  # a port nothing listens on: the connection is refused
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            code = "import sys, runpy; sys.path.insert(0, sys.argv.pop(1)); runpy.run_module('outer.akc', run_name='__main__', alter_sys=True)"
            return subprocess.run([sys.executable, "-I", "-c", code, self.dest, *args], capture_output=True, text=True,
                                  cwd=self.dest, timeout=60)

        version = cli("--version")
        self.assertEqual((version.returncode, version.stdout.split(" ")[0]), (0, "outer.akc"), version.stderr)
        usage = cli("validate")
        self.assertEqual(usage.returncode, 2)
        self.assertTrue(usage.stderr.startswith("outer.akc: error: "), usage.stderr)
        self.assertIn("(see python -m outer.akc validate --help)", usage.stderr)
        turn = cli("turn", "--provider", "anthropic", "--model", "m", "--base-url", f"http://127.0.0.1:{port}",
                   "--retries", "0", "--max-tokens", "64", transcript)
        self.assertEqual(turn.returncode, 1, turn.stderr)
        self.assertTrue(turn.stderr.startswith("outer.akc: anthropic: "), turn.stderr)
        no_key = cli("turn", "--provider", "openai-chat", "--model", "m", transcript)
        if "OPENAI_API_KEY" not in os.environ:
            self.assertEqual(no_key.returncode, 2)
            self.assertTrue(no_key.stderr.startswith("outer.akc: error: set OPENAI_API_KEY"), no_key.stderr)

    def make_occupied(self) -> str:
        target = os.path.join(self.dest, "akc")
        os.makedirs(target)
        with open(os.path.join(target, "mine.py"), "w") as f:
            f.write("x = 1\n")
        return target

    def test_refuses_to_overwrite_without_force(self) -> None:
        target = self.make_occupied()
        message = f"vendor: error: {target} exists and is not empty (use --force to replace it)\n"
        self.assertEqual(vendor_here(self.dest, "--name", "akc"), (2, "", message))
        self.assertEqual(os.listdir(target), ["mine.py"])

    @needs_processes
    def test_replaces_with_force(self) -> None:
        target = self.make_occupied()
        proc = vendor(self.dest, "--name", "akc")
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr, f"vendor: error: {target} exists and is not empty (use --force to replace it)\n")
        proc = vendor(self.dest, "--name", "akc", "--force")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("mine.py", os.listdir(target))

    def test_refuses_a_bad_name(self) -> None:
        self.assertEqual(
            vendor_here(self.dest, "--name", "not-a-module"),
            (2, "", "vendor: error: 'not-a-module' is not a valid module name\n"),
        )
        self.assertEqual(os.listdir(self.dest), [])


if __name__ == "__main__":
    unittest.main()
