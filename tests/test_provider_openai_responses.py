"""The OpenAI Responses projection (agentkit_core.providers.openai_responses).

Over every recorded file of tests/payloads/openai_responses: responses decode
to items that keep every native field; streams (``.stream.jsonl`` and the raw
``.sse.txt`` bodies) fold, closing every part by the event that ends the turn,
to exactly the item the non-streaming path gives for the same response; every
request's transcript survives items and back; the recorded follow-up request
is rebuilt from the conversation's items.  Then the documented item types and
stream events the recordings lack, as small hand-written payloads shaped like
openai-python's ``types/responses``, and a seeded mutation test: whatever the
public functions are given, only success or ``NormalizeError`` comes out.
"""

from __future__ import annotations

import copy
import json
import random
import unittest
from functools import partial
from typing import Any

from agentkit_core import (
    FINISH_REASON_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    PROVIDER_KEY,
    STREAM_CUT_KEY,
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
    PartsOutput,
    ProviderAdapter,
    ReasoningPart,
    SetMetadata,
    StructuredOutput,
    TextOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    fold,
    fold_all,
)
from agentkit_core.providers import openai_responses as A
from tests import recorded
from tests.mutation import mutate, mutate_stream, outcome
from tests.recorded import stored

P = "openai_responses"
RESPONSES = recorded.names(P, ".response.json")
REQUESTS = recorded.names(P, ".request.json")
STREAMS = recorded.names(P, ".stream.jsonl")
SSE = recorded.names(P, ".sse.txt")
load = partial(recorded.load, P)
load_stream = partial(recorded.load_events, P)


def load_sse(name: str) -> str:
    return recorded.raw(P, name).decode("utf-8")


def transcript_fields(request: dict[str, Any]) -> dict[str, Any]:
    return {k: request[k] for k in ("input", "instructions") if k in request}


def run_stream(events: list[dict[str, Any]]) -> tuple[Item, list[Any]]:
    """Feed and fold a whole stream; every part must be committed by its events alone."""
    decoder = A.stream_decoder()
    deltas = [d for e in events for d in decoder.feed(e)]
    state = fold_all(FoldState(), deltas)
    if state.is_open:
        raise AssertionError(state)
    return decoder.finish(state.parts), deltas


