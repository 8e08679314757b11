"""The Anthropic projection (agentkit_core.providers.anthropic) on recorded and documented traffic.

What it proves, over every file of tests/payloads/anthropic and over payloads
shaped like the SDK's types for what the recordings do not show:

* responses decode into one assistant item whose parts keep everything the
  blocks held (signatures byte-exact and marked as Anthropic's, redacted data,
  citations of every type, server tool blocks, future blocks), and that item
  echoes back as the very content blocks it came from;
* every stream (``.stream.jsonl``, and ``.sse.txt`` through ``events_from_sse``),
  decoded and folded, closes every part and gives the item the non-streaming
  path gives for the message the SDK would accumulate, with the live usage and
  finish reason while it runs and text that only grows;
* every request's ``system``/``messages`` is rebuilt exactly from its items,
  and every follow-up request from the items of the conversation so far;
* another provider's reasoning and server tools are dropped, not sent;
* bad input of any shape gives ``NormalizeError`` and nothing else.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import unittest
from functools import partial
from typing import Any, Callable

from agentkit_core import (
    FINISH_REASON_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    STREAM_CUT_KEY,
    TOOL_NAME_KEY,
    AppendText,
    ArtifactId,
    BeginPart,
    CommitPart,
    CustomPart,
    FilePart,
    FilesOutput,
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
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    fold,
    fold_all,
)
from agentkit_core.providers import anthropic as adapter
from agentkit_core.providers._common import streams as _streams
from tests import recorded
from tests.mutation import mutate, mutate_stream, outcome
from tests.recorded import stored

JsonDict = dict[str, Any]

load = partial(recorded.load, "anthropic")
load_events = partial(recorded.load_events, "anthropic")
files = partial(recorded.names, "anthropic")


def canonical(value: Any) -> str:
    """JSON text with sorted keys: equality that also tells ``false`` from ``0``."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def transcript(request: JsonDict) -> JsonDict:
    return {k: request[k] for k in ("system", "messages") if k in request}


def without_empty_text(blocks: list[JsonDict]) -> list[JsonDict]:
    return [b for b in blocks if b != {"type": "text", "text": ""}]


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
            elif delta["type"] == "compaction_delta":  # the summary grows; the state to send back is the last one
                if delta.get("content") is not None:
                    block["content"] = (block.get("content") or "") + delta["content"]
                if delta.get("encrypted_content") is not None:
                    block["encrypted_content"] = delta["encrypted_content"]
        elif kind == "content_block_stop" and buffers.get(event["index"]):
            # The SDK parses the partial JSON after every fragment; the last parse is this one.
            message["content"][event["index"]]["input"] = json.loads(buffers[event["index"]])
        elif kind == "message_delta":
            message.update(copy.deepcopy(event["delta"]))
            for key, value in event.get("usage", {}).items():
                if value is not None:
                    message["usage"][key] = copy.deepcopy(value)
            for key in ("context_management", "input_transformations"):
                if key in event:
                    message[key] = copy.deepcopy(event[key])
        if kind != "message_start":  # the SDK merges an event's undeclared fields into the message
            for key, value in event.items():
                if key not in DECLARED.get(kind, ("type",)):
                    message[key] = deep_merge(message[key], value) if key in message else copy.deepcopy(value)
    return message


#: The fields each stream event type declares (the SDK's event models); the others are extras.
DECLARED = {
    "content_block_start": ("type", "index", "content_block"),
    "content_block_delta": ("type", "index", "delta"),
    "content_block_stop": ("type", "index"),
    "message_delta": ("type", "delta", "usage", "context_management", "input_transformations"),
    "ping": ("type",),
    "error": ("type", "error", "request_id"),
}


def deep_merge(old: Any, new: Any) -> Any:
    """The SDK's merge of extra fields: objects key by key, lists extended, other values replaced."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **{k: deep_merge(old[k], v) if k in old else copy.deepcopy(v) for k, v in new.items()}}
    if isinstance(old, list) and isinstance(new, list):
        return old + copy.deepcopy(new)
    return copy.deepcopy(new)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def synthetic_stream(message: JsonDict, size: int = 7, interleave: bool = False) -> list[JsonDict]:
    """The events the API would send for ``message``, in the grammar of the recorded streams.

    Text and thinking arrive in ``size``-character deltas (thinking ends with an
    empty ``thinking_delta`` and one ``signature_delta``), citations one
    ``citations_delta`` each, tool input as ``input_json_delta`` fragments
    starting with ``""``, a compaction's summary in one ``compaction_delta``;
    other blocks whole in ``content_block_start``.  With
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
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            first = {**block, "input": {}}
            raw = json.dumps(block["input"]) if block["input"] else ""
            pieces = [{"type": "input_json_delta", "partial_json": t} for t in [""] + _chunks(raw, size)]
        elif kind == "compaction":
            first = {**block, "content": None, "encrypted_content": None}
            pieces = [{"type": "compaction_delta", "content": block["content"], "encrypted_content": block["encrypted_content"]}]
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


def run_stream(events: list[JsonDict], watch: Callable[[adapter.AnthropicStreamDecoder, FoldState], None] | None = None) -> tuple[Item, FoldState]:
    """Feed and fold every event (calling ``watch`` after each); the finished item and the last state."""
    decoder = adapter.stream_decoder()
    state = FoldState()
    for event in events:
        state = fold_all(state, decoder.feed(event))
        if watch is not None:
            watch(decoder, state)
    return decoder.finish(state.parts), state


def streamed_item(events: list[JsonDict]) -> Item:
    item, state = run_stream(events)
    if state.is_open:
        raise AssertionError(state)
    return item


def message(content: list[JsonDict], **fields: Any) -> JsonDict:
    """A ``Message`` body around ``content``, shaped like the SDK's ``types/message.py``."""
    body = {
        "id": "msg_01DocumentedShapes",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    body.update(fields)
    return body


# -- blocks the recordings do not show, shaped like anthropic-sdk-python src/anthropic/types/ ---------------

CALLER = {"type": "direct"}
SERVER_BLOCKS: list[JsonDict] = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather Paris"}, "caller": CALLER},
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "caller": CALLER,
        "content": [
            {"type": "web_search_result", "url": "https://example.com/w", "title": "Weather", "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "April 30, 2025"}
        ],
    },
    {"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch", "input": {"url": "https://example.com/a.pdf"}, "caller": CALLER},
    {
        "type": "web_fetch_tool_result",
        "tool_use_id": "srvtoolu_02",
        "caller": CALLER,
        "content": {
            "type": "web_fetch_result",
            "url": "https://example.com/a.pdf",
            "retrieved_at": "2025-08-25T10:30:02Z",
            "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hello"}, "title": "a", "citations": None},
        },
    },
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_03", "content": {"type": "code_execution_result", "stdout": "4\n", "stderr": "", "return_code": 0, "content": []}},
    {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_04",
        "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "", "return_code": 0, "content": [{"type": "bash_code_execution_output", "file_id": "file_011"}]},
    },
    {
        "type": "text_editor_code_execution_tool_result",
        "tool_use_id": "srvtoolu_05",
        "content": {"type": "text_editor_code_execution_view_result", "file_type": "text", "content": "x = 1\n", "num_lines": 1, "start_line": 1, "total_lines": 1},
    },
    {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_06",
        "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]},
    },
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_07", "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
    {"type": "container_upload", "file_id": "file_012"},
    {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "echo", "server_name": "example", "input": {"text": "hi"}},
    {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": False, "content": [{"type": "text", "text": "hi"}]},
]

CITATIONS: list[JsonDict] = [
    {"type": "char_location", "cited_text": "grass is green", "document_index": 0, "document_title": "Facts", "start_char_index": 0, "end_char_index": 14, "file_id": None},
    {"type": "page_location", "cited_text": "Revenue", "document_index": 1, "document_title": None, "start_page_number": 1, "end_page_number": 2},
    {"type": "content_block_location", "cited_text": "chunk", "document_index": 2, "document_title": "Chunks", "start_block_index": 0, "end_block_index": 1},
    {"type": "web_search_result_location", "cited_text": "sunny", "url": "https://example.com/w", "title": "Weather", "encrypted_index": "Eo8BCioIAhgB"},
    {"type": "search_result_location", "cited_text": "kb", "search_result_index": 0, "source": "https://kb.example/1", "title": "KB", "start_block_index": 0, "end_block_index": 1},
]

