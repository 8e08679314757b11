"""The package imports everywhere it promises to: -I -S, -OO, from a zip, and under another name.

Each place is tried in a fresh interpreter, which alone shows that importing
had no side effects.  The renamed and zipped copies are also imported into
this interpreter, so that they are tried wherever the suite runs (Pyodide,
which cannot start a fresh one, included).
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from typing import Any, Iterator

from tests.capability import needs_processes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "agentkit_core")


def exercise(mod: Any, name: str) -> str:
    """Use the package imported as ``name``: every module imports, an item round-trips, errors name it."""
    import importlib
    import json
    import pkgutil

    for info in pkgutil.walk_packages(mod.__path__, name + "."):
        importlib.import_module(info.name)
    item = mod.Item(
        mod.ItemKind.USER, [mod.TextPart("hi"), mod.MediaPart(mod.Modality.IMAGE, "image/png", mod.InlineBytes(b"\x89"))]
    )
    wire = json.dumps(item.to_dict())
    if mod.Item.from_dict(json.loads(wire)) != item:
        raise AssertionError("an item does not round-trip")
    if mod.NormalizeError.__module__ != name:
        raise AssertionError(mod.NormalizeError.__module__)
    try:
        mod.Item.from_dict({"kind": "Nope", "parts": [], "metadata": {}})
    except mod.NormalizeError as exc:
        if exc.path != "kind":
            raise AssertionError(exc.path) from exc
    else:
        raise AssertionError("a bad item decoded")
    state = mod.fold_all((), [mod.BeginPart(mod.PartId("p"), mod.PartKind.TEXT), mod.AppendText(mod.PartId("p"), "ok")])
    if state.snapshot() != (mod.TextPart("ok"),):
        raise AssertionError(state.snapshot())
    controller = mod.CancellationController()
    checkpoint = controller.handle().checkpoint()
    controller.interrupt()
    if not checkpoint.is_cancelled():
        raise AssertionError("an interrupt does not cancel the checkpoint")
    return str(mod.__version__)


# In a fresh interpreter: import NAME from the first sys.path entry, check that importing had no side
# effects, then exercise() it.
PROBE = (
    "from __future__ import annotations\n"
    + inspect.getsource(exercise)
    + r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
name = sys.argv[2]
before_threads = threading.active_count()
mod = __import__(name)
if threading.active_count() != before_threads:
    raise AssertionError("import started a thread")
for lazy in ("asyncio", "base64", "uuid", name + "._cli"):
    if lazy in sys.modules:
        raise AssertionError(lazy + " imported at package import")
print("ok", exercise(mod, name))
"""
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


@contextlib.contextmanager
def imported(path: str, name: str) -> Iterator[Any]:
    """The package ``name`` imported in this interpreter from ``path`` (a folder or a zip), forgotten afterwards."""
    sys.path.insert(0, path)
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(path)
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]
        sys.path_importer_cache.pop(path, None)
        importlib.invalidate_caches()


def package_files() -> list[str]:
    """Every module of the package (subpackages included) and py.typed, relative to it."""
    found = []
    for folder, subfolders, names in os.walk(PACKAGE):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for name in names:
            if name.endswith(".py") or name == "py.typed":
                found.append(os.path.relpath(os.path.join(folder, name), PACKAGE))
    return sorted(found)


def copy_package(dest: str) -> None:
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("__pycache__"))


def zip_package(archive: str, name: str) -> None:
    with zipfile.ZipFile(archive, "w") as zf:
        for relative in package_files():
            zf.write(os.path.join(PACKAGE, relative), f"{name}/{relative.replace(os.sep, '/')}")


def module_imports() -> dict[str, set[str]]:
    """Each module of the package, as a dotted name, and the modules of the package it imports."""
    modules: dict[str, tuple[str, bool]] = {}
    for name in package_files():
        if name.endswith(".py"):
            dotted = "agentkit_core." + name[:-3].replace(os.sep, ".")
            is_package = dotted.endswith(".__init__")
            modules[dotted[: -len(".__init__")] if is_package else dotted] = (os.path.join(PACKAGE, name), is_package)
    graph: dict[str, set[str]] = {}
    for dotted, (path, is_package) in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        here = dotted.split(".") if is_package else dotted.split(".")[:-1]
        graph[dotted] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    graph[dotted].add(sub if sub in modules else base)
        graph[dotted].discard(dotted)
    return graph


#: The layers, bottom first, each a name and the modules in it (``fnmatch`` patterns of the dotted name under the
#: package, ``""`` the package itself; the first layer whose pattern matches holds the module).  A module imports only
#: from its own layer and those below.  ARCHITECTURE.md draws its map from this list, in this order.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The registry is plain data at the bottom: detection, the settings, the command line and the OpenTelemetry export
    # all read it.  _for_providers is the providers' one internal API module (tests/test_providers_cross.py).
    ("values", ("ids", "metadata", "content", "data", "tool", "item", "delta", "usage", "finish", "error", "keys",
                "jsontext", "_line", "toolspec", "schema", "_docstring", "transcript", "settings", "_codec", "_check", "_make", "_value", "_lean_typing", "_enum", "_error_text",
                "_reader", "_durable", "_detect", "_registry", "_for_providers", "_fast_paths")),
    ("fold and projection protocols", ("fold", "_fold_*", "projection", "cancellation", "")),
    ("HTTP", ("http", "http.*", "auth", "auth.*")),
    # interop reads other libraries' shapes as the providers read the APIs', beside them (the CLI imports it).
    ("providers", ("providers", "providers.*", "interop", "interop.*")),
    ("CLI and exports", ("_cli", "_cli.*", "__main__", "otel", "otel.*")),
)


