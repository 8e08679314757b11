"""One error style for argument errors outside the wire: ``<where>: expected <a noun>, found <what>``.

Constructors, the HTTP layer, the providers and the registry say it the same
way; the wire's decoders keep serde's words (``invalid type: ...``), which the
reference vectors pin (``tests/test_wire.py`` and ``tools/selfcheck``).  The
retired phrasings (``, got int``, ``must be X, not int``, ``takes a X, not
int``, Python's type names for nouns: ``expected a str``) appear in no module of the package.
"""

from __future__ import annotations

import os
import re
import unittest
from typing import Any, Callable

import agentkit_core as ak
from agentkit_core import _error_text, http
from agentkit_core._registry import provider_info
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses

PACKAGE = os.path.dirname(os.path.abspath(ak.__file__))
#: ``expected a string, found int``: an article (or a plural noun), then what was found.
STYLE = re.compile(r"expected (a|an|bytes|\d|seconds) .*, found \S+")


def message(call: Callable[[], Any]) -> str:
    try:
        call()
    except (TypeError, ValueError) as exc:
        return str(exc)
    raise AssertionError("no error")


class OneStyle(unittest.TestCase):
    def test_every_layer_says_it_the_same_way(self) -> None:
        cases: list[tuple[str, Callable[[], Any], str]] = [
            ("constructor", lambda: ak.TextPart(5), "TextPart.text: expected a string, found int"),  # type: ignore[arg-type]
            ("constructor bool", lambda: ak.ToolResultPart(ak.ToolCallId("c"), ak.ToolOutput.text("x"), is_error=1), "found int"),  # type: ignore[arg-type]
            ("an id", lambda: ak.ToolCallPart("c", "f", {}), "expected a ToolCallId, found the plain string 'c'"),  # type: ignore[arg-type]
            ("http", lambda: http.Request("POST", 5, {}, b""), "Request.url: expected a string, found int"),  # type: ignore[arg-type]
            ("registry", lambda: provider_info(5), "provider: expected a string, found int"),  # type: ignore[arg-type]
            ("provider argument", lambda: anthropic.http_request([], model=5), "model: expected a string, found int"),  # type: ignore[arg-type]
            ("json text", lambda: ak.parse_json(5), "JSON text: expected a string, bytes or a bytearray, found int"),  # type: ignore[arg-type]
            ("settings", lambda: ak.ModelSettings(max_tokens="5"), "ModelSettings.max_tokens: expected an integer, found str"),  # type: ignore[arg-type]
        ]
        for name, call, words in cases:
            with self.subTest(name):
                text = message(call)
                self.assertIn(words, text)
                self.assertRegex(text, STYLE)

    def test_native_fields_name_the_value_found(self) -> None:
        for module, body, words in (
            (openai_chat, {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": 5}}]}, "found 5"),
            (gemini, {"candidates": [{"index": "x", "content": {"parts": []}}]}, "candidates[0].index: expected an integer, found 'x'"),
            (anthropic, [], "found an array"),
            (openai_responses, "x", "found 'x'"),
        ):
            with self.subTest(module.__name__):
                try:
                    module.items_from_response(body)
                except ak.NormalizeError as exc:
                    self.assertIn(words, str(exc))
                    self.assertRegex(str(exc), STYLE)
                else:
                    self.fail("decoded")

    def test_the_wire_keeps_serde_words(self) -> None:
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.Item.from_dict({"kind": "User", "parts": [{"Text": {"text": 5}}], "metadata": {}})
        self.assertIn("invalid type: integer `5`, expected a string", str(caught.exception))

    def test_one_article_and_one_describe(self) -> None:
        self.assertEqual([_error_text.an(w) for w in ("ItemKind", "ToolCallId", "object", "array")],
                         ["an ItemKind", "a ToolCallId", "an object", "an array"])
        self.assertEqual([_error_text.describe(v) for v in (None, True, 5, "x" * 50, [], {}, (1,))],
                         ["null", "true", "5", repr("x" * 40 + "..."), "an array", "an object", "a Python tuple"])

    def test_no_second_article_or_describe(self) -> None:
        # One "a/an" and one describe, in _error_text.py; the wire's serde words keep their own describe in _codec.py.
        import ast

        allowed = {
            ("_error_text.py", "an"), ("_error_text.py", "describe"), ("_codec.py", "describe"),
            ("_check.py", "_describe"),  # _error_text.describe, imported on the error path only
            (os.path.join("_cli", "demo.py"), "describe"),  # the demo's line for a part, no error's words
        }
        found = []
        for folder, subfolders, names in os.walk(PACKAGE):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            for name in names:
                if not name.endswith(".py"):
                    continue
                path = os.path.relpath(os.path.join(folder, name), PACKAGE)
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                for node in tree.body:  # module-level helpers (a method called describe is something else)
                    if isinstance(node, ast.FunctionDef) and node.name.strip("_") in ("an", "a_or_an", "article", "describe"):
                        if (path, node.name) not in allowed:
                            found.append(f"{path}: def {node.name}")
                for node in ast.walk(tree):  # the article rule itself, written out again
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and "aeiou" in node.value.lower():
                        if path != "_error_text.py":
                            found.append(f"{path}:{node.lineno}: {node.value!r}")
        self.assertEqual(found, [])

    def test_no_module_uses_a_retired_phrasing(self) -> None:
        # the words: ", got", "must be ..., not", "takes a ..., not"; the nouns: Python's type names ("a str") for plain English
        retired = re.compile(r", got \{|, got the |must be [^\"']*, not \{|takes an? \w+, not \{|, not \{type\("
                             r"|expected an? (?:str|int|bool|dict|list|float), ")
        for folder, subfolders, names in os.walk(PACKAGE):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            for name in names:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    with self.subTest(os.path.relpath(path, PACKAGE)):
                        self.assertEqual(retired.findall(text), [])


if __name__ == "__main__":
    unittest.main()
