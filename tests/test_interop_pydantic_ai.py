"""agentkit_core.interop.pydantic_ai on pydantic-ai's dump of a history (``tests/interop/pydantic_ai.json``), no library needed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import unittest

from agentkit_core import (
    INPUT_JSON_KEY,
    TOOL_NAME_KEY,
    FilePart,
    FinishReason,
    InlineBytes,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    Modality,
    NormalizeError,
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
from agentkit_core.interop import pydantic_ai as pa
from tests.interop_fixtures import covers, load


class FromMessages(unittest.TestCase):
    def setUp(self) -> None:
        self.history = load("pydantic_ai.json")
        self.items = pa.items_from_messages(self.history)

    def test_kinds(self) -> None:
        self.assertEqual([i.kind.value for i in self.items], [
            "System", "System", "User", "Assistant", "Tool", "Assistant", "Tool", "Assistant", "User", "Assistant",
            "User", "Assistant",
        ])

    def test_a_request(self) -> None:
        instructions, system, user = self.items[:3]
        self.assertEqual(instructions.text_content(), "Answer in English.")
        self.assertIs(instructions.metadata["pydantic_ai.instructions"], True)
        self.assertIn("pydantic_ai.request", instructions.metadata)  # where the request began
        self.assertEqual(system.parts, (TextPart("Be brief."),))
        self.assertEqual(user.parts, (TextPart("What is the weather in Paris?"),))
        self.assertEqual(user.created_at, 1735787045000)
        self.assertEqual(user.metadata["pydantic_ai.timestamp"], "2025-01-02T03:04:05Z")

    def test_a_response(self) -> None:
        answer = self.items[3]
        thinking, text, call, text_args = answer.parts
        self.assertEqual(thinking, ReasoningPart("The user wants the weather.", metadata={
            "pydantic_ai.signature": "c2lnbmF0dXJl", "pydantic_ai.provider_name": "anthropic"}))
        self.assertEqual(text, TextPart("Let me look."))
        self.assertEqual(call, ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Paris"}))
        self.assertEqual(text_args.input, {"zone": "CET"})
        self.assertEqual(text_args.metadata["pydantic_ai.args"], '{"zone": "CET"}')
        self.assertEqual(answer.id, MessageId("msg_1"))
        self.assertIs(answer.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(answer.usage.tokens, TokenUsage(50, 20, reasoning_tokens=5, cached_input_tokens=10,  # type: ignore[union-attr]
                                                         cache_write_input_tokens=0))
        self.assertEqual(answer.metadata["pydantic_ai.model_name"], "claude-sonnet-4-5")

    def test_tool_returns_and_retries(self) -> None:
        ok, failed = self.items[4].parts
        self.assertEqual(ok, ToolResultPart(ToolCallId("call_1"), StructuredOutput({"celsius": 21}), metadata={
            TOOL_NAME_KEY: "get_weather", "pydantic_ai.timestamp": "2025-01-02T03:04:05Z"}))
        self.assertIsInstance(failed, ToolResultPart)
        self.assertEqual((failed.output, failed.is_error, failed.metadata["pydantic_ai.outcome"]), (TextOutput("unknown zone"), True, "failed"))
        bad = self.items[5].parts[0]
        self.assertIsInstance(bad, ToolCallPart)
        self.assertEqual((bad.input, bad.metadata[INPUT_JSON_KEY]), (None, '{"zone": '))
        (retry,) = self.items[6].parts
        self.assertIsInstance(retry, ToolResultPart)
        self.assertEqual((retry.is_error, retry.metadata["pydantic_ai.part_kind"]), (True, "retry-prompt"))
        self.assertEqual(self.items[10].text_content(), "Please answer in one word.")  # a retry addressed to no tool

    def test_user_content(self) -> None:
        text, image, audio, video, document, png, pdf = self.items[8].parts
        self.assertEqual(text, TextPart("And these?"))
        self.assertEqual((image.modality, image.mime_type, image.data), (Modality.IMAGE, "image/png", Uri("https://example.com/a.png")))  # type: ignore[union-attr]
        self.assertEqual((audio.modality, video.modality), (Modality.AUDIO, Modality.VIDEO))  # type: ignore[union-attr]
        self.assertEqual((type(document), document.data), (FilePart, Uri("https://example.com/a.pdf")))  # type: ignore[union-attr]
        self.assertEqual((type(png), png.data), (MediaPart, InlineBytes(b"\x89PNG\r\n\x1a\n")))  # type: ignore[union-attr]
        self.assertEqual((type(pdf), pdf.mime_type), (FilePart, "application/pdf"))  # type: ignore[union-attr]
        self.assertIs(self.items[9].finish_reason, FinishReason.MAX_TOKENS)


class BackAgain(unittest.TestCase):
    def test_written_back_says_what_the_dump_says(self) -> None:
        history = load("pydantic_ai.json")
        covers(self, pa.messages_from_items(pa.items_from_messages(history)), history)

    def test_items_round_trip(self) -> None:
        items = pa.items_from_messages(load("pydantic_ai.json"))
        self.assertEqual(pa.items_from_messages(pa.messages_from_items(items)), items)

    def test_items_of_this_package(self) -> None:
        items = [
            Item(ItemKind.SYSTEM, [TextPart("Be brief.")], created_at=0),
            Item(ItemKind.USER, [TextPart("hi"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG"))]),
            Item(ItemKind.ASSISTANT, [ToolCallPart(ToolCallId("c1"), "f", {"a": 1})], finish_reason=FinishReason.CANCELLED),
            Item(ItemKind.TOOL, [ToolResultPart(ToolCallId("c1"), TextOutput("boom"), is_error=True)]),
        ]
        system, answer, tool = pa.messages_from_items(items)
        self.assertEqual(system["parts"], [
            {"content": "Be brief.", "part_kind": "system-prompt", "timestamp": "1970-01-01T00:00:00Z"},
            {"content": ["hi", {"data": "iVBORw==", "media_type": "image/png", "kind": "binary"}], "part_kind": "user-prompt"},
        ])
        self.assertNotIn("finish_reason", answer)  # pydantic-ai has no "cancelled"
        self.assertEqual(tool["parts"], [{"tool_name": "f", "content": "boom", "tool_call_id": "c1", "outcome": "failed",
                                          "part_kind": "tool-return"}])

    def test_what_has_no_place_is_refused_by_path(self) -> None:
        with self.assertRaises(NormalizeError) as caught:
            pa.messages_from_items([Item(ItemKind.ASSISTANT, [ToolResultPart(ToolCallId("c"), TextOutput("x"))])])
        self.assertEqual(caught.exception.path, "[0].parts[0]")


class Objects(unittest.TestCase):
    def test_dataclasses_read_by_their_fields(self) -> None:
        @dataclasses.dataclass
        class Url:
            url: str
            _media_type: str | None = None
            kind: str = "image-url"

            @property
            def media_type(self) -> str:
                return self._media_type or "image/jpeg"

        @dataclasses.dataclass
        class Prompt:
            content: list
            timestamp: dt.datetime
            part_kind: str = "user-prompt"

        @dataclasses.dataclass
        class Request:
            parts: list
            kind: str = "request"

        when = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
        (item,) = pa.items_from_messages([Request([Prompt(["hi", Url("https://x/y")], when)])])
        self.assertEqual(item.parts[1], MediaPart(Modality.IMAGE, "image/jpeg", Uri("https://x/y")))
        self.assertEqual(item.metadata["pydantic_ai.timestamp"], "2025-01-02T03:04:05Z")

    def test_what_is_not_a_history_is_named(self) -> None:
        for value, words in (
            ([{"role": "user", "content": "hi"}], "chat message"),
            ([{"type": "human", "data": {"content": "hi"}}], "LangChain message"),
            ({"kind": "request"}, "a list of pydantic-ai messages"),
        ):
            with self.subTest(words):
                with self.assertRaises(NormalizeError) as caught:
                    pa.items_from_messages(value)
                self.assertIn(words, str(caught.exception))
        with self.assertRaises(NormalizeError) as caught:
            pa.items_from_messages([{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": 3}]}])
        self.assertEqual(caught.exception.path, "[0].parts[0].tool_call_id")


if __name__ == "__main__":
    unittest.main()
