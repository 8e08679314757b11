"""Every public name has a docstring, as the guide promises: read from the source, so the test holds under ``-OO``.

The walk covers every module a user imports (the package, its public
submodules, ``http``, ``otel``, ``providers`` and the four provider
packages): each name of the module's ``__all__`` (or ``dir()``) that is a
function or class of the package, and for a class every public method,
class method, static method and property that a class of the package
defines (what it inherits from the standard library is not ours to document).

Docstrings are read from the source with :mod:`ast`, as ``python -OO`` drops
``__doc__``.  A function made at run time (anything copied from a template as
``_make.py`` does) has no ``def`` of its
own to read: its maker sets ``__doc__``, and those are checked through
``__doc__``, which exists only when ``sys.flags.optimize < 2``.  Under ``-OO``
that one check is skipped (``needs docstrings``); the source check still runs in full.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import unittest
from types import FunctionType, ModuleType
from typing import Iterator, Union

import agentkit_core
from tests.capability import needs

ROOT = agentkit_core.__name__
Definition = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]

#: The modules the guide names as what a user imports; the walk must reach every one.
EXPECTED_MODULES = (
    "", ".http", ".otel", ".providers", ".providers.anthropic", ".providers.gemini", ".providers.openai_chat",
    ".providers.openai_responses", ".item", ".content", ".projection",
)


def public_modules() -> list[ModuleType]:
    """The package and every module of it no part of whose name is private."""
    found = [agentkit_core]
    for info in pkgutil.walk_packages(agentkit_core.__path__, prefix=ROOT + "."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            found.append(importlib.import_module(info.name))
    return found


def ours(obj: object) -> bool:
    """Whether ``obj`` (a function or class) was defined in the package."""
    module = getattr(obj, "__module__", None) or ""
    return module == ROOT or module.startswith(ROOT + ".")


_TREES: dict[str, ast.Module] = {}


def tree_of_file(filename: str) -> ast.Module | None:
    """The parsed source of the package module loaded from ``filename``, or None if no module of it was."""
    if filename not in _TREES:
        for name, module in list(sys.modules.items()):
            if (name == ROOT or name.startswith(ROOT + ".")) and getattr(module, "__file__", None) == filename:
                _TREES[filename] = ast.parse(inspect.getsource(module))
                break
        else:
            return None
    return _TREES[filename]


def definitions(body: list[ast.stmt]) -> Iterator[Definition]:
    """The ``def`` and ``class`` statements of a module or class body, those of its classes included.

    A ``def`` inside a function is not one: that function makes it at run time (a closure), and so counts as made.
    """
    for node in statements(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        if isinstance(node, ast.ClassDef):
            yield from definitions(node.body)


def function_node(function: FunctionType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` that made ``function``, found by its code's file, line and name; None for a made one."""
    code = function.__code__
    tree = tree_of_file(code.co_filename)
    if tree is None or function.__name__ != code.co_name:
        return None
    for node in definitions(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            if code.co_firstlineno in {node.lineno, *(d.lineno for d in node.decorator_list)}:
                return node
    return None


def class_node(cls: type) -> ast.ClassDef | None:
    """The ``class`` statement of ``cls``, found by its qualified name; None for a made class.

    A class may name a public module as its ``__module__`` while its statement is in a private one: the
    module that defined it holds it under its own name, and has the statement.
    """
    if "<locals>" in cls.__qualname__:
        return None
    parts = cls.__qualname__.split(".")
    for name, module in list(sys.modules.items()):
        held: object = module
        for part in parts:
            held = vars(held).get(part) if isinstance(held, (ModuleType, type)) else None
        filename = getattr(module, "__file__", None)
        if held is not cls or not (name == ROOT or name.startswith(ROOT + ".")) or not filename:
            continue
        tree = tree_of_file(filename)
        body: list[ast.stmt] = tree.body if tree is not None else []
        node: ast.ClassDef | None = None
        for part in parts:
            node = next((n for n in statements(body) if isinstance(n, ast.ClassDef) and n.name == part), None)
            if node is None:
                break
            body = node.body
        if node is not None:
            return node
    return None


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body``, and those inside its ``if``/``try``/``with`` blocks (a class made conditionally)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            yield from statements(node.body)
            yield from statements(getattr(node, "orelse", []))
            yield from statements(getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                yield from statements(handler.body)


def unwrap(member: object) -> FunctionType | None:
    """The function behind a class member: a method, class or static method, or a property's getter."""
    if isinstance(member, (classmethod, staticmethod)):
        member = member.__func__
    elif isinstance(member, property):
        member = member.fget
    return member if isinstance(member, FunctionType) else None


class Missing:
    """What the walk found: names with no docstring in their source, and names made at run time."""

    def __init__(self) -> None:
        self.undocumented: list[str] = []
        self.made: dict[str, object] = {}  # name -> the made function or class, checked through __doc__
        self.checked = 0
        self._seen: set[int] = set()

    def function(self, name: str, function: FunctionType) -> None:
        """Check one function, method or property getter."""
        if id(function) in self._seen:
            return
        self._seen.add(id(function))
        self.checked += 1
        node = function_node(function)
        if node is None:
            self.made[name] = function
        elif not ast.get_docstring(node):
            self.undocumented.append(name)

    def cls(self, name: str, cls: type) -> None:
        """Check one class, then its public members defined in the package."""
        if id(cls) in self._seen:
            return
        self._seen.add(id(cls))
        self.checked += 1
        node = class_node(cls)
        if node is None:
            self.made[name] = cls
        elif not ast.get_docstring(node):
            self.undocumented.append(name)
        for base in cls.__mro__:
            if not ours(base):
                continue
            for attribute, member in vars(base).items():
                function = unwrap(member)
                if not attribute.startswith("_") and function is not None:
                    self.function(f"{base.__module__}.{base.__qualname__}.{attribute}", function)

    def module(self, module: ModuleType) -> None:
        """Check every public function and class of ``module`` that the package defined."""
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name)
            if isinstance(value, FunctionType) and ours(value):
                self.function(f"{value.__module__}.{value.__qualname__}", value)
            elif isinstance(value, type) and ours(value):
                self.cls(f"{value.__module__}.{value.__qualname__}", value)


def walk() -> Missing:
    """The walk over every public module."""
    found = Missing()
    for module in public_modules():
        found.module(module)
    return found


class DocstringTest(unittest.TestCase):
    def test_the_walk_reaches_every_public_module(self) -> None:
        names = {m.__name__ for m in public_modules()}
        self.assertLessEqual({ROOT + suffix for suffix in EXPECTED_MODULES}, names)

    def test_every_public_name_has_a_docstring_in_its_source(self) -> None:
        found = walk()
        self.assertGreater(found.checked, 300)  # the walk saw the package's surface, not an empty list
        self.assertEqual(found.undocumented, [], "public names with no docstring: write one")
        self.assertFalse([n for n, v in found.made.items() if isinstance(v, type)], "classes whose statement was not found")

    def test_complete_is_a_plain_definition_in_each_provider(self) -> None:
        # complete() and acomplete() of each provider are written with def in its folder: read from the source.
        made = walk().made
        for provider in ("anthropic", "gemini", "openai_chat", "openai_responses"):
            for name in ("complete", "acomplete"):
                self.assertNotIn(f"{ROOT}.providers.{provider}.{name}", made)

    @needs("docstrings", lambda: sys.flags.optimize < 2, "-OO drops __doc__, and a made function has no source to read")
    def test_names_made_at_run_time_have_a_doc(self) -> None:
        made = walk().made  # none today: every public function is written with def
        self.assertEqual([n for n, v in made.items() if not (v.__doc__ or "").strip()], [])

    def test_the_check_finds_a_missing_docstring(self) -> None:
        """The checker itself: a function and a class of the package with no docstring are named."""
        source = "def plain(x):\n    return x\n\nclass Bare:\n    @property\n    def size(self):\n        return 1\n"
        module = ModuleType(f"{ROOT}._docstring_probe")
        module.__file__ = f"<{module.__name__}>"
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        found = Missing()
        _TREES[module.__file__], sys.modules[module.__name__] = ast.parse(source), module
        try:
            found.module(module)
        finally:
            del _TREES[module.__file__], sys.modules[module.__name__]
        self.assertEqual(found.undocumented, [f"{ROOT}._docstring_probe.{n}" for n in ("Bare", "Bare.size", "plain")])
        self.assertEqual(found.made, {})

if __name__ == "__main__":
    unittest.main()
