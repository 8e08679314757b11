"""The Anthropic reference adapter on recorded Messages API traffic (tests/payloads/anthropic).

What it proves, over every payload file:

* responses decode into one assistant item whose parts keep everything the
  blocks held (signatures byte-exact, redacted data, citations, server tool
  blocks), and that item echoes back as the very content blocks it came from;
* every stream, decoded and folded, gives the item the non-streaming path
  gives for the message the SDK would accumulate from the same events, also for
  synthetic streams of every response (fragmented and interleaved tool input);
* every request's ``system``/``messages`` is rebuilt exactly from its items,
  and every follow-up request is rebuilt from the items of the conversation
  so far (first request + response + the tool results an application makes);
* usage follows the package's token convention and every stop reason maps.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import unittest
from typing import Any, Iterator

from agentkit_core import (
    AppendText,
    ArtifactId,
    BeginPart,
    CommitPart,
    CustomPart,
    FilePart,
    FinishReason,
    FoldState,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    Modality,
    NormalizeError,
    PartId,
    PartKind,
    PartsOutput,
    ReasoningPart,
    ReplaceStructured,
    SetMetadata,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    fold,
    fold_all,
)
from tests import recorded
from agentkit_core.providers import anthropic as adapter

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "payloads", "anthropic")

JsonDict = dict[str, Any]


def load(name: str) -> Any:
    return recorded.load("anthropic", name)


def load_events(name: str) -> list[JsonDict]:
    return recorded.load_events("anthropic", name)


def files(suffix: str) -> list[str]:
    return recorded.names("anthropic", suffix)


def canonical(value: Any) -> str:
    """JSON text with sorted keys: equality that also tells ``false`` from ``0``."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def transcript(request: JsonDict) -> JsonDict:
    return {k: request[k] for k in ("system", "messages") if k in request}


