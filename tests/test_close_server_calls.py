"""A turn cut while a server-side tool runs: the unfinished server call leaves the closed item.

Recorded streams are truncated where a cancel could land: an Anthropic
``server_tool_use`` block that stopped (or was still streaming its input)
before its result block came, a Responses hosted-tool item (``web_search_call``)
added but never done.  The API refuses the first without its result and only
the server could give one; the second is not a finished item.  So ``close()``
(and ``finish`` of the cut stream) drops it and lists it under
``agentkit.stream_cut`` ``dropped_server_calls``, and the next request holds no
server call without its result.
"""

from __future__ import annotations

import json
import unittest
from typing import Any

from agentkit_core import STREAM_CUT_KEY, CustomPart, FinishReason, FoldState, Item, ItemKind, close_unanswered, fold_all
from agentkit_core.providers import anthropic, openai_responses
from tests import recorded

Event = dict[str, Any]
SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use")


def closed(module: Any, events: list[Event], reason: FinishReason = FinishReason.CANCELLED) -> Item:
    decoder, state = module.stream_decoder(), FoldState()
    for event in events:
        state = fold_all(state, decoder.feed(event))
    return decoder.close(state.finalize(), reason)  # type: ignore[no-any-return]


def anthropic_events(name: str) -> tuple[list[Event], int, Event]:
    """The recorded stream, the index of the event that stops its server_tool_use block, and that block."""
    events = recorded.load_events("anthropic", f"messages.{name}.stream.jsonl")
    starts = {e["index"]: e["content_block"] for e in events if e["type"] == "content_block_start"}
    [index] = [i for i, block in starts.items() if block["type"] == "server_tool_use"]
    [stop] = [n for n, e in enumerate(events) if e["type"] == "content_block_stop" and e["index"] == index]
    return events, stop, starts[index]


def anthropic_server_calls_answered(body: Event) -> list[str]:
    """Every server (and MCP) tool use in an assistant message followed, in that message, by its result block."""
    answered = []
    for message in body["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else []
        for n, block in enumerate(blocks):
            if block["type"] in SERVER_BLOCKS:
                if message["role"] != "assistant":
                    raise AssertionError(message)
                results = [b.get("tool_use_id") for b in blocks[n + 1 :]]
                if block["id"] not in results:
                    raise AssertionError((block, results))
                answered.append(block["id"])
    return answered


def responses_hosted_finished(body: Event) -> list[str]:
    """Every hosted-tool item in the input is one the server finished (its status ``completed``)."""
    hosted = [e for e in body["input"] if str(e.get("type")).endswith("_call") and e["type"] != "function_call"]
    for entry in hosted:
        if entry.get("status") != "completed":
            raise AssertionError(entry)
    return [e["id"] for e in hosted]


def next_request(module: Any, item: Item) -> Event:
    """The request after the closed ``item``, with ``close_unanswered``'s results when there are any."""
    transcript = [Item.text(ItemKind.USER, "Go on."), item]
    results = close_unanswered(transcript)
    if results is not None:
        transcript.append(results)
    body: Event = module.request_from_items(transcript)
    module.items_from_request(json.loads(json.dumps(body)))  # it reads back
    return body


class AnthropicServerCallTest(unittest.TestCase):
    def test_a_server_call_cut_before_its_result_is_dropped_and_listed(self) -> None:
        for name in ("server_and_client_tool_use", "thinking_server_tool"):
            events, stop, block = anthropic_events(name)
            listed = {"type": "server_tool_use", "id": block["id"], "name": block["name"]}
            for cut_at in (stop + 1, stop):  # after its block stopped; while its input was still streaming
                with self.subTest(name, cut_at=cut_at):
                    item = closed(anthropic, events[:cut_at])
                    self.assertEqual(item.finish_reason, FinishReason.CANCELLED)
                    self.assertFalse([p for p in item.parts if isinstance(p, CustomPart)])
                    self.assertTrue(item.parts)  # what came before it stays
                    self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": [], "dropped_server_calls": [listed]})
                    body = next_request(anthropic, item)
                    self.assertEqual(anthropic_server_calls_answered(body), [])
                    self.assertEqual([m["role"] for m in body["messages"]], ["user", "assistant"])
                    # finish() of the same cut stream closes it as ERROR, the same way.
                    [failed] = anthropic.items_from_stream(events[:cut_at])
                    self.assertEqual((failed.finish_reason, failed.parts), (FinishReason.ERROR, item.parts))
                    self.assertEqual(failed.metadata[STREAM_CUT_KEY], item.metadata[STREAM_CUT_KEY])

    def test_a_server_call_whose_result_arrived_is_kept(self) -> None:
        events, stop, block = anthropic_events("thinking_server_tool")
        item = closed(anthropic, events[: stop + 3])  # the result block started and stopped
        self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": []})
        body = next_request(anthropic, item)
        self.assertEqual(anthropic_server_calls_answered(body), [block["id"]])

    def test_a_whole_stream_keeps_its_server_call(self) -> None:
        events, _, block = anthropic_events("server_and_client_tool_use")
        [item] = anthropic.items_from_stream(events)
        self.assertNotIn(STREAM_CUT_KEY, item.metadata)
        self.assertIn(block["id"], [p.value["id"] for p in item.parts if isinstance(p, CustomPart) and isinstance(p.value, dict) and "id" in p.value])


class ResponsesHostedCallTest(unittest.TestCase):
    def setUp(self) -> None:
        self.events = recorded.load_events("openai_responses", "responses.web_search_annotations.stream.jsonl")
        [self.added] = [n for n, e in enumerate(self.events) if e["type"] == "response.output_item.added" and e["item"]["type"] == "web_search_call"]
        [self.done] = [n for n, e in enumerate(self.events) if e["type"] == "response.output_item.done" and e["item"]["type"] == "web_search_call"]
        self.call = self.events[self.added]["item"]

    def test_a_hosted_call_cut_in_progress_is_dropped_and_listed(self) -> None:
        listed = {"type": "web_search_call", "id": self.call["id"]}
        for cut_at in range(self.added + 1, self.done):  # added, then in_progress, searching, completed; never done
            with self.subTest(cut_at=cut_at):
                item = closed(openai_responses, self.events[:cut_at])
                self.assertEqual(item.parts, ())
                self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": [], "dropped_server_calls": [listed]})
                self.assertEqual(responses_hosted_finished(next_request(openai_responses, item)), [])
                [failed] = openai_responses.items_from_stream(self.events[:cut_at])
                self.assertEqual(failed.finish_reason, FinishReason.ERROR)
                self.assertEqual(failed.metadata[STREAM_CUT_KEY], item.metadata[STREAM_CUT_KEY])

    def test_a_hosted_call_that_was_done_is_kept(self) -> None:
        text_delta = next(n for n, e in enumerate(self.events) if e["type"] == "response.output_text.delta")
        item = closed(openai_responses, self.events[: text_delta + 1])
        self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": []})
        self.assertTrue(item.text_content())
        self.assertEqual(responses_hosted_finished(next_request(openai_responses, item)), [self.call["id"]])


if __name__ == "__main__":
    unittest.main()