def terminal_with_done_items(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The terminal response, each output item replaced by its output_item.done copy, but for a reasoning
    item's ``encrypted_content``: the terminal's is the version to replay."""
    response: dict[str, Any] = copy.deepcopy(events[-1]["response"])
    done = {e["output_index"]: e["item"] for e in events if e["type"] == "response.output_item.done"}
    response["output"] = [with_terminal_state(done.get(i, item), item) for i, item in enumerate(response["output"])]
    return response


def with_terminal_state(done: dict[str, Any], terminal: dict[str, Any]) -> dict[str, Any]:
    """An output item's done copy with the terminal copy's ``encrypted_content`` (a reasoning item's)."""
    if done.get("type") == "reasoning" and isinstance(terminal.get("encrypted_content"), str):
        return {**done, "encrypted_content": terminal["encrypted_content"]}
    return done


def response(*output: dict[str, Any], status: str = "completed", **fields: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "output": list(output), **fields}


def replayed(body: dict[str, Any]) -> list[Any]:
    """What request_from_items writes for the items of a response."""
    return A.request_from_items(A.items_from_response(body))["input"]  # type: ignore[no-any-return]


class CorpusTest(unittest.TestCase):
    def test_corpus_is_all_here(self) -> None:
        self.assertEqual((len(RESPONSES), len(REQUESTS), len(STREAMS), len(SSE)), (7, 7, 7, 5))

    def test_module_is_a_provider_adapter(self) -> None:
        adapter: ProviderAdapter[dict[str, Any], dict[str, Any]] = A  # type: ignore[assignment]
        for name in ("items_from_response", "items_from_request", "request_from_items", "stream_decoder",
                     "items_from_stream", "events_from_sse"):
            self.assertTrue(callable(getattr(A, name)), name)
        decoder = adapter.stream_decoder()
        self.assertTrue(callable(decoder.feed) and callable(decoder.finish))
        self.assertIsNone(A.stream_decoder().usage)
        self.assertIsNone(A.stream_decoder().finish_reason)

    def test_sse_bodies_give_the_recorded_events(self) -> None:
        for name in SSE:
            with self.subTest(name):
                text = load_sse(name)
                events = load_stream(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertEqual(list(A.events_from_sse(text)), events)
                self.assertEqual(list(A.events_from_sse(text.encode("utf-8"))), events)
                self.assertEqual(list(A.events_from_sse(text.splitlines(keepends=True))), events)

    def test_a_lone_cr_ends_an_sse_line(self) -> None:
        for name in SSE:
            with self.subTest(name):
                body = recorded.with_lone_cr(recorded.raw(P, name))
                events = load_stream(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertNotIn(b"\n", body)
                self.assertEqual(list(A.events_from_sse(body)), events)
                self.assertEqual(list(A.events_from_sse(body.decode("utf-8"))), events)
                self.assertEqual(list(A.events_from_sse(recorded.after_each_cr(body))), events)


class ResponseTest(unittest.TestCase):
    def test_every_response_keeps_every_field(self) -> None:
        for name in RESPONSES:
            with self.subTest(name):
                body = load(name)
                [item] = A.items_from_response(body)
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                self.assertEqual(item.id, MessageId(body["id"]))
                # response level: everything but id/output/usage, verbatim, and the raw finish reason
                expected = {f"openai.{k}": v for k, v in body.items() if k not in ("id", "output", "usage")}
                details = body.get("incomplete_details") or {}
                expected[FINISH_REASON_KEY] = details.get("reason", body["status"])
                self.assertEqual(dict(item.metadata), expected)
                self.assertIsNotNone(item.usage)
                self.assertEqual(item.usage.metadata["openai.usage"], body["usage"])
                # output level: the parts regroup into the native output items
                self.assertEqual(A.request_from_items([item])["input"], body["output"])
                # what the replay leaves out stays on the parts
                logprobs = [e["logprobs"] for o in body["output"] if o["type"] == "message" for e in o["content"] if "logprobs" in e]
                self.assertEqual([p.metadata["openai.part.logprobs"] for p in item.parts if "openai.part.logprobs" in p.metadata], logprobs)
                # everything is plain JSON the neutral codec carries
                self.assertEqual(stored(item), item)

    def test_the_body_is_not_shared(self) -> None:
        body = load("responses.web_search_annotations.response.json")
        before = copy.deepcopy(body)
        [item] = A.items_from_response(body)
        body["output"][1]["content"][0]["annotations"].append("changed")
        self.assertEqual(A.request_from_items([item])["input"], before["output"])

    def test_reasoning_and_function_call(self) -> None:
        body = load("responses.reasoning_function_call.response.json")
        [item] = A.items_from_response(body)
        rs, fc = body["output"]
        *reasoning, call = item.parts
        self.assertEqual(len(rs["summary"]), 5)
        self.assertEqual(len(reasoning), 5)
        for i, part in enumerate(reasoning):
            self.assertIsInstance(part, ReasoningPart)
            self.assertEqual(part.summary, rs["summary"][i]["text"])  # each summary entry its own text
            self.assertEqual(part.metadata["openai.id"], rs["id"])
            self.assertEqual(part.metadata["openai.part.type"], "summary_text")
            self.assertEqual(part.metadata[PROVIDER_KEY], "openai")
            self.assertFalse(part.redacted)
        # the opaque blob, byte-exact, on the first part only
        self.assertEqual([p.data for p in reasoning if isinstance(p, ReasoningPart)],
                         [InlineText(rs["encrypted_content"])] + [None] * 4)
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual(call.id, ToolCallId("call_gL7JE6GDeGGsFubqO2XGytyO"))
        self.assertEqual(call.metadata["openai.id"], "fc_68c42d3e9e4881968b15fbb8253f58540e8bc41441c948f6")
        self.assertNotIn(PROVIDER_KEY, call.metadata)
        self.assertEqual(call.input, json.loads(fc["arguments"]))
        self.assertNotIn("openai.arguments", call.metadata)  # canonical: rebuilt from input
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.metadata["openai.status"], "completed")
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "completed")

    def test_usage_convention(self) -> None:
        cases = {
            "responses.reasoning_function_call.response.json": (124, 1926, 1792, 0, None),
            "responses.prompt_cache_hit.response.json": (4020, 5, 0, 4012, 0),
            "responses.function_call_output.response.json": (2087, 124, 0, 2048, None),
            "responses.incomplete_max_output_tokens.response.json": (21, 64, 64, 0, None),
        }
        for name, (inp, out, reasoning, cached, written) in cases.items():
            with self.subTest(name):
                [item] = A.items_from_response(load(name))
                self.assertIsNotNone(item.usage)
                self.assertIsNotNone(item.usage.tokens)
                t = item.usage.tokens
                self.assertEqual(
                    (t.input_tokens, t.output_tokens, t.reasoning_tokens, t.cached_input_tokens, t.cache_write_input_tokens),
                    (inp, out, reasoning, cached, written),
                )
                self.assertLessEqual(t.cached_input_tokens or 0, t.input_tokens)
                self.assertLessEqual(t.reasoning_tokens or 0, t.output_tokens)

    def test_usage_that_is_not_counts(self) -> None:
        for usage in ({"input_tokens": -1, "output_tokens": 2}, {"input_tokens": True, "output_tokens": 2}, {"output_tokens": 2}):
            with self.subTest(usage):
                [item] = A.items_from_response(response(usage=usage))
                self.assertIsNotNone(item.usage)
                self.assertIsNone(item.usage.tokens)
                self.assertEqual(item.usage.metadata["openai.usage"], usage)
        [item] = A.items_from_response(response(usage=None))
        self.assertIsNone(item.usage)

    def test_web_search_and_annotations(self) -> None:
        body = load("responses.web_search_annotations.response.json")
        [item] = A.items_from_response(body)
        ws, text = item.parts
        self.assertIsInstance(ws, CustomPart)
        self.assertIsInstance(text, TextPart)
        self.assertEqual(ws.kind, "openai.web_search_call")
        self.assertEqual(ws.value, body["output"][0])
        message = body["output"][1]
        self.assertEqual(text.text, message["content"][0]["text"])
        self.assertEqual(text.metadata["openai.part.annotations"], message["content"][0]["annotations"])
        self.assertEqual(text.metadata["openai.part.logprobs"], [])
        self.assertEqual(text.metadata["openai.id"], message["id"])
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)

    def test_phase_and_prompt_cache_fields(self) -> None:
        [item] = A.items_from_response(load("responses.prompt_cache_hit.response.json"))
        self.assertEqual(item.parts[0].metadata["openai.phase"], "final_answer")
        self.assertEqual(item.metadata["openai.prompt_cache_options"], {"mode": "explicit", "ttl": "30m"})
        self.assertEqual(item.metadata["openai.prompt_cache_retention"], "24h")

    def test_incomplete_max_output_tokens(self) -> None:
        [item] = A.items_from_response(load("responses.incomplete_max_output_tokens.response.json"))
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "max_output_tokens")  # the reason, not the status
        self.assertEqual(item.metadata["openai.incomplete_details"], {"reason": "max_output_tokens"})
        [part] = item.parts
        self.assertIsInstance(part, ReasoningPart)
        self.assertIsNone(part.summary)  # summary: [] is one part without summary
        self.assertEqual(part.metadata["openai.status"], "incomplete")

    def test_custom_tool_call(self) -> None:
        body = load("responses.custom_tool_call.response.json")
        [item] = A.items_from_response(body)
        reasoning, call = item.parts
        self.assertIsInstance(reasoning, ReasoningPart)
        self.assertIsInstance(call, ToolCallPart)
        self.assertIsNone(reasoning.data)  # no encrypted_content in this response
        self.assertEqual(reasoning.metadata[PROVIDER_KEY], "openai")  # but a reasoning item id
        self.assertEqual(call.input, "print(sum(range(10)))")  # free-form, not JSON
        self.assertEqual(call.metadata["openai.type"], "custom_tool_call")
        self.assertEqual(call.metadata["openai.id"], body["output"][1]["id"])
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("45\n"), metadata={"openai.type": "custom_tool_call_output"}),))
        self.assertEqual(
            A.request_from_items([result])["input"],
            [{"type": "custom_tool_call_output", "call_id": "call_4yLk2V9bQm7T1xR3sN8pW6Zd", "output": "45\n"}],
        )

    def test_finish_reason_mapping(self) -> None:
        call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}
        refusal = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                   "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
        reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
        text = {"type": "message", "id": "msg_2", "role": "assistant", "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}
        cases: list[tuple[dict[str, Any], list[Any], FinishReason, str | None]] = [
            ({"status": "completed"}, [], FinishReason.COMPLETED, "completed"),
            ({"status": "completed"}, [call], FinishReason.TOOL_CALL, "completed"),
            ({"status": "completed"}, [reasoning, refusal], FinishReason.BLOCKED, "completed"),
            ({"status": "completed"}, [refusal, text], FinishReason.COMPLETED, "completed"),
            ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, [], FinishReason.MAX_TOKENS, "max_output_tokens"),
            ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, [], FinishReason.BLOCKED, "content_filter"),
            ({"status": "incomplete", "incomplete_details": {"reason": "new_reason"}}, [], FinishReason.other("new_reason"), "new_reason"),
            ({"status": "incomplete", "incomplete_details": None}, [], FinishReason.other("incomplete"), "incomplete"),
            ({"status": "failed", "error": {"code": "server_error", "message": "boom"}}, [], FinishReason.ERROR, "failed"),
            ({"status": "cancelled"}, [], FinishReason.CANCELLED, "cancelled"),
            ({"status": "queued"}, [], FinishReason.other("queued"), "queued"),
            ({"status": "in_progress"}, [], FinishReason.other("in_progress"), "in_progress"),
            ({"status": None}, [], None, None),  # type: ignore[list-item]
        ]
        for fields, output, expected, raw in cases:
            with self.subTest(fields, output=[o["type"] for o in output]):
                [item] = A.items_from_response({"id": "resp_1", **fields, "output": output})
                self.assertEqual(item.finish_reason, expected)
                self.assertEqual(item.metadata.get(FINISH_REASON_KEY), raw)
                self.assertEqual(item.metadata["openai.status"], fields["status"])  # raw value kept

    def test_a_refusal_is_one_blocked_item_with_usage(self) -> None:
        usage = {"input_tokens": 12, "output_tokens": 9, "total_tokens": 21}
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                   "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
        [item] = A.items_from_response(response(message, usage=usage))
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "completed")
        self.assertIsNotNone(item.usage)
        self.assertEqual(item.usage.tokens, TokenUsage(12, 9))
        [part] = item.parts
        self.assertIsInstance(part, TextPart)
        self.assertEqual((part.text, part.metadata["openai.part.type"]), ("I can't help with that.", "refusal"))
        self.assertEqual(replayed(response(message)), [message])

    def test_an_error_body_is_one_errored_item(self) -> None:
        error = {"message": "Invalid 'input[0]'.", "type": "invalid_request_error", "param": "input[0]", "code": None}
        [item] = A.items_from_response({"error": error})
        self.assertEqual((item.parts, item.finish_reason), ((), FinishReason.ERROR))
        self.assertEqual((item.metadata[FINISH_REASON_KEY], item.metadata["openai.error"]), ("error", error))
        # a response's own error field does not override its status
        [failed] = A.items_from_response(response(status="failed", error={"code": "server_error", "message": "x"}))
        self.assertEqual((failed.finish_reason, failed.metadata[FINISH_REASON_KEY]), (FinishReason.ERROR, "failed"))
        [done] = A.items_from_response(response(error=None))
        self.assertEqual(done.finish_reason, FinishReason.COMPLETED)
        # the same error as a stream's payload with no event type (the SDKs raise on it): it ends the turn
        events = load_stream("responses.incomplete.reconstructed.stream.jsonl")[:-1] + [{"error": error}]
        streamed, _ = run_stream(events)
        self.assertEqual((streamed.finish_reason, streamed.metadata["openai.error"]), (FinishReason.ERROR, error))
        self.assertEqual(streamed.parts[0].text, "The capital of France is")  # type: ignore[attr-defined]

    def test_unknown_future_fields_survive(self) -> None:
        body = load("responses.web_search_annotations.response.json")
        body["future_top_level"] = {"x": [1, 2]}
        body["output"][0]["future_item_field"] = True
        message = body["output"][1]
        message["future_item_field"] = "m"
        message["content"][0]["future_part_field"] = None
        message["content"][0]["annotations"][0]["future_annotation_field"] = 3
        message["content"].append({"type": "output_audio_v9", "transcript": "hi", "id": "aud_1"})
        message["content"].append({"type": "refusal", "refusal": "I can't do that."})
        body["output"].append({"type": "brand_new_item", "id": "bn_1", "payload": [1, {"a": None}]})
        body["output"].append({"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": None,
                               "content": [{"type": "reasoning_text", "text": "raw"}]})
        [item] = A.items_from_response(body)
        self.assertEqual(item.metadata["openai.future_top_level"], {"x": [1, 2]})
        refusal = item.parts[3]
        self.assertIsInstance(refusal, TextPart)
        self.assertEqual((refusal.text, refusal.metadata["openai.part.type"]), ("I can't do that.", "refusal"))
        audio = item.parts[2]
        self.assertIsInstance(audio, CustomPart)
        self.assertEqual((audio.kind, audio.value), ("openai.output_audio_v9", message["content"][1]))
        self.assertEqual(audio.metadata["openai.future_item_field"], "m")
        new = item.parts[4]
        self.assertIsInstance(new, CustomPart)
        self.assertEqual((new.kind, new.value), ("openai.brand_new_item", body["output"][2]))
        reasoning = item.parts[-1]
        self.assertIsInstance(reasoning, ReasoningPart)
        self.assertEqual(reasoning.summary, "raw")  # content[] (reasoning_text) is readable reasoning
        self.assertEqual(reasoning.metadata["openai.part.type"], "reasoning_text")
        self.assertIsNone(reasoning.data)
        self.assertIsNone(reasoning.metadata["openai.encrypted_content"])  # null kept, not dropped
        self.assertEqual(A.request_from_items([item])["input"], body["output"])

    def test_arguments_kept_raw_only_when_needed(self) -> None:
        cases: list[tuple[str, Any, str | None]] = [
            ('{"a":1,"b":"é"}', {"a": 1, "b": "é"}, None),
            ('{"a": 1}', {"a": 1}, "openai.arguments"),  # whitespace the compact encoding would not give back
            ("", {}, "openai.arguments"),  # the fold's convention: empty is {}
            ('{"a":1', None, INPUT_JSON_KEY),  # malformed: the fold's convention, never raised
            ('{"a":NaN}', None, INPUT_JSON_KEY),  # Python's json takes these; the wire cannot carry them
            ('{"a":1e999}', None, INPUT_JSON_KEY),
            ('"\\ud800"', None, INPUT_JSON_KEY),
        ]
        for raw, value, kept in cases:
            with self.subTest(raw):
                native = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": raw}
                [item] = A.items_from_response(response(native))
                [call] = item.parts
                self.assertIsInstance(call, ToolCallPart)
                self.assertEqual(call.input, value)
                found = {k for k in ("openai.arguments", INPUT_JSON_KEY) if k in call.metadata}
                self.assertEqual(found, set() if kept is None else {kept})
                if kept is not None:
                    self.assertEqual(call.metadata[kept], raw)
                self.assertEqual(INPUT_ERROR_KEY in call.metadata, kept == INPUT_JSON_KEY)
                self.assertEqual(A.request_from_items([item])["input"], [native])

    def test_what_it_cannot_take(self) -> None:
        for body in (None, [], "resp", {"output": {"a": 1}}, {"output": "x"}, {"output": [(1, 2)]}, {"id": float("nan")},
                     {1: "x"}, {"output": [{"type": "message", "content": [{"type": "output_text", "text": "\ud800"}]}]}):
            with self.subTest(repr(body)[:60]):
                with self.assertRaises(NormalizeError):
                    A.items_from_response(body)  # type: ignore[arg-type]


