"""``otel.span_attributes(..., settings=, request=)``: the request's keys of an inference span, from the same call."""

from __future__ import annotations

import unittest

from agentkit_core import Item, ItemKind, ModelSettings
from agentkit_core.otel import span_attributes
from agentkit_core.providers import anthropic, gemini, openai_chat

ASK = [Item.text(ItemKind.USER, "Hi")]


class RequestAttributesTest(unittest.TestCase):
    def test_the_settings_and_the_request(self) -> None:
        settings = ModelSettings(max_tokens=256, temperature=1, top_p=0.5, stop=["END"], reasoning_effort="high")
        request = anthropic.http_request(ASK, model="claude-sonnet-4-5", settings=settings, stream=True)
        got = span_attributes(ASK, None, provider="anthropic", request_model="claude-sonnet-4-5", settings=settings, request=request)
        self.assertEqual({k: v for k, v in got.items() if k.startswith(("gen_ai.request.", "server."))}, {
            "gen_ai.request.model": "claude-sonnet-4-5", "gen_ai.request.max_tokens": 256, "gen_ai.request.temperature": 1.0,
            "gen_ai.request.top_p": 0.5, "gen_ai.request.stop_sequences": ["END"], "gen_ai.request.reasoning.level": "high",
            "gen_ai.request.stream": True, "server.address": "api.anthropic.com", "server.port": 443,
        })
        self.assertIsInstance(got["gen_ai.request.temperature"], float)

    def test_seed_port_and_a_call_not_streamed(self) -> None:
        request = openai_chat.http_request(ASK, model="m", base_url="http://127.0.0.1:8080/v1")
        got = span_attributes(ASK, None, provider=openai_chat, settings=ModelSettings(seed=7), request=request)
        self.assertEqual((got["gen_ai.request.seed"], got["gen_ai.request.stream"]), (7, False))
        self.assertEqual((got["server.address"], got["server.port"]), ("127.0.0.1", 8080))
        streamed = gemini.http_request(ASK, model="gemini-3-flash", stream=True)
        self.assertIs(span_attributes(ASK, None, provider="gemini", request=streamed)["gen_ai.request.stream"], True)

    def test_without_them_nothing_is_written_and_wrong_types_are_refused(self) -> None:
        got = span_attributes(ASK, None, provider="anthropic")
        self.assertFalse([k for k in got if k.startswith(("gen_ai.request.", "server."))])
        with self.assertRaises(TypeError):
            span_attributes(ASK, None, provider="anthropic", settings={"max_tokens": 5})  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            span_attributes(ASK, None, provider="anthropic", request="https://api.anthropic.com")  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