#: The role modules every provider folder has (tests/test_providers_cross.py checks they are there).
_ROLE_FILES = frozenset(("_request.py", "_response.py", "_stream.py", "_keys.py", "_tools.py", "_held.py", "_http.py",
                         "_settings.py", "_complete.py"))


def code_lines(source: str) -> int:
    """How many lines of ``source`` hold code: not blank, not only a comment, not part of a docstring.

    A docstring is any statement that is a string alone (a module's, a class's, a function's, an attribute's).
    """
    import io
    import tokenize

    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docstrings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
            tokenize.ENDMARKER}
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(code - docstrings)


def layer_of(dotted: str) -> int:
    """The index in :data:`LAYERS` of the module ``dotted`` (``agentkit_core.http._client``); -1 if none holds it."""
    name = dotted.partition(".")[2] if "." in dotted else ""
    for n, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(name, p) for p in patterns):
            return n
    return -1


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(sorted(component))
    return found


class Importable(unittest.TestCase):
    def assert_probe(self, flags: list[str], path: str, name: str) -> None:
        result = run(*flags, "-c", PROBE, path, name)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("ok "), result.stdout)

    @needs_processes
    def test_isolated_without_site(self) -> None:
        self.assert_probe(["-I", "-S"], ROOT, "agentkit_core")

    @needs_processes
    def test_optimised_without_docstrings(self) -> None:
        self.assert_probe(["-I", "-OO"], ROOT, "agentkit_core")

    @needs_processes
    def test_copied_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            copy_package(os.path.join(tmp, "vendored_core"))
            self.assert_probe(["-I"], tmp, "vendored_core")

    @needs_processes
    def test_loaded_from_a_zip_file_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            archive = os.path.join(tmp, "bundle.zip")
            zip_package(archive, "zipped_core")
            self.assert_probe(["-I"], archive, "zipped_core")


class ImportableHere(unittest.TestCase):
    """The same copies, imported into the interpreter running the suite."""

    def assert_works(self, mod: Any, name: str, origin: str) -> None:
        import agentkit_core

        self.assertEqual(mod.__name__, name)
        self.assertTrue(mod.__file__.startswith(origin), mod.__file__)
        self.assertIsNot(mod.Item, agentkit_core.Item)  # a copy, not the checkout's package
        self.assertEqual(exercise(mod, name), agentkit_core.__version__)
        self.assertIn(name + ".providers", sys.modules)  # its subpackage imported under its name too

    def test_copied_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            copy_package(os.path.join(tmp, "vendored_core_here"))
            with imported(tmp, "vendored_core_here") as mod:
                self.assert_works(mod, "vendored_core_here", tmp)
        self.assertNotIn("vendored_core_here", sys.modules)

    def test_loaded_from_a_zip_file_under_another_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            archive = os.path.join(tmp, "bundle.zip")
            zip_package(archive, "zipped_core_here")
            with imported(archive, "zipped_core_here") as mod:
                self.assertEqual(type(mod.__loader__).__name__, "zipimporter")
                self.assert_works(mod, "zipped_core_here", archive)
        self.assertNotIn("zipped_core_here", sys.modules)