class DocumentedItemsTest(unittest.TestCase):
    """Output and input item types from openai-python's types/responses that no recording shows."""

    ANNOTATIONS = [
        {"type": "url_citation", "start_index": 0, "end_index": 5, "url": "https://example.com", "title": "Ex"},
        {"type": "file_citation", "file_id": "file-1", "filename": "a.pdf", "index": 3},
        {"type": "container_file_citation", "container_id": "cntr_1", "file_id": "cfile_1", "filename": "o.csv",
         "start_index": 6, "end_index": 9},
        {"type": "file_path", "file_id": "file-2", "index": 7},
    ]
    LOGPROBS = [{"token": "Hello", "bytes": [72, 101, 108, 108, 111], "logprob": -0.01,
                 "top_logprobs": [{"token": "Hi", "bytes": [72, 105], "logprob": -4.5}]}]

    OUTPUT = {
        "web_search_call": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                            "action": {"type": "search", "query": "weather", "sources": [{"type": "url", "url": "https://w.example"}]}},
        "file_search_call": {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"],
                             "results": [{"file_id": "file-1", "filename": "a.pdf", "score": 0.9, "text": "...", "attributes": {}}]},
        "computer_call": {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed",
                          "action": {"type": "click", "button": "left", "x": 10, "y": 20}, "pending_safety_checks": []},
        "code_interpreter_call": {"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "container_id": "cntr_1",
                                  "code": "print(1)", "outputs": [{"type": "logs", "logs": "1\n"}]},
        "image_generation_call": {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="},
        "local_shell_call": {"type": "local_shell_call", "id": "ls_1", "call_id": "call_ls", "status": "completed",
                             "action": {"type": "exec", "command": ["ls", "-l"], "env": {}}},
        "shell_call": {"type": "shell_call", "id": "sh_1", "call_id": "call_sh", "status": "completed",
                       "action": {"commands": ["pwd"], "timeout_ms": 1000, "max_output_length": 100}},
        "apply_patch_call": {"type": "apply_patch_call", "id": "ap_1", "call_id": "call_ap", "status": "completed",
                             "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-a\n+b\n"}},
        "mcp_call": {"type": "mcp_call", "id": "mcp_1", "server_label": "s", "name": "t", "arguments": "{}", "output": "ok",
                     "error": None, "status": "completed"},
        "mcp_list_tools": {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "s",
                           "tools": [{"name": "t", "input_schema": {"type": "object"}, "annotations": None, "description": None}]},
        "mcp_approval_request": {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "s", "name": "t", "arguments": "{}"},
    }
    CLIENT = {"computer_call", "local_shell_call", "shell_call", "apply_patch_call", "mcp_approval_request"}

    def test_message_with_every_annotation_and_logprobs(self) -> None:
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "Hello world", "annotations": self.ANNOTATIONS, "logprobs": self.LOGPROBS},
            {"type": "refusal", "refusal": "but not that"},
        ]}
        [item] = A.items_from_response(response(message))
        text, refusal = item.parts
        self.assertIsInstance(text, TextPart)
        self.assertIsInstance(refusal, TextPart)
        self.assertEqual(text.metadata["openai.part.annotations"], self.ANNOTATIONS)
        self.assertEqual(text.metadata["openai.part.logprobs"], self.LOGPROBS)
        self.assertEqual(refusal.metadata["openai.part.type"], "refusal")
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)  # not refusals only
        self.assertEqual(replayed(response(message)), [message])  # verbatim, token logprobs too
        # a request's assistant message sends them back as it came
        self.assertEqual(A.request_from_items(A.items_from_request({"input": [message]}))["input"], [message])

    def test_reasoning_content_summary_and_encrypted_content(self) -> None:
        rs = {"type": "reasoning", "id": "rs_1", "status": "completed", "encrypted_content": "gAAAA-opaque",
              "content": [{"type": "reasoning_text", "text": "Step 1."}, {"type": "reasoning_text", "text": "Step 2."}],
              "summary": [{"type": "summary_text", "text": "Thought briefly."}]}
        [item] = A.items_from_response(response(rs))
        self.assertEqual([p.summary for p in item.parts if isinstance(p, ReasoningPart)], ["Step 1.", "Step 2.", "Thought briefly."])
        self.assertEqual([p.data for p in item.parts if isinstance(p, ReasoningPart)], [InlineText("gAAAA-opaque"), None, None])
        self.assertTrue(all(p.metadata[PROVIDER_KEY] == "openai" for p in item.parts))
        self.assertEqual(replayed(response(rs)), [rs])
        # entries whose type does not say which list they came from, and entries that are not objects with text
        odd = {"type": "reasoning", "id": "rs_2", "content": [{"type": "summary_text", "text": "x"}, 7],
               "summary": [{"type": "reasoning_text", "text": "y"}, {"type": "summary_text"}]}
        self.assertEqual(replayed(response(odd)), [odd])
        for shape in ({"type": "reasoning", "id": "rs_3"}, {"type": "reasoning", "summary": None},
                      {"type": "reasoning", "id": "rs_4", "summary": [], "content": []}):
            with self.subTest(shape):
                self.assertEqual(replayed(response(shape)), [shape])

    def test_server_and_client_tool_items(self) -> None:
        for itype, native in self.OUTPUT.items():
            with self.subTest(itype):
                [item] = A.items_from_response(response(native))
                [part] = item.parts
                self.assertIsInstance(part, CustomPart)
                self.assertEqual((part.kind, part.value), (f"openai.{itype}", native))
                self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL if itype in self.CLIENT else FinishReason.COMPLETED)
                self.assertEqual(replayed(response(native)), [native])
        # a call the output answers itself (a shell the server ran) does not wait for the client
        ran = {"type": "shell_call_output", "id": "sho_1", "call_id": "call_sh", "output": []}
        [item] = A.items_from_response(response(self.OUTPUT["shell_call"], ran))
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)

    def test_hosted_shell_calls_do_not_wait_for_the_client(self) -> None:
        """Three hosted-shell calls, one ``shell_call_output`` and the answer: a finished turn.

        Source: pydantic/pydantic-ai, tests/models/cassettes/test_openai_responses/
        test_openai_responses_hosted_shell_with_uploaded_file.yaml (its second /v1/responses response).
        """
        body = load("responses.hosted_shell.response.json")
        [item] = A.items_from_response(body)
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        self.assertEqual(item.text_content(), "2")
        local = {k: v for k, v in body["output"][0].items() if k != "environment"}
        for shell in (local, {**local, "environment": {"type": "local"}}):  # a shell the client runs still waits
            with self.subTest(shell.get("environment")):
                [item] = A.items_from_response(response(shell))
                self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)

    def test_a_replayed_answer_is_sent_back_as_it_came(self) -> None:
        """Output items go back verbatim, ``status`` and token ``logprobs`` too (OpenAI's follow-up is the earlier
        input plus ``response.output`` as it came); the recorded client's follow-up, which left them out, goes back
        as that client sent it.

        Source: pydantic/pydantic-ai, tests/models/cassettes/test_openai_responses/test_openai_responses_phase_live.yaml
        (its first response and the follow-up request; the encrypted reasoning shortened).
        """
        question = {"content": "What is the capital of PotatoLand?", "role": "user"}
        first = {"input": [question], "instructions": "Briefly narrate what you are about to do before calling each tool."}
        rs = {"encrypted_content": "gAAAAABp79WDw4XrgvYRqT5JP7i32L_akJcFj0qu", "id": "rs_094ebefab06f6c100069efd58250cc8195b3b443e9b3d9bd84",
              "summary": [], "type": "reasoning"}
        text = {"annotations": [], "text": "I'll check the capital lookup tool for \"PotatoLand.\"", "type": "output_text"}
        msg = {"content": [{**text, "logprobs": []}], "id": "msg_094ebefab06f6c100069efd58302b4819587854b18d82b5690",
               "phase": "commentary", "role": "assistant", "status": "completed", "type": "message"}
        fc = {"arguments": "{\"country\":\"PotatoLand\"}", "call_id": "call_ALAJMWK9buNN7RXxxXbECcHa",
              "id": "fc_094ebefab06f6c100069efd5833ce081959f3a131863e89e53", "name": "get_capital", "type": "function_call"}
        body = {"id": "resp_094ebefab06f6c100069efd5814cd881958cfa10878ca4446d", "object": "response", "status": "completed",
                "output": [rs, msg, {**fc, "status": "completed"}]}
        result = {"call_id": "call_ALAJMWK9buNN7RXxxXbECcHa", "output": "Potato City", "type": "function_call_output"}
        follow_up = {"input": [question, rs, {**msg, "content": [text]}, fc, result], "instructions": first["instructions"]}
        [answer] = A.items_from_response(body)
        *_, tool_turn = A.items_from_request(follow_up)
        rebuilt = A.request_from_items(A.items_from_request(first) + [answer, tool_turn])
        self.assertEqual(rebuilt, {**follow_up, "input": [question, *body["output"], result]})
        self.assertEqual(A.request_from_items(A.items_from_request(follow_up)), follow_up)

    def test_a_tool_search_the_client_runs_waits_for_it(self) -> None:
        """``tool_search_call`` with ``execution: "client"`` (the SDK's ResponseToolSearchCall) is the client's to answer.

        The answered pair is the one pydantic/pydantic-ai recorded in tests/models/cassettes/test_openai_responses/
        test_openai_deferred_capability_keeps_native_tool_search.yaml (its second request).
        """
        search = {"arguments": {"queries": ["refunds"]}, "call_id": "auto_load_0f10f8b659c3c105", "execution": "client",
                  "status": "completed", "type": "tool_search_call"}
        tool = {"defer_loading": True, "description": None, "name": "lookup_refund_policy", "strict": True, "type": "function",
                "parameters": {"additionalProperties": False, "properties": {"order_id": {"type": "string"}},
                               "required": ["order_id"], "type": "object"}}
        found = {"call_id": "auto_load_0f10f8b659c3c105", "execution": "client", "status": "completed", "tools": [tool],
                 "type": "tool_search_output"}
        cases = [((search,), FinishReason.TOOL_CALL), ((search, found), FinishReason.COMPLETED),
                 (({**search, "execution": "server"},), FinishReason.COMPLETED)]
        for output, finish in cases:
            with self.subTest(output=len(output), execution=output[0]["execution"]):
                [item] = A.items_from_response(response(*output))
                self.assertEqual(item.finish_reason, finish)
                self.assertEqual(replayed(response(*output)), list(output))
        request = {"input": [{"role": "user", "content": "First load the refunds capability."}, search, found]}
        kinds = [item.kind for item in A.items_from_request(request)]
        self.assertEqual(kinds, [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL])
        self.assertEqual(A.request_from_items(A.items_from_request(request)), request)

    def test_encrypted_state_on_other_items_is_marked(self) -> None:
        compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-summary"}
        [item] = A.items_from_response(response(compaction))
        self.assertEqual(item.parts[0].metadata[PROVIDER_KEY], "openai")
        self.assertEqual(replayed(response(compaction)), [compaction])

    def test_input_items_and_their_kinds(self) -> None:
        image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}
        inputs: list[tuple[dict[str, Any], ItemKind]] = [
            ({"type": "function_call_output", "call_id": "call_1", "output": "plain"}, ItemKind.TOOL),
            ({"type": "function_call_output", "call_id": "call_1", "id": "fco_1", "status": "completed", "output": [
                {"type": "input_text", "text": "see"}, image,
                {"type": "input_file", "file_id": "file-1", "filename": "a.pdf"},
                {"type": "input_file", "file_url": "https://example.com/a.pdf"},
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "b.pdf"}]}, ItemKind.TOOL),
            ({"type": "custom_tool_call_output", "call_id": "call_c", "output": "45\n"}, ItemKind.TOOL),
            ({"type": "custom_tool_call_output", "call_id": "call_c", "output": [{"type": "input_text", "text": "45"}]}, ItemKind.TOOL),
            ({"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AA=="},
              "acknowledged_safety_checks": []}, ItemKind.TOOL),
            ({"type": "local_shell_call_output", "id": "call_ls", "output": "{\"stdout\":\"x\"}"}, ItemKind.TOOL),
            ({"type": "shell_call_output", "call_id": "call_sh", "output": [{"stdout": "/", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}, ItemKind.TOOL),
            ({"type": "apply_patch_call_output", "call_id": "call_ap", "status": "completed", "output": "ok"}, ItemKind.TOOL),
            ({"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True, "reason": None}, ItemKind.USER),
            ({"type": "item_reference", "id": "msg_0"}, ItemKind.ASSISTANT),
            ({"id": "msg_0"}, ItemKind.ASSISTANT),  # item_reference's type is optional
            ({"role": "system", "content": "Be brief."}, ItemKind.SYSTEM),
            ({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Rules."}]}, ItemKind.DEVELOPER),
            ({"type": "message", "role": "critic", "content": "odd role"}, ItemKind.USER),
            *[(native, ItemKind.ASSISTANT) for native in self.OUTPUT.values()],
        ]
        request = {"input": [native for native, _ in inputs]}
        items = A.items_from_request(request)
        self.assertEqual([i.kind for i in items], [kind for _, kind in inputs])
        self.assertEqual(A.request_from_items(items), request)
        results = [p for p in items[1].parts if isinstance(p, ToolResultPart)]
        self.assertIsInstance(results[0].output, PartsOutput)
        text, media, by_id, by_url, inline = results[0].output.parts
        self.assertEqual(text, TextPart("see", metadata={"openai.part.type": "input_text"}))
        self.assertIsInstance(media, MediaPart)
        self.assertIsInstance(by_id, FilePart)
        self.assertIsInstance(by_url, FilePart)
        self.assertIsInstance(inline, FilePart)
        self.assertEqual((media.mime_type, media.data), ("image/png", InlineText("iVBORw0KGgo=")))
        self.assertEqual((by_id.data, by_id.name), (Handle(ArtifactId("file-1")), "a.pdf"))
        self.assertEqual(by_url.data, Uri("https://example.com/a.pdf"))
        self.assertEqual((inline.mime_type, inline.data, inline.name), ("application/pdf", InlineText("JVBERi0="), "b.pdf"))
        self.assertEqual(items[13].parts[0].metadata["openai.role"], "critic")


class StreamTest(unittest.TestCase):
    def test_stream_agrees_with_non_streaming(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                events = load_stream(name)
                item, _ = run_stream(events)
                [expected] = A.items_from_response(terminal_with_done_items(events))
                self.assertEqual(item, expected)
                self.assertEqual(item.to_dict(), expected.to_dict())
                self.assertEqual(A.items_from_stream(events), [item])

    def test_raw_sse_bodies_fold_to_the_same_items(self) -> None:
        for name in SSE:
            with self.subTest(name):
                from_sse = A.items_from_stream(A.events_from_sse(load_sse(name)))
                self.assertEqual(from_sse, A.items_from_stream(load_stream(name.replace(".sse.txt", ".stream.jsonl"))))

    def test_a_terminal_copy_under_another_id_is_not_a_second_item(self) -> None:
        """OpenRouter's terminal response renames the streamed reasoning item (``rs_tmp_...``).

        Source: pydantic/pydantic-ai, tests/models/cassettes/test_openai_responses/
        test_openai_responses_raw_cot_stream_openrouter.yaml (its recorded SSE body).
        """
        events = load_stream("responses.openrouter_renamed_reasoning.stream.jsonl")
        [item] = A.items_from_stream(events)
        reasoning, text = item.parts
        self.assertIsInstance(reasoning, ReasoningPart)
        self.assertIsInstance(text, TextPart)
        self.assertEqual(reasoning.metadata["openai.id"], "rs_tmp_2kbe7x16sax")  # as its events named it
        self.assertEqual(reasoning.summary, events[-1]["response"]["output"][0]["content"][0]["text"])
        self.assertEqual(text.text, "4")
        # an item the stream never announced is still added from the terminal copy
        events[-1]["response"]["output"].append({"type": "message", "id": "msg_late", "role": "assistant",
                                                 "content": [{"type": "output_text", "text": "late"}]})
        [item] = A.items_from_stream(events)
        self.assertEqual([p.metadata["openai.id"] for p in item.parts], ["rs_tmp_2kbe7x16sax", "msg_tmp_8cjof4f6zpw", "msg_late"])

    def test_the_terminal_event_closes_every_part(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                events = load_stream(name)
                decoder, state = A.stream_decoder(), FoldState()
                for event in events[:-1]:
                    state = fold_all(state, decoder.feed(event))
                self.assertIsNone(decoder.finish_reason)
                state = fold_all(state, decoder.feed(events[-1]))
                self.assertFalse(state.is_open)
                self.assertIsNotNone(decoder.finish_reason)
                self.assertEqual(decoder.feed(events[-1]), [])  # nothing after the end

    def test_text_only_grows_by_appending(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                decoder, state = A.stream_decoder(), FoldState()
                seen: dict[int, list[str]] = {}
                for event in load_stream(name):
                    for delta in decoder.feed(event):
                        state = fold(state, delta)
                        for i, part in enumerate(state.snapshot()):
                            text = part.text if isinstance(part, TextPart) else part.summary if isinstance(part, ReasoningPart) else None
                            if text is not None:
                                seen.setdefault(i, []).append(text)
                final = state.parts
                self.assertTrue(seen or name.startswith(("responses.function_call", "responses.shell_call")))  # no text
                for i, texts in seen.items():
                    last = final[i].text if isinstance(final[i], TextPart) else final[i].summary  # type: ignore[attr-defined]
                    for text in texts:
                        self.assertTrue(last.startswith(text), (i, text[-20:]))

    def test_live_usage_and_finish_reason(self) -> None:
        expected = {
            "responses.function_call.stream.jsonl": FinishReason.TOOL_CALL,
            "responses.function_call_2025_03.stream.jsonl": FinishReason.TOOL_CALL,
            "responses.reasoning_summary.stream.jsonl": FinishReason.COMPLETED,
            "responses.web_search_annotations.stream.jsonl": FinishReason.COMPLETED,
            "responses.incomplete.reconstructed.stream.jsonl": FinishReason.MAX_TOKENS,
            "responses.openrouter_renamed_reasoning.stream.jsonl": FinishReason.COMPLETED,
            "responses.shell_call_commands.stream.jsonl": FinishReason.TOOL_CALL,
        }
        self.assertEqual(set(expected), set(STREAMS))
        for name, finish in expected.items():
            with self.subTest(name):
                events = load_stream(name)
                decoder = A.stream_decoder()
                for event in events[:-1]:
                    decoder.feed(event)
                    self.assertIsNone(decoder.finish_reason)
                    if decoder.usage is not None:  # only ever what an event carried
                        self.assertEqual(decoder.usage.metadata["openai.usage"], event["response"]["usage"])
                decoder.feed(events[-1])
                self.assertEqual(decoder.finish_reason, finish)
                usage = events[-1]["response"]["usage"]
                self.assertIsNotNone(decoder.usage)
                self.assertIsNotNone(decoder.usage.tokens)
                self.assertEqual((decoder.usage.tokens.input_tokens, decoder.usage.tokens.output_tokens),
                                 (usage["input_tokens"], usage["output_tokens"]))

    def test_done_items_differ_from_the_terminal_copy_only_in_encrypted_content(self) -> None:
        differing = 0
        for name in STREAMS:
            with self.subTest(name):
                events = load_stream(name)
                terminal = events[-1]["response"]["output"]
                for e in events:
                    if e["type"] != "response.output_item.done":
                        continue
                    done, final = e["item"], terminal[e["output_index"]]
                    kept = ("encrypted_content", "id") if "openrouter" in name else ("encrypted_content",)  # it renames
                    strip = {k: v for k, v in done.items() if k not in kept}
                    self.assertEqual(strip, {k: v for k, v in final.items() if k not in kept})
                    differing += done.get("encrypted_content") != final.get("encrypted_content")
        self.assertEqual(differing, 2)  # function_call and reasoning_summary: real streams re-encrypt

    def test_reasoning_carries_the_terminal_encrypted_content(self) -> None:
        """The stream sends three versions; the terminal response's is the one the API means to be replayed."""
        for name in ("responses.function_call.stream.jsonl", "responses.reasoning_summary.stream.jsonl"):
            with self.subTest(name):
                events = load_stream(name)
                added = next(e["item"] for e in events if e["type"] == "response.output_item.added")
                done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
                final = events[-1]["response"]["output"][0]
                item, _ = run_stream(events)
                first = item.parts[0]
                self.assertIsInstance(first, ReasoningPart)
                self.assertEqual(first.data, InlineText(final["encrypted_content"]))
                self.assertNotEqual(done["encrypted_content"], added["encrypted_content"])
                self.assertNotEqual(done["encrypted_content"], final["encrypted_content"])
                replay = A.request_from_items([item])["input"][0]
                self.assertEqual(replay["encrypted_content"], final["encrypted_content"])

    def test_reasoning_summary_parts_stream_separately(self) -> None:
        events = load_stream("responses.reasoning_summary.stream.jsonl")
        decoder, state = A.stream_decoder(), FoldState()
        seen_open: set[str] = set()
        for event in events:
            for delta in decoder.feed(event):
                state = fold(state, delta)
            seen_open.update(p.value for p in state.open_ids)
        self.assertEqual(seen_open, {"0", "0.1", "0.2", "0.3", "1"})
        summaries = [p.summary for p in state.parts if isinstance(p, ReasoningPart)]
        done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
        self.assertEqual(summaries, [s["text"] for s in done["summary"]])

    def test_open_parts_show_progress(self) -> None:
        events = load_stream("responses.web_search_annotations.stream.jsonl")
        decoder, state = A.stream_decoder(), FoldState()
        texts: list[str] = []
        statuses: list[Any] = []
        annotated = False
        for event in events:
            for delta in decoder.feed(event):
                state = fold(state, delta)
                if isinstance(delta, AppendText):
                    [open_text] = [p for p in state.snapshot() if isinstance(p, TextPart)]
                    texts.append(open_text.text)
                if isinstance(delta, SetMetadata) and "openai.part.annotations" in delta.metadata:
                    annotated = True
                    [open_text] = [p for p in state.snapshot() if isinstance(p, TextPart)]
                    notes: Any = open_text.metadata["openai.part.annotations"]
                    self.assertEqual(notes[0]["start_index"], 94)
            if PartId("0") in state.open_ids:  # the web search, open: its kind and status so far
                search = state.snapshot()[0]
                self.assertIsInstance(search, CustomPart)
                self.assertEqual(search.kind, "openai.web_search_call")
                statuses.append(search.metadata.get("openai.status"))
        self.assertTrue(annotated)
        self.assertEqual(statuses, [None, "in_progress", "searching", "completed"])
        self.assertEqual(len(texts), 6)
        for shorter, longer in zip(texts, texts[1:]):
            self.assertTrue(longer.startswith(shorter) and len(longer) > len(shorter))
        final = [p for p in state.parts if isinstance(p, TextPart)][0]
        self.assertEqual(final.text, texts[-1])
        self.assertNotIn("openai.status", state.parts[0].metadata)  # the commit is authoritative

    def test_tool_arguments_grow_as_raw_json(self) -> None:
        events = load_stream("responses.function_call.stream.jsonl")
        decoder, state = A.stream_decoder(), FoldState()
        seen: list[str] = []
        for event in events:
            for delta in decoder.feed(event):
                state = fold(state, delta)
                if isinstance(delta, AppendText):
                    call = state.snapshot()[1]
                    self.assertIsInstance(call, ToolCallPart)
                    seen.append(call.metadata[INPUT_JSON_KEY])  # type: ignore[arg-type]
                    # the fold's header keys name the open call while its arguments stream
                    self.assertEqual((call.id, call.name), (ToolCallId("call_CWXgs68YprAjp6t0371hiPOI"), "final_result"))
                    self.assertTrue(str(call.metadata["openai.id"]).startswith("fc_"))
        self.assertEqual(seen[-1], '{"result":6666}')
        self.assertEqual(seen[0], '{"')
        call = state.parts[1]
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("call_CWXgs68YprAjp6t0371hiPOI"), "final_result", {"result": 6666}))
        self.assertNotIn(INPUT_JSON_KEY, call.metadata)

    def test_parallel_calls_interleaved_arrive_whole(self) -> None:
        # Synthetic, from the recorded 2025-03 stream: a second call at output_index 1 whose
        # fragments interleave with the first's (the corpus has no recorded parallel stream).
        events = load_stream("responses.function_call_2025_03.stream.jsonl")
        head, body, tail = events[:2], events[2:-1], events[-1]

        def second(e: dict[str, Any]) -> dict[str, Any]:
            e = json.loads(json.dumps(e).replace("France", "Japan").replace("fc_67e5", "fc_99e5")
                           .replace("call_kL0P", "call_zZ0P"))
            e["output_index"] = 1
            return e

        mixed = []
        for a, b in zip(body, map(second, body)):
            mixed += [a, b]
        final = copy.deepcopy(tail)
        final["response"]["output"].append(second({"output_index": 0, "item": tail["response"]["output"][0]})["item"])
        item, _ = run_stream(head + mixed + [final])
        calls = [p for p in item.parts if isinstance(p, ToolCallPart)]
        self.assertEqual([c.input for c in calls], [{"country": "France"}, {"country": "Japan"}])
        self.assertEqual([c.id.value[:9] for c in calls], ["call_kL0P", "call_zZ0P"])
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        [expected] = A.items_from_response(final["response"])
        self.assertEqual(item, expected)

    def test_incomplete_stream_closes_from_the_terminal_response(self) -> None:
        events = load_stream("responses.incomplete.reconstructed.stream.jsonl")
        item, deltas = run_stream(events)
        self.assertIsInstance(deltas[-1], CommitPart)  # closed by response.incomplete
        [text] = item.parts
        self.assertIsInstance(text, TextPart)
        self.assertEqual(text.text, "The capital of France is")
        self.assertEqual(text.metadata["openai.status"], "incomplete")
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "max_output_tokens")

    def test_error_event_closes_open_parts(self) -> None:
        events = load_stream("responses.incomplete.reconstructed.stream.jsonl")[:-1]
        events.append({"type": "error", "sequence_number": 5, "code": "server_error", "message": "boom", "param": None})
        item, _ = run_stream(events)
        [text] = item.parts
        self.assertEqual(text, TextPart("The capital of France is", metadata=text.metadata))
        self.assertEqual(text.metadata["openai.part.annotations"], [])
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "error")
        self.assertEqual(item.metadata["openai.error"], {"code": "server_error", "message": "boom", "param": None})
        # the error as an envelope, as the API also sends it: the same error object
        error = {"type": "server_error", "code": "server_error", "message": "boom", "param": None}
        events[-1] = {"type": "error", "sequence_number": 5, "error": error}
        enveloped, _ = run_stream(events)
        self.assertEqual(enveloped.metadata["openai.error"], error)
        self.assertEqual(enveloped.finish_reason, FinishReason.ERROR)

    def test_part_ids_unique_and_derived_from_indices(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                _, deltas = run_stream(load_stream(name))
                begun = [d.part_id.value for d in deltas if isinstance(d, BeginPart)]
                self.assertEqual(len(begun), len(set(begun)))
                committed = [d.part_id.value for d in deltas if isinstance(d, CommitPart) and d.part_id is not None]
                self.assertEqual(sorted(begun), sorted(committed))
                self.assertTrue(all(p.split(".")[0].isdigit() for p in begun))

    def test_a_stream_cut_short_folds_what_arrived(self) -> None:
        events = load_stream("responses.function_call.stream.jsonl")
        cut = [e for e in events if e["type"] not in ("response.function_call_arguments.done", "response.output_item.done",
                                                      "response.completed")][:-2]
        [item] = A.items_from_stream(cut)
        # No terminal event: the turn did not finish, and the call whose arguments were cut off is dropped.
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertFalse(item.tool_calls())
        [dropped] = item.metadata[STREAM_CUT_KEY]["dropped_calls"]  # type: ignore[index]
        self.assertTrue(dropped["arguments"].startswith('{"'))  # type: ignore[index]
        self.assertEqual(A.items_from_stream(events)[0].finish_reason, FinishReason.TOOL_CALL)


def stream(*events: dict[str, Any], terminal: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A hand-written stream: created, the events, and a terminal event (default: completed with no output)."""
    created = {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": [], "usage": None}}
    end = terminal or {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": None}}
    return [created, *events, end]


def completed(*output: dict[str, Any], status: str = "completed", kind: str = "response.completed", **fields: Any) -> dict[str, Any]:
    return {"type": kind, "response": {"id": "resp_1", "status": status, "output": list(output),
                                       "usage": {"input_tokens": 5, "output_tokens": 7}, **fields}}


class DocumentedEventsTest(unittest.TestCase):
    """Stream events from openai-python's response_stream_event.py that no recording shows."""

    def check(self, events: list[dict[str, Any]]) -> tuple[Item, list[Any]]:
        item, deltas = run_stream(events)
        terminal = events[-1].get("response")
        if terminal is not None:  # what the stream gives is what the response gives
            done = {e["output_index"]: e["item"] for e in events if e["type"] == "response.output_item.done"}
            body = {**terminal, "output": [with_terminal_state(done.get(i, o), o) for i, o in enumerate(terminal["output"])]}
            [expected] = A.items_from_response(body)
            self.assertEqual(item, expected)
        return item, deltas

    def test_reasoning_text_then_summary(self) -> None:
        added = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-added"}
        done = {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA-done",
                "content": [{"type": "reasoning_text", "text": "Let me think."}],
                "summary": [{"type": "summary_text", "text": "Thought."}]}
        at = {"output_index": 0, "item_id": "rs_1"}
        events = stream(
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.content_part.added", **at, "content_index": 0, "part": {"type": "reasoning_text", "text": ""}},
            {"type": "response.reasoning_text.delta", **at, "content_index": 0, "delta": "Let me "},
            {"type": "response.reasoning_text.delta", **at, "content_index": 0, "delta": "think."},
            {"type": "response.reasoning_text.done", **at, "content_index": 0, "text": "Let me think."},
            {"type": "response.reasoning_summary_part.added", **at, "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", **at, "summary_index": 0, "delta": "Thought"},
            {"type": "response.reasoning_summary_text.done", **at, "summary_index": 0, "text": "Thought."},
            {"type": "response.reasoning_summary_part.done", **at, "summary_index": 0, "part": {"type": "summary_text", "text": "Thought."}},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            terminal=completed({**done, "encrypted_content": "gAAAA-terminal"}),
        )
        item, deltas = self.check(events)
        self.assertEqual([p.summary for p in item.parts], ["Let me think.", "Thought."])  # type: ignore[attr-defined]
        self.assertEqual(item.parts[0].data, InlineText("gAAAA-terminal"))  # type: ignore[attr-defined]
        # the summary's .done event appended what its deltas lacked
        self.assertEqual([d.chunk for d in deltas if isinstance(d, AppendText)], ["Let me ", "think.", "Thought", "."])
        self.assertEqual(A.request_from_items([item])["input"], [{**done, "encrypted_content": "gAAAA-terminal"}])

    def test_refusal_stream_is_blocked(self) -> None:
        item0 = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
        final = {**item0, "status": "completed", "content": [{"type": "refusal", "refusal": "I can't help."}]}
        at = {"output_index": 0, "item_id": "msg_1", "content_index": 0}
        events = stream(
            {"type": "response.output_item.added", "output_index": 0, "item": item0},
            {"type": "response.content_part.added", **at, "part": {"type": "refusal", "refusal": ""}},
            {"type": "response.refusal.delta", **at, "delta": "I can't "},
            {"type": "response.refusal.delta", **at, "delta": "help."},
            {"type": "response.refusal.done", **at, "refusal": "I can't help."},
            {"type": "response.output_item.done", "output_index": 0, "item": final},
            terminal=completed(final),
        )
        item, _ = self.check(events)
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "completed")
        self.assertIsNotNone(item.usage)
        self.assertEqual(item.usage.tokens, TokenUsage(5, 7))

    def test_custom_tool_call_input_streams(self) -> None:
        added = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "python", "input": "", "status": "in_progress"}
        done = {**added, "input": "print(1)", "status": "completed"}
        events = stream(
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": "print("},
            {"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": "1)"},
            {"type": "response.custom_tool_call_input.done", "output_index": 0, "item_id": "ctc_1", "input": "print(1)"},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            terminal=completed(done),
        )
        item, deltas = self.check(events)
        self.assertEqual([d.chunk for d in deltas if isinstance(d, AppendText)], ["print(", "1)"])
        [call] = item.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.name, call.input), ("python", "print(1)"))
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)

    def test_a_custom_tool_call_cut_off_goes_back_as_one(self) -> None:
        """A stream that ends mid custom-tool input (no terminal event) folds to a call that replays as it was.

        Events from pydantic/pydantic-ai, tests/models/cassettes/test_openai_responses/
        test_gpt5_freeform_text_streaming.yaml (its first stream, cut after the fourth input delta).
        """
        ctc = "ctc_0e3f1d7b90a3b1d70069580db5e9d08191a1bd569bc6a4ce56"
        at = {"output_index": 1, "item_id": ctc}
        events = [
            {"type": "response.output_item.added", "sequence_number": 4, "output_index": 1,
             "item": {"id": ctc, "type": "custom_tool_call", "status": "in_progress",
                      "call_id": "call_2GHkSm2Jm0n7vgXsQEryfGmL", "input": "", "name": "execute_sql"}},
            {"type": "response.custom_tool_call_input.delta", "sequence_number": 5, **at, "delta": "SELECT",
             "obfuscation": "pSBNMtqYmN"},
            {"type": "response.custom_tool_call_input.delta", "sequence_number": 6, **at, "delta": " *",
             "obfuscation": "lLTbiVQ8hHSFp4"},
            {"type": "response.custom_tool_call_input.delta", "sequence_number": 7, **at, "delta": " FROM",
             "obfuscation": "xKXNbmgNqCv"},
            {"type": "response.custom_tool_call_input.delta", "sequence_number": 8, **at, "delta": " users",
             "obfuscation": "CmLWzfqc06"},
        ]
        [item] = A.items_from_stream(events)
        self.assertEqual((item.parts, item.finish_reason), ((), FinishReason.ERROR))  # cut off: not a call to run
        self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": [
            {"id": "call_2GHkSm2Jm0n7vgXsQEryfGmL", "name": "execute_sql", "arguments": "SELECT * FROM users"}]})
        self.assertEqual(A.request_from_items([item])["input"], [])

    def test_annotation_under_its_older_name_and_queued(self) -> None:
        item0 = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
        note = {"type": "file_citation", "file_id": "file-1", "filename": "a.pdf", "index": 2}
        at = {"output_index": 0, "item_id": "msg_1", "content_index": 0}
        events = [
            {"type": "response.queued", "response": {"id": "resp_1", "status": "queued", "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": item0},
            {"type": "response.content_part.added", **at, "part": {"type": "output_text", "text": "", "annotations": []}},
            {"type": "response.output_text.delta", **at, "delta": "Hi"},
            {"type": "response.output_text_annotation.added", **at, "annotation_index": 0, "annotation": note},
        ]
        decoder, state = A.stream_decoder(), FoldState()
        for event in events:
            state = fold_all(state, decoder.feed(event))
        [open_text] = state.snapshot()
        self.assertEqual(open_text.metadata["openai.part.annotations"], [note])
        [item] = [decoder.finish(state.finalize())]
        self.assertEqual((item.id, item.finish_reason), (MessageId("resp_1"), FinishReason.ERROR))  # no terminal event
        self.assertEqual(item.metadata["openai.status"], "queued")

    def test_server_tool_progress_events(self) -> None:
        cases = {
            "code_interpreter_call": ("in_progress", "interpreting", "completed"),
            "file_search_call": ("in_progress", "searching", "completed"),
            "image_generation_call": ("in_progress", "generating", "completed"),
            "mcp_call": ("in_progress", "failed"),
            "mcp_list_tools": ("in_progress", "completed"),
        }
        for itype, phases in cases.items():
            with self.subTest(itype):
                added = {"type": itype, "id": "x_1", "status": "in_progress"}
                done = {**added, "status": phases[-1]}
                events = stream(
                    {"type": "response.output_item.added", "output_index": 0, "item": added},
                    *[{"type": f"response.{itype}.{phase}", "output_index": 0, "item_id": "x_1"} for phase in phases],
                    {"type": "response.output_item.done", "output_index": 0, "item": done},
                    terminal=completed(done),
                )
                item, deltas = self.check(events)
                shown = [d.metadata.get("openai.status") for d in deltas if isinstance(d, SetMetadata)]
                self.assertEqual(shown[1:], list(phases))  # after the custom kind header
                self.assertEqual(item.parts, (CustomPart(f"openai.{itype}", value=done),))

    def test_cut_short_server_items_keep_their_fragments(self) -> None:
        added = {"type": "code_interpreter_call", "id": "ci_1", "status": "in_progress", "code": "", "container_id": "c"}
        mcp = {"type": "mcp_call", "id": "mcp_1", "status": "in_progress", "name": "t", "server_label": "s", "arguments": ""}
        events = [
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.code_interpreter_call_code.delta", "output_index": 0, "item_id": "ci_1", "delta": "print("},
            {"type": "response.code_interpreter_call_code.delta", "output_index": 0, "item_id": "ci_1", "delta": "2)"},
            {"type": "response.output_item.added", "output_index": 1, "item": mcp},
            {"type": "response.mcp_call_arguments.delta", "output_index": 1, "item_id": "mcp_1", "delta": '{"a":'},
            {"type": "error", "code": None, "message": "gone", "param": None, "sequence_number": 9},
        ]
        item, _ = run_stream(events)
        code, call = item.parts
        self.assertEqual(code.value["code"], "print(2)")  # type: ignore[attr-defined,index,call-overload]
        self.assertEqual(call.value["arguments"], '{"a":')  # type: ignore[attr-defined,index,call-overload]
        self.assertEqual(item.finish_reason, FinishReason.ERROR)

    def test_a_shell_call_cut_short_keeps_the_commands_that_arrived(self) -> None:
        """A recorded local-shell call (vercel/ai ``openai-shell-tool.1.chunks.txt``, first stream), then cut short.

        Its commands stream in ``shell_call_command.added`` / ``delta`` / ``done``
        events, which were ignored: a call the stream cut off went back with the
        empty ``commands`` of its ``output_item.added``.  So did an
        ``apply_patch_call``'s ``operation.diff`` (``apply_patch_call_operation_diff.*``).
        """
        events = load_stream("responses.shell_call_commands.stream.jsonl")
        [whole] = A.items_from_stream(events)
        [expected] = A.items_from_response(events[-1]["response"])
        self.assertEqual(whole, expected)
        cut = events[:8]  # up to the fourth command delta: "ls -a ~/"
        incomplete = {**events[-1]["response"], "status": "incomplete", "output": [],
                      "incomplete_details": {"reason": "max_output_tokens"}}
        item, _ = run_stream([*cut, {"type": "response.incomplete", "response": incomplete}])
        [call] = A.request_from_items([item])["input"]
        self.assertEqual(call["action"], {**events[2]["item"]["action"], "commands": ["ls -a ~/"]})
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        patch = {"id": "apc_1", "type": "apply_patch_call", "status": "in_progress", "call_id": "call_1",
                 "operation": {"type": "create_file", "path": "a.md", "diff": ""}}
        item, _ = run_stream(stream(
            {"type": "response.output_item.added", "output_index": 0, "item": patch},
            {"type": "response.apply_patch_call_operation_diff.delta", "output_index": 0, "delta": "+## A"},
            {"type": "response.apply_patch_call_operation_diff.delta", "output_index": 0, "delta": "\n"},
            terminal={"type": "response.incomplete", "response": incomplete}))
        [call] = A.request_from_items([item])["input"]
        self.assertEqual(call["operation"], {**patch["operation"], "diff": "+## A\n"})

    def test_failed_response_and_a_call_cut_mid_arguments(self) -> None:
        added = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "", "status": "in_progress"}
        events = stream(
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": '{"city": "Par'},
            terminal=completed(status="failed", kind="response.failed", error={"code": "server_error", "message": "x"}),
        )
        item, _ = run_stream(events)
        [call] = item.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("call_1"), "f", None))
        self.assertEqual(call.metadata[INPUT_JSON_KEY], '{"city": "Par')  # the fold's convention
        self.assertIn(INPUT_ERROR_KEY, call.metadata)
        self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.ERROR, "failed"))
        # and the incomplete terminal copy of the same call, cut by max_output_tokens
        cut = {**added, "arguments": '{"city": "Par', "status": "incomplete"}
        events[-1] = completed(cut, status="incomplete", kind="response.incomplete", incomplete_details={"reason": "max_output_tokens"})
        item, _ = self.check(events)
        self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.MAX_TOKENS, "max_output_tokens"))
        self.assertEqual(A.request_from_items([item])["input"], [cut])

    def test_items_the_stream_never_announced_come_from_the_terminal_response(self) -> None:
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}
        item, _ = self.check(stream(terminal=completed(message)))
        self.assertEqual(item.text_content(), "Hi")

    def test_a_done_item_whose_added_event_the_stream_lacks_is_kept(self) -> None:
        """A stream resumed past an item's ``output_item.added`` (``starting_after``) still gives the item.

        The events are pydantic-ai's recorded background-mode stream
        (``test_openai_responses/test_background_mode_streaming_continuation_vcr.yaml``)
        from sequence number 4 on; the terminal response carries ``output: null``,
        as the backends openai-python's ``test_null_output_streaming.py`` falls
        back for send it.  The item used to be dropped: its ``done`` was ignored.
        """
        mid = "msg_02e13c3a3d66fc9500699cb03beca081978d4ecbf06a3ad88f"
        text = "2 + 2 equals 4."
        entry = {"annotations": [], "text": text, "logprobs": [], "type": "output_text"}
        message = {"id": mid, "content": [entry], "role": "assistant", "status": "completed", "type": "message"}
        where = {"item_id": mid, "content_index": 0, "output_index": 0}
        events = [
            {"type": "response.content_part.added", **where, "part": {**entry, "text": ""}, "sequence_number": 4},
            *({"type": "response.output_text.delta", "delta": d, "logprobs": [], **where, "sequence_number": 5 + n}
              for n, d in enumerate(["2", " +", " ", "2", " equals", " ", "4", "."])),
            {"type": "response.output_text.done", "text": text, "logprobs": [], **where, "sequence_number": 13},
            {"type": "response.content_part.done", **where, "part": entry, "sequence_number": 14},
            {"type": "response.output_item.done", "item": message, "output_index": 0, "sequence_number": 15},
        ]
        terminal = completed(message)
        terminal["response"]["output"] = None
        item, _ = run_stream(stream(*events, terminal=terminal))
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        [expected] = A.items_from_response(completed(message)["response"])
        self.assertEqual(item.parts, expected.parts)
        # a second done for the same item adds nothing
        item, _ = run_stream(stream(*events, events[-1], terminal=completed(message)))
        self.assertEqual(item.parts, expected.parts)

    def test_text_deltas_without_their_part_announced(self) -> None:
        item0 = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
        events = [
            {"type": "response.output_item.added", "output_index": 0, "item": item0},
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hel"},
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "lo"},
        ]
        decoder, state = A.stream_decoder(), FoldState()
        for event in events:
            state = fold_all(state, decoder.feed(event))
        self.assertEqual(state.snapshot(), (TextPart("Hello"),))
        # no event ended the turn: the part stays open, and the fold closes it as it stands
        self.assertTrue(state.is_open)
        [item] = A.items_from_stream(events)
        self.assertEqual((item.text_content(), item.finish_reason), ("Hello", FinishReason.ERROR))


