"""agentkit_core.interop.langchain on ``messages_to_dict``'s dicts (``tests/interop/langchain.json``), no library needed."""

from __future__ import annotations

import unittest

from agentkit_core import (
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    Modality,
    NormalizeError,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    TextOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
)
from agentkit_core.interop import langchain as lc
from tests.interop_fixtures import load


class FromMessages(unittest.TestCase):
    def setUp(self) -> None:
        self.items = lc.items_from_messages(load("langchain.json"))

    def test_kinds(self) -> None:
        self.assertEqual([i.kind.value for i in self.items], [
            "System", "Developer", "User", "Assistant", "Tool", "Tool", "Assistant", "User", "Tool", "Assistant",
        ])
        self.assertEqual(self.items[7].metadata["langchain.role"], "critic")

    def test_content_blocks(self) -> None:
        user = self.items[2]
        self.assertEqual((user.id, user.metadata["langchain.name"]), (MessageId("human-1"), "ada"))
        text, url, inline, legacy, file, audio, plain = user.parts
        self.assertEqual(text, TextPart("What is this?", metadata={"langchain.type": "text"}))
        self.assertEqual(url, MediaPart(Modality.IMAGE, "", Uri("https://example.com/a.png")))
        self.assertEqual(inline, MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG\r\n\x1a\n")))
        self.assertEqual((legacy.data, legacy.metadata["langchain.image_url.detail"]), (inline.data, "low"))  # type: ignore[union-attr]
        self.assertEqual(file, FilePart(Uri("https://example.com/a.pdf"), mime_type="application/pdf"))
        self.assertEqual((audio.modality, audio.data), (Modality.AUDIO, InlineBytes(b"RIFF")))  # type: ignore[union-attr]
        self.assertEqual(plain.data, InlineText("notes"))  # type: ignore[union-attr]

    def test_an_answer(self) -> None:
        answer = self.items[3]
        reasoning, text, call, invalid = answer.parts
        self.assertEqual(reasoning, ReasoningPart("A picture.", metadata={"langchain.extras": {"signature": "c2ln"}}))
        self.assertEqual(text.text, "Let me check.")  # type: ignore[union-attr]
        self.assertEqual(call, ToolCallPart(ToolCallId("call_1"), "lookup", {"q": "picture"}))
        self.assertIsInstance(invalid, ToolCallPart)
        self.assertEqual((invalid.input, invalid.metadata[INPUT_JSON_KEY], invalid.metadata[INPUT_ERROR_KEY]), (None, "{oops", "bad JSON"))
        self.assertEqual(answer.usage.tokens, TokenUsage(50, 20, reasoning_tokens=5, cached_input_tokens=10))  # type: ignore[union-attr]
        self.assertIs(answer.finish_reason, FinishReason.TOOL_CALL)
        self.assertIs(self.items[6].finish_reason, FinishReason.COMPLETED)  # Anthropic's stop_reason
        self.assertEqual(self.items[6].parts[0], ReasoningPart("Done.", metadata={"langchain.type": "thinking", "langchain.signature": "c2ln"}))

    def test_tool_messages(self) -> None:
        (ok,) = self.items[4].parts
        self.assertEqual(ok, ToolResultPart(ToolCallId("call_1"), TextOutput("A sunset."), metadata={
            TOOL_NAME_KEY: "lookup", "langchain.artifact": {"raw": [1, 2]}}))
        (failed,) = self.items[5].parts
        self.assertTrue(failed.is_error)  # type: ignore[union-attr]
        (function,) = self.items[8].parts
        self.assertEqual(function.call_id, ToolCallId("answer"))  # type: ignore[union-attr]


class BackAgain(unittest.TestCase):
    def test_round_trip_is_exact(self) -> None:
        messages = load("langchain.json")
        self.assertEqual(lc.messages_from_items(lc.items_from_messages(messages)), messages)

    def test_items_of_this_package(self) -> None:
        items = [
            Item(ItemKind.USER, [TextPart("hi")]),
            Item(ItemKind.ASSISTANT, [ToolCallPart(ToolCallId("c1"), "f", {"a": 1})], finish_reason=FinishReason.MAX_TOKENS),
            Item(ItemKind.TOOL, [ToolResultPart(ToolCallId("c1"), StructuredOutput({"x": 1})),
                                 ToolResultPart(ToolCallId("c2"), PartsOutput([FilePart(DataRef.handle("file-1"))]), is_error=True)]),
            Item(ItemKind.ASSISTANT, [CustomPart("anthropic.x", value={}), TextPart("a"), TextPart("b")]),
        ]
        human, ai, tool1, tool2, ai2 = lc.messages_from_items(items)
        self.assertEqual(human, {"type": "human", "data": {"content": "hi", "additional_kwargs": {}, "response_metadata": {},
                                                          "type": "human", "name": None, "id": None}})
        self.assertEqual(ai["data"]["tool_calls"], [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}])
        self.assertEqual(ai["data"]["response_metadata"], {"finish_reason": "length"})
        self.assertEqual((tool1["data"]["content"], tool1["data"]["status"]), ('{"x": 1}', "success"))
        self.assertEqual((tool2["data"]["content"], tool2["data"]["status"]), ([{"type": "file", "file_id": "file-1"}], "error"))
        self.assertEqual(ai2["data"]["content"], ["a", "b"])  # the other provider's part left out

    def test_what_is_not_a_message_is_named(self) -> None:
        for value, words in (
            ([{"role": "user", "content": "hi"}], "chat message"),
            ([{"kind": "request", "parts": []}], "pydantic-ai message"),
            ([5], "5"),
        ):
            with self.subTest(words):
                with self.assertRaises(NormalizeError) as caught:
                    lc.items_from_messages(value)
                self.assertIn(words, str(caught.exception))
        with self.assertRaises(NormalizeError) as caught:
            lc.items_from_messages([{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": [], "id": "c"}]}}])
        self.assertEqual(caught.exception.path, "[0].data.tool_calls[0].args")

    def test_objects_read_by_type_and_model_dump(self) -> None:
        class Human:
            type = "human"

            def model_dump(self) -> dict:
                return {"content": "hi", "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": None,
                        "id": None, "when": b"\x00"}

        (item,) = lc.items_from_messages([Human()])
        self.assertEqual((item.parts, item.metadata["langchain.when"]), ((TextPart("hi"),), "AA=="))


class Copies(unittest.TestCase):
    def test_what_is_written_shares_nothing_with_the_items(self) -> None:
        from agentkit_core.interop import mcp, pydantic_ai

        for name, module in (("langchain.json", lc), ("pydantic_ai.json", pydantic_ai)):
            with self.subTest(name):
                items = module.items_from_messages(load(name))
                before = [i.to_dict() for i in items]
                written = module.messages_from_items(items)
                _scribble(written)
                self.assertEqual([i.to_dict() for i in items], before)
        specs = mcp.specs_from_tools(load("mcp.json")["tools_list"])
        before = [s.to_dict() for s in specs]
        _scribble(mcp.tools_from_specs(specs))
        self.assertEqual([s.to_dict() for s in specs], before)


def _scribble(value: object) -> None:
    """Change every dict and list inside ``value``."""
    if isinstance(value, dict):
        for v in list(value.values()):
            _scribble(v)
        value["scribbled"] = True
    elif isinstance(value, list):
        for v in list(value):
            _scribble(v)
        value.append("scribbled")


if __name__ == "__main__":
    unittest.main()