class Hygiene(unittest.TestCase):
    def test_only_relative_imports_of_the_standard_library(self) -> None:
        stdlib = sys.stdlib_module_names
        for name in package_files():
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

    def test_every_folder_is_a_package(self) -> None:
        for folder, subfolders, _ in os.walk(PACKAGE):
            for sub in subfolders:
                if sub != "__pycache__":
                    with self.subTest(folder=os.path.relpath(os.path.join(folder, sub), ROOT)):
                        self.assertTrue(os.path.isfile(os.path.join(folder, sub, "__init__.py")))

    def test_the_install_finds_every_subpackage(self) -> None:
        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        section = re.search(r"^\[tool\.setuptools\.packages\.find\]\ninclude = (\[.*\])$", text, re.M)
        self.assertIsNotNone(section, "pyproject.toml does not find the packages")
        patterns = ast.literal_eval(section.group(1))
        packages = [
            os.path.relpath(folder, ROOT).replace(os.sep, ".")
            for folder, _, names in os.walk(PACKAGE)
            if "__init__.py" in names
        ]
        self.assertGreater(len(packages), 5)
        for package in packages:
            with self.subTest(package):
                self.assertTrue(any(fnmatch.fnmatchcase(package, p) for p in patterns))
        self.assertFalse(any(fnmatch.fnmatchcase("tests", p) or fnmatch.fnmatchcase("tools", p) for p in patterns))

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
        # Written once: pyproject.toml reads it (setuptools reads the literal without importing the package).
        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            project = f.read()
        self.assertRegex(project, r'(?m)^dynamic = \["version"\]')
        self.assertRegex(project, r'(?m)^version = \{ attr = "agentkit_core\.__version__" \}$')
        self.assertNotRegex(project, r'(?m)^version = "')
        import agentkit_core

        for name in agentkit_core.__all__:
            self.assertTrue(hasattr(agentkit_core, name), name)
        self.assertEqual(len(set(agentkit_core.__all__)), len(agentkit_core.__all__))

    def test_modules_import_one_another_without_circles(self) -> None:
        # Imports made for the type checker count too: a reader follows them the same way.
        graph = module_imports()
        circles = [circle for circle in strongly_connected(graph) if len(circle) > 1]
        self.assertEqual(circles, [])
        self.assertIn("agentkit_core._codec", graph["agentkit_core.jsontext"])  # the walk sees imports
        self.assertIn("agentkit_core._reader", graph["agentkit_core.transcript"])  # typing-only ones too

    def test_modules_import_only_from_their_layer_and_below(self) -> None:
        # Imports inside functions and for the type checker count: a lazy import is still a dependency.
        graph = module_imports()
        upward = []
        for module, imported in sorted(graph.items()):
            with self.subTest(module=module):
                self.assertNotEqual(layer_of(module), -1, "in no layer of LAYERS")
            for target in sorted(imported):
                if layer_of(target) > layer_of(module):
                    upward.append(f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})")
        self.assertEqual(upward, [])
        self.assertEqual(layer_of("agentkit_core.http._client"), 2)  # the table is read as meant
        self.assertEqual(layer_of("agentkit_core._registry"), 0)
        self.assertEqual(layer_of("agentkit_core.providers._common.streams"), 3)

    def test_moved_names_stay_where_they_were_public(self) -> None:
        # SSE parsing moved down to the HTTP layer, detection below its users: the public names did not move.
        import agentkit_core.http
        from agentkit_core import providers
        for row in providers.PROVIDERS:
            module = importlib.import_module("agentkit_core.providers." + row.module)
            self.assertIs(module.events_from_sse, agentkit_core.http.events_from_sse)
        self.assertEqual(providers.detect({"candidates": []}), "gemini")

    def test_the_map_draws_the_layers_and_names_every_module(self) -> None:
        # ARCHITECTURE.md is the map: its numbered layers are LAYERS, in order, and it names every module by its
        # path (a package by its folder), so a new module goes on the map when it goes in.  A provider folder's role
        # modules (_request.py, ...) are named once, for every folder.
        with open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8") as f:
            text = f.read()
        section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
        self.assertEqual(re.findall(r"^\d+\. \*\*(.+?)\*\*", section, re.M), [name for name, _ in LAYERS])
        providers = {p for p in os.listdir(os.path.join(PACKAGE, "providers")) if not p.startswith(("_", "."))}
        for name in package_files():
            if not name.endswith(".py"):
                continue
            path = name.replace(os.sep, "/")
            folder, _, base = path.rpartition("/")
            if base == "__init__.py":
                shown = f"{folder}/" if folder else "__init__.py"
            elif folder.startswith("providers/") and folder.split("/")[1] in providers and base in _ROLE_FILES:
                shown = base
            else:
                shown = path
            with self.subTest(module=path):
                self.assertTrue(f"`{shown}`" in text, f"ARCHITECTURE.md does not name {shown}: put it on the map")

    def test_the_package_namespace_holds_only_its_public_names(self) -> None:
        # dir(agentkit_core) showed `annotations`, the __future__ feature.
        import agentkit_core

        shown = {name for name in dir(agentkit_core) if not name.startswith("_")}
        modules = {name for name in shown if inspect.ismodule(getattr(agentkit_core, name))}
        self.assertEqual(shown - modules, set(agentkit_core.__all__))
        self.assertNotIn("annotations", shown)

    def test_modules_stay_small(self) -> None:
        # Code lines only: a mapping table in a docstring, or a comment saying why, pushes no code around.
        for name in package_files():
            if name.endswith(".py"):
                with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
                    lines = code_lines(f.read())
                with self.subTest(file=name):
                    self.assertLess(lines, 500)

    def test_code_lines_leave_out_docstrings_comments_and_blank_lines(self) -> None:
        source = (
            '"""A module.\n\nIts table.\n"""\n\n# why\nimport os  # a comment after code\n\n\n'
            'class A:\n    """Doc."""\n\n    x: int = 1\n    """What x is."""\n\n'
            '    def f(self) -> str:\n        """Doc\n        on two lines."""\n'
            '        return """not a docstring:\n        code"""\n'
        )
        self.assertEqual(code_lines(source), 6)  # import, class, x, def, and the two lines of the returned string

    def test_py_typed_ships(self) -> None:
        self.assertTrue(os.path.isfile(os.path.join(PACKAGE, "py.typed")))


if __name__ == "__main__":
    unittest.main()
