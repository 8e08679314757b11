"""The OpenAI Responses reference adapter on recorded traffic (tests/payloads/openai_responses).

Every response, stream and request file of the corpus is exercised: responses
decode to items that keep every native field; streams fold to exactly the
item the non-streaming path gives for the same response; every request's
transcript survives items and back; the recorded follow-up request is rebuilt
from the conversation's items.
"""

from __future__ import annotations

import copy
import json
import unittest
from pathlib import Path
from typing import Any

from agentkit_core import (
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    FilePart,
    FinishReason,
    Handle,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    MetadataMap,
    Modality,
    PartsOutput,
    ProviderAdapter,
    ReasoningPart,
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
from tests.adapters import openai_responses as A

PAYLOADS = Path(__file__).resolve().parent / "payloads" / "openai_responses"


def load(name: str) -> Any:
    return recorded.load("openai_responses", name)


def load_stream(name: str) -> list[dict[str, Any]]:
    return recorded.load_events("openai_responses", name)


RESPONSES = sorted(p.name for p in PAYLOADS.glob("*.response.json"))
REQUESTS = sorted(p.name for p in PAYLOADS.glob("*.request.json"))
STREAMS = sorted(p.name for p in PAYLOADS.glob("*.stream.jsonl"))


def transcript_fields(request: dict[str, Any]) -> dict[str, Any]:
    return {k: request[k] for k in ("input", "instructions") if k in request}


def run_stream(events: list[dict[str, Any]]) -> tuple[Item, list[Any]]:
    decoder = A.stream_decoder()
    deltas = [d for e in events for d in decoder.feed(e)]
    state = fold_all([], deltas)
    assert not state.is_open, state
    return decoder.finish(state.parts), deltas


def terminal_with_done_items(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The terminal response, each output item replaced by its output_item.done copy."""
    response: dict[str, Any] = copy.deepcopy(events[-1]["response"])
    done = {e["output_index"]: e["item"] for e in events if e["type"] == "response.output_item.done"}
    response["output"] = [done.get(i, item) for i, item in enumerate(response["output"])]
    return response


def without_replay_status(native: dict[str, Any]) -> dict[str, Any]:
    if native.get("type") in ("reasoning", "function_call", "custom_tool_call"):
        return {k: v for k, v in native.items() if k != "status"}
    return native


class CorpusTest(unittest.TestCase):
    def test_corpus_is_all_here(self) -> None:
        self.assertEqual(len(RESPONSES), 6)
        self.assertEqual(len(REQUESTS), 7)
        self.assertEqual(len(STREAMS), 5)

    def test_module_is_a_provider_adapter(self) -> None:
        adapter: ProviderAdapter[dict[str, Any], dict[str, Any]] = A
        for name in ("items_from_response", "request_from_items", "stream_decoder"):
            self.assertTrue(callable(getattr(adapter, name)))
        decoder = adapter.stream_decoder()
        self.assertTrue(callable(decoder.feed) and callable(decoder.finish))


class ResponseTest(unittest.TestCase):
    def test_every_response_keeps_every_field(self) -> None:
        for name in RESPONSES:
            with self.subTest(name):
                response = load(name)
                [item] = A.items_from_response(response)
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                self.assertEqual(item.id, MessageId(response["id"]))
                # response level: everything but id/output/usage, verbatim
                expected = {f"openai.{k}": v for k, v in response.items() if k not in ("id", "output", "usage")}
                self.assertEqual(dict(item.metadata), expected)
                assert item.usage is not None
                self.assertEqual(item.usage.metadata["openai.usage"], response["usage"])
                # output level: the parts regroup into the native output items
                rebuilt = A.request_from_items([item])["input"]
                self.assertEqual(rebuilt, [without_replay_status(o) for o in response["output"]])
                # and everything is plain JSON the neutral codec carries
                self.assertEqual(Item.from_dict(json.loads(json.dumps(item.to_dict()))), item)

    def test_reasoning_and_function_call(self) -> None:
        response = load("responses.reasoning_function_call.response.json")
        [item] = A.items_from_response(response)
        rs, fc = response["output"]
        *reasoning, call = item.parts
        self.assertEqual(len(rs["summary"]), 5)
        self.assertEqual(len(reasoning), 5)
        for i, part in enumerate(reasoning):
            assert isinstance(part, ReasoningPart)
            self.assertEqual(part.summary, rs["summary"][i]["text"])
            self.assertEqual(part.metadata["openai.id"], rs["id"])
            self.assertEqual(part.metadata["openai.part.type"], "summary_text")
            self.assertFalse(part.redacted)
        # the opaque blob, byte-exact, on the first part only
        self.assertEqual([p.data for p in reasoning if isinstance(p, ReasoningPart)],
                         [InlineText(rs["encrypted_content"])] + [None] * 4)
        assert isinstance(call, ToolCallPart)
        self.assertEqual(call.id, ToolCallId("call_gL7JE6GDeGGsFubqO2XGytyO"))
        self.assertEqual(call.metadata["openai.id"], "fc_68c42d3e9e4881968b15fbb8253f58540e8bc41441c948f6")
        self.assertEqual(call.input, json.loads(fc["arguments"]))
        self.assertNotIn("openai.arguments", call.metadata)  # canonical: rebuilt from input
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.metadata["openai.status"], "completed")

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
                assert item.usage is not None and item.usage.tokens is not None
                t = item.usage.tokens
                self.assertEqual(
                    (t.input_tokens, t.output_tokens, t.reasoning_tokens, t.cached_input_tokens, t.cache_write_input_tokens),
                    (inp, out, reasoning, cached, written),
                )
                # OpenAI's input includes cached tokens, output includes reasoning: both pass through
                self.assertLessEqual(t.cached_input_tokens or 0, t.input_tokens)
                self.assertLessEqual(t.reasoning_tokens or 0, t.output_tokens)

    def test_web_search_and_annotations(self) -> None:
        response = load("responses.web_search_annotations.response.json")
        [item] = A.items_from_response(response)
        ws, text = item.parts
        assert isinstance(ws, CustomPart) and isinstance(text, TextPart)
        self.assertEqual(ws.kind, "openai.web_search_call")
        self.assertEqual(ws.value, response["output"][0])
        message = response["output"][1]
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
        self.assertEqual(item.metadata["openai.incomplete_details"], {"reason": "max_output_tokens"})
        [part] = item.parts
        assert isinstance(part, ReasoningPart)
        self.assertIsNone(part.summary)  # summary: [] is one part without summary
        self.assertEqual(part.metadata["openai.status"], "incomplete")

    def test_custom_tool_call(self) -> None:
        response = load("responses.custom_tool_call.response.json")
        [item] = A.items_from_response(response)
        reasoning, call = item.parts
        assert isinstance(reasoning, ReasoningPart) and isinstance(call, ToolCallPart)
        self.assertIsNone(reasoning.data)  # no encrypted_content in this response
        self.assertEqual(call.input, "print(sum(range(10)))")  # free-form, not JSON
        self.assertEqual(call.metadata["openai.type"], "custom_tool_call")
        self.assertEqual(call.metadata["openai.id"], response["output"][1]["id"])
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        # its result goes back as a custom_tool_call_output
        result = Item(
            ItemKind.TOOL,
            (ToolResultPart(call.id, TextOutput("45\n"), metadata=MetadataMap({"openai.type": "custom_tool_call_output"})),),
        )
        self.assertEqual(
            A.request_from_items([result])["input"],
            [{"type": "custom_tool_call_output", "call_id": "call_4yLk2V9bQm7T1xR3sN8pW6Zd", "output": "45\n"}],
        )

    def test_finish_reason_mapping(self) -> None:
        call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}
        cases: list[tuple[dict[str, Any], list[Any], FinishReason]] = [
            ({"status": "completed"}, [], FinishReason.COMPLETED),
            ({"status": "completed"}, [call], FinishReason.TOOL_CALL),
            ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, [], FinishReason.MAX_TOKENS),
            ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, [], FinishReason.BLOCKED),
            ({"status": "incomplete", "incomplete_details": {"reason": "new_reason"}}, [], FinishReason.other("new_reason")),
            ({"status": "failed", "error": {"code": "server_error"}}, [], FinishReason.ERROR),
            ({"status": "cancelled"}, [], FinishReason.CANCELLED),
            ({"status": "queued"}, [], FinishReason.other("queued")),
        ]
        for fields, output, expected in cases:
            with self.subTest(fields):
                [item] = A.items_from_response({"id": "resp_1", **fields, "output": output})
                self.assertEqual(item.finish_reason, expected)
                self.assertEqual(item.metadata["openai.status"], fields["status"])  # raw value kept

    def test_unknown_future_fields_survive(self) -> None:
        response = load("responses.web_search_annotations.response.json")
        response["future_top_level"] = {"x": [1, 2]}
        response["output"][0]["future_item_field"] = True
        message = response["output"][1]
        message["future_item_field"] = "m"
        message["content"][0]["future_part_field"] = None
        message["content"][0]["annotations"][0]["future_annotation_field"] = 3
        message["content"].append({"type": "output_audio_v9", "transcript": "hi", "id": "aud_1"})
        message["content"].append({"type": "refusal", "refusal": "I can't do that."})
        response["output"].append({"type": "image_generation_call", "id": "ig_1", "result": "iVBOR", "status": "completed"})
        response["output"].append({"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": None,
                                   "content": [{"type": "reasoning_text", "text": "raw"}]})
        [item] = A.items_from_response(response)
        self.assertEqual(item.metadata["openai.future_top_level"], {"x": [1, 2]})
        refusal = item.parts[3]
        assert isinstance(refusal, TextPart)
        self.assertEqual((refusal.text, refusal.metadata["openai.part.type"]), ("I can't do that.", "refusal"))
        audio = item.parts[2]
        assert isinstance(audio, CustomPart)
        self.assertEqual((audio.kind, audio.value), ("openai.output_audio_v9", message["content"][1]))
        self.assertEqual(audio.metadata["openai.future_item_field"], "m")
        reasoning = item.parts[-1]
        assert isinstance(reasoning, ReasoningPart)
        self.assertIsNone(reasoning.data)
        self.assertIsNone(reasoning.metadata["openai.encrypted_content"])  # null kept, not dropped
        self.assertEqual(reasoning.metadata["openai.content"], [{"type": "reasoning_text", "text": "raw"}])
        self.assertEqual(A.request_from_items([item])["input"], [without_replay_status(o) for o in response["output"]])

    def test_arguments_kept_raw_only_when_needed(self) -> None:
        cases = [
            ('{"a":1,"b":"é"}', {"a": 1, "b": "é"}, False),
            ('{"a": 1}', {"a": 1}, True),  # whitespace the compact encoding would not reproduce
            ('{"a":1', None, True),  # malformed: kept, never raised
            ("", None, True),
            ('{"a":NaN}', None, True),  # Python's json takes these; the wire cannot carry them
            ('{"a":1e999}', None, True),
            ('"\\ud800"', None, True),
        ]
        for raw, value, kept in cases:
            with self.subTest(raw):
                native = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": raw}
                [item] = A.items_from_response({"id": "r", "status": "completed", "output": [native]})
                [call] = item.parts
                assert isinstance(call, ToolCallPart)
                self.assertEqual(call.input, value)
                self.assertEqual("openai.arguments" in call.metadata, kept)
                self.assertEqual(A.request_from_items([item])["input"], [native])


class StreamTest(unittest.TestCase):
    def test_stream_agrees_with_non_streaming(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                events = load_stream(name)
                item, _ = run_stream(events)
                [expected] = A.items_from_response(terminal_with_done_items(events))
                self.assertEqual(item, expected)
                self.assertEqual(item.to_dict(), expected.to_dict())

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
                    strip = {k: v for k, v in done.items() if k != "encrypted_content"}
                    self.assertEqual(strip, {k: v for k, v in final.items() if k != "encrypted_content"})
                    differing += done.get("encrypted_content") != final.get("encrypted_content")
        self.assertEqual(differing, 2)  # function_call and reasoning_summary: real streams re-encrypt

    def test_committed_reasoning_carries_the_done_value(self) -> None:
        for name in ("responses.function_call.stream.jsonl", "responses.reasoning_summary.stream.jsonl"):
            with self.subTest(name):
                events = load_stream(name)
                added = next(e["item"] for e in events if e["type"] == "response.output_item.added")
                done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
                final = events[-1]["response"]["output"][0]
                item, _ = run_stream(events)
                first = item.parts[0]
                assert isinstance(first, ReasoningPart)
                self.assertEqual(first.data, InlineText(done["encrypted_content"]))
                self.assertNotEqual(done["encrypted_content"], added["encrypted_content"])
                self.assertNotEqual(done["encrypted_content"], final["encrypted_content"])
                # and the replayed reasoning item sends that value back
                replay = A.request_from_items([item])["input"][0]
                self.assertEqual(replay["encrypted_content"], done["encrypted_content"])

    def test_reasoning_summary_parts_stream_separately(self) -> None:
        events = load_stream("responses.reasoning_summary.stream.jsonl")
        decoder = A.stream_decoder()
        state = fold_all([], [])
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
        decoder = A.stream_decoder()
        state = fold_all([], [])
        texts: list[str] = []
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
        self.assertTrue(annotated)
        # The web search item showed its kind while open.
        decoder, state = A.stream_decoder(), fold_all([], [])
        kinds = set()
        for event in events:
            state = fold_all(state, decoder.feed(event))
            kinds |= {p.kind for p in state.snapshot()[len(state.parts) :] if isinstance(p, CustomPart)}
        self.assertEqual(kinds, {"openai.web_search_call"})
        self.assertEqual(len(texts), 6)
        for shorter, longer in zip(texts, texts[1:]):
            self.assertTrue(longer.startswith(shorter) and len(longer) > len(shorter))
        final = [p for p in state.parts if isinstance(p, TextPart)][0]
        self.assertEqual(final.text, texts[-1])

    def test_tool_arguments_grow_as_raw_json(self) -> None:
        events = load_stream("responses.function_call.stream.jsonl")
        decoder = A.stream_decoder()
        state = fold_all([], [])
        seen: list[str] = []
        for event in events:
            for delta in decoder.feed(event):
                state = fold(state, delta)
                if isinstance(delta, AppendText):
                    call = state.snapshot()[1]
                    assert isinstance(call, ToolCallPart)
                    seen.append(call.metadata["agentkit.input_json"])  # type: ignore[arg-type]
                    self.assertEqual(call.metadata["openai.name"], "final_result")  # shown while open
                    # and, through the fold's header keys, as the open part's own fields
                    self.assertEqual((call.id, call.name), (ToolCallId("call_CWXgs68YprAjp6t0371hiPOI"), "final_result"))
        self.assertEqual(seen[-1], '{"result":6666}')
        self.assertEqual(seen[0], '{"')
        call = state.parts[1]
        assert isinstance(call, ToolCallPart)
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("call_CWXgs68YprAjp6t0371hiPOI"), "final_result", {"result": 6666}))
        self.assertNotIn("agentkit.input_json", call.metadata)
        self.assertNotIn("openai.name", call.metadata)  # the commit is authoritative

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
        assert isinstance(text, TextPart)
        self.assertEqual(text.text, "The capital of France is")
        self.assertEqual(text.metadata["openai.status"], "incomplete")
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)

    def test_error_event_closes_open_parts(self) -> None:
        events = load_stream("responses.incomplete.reconstructed.stream.jsonl")[:-1]
        events.append({"type": "error", "sequence_number": 5, "code": "server_error", "message": "boom", "param": None})
        item, _ = run_stream(events)
        [text] = item.parts
        self.assertEqual(text, TextPart("The capital of France is", metadata=text.metadata))
        self.assertEqual(text.metadata["openai.part.annotations"], [])
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata["openai.error"], {"code": "server_error", "message": "boom", "param": None})

    def test_part_ids_unique_and_derived_from_indices(self) -> None:
        for name in STREAMS:
            with self.subTest(name):
                _, deltas = run_stream(load_stream(name))
                begun = [d.part_id.value for d in deltas if isinstance(d, BeginPart)]
                self.assertEqual(len(begun), len(set(begun)))
                committed = [d.part_id.value for d in deltas if isinstance(d, CommitPart) and d.part_id is not None]
                self.assertEqual(sorted(begun), sorted(committed))
                self.assertTrue(all(p.split(".")[0].isdigit() for p in begun))


class RequestTest(unittest.TestCase):
    def test_every_request_round_trips(self) -> None:
        for name in REQUESTS:
            with self.subTest(name):
                request = load(name)
                items = A.items_from_request(request)
                self.assertEqual(A.request_from_items(items), transcript_fields(request))
                for item in items:
                    self.assertEqual(Item.from_dict(json.loads(json.dumps(item.to_dict()))), item)

    def test_follow_up_rebuilt_from_the_conversation(self) -> None:
        first = load("responses.reasoning_function_call.request.json")
        response = load("responses.reasoning_function_call.response.json")
        follow_up = load("responses.function_call_output.request.json")
        conversation = A.items_from_request(first) + A.items_from_response(response)
        call = next(p for p in conversation[-1].parts if isinstance(p, ToolCallPart))
        conversation.append(Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("plan updated")),)))
        rebuilt = A.request_from_items(conversation)
        self.assertEqual(rebuilt, transcript_fields(follow_up))
        # the signature-like blob went back byte-exact, the two call ids where they belong
        self.assertEqual(rebuilt["input"][1]["encrypted_content"], response["output"][0]["encrypted_content"])
        self.assertEqual(rebuilt["input"][2]["id"], "fc_68c42d3e9e4881968b15fbb8253f58540e8bc41441c948f6")
        self.assertEqual(rebuilt["input"][3]["call_id"], rebuilt["input"][2]["call_id"])

    def test_instructions_and_string_input(self) -> None:
        items = A.items_from_request({"instructions": "Be brief.", "input": "Hi"})
        self.assertEqual([i.kind for i in items], [ItemKind.SYSTEM, ItemKind.USER])
        self.assertEqual(items[0].text_content(), "Be brief.")
        self.assertEqual(A.request_from_items(items), {"instructions": "Be brief.", "input": "Hi"})

    def test_multimodal_input(self) -> None:
        request = load("responses.multimodal_input.request.json")
        developer, user = A.items_from_request(request)
        self.assertIs(developer.kind, ItemKind.DEVELOPER)
        self.assertEqual(developer.parts, (TextPart("Answer in one sentence."),))
        text, png, by_id, pdf, by_url = user.parts
        self.assertEqual(text, TextPart("What is in the image and the PDF?", metadata=MetadataMap({"openai.part.type": "input_text"})))
        assert isinstance(png, MediaPart) and isinstance(by_id, MediaPart)
        self.assertEqual((png.modality, png.mime_type), (Modality.IMAGE, "image/png"))
        self.assertEqual(png.data, InlineText(request["input"][1]["content"][1]["image_url"].split(",", 1)[1]))
        self.assertEqual(png.metadata["openai.part.detail"], "low")
        self.assertIsInstance(by_id.data, Handle)
        assert isinstance(pdf, FilePart) and isinstance(by_url, FilePart)
        self.assertEqual((pdf.name, pdf.mime_type), ("revenue.pdf", "application/pdf"))
        self.assertIsInstance(pdf.data, InlineText)
        self.assertEqual(by_url.data, Uri("https://pdfobject.com/pdf/sample.pdf"))

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
                assert isinstance(result, ToolResultPart) and isinstance(result.output, PartsOutput)
                [image] = result.output.parts
                assert isinstance(image, MediaPart)
                self.assertEqual((image.modality, image.data), (Modality.IMAGE, data))
                self.assertEqual(result.call_id, items[2].parts[0].id)  # type: ignore[attr-defined]

    def test_foreign_transcript_encodes(self) -> None:
        # Items that never saw OpenAI (no openai.* metadata): a sane request, no crash.
        items = [
            Item(ItemKind.SYSTEM, (TextPart("Be brief."),)),
            Item(ItemKind.USER, (TextPart("Look:"), MediaPart(Modality.IMAGE, "image/png", InlineText("AAAA")))),
            Item(ItemKind.ASSISTANT, (
                ReasoningPart("thinking", data=InlineText("anthropic-signature")),
                TextPart("Calling."),
                ToolCallPart(ToolCallId("toolu_1"), "f", {"x": [1, "é"]}),
            ), finish_reason=FinishReason.TOOL_CALL),
            Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("toolu_1"), TextOutput("ok"), is_error=True),)),
        ]
        self.assertEqual(A.request_from_items(items), {"input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [
                {"type": "input_text", "text": "Look:"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            ]},
            {"role": "assistant", "content": "Calling."},
            {"type": "function_call", "call_id": "toolu_1", "name": "f", "arguments": '{"x":[1,"é"]}'},
            {"type": "function_call_output", "call_id": "toolu_1", "output": "ok"},
        ]})


if __name__ == "__main__":
    unittest.main()
