"""What the OpenAI-compatible servers send differently, each read from a body shaped as the server sends it.

* DeepSeek's Chat request with ``"thinking"`` and Together's with ``"top_k": null`` are Chat Completions
  requests: their messages (a ``system`` role message with a string) decide before a single key does;
* Groq's older streams report usage only in ``x_groq.usage``;
* Together's usage has a flat ``cached_tokens``, and its legacy finish reason ``"eos"`` is COMPLETED.
"""

from __future__ import annotations

import unittest

from agentkit_core import FinishReason
from agentkit_core.providers import detect, openai_chat

SYSTEM = {"role": "system", "content": "You are terse."}
USER = {"role": "user", "content": "Hi"}


class DetectionTest(unittest.TestCase):
    def test_deepseek_thinking_is_a_chat_request(self) -> None:
        body = {"model": "deepseek-reasoner", "messages": [SYSTEM, USER], "thinking": {"type": "enabled"},
                "max_tokens": 1024, "stream": True}
        self.assertEqual(detect(body), "openai_chat")
        items = openai_chat.items_from_request(body)
        self.assertEqual([i.text_content() for i in items], ["You are terse.", "Hi"])

    def test_together_top_k_null_is_a_chat_request(self) -> None:
        body = {"model": "meta-llama/Llama-3.3-70B-Instruct-Turbo", "messages": [SYSTEM, USER], "top_k": None,
                "max_tokens": 512, "temperature": 0.7}
        self.assertEqual(detect(body), "openai_chat")
        self.assertEqual(len(openai_chat.items_from_request(body)), 2)

    def test_an_anthropic_request_stays_anthropics(self) -> None:
        body = {"model": "claude", "system": "terse", "messages": [USER], "thinking": {"type": "enabled", "budget_tokens": 1024},
                "max_tokens": 2048}
        self.assertEqual(detect(body), "anthropic")


class UsageAndFinishTest(unittest.TestCase):
    def test_groq_usage_in_x_groq(self) -> None:
        chunks = [
            {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "llama-3.3-70b-versatile",
             "system_fingerprint": "fp_1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                        "logprobs": None, "finish_reason": None}],
             "x_groq": {"id": "req_01"}},
            {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "llama-3.3-70b-versatile",
             "choices": [{"index": 0, "delta": {"content": "Hello"}, "logprobs": None, "finish_reason": None}]},
            {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "llama-3.3-70b-versatile",
             "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}],
             "x_groq": {"id": "req_01", "usage": {"queue_time": 0.02, "prompt_tokens": 36, "prompt_time": 0.002,
                                                  "completion_tokens": 2, "completion_time": 0.001, "total_tokens": 38,
                                                  "total_time": 0.003}}},
        ]
        (item,) = openai_chat.items_from_stream(chunks)
        self.assertEqual(item.text_content(), "Hello")
        tokens = item.usage.tokens if item.usage else None
        self.assertEqual((tokens.input_tokens, tokens.output_tokens) if tokens else None, (36, 2))
        decoder = openai_chat.stream_decoder()
        for chunk in chunks:
            decoder.feed(chunk)
        self.assertEqual(decoder.usage.tokens.input_tokens if decoder.usage and decoder.usage.tokens else None, 36)

    def test_together_flat_cached_tokens_and_eos(self) -> None:
        body = {"id": "o1", "object": "chat.completion", "created": 1, "model": "meta-llama/Llama-3.3-70B-Instruct-Turbo",
                "prompt": [], "choices": [{"index": 0, "logprobs": None, "seed": 1, "finish_reason": "eos",
                                           "message": {"role": "assistant", "content": "Hi.", "tool_calls": []}}],
                "usage": {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43, "cached_tokens": 32}}
        (item,) = openai_chat.items_from_response(body)
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        self.assertEqual(item.metadata.get("agentkit.finish_reason"), "eos")
        tokens = item.usage.tokens if item.usage else None
        self.assertEqual(tokens.cached_input_tokens if tokens else None, 32)
        self.assertEqual(openai_chat.finish_reason("eos"), FinishReason.COMPLETED)


if __name__ == "__main__":
    unittest.main()
