"""A whole tool-calling turn per provider, sent to the loopback server playing recorded streams.

Turn one streams a recorded answer holding a tool call; the loop folds it,
runs the tool (here: a canned result) and sends turn two, whose request the
server records: it must hold the call and its result, in the provider's own
shape, at the provider's endpoint with its auth header.
"""

from __future__ import annotations

import json
import unittest
from types import ModuleType
from typing import Any

from agentkit_core import FoldState, Item, ItemKind, TextOutput, ToolCallPart, ToolResultPart, fold
from agentkit_core.http import send
from agentkit_core.providers import anthropic, bedrock, capabilities, gemini, openai_chat, openai_responses
from tests import recorded
from tests.capability import can_serve_loopback
from tests.loopback import Loopback, Reply, stream_reply
from tests.test_http import KEY, plain


def reply(provider: str, body: bytes, delay: float = 0.0) -> Reply:
    """A streamed reply of ``body`` in ``provider``'s stream format (its registry row's)."""
    return stream_reply(recorded.STREAM_FORMATS[provider], body, delay)


#: provider -> (its module, the stream with a tool call, a second stream, the path, the key's header and value)
TURNS: dict[str, tuple[ModuleType, str, str, str, str, str]] = {
    "anthropic": (anthropic, "messages.text_tool_use.sse.txt", "messages.thinking_text.sse.txt", "/v1/messages", "x-api-key", KEY),
    "openai_chat": (openai_chat, "chat.tool_call.sse.txt", "chat.finish_length.sse.txt", "/chat/completions", "Authorization", "Bearer " + KEY),
    "openai_responses": (openai_responses, "responses.function_call.sse.txt", "responses.reasoning_summary.sse.txt", "/responses", "Authorization", "Bearer " + KEY),
    "gemini": (gemini, "stream_generate_content.call_gemini_3.sse.txt", "stream_generate_content.thinking_text.sse.txt", "/models/m-1:streamGenerateContent?alt=sse", "x-goog-api-key", KEY),
    "bedrock": (bedrock, "converse_stream.tool_use_turn1.eventstream", "converse_stream.tool_use_turn2.eventstream", "/model/m-1/converse-stream", "authorization", "Bearer " + KEY),
}


def run_turn(module: ModuleType, transcript: list[Item], base_url: str) -> Item:
    """One streamed turn: send, fold the events as they arrive, finish the item."""
    request = module.http_request(transcript, model="m-1", api_key=KEY, base_url=base_url, stream=True, max_tokens=256)
    decoder, state = module.stream_decoder(), FoldState()
    with send(request, transport=plain()) as response:  # type: ignore[arg-type]
        for event in response.events():
            for delta in decoder.feed(event):
                state = fold(state, delta)
    return decoder.finish_all(state.finalize())[0]  # type: ignore[no-any-return]


class WholeTurnTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_a_tool_calling_turn_for_each_provider(self) -> None:
        for name, (module, first, second, path, header, value) in TURNS.items():
            with self.subTest(name), Loopback([reply(name, recorded.raw(name, first), 0.002), reply(name, recorded.raw(name, second))]) as server:
                transcript = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
                answer = run_turn(module, transcript, server.url())
                calls = [p for p in answer.parts if isinstance(p, ToolCallPart)]
                self.assertTrue(calls, answer)
                expected = recorded.items(name, first)[0]
                if not capabilities(name).call_ids:  # it invents call ids afresh each time
                    self.assertEqual([type(p) for p in answer.parts], [type(p) for p in expected.parts])
                else:
                    self.assertEqual(answer, expected)
                results = [ToolResultPart(call.id, TextOutput("18 C, clear")) for call in calls]
                transcript += [answer, Item(ItemKind.TOOL, results)]
                final = run_turn(module, transcript, server.url())
                self.assertIs(final.kind, ItemKind.ASSISTANT)
                self.assertEqual(len(server.requests), 2)
                for received in server.requests:
                    self.assertEqual(received.path, path)
                    self.assertEqual(received.headers[header], value)
                sent: dict[str, Any] = json.loads(server.requests[1].body)
                again = module.items_from_request(sent)
                sent_calls = [p for item in again for p in item.parts if isinstance(p, ToolCallPart)]
                sent_results = [p for item in again for p in item.parts if isinstance(p, ToolResultPart)]
                self.assertEqual([c.name for c in sent_calls], [c.name for c in calls])
                self.assertEqual(len(sent_results), len(calls))
                if capabilities(name).call_ids:  # else calls may have no ids: results answer by name
                    self.assertEqual([r.call_id for r in sent_results], [c.id for c in calls])


if __name__ == "__main__":
    unittest.main()
