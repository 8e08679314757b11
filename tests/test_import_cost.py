"""Import cost: the package loads no ``typing`` or ``math``, and nothing shows it.

ARCHITECTURE.md ("Import cost") and ``agentkit_core/_lean_typing.py`` say why:
importing ``typing`` was a fifth of the package's own import, and ``math`` is
a shared library to open on most builds.  These tests pin what
must hold for that to be invisible: a fresh interpreter that imports the
package and touches its values has none of those modules; the dataclasses have the same fields whether or not
``typing`` was imported before them (``dataclasses`` recognises a string
``ClassVar[...]`` annotation only when ``typing`` is loaded, so a class that
declared one would quietly grow a field); and the stand-in ``Protocol`` and
``Generic`` answer ``isinstance``, instantiation and subscripts as ``typing``'s do.
"""

from __future__ import annotations

import subprocess
import sys
import typing
import unittest
from typing import Any

import agentkit_core as ak
from agentkit_core import _lean_typing as lean
from tests.capability import needs_processes
from tests.test_packaging import ROOT

_FIELDS = r"""
import sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "typing-first":
    import typing
import dataclasses
import agentkit_core as ak
ak.Item, ak.Part, ak.fold, ak.CancellationController
loaded = sorted(m for m in ("typing", "math") if m in sys.modules)
for name in sorted(m for m in sys.modules if m.startswith("agentkit_core")):
    for attr, value in sorted(vars(sys.modules[name]).items()):
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
            print(name, attr, [f.name for f in dataclasses.fields(value)], getattr(value, "__slots__", None))
print("loaded:", *loaded)
"""


def fields_listing(order: str) -> list[str]:
    result = subprocess.run([sys.executable, "-I", "-S", "-c", _FIELDS, ROOT, order], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    return result.stdout.splitlines()


class NoTypingAtImport(unittest.TestCase):
    @needs_processes
    def test_the_package_and_its_values_load_no_typing(self) -> None:
        self.assertEqual(fields_listing("package-only")[-1], "loaded:")

    @needs_processes
    def test_dataclass_fields_do_not_depend_on_whether_typing_came_first(self) -> None:
        alone, after_typing = fields_listing("package-only"), fields_listing("typing-first")
        self.assertEqual(after_typing[-1], "loaded: typing")
        self.assertGreater(len(alone), 30)  # the value classes are listed
        self.assertEqual(alone[:-1], after_typing[:-1])


def protocols(base: Any, checkable: Any) -> tuple[type, type, type]:
    """A runtime-checkable protocol with a property and a method, one that is not, and a class deriving from it."""

    @checkable
    class Shaped(base):  # type: ignore[misc, valid-type]
        @property
        def kind(self) -> str: ...

        def area(self) -> float: ...

    class Plain(base):  # type: ignore[misc, valid-type]
        def area(self) -> float: ...

    class Square(Shaped):  # type: ignore[misc, valid-type]
        kind = "square"

        def area(self) -> float:
            return 4.0

    return Shaped, Plain, Square



class StandIns(unittest.TestCase):
    def test_isfinite_is_math_isfinite_for_floats(self) -> None:
        import math
        import sys as _sys

        from agentkit_core import _codec

        values = [0.0, -0.0, 1.5, -2.25, _sys.float_info.max, -_sys.float_info.max, _sys.float_info.min, 5e-324, -5e-324,
                  float("inf"), float("-inf"), float("nan"), -float("nan"), 1e308 * 10, 2.0**1023]
        for v in values:
            with self.subTest(v=v):
                self.assertIs(_codec.isfinite(v), math.isfinite(v))

    def test_protocols_answer_as_typing_protocols_do(self) -> None:
        class Full:
            kind = "circle"

            def area(self) -> float:
                return 3.0

        class Half:
            def area(self) -> float:
                return 3.0

        for base, checkable in ((typing.Protocol, typing.runtime_checkable), (lean.Protocol, lean.runtime_checkable)):
            with self.subTest(base=base.__module__):
                Shaped, Plain, Square = protocols(base, checkable)
                self.assertIsInstance(Full(), Shaped)
                self.assertNotIsInstance(Half(), Shaped)
                self.assertNotIsInstance(object(), Shaped)
                self.assertIsInstance(Square(), Shaped)
                self.assertEqual(Square().area(), 4.0)  # a class naming a protocol among its bases is ordinary
                with self.assertRaises(TypeError):
                    isinstance(Full(), Plain)  # not marked runtime-checkable
                with self.assertRaises(TypeError):
                    Shaped()
                with self.assertRaises(TypeError):
                    checkable(Square)  # only protocols can be marked

    def test_subscripts_are_the_class(self) -> None:
        self.assertIs(ak.StreamDecoder[dict], ak.StreamDecoder)
        self.assertIs(ak.ProviderAdapter[dict, dict], ak.ProviderAdapter)
        self.assertIs(lean.Generic[int, str], lean.Generic)
        self.assertEqual(lean.type_parameter("R", contravariant=True), "R")

    def test_the_package_protocols(self) -> None:
        item = ak.Item(ak.ItemKind.USER, [ak.TextPart("hi")])
        self.assertIsInstance(item, ak.ItemView)
        self.assertNotIsInstance(ak.TextPart("hi"), ak.ItemView)
        self.assertEqual(ak.ItemView.__protocol_members__, frozenset({"kind", "parts", "metadata"}))
        self.assertEqual(ak.ProviderAdapter.__protocol_members__, frozenset({"items_from_response", "request_from_items", "stream_decoder"}))
        with self.assertRaises(TypeError):
            isinstance(item, ak.StreamDecoder)
        with self.assertRaises(TypeError):
            ak.ItemView()


if __name__ == "__main__":
    unittest.main()
