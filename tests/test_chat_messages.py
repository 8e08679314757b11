"""openai_chat.items_from_messages / messages_from_items: a Chat Completions ``messages`` list as it is."""

from __future__ import annotations

import unittest

from agentkit_core import NormalizeError
from agentkit_core.providers import openai_chat
from tests import recorded


class MessagesList(unittest.TestCase):
    def test_a_list_reads_as_the_request_holding_it(self) -> None:
        for name in recorded.names("openai_chat", ".request.json")[:20]:
            body = recorded.load("openai_chat", name)
            with self.subTest(name):
                items = openai_chat.items_from_messages(body["messages"])
                self.assertEqual(items, openai_chat.items_from_request(body))
                self.assertEqual(openai_chat.messages_from_items(items), openai_chat.request_from_items(items)["messages"])

    def test_round_trip(self) -> None:
        messages = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get", "arguments": '{"city":"Paris"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "21"},
        ]
        self.assertEqual(openai_chat.messages_from_items(openai_chat.items_from_messages(messages)), messages)

    def test_what_is_not_a_messages_list_is_named(self) -> None:
        with self.assertRaises(NormalizeError) as caught:
            openai_chat.items_from_messages({"messages": []})
        self.assertIn("a request body", str(caught.exception))
        with self.assertRaises(NormalizeError) as caught:
            openai_chat.items_from_messages([{"role": "user", "content": "a"}, {"role": 5}])
        self.assertEqual(caught.exception.path, "[1].role")
        with self.assertRaises(NormalizeError) as caught:
            openai_chat.items_from_messages([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"}]}])
        self.assertIn("Anthropic", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