def accumulate(events: list[JsonDict]) -> JsonDict:
    """The final ``Message`` the Anthropic SDK's stream accumulator builds from ``events``."""
    message: JsonDict = {}
    buffers: dict[int, str] = {}
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            message = copy.deepcopy(event["message"])
        elif kind == "content_block_start":
            message["content"].append(copy.deepcopy(event["content_block"]))
        elif kind == "content_block_delta":
            block, delta = message["content"][event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "citations_delta":
                block["citations"] = (block.get("citations") or []) + [delta["citation"]]
            elif delta["type"] == "input_json_delta":
                buffers[event["index"]] = buffers.get(event["index"], "") + delta["partial_json"]
        elif kind == "content_block_stop" and buffers.get(event["index"]):
            # The SDK parses the partial JSON after every fragment; the last parse is this one.
            message["content"][event["index"]]["input"] = json.loads(buffers[event["index"]])
        elif kind == "message_delta":
            message.update(copy.deepcopy(event["delta"]))
            for key, value in event.get("usage", {}).items():
                if value is not None:
                    message["usage"][key] = copy.deepcopy(value)
    return message


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def synthetic_stream(message: JsonDict, size: int = 7, interleave: bool = False) -> list[JsonDict]:
    """The events the API would send for ``message``, in the grammar of the recorded streams.

    Text and thinking arrive in ``size``-character deltas (thinking ends with an
    empty ``thinking_delta`` and one ``signature_delta``), citations one
    ``citations_delta`` each, tool input as ``input_json_delta`` fragments
    starting with ``""``; other blocks whole in ``content_block_start``.  With
    ``interleave``, every block starts first, deltas of all blocks alternate,
    and blocks stop in reverse order.
    """
    start = copy.deepcopy(message)
    start.update(content=[], stop_reason=None, stop_sequence=None)
    start.pop("container", None)
    if "stop_details" in start:
        start["stop_details"] = None
    start["usage"] = {**message["usage"], "output_tokens": 1}
    starts, deltas, stops = [], [], []
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        pieces: list[JsonDict] = []
        if kind == "text":
            first = {**block, "text": ""}
            if "citations" in block:
                first["citations"] = []
                pieces += [{"type": "citations_delta", "citation": c} for c in block["citations"]]
            pieces = [{"type": "text_delta", "text": t} for t in _chunks(block["text"], size)] + pieces
        elif kind == "thinking":
            first = {**block, "thinking": "", "signature": ""}
            pieces = [{"type": "thinking_delta", "thinking": t} for t in _chunks(block["thinking"], size)]
            pieces += [{"type": "thinking_delta", "thinking": ""}, {"type": "signature_delta", "signature": block["signature"]}]
        elif kind in ("tool_use", "server_tool_use"):
            first = {**block, "input": {}}
            raw = json.dumps(block["input"]) if block["input"] else ""
            pieces = [{"type": "input_json_delta", "partial_json": t} for t in [""] + _chunks(raw, size)]
        else:
            first = block
        starts.append({"type": "content_block_start", "index": index, "content_block": copy.deepcopy(first)})
        deltas.append([{"type": "content_block_delta", "index": index, "delta": d} for d in pieces])
        stops.append({"type": "content_block_stop", "index": index})
    events: list[JsonDict] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    if interleave:
        events += starts
        longest = max((len(d) for d in deltas), default=0)
        events += [d[i] for i in range(longest) for d in deltas if i < len(d)]
        events += stops[::-1]
    else:
        for s, d, e in zip(starts, deltas, stops):
            events += [s, *d, e]
    final = {k: message[k] for k in ("stop_reason", "stop_sequence", "stop_details", "container") if k in message}
    events.append({"type": "message_delta", "delta": final, "usage": copy.deepcopy(message["usage"])})
    events.append({"type": "message_stop"})
    return events


def streamed_item(events: list[JsonDict]) -> Item:
    decoder = adapter.stream_decoder()
    state = FoldState()
    for event in events:
        state = fold_all(state, decoder.feed(event))
    return decoder.finish(state.parts)


def parse_sse(text: str) -> Iterator[tuple[str, JsonDict]]:
    """(event name, parsed data) of each event of a ``text/event-stream`` body."""
    for frame in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "", []
        for line in frame.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            yield name, json.loads("\n".join(data))


class ResponseTests(unittest.TestCase):
    def test_every_response_is_one_assistant_item(self) -> None:
        expected_kind = {
            "text": TextPart,
            "thinking": ReasoningPart,
            "redacted_thinking": ReasoningPart,
            "tool_use": ToolCallPart,
        }
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                items = adapter.items_from_response(response)
                self.assertEqual(len(items), 1)
                item = items[0]
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                self.assertEqual(item.id, MessageId(response["id"]))
                self.assertEqual(item.metadata["anthropic.model"], response["model"])
                self.assertEqual(item.metadata["anthropic.stop_reason"], response["stop_reason"])
                self.assertEqual(item.metadata["anthropic.type"], "message")
                self.assertEqual(item.usage.metadata["anthropic.usage"], response["usage"])
                self.assertEqual(len(item.parts), len(response["content"]))
                for part, block in zip(item.parts, response["content"]):
                    self.assertIsInstance(part, expected_kind.get(block["type"], CustomPart))

    def test_assistant_turn_echoes_back_verbatim(self) -> None:
        messages = [load(n) for n in files(".response.json")]
        messages += [accumulate(load_events(n)) for n in files(".stream.jsonl")]
        for message in messages:
            with self.subTest(message["id"]):
                item = adapter.items_from_response(message)[0]
                rebuilt = adapter.request_from_items([item])
                self.assertEqual(canonical(rebuilt), canonical({"messages": [{"role": "assistant", "content": message["content"]}]}))
                # ... also after the item went through the reference JSON (a stored transcript).
                stored = Item.from_dict(json.loads(json.dumps(item.to_dict())))
                self.assertEqual(stored, item)
                self.assertEqual(canonical(adapter.request_from_items([stored])), canonical(rebuilt))

    def test_thinking_signature_is_byte_exact(self) -> None:
        response = load("messages.thinking_text_tool_use.response.json")
        part = adapter.items_from_response(response)[0].parts[0]
        self.assertIsInstance(part, ReasoningPart)
        self.assertEqual(part.summary, response["content"][0]["thinking"])
        self.assertEqual(part.data, InlineText(response["content"][0]["signature"]))
        self.assertFalse(part.redacted)
        self.assertEqual(dict(part.metadata), {})

    def test_redacted_thinking_keeps_its_data(self) -> None:
        response = load("messages.redacted_thinking.response.json")
        part = adapter.items_from_response(response)[0].parts[0]
        self.assertEqual(part, ReasoningPart(None, data=InlineText(response["content"][0]["data"]), redacted=True))

    def test_citations_of_every_kind_stay_on_their_text(self) -> None:
        response = load("messages.citations.response.json")
        item = adapter.items_from_response(response)[0]
        for part, block in zip(item.parts, response["content"]):
            self.assertEqual(part, TextPart(block["text"], metadata={"anthropic.citations": block["citations"]} if "citations" in block else {}))
        kinds = [c["type"] for p in item.parts for c in p.metadata.get("anthropic.citations", ())]
        self.assertEqual(kinds, ["page_location", "char_location", "content_block_location", "web_search_result_location"])
        self.assertEqual(item.text_content(), "".join(b["text"] for b in response["content"]))

    def test_parallel_tool_calls(self) -> None:
        response = load("messages.parallel_tool_use.response.json")
        item = adapter.items_from_response(response)[0]
        calls = [p for p in item.parts if isinstance(p, ToolCallPart)]
        self.assertEqual(
            calls,
            [ToolCallPart(ToolCallId(b["id"]), b["name"], b["input"]) for b in response["content"][1:]],
        )
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)

    def test_refusal(self) -> None:
        response = load("messages.refusal.response.json")
        item = adapter.items_from_response(response)[0]
        self.assertEqual(item.parts, ())
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata["anthropic.stop_reason"], "refusal")
        self.assertEqual(item.metadata["anthropic.stop_details"], response["stop_details"])

    def test_usage_counts_cache_traffic_as_input(self) -> None:
        item = adapter.items_from_response(load("messages.prompt_cache_hit.response.json"))[0]
        self.assertIsNotNone(item.usage and item.usage.tokens)
        tokens = item.usage.tokens
        self.assertEqual(tokens.input_tokens, 3 + 1111 + 418)
        self.assertEqual(tokens.cached_input_tokens, 1111)
        self.assertEqual(tokens.cache_write_input_tokens, 418)
        self.assertEqual(tokens.output_tokens, 33)
        self.assertIsNone(tokens.reasoning_tokens)
        self.assertEqual(item.usage.metadata["anthropic.usage"]["cache_creation"], {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 418})
        # No cache fields reported: the breakdowns stay unknown, not zero.
        refusal = adapter.items_from_response(load("messages.refusal.response.json"))[0]
        self.assertIsNotNone(refusal.usage and refusal.usage.tokens)
        self.assertEqual((refusal.usage.tokens.input_tokens, refusal.usage.tokens.cached_input_tokens), (20, None))

    def test_every_stop_reason_maps_and_stays_raw(self) -> None:
        expected = {
            "end_turn": FinishReason.COMPLETED,
            "stop_sequence": FinishReason.COMPLETED,
            "tool_use": FinishReason.TOOL_CALL,
            "max_tokens": FinishReason.MAX_TOKENS,
            "model_context_window_exceeded": FinishReason.MAX_TOKENS,
            "refusal": FinishReason.BLOCKED,
            "pause_turn": FinishReason.other("pause_turn"),
            "a_reason_from_the_future": FinishReason.other("a_reason_from_the_future"),
        }
        base = load("messages.prompt_cache_hit.response.json")
        for raw, reason in expected.items():
            with self.subTest(raw):
                item = adapter.items_from_response({**base, "stop_reason": raw})[0]
                self.assertEqual(item.finish_reason, reason)
                self.assertEqual(item.metadata["anthropic.stop_reason"], raw)
                self.assertEqual(adapter.finish_reason(raw), reason)
        self.assertIsNone(adapter.finish_reason(None))

    def test_unknown_blocks_and_fields_survive(self) -> None:
        response = load("messages.prompt_cache_hit.response.json")
        future_block = {"type": "hologram", "frames": [1, 2], "id": "holo_1"}
        response["content"] = [{**response["content"][0], "sparkle": {"level": 3}}, future_block]
        response["context_management"] = {"applied_edits": []}
        item = adapter.items_from_response(response)[0]
        self.assertEqual(item.parts[0].metadata["anthropic.sparkle"], {"level": 3})
        self.assertEqual(item.parts[1], CustomPart("anthropic.hologram", value=future_block))
        self.assertEqual(item.metadata["anthropic.context_management"], {"applied_edits": []})
        self.assertEqual(adapter.request_from_items([item])["messages"][0]["content"], response["content"])


