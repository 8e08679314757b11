"""What issue 25's newcomer met, each as a test: a cut stream's text kept by the hand-written loop, Mistral's
thinking as reasoning, and the three small things found on the way (the other findings are tested beside
the code they concern: ``test_settings``, ``test_complete``, ``test_cli_turn``)."""

from __future__ import annotations

import copy
import unittest
from typing import Any

from agentkit_core import STREAM_CUT_KEY, FinishReason, FoldState, Item, ItemKind, ReasoningPart, TextPart, fold_all
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses
from tests import recorded


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c-1", "object": "chat.completion.chunk", "model": "magistral-medium",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def think(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}], **extra}


class CutStreamTest(unittest.TestCase):
    def test_the_hand_written_loop_keeps_the_text_of_a_stream_that_ends_early(self) -> None:
        """A server closing after two text deltas (no ``message_stop``): ``finish`` takes the fold state, open parts and all."""
        events = [
            {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                                  "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " there"}},
        ]
        decoder, state = anthropic.stream_decoder(), FoldState()
        for event in events:
            state = fold_all(state, decoder.feed(event))
        self.assertTrue(state.is_open)
        item = decoder.finish(state)
        self.assertEqual((item.finish_reason, item.text_content()), (FinishReason.ERROR, "Hello there"))
        self.assertIn(STREAM_CUT_KEY, item.metadata)
        self.assertEqual(item, anthropic.items_from_stream(events)[0])
        for module in (openai_chat, openai_responses, gemini):
            with self.subTest(module.__name__):
                self.assertEqual(module.stream_decoder().finish(FoldState()).kind, ItemKind.ASSISTANT)
        from tests.test_complete import TEXT_STREAMS, first_text

        for name, stream in TEXT_STREAMS.items():  # every provider: a stream cut after its first text, finished from the state
            module = recorded.PROVIDERS[name]
            cut = recorded.events(name, first_text(name, stream))
            decoder, state = module.stream_decoder(), FoldState()
            for event in cut:
                state = fold_all(state, decoder.feed(event))
            with self.subTest(name):
                self.assertTrue(state.is_open)
                item = decoder.finish(state)
                self.assertIs(item.finish_reason, FinishReason.ERROR)
                self.assertTrue(item.text_content())
                self.assertEqual(item.text_content(), module.items_from_stream(cut)[0].text_content())


class MistralThinkingTest(unittest.TestCase):
    STREAM = [chunk({"role": "assistant", "content": ""}), chunk({"content": [think("Two plus")]}),
              chunk({"content": [think(" two is four.", closed=True), {"type": "text", "text": "4"}]}),
              chunk({"content": " it is."}), chunk({}, "stop")]
    CONTENT = [think("Two plus two is four.", closed=True), {"type": "text", "text": "4 it is."}]

    def test_streamed_and_whole_thinking_is_reasoning(self) -> None:
        answer = {"id": "c-1", "object": "chat.completion", "model": "magistral-medium",
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": self.CONTENT}, "finish_reason": "stop"}]}
        for item in (openai_chat.items_from_stream(self.STREAM)[0], openai_chat.items_from_response(answer)[0]):
            with self.subTest(item=item.metadata.get("openai.chat.object")):
                reasoning, text = item.parts
                self.assertIsInstance(reasoning, ReasoningPart)
                self.assertEqual(reasoning.summary, "Two plus two is four.")  # type: ignore[union-attr]
                self.assertIsInstance(text, TextPart)
                self.assertEqual(item.text_content(), "4 it is.")
                sent = openai_chat.request_from_items([Item.text(ItemKind.USER, "2+2?"), item])["messages"][1]
                self.assertEqual(sent["content"], self.CONTENT)  # back out as Mistral sent it

    def test_a_thinking_list_that_is_not_one_text_piece_goes_back_verbatim(self) -> None:
        entry = {"type": "thinking", "thinking": [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "x": 1}]}
        request = {"model": "m", "messages": [{"role": "system", "content": "Think."},
                                              {"role": "assistant", "content": [entry, {"type": "text", "text": "ok"}]}]}
        system, item = openai_chat.items_from_request(request)
        self.assertEqual(item.parts[0].summary, "ab")  # type: ignore[union-attr]
        self.assertEqual(openai_chat.request_from_items([system, item])["messages"], request["messages"])


class SmallThingsTest(unittest.TestCase):
    def test_google_genai_client_fields_are_not_the_providers_data(self) -> None:
        body = recorded.load("gemini", "generate_content.parallel_function_calls.response.json")
        plain = gemini.items_from_response(body)[0]
        for extra in ({"automaticFunctionCallingHistory": []}, {"automatic_function_calling_history": []},
                      {"sdkHttpResponse": {"headers": {"x": "y"}}}):
            with self.subTest(extra):
                item = gemini.items_from_response({**body, **extra})[0]
                self.assertEqual(set(item.metadata), set(plain.metadata))

    def test_the_openai_sdks_schema_alias_reads_as_the_api_spells_it(self) -> None:
        schema = {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}, "additionalProperties": False}
        body = recorded.load("openai_responses", "responses.reasoning_function_call.response.json")
        raw = copy.deepcopy(body)
        raw["text"] = {"format": {"type": "json_schema", "name": "Answer", "schema": schema, "strict": True}}
        dumped = copy.deepcopy(raw)
        dumped["text"]["format"] = {"type": "json_schema", "name": "Answer", "schema_": schema, "strict": True}
        want = openai_responses.items_from_response(raw)[0]
        got = openai_responses.items_from_response(dumped)[0]
        self.assertEqual(got.metadata.get("openai.text"), want.metadata.get("openai.text"))
        self.assertIn("schema", str(want.metadata.get("openai.text")))

    def test_a_blank_text_block_of_an_anthropic_answer_goes_back_as_it_came(self) -> None:
        events = [
            {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                                  "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " "}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
            {"type": "message_stop"},
        ]
        answer = anthropic.items_from_stream(events)[0]
        sent = anthropic.request_from_items([Item.text(ItemKind.USER, "ls"), answer])["messages"][1]["content"]
        self.assertEqual(sent[0], {"type": "text", "text": " "})
        self.assertEqual(sent[1]["type"], "tool_use")
        # Another provider's blank text is still not sent: the API refuses it from anywhere else.
        foreign = Item(ItemKind.ASSISTANT, [TextPart("\n"), *answer.tool_calls()])
        self.assertEqual([b["type"] for b in anthropic.request_from_items([foreign])["messages"][0]["content"]], ["tool_use"])


if __name__ == "__main__":
    unittest.main()
