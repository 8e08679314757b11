"""A turn cancelled mid-call, closed, and answered: the next request is one each API accepts (issue 17).

For every provider a stream is cut while a second tool call's arguments
arrive, after some text and one complete call.  The decoder closes the item
(``close``), the transcript gets it and :func:`close_unanswered`'s error
results, and the request built from that transcript is checked against what
each API requires of calls and their results.
"""

from __future__ import annotations

import json
import unittest
from typing import Any, Callable

from agentkit_core import (
    STREAM_CUT_KEY,
    FinishReason,
    FoldState,
    Item,
    ItemKind,
    close_unanswered,
    fold_all,
    unanswered_calls,
)
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses

Event = dict[str, Any]
CUT = '{"city": "Ly'  # the second call's arguments when the stream stops


def anthropic_events() -> list[Event]:
    def delta(index: int, kind: str, field: str, text: str) -> Event:
        return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: text}}

    call = {"type": "tool_use", "name": "get_weather", "input": {}}
    return [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                              "content": [], "stop_reason": None, "usage": {"input_tokens": 9, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        delta(0, "text_delta", "text", "Checking both."),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {**call, "id": "toolu_1"}},
        delta(1, "input_json_delta", "partial_json", '{"city": "Paris"}'),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {**call, "id": "toolu_2"}},
        delta(2, "input_json_delta", "partial_json", CUT),
    ]


def chat_events() -> list[Event]:
    def chunk(delta: Event) -> Event:
        return {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}

    def call(index: int, arguments: str, **head: Any) -> Event:
        return chunk({"tool_calls": [{"index": index, **head, "function": {**({"name": "get_weather"} if head else {}), "arguments": arguments}}]})

    return [chunk({"role": "assistant", "content": "Checking both."}), call(0, "", id="call_1", type="function"),
            call(0, '{"city": "Paris"}'), call(1, "", id="call_2", type="function"), call(1, CUT)]


def responses_events() -> list[Event]:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
    text = {"type": "output_text", "text": "Checking both.", "annotations": []}

    def call(n: int, arguments: str) -> Event:
        return {"id": f"fc_{n}", "type": "function_call", "call_id": f"call_{n}", "name": "get_weather", "arguments": arguments}

    at = {"output_index": 0, "content_index": 0}
    return [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {"type": "response.content_part.added", **at, "part": {**text, "text": ""}},
        {"type": "response.output_text.delta", **at, "delta": "Checking both."},
        {"type": "response.output_item.done", "output_index": 0, "item": {**message, "status": "completed", "content": [text]}},
        {"type": "response.output_item.added", "output_index": 1, "item": call(1, "")},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"city": "Paris"}'},
        {"type": "response.output_item.done", "output_index": 1, "item": call(1, '{"city": "Paris"}')},
        {"type": "response.output_item.added", "output_index": 2, "item": call(2, "")},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": CUT},
    ]


def gemini_events() -> list[Event]:
    def chunk(*parts: Event) -> Event:
        return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "index": 0}], "responseId": "r1"}

    partial = {"jsonPath": "$.city", "stringValue": "Ly", "willContinue": True}
    return [chunk({"text": "Checking both."}), chunk({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}),
            chunk({"functionCall": {"name": "get_weather", "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": [partial], "willContinue": True}})]


# -- what each API requires of the next request -----------------------------------------------------


def anthropic_answered(body: Event) -> list[str]:
    """Every ``tool_use`` answered by a ``tool_result`` in the next (user) message: the ids answered."""
    messages, answered = body["messages"], []
    for n, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if isinstance(message["content"], list) and b["type"] == "tool_use"]
        if uses:
            following = messages[n + 1]
            if following["role"] != "user":
                raise AssertionError(following)
            results = [b["tool_use_id"] for b in following["content"] if b["type"] == "tool_result"]
            if sorted(results) != sorted(uses):
                raise AssertionError((uses, results))
            answered += uses
    return answered


def chat_answered(body: Event) -> list[str]:
    """Every assistant ``tool_calls`` entry answered by a ``tool`` message, its arguments valid JSON."""
    messages, answered = body["messages"], []
    for n, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            json.loads(call["function"]["arguments"])
            following = [m["tool_call_id"] for m in messages[n + 1 :] if m["role"] == "tool"]
            if call["id"] not in following:
                raise AssertionError((call, following))
            answered.append(call["id"])
    return answered