FILE_SOURCES: list[JsonDict] = [
    {"type": "document", "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}, "title": "Uploaded"},
    {"type": "image", "source": {"type": "file", "file_id": "file_011CPMxVD3fHLUhvTqtsQA5w"}},
    {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "first chunk"}]}},
    {"type": "document", "source": {"type": "content", "content": "one string"}},
    {"type": "search_result", "source": "https://kb.example/1", "title": "KB", "content": [{"type": "text", "text": "kb"}], "citations": {"enabled": True}},
    {"type": "image", "source": {"type": "url", "url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "document", "source": {"type": "base64", "media_type": "application/msword", "data": "AAAA"}},
    {"type": "mid_conv_system", "content": [{"type": "text", "text": "Be brief from now on."}]},
]


class ResponseTests(unittest.TestCase):
    def test_every_response_is_one_assistant_item(self) -> None:
        expected_kind = {"text": TextPart, "thinking": ReasoningPart, "redacted_thinking": ReasoningPart, "tool_use": ToolCallPart}
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                [item] = adapter.items_from_response(response)
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                self.assertEqual(item.id, MessageId(response["id"]))
                self.assertEqual(item.metadata["anthropic.model"], response["model"])
                self.assertEqual(item.metadata[FINISH_REASON_KEY], response["stop_reason"])
                self.assertEqual(item.metadata["anthropic.type"], "message")
                self.assertEqual(item.usage.metadata["anthropic.usage"], response["usage"])
                self.assertEqual(len(item.parts), len(without_empty_text(response["content"])))
                for part, block in zip(item.parts, response["content"]):
                    self.assertIsInstance(part, expected_kind.get(block["type"], CustomPart))
                self.assertEqual(stored(item), item)

    def test_assistant_turn_echoes_back_verbatim(self) -> None:
        messages = [load(n) for n in files(".response.json")]
        messages += [accumulate(load_events(n)) for n in files(".stream.jsonl")]
        messages.append(message(SERVER_BLOCKS + [{"type": "text", "text": "Done.", "citations": CITATIONS}]))
        for native in messages:
            with self.subTest(native["id"]):
                [item] = adapter.items_from_response(native)
                rebuilt = adapter.request_from_items([item])
                content = without_empty_text(native["content"])
                expected = {"messages": [{"role": "assistant", "content": content}] if content else []}
                self.assertEqual(canonical(rebuilt), canonical(expected))
                # ... also after the item went through the reference JSON (a stored transcript).
                self.assertEqual(canonical(adapter.request_from_items([stored(item)])), canonical(rebuilt))

    def test_thinking_signature_is_byte_exact_and_marked_as_anthropics(self) -> None:
        response = load("messages.thinking_text_tool_use.response.json")
        part = adapter.items_from_response(response)[0].parts[0]
        self.assertIsInstance(part, ReasoningPart)
        self.assertEqual(part.summary, response["content"][0]["thinking"])
        self.assertEqual(part.data, InlineText(response["content"][0]["signature"]))
        self.assertFalse(part.redacted)
        self.assertEqual(dict(part.metadata), {PROVIDER_KEY: "anthropic"})

    def test_redacted_thinking_keeps_its_data(self) -> None:
        response = load("messages.redacted_thinking.response.json")
        part = adapter.items_from_response(response)[0].parts[0]
        self.assertEqual(part, ReasoningPart(None, data=InlineText(response["content"][0]["data"]), redacted=True, metadata={PROVIDER_KEY: "anthropic"}))

    def test_citations_of_every_kind_stay_on_their_text(self) -> None:
        response = load("messages.citations.response.json")
        item = adapter.items_from_response(response)[0]
        for part, block in zip(item.parts, response["content"]):
            self.assertEqual(part, TextPart(block["text"], metadata={"anthropic.citations": block["citations"]} if "citations" in block else {}))
        kinds = [c["type"] for p in item.parts for c in p.metadata.get("anthropic.citations", ())]
        self.assertEqual(kinds, ["page_location", "char_location", "content_block_location", "web_search_result_location"])
        self.assertEqual(item.text_content(), "".join(b["text"] for b in response["content"]))
        # The documented types the recording lacks (search_result_location) are carried the same way.
        [documented] = adapter.items_from_response(message([{"type": "text", "text": "cited", "citations": CITATIONS}]))[0].parts
        self.assertEqual(documented, TextPart("cited", metadata={"anthropic.citations": CITATIONS}))

    def test_parallel_tool_calls(self) -> None:
        response = load("messages.parallel_tool_use.response.json")
        item = adapter.items_from_response(response)[0]
        calls = [p for p in item.parts if isinstance(p, ToolCallPart)]
        self.assertEqual(calls, [ToolCallPart(ToolCallId(b["id"]), b["name"], b["input"]) for b in response["content"][1:]])
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)

    def test_refusal_is_one_blocked_item_with_usage_and_the_raw_reason(self) -> None:
        response = load("messages.refusal.response.json")
        [item] = adapter.items_from_response(response)
        self.assertEqual(item.parts, ())
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "refusal")
        self.assertEqual(item.metadata["anthropic.stop_details"], response["stop_details"])
        self.assertEqual((item.usage.tokens.input_tokens, item.usage.tokens.output_tokens), (20, 0))

    def test_after_a_refusal_the_conversation_goes_on_without_an_empty_message(self) -> None:
        """The API refuses an empty message, so the refusal's item (no parts) is not sent back."""
        for refusal in (adapter.items_from_response(load("messages.refusal.response.json"))[0], streamed_item(load_events("messages.refusal.stream.jsonl"))):
            with self.subTest(streamed=refusal.id is None):
                items = [Item.text(ItemKind.USER, "How do I pick a lock?"), refusal, Item.text(ItemKind.USER, "How do locks work?")]
                self.assertEqual([m["role"] for m in adapter.request_from_items(items)["messages"]], ["user", "user"])

    def test_usage_counts_cache_traffic_as_input(self) -> None:
        item = adapter.items_from_response(load("messages.prompt_cache_hit.response.json"))[0]
        tokens = item.usage.tokens
        self.assertEqual(tokens.input_tokens, 3 + 1111 + 418)
        self.assertEqual(tokens.cached_input_tokens, 1111)
        self.assertEqual(tokens.cache_write_input_tokens, 418)
        self.assertEqual(tokens.output_tokens, 33)
        self.assertIsNone(tokens.reasoning_tokens)
        self.assertEqual(item.usage.metadata["anthropic.usage"]["cache_creation"], {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 418})
        # No cache fields reported: the breakdowns stay unknown, not zero.
        refusal = adapter.items_from_response(load("messages.refusal.response.json"))[0]
        self.assertEqual((refusal.usage.tokens.input_tokens, refusal.usage.tokens.cached_input_tokens), (20, None))

    def test_thinking_tokens_are_the_reasoning_tokens_output_includes(self) -> None:
        """Newer models report how many output tokens were thinking (pydantic/pydantic-ai
        tests/models/cassettes/test_anthropic/test_anthropic_opus_5_features.yaml, in
        messages.thinking_tokens.response.json); a stream's message_delta reports it the same way."""
        native = load("messages.thinking_tokens.response.json")
        for item in (adapter.items_from_response(native)[0], streamed_item(synthetic_stream(native))):
            with self.subTest(streamed=item.id is None):
                tokens = item.usage.tokens
                self.assertEqual((tokens.output_tokens, tokens.reasoning_tokens), (44, 33))
                self.assertEqual(item.usage.metadata["anthropic.usage"]["output_tokens_details"], {"thinking_tokens": 33})
        # Details that are not a count stay unknown, as other counts that are not counts do.
        broken = {**native, "usage": {**native["usage"], "output_tokens_details": {"thinking_tokens": "33"}}}
        self.assertIsNone(adapter.items_from_response(broken)[0].usage.tokens.reasoning_tokens)

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
                self.assertEqual(item.metadata[FINISH_REASON_KEY], raw)
                self.assertNotIn("anthropic.stop_reason", item.metadata)
                self.assertEqual(adapter.finish_reason(raw), reason)
        self.assertIsNone(adapter.finish_reason(None))
        unfinished = adapter.items_from_response({**base, "stop_reason": None})[0]
        self.assertIsNone(unfinished.finish_reason)
        self.assertNotIn(FINISH_REASON_KEY, unfinished.metadata)

    def test_an_error_body_is_an_item_that_ended_in_error(self) -> None:
        body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011"}
        [item] = adapter.items_from_response(body)
        self.assertEqual((item.kind, item.parts, item.finish_reason), (ItemKind.ASSISTANT, (), FinishReason.ERROR))
        self.assertEqual(item.metadata["anthropic.error"], body["error"])
        self.assertEqual(item.metadata["anthropic.request_id"], "req_011")
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "error")

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


