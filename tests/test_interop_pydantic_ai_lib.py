"""agentkit_core.interop.pydantic_ai against pydantic-ai, where it is installed (no dependency: skips otherwise).

A history built with pydantic-ai's own types converts to items and back; what
comes back validates with ``ModelMessagesTypeAdapter`` and equals what the
library itself makes of its own dump; and an agent on pydantic-ai's offline
models continues the converted history.
"""

from __future__ import annotations

import datetime as dt
import unittest
import warnings
from typing import Any

from agentkit_core import Item, ItemKind, TextOutput, TextPart, ToolCallId, ToolCallPart, ToolResultPart
from agentkit_core.interop import pydantic_ai as pa
from tests.capability import needs_library

try:
    from pydantic_ai import Agent, messages as m
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RequestUsage
except ImportError:  # pragma: no cover - depends on the environment
    m = None

T0 = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def history() -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RetryPromptPart is deprecated, and still in histories people keep
        return [
            m.ModelRequest(parts=[m.SystemPromptPart(content="Be brief.", timestamp=T0),
                                  m.UserPromptPart(content="Weather in Paris?", timestamp=T0)], instructions="English."),
            m.ModelResponse(parts=[
                m.ThinkingPart(content="Look it up.", signature="c2ln", provider_name="anthropic"),
                m.TextPart(content="Looking."),
                m.ToolCallPart(tool_name="get_weather", args={"city": "Paris"}, tool_call_id="c1"),
                m.ToolCallPart(tool_name="get_time", args='{"zone": "CET"}', tool_call_id="c2"),
            ], usage=RequestUsage(input_tokens=10, output_tokens=5, cache_read_tokens=2), model_name="test",
                timestamp=T0, provider_response_id="r1", finish_reason="tool_call"),
            m.ModelRequest(parts=[
                m.ToolReturnPart(tool_name="get_weather", content={"celsius": 21}, tool_call_id="c1", timestamp=T0),
                m.RetryPromptPart(content="bad zone", tool_name="get_time", tool_call_id="c2", timestamp=T0),
            ]),
            m.ModelResponse(parts=[m.TextPart(content="21 degrees.")], model_name="test", timestamp=T0, finish_reason="stop"),
            m.ModelRequest(parts=[m.UserPromptPart(content=[
                "And this?", m.ImageUrl(url="https://example.com/a.png"), m.DocumentUrl(url="https://example.com/a.pdf"),
                m.BinaryContent(data=b"\x89PNG\r\n\x1a\n", media_type="image/png"),
            ], timestamp=T0)]),
            m.ModelResponse(parts=[m.TextPart(content="A picture.")], timestamp=T0),
        ]


@needs_library("pydantic-ai-slim", "pydantic_ai")
class WithPydanticAi(unittest.TestCase):
    def setUp(self) -> None:
        self.history = history()
        self.adapter = m.ModelMessagesTypeAdapter
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.expected = self.adapter.validate_python(self.adapter.dump_python(self.history, mode="json"))

    def test_objects_and_their_dump_give_the_same_items(self) -> None:
        dumped = self.adapter.dump_python(self.history, mode="json")
        self.assertEqual(pa.items_from_messages(self.history), pa.items_from_messages(dumped))

    def test_back_again_validates_and_equals(self) -> None:
        written = pa.messages_from_items(pa.items_from_messages(self.history))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.assertEqual(self.adapter.validate_python(written), self.expected)

    def test_an_agent_continues_a_converted_history(self) -> None:
        written = pa.messages_from_items(pa.items_from_messages(self.history))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            restored = self.adapter.validate_python(written)
        result = Agent(TestModel(custom_output_text="Noted.")).run_sync("Thanks.", message_history=restored)
        self.assertEqual(result.output, "Noted.")
        self.assertEqual(result.all_messages()[: len(restored)], restored)
        seen: list[Any] = []

        def answer(messages: list[Any], info: AgentInfo) -> Any:
            seen.extend(messages)
            return m.ModelResponse(parts=[m.TextPart(content=f"{len(messages)} messages")])

        result = Agent(FunctionModel(answer)).run_sync("How many?", message_history=restored)
        self.assertEqual(result.output, f"{len(restored) + 1} messages")
        self.assertEqual([p.content for p in seen[0].parts if isinstance(p, m.SystemPromptPart)], ["Be brief."])

    def test_items_of_this_package_continue_a_run(self) -> None:
        items = [
            Item(ItemKind.SYSTEM, [TextPart("Be brief.")]),
            Item(ItemKind.USER, [TextPart("Weather?")]),
            Item(ItemKind.ASSISTANT, [ToolCallPart(ToolCallId("c1"), "get_weather", {"city": "Paris"})]),
            Item(ItemKind.TOOL, [ToolResultPart(ToolCallId("c1"), TextOutput("21"))]),
            Item(ItemKind.ASSISTANT, [TextPart("21 degrees.")]),
        ]
        restored = self.adapter.validate_python(pa.messages_from_items(items))
        self.assertEqual([type(x).__name__ for x in restored], ["ModelRequest", "ModelResponse", "ModelRequest", "ModelResponse"])
        result = Agent(TestModel(custom_output_text="ok")).run_sync("More?", message_history=restored)
        self.assertEqual(result.output, "ok")
        self.assertEqual(pa.items_from_messages(result.all_messages())[-1].text_content(), "ok")


if __name__ == "__main__":
    unittest.main()
