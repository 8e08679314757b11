"""The package imports everywhere it promises to: -I -S, -OO, from a zip, and under another name."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "agentkit_core")

# Imports a package named NAME from the first sys.path entry, round-trips a value and checks
# that the errors name the package they were imported under and that importing had no side effects.
PROBE = r"""
import sys, json, threading
sys.path.insert(0, sys.argv[1])
name = sys.argv[2]
before_threads = threading.active_count()
mod = __import__(name)
assert threading.active_count() == before_threads, "import started a thread"
for lazy in ("asyncio", "base64", "uuid", name + "._cli"):
    assert lazy not in sys.modules, lazy + " imported at package import"
item = mod.Item(mod.ItemKind.USER, [mod.TextPart("hi"), mod.MediaPart(mod.Modality.IMAGE, "image/png", mod.InlineBytes(b"\x89"))])
wire = json.dumps(item.to_dict())
assert mod.Item.from_dict(json.loads(wire)) == item
assert mod.NormalizeError.__module__ == name, mod.NormalizeError.__module__
try:
    mod.Item.from_dict({"kind": "Nope", "parts": [], "metadata": {}})
except mod.NormalizeError as exc:
    assert exc.path == "kind", exc.path
state = mod.fold_all((), [mod.BeginPart(mod.PartId("p"), mod.PartKind.TEXT), mod.AppendText(mod.PartId("p"), "ok")])
assert state.snapshot() == (mod.TextPart("ok"),)
print("ok", mod.__version__)
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


class Importable(unittest.TestCase):
    def assert_probe(self, flags: list[str], path: str, name: str) -> None:
        result = run(*flags, "-c", PROBE, path, name)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("ok "), result.stdout)

    def test_isolated_without_site(self) -> None:
        self.assert_probe(["-I", "-S"], ROOT, "agentkit_core")

    def test_optimised_without_docstrings(self) -> None:
        self.assert_probe(["-I", "-OO"], ROOT, "agentkit_core")

    def test_copied_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(PACKAGE, os.path.join(tmp, "vendored_core"), ignore=shutil.ignore_patterns("__pycache__"))
            self.assert_probe(["-I"], tmp, "vendored_core")

    def test_loaded_from_a_zip_file_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            archive = os.path.join(tmp, "bundle.zip")
            with zipfile.ZipFile(archive, "w") as zf:
                for name in sorted(os.listdir(PACKAGE)):
                    if name.endswith((".py", ".typed")):
                        zf.write(os.path.join(PACKAGE, name), f"zipped_core/{name}")
            self.assert_probe(["-I"], archive, "zipped_core")


class Hygiene(unittest.TestCase):
    def test_only_relative_imports_of_the_standard_library(self) -> None:
        stdlib = sys.stdlib_module_names
        for name in sorted(os.listdir(PACKAGE)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    modules = [node.module or ""]
                else:
                    continue
                for module in modules:
                    with self.subTest(file=name, module=module):
                        top = module.split(".")[0]
                        self.assertNotEqual(top, "agentkit_core")
                        self.assertTrue(top in stdlib or top == "__future__", module)

    def test_version_is_a_literal_and_all_is_explicit(self) -> None:
        with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        assigned = {
            t.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        self.assertIsInstance(assigned["__version__"], ast.Constant)
        self.assertIsInstance(assigned["__all__"], ast.Tuple)
        import agentkit_core

        for name in agentkit_core.__all__:
            self.assertTrue(hasattr(agentkit_core, name), name)
        self.assertEqual(len(set(agentkit_core.__all__)), len(agentkit_core.__all__))

    def test_modules_stay_small(self) -> None:
        for name in sorted(os.listdir(PACKAGE)):
            if name.endswith(".py"):
                with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
                    lines = sum(1 for _ in f)
                with self.subTest(file=name):
                    self.assertLess(lines, 500)

    def test_py_typed_ships(self) -> None:
        self.assertTrue(os.path.isfile(os.path.join(PACKAGE, "py.typed")))


if __name__ == "__main__":
    unittest.main()