class StreamTests(unittest.TestCase):
    def test_every_stream_agrees_with_its_accumulated_message(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                events = load_events(name)
                expected = adapter.items_from_response(accumulate(events))[0]
                item = streamed_item(events)
                self.assertEqual(item, expected)
                self.assertEqual(canonical(item.to_dict()), canonical(expected.to_dict()))
                self.assertEqual(adapter.item_from_stream(events), expected)

    def test_synthetic_streams_of_every_response_agree(self) -> None:
        for name in files(".response.json"):
            response = load(name)
            for size, interleave in ((1, False), (5, False), (3, True)):
                with self.subTest(name, size=size, interleave=interleave):
                    events = synthetic_stream(response, size, interleave)
                    self.assertEqual(canonical(accumulate(events)), canonical(response))  # the generator is faithful
                    self.assertEqual(streamed_item(events), adapter.items_from_response(response)[0])

    def test_recorded_response_and_its_stream_give_the_same_parts(self) -> None:
        response = adapter.items_from_response(load("messages.thinking_text_tool_use.response.json"))[0]
        streamed = streamed_item(load_events("messages.thinking_text_tool_use.reconstructed.stream.jsonl"))
        self.assertEqual(streamed.parts, response.parts)
        self.assertEqual((streamed.id, streamed.finish_reason, streamed.metadata), (response.id, response.finish_reason, response.metadata))
        self.assertEqual(streamed.usage.tokens, response.usage.tokens)

    def test_delta_shape_of_a_text_and_tool_use_stream(self) -> None:
        deltas = list(adapter.deltas_from_stream(load_events("messages.text_tool_use.stream.jsonl")))
        p0, p1 = PartId("part-0"), PartId("part-1")
        self.assertEqual(deltas[:3], [BeginPart(p0, PartKind.TEXT), AppendText(p0, "I"), AppendText(p0, "'ll check the current weather in Paris for you.")])
        self.assertEqual(deltas[3], CommitPart(TextPart("I'll check the current weather in Paris for you."), part_id=p0))
        header = {"agentkit.tool_call_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn", "agentkit.tool_name": "get_weather"}
        self.assertEqual(deltas[4:6], [BeginPart(p1, PartKind.TOOL_CALL), SetMetadata(p1, {"anthropic.caller": {"type": "direct"}, **header})])
        # While the input streams, the snapshot already names the call (the fold reads the header keys).
        [open_call] = fold_all((), deltas[:7]).snapshot()[1:]
        self.assertEqual((open_call.id, open_call.name), (ToolCallId("toolu_01NRLabsLyVHZPKxbKvkfSMn"), "get_weather"))
        self.assertEqual(open_call.metadata, {"anthropic.caller": {"type": "direct"}, "agentkit.input_json": '{"locati'})
        fragments = [d.chunk for d in deltas if isinstance(d, AppendText) and d.part_id == p1]
        self.assertEqual(fragments, ['{"locati', 'on": "P', "ar", 'is"}'])  # the empty first fragment is skipped
        call = ToolCallPart(ToolCallId("toolu_01NRLabsLyVHZPKxbKvkfSMn"), "get_weather", {"location": "Paris"}, metadata={"anthropic.caller": {"type": "direct"}})
        self.assertEqual(deltas[-1], CommitPart(call, part_id=p1))
        self.assertEqual(len(deltas), 11)

    def test_open_parts_show_progress(self) -> None:
        events = load_events("messages.server_and_client_tool_use.stream.jsonl")
        decoder, state = adapter.stream_decoder(), FoldState()
        seen_args, seen_text = [], []
        for event in events:
            for delta in decoder.feed(event):
                state = fold(state, delta)
                for part in state.snapshot()[len(state.parts) :]:
                    if isinstance(part, ToolCallPart) and "agentkit.input_json" in part.metadata:
                        seen_args.append(part.metadata["agentkit.input_json"])
                    if isinstance(part, TextPart):
                        seen_text.append(part.text)
        self.assertEqual(seen_args[0], '{"from_')
        self.assertEqual(seen_args[-1], '{"from_currency": "USD", "to_currency": "EUR"}')
        self.assertIn("Let", seen_text)
        final = decoder.finish(state.parts)
        self.assertEqual(final.parts[-1].input, {"from_currency": "USD", "to_currency": "EUR"})
        # The server tool block shows what it is while its input streams, and commits verbatim.
        server = accumulate(events)["content"][1]
        self.assertEqual(final.parts[1], CustomPart("anthropic.server_tool_use", value=server))
        self.assertEqual(final.parts[2].kind, "anthropic.tool_search_tool_result")

    def test_blocks_delivered_whole_are_committed_without_appends(self) -> None:
        deltas = list(adapter.deltas_from_stream(load_events("messages.redacted_thinking.stream.jsonl")))
        p0 = PartId("part-0")
        self.assertEqual(deltas[0], BeginPart(p0, PartKind.REASONING))
        self.assertIsInstance(deltas[1], CommitPart)
        self.assertEqual(deltas[1].part_id, p0)
        self.assertTrue(deltas[1].part.redacted)
        server = list(adapter.deltas_from_stream(load_events("messages.thinking_server_tool.stream.jsonl")))
        p3 = PartId("part-3")
        at = server.index(BeginPart(p3, PartKind.CUSTOM))
        self.assertIsInstance(server[at + 1], ReplaceStructured)
        self.assertEqual(server[at + 2], SetMetadata(p3, {"agentkit.custom_kind": "anthropic.bash_code_execution_tool_result"}))
        self.assertEqual(server[at + 3].part_id, p3)
        self.assertIsInstance(server[at + 3], CommitPart)

    def test_signature_after_an_empty_thinking_delta(self) -> None:
        events = load_events("messages.thinking_text.stream.jsonl")
        signature = next(e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta")
        deltas = list(adapter.deltas_from_stream(events))
        self.assertFalse(any(isinstance(d, AppendText) and d.chunk == "" for d in deltas))
        reasoning = streamed_item(events).parts[0]
        self.assertIsInstance(reasoning, ReasoningPart)
        self.assertEqual(reasoning.data, InlineText(signature))
        self.assertTrue(reasoning.summary and reasoning.summary.startswith("This is a straightforward question"))

    def test_message_delta_carries_container_stop_details_and_cumulative_usage(self) -> None:
        item = streamed_item(load_events("messages.thinking_server_tool.stream.jsonl"))
        self.assertEqual(item.metadata["anthropic.container"], {"id": "container_011CaNRFAbjdPf4rmBarZzqQ", "expires_at": "2026-04-24T11:13:36.730129Z"})
        self.assertIsNone(item.metadata["anthropic.stop_details"])
        self.assertIsNotNone(item.usage and item.usage.tokens)
        self.assertEqual((item.usage.tokens.input_tokens, item.usage.tokens.output_tokens), (4714, 304))
        raw = item.usage.metadata["anthropic.usage"]
        self.assertEqual(raw["server_tool_use"], {"web_search_requests": 0, "web_fetch_requests": 0})
        self.assertEqual(raw["service_tier"], "standard")  # from message_start, kept

    def test_usage_fields_a_message_delta_leaves_null_keep_their_start_value(self) -> None:
        events = load_events("messages.text_tool_use.stream.jsonl")
        events[-2] = {**events[-2], "usage": {"input_tokens": None, "cache_read_input_tokens": 7, "output_tokens": 65}}
        item = streamed_item(events)
        self.assertEqual(item.usage.metadata["anthropic.usage"]["input_tokens"], 377)
        self.assertEqual(item.usage.tokens.input_tokens, 377 + 7)
        self.assertEqual(item, adapter.items_from_response(accumulate(events))[0])

    def test_malformed_tool_input_is_kept_not_raised(self) -> None:
        response = load("messages.parallel_tool_use.response.json")
        events = synthetic_stream(response)
        bad = next(e for e in events if e["type"] == "content_block_delta" and e["delta"].get("partial_json"))
        bad["delta"]["partial_json"] = '{"name": '
        index = bad["index"]
        events = [e for e in events if not (e.get("index") == index and e["type"] == "content_block_delta" and e is not bad)]
        part = streamed_item(events).parts[index]
        self.assertIsInstance(part, ToolCallPart)
        self.assertIsNone(part.input)
        self.assertEqual(part.metadata["agentkit.input_json"], '{"name": ')
        self.assertIn("agentkit.input_error", part.metadata)

    def test_error_event_ends_the_turn_with_error(self) -> None:
        events = load_events("messages.text_tool_use.stream.jsonl")[:5]
        error = {"type": "overloaded_error", "message": "Overloaded"}
        decoder, state = adapter.stream_decoder(), FoldState()
        for event in events + [{"type": "error", "error": error}]:
            state = fold_all(state, decoder.feed(event))
        item = decoder.finish(state.snapshot())
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata["anthropic.error"], error)
        self.assertEqual(item.parts, (TextPart("I'll check the current weather in Paris for you."),))

    def test_delta_for_a_block_never_started_is_an_error(self) -> None:
        with self.assertRaises(NormalizeError):
            adapter.stream_decoder().feed({"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "x"}})

    def test_recorded_sse_bodies_are_the_jsonl_events(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                with open(os.path.join(HERE, name), encoding="utf-8") as f:
                    parsed = list(parse_sse(f.read()))
                events = load_events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertEqual([data for _, data in parsed], events)
                self.assertTrue(all(event == data["type"] for event, data in parsed))


class RequestTests(unittest.TestCase):
    def test_every_request_transcript_rebuilds_exactly(self) -> None:
        for name in files(".request.json"):
            with self.subTest(name):
                request = load(name)
                items = adapter.items_from_request(request)
                self.assertEqual(canonical(adapter.request_from_items(items)), canonical(transcript(request)))
                stored = [Item.from_dict(json.loads(json.dumps(i.to_dict()))) for i in items]
                self.assertEqual(canonical(adapter.request_from_items(stored)), canonical(transcript(request)))

    def test_followup_after_thinking_and_a_tool_call(self) -> None:
        followup = load("messages.thinking_tool_result_followup.request.json")
        response = load("messages.thinking_text_tool_use.response.json")
        streamed = streamed_item(load_events("messages.thinking_text_tool_use.reconstructed.stream.jsonl"))
        for assistant in (adapter.items_from_response(response)[0], streamed):
            with self.subTest(streamed=assistant is streamed):
                call = assistant.parts[-1]
                self.assertIsInstance(call, ToolCallPart)
                items = adapter.items_from_request(load("messages.thinking_text_tool_use.request.json"))
                items += [assistant, Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("Mexico"))])]
                rebuilt = adapter.request_from_items(items)
                self.assertEqual(canonical(rebuilt), canonical(transcript(followup)))
                self.assertEqual(rebuilt["messages"][1]["content"][0]["signature"], response["content"][0]["signature"])

    def test_followup_echoes_redacted_thinking(self) -> None:
        followup = load("messages.redacted_thinking.followup.request.json")
        items = adapter.items_from_request({"messages": followup["messages"][:1]})
        items += adapter.items_from_response(load("messages.redacted_thinking.response.json"))
        items.append(Item.text(ItemKind.USER, "What was that?"))
        self.assertEqual(canonical(adapter.request_from_items(items)), canonical(transcript(followup)))

    def test_followup_with_parallel_tool_results(self) -> None:
        followup = load("messages.parallel_tool_results.request.json")
        items = adapter.items_from_request({"system": followup["system"], "messages": followup["messages"][:1]})
        assistant = adapter.items_from_response(load("messages.parallel_tool_use.response.json"))[0]
        answers = ["alice is bob's wife", "bob is alice's husband", "charlie is alice's son", "daisy is bob's daughter and charlie's younger sister"]
        calls = [p for p in assistant.parts if isinstance(p, ToolCallPart)]
        results = [ToolResultPart.success(c.id, TextOutput(a)) for c, a in zip(calls, answers)]
        items += [assistant, Item(ItemKind.TOOL, results)]
        self.assertEqual(canonical(adapter.request_from_items(items)), canonical(transcript(followup)))

    def test_followup_with_an_error_result(self) -> None:
        followup = load("messages.tool_result_is_error.request.json")
        last = followup["messages"][-1]["content"][0]
        items = adapter.items_from_request({"messages": followup["messages"][:-1]})
        items.append(Item(ItemKind.TOOL, [ToolResultPart.error(ToolCallId(last["tool_use_id"]), TextOutput(last["content"]))]))
        self.assertEqual(canonical(adapter.request_from_items(items)), canonical(transcript(followup)))

    def test_tool_results_with_mixed_content_and_trailing_text(self) -> None:
        request = load("messages.tool_results_mixed.request.json")
        tool = adapter.items_from_request(request)[-1]
        self.assertIs(tool.kind, ItemKind.TOOL)
        chart, weather, stock, trailing = tool.parts
        png = base64.b64decode(request["messages"][2]["content"][0]["content"][1]["source"]["data"])
        self.assertEqual(
            chart,
            ToolResultPart(
                ToolCallId("toolu_01XBL6B2Z996VStAuNCQapHS"),
                PartsOutput((TextPart("Chart rendered:"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(png)))),
                metadata={"anthropic.omitted": ["is_error"]},
            ),
        )
        self.assertTrue(weather.is_error)
        self.assertEqual(weather.output, TextOutput("ConnectionError: the weather service API is not available (HTTP 500)"))
        self.assertEqual(stock.metadata["anthropic.cache_control"], {"type": "ephemeral"})
        self.assertEqual(stock.output, PartsOutput((FilePart(InlineText("AAPL 227.48 USD"), mime_type="text/plain"),)))
        self.assertEqual(trailing, TextPart("Summarise what you got."))

    def test_images_and_documents(self) -> None:
        request = load("messages.image_and_documents.request.json")
        system, user = adapter.items_from_request(request)
        self.assertEqual(system.parts, (TextPart(request["system"][0]["text"], metadata={"anthropic.cache_control": {"type": "ephemeral"}}),))
        blocks = request["messages"][0]["content"]
        png, url_image, pdf, url_pdf, text_doc, chunks, question = user.parts
        self.assertEqual(png, MediaPart(Modality.IMAGE, "image/png", InlineBytes(base64.b64decode(blocks[0]["source"]["data"]))))
        self.assertTrue(png.data.value.startswith(b"\x89PNG"))
        self.assertEqual(url_image, MediaPart(Modality.IMAGE, "image/*", Uri(blocks[1]["source"]["url"])))
        self.assertIsInstance(pdf, FilePart)
        self.assertEqual((pdf.name, pdf.mime_type), ("Q3 revenue sheet", "application/pdf"))
        self.assertTrue(pdf.data.value.startswith(b"%PDF"))
        self.assertEqual(
            dict(pdf.metadata),
            {"anthropic.context": "Internal draft, not audited", "anthropic.citations": {"enabled": True}, "anthropic.cache_control": {"type": "ephemeral", "ttl": "1h"}},
        )
        self.assertEqual(url_pdf, FilePart(Uri("https://pdfobject.com/pdf/sample.pdf"), mime_type="application/pdf"))
        self.assertEqual(text_doc, FilePart(InlineText("Dummy TXT file\n"), name="notes.txt", mime_type="text/plain", metadata={"anthropic.citations": {"enabled": True}}))
        self.assertEqual(chunks, CustomPart("anthropic.document", value=blocks[5]))
        self.assertEqual(question, TextPart(blocks[6]["text"]))

    def test_string_content_stays_a_string(self) -> None:
        request = load("messages.parallel_tool_results.request.json")
        system = adapter.items_from_request(request)[0]
        self.assertEqual(system.text_content(), request["system"])
        self.assertEqual(system.metadata["anthropic.string_content"], True)
        plain = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
        items = adapter.items_from_request(plain)
        self.assertEqual([i.text_content() for i in items], ["hi", "hello"])
        self.assertEqual(adapter.request_from_items(items), plain)
        # Without the marker a neutral transcript is sent as blocks.
        self.assertEqual(
            adapter.request_from_items([Item.text(ItemKind.SYSTEM, "be brief"), Item.text(ItemKind.USER, "hi")]),
            {"system": [{"type": "text", "text": "be brief"}], "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
        )

    def test_message_fields_echo_but_response_fields_do_not(self) -> None:
        request = {"messages": [{"role": "user", "content": "hi", "future_field": 1}]}
        self.assertEqual(adapter.request_from_items(adapter.items_from_request(request)), request)
        response = load("messages.prompt_cache_hit.response.json")
        rebuilt = adapter.request_from_items(adapter.items_from_response(response))
        self.assertEqual(set(rebuilt["messages"][0]), {"role", "content"})

    def test_a_neutral_transcript_encodes(self) -> None:
        call = ToolCallPart(ToolCallId("toolu_1"), "ls", {"path": "."})
        items = [
            Item.text(ItemKind.DEVELOPER, "Answer in French."),
            Item.text(ItemKind.USER, "List the files."),
            Item(ItemKind.ASSISTANT, [call]),
            Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("a.txt"))]),
        ]
        self.assertEqual(
            adapter.request_from_items(items),
            {
                "system": [{"type": "text", "text": "Answer in French."}],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "List the files."}]},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt", "is_error": False}]},
                ],
            },
        )

    def test_content_the_api_cannot_take_is_refused(self) -> None:
        refused = [
            MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF")),
            CustomPart("openai.web_search_call", value={"type": "web_search_call"}),
            FilePart(Handle(ArtifactId("art-1")), mime_type="application/pdf"),
            ReasoningPart(None, redacted=True),
        ]
        for part in refused:
            with self.subTest(part=type(part).__name__):
                with self.assertRaises(NormalizeError):
                    adapter.request_from_items([Item(ItemKind.USER, [part])])


class ShapeTests(unittest.TestCase):
    def test_module_is_a_provider_adapter(self) -> None:
        from agentkit_core import ProviderAdapter

        def accepts(a: ProviderAdapter[dict[str, Any], dict[str, Any]]) -> bool:
            return callable(a.items_from_response) and callable(a.request_from_items) and callable(a.stream_decoder)

        self.assertTrue(accepts(adapter))
        decoder = adapter.stream_decoder()
        self.assertEqual(decoder.feed({"type": "ping"}), [])
        self.assertIsInstance(decoder.finish(()), Item)


if __name__ == "__main__":
    unittest.main()
