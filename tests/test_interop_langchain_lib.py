"""agentkit_core.interop.langchain against langchain-core, where it is installed (no dependency: skips otherwise).

Messages built with LangChain's own types convert to items and back; what
comes back is read by ``messages_from_dict`` and equals what went in.
"""

from __future__ import annotations

import unittest
from typing import Any

from agentkit_core import FinishReason, Item, ItemKind, TextOutput, TextPart, TokenUsage, ToolCallId, ToolCallPart, ToolResultPart, Usage
from agentkit_core.interop import langchain as lc
from tests.capability import needs_library

try:
    from langchain_core import messages as m
except ImportError:  # pragma: no cover - depends on the environment
    m = None


def history() -> list[Any]:
    return [
        m.SystemMessage("Be brief."),
        m.SystemMessage("Metric.", additional_kwargs={"__openai_role__": "developer"}),
        m.HumanMessage(content=[{"type": "text", "text": "What is this?"}, {"type": "image", "url": "https://example.com/a.png"},
                                {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
                                {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}}], id="h1"),
        m.AIMessage(content=[{"type": "reasoning", "reasoning": "Hm.", "extras": {"signature": "c2ln"}}, {"type": "text", "text": "Let me see."}],
                    tool_calls=[{"name": "look", "args": {"q": "a"}, "id": "c1"}],
                    invalid_tool_calls=[{"name": "look", "args": "{x", "id": "c2", "error": "bad"}],
                    usage_metadata={"input_tokens": 10, "output_tokens": 4, "total_tokens": 14, "input_token_details": {"cache_read": 3}},
                    response_metadata={"model_name": "m", "finish_reason": "tool_calls"}, id="a1"),
        m.ToolMessage("A sunset.", tool_call_id="c1", name="look", artifact={"raw": 1}),
        m.ToolMessage("bad", tool_call_id="c2", status="error"),
        m.AIMessage("It is a sunset."),
        m.ChatMessage(content="ok", role="critic"),
        m.FunctionMessage(content="42", name="answer"),
    ]


@needs_library("langchain-core", "langchain_core")
class WithLangChain(unittest.TestCase):
    def test_objects_and_dicts_give_the_same_items(self) -> None:
        messages = history()
        self.assertEqual(lc.items_from_messages(messages), lc.items_from_messages(m.messages_to_dict(messages)))

    def test_back_again_is_read_and_equal(self) -> None:
        messages = history()
        written = lc.messages_from_items(lc.items_from_messages(messages))
        self.assertEqual(written, m.messages_to_dict(messages))
        self.assertEqual(m.messages_from_dict(written), messages)

    def test_items_of_this_package(self) -> None:
        items = [
            Item(ItemKind.DEVELOPER, [TextPart("Metric.")]),
            Item(ItemKind.USER, [TextPart("Weather?")]),
            Item(ItemKind.ASSISTANT, [ToolCallPart(ToolCallId("c1"), "get_weather", {"city": "Paris"})],
                 usage=Usage(TokenUsage(5, 2, reasoning_tokens=1)), finish_reason=FinishReason.TOOL_CALL),
            Item(ItemKind.TOOL, [ToolResultPart(ToolCallId("c1"), TextOutput("21"), is_error=True)]),
        ]
        developer, human, ai, tool = m.messages_from_dict(lc.messages_from_items(items))
        self.assertEqual((type(developer), developer.additional_kwargs), (m.SystemMessage, {"__openai_role__": "developer"}))
        self.assertEqual(human.content, "Weather?")
        self.assertEqual(ai.tool_calls, [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}])
        self.assertEqual(ai.usage_metadata, {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7,
                                             "output_token_details": {"reasoning": 1}})
        self.assertEqual((tool.tool_call_id, tool.status), ("c1", "error"))
        self.assertEqual(lc.items_from_messages([developer, human, ai, tool])[0].kind, ItemKind.DEVELOPER)


if __name__ == "__main__":
    unittest.main()
