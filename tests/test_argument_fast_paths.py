"""Two fast paths of a decoded tool call, each against the reading it shortens.

* OpenAI Chat's common call (an id, a function's name and argument text)
  parses its arguments once and lets the part's constructor check them
  (``loads_for_part``); the general reading parses and checks them, then the
  constructor checks them again.  Both must make the same part from any text:
  compact or spaced JSON, every JSON type, NaN, a lone surrogate, nesting too
  deep, text that is not JSON, nothing.
* ``as_metadata`` takes a one-entry dict of an ASCII key and a scalar in one
  step; every other mapping goes through ``json_object``.  A ``MappingProxyType``
  of the same dict always takes the general way, so the two are compared.

And the rule the request fast paths inline: a tool result's text or structure
is the string ``output_text`` gives, on the fast path and the general one.
"""

from __future__ import annotations

import json
import random
import types
import unittest
from typing import Any

from agentkit_core import EMPTY_METADATA, FilesOutput, Item, ItemKind, NormalizeError, StructuredOutput, TextOutput, ToolCallId, ToolCallPart, ToolResultPart
from agentkit_core.metadata import as_metadata
from agentkit_core.providers import anthropic, openai_chat, openai_responses
from agentkit_core.providers._common.arguments import ARGUMENTS_MAX_DEPTH, output_text
from agentkit_core.providers.openai_chat import _response

TEXTS = [
    "", "  ", "{}", "{ }", "null", "true", "5", "-0", "1.0", "1e5", "1E400", "NaN", "[NaN]", "Infinity", "-Infinity",
    '"x"', "[]", "[1,2]", "[1, 2]", '{"a":1}', '{"a": 1}', '{"a":1,"a":2}', '{"b":1,"a":2}', '{"a":"\\u00e9"}',
    '{"a":"é"}', '{"a":"\\ud800"}', '{"\\ud800":1}', '{"a":"\\/"}', '{"a":[{"b":null}]}', "{", '{"a":}', "[1,]",
    "1" * 5000, '{"n":' + "9" * 400 + "}", "[" * ARGUMENTS_MAX_DEPTH + "]" * ARGUMENTS_MAX_DEPTH,
    "[" * (ARGUMENTS_MAX_DEPTH + 1) + "]" * (ARGUMENTS_MAX_DEPTH + 1), "[" * 5000 + "]" * 5000, '{"a":"[[[[{{{{"}',
    json.dumps({"path": "src/x.py", "line": 3, "replace": True}), json.dumps({"k": [1.5, None, {"z": "w"}]}, indent=2),
]


def general(raw: str) -> Any:
    """What the general reading makes of the call: ``_arguments`` then the constructor."""
    args, extra = _response._arguments(raw)
    return ToolCallPart(ToolCallId("call_1"), "edit", args, metadata=extra or EMPTY_METADATA)


def fast(raw: str) -> Any:
    call = {"id": "call_1", "type": "function", "function": {"name": "edit", "arguments": raw}}
    return _response._tool_call_part(call, False)


def outcome(make: Any, value: Any) -> Any:
    try:
        part = make(value)
    except (NormalizeError, TypeError) as exc:
        return type(exc).__name__, str(exc)
    return part.to_dict() if hasattr(part, "to_dict") else part


class ChatArguments(unittest.TestCase):
    def test_the_common_call_reads_every_text_as_the_general_reading_does(self) -> None:
        rng = random.Random(27)
        texts = list(TEXTS)
        for _ in range(300):  # fragments of the texts above, spliced: mostly not JSON
            a, b = rng.choice(TEXTS), rng.choice(TEXTS)
            texts.append(a[: rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):])
        for raw in texts:
            with self.subTest(raw=raw[:60]):
                self.assertEqual(outcome(fast, raw), outcome(general, raw))


class OneEntryMetadata(unittest.TestCase):
    def test_a_one_entry_dict_is_checked_as_any_mapping_is(self) -> None:
        keys: list[Any] = ["k", "openai.chat.arguments", "é", "\ud800", "", 1, None]
        values: list[Any] = ["v", "", "é", "\ud800", 0, -1, 2**70, True, False, None, 1.5, float("nan"), float("inf"),
                             [], [1], {}, {"a": 1}, (1,), b"x", object()]
        for k in keys:
            for v in values:
                with self.subTest(key=k, value=v):
                    d = {k: v}
                    got, expected = self.read(d), self.read(types.MappingProxyType(d))
                    self.assertEqual(got, expected)

    @staticmethod
    def read(m: Any) -> Any:
        try:
            md = as_metadata(m, "Owner")
        except (NormalizeError, TypeError) as exc:
            return type(exc).__name__, str(exc)
        return md.to_dict(), md._depth, type(md).__name__


class ToolResultText(unittest.TestCase):
    """``output_text`` and the fast paths' inlined copies of it write a result's text or structure alike."""

    OUTPUTS = (TextOutput(""), TextOutput("done \u00e9"), StructuredOutput({"\u00e9": [1, 2.5, None, True]}), StructuredOutput([]),
               StructuredOutput("s"))

    def test_output_text(self) -> None:
        self.assertEqual(output_text(TextOutput("x y")), "x y")
        self.assertEqual(output_text(StructuredOutput({"\u00e9": [1, None]})), '{"\u00e9":[1,null]}')
        self.assertIsNone(output_text(FilesOutput(())))

    def test_each_api_sends_it_on_both_paths(self) -> None:
        read = {
            openai_chat: lambda body: body["messages"][-1]["content"],
            anthropic: lambda body: body["messages"][-1]["content"][0]["content"],
            openai_responses: lambda body: body["input"][-1]["output"],
        }
        for module, field in read.items():
            build = module._request.Build  # type: ignore[attr-defined]
            for output in self.OUTPUTS:
                items = [Item(ItemKind.ASSISTANT, (ToolCallPart(ToolCallId("c1"), "f", {}),)),
                         Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("c1"), output),))]
                for fast in (True, False):
                    with self.subTest(module=module.__name__, output=output, fast=fast):
                        own = "fast" in vars(build)  # Anthropic's Build has its own flag, the others FastFold's
                        before = build.fast
                        build.fast = fast
                        try:
                            body = module.request_from_items(items)
                        finally:
                            if own:
                                build.fast = before
                            else:
                                del build.fast
                        self.assertEqual(field(body), output_text(output))


if __name__ == "__main__":
    unittest.main()