class DocumentedBlockTests(unittest.TestCase):
    """Blocks the API documents that no recording shows: each decodes, streams and goes back as it came."""

    def test_server_tool_mcp_and_container_blocks_are_custom_parts_kept_verbatim(self) -> None:
        [item] = adapter.items_from_response(message(SERVER_BLOCKS))
        self.assertEqual(item.parts, tuple(CustomPart(f"anthropic.{b['type']}", value=b) for b in SERVER_BLOCKS))
        # The API runs these tools itself: nothing here is a call for the client to run.
        self.assertFalse(any(isinstance(p, (ToolCallPart, ToolResultPart)) for p in item.parts))

    def test_server_tool_blocks_stream_to_the_same_parts(self) -> None:
        native = message(SERVER_BLOCKS, stop_reason="pause_turn")
        for size, interleave in ((3, False), (2, True)):
            with self.subTest(size=size, interleave=interleave):
                events = synthetic_stream(native, size, interleave)
                self.assertEqual(canonical(accumulate(events)), canonical(native))
                item = streamed_item(events)
                self.assertEqual(item, adapter.items_from_response(native)[0])
                self.assertEqual(item.finish_reason, FinishReason.other("pause_turn"))

    def test_file_and_content_sources_search_results_and_data_urls_stay_blocks(self) -> None:
        request = {"messages": [{"role": "user", "content": FILE_SOURCES}]}
        [item] = adapter.items_from_request(request)
        self.assertEqual(item.parts, tuple(CustomPart(f"anthropic.{b['type']}", value=b) for b in FILE_SOURCES))
        self.assertEqual(adapter.request_from_items([item]), request)

    def test_document_sources_that_map(self) -> None:
        pdf = base64.b64encode(b"%PDF-1.4 tiny").decode()
        blocks = [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}, "title": None},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}, "context": "ctx"},
            {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}, "title": "A", "citations": {"enabled": True}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGRg=="}, "cache_control": {"type": "ephemeral"}},
        ]
        request = {"messages": [{"role": "user", "content": blocks}]}
        [item] = adapter.items_from_request(request)
        self.assertEqual(
            item.parts,
            (
                FilePart(InlineBytes(b"%PDF-1.4 tiny"), mime_type="application/pdf", metadata={"anthropic.title": None}),
                FilePart(InlineText("notes"), mime_type="text/plain", metadata={"anthropic.context": "ctx"}),
                FilePart(Uri("https://example.com/a.pdf"), name="A", mime_type="application/pdf", metadata={"anthropic.citations": {"enabled": True}}),
                MediaPart(Modality.IMAGE, "image/webp", InlineBytes(b"RIFF"), metadata={"anthropic.cache_control": {"type": "ephemeral"}}),
            ),
        )
        self.assertEqual(adapter.request_from_items([item]), request)

    def test_citations_delta_of_every_citation_type(self) -> None:
        native = message([{"type": "text", "text": "The grass is green.", "citations": CITATIONS}])
        events = synthetic_stream(native, size=4)
        decoder, state = adapter.stream_decoder(), FoldState()
        seen: list[int] = []
        for event in events:
            state = fold_all(state, decoder.feed(event))
            for part in state.snapshot():
                seen.append(len(part.metadata.get("anthropic.citations", ())))
        self.assertEqual(sorted(set(seen)), list(range(len(CITATIONS) + 1)))  # one more citation per delta
        self.assertEqual(decoder.finish(state.parts), adapter.items_from_response(native)[0])

    def test_a_compaction_streams_its_summary_and_encrypted_state(self) -> None:
        """The summary and its encrypted state arrive in a compaction_delta, not in content_block_start."""
        compaction = {"type": "compaction", "content": "The user asked about Paris; we found the weather.", "encrypted_content": "EqQBCkgIARABGAIiQL0p"}
        native = message([compaction, {"type": "text", "text": "It is sunny."}])
        events = synthetic_stream(native, size=4)
        self.assertIsNone(events[2]["content_block"]["content"])
        self.assertEqual(canonical(accumulate(events)), canonical(native))
        summaries: list[Any] = []

        def watch(decoder: adapter.AnthropicStreamDecoder, state: FoldState) -> None:
            summaries.extend(p.value["content"] for p in state.snapshot() if isinstance(p, CustomPart))

        item, _ = run_stream(events, watch)
        self.assertEqual(item, adapter.items_from_response(native)[0])
        self.assertEqual(item.parts[0], CustomPart("anthropic.compaction", value=compaction))
        self.assertEqual(summaries[0], None)
        self.assertEqual(summaries[-1], compaction["content"])  # shown as soon as its delta came
        self.assertEqual(adapter.request_from_items([item])["messages"][0]["content"], native["content"])

    def test_a_summary_in_several_compaction_deltas_is_joined(self) -> None:
        """A long summary comes in several compaction_delta events: each extends the summary, and the
        last encrypted state stands (the SDK's fixture compaction_multi_delta_response.txt, in
        messages.compaction_multi_delta.sse.txt: anthropics/anthropic-sdk-python tests/lib/streaming/fixtures)."""
        events = load_events("messages.compaction_multi_delta.stream.jsonl")
        pieces = [e["delta"] for e in events if e["type"] == "content_block_delta" and e["delta"]["type"] == "compaction_delta"]
        self.assertEqual(len(pieces), 2)
        summaries: list[Any] = []

        def watch(decoder: adapter.AnthropicStreamDecoder, state: FoldState) -> None:
            summaries.extend(p.value["content"] for p in state.snapshot() if isinstance(p, CustomPart))

        item, state = run_stream(events, watch)
        self.assertFalse(state.is_open)
        whole = {"type": "compaction", "content": pieces[0]["content"] + pieces[1]["content"], "encrypted_content": pieces[1]["encrypted_content"]}
        self.assertEqual(item.parts[0], CustomPart("anthropic.compaction", value=whole))
        shown = [s for i, s in enumerate(summaries) if i == 0 or s != summaries[i - 1]]
        self.assertEqual(shown, [None, pieces[0]["content"], whole["content"]])  # the summary only grows
        self.assertEqual(adapter.request_from_items([item])["messages"][0]["content"][0], whole)
        # A delta that carries no new state (null) keeps the state already there.
        late = [*events[:4], {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": " More.", "encrypted_content": None}}, *events[4:]]
        self.assertEqual(streamed_item(late).parts[0].value, {**whole, "content": whole["content"] + " More."})

    def test_fields_nobody_knows_yet_merge_into_the_message_as_the_sdk_merges_them(self) -> None:
        """Undeclared fields of message_start, of content block events and of message_delta end in the
        message merged (objects key by key, lists extended), not the last one alone (the SDK's fixture
        extra_fields_response.txt and its test_extra_fields.py, in messages.extra_fields.sse.txt:
        anthropics/anthropic-sdk-python tests/lib/streaming)."""
        events = load_events("messages.extra_fields.stream.jsonl")
        item = streamed_item(events)
        self.assertEqual(item.metadata["anthropic.private_field"], {"nested": {"values": [1, 2, 3, 4, 5, 6], "metadata": "chunk2"}})
        self.assertEqual(item.parts, (TextPart("Hello!"),))
        self.assertEqual(item.metadata["anthropic.type"], "message")
        # Fields the message defines are no extras: message_delta's replace, a block event's are ignored.
        edited = copy.deepcopy(events)
        edited[2]["model"] = "not-the-model"
        edited[-2]["context_management"] = {"applied_edits": []}
        item = streamed_item(edited)
        self.assertEqual(item.metadata["anthropic.model"], "claude-3-opus-latest")
        self.assertEqual(item.metadata["anthropic.context_management"], {"applied_edits": []})
        # Values that are not both objects or both lists replace.
        edited[-2]["private_field"] = 1
        self.assertEqual(streamed_item(edited).metadata["anthropic.private_field"], 1)

    def test_mcp_tool_input_streams_like_a_server_tool(self) -> None:
        native = message([SERVER_BLOCKS[-2], SERVER_BLOCKS[-1]])
        events = synthetic_stream(native, size=3)
        item = streamed_item(events)
        self.assertEqual(item.parts[0], CustomPart("anthropic.mcp_tool_use", value=SERVER_BLOCKS[-2]))


class StreamTests(unittest.TestCase):
    def test_every_stream_agrees_with_its_accumulated_message(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                events = load_events(name)
                expected = adapter.items_from_response(accumulate(events))[0]
                item = streamed_item(events)
                self.assertEqual(item, expected)
                self.assertEqual(canonical(item.to_dict()), canonical(expected.to_dict()))
                self.assertEqual(adapter.items_from_stream(events), [expected])

    def test_every_raw_sse_body_gives_the_jsonl_events_and_the_same_item(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                raw = recorded.raw("anthropic", name)
                events = load_events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertEqual(list(adapter.events_from_sse(raw)), events)
                self.assertEqual(list(adapter.events_from_sse(raw.decode("utf-8").splitlines(keepends=True))), events)
                self.assertEqual(adapter.items_from_stream(adapter.events_from_sse(raw)), adapter.items_from_stream(events))
        self.assertIs(adapter.events_from_sse, _streams.events_from_sse)

    def test_a_lone_cr_ends_an_sse_line(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                body = recorded.with_lone_cr(recorded.raw("anthropic", name))
                events = load_events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertNotIn(b"\n", body)
                self.assertEqual(list(adapter.events_from_sse(body)), events)
                self.assertEqual(list(adapter.events_from_sse(body.decode("utf-8"))), events)
                self.assertEqual(list(adapter.events_from_sse(recorded.after_each_cr(body))), events)

    def test_recorded_streams_and_responses_of_one_message_agree(self) -> None:
        pairs = {
            "messages.refusal.stream.jsonl": "messages.refusal.response.json",
            "messages.thinking_text_tool_use.reconstructed.stream.jsonl": "messages.thinking_text_tool_use.response.json",
        }
        for stream, response in pairs.items():
            with self.subTest(stream):
                streamed = streamed_item(load_events(stream))
                answered = adapter.items_from_response(load(response))[0]
                self.assertEqual(streamed.parts, answered.parts)
                self.assertEqual((streamed.id, streamed.finish_reason), (answered.id, answered.finish_reason))
                self.assertEqual(streamed.usage.tokens, answered.usage.tokens)

    def test_synthetic_streams_of_every_response_agree(self) -> None:
        for name in files(".response.json"):
            response = load(name)
            for size, interleave in ((1, False), (5, False), (3, True)):
                with self.subTest(name, size=size, interleave=interleave):
                    events = synthetic_stream(response, size, interleave)
                    self.assertEqual(canonical(accumulate(events)), canonical(response))  # the generator is faithful
                    self.assertEqual(streamed_item(events), adapter.items_from_response(response)[0])

    def test_text_only_grows_and_live_usage_and_finish_reason_follow_the_events(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                events = load_events(name)
                snapshots: list[tuple[int, str]] = []
                live: list[tuple[Any, Any]] = []

                def watch(decoder: adapter.AnthropicStreamDecoder, state: FoldState) -> None:
                    for i, part in enumerate(state.snapshot()):
                        if isinstance(part, (TextPart, ReasoningPart)):
                            snapshots.append((i, part.text if isinstance(part, TextPart) else part.summary or ""))
                    live.append((decoder.usage, decoder.finish_reason))

                item, state = run_stream(events, watch)
                done = {i: p.text if isinstance(p, TextPart) else p.summary or "" for i, p in enumerate(state.parts) if isinstance(p, (TextPart, ReasoningPart))}
                for i, text in snapshots:
                    self.assertTrue(done[i].startswith(text), (i, text))
                # usage is known from message_start on, cumulative, and ends as the item's
                start = next(k for k, e in enumerate(events) if e["type"] == "message_start")
                self.assertEqual(live[start][0], adapter.usage_from_native(events[start]["message"]["usage"]))
                self.assertEqual(live[-1][0], item.usage)
                # the finish reason is unknown until message_delta tells it
                at = next(k for k, e in enumerate(events) if e["type"] == "message_delta")
                self.assertTrue(all(reason is None for _, reason in live[:at]))
                self.assertEqual(live[at][1], item.finish_reason)
                self.assertIsNotNone(item.finish_reason)

    def test_delta_shape_of_a_text_and_tool_use_stream(self) -> None:
        decoder = adapter.stream_decoder()
        deltas = [d for e in load_events("messages.text_tool_use.stream.jsonl") for d in decoder.feed(e)]
        p0, p1 = PartId("part-0"), PartId("part-1")
        self.assertEqual(deltas[:3], [BeginPart(p0, PartKind.TEXT), AppendText(p0, "I"), AppendText(p0, "'ll check the current weather in Paris for you.")])
        self.assertEqual(deltas[3], CommitPart(TextPart("I'll check the current weather in Paris for you."), part_id=p0))
        header = {"agentkit.tool_call_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn", "agentkit.tool_name": "get_weather"}
        self.assertEqual(deltas[4:6], [BeginPart(p1, PartKind.TOOL_CALL), SetMetadata(p1, {"anthropic.caller": {"type": "direct"}, **header})])
        # While the input streams, the snapshot already names the call (the fold reads the header keys).
        [open_call] = fold_all(FoldState(), deltas[:7]).snapshot()[1:]
        self.assertEqual((open_call.id, open_call.name), (ToolCallId("toolu_01NRLabsLyVHZPKxbKvkfSMn"), "get_weather"))
        self.assertEqual(open_call.metadata, {"anthropic.caller": {"type": "direct"}, INPUT_JSON_KEY: '{"locati'})
        fragments = [d.chunk for d in deltas if isinstance(d, AppendText) and d.part_id == p1]
        self.assertEqual(fragments, ['{"locati', 'on": "P', "ar", 'is"}'])  # the empty first fragment is skipped
        call = ToolCallPart(ToolCallId("toolu_01NRLabsLyVHZPKxbKvkfSMn"), "get_weather", {"location": "Paris"}, metadata={"anthropic.caller": {"type": "direct"}})
        self.assertEqual(deltas[-1], CommitPart(call, part_id=p1))
        self.assertEqual(len(deltas), 11)

    def test_blocks_delivered_whole_are_committed_without_appends(self) -> None:
        decoder = adapter.stream_decoder()
        deltas = [d for e in load_events("messages.redacted_thinking.stream.jsonl") for d in decoder.feed(e)]
        p0 = PartId("part-0")
        self.assertEqual(deltas[0], BeginPart(p0, PartKind.REASONING))
        self.assertIsInstance(deltas[1], CommitPart)
        self.assertEqual(deltas[1].part_id, p0)
        self.assertTrue(deltas[1].part.redacted)
        self.assertEqual(deltas[1].part.metadata, {PROVIDER_KEY: "anthropic"})
        decoder = adapter.stream_decoder()
        server = [d for e in load_events("messages.thinking_server_tool.stream.jsonl") for d in decoder.feed(e)]
        p3 = PartId("part-3")
        at = server.index(BeginPart(p3, PartKind.CUSTOM))
        self.assertIsInstance(server[at + 1], ReplaceStructured)
        self.assertEqual(server[at + 2], SetMetadata(p3, {"agentkit.custom_kind": "anthropic.bash_code_execution_tool_result"}))
        self.assertEqual(server[at + 3].part_id, p3)
        self.assertIsInstance(server[at + 3], CommitPart)

    def test_open_server_tool_shows_its_kind_and_commits_verbatim(self) -> None:
        events = load_events("messages.server_and_client_tool_use.stream.jsonl")
        seen_args: list[str] = []
        open_kinds: list[str] = []

        def watch(decoder: adapter.AnthropicStreamDecoder, state: FoldState) -> None:
            for part in state.snapshot()[len(state.parts) :]:
                if isinstance(part, ToolCallPart) and INPUT_JSON_KEY in part.metadata:
                    seen_args.append(part.metadata[INPUT_JSON_KEY])
                if isinstance(part, CustomPart) and part.kind not in open_kinds:
                    open_kinds.append(part.kind)

        final, _ = run_stream(events, watch)
        self.assertEqual(open_kinds, ["anthropic.server_tool_use", "anthropic.tool_search_tool_result"])
        self.assertEqual(seen_args[0], '{"from_')
        self.assertEqual(seen_args[-1], '{"from_currency": "USD", "to_currency": "EUR"}')
        self.assertEqual(final.parts[-1].input, {"from_currency": "USD", "to_currency": "EUR"})
        self.assertEqual(final.parts[1], CustomPart("anthropic.server_tool_use", value=accumulate(events)["content"][1]))
        self.assertEqual(final.parts[2].kind, "anthropic.tool_search_tool_result")

    def test_signature_after_an_empty_thinking_delta(self) -> None:
        events = load_events("messages.thinking_text.stream.jsonl")
        signature = next(e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta")
        decoder = adapter.stream_decoder()
        deltas = [d for e in events for d in decoder.feed(e)]
        self.assertFalse(any(isinstance(d, AppendText) and d.chunk == "" for d in deltas))
        reasoning = streamed_item(events).parts[0]
        self.assertEqual(reasoning.data, InlineText(signature))
        self.assertEqual(reasoning.metadata[PROVIDER_KEY], "anthropic")
        self.assertTrue(reasoning.summary.startswith("This is a straightforward question"))

    def test_message_delta_carries_container_stop_details_and_cumulative_usage(self) -> None:
        item = streamed_item(load_events("messages.thinking_server_tool.stream.jsonl"))
        self.assertEqual(item.metadata["anthropic.container"], {"id": "container_011CaNRFAbjdPf4rmBarZzqQ", "expires_at": "2026-04-24T11:13:36.730129Z"})
        self.assertIsNone(item.metadata["anthropic.stop_details"])
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

    def test_malformed_tool_input_follows_the_fold_convention(self) -> None:
        response = load("messages.parallel_tool_use.response.json")
        events = synthetic_stream(response)
        bad = next(e for e in events if e["type"] == "content_block_delta" and e["delta"].get("partial_json"))
        bad["delta"]["partial_json"] = '{"name": '
        index = bad["index"]
        events = [e for e in events if not (e.get("index") == index and e["type"] == "content_block_delta" and e is not bad)]
        part = streamed_item(events).parts[index]
        self.assertIsInstance(part, ToolCallPart)
        self.assertIsNone(part.input)
        self.assertEqual(part.metadata[INPUT_JSON_KEY], '{"name": ')
        self.assertIn(INPUT_ERROR_KEY, part.metadata)
        # Sent back, the cut call carries an empty input the API accepts.
        self.assertEqual(adapter.request_from_items([Item(ItemKind.ASSISTANT, [part])])["messages"][0]["content"][0]["input"], {})

    def test_tool_input_that_is_json_but_no_object_is_a_call_without_input(self) -> None:
        """The API's input is an object: other JSON (a number, a list) is the fold's bad input, never a lost turn."""
        response = load("messages.parallel_tool_use.response.json")
        for text in ("5", "[1, 2]", '"x"', "null"):
            with self.subTest(text):
                events = synthetic_stream(response)
                bad = next(e for e in events if e["type"] == "content_block_delta" and e["delta"].get("partial_json"))
                bad["delta"]["partial_json"] = text
                index = bad["index"]
                events = [e for e in events if not (e.get("index") == index and e["type"] == "content_block_delta" and e is not bad)]
                part = streamed_item(events).parts[index]
                self.assertIsInstance(part, ToolCallPart)
                self.assertIsNone(part.input)
                self.assertEqual(part.metadata[INPUT_JSON_KEY], text)
                self.assertTrue(part.metadata[INPUT_ERROR_KEY].startswith("expected a JSON object, found "))
                sent = adapter.request_from_items([Item(ItemKind.ASSISTANT, [part])])["messages"][0]["content"][0]
                self.assertEqual(sent["input"], {})

    def test_message_stop_commits_blocks_whose_stop_never_came(self) -> None:
        """A tool call cut off by max_tokens, its content_block_stop lost: message_stop closes it."""
        events = load_events("messages.text_tool_use.stream.jsonl")
        cut = [e for e in events if not (e["type"] == "content_block_stop" and e["index"] == 1)]
        cut = [e for e in cut if not (e["type"] == "content_block_delta" and e["delta"].get("partial_json") == 'is"}')]
        at = next(i for i, e in enumerate(cut) if e["type"] == "message_delta")
        cut[at] = {**cut[at], "delta": {**cut[at]["delta"], "stop_reason": "max_tokens"}}
        item, state = run_stream(cut)
        self.assertFalse(state.is_open)
        call = item.parts[1]
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("toolu_01NRLabsLyVHZPKxbKvkfSMn"), "get_weather", None))
        self.assertEqual(call.metadata[INPUT_JSON_KEY], '{"location": "Par')
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "max_tokens")
        self.assertEqual(adapter.items_from_stream(cut), [item])

    def test_error_event_ends_the_turn_with_error_and_closes_what_is_open(self) -> None:
        events = load_events("messages.text_tool_use.stream.jsonl")[:5]  # the text block is still open
        error = {"type": "overloaded_error", "message": "Overloaded"}
        decoder, state = adapter.stream_decoder(), FoldState()
        for event in events + [{"type": "error", "error": error}]:
            state = fold_all(state, decoder.feed(event))
        self.assertFalse(state.is_open)
        self.assertEqual(decoder.finish_reason, FinishReason.ERROR)
        item = decoder.finish(state.parts)
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata["anthropic.error"], error)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "error")
        self.assertEqual(item.parts, (TextPart("I'll check the current weather in Paris for you."),))

    def test_an_error_event_keeps_its_request_id_as_an_error_body_does(self) -> None:
        error = {"type": "error", "error": {"details": None, "type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}
        # Refused before the message started: the same item as the error body.
        self.assertEqual(adapter.items_from_stream([{"type": "ping"}, error]), adapter.items_from_response(error))
        # Mid-stream: the message's fields stay, the request id joins them.
        events = load_events("messages.text_tool_use.stream.jsonl")[:5] + [error]
        [item] = adapter.items_from_stream(events)
        self.assertEqual(item.metadata["anthropic.request_id"], error["request_id"])
        self.assertEqual((item.metadata["anthropic.type"], item.id), ("message", MessageId(events[0]["message"]["id"])))
        self.assertEqual(item.metadata["anthropic.error"], error["error"])

    def test_a_server_tool_call_cut_off_is_sent_back_with_an_empty_input(self) -> None:
        """As for a tool_use: the API refuses a null input, and the cut-off text is not JSON."""
        for block in (SERVER_BLOCKS[0], SERVER_BLOCKS[-2]):
            with self.subTest(block["type"]):
                events = synthetic_stream(message([block], stop_reason="max_tokens"), size=5)
                fragments = [e for e in events if e["type"] == "content_block_delta"]
                events = [e for e in events if e not in fragments[2:]]  # the input stops after 5 characters
                [item] = adapter.items_from_stream(events)
                [part] = item.parts
                self.assertEqual(part.metadata[INPUT_JSON_KEY], fragments[1]["delta"]["partial_json"])
                self.assertIn(INPUT_ERROR_KEY, part.metadata)
                [sent] = adapter.request_from_items([item])["messages"][0]["content"]
                self.assertEqual(sent, {**block, "input": {}})
        # A block that came with a null input (not cut off by this projection) goes back as it came.
        request = {"messages": [{"role": "assistant", "content": [{**SERVER_BLOCKS[0], "input": None}]}]}
        self.assertEqual(adapter.request_from_items(adapter.items_from_request(request)), request)

    def test_a_stream_cut_short_still_folds_to_an_item(self) -> None:
        events = load_events("messages.thinking_text.stream.jsonl")
        [whole] = adapter.items_from_stream(events)
        stop = next(k for k, e in enumerate(events) if e["type"] == "message_delta")
        for n in (0, 1, 3, 40, stop, len(events) - 1):
            with self.subTest(events=n):
                [item] = adapter.items_from_stream(events[:n])
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                # No message_stop: not a finished turn, whatever arrived.
                self.assertEqual(item.finish_reason, FinishReason.ERROR)
                self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": []})
                self.assertEqual(item.usage is None, n == 0)
                for part, full in zip(item.parts, whole.parts):  # what arrived, closed as it stands
                    self.assertIs(type(part), type(full))
                    if isinstance(part, ReasoningPart):
                        self.assertTrue(full.summary.startswith(part.summary or ""))
                    elif isinstance(part, TextPart):
                        self.assertTrue(full.text.startswith(part.text))
                if n > stop:
                    self.assertEqual(len(item.parts), len(whole.parts))
                else:
                    self.assertLessEqual(len(item.parts), len(whole.parts))
        [cut] = adapter.items_from_stream(events[: len(events) - 1])  # message_stop adds no part, but ends the turn
        self.assertEqual((cut.parts, cut.metadata.without(STREAM_CUT_KEY)), (whole.parts, whole.metadata))
        self.assertEqual((whole.finish_reason, STREAM_CUT_KEY in whole.metadata), (FinishReason.COMPLETED, False))

    def test_thinking_cut_before_its_signature_holds_no_state_and_is_not_sent_back(self) -> None:
        events = load_events("messages.thinking_text.stream.jsonl")
        signed = next(k for k, e in enumerate(events) if e.get("delta", {}).get("type") == "signature_delta")
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        for cut in (events[:signed] + [error], events[:signed], events[:signed] + [{"type": "message_stop"}]):
            with self.subTest(last=cut[-1]["type"]):
                [item] = adapter.items_from_stream(cut)
                thinking = item.parts[0]
                self.assertIsInstance(thinking, ReasoningPart)
                self.assertTrue(thinking.summary)
                self.assertNotIn(PROVIDER_KEY, thinking.metadata)
                body = adapter.request_from_items([Item.text(ItemKind.USER, "hi"), item])
                self.assertEqual([m["role"] for m in body["messages"]], ["user"])  # nothing the API would refuse
        [whole] = adapter.items_from_stream(events)
        self.assertEqual(whole.parts[0].metadata[PROVIDER_KEY], "anthropic")

    def test_events_that_do_not_fit_are_refused_and_change_nothing(self) -> None:
        start = {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}
        refused = [
            {"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "x"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}},
            {"type": "content_block_delta", "index": True, "delta": {"type": "input_json_delta", "partial_json": "{"}},
            {"type": "content_block_stop", "index": 3},
            start,
            {"type": "message_delta", "delta": {"stop_reason": 7}},
            {"type": "message_delta", "delta": {}, "usage": [1]},
            {"type": "message_start", "message": {"content": "text"}},
            ["not", "an", "event"],
        ]
        decoder, state = adapter.stream_decoder(), FoldState()
        for event in ({"type": "message_start", "message": message([], stop_reason=None)}, start):
            state = fold_all(state, decoder.feed(event))
        for event in refused:
            with self.subTest(event=event):
                with self.assertRaises(NormalizeError):
                    decoder.feed(event)  # type: ignore[arg-type]
        # Still the same decoder: the call's input streams and commits.
        for event in ({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}}, {"type": "message_stop"}):
            state = fold_all(state, decoder.feed(event))
        self.assertEqual(decoder.finish(state.parts).parts, (ToolCallPart(ToolCallId("toolu_1"), "f", {"a": 1}),))
        self.assertIsNone(decoder.finish_reason)

    def test_future_events_and_deltas_are_kept_or_ignored(self) -> None:
        events = load_events("messages.text_tool_use.stream.jsonl")
        future = {"type": "content_block_delta", "index": 0, "delta": {"type": "sparkle_delta", "sparkle": 1}}
        events = events[:3] + [{"type": "a_future_event", "x": 1}, future] + events[3:]
        item = streamed_item(events)
        self.assertEqual(item.parts[0].metadata["anthropic.unknown_deltas"], [future["delta"]])
        # The marker is never sent as a field.
        self.assertEqual(adapter.request_from_items([item])["messages"][0]["content"][0], {"type": "text", "text": item.parts[0].text})


class RequestTests(unittest.TestCase):
    def test_every_request_transcript_rebuilds_exactly(self) -> None:
        for name in files(".request.json"):
            with self.subTest(name):
                request = load(name)
                items = adapter.items_from_request(request)
                self.assertEqual(canonical(adapter.request_from_items(items)), canonical(transcript(request)))
                self.assertEqual(canonical(adapter.request_from_items([stored(i) for i in items])), canonical(transcript(request)))

    def test_an_empty_final_assistant_message_round_trips_and_no_other_empty_one_is_sent(self) -> None:
        """The API takes an empty message only as the final assistant one (a prefill left blank)."""
        request = {"messages": [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": []}]}
        items = adapter.items_from_request(request)
        self.assertEqual(items[-1].parts, ())
        self.assertEqual(adapter.request_from_items(items), request)
        later = items + [Item.text(ItemKind.USER, "Go on.")]
        self.assertEqual([m["role"] for m in adapter.request_from_items(later)["messages"]], ["user", "user"])
        refusal = adapter.items_from_response(load("messages.refusal.response.json"))[0]
        self.assertEqual(adapter.request_from_items(items[:1] + [refusal])["messages"], request["messages"][:1])

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

    def test_tool_results_name_their_tool_when_the_request_called_it(self) -> None:
        request = load("messages.tool_results_mixed.request.json")
        calls = {b["id"]: b["name"] for m in request["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}
        results = [p for p in adapter.items_from_request(request)[-1].parts if isinstance(p, ToolResultPart)]
        self.assertEqual([p.metadata[TOOL_NAME_KEY] for p in results], [calls[p.call_id.value] for p in results])
        # Without the earlier call (a request that starts with the results), no name is guessed.
        alone = adapter.items_from_request({"messages": request["messages"][2:]})
        self.assertFalse(any(TOOL_NAME_KEY in p.metadata for p in alone[0].parts))

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
                metadata={"anthropic.omitted": ["is_error"], TOOL_NAME_KEY: "get_chart"},
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

    def test_mid_conversation_system_messages_stay_in_place(self) -> None:
        """``role: "system"`` messages (text, tool changes, ``clear_at``, an effort-only one first) go back where they were."""
        request = load("messages.mid_conversation_system.request.json")
        items = adapter.items_from_request(request)
        kinds = [(item.kind, item.metadata.get("anthropic.role")) for item in items]
        system_at = [n for n, m in enumerate(request["messages"]) if m["role"] == "system"]
        self.assertEqual([n for n, (kind, role) in enumerate(kinds[1:]) if kind is ItemKind.SYSTEM and role == "system"], system_at)
        self.assertEqual(kinds[0], (ItemKind.SYSTEM, None))  # the top-level system
        self.assertEqual(items[1].parts, ())  # the effort-only message, whose content is empty
        self.assertEqual(items[3].parts[0], CustomPart("anthropic.tool_removal", value=request["messages"][2]["content"][0]))
        # The next turn: the response and a new user message after the system messages, each still in place.
        answer = message([{"type": "text", "text": "Both files read."}])
        later = items + adapter.items_from_response(answer) + [Item.text(ItemKind.USER, "Thanks.")]
        self.assertEqual(
            adapter.request_from_items(later)["messages"],
            request["messages"] + [{"role": "assistant", "content": answer["content"]}, {"role": "user", "content": [{"type": "text", "text": "Thanks."}]}],
        )
        # A system or developer item of no system message (another provider's, an app's) joins the top-level system,
        # which every model takes: only some take system messages.
        neutral = [Item.text(ItemKind.USER, "Hi."), Item.text(ItemKind.DEVELOPER, "Be brief."), Item.text(ItemKind.USER, "Go on.")]
        body = adapter.request_from_items(neutral)
        self.assertEqual((body["system"], [m["role"] for m in body["messages"]]), ([{"type": "text", "text": "Be brief."}], ["user", "user"]))

    def test_several_system_items_join_as_blocks(self) -> None:
        items = [Item.text(ItemKind.SYSTEM, "one"), *adapter.items_from_request({"system": "two", "messages": []}), Item(ItemKind.DEVELOPER, [])]
        self.assertEqual(adapter.request_from_items(items), {"system": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], "messages": []})
        self.assertEqual(adapter.request_from_items(adapter.items_from_request({"system": [], "messages": []})), {"system": [], "messages": []})

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
            Item(ItemKind.TOOL, [ToolResultPart(call.id, StructuredOutput({"n": 1}), is_error=True)]),
        ]
        self.assertEqual(
            adapter.request_from_items(items),
            {
                "system": [{"type": "text", "text": "Answer in French."}],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "List the files."}]},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt", "is_error": False}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"n":1}', "is_error": True}]},
                ],
            },
        )

    def test_foreign_media_shapes_are_converted_to_sources_the_api_takes(self) -> None:
        png = b"\x89PNG\r\n\x1a\n"
        parts = [
            MediaPart(Modality.IMAGE, "image/png", Uri("data:image/png;base64," + base64.b64encode(png).decode())),
            FilePart(InlineBytes("caf\u00e9 menu".encode()), name="menu.txt", mime_type="text/markdown"),
            FilePart(Uri("https://example.com/a.png"), mime_type="image/png"),
            MediaPart(Modality.BINARY, "application/pdf", InlineBytes(b"%PDF")),
            StructuredPart({"k": [1, 2]}),
        ]
        blocks = adapter.request_from_items([Item(ItemKind.USER, parts)])["messages"][0]["content"]
        self.assertEqual(
            blocks,
            [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "caf\u00e9 menu"}, "title": "menu.txt"},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(b"%PDF").decode()}},
                {"type": "text", "text": '{"k":[1,2]}'},
            ],
        )
        # Decoded again, the converted image is the bytes it held.
        self.assertEqual(adapter.items_from_request({"messages": [{"role": "user", "content": blocks[:1]}]})[0].parts[0].data, InlineBytes(png))

    def test_a_transcript_mixing_providers_keeps_only_anthropic_state(self) -> None:
        call = ToolCallPart(ToolCallId("call_abc"), "lookup", {"q": "x"}, metadata={INVENTED_ID_KEY: True, PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"})
        openai_reasoning = ReasoningPart("I should look it up.", data=InlineText("gAAAAABencrypted"), metadata={PROVIDER_KEY: "openai", "openai.id": "rs_1"})
        gemini_text = TextPart("Looking it up.", metadata={PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"})
        neutral_reasoning = ReasoningPart("a summary with no provider state")
        anthropic_turn = adapter.items_from_response(load("messages.thinking_text_tool_use.response.json"))[0]
        items = [
            Item.text(ItemKind.USER, "Find x."),
            Item(ItemKind.ASSISTANT, [openai_reasoning, CustomPart("openai.web_search_call", value={"type": "web_search_call", "id": "ws_1"}), gemini_text, call]),
            Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("found"), metadata={TOOL_NAME_KEY: "lookup"})]),
            Item(ItemKind.ASSISTANT, [neutral_reasoning, CustomPart("gemini.executableCode", value={"code": "1"})]),
            anthropic_turn,
        ]
        body = adapter.request_from_items(items)
        self.assertEqual(
            body["messages"][:3],
            [
                {"role": "user", "content": [{"type": "text", "text": "Find x."}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Looking it up."}, {"type": "tool_use", "id": "call_abc", "name": "lookup", "input": {"q": "x"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_abc", "content": "found", "is_error": False}]},
            ],
        )
        # The turn holding only foreign or stateless parts is not sent; Anthropic's own thinking is, signature intact.
        # (An empty message is refused by the API, so a refusal's item, with no parts, is not sent either.)
        self.assertEqual(len(body["messages"]), 4)
        self.assertEqual(body["messages"][3]["content"][0], load("messages.thinking_text_tool_use.response.json")["content"][0])
        self.assertNotIn("c2ln", canonical(body))
        self.assertNotIn("gAAAAABencrypted", canonical(body))

    def test_a_tool_result_with_null_fields_is_still_a_tool_result(self) -> None:
        """Python clients write ``"is_error": None`` (or ``"content": None``): the result stays a result, the nulls go back."""
        request = {"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}, {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "is_error": None},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": None},
            ]},
        ]}  # fmt: skip
        items = adapter.items_from_request(request)
        self.assertEqual(
            [(type(p), p.call_id, p.output, p.is_error, p.metadata.get(TOOL_NAME_KEY)) for p in items[1].parts],  # type: ignore[attr-defined]
            [(ToolResultPart, ToolCallId("toolu_1"), TextOutput("ok"), False, "f"), (ToolResultPart, ToolCallId("toolu_2"), TextOutput(""), False, "g")],
        )
        self.assertEqual(canonical(adapter.request_from_items(items)), canonical(request))
        # Wrong types are still not taken for a result.
        for bad in ({"is_error": 0}, {"content": 5}, {"content": False}):
            with self.subTest(bad=bad):
                block = {"type": "tool_result", "tool_use_id": "toolu_1", **bad}
                self.assertIsInstance(adapter.items_from_request({"messages": [{"role": "user", "content": [block]}]})[0].parts[0], CustomPart)

    def test_blank_text_from_other_providers_is_not_sent(self) -> None:
        """The API refuses text blocks of whitespace only; Gemini and Chat transcripts hold them (a "\\n" before a call)."""
        call = ToolCallPart(ToolCallId("call_1"), "f", {})
        items = [
            Item(ItemKind.SYSTEM, [TextPart("")]),
            Item(ItemKind.USER, [TextPart("Go."), TextPart("\u2003")]),
            Item(ItemKind.ASSISTANT, [TextPart("\n\n"), call, TextPart("", metadata={"gemini.thoughtSignature": "c2ln"})]),
            Item(ItemKind.TOOL, [ToolResultPart(call.id, PartsOutput([TextPart(" "), TextPart("done")]))]),
            Item(ItemKind.ASSISTANT, [TextPart(" ")]),
        ]
        self.assertEqual(
            adapter.request_from_items(items),
            {
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Go."}]},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "f", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "done"}], "is_error": False}]},
                ]
            },
        )
        # A request's string content is the API's to judge, and goes back as it came.
        request = {"system": "", "messages": [{"role": "user", "content": "Go."}, {"role": "assistant", "content": ""}]}
        self.assertEqual(adapter.request_from_items(adapter.items_from_request(request)), request)

    def test_blank_text_read_from_a_request_goes_back(self) -> None:
        """A request the API took held a " " text block (recorded from another client): read from Anthropic, it goes back exactly."""
        blank = {"type": "text", "text": " "}
        request = {
            "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "\n"}],
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [blank, {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [blank, {"type": "text", "text": "18C"}]}]},
                {"role": "assistant", "content": [blank]},
            ],
        }
        items = adapter.items_from_request(request)
        self.assertEqual(adapter.request_from_items(items), request)
        self.assertEqual(items[2].parts[0], TextPart(" ", metadata={"anthropic.blank_sent": True}))
        # The same text from elsewhere (another provider's item) is still not sent.
        self.assertEqual(adapter.request_from_items([Item(ItemKind.ASSISTANT, [TextPart(" "), TextPart("ok")])])["messages"][0]["content"], [{"type": "text", "text": "ok"}])

    def test_a_tool_call_input_is_sent_only_as_an_object(self) -> None:
        """Another API's call may hold free text (a Responses custom tool) or an array: the Messages API takes neither."""
        for value in ("print(1)", [1, 2], 5, None):
            with self.subTest(value=value):
                call = ToolCallPart(ToolCallId("call_1"), "python", value)
                items = [Item.text(ItemKind.USER, "hi"), Item(ItemKind.ASSISTANT, [TextPart("a"), call])]
                if value is None:  # no input (a Chat call whose arguments are "null"): an empty one
                    self.assertEqual(adapter.request_from_items(items)["messages"][1]["content"][1]["input"], {})
                else:
                    with self.assertRaises(NormalizeError) as caught:
                        adapter.request_from_items(items)
                    self.assertEqual(caught.exception.path, "items[1].parts[1]")
                # A tool_use block holding one (which the API never sends) stays the block it was, and goes back as it came.
                block = {"type": "tool_use", "id": "toolu_1", "name": "python", "input": value}
                request = {"messages": [{"role": "assistant", "content": [block]}]}
                items = adapter.items_from_request(request)
                self.assertEqual(items[0].parts, (CustomPart("anthropic.tool_use", value=block),))
                self.assertEqual(adapter.request_from_items(items), request)

    def test_media_go_only_as_the_types_the_api_reads(self) -> None:
        """Base64 images of JPEG, PNG, GIF or WebP; documents as PDF or UTF-8 text: others are refused, not sent."""
        csv = "data:text/csv;base64," + base64.b64encode(b"a,b\n1,2\n").decode()
        sent = [
            (FilePart(Uri(csv), name="t.csv"), {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "a,b\n1,2\n"}, "title": "t.csv"}),
            (FilePart(InlineBytes(b'{"a": 1}'), mime_type="application/json"), {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": '{"a": 1}'}}),
            (MediaPart(Modality.IMAGE, "image/jpg", InlineBytes(b"\xff\xd8\xff")), {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}}),
            (FilePart(Uri("data:image/gif;base64,R0lG")), {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}}),
        ]
        for part, block in sent:
            with self.subTest(part=part):
                self.assertEqual(adapter.request_from_items([Item(ItemKind.USER, [part])])["messages"][0]["content"], [block])
        refused = [
            MediaPart(Modality.IMAGE, "image/heic", InlineBytes(b"....")),
            MediaPart(Modality.IMAGE, "image/png", Uri("data:image/svg+xml;base64,PHN2Zz4=")),
            MediaPart(Modality.IMAGE, "image/*", InlineBytes(b"\x89PNG")),
            FilePart(InlineBytes(b"PK\x03\x04"), name="a.docx", mime_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
            FilePart(Uri("https://example.com/a.txt"), mime_type="text/plain"),
            FilePart(InlineBytes(b"\xff\xfe"), mime_type="text/plain"),
        ]
        for part in refused:
            with self.subTest(part=part):
                with self.assertRaises(NormalizeError) as caught:
                    adapter.request_from_items([Item(ItemKind.USER, [TextPart("a"), part])])
                self.assertEqual(caught.exception.path, "items[0].parts[1]")
        # A request's image of another type (which the API refuses) stays the block it was.
        block = {"type": "image", "source": {"type": "base64", "media_type": "image/heic", "data": "Li4uLg=="}}
        items = adapter.items_from_request({"messages": [{"role": "user", "content": [block]}]})
        self.assertEqual(items[0].parts, (CustomPart("anthropic.image", value=block),))
        self.assertEqual(adapter.request_from_items(items)["messages"][0]["content"], [block])

    def test_the_system_prompt_takes_only_text(self) -> None:
        """``system`` holds text blocks only: an image another API takes in a developer message is refused, not sent."""
        image = MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG\r\n\x1a\n"))
        for kind in (ItemKind.SYSTEM, ItemKind.DEVELOPER):
            for part in (image, FilePart(InlineBytes(b"%PDF"), mime_type="application/pdf"), ToolCallPart(ToolCallId("c"), "f", {})):
                with self.subTest(kind=kind, part=part):
                    with self.assertRaises(NormalizeError) as caught:
                        adapter.request_from_items([Item.text(ItemKind.USER, "hi"), Item(kind, [TextPart("Rules."), part])])
                    self.assertEqual(caught.exception.path, "items[1].parts[1]")
        # Structured data goes as its text; reasoning and other providers' parts are dropped as anywhere else.
        system = Item(ItemKind.SYSTEM, [StructuredPart({"a": 1}), ReasoningPart("r"), CustomPart("gemini.x", value={"x": 1})])
        self.assertEqual(adapter.request_from_items([system])["system"], [{"type": "text", "text": '{"a":1}'}])

    def test_content_the_api_cannot_take_is_refused_with_its_path(self) -> None:
        refused = [
            MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF")),
            CustomPart("myapp.note", value={"type": "note"}),
            CustomPart("anthropic.text", value=["not", "a", "block"]),
            FilePart(Handle(ArtifactId("art-1")), mime_type="application/pdf"),
            ReasoningPart(None, redacted=True, metadata={PROVIDER_KEY: "anthropic"}),
            ReasoningPart("x", data=InlineBytes(b"sig"), metadata={PROVIDER_KEY: "anthropic"}),
            ToolResultPart(ToolCallId("t"), PartsOutput([ToolCallPart(ToolCallId("u"), "f", {})])),
            ToolResultPart(ToolCallId("t"), FilesOutput([FilePart(Handle(ArtifactId("a")))])),
        ]
        for part in refused:
            with self.subTest(part=part):
                with self.assertRaises(NormalizeError) as caught:
                    adapter.request_from_items([Item.text(ItemKind.USER, "hi"), Item(ItemKind.USER, [TextPart("a"), part])])
                self.assertEqual(caught.exception.path, "items[1].parts[1]")
        with self.assertRaises(NormalizeError) as caught:
            adapter.request_from_items([Item.text(ItemKind.USER, "hi"), "not an item"])  # type: ignore[list-item]
        self.assertEqual(caught.exception.path, "items[1]")


# -- bad input: only NormalizeError, and what decodes is valid ------------------------------------------------

class BadInputTests(unittest.TestCase):
    ROUNDS = 60

    def assert_valid(self, items: list[Item]) -> None:
        for item in items:
            self.assertIsInstance(item, Item)
            self.assertEqual(stored(item), item)

    def test_mutated_responses(self) -> None:
        rng = random.Random(1010)
        for name in files(".response.json") + ["documented"]:
            body = load(name) if name != "documented" else message(SERVER_BLOCKS + [{"type": "text", "text": "x", "citations": CITATIONS}])
            for round_ in range(self.ROUNDS):
                bad = mutate(body, rng)
                with self.subTest(name, round=round_):
                    items = outcome(self, lambda: adapter.items_from_response(bad))
                    if items is not None:
                        self.assert_valid(items)
                        rebuilt = outcome(self, lambda: adapter.request_from_items(items))
                        if rebuilt is not None and isinstance(bad.get("content"), list) and without_empty_text(bad["content"]):
                            self.assertEqual(canonical(rebuilt["messages"][0]["content"]), canonical(without_empty_text(bad["content"])))

    def test_mutated_requests_round_trip_or_are_refused(self) -> None:
        rng = random.Random(2020)
        for name in files(".request.json"):
            request = transcript(load(name))
            for round_ in range(self.ROUNDS):
                bad = mutate(request, rng)
                with self.subTest(name, round=round_):
                    items = outcome(self, lambda: adapter.items_from_request(bad))
                    if items is not None:
                        self.assert_valid(items)
                        expected = {"messages": [], **transcript(bad)}  # absent messages are no messages
                        if isinstance(expected["messages"], list):  # messages with no content are not sent
                            messages = expected["messages"]  # blank text the API took goes back: it came from a request
                            expected["messages"] = [m for m in messages if m.get("content") != [] or m.get("role") == "system"]
                        self.assertEqual(canonical(adapter.request_from_items(items)), canonical(expected))

    def test_mutated_streams(self) -> None:
        rng = random.Random(3030)
        streams = [load_events(n) for n in files(".stream.jsonl")]
        streams += [synthetic_stream(message(SERVER_BLOCKS + [{"type": "text", "text": "cited", "citations": CITATIONS}]), 4)]
        for n, events in enumerate(streams):
            for round_ in range(self.ROUNDS):
                bad = mutate_stream(events, rng)
                with self.subTest(stream=n, round=round_):
                    items = outcome(self, lambda: adapter.items_from_stream(bad))
                    if items is not None:
                        self.assert_valid(items)
                    # Fed one event at a time, a refused event leaves the decoder usable.
                    decoder, state = adapter.stream_decoder(), FoldState()
                    for event in bad:
                        deltas = outcome(self, lambda: decoder.feed(event))
                        for delta in deltas or ():
                            state = fold(state, delta)
                    self.assert_valid([decoder.finish(state.finalize())])

    def test_bodies_that_are_not_objects(self) -> None:
        for bad in (None, [], "body", 3, {"content": "text"}, {"messages": {}}, {"system": 5}, {"messages": [{"role": "system", "content": "x"}]}, {"messages": [["x"]]}, {"id": 5}, {"usage": []}):
            with self.subTest(bad=bad):
                for call in (adapter.items_from_response, adapter.items_from_request):
                    outcome(self, lambda: self.assert_valid(call(bad)))  # type: ignore[arg-type]
        for call in (adapter.items_from_stream, adapter.request_from_items):
            for bad in (None, 5):
                with self.subTest(call=call.__name__, bad=bad), self.assertRaises(NormalizeError):
                    call(bad)  # type: ignore[arg-type]
        with self.assertRaises(NormalizeError):
            adapter.items_from_request({"messages": [{"role": "tool", "content": "x"}]})
        with self.assertRaises(NormalizeError):
            adapter.items_from_response({"content": [1]})


class ShapeTests(unittest.TestCase):
    def test_the_module_has_every_provider_function(self) -> None:
        for name in ("items_from_response", "items_from_request", "request_from_items", "stream_decoder", "items_from_stream", "events_from_sse"):
            self.assertTrue(callable(getattr(adapter, name)), name)
        decoder = adapter.stream_decoder()
        self.assertEqual((decoder.usage, decoder.finish_reason), (None, None))
        self.assertEqual(decoder.feed({"type": "ping"}), [])
        self.assertIsInstance(decoder.finish(()), Item)
        self.assertIsNot(adapter.stream_decoder(), decoder)

    def test_the_module_is_a_provider_adapter(self) -> None:
        from agentkit_core import ProviderAdapter

        def accepts(a: ProviderAdapter[dict[str, Any], dict[str, Any]]) -> bool:
            return callable(a.items_from_response) and callable(a.request_from_items) and callable(a.stream_decoder)

        self.assertTrue(accepts(adapter))  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