class RequestTest(unittest.TestCase):
    def test_every_request_round_trips(self) -> None:
        for name in REQUESTS:
            with self.subTest(name):
                request = load(name)
                items = A.items_from_request(request)
                self.assertEqual(A.request_from_items(items), transcript_fields(request))
                for item in items:
                    self.assertEqual(stored(item), item)

    def test_follow_up_rebuilt_from_the_conversation(self) -> None:
        first = load("responses.reasoning_function_call.request.json")
        body = load("responses.reasoning_function_call.response.json")
        follow_up = load("responses.function_call_output.request.json")
        conversation = A.items_from_request(first) + A.items_from_response(body)
        call = next(p for p in conversation[-1].parts if isinstance(p, ToolCallPart))
        conversation.append(Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("plan updated")),)))
        rebuilt = A.request_from_items(conversation)
        # the recorded client left the output items' status out; they go back as the response gave them
        sent = transcript_fields(follow_up)
        self.assertEqual(rebuilt, {**sent, "input": sent["input"][:-1 - len(body["output"])] + body["output"] + sent["input"][-1:]})
        self.assertEqual(rebuilt["input"][1]["encrypted_content"], body["output"][0]["encrypted_content"])
        self.assertEqual(rebuilt["input"][2]["id"], "fc_68c42d3e9e4881968b15fbb8253f58540e8bc41441c948f6")
        self.assertEqual(rebuilt["input"][3]["call_id"], rebuilt["input"][2]["call_id"])

    def test_follow_up_from_a_stream(self) -> None:
        first = load("responses.function_call_stream.request.json")
        events = load_stream("responses.function_call.stream.jsonl")
        [turn] = A.items_from_stream(A.events_from_sse(load_sse("responses.function_call.sse.txt")))
        call = next(p for p in turn.parts if isinstance(p, ToolCallPart))
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("6666")),))
        rebuilt = A.request_from_items(A.items_from_request(first) + [turn, result])
        done = terminal_with_done_items(events)["output"]
        self.assertEqual(rebuilt, {"input": first["input"] + done
                                   + [{"type": "function_call_output", "call_id": done[1]["call_id"], "output": "6666"}]})
        final = events[-1]["response"]["output"][0]["encrypted_content"]
        self.assertEqual(rebuilt["input"][1]["encrypted_content"], final)  # the terminal response's
        self.assertEqual((rebuilt["input"][2]["id"][:3], rebuilt["input"][2]["call_id"][:5]), ("fc_", "call_"))

    def test_a_plain_result_answers_a_custom_tool_call_in_kind(self) -> None:
        # The client's turn holds a neutral result: the API matches a custom call only with a custom_tool_call_output.
        first = {"input": [{"role": "user", "content": "Sum 0..9 in Python."}]}
        body = load("responses.custom_tool_call.response.json")
        [turn] = A.items_from_response(body)
        call = next(p for p in turn.parts if isinstance(p, ToolCallPart))
        plain = Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("45\n")),))
        sent = A.request_from_items(A.items_from_request(first) + [turn, plain])["input"]
        self.assertEqual(sent[-1], {"type": "custom_tool_call_output", "call_id": call.id.value, "output": "45\n"})
        # a function call's result keeps its type, and so does a request that answered a custom call otherwise
        fc = {"type": "function_call", "call_id": "call_f", "name": "f", "arguments": "{}"}
        ctc = {"type": "custom_tool_call", "call_id": "call_c", "name": "g", "input": "x"}
        for request in (
            {"input": [fc, {"type": "function_call_output", "call_id": "call_f", "output": "1"}]},
            {"input": [ctc, {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"}]},
            {"input": [ctc, {"type": "function_call_output", "call_id": "call_c", "output": "1"}]},
        ):
            with self.subTest(request["input"][-1]["type"], call=request["input"][0]["type"]):
                items = A.items_from_request(request)
                self.assertEqual(A.request_from_items(items), request)
                self.assertEqual(A.request_from_items([stored(i) for i in items]), request)

    def test_bare_and_odd_input_items_round_trip(self) -> None:
        for native in (
            {"type": "reasoning", "summary": []},  # no id, no encrypted_content: nothing else says it is OpenAI's
            {"type": "reasoning", "summary": [], "content": []},
            None,  # not an item at all: kept as it came, not dropped
            {"role": 5, "content": "x"},  # a role that is no string is sent back as it came
            {"type": "message", "role": None, "content": [{"type": "input_text", "text": "x"}]},
        ):
            with self.subTest(native):
                request = {"input": [{"role": "user", "content": "q"}, native]}
                items = A.items_from_request(request)
                self.assertEqual(A.request_from_items(items), request)
                self.assertEqual(A.request_from_items([stored(i) for i in items]), request)
        # a response's bare reasoning item is replayed too
        bare = {"type": "reasoning", "summary": []}
        self.assertEqual(replayed(response(bare)), [bare])

    def test_instructions_and_string_input(self) -> None:
        items = A.items_from_request({"instructions": "Be brief.", "input": "Hi"})
        self.assertEqual([i.kind for i in items], [ItemKind.SYSTEM, ItemKind.USER])
        self.assertEqual(items[0].metadata["openai.request_field"], "instructions")
        self.assertEqual(A.request_from_items(items), {"instructions": "Be brief.", "input": "Hi"})
        # null instructions, as the SDK sends instructions=None: an instructions item with nothing in it
        items = A.items_from_request({"instructions": None, "input": "Hi"})
        self.assertEqual((items[0].kind, items[0].parts), (ItemKind.SYSTEM, ()))
        self.assertEqual(A.request_from_items(items), {"instructions": None, "input": "Hi"})
        self.assertEqual(A.request_from_items([stored(i) for i in items]), {"instructions": None, "input": "Hi"})
        self.assertEqual(A.request_from_items(A.items_from_request({"input": "Hi"})), {"input": "Hi"})
        # an unmarked system item is a system message, not instructions
        self.assertEqual(A.request_from_items([Item.text(ItemKind.SYSTEM, "Be brief.")]),
                         {"input": [{"role": "system", "content": "Be brief."}]})
        for bad in ({"instructions": ["x"]}, {"input": 3}, {"input": {"role": "user"}}):
            with self.subTest(bad), self.assertRaises(NormalizeError):
                A.items_from_request(bad)

    def test_multimodal_input(self) -> None:
        request = load("responses.multimodal_input.request.json")
        developer, user = A.items_from_request(request)
        self.assertIs(developer.kind, ItemKind.DEVELOPER)
        self.assertEqual(developer.parts, (TextPart("Answer in one sentence."),))
        text, png, by_id, pdf, by_url = user.parts
        self.assertEqual(text, TextPart("What is in the image and the PDF?", metadata={"openai.part.type": "input_text"}))
        self.assertIsInstance(png, MediaPart)
        self.assertIsInstance(by_id, MediaPart)
        self.assertEqual((png.modality, png.mime_type), (Modality.IMAGE, "image/png"))
        self.assertEqual(png.data, InlineText(request["input"][1]["content"][1]["image_url"].split(",", 1)[1]))
        self.assertEqual(png.metadata["openai.part.detail"], "low")
        self.assertIsInstance(by_id.data, Handle)
        self.assertIsInstance(pdf, FilePart)
        self.assertIsInstance(by_url, FilePart)
        self.assertEqual((pdf.name, pdf.mime_type), ("revenue.pdf", "application/pdf"))
        self.assertIsInstance(pdf.data, InlineText)
        self.assertEqual(by_url.data, Uri("https://pdfobject.com/pdf/sample.pdf"))

    def test_input_audio_is_audio(self) -> None:
        clip = {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}}
        request = {"input": [{"role": "user", "content": [{"type": "input_text", "text": "Transcribe:"}, clip]}]}
        [item] = A.items_from_request(request)
        audio = item.parts[1]
        self.assertIsInstance(audio, MediaPart)
        self.assertEqual((audio.modality, audio.mime_type, audio.data), (Modality.AUDIO, "audio/wav", InlineText("UklGRiQAAABXQVZF")))
        self.assertEqual(A.request_from_items([item]), request)
        self.assertEqual(A.request_from_items([stored(item)]), request)
        # audio from elsewhere goes as input_audio when the API takes its type, else as a file
        mp3 = MediaPart(Modality.AUDIO, "audio/mpeg", InlineBytes(b"ID3\x04"))
        ogg = MediaPart(Modality.AUDIO, "audio/ogg", InlineBytes(b"OggS"))
        self.assertEqual(A.request_from_items([Item(ItemKind.USER, (mp3, ogg))])["input"][0]["content"], [
            {"type": "input_audio", "input_audio": {"data": "SUQzBA==", "format": "mp3"}},
            {"type": "input_file", "file_data": "data:audio/ogg;base64,T2dnUw==", "filename": "file"},
        ])
        # shapes it does not know stay verbatim
        for odd in ({"data": "AAAA", "format": "flac"}, {"data": "AAAA", "format": "wav", "sample_rate": 8000}, {"format": "wav"}, None):
            with self.subTest(odd):
                body = {"input": [{"role": "user", "content": [{"type": "input_audio", "input_audio": odd}]}]}
                [odd_item] = A.items_from_request(body)
                self.assertIsInstance(odd_item.parts[0], CustomPart)
                self.assertEqual(A.request_from_items([odd_item]), body)

    def test_assistant_messages_hold_no_media_of_another_api(self) -> None:
        # The API takes only output_text and refusal entries in an assistant message ("Invalid value:
        # 'input_image'"): a Gemini image answer or a Chat audio answer goes without its media.
        image = MediaPart(Modality.IMAGE, "image/png", InlineText("iVBORw0KGgo="))
        audio = MediaPart(Modality.AUDIO, "audio/wav", InlineText("UklGRg=="))
        handle = MediaPart(Modality.AUDIO, "audio/*", Handle(ArtifactId("audio_1")), metadata={"openai.chat.audio.id": "audio_1"})
        report = FilePart(InlineBytes(b"%PDF"), name="r.pdf", mime_type="application/pdf")
        items = [
            Item.text(ItemKind.USER, "Draw a cat."),
            Item(ItemKind.ASSISTANT, (TextPart("Here it is:"), image, TextPart("Nice?")), finish_reason=FinishReason.COMPLETED),
            Item(ItemKind.ASSISTANT, (audio, handle, report), finish_reason=FinishReason.COMPLETED),
            Item(ItemKind.USER, (TextPart("Same again:"), image, audio)),
        ]
        self.assertEqual(A.request_from_items(items)["input"], [
            {"role": "user", "content": "Draw a cat."},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Here it is:"}, {"type": "output_text", "text": "Nice?"}]},
            {"role": "user", "content": [
                {"type": "input_text", "text": "Same again:"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
            ]},
        ])
        # a request that sent such entries itself gets them back as they came
        body = {"input": [{"role": "assistant", "content": [
            {"type": "output_text", "text": "x"}, {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_file", "file_id": "file-1"}, {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]}
        self.assertEqual(A.request_from_items(A.items_from_request(body)), body)

    def test_inline_files_are_sent_with_a_filename(self) -> None:
        # The API refuses file_data without a filename: a file from elsewhere without a name gets one.
        parts = (
            FilePart(InlineBytes(b"%PDF"), mime_type="application/pdf"),
            FilePart(InlineText("a,b\n"), mime_type="text/csv"),
            FilePart(InlineText("notes")),
            MediaPart(Modality.VIDEO, "video/mp4", InlineBytes(b"\x00\x00")),
            FilePart(InlineBytes(b"%PDF"), name="kept.pdf", mime_type="application/pdf"),
            FilePart(Uri("https://example.com/a.pdf")),
        )
        content = A.request_from_items([Item(ItemKind.USER, parts)])["input"][0]["content"]
        self.assertEqual([entry.get("filename") for entry in content], ["file.pdf", "file.csv", "file.txt", "file", "kept.pdf", None])
        self.assertEqual(content[0]["file_data"], "data:application/pdf;base64,JVBERg==")
        # a request's own input_file without one is written back as it came
        body = {"input": [{"role": "user", "content": [{"type": "input_file", "file_data": "data:application/pdf;base64,JVBERg=="}]},
                          {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_file", "file_data": "data:text/plain;base64,eA=="}]}]}
        self.assertEqual(A.request_from_items(A.items_from_request(body)), body)

    def test_tool_outputs_take_audio_of_another_api_as_a_file(self) -> None:
        # A function_call_output list holds input_text, input_image and input_file entries only.
        clip = MediaPart(Modality.AUDIO, "audio/wav", InlineText("UklGRg=="))
        result = ToolResultPart(ToolCallId("call_1"), PartsOutput([TextPart("recorded:"), clip]))
        [sent] = A.request_from_items([Item(ItemKind.TOOL, (result,))])["input"]
        self.assertEqual(sent["output"], [
            {"type": "input_text", "text": "recorded:"},
            {"type": "input_file", "file_data": "data:audio/wav;base64,UklGRg==", "filename": "file"},
        ])
        body = {"input": [{"type": "function_call_output", "call_id": "c", "output": [
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]}
        self.assertEqual(A.request_from_items(A.items_from_request(body)), body)

    def test_tool_output_with_images(self) -> None:
        for name, data in (
            ("responses.function_call_output_image.request.json", Uri("https://www.gstatic.com/webp/gallery3/1.png")),
            ("responses.function_call_output_image_base64.request.json", InlineText(
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mN4ESv/HwAF+QJkshCkKQAAAABJRU5ErkJggg==")),
        ):
            with self.subTest(name):
                items = A.items_from_request(load(name))
                self.assertEqual([i.kind for i in items], [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.ASSISTANT, ItemKind.TOOL])
                [result] = items[-1].parts
                self.assertIsInstance(result, ToolResultPart)
                self.assertIsInstance(result.output, PartsOutput)
                [image] = result.output.parts
                self.assertIsInstance(image, MediaPart)
                self.assertEqual((image.modality, image.data), (Modality.IMAGE, data))
                self.assertEqual(result.call_id, items[2].parts[0].id)  # type: ignore[attr-defined]

    def test_foreign_transcript_encodes(self) -> None:
        # Items that never saw OpenAI (no openai.* metadata): a sane request, no crash.
        items = [
            Item(ItemKind.SYSTEM, (TextPart("Be brief."),)),
            Item(ItemKind.USER, (TextPart("Look:"), MediaPart(Modality.IMAGE, "image/png", InlineText("AAAA")),
                                 FilePart(InlineText("a,b\n"), name="t.csv", mime_type="text/csv"),
                                 FilePart(InlineBytes(b"%PDF"), name="d.pdf", mime_type="application/pdf"))),
            Item(ItemKind.ASSISTANT, (
                ReasoningPart("thinking", data=InlineText("anthropic-signature"), metadata={PROVIDER_KEY: "anthropic"}),
                ReasoningPart("unmarked thoughts"),
                TextPart("Calling.", metadata={PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"}),
                ToolCallPart(ToolCallId("toolu_1"), "f", {"x": [1, "é"]}),
            ), finish_reason=FinishReason.TOOL_CALL),
            Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("toolu_1"), TextOutput("ok"), is_error=True),
                                 ToolResultPart(ToolCallId("toolu_2"), StructuredOutput({"a": 1})))),
            Item(ItemKind.CONTEXT, (TextPart("Repo notes."), CustomPart("vendor.thing", value={"a": 1}))),
        ]
        self.assertEqual(A.request_from_items(items), {"input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [
                {"type": "input_text", "text": "Look:"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                {"type": "input_file", "filename": "t.csv", "file_data": "data:text/csv;base64,YSxiCg=="},
                {"type": "input_file", "filename": "d.pdf", "file_data": "data:application/pdf;base64,JVBERg=="},
            ]},
            {"role": "assistant", "content": "Calling."},
            {"type": "function_call", "call_id": "toolu_1", "name": "f", "arguments": '{"x":[1,"é"]}'},
            {"type": "function_call_output", "call_id": "toolu_1", "output": "ok"},
            {"type": "function_call_output", "call_id": "toolu_2", "output": '{"a":1}'},
            {"role": "user", "content": "Repo notes."},
        ]})

    def test_a_transcript_mixing_providers_keeps_only_openai_reasoning(self) -> None:
        body = load("responses.reasoning_function_call.response.json")
        [ours] = A.items_from_response(body)
        theirs = Item(ItemKind.ASSISTANT, (
            ReasoningPart("Claude thought.", data=InlineText("sig"), metadata={PROVIDER_KEY: "anthropic", "anthropic.signature": "sig"}),
            ReasoningPart("Gemini thought.", metadata={PROVIDER_KEY: "gemini"}),
            TextPart("Answer.", metadata={PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"}),
        ), finish_reason=FinishReason.COMPLETED)
        sent = A.request_from_items([Item.text(ItemKind.USER, "q"), theirs, ours])["input"]
        self.assertEqual([s.get("type", "message") for s in sent], ["message", "message", "reasoning", "function_call"])
        self.assertEqual(sent[1], {"role": "assistant", "content": "Answer."})
        self.assertNotIn("sig", json.dumps(sent))
        self.assertEqual(sent[2]["encrypted_content"], body["output"][0]["encrypted_content"])

    def test_what_it_cannot_take(self) -> None:
        for bad in (None, 3, "items", {"a": 1}, [Item.text(ItemKind.USER, "x"), "not an item"], [TextPart("x")]):
            with self.subTest(repr(bad)[:40]), self.assertRaises(NormalizeError):
                A.request_from_items(bad)  # type: ignore[arg-type]
        for bad in (None, "x", [1], {"a": 1}):
            with self.subTest(finish=repr(bad)), self.assertRaises(NormalizeError):
                A.stream_decoder().finish(bad)  # type: ignore[arg-type]
        for bad_event in (None, "response.completed", [1], {"type": ("x",)}):
            with self.subTest(event=repr(bad_event)), self.assertRaises(NormalizeError):
                A.stream_decoder().feed(bad_event)  # type: ignore[arg-type]
        with self.assertRaises(NormalizeError):
            A.items_from_stream("data: {}")  # type: ignore[arg-type]


# -- mutations: only success or NormalizeError ------------------------------------------------


class MutationTest(unittest.TestCase):
    def assert_sent_and_stored(self, items: list[Item]) -> None:
        """What decodes encodes, and survives the reference JSON."""
        A.request_from_items(items)
        for item in items:
            self.assertEqual(stored(item), item)

    def test_mutated_bodies(self) -> None:
        rng = random.Random(10)
        bodies = [(A.items_from_response, load(n)) for n in RESPONSES] + [(A.items_from_request, load(n)) for n in REQUESTS]
        for round_ in range(60):
            for fn, body in bodies:
                mutated = mutate(body, rng)
                with self.subTest(fn=fn.__name__, round=round_):
                    items = outcome(self, lambda: fn(mutated))
                    if items is not None:
                        self.assert_sent_and_stored(items)

    def test_mutated_streams(self) -> None:
        rng = random.Random(11)
        streams = [load_stream(n) for n in STREAMS if "reasoning_summary" not in n]
        long_one = load_stream("responses.reasoning_summary.stream.jsonl")
        streams.append(long_one[:40] + long_one[-30:])
        foreign = load_stream(STREAMS[0])  # what mutate_stream adds to every stream comes from this one
        for round_ in range(120):
            for n, events in enumerate(streams):
                bad = mutate_stream(events, rng, foreign)
                with self.subTest(round=round_, stream=n):
                    items = outcome(self, lambda: A.items_from_stream(bad))
                    if items is not None:
                        self.assert_sent_and_stored(items)


if __name__ == "__main__":
    unittest.main()
