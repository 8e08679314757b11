"""The typed readers of native fields (``providers/_common/fields.py``), the one way every projection reads a field."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import unittest

import agentkit_core.providers
from agentkit_core import NormalizeError
from agentkit_core.providers._common import fields
from agentkit_core.providers._common.fields import (
    json_object,
    obj_or_empty,
    optional_arr,
    optional_int,
    optional_obj,
    optional_str,
    required_arr,
    required_obj,
    required_str,
    str_or_none,
)

NATIVE = {"s": "x", "o": {"a": 1}, "a": [1], "i": 3, "n": None, "b": True, "neg": -1, "f": 1.5}


class ReaderTest(unittest.TestCase):
    def assert_refused(self, call: object, message: str, path: str) -> None:
        with self.assertRaises(NormalizeError) as caught:
            call()  # type: ignore[operator]
        self.assertEqual((caught.exception.message, caught.exception.path), (message, path))

    def test_optional_readers_give_the_value_or_none(self) -> None:
        self.assertEqual(optional_str(NATIVE, "s"), "x")
        self.assertEqual(optional_obj(NATIVE, "o"), {"a": 1})
        self.assertEqual(optional_arr(NATIVE, "a"), [1])
        self.assertEqual(optional_int(NATIVE, "i"), 3)
        for reader in (optional_str, optional_obj, optional_arr, optional_int):
            with self.subTest(reader.__name__):
                self.assertIsNone(reader(NATIVE, "n"))
                self.assertIsNone(reader(NATIVE, "absent"))

    def test_a_wrong_type_is_refused_with_the_path_and_the_package_words(self) -> None:
        self.assert_refused(lambda: optional_str(NATIVE, "i", "choices[0]"), "expected a string, found 3", "choices[0].i")
        self.assert_refused(lambda: optional_obj(NATIVE, "a"), "expected an object, found an array", "a")
        self.assert_refused(lambda: optional_arr(NATIVE, "o", "x.y"), "expected an array, found an object", "x.y.o")
        self.assert_refused(lambda: optional_int(NATIVE, "b"), "expected a non-negative integer, found true", "b")
        self.assert_refused(lambda: optional_int(NATIVE, "f"), "expected a non-negative integer, found 1.5", "f")
        self.assert_refused(lambda: optional_int(NATIVE, "neg"), "expected a non-negative integer, found -1", "neg")
        self.assertEqual(optional_int(NATIVE, "neg", minimum=-5), -1)
        self.assert_refused(lambda: optional_int(NATIVE, "neg", minimum=1), "expected an integer of at least 1, found -1", "neg")

    def test_required_readers_refuse_null_and_absence(self) -> None:
        self.assertEqual(required_str(NATIVE, "s"), "x")
        self.assertEqual(required_obj(NATIVE, "o"), {"a": 1})
        self.assertEqual(required_arr(NATIVE, "a"), [1])
        self.assert_refused(lambda: required_str(NATIVE, "absent", "m"), "expected a string, found nothing", "m.absent")
        self.assert_refused(lambda: required_obj(NATIVE, "n"), "expected an object, found null", "n")
        self.assert_refused(lambda: required_arr(NATIVE, "s"), "expected an array, found 'x'", "s")

    def test_lenient_readers_never_raise(self) -> None:
        self.assertEqual([str_or_none(v) for v in ("x", 5, None, ["x"])], ["x", None, None, None])
        self.assertEqual([obj_or_empty(NATIVE, k) for k in ("o", "a", "absent")], [{"a": 1}, {}, {}])
        self.assertEqual(json_object({"a": 1}, "p"), {"a": 1})
        self.assert_refused(lambda: json_object(5, "p[0]"), "expected an object, found 5", "p[0]")

    def test_no_provider_keeps_a_reader_of_its_own(self) -> None:
        """The idioms the shared readers replaced stay gone (Anthropic's ``optional``, Chat's ``get_str``...)."""
        gone = {"optional", "get_str", "get_obj", "get_arr", "get_index", "string", "object_at", "get_dict"}
        root = agentkit_core.providers
        for info in pkgutil.walk_packages(root.__path__, prefix=root.__name__ + "."):
            module = importlib.import_module(info.name)
            defined = {n.name for n in ast.walk(ast.parse(inspect.getsource(module))) if isinstance(n, ast.FunctionDef)}
            with self.subTest(info.name):
                self.assertEqual(defined & gone, set())

    def test_anthropic_finish_reason_takes_raw_and_its_former_name(self) -> None:
        from agentkit_core import FinishReason
        from agentkit_core.providers import anthropic

        self.assertIs(anthropic.finish_reason("end_turn"), FinishReason.COMPLETED)
        self.assertIs(anthropic.finish_reason(raw="tool_use"), FinishReason.TOOL_CALL)
        self.assertIs(anthropic.finish_reason(stop_reason="max_tokens"), FinishReason.MAX_TOKENS)
        self.assertIsNone(anthropic.finish_reason(None))
        with self.assertRaises(TypeError):
            anthropic.finish_reason("end_turn", stop_reason="end_turn")
        self.assert_refused(lambda: anthropic.finish_reason(5), "expected a string, found 5", "stop_reason")  # type: ignore[arg-type]

    def test_every_reader_is_documented(self) -> None:
        """Read from the source, so the test holds under ``-OO`` too (which drops ``__doc__``)."""
        tree = ast.parse(inspect.getsource(fields))
        documented = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and ast.get_docstring(n)}
        self.assertLessEqual(set(fields.__all__) - {"json_object"}, documented)  # json_object: native.py's, re-exported


if __name__ == "__main__":
    unittest.main()