def responses_answered(body: Event) -> list[str]:
    """Every ``function_call`` answered by a ``function_call_output``, its arguments valid JSON."""
    entries = body["input"]
    calls = [e for e in entries if e.get("type") == "function_call"]
    outputs = [e["call_id"] for e in entries if e.get("type") == "function_call_output"]
    for call in calls:
        json.loads(call["arguments"])
        if call["call_id"] not in outputs:
            raise AssertionError((call, outputs))
    if len(outputs) != len(calls):
        raise AssertionError((calls, outputs))
    return [c["call_id"] for c in calls]


def gemini_answered(body: Event) -> list[str]:
    """Every ``functionCall`` answered by a ``functionResponse`` in the next content, one for one."""
    contents, answered = body["contents"], []
    for n, content in enumerate(contents):
        calls = [p["functionCall"]["name"] for p in content["parts"] if "functionCall" in p]
        if calls:
            responses = [p["functionResponse"]["name"] for p in contents[n + 1]["parts"] if "functionResponse" in p]
            if sorted(responses) != sorted(calls):
                raise AssertionError((calls, responses))
            answered += calls
    return answered


PROVIDERS: list[tuple[str, Any, Callable[[], list[Event]], Callable[[Event], list[str]]]] = [
    ("anthropic", anthropic, anthropic_events, anthropic_answered),
    ("openai_chat", openai_chat, chat_events, chat_answered),
    ("openai_responses", openai_responses, responses_events, responses_answered),
    ("gemini", gemini, gemini_events, gemini_answered),
]


class CloseTurnTest(unittest.TestCase):
    def cancelled(self, module: Any, events: list[Event], reason: FinishReason = FinishReason.CANCELLED) -> Item:
        decoder, state = module.stream_decoder(), FoldState()
        for event in events:
            state = fold_all(state, decoder.feed(event))
        self.assertTrue(state.is_open)
        return decoder.close(state.finalize(), reason)  # type: ignore[no-any-return]

    def test_a_cancelled_turn_closes_and_the_next_request_answers_every_call(self) -> None:
        for name, module, events, answered in PROVIDERS:
            with self.subTest(name):
                item = self.cancelled(module, events())
                self.assertEqual(item.finish_reason, FinishReason.CANCELLED)
                self.assertEqual(item.text_content(), "Checking both.")  # the text that arrived stays
                [kept] = item.tool_calls()  # the complete call stays, the cut one goes
                self.assertEqual((kept.name, kept.input), ("get_weather", {"city": "Paris"}))
                [dropped] = item.metadata[STREAM_CUT_KEY]["dropped_calls"]  # type: ignore[index]
                self.assertEqual(dropped["name"], "get_weather")  # type: ignore[index]
                transcript = [Item.text(ItemKind.USER, "Weather in Paris and Lyon?"), item]
                self.assertEqual(unanswered_calls(transcript), [kept])
                results = close_unanswered(transcript)
                self.assertIsNotNone(results)
                transcript.append(results)
                self.assertEqual(unanswered_calls(transcript), [])
                self.assertIsNone(close_unanswered(transcript))
                body = module.request_from_items(transcript)
                self.assertEqual(len(answered(body)), 1)
                # The transcript as the API would send it back reads again (it round-trips through JSON).
                module.items_from_request(json.loads(json.dumps(body)))

    def test_a_transport_failure_closes_as_error_and_a_whole_stream_is_untouched(self) -> None:
        for name, module, events, _ in PROVIDERS:
            with self.subTest(name):
                self.assertEqual(self.cancelled(module, events(), FinishReason.ERROR).finish_reason, FinishReason.ERROR)
                # finish() on the same cut stream closes it as ERROR too.
                [item] = module.items_from_stream(events())
                self.assertEqual((item.finish_reason, len(item.tool_calls())), (FinishReason.ERROR, 1))
                self.assertIn(STREAM_CUT_KEY, item.metadata)
                with self.assertRaises(TypeError):
                    module.stream_decoder().close((), "cancelled")

    def test_closing_an_ended_stream_gives_its_finished_item(self) -> None:
        body = anthropic_events()[:7] + [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
                                         {"type": "message_stop"}]
        decoder, state = anthropic.stream_decoder(), FoldState()
        for event in body:
            state = fold_all(state, decoder.feed(event))
        self.assertEqual(decoder.close(state), decoder.finish(state.parts))
        self.assertEqual(decoder.close(state).finish_reason, FinishReason.TOOL_CALL)


if __name__ == "__main__":
    unittest.main()
