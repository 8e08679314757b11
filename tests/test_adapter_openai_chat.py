"""The OpenAI Chat Completions reference adapter against the recorded corpus.

Every payload file in ``tests/payloads/openai_chat`` is exercised: responses
map to items, streams fold into exactly the items of the equivalent
non-streaming response, requests round-trip, and the recorded follow-up
requests are rebuilt from the items of the conversation so far.
"""

from __future__ import annotations

import json
import random
import unittest
from pathlib import Path
from typing import Any

from agentkit_core import (
    BeginPart,
    CommitPart,
    DataRef,
    Delta,
    FinishReason,
    FoldState,
    Handle,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    PartsOutput,
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
from tests.adapters import openai_chat as chat

PAYLOADS = Path(__file__).resolve().parent / "payloads" / "openai_chat"


def load(name: str) -> Any:
    return recorded.load("openai_chat", name)


def events(name: str) -> list[dict[str, Any]]:
    return recorded.load_events("openai_chat", name)


def files(suffix: str) -> list[str]:
    return sorted(p.name for p in PAYLOADS.iterdir() if p.name.endswith(suffix))


def accumulate(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Chunks -> the equivalent ``chat.completion``, the way the OpenAI SDK's stream state builds it.

    Written independently of the adapter: text fragments (content, refusal,
    arguments, audio data and transcript) concatenate, tool calls merge by
    ``index`` (id, type and name arrive on the first fragment only), other
    chunk and choice fields keep their last non-null value, usage comes from
    the one chunk that has it.
    """
    body: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for key, value in chunk.items():
            if key in ("choices", "obfuscation", "object"):
                continue
            if value is not None or key not in body:
                body[key] = value
        for ch in chunk["choices"]:
            choice = choices.setdefault(ch["index"], {"message": {}})
            for key, value in ch.items():
                if key != "delta" and (value is not None or key not in choice):
                    choice[key] = value
            msg = choice["message"]
            for key, value in ch["delta"].items():
                if key == "tool_calls":
                    calls = msg.setdefault("tool_calls", [])
                    for frag in value:
                        same = [c for c in calls if c["index"] == frag["index"]]
                        if not same:
                            calls.append(json.loads(json.dumps(frag)))
                            continue
                        call = same[0]
                        for k, v in frag.items():
                            if k == "function":
                                fn = call.setdefault("function", {})
                                fn["arguments"] = fn.get("arguments", "") + v.get("arguments", "")
                                if v.get("name"):
                                    fn["name"] = v["name"]
                            elif v is not None:
                                call[k] = v
                elif key == "audio":
                    audio = msg.setdefault("audio", {})
                    for k, v in value.items():
                        audio[k] = audio.get(k, "") + v if k in ("data", "transcript") else v
                elif isinstance(value, str) and isinstance(msg.get(key), str) and key != "role":
                    msg[key] += value
                elif value is not None or key not in msg:
                    msg[key] = value
    body["object"] = "chat.completion"
    body["choices"] = [choices[i] for i in sorted(choices)]
    if body.get("usage") is None:
        body.pop("usage", None)
    return body


def stream(name: str) -> tuple[chat.ChatStreamDecoder, list[Delta], FoldState]:
    decoder = chat.stream_decoder()
    deltas = [d for e in events(name) for d in decoder.feed(e)]
    return decoder, deltas, fold_all(FoldState(), deltas)


def dicts(items: list[Item]) -> list[dict[str, Any]]:
    return [i.to_dict() for i in items]


class ResponseTest(unittest.TestCase):
    def test_every_response_decodes_to_wire_valid_items(self) -> None:
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                items = chat.items_from_response(response)
                self.assertEqual(len(items), len(response["choices"]))
                for item in items:
                    self.assertIs(item.kind, ItemKind.ASSISTANT)
                    self.assertEqual(item.id.value, response["id"])  # type: ignore[union-attr]
                    self.assertEqual(item.metadata["openai.model"], response["model"])
                    self.assertEqual(item.metadata["openai.finish_reason"], response["choices"][0]["finish_reason"])
                    wire = json.loads(json.dumps(item.to_dict()))
                    self.assertEqual(Item.from_dict(wire), item)
                self.assertEqual(items[0].usage.metadata["openai.usage"], response["usage"])  # type: ignore[union-attr]

    def test_usage_convention(self) -> None:
        cases = {
            # file: (input, output, reasoning, cached, cache_write)
            "chat.prompt_cache_hit.response.json": (4020, 4, 0, 4012, 0),
            "chat.reasoning_tokens.response.json": (577, 2320, 1792, 0, None),
            "chat.input_audio.response.json": (64, 9, 0, 0, None),
            "chat.audio_output.response.json": (98, 61, 0, 0, None),
            "chat.content_filter_azure.response.json": (82, 34, None, None, None),
            "chat.function_call_legacy.response.json": (82, 18, None, None, None),
            "chat.tool_calls.response.json": (68, 12, 0, 0, None),
        }
        self.assertEqual(sorted(cases), files(".response.json"))
        for name, expected in cases.items():
            with self.subTest(name):
                tokens = chat.items_from_response(load(name))[0].usage.tokens  # type: ignore[union-attr]
                got = (tokens.input_tokens, tokens.output_tokens, tokens.reasoning_tokens,  # type: ignore[union-attr]
                       tokens.cached_input_tokens, tokens.cache_write_input_tokens)  # type: ignore[union-attr]
                self.assertEqual(got, expected)

    def test_finish_reasons(self) -> None:
        table = {
            "stop": FinishReason.COMPLETED,
            "length": FinishReason.MAX_TOKENS,
            "tool_calls": FinishReason.TOOL_CALL,
            "function_call": FinishReason.TOOL_CALL,
            "content_filter": FinishReason.BLOCKED,
            "something_new": FinishReason.other("something_new"),
        }
        enums = load("../enums.json") if (PAYLOADS.parent / "enums.json").exists() else None
        if enums is not None:
            self.assertLessEqual(set(enums["openai_chat"]["finish_reason"]), set(table))
        for raw, reason in table.items():
            with self.subTest(raw):
                response = {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": raw}]}
                item = chat.items_from_response(response)[0]
                self.assertEqual(item.finish_reason, reason)
                self.assertEqual(item.metadata["openai.finish_reason"], raw)

    def test_tool_calls(self) -> None:
        item = chat.items_from_response(load("chat.tool_calls.response.json"))[0]
        (call,) = item.parts
        self.assertEqual(call, ToolCallPart(ToolCallId("call_iXFttys57ap0o16JSlC8yhYo"), "get_user_country", {}))
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.metadata["openai.annotations"], [])  # no content: kept on the item
        self.assertEqual(item.metadata["openai.service_tier"], "default")
        self.assertEqual(item.metadata["openai.system_fingerprint"], "fp_f5bdcc3276")

    def test_legacy_function_call_keeps_raw_arguments(self) -> None:
        item = chat.items_from_response(load("chat.function_call_legacy.response.json"))[0]
        (call,) = item.parts
        assert isinstance(call, ToolCallPart)
        self.assertEqual((call.id.value, call.name, call.input), ("get_current_weather", "get_current_weather", {"location": "Boston, MA"}))
        self.assertEqual(call.metadata["openai.arguments"], '{\n  "location": "Boston, MA"\n}')
        self.assertIs(call.metadata["openai.legacy_function_call"], True)
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertIsNone(item.metadata["openai.system_fingerprint"])
        message = chat.request_from_items([item])["messages"][0]
        self.assertEqual(message, {"role": "assistant", "content": None, "function_call": load("chat.function_call_legacy.response.json")["choices"][0]["message"]["function_call"]})

    def test_azure_content_filter(self) -> None:
        response = load("chat.content_filter_azure.response.json")
        item = chat.items_from_response(response)[0]
        self.assertEqual(item.parts, ())
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata["openai.content_filter_results"], response["choices"][0]["content_filter_results"])
        self.assertEqual(item.metadata["openai.prompt_filter_results"], response["prompt_filter_results"])
        self.assertEqual(item.metadata["openai.logprobs"], None)

    def test_audio_output(self) -> None:
        response = load("chat.audio_output.response.json")
        audio = response["choices"][0]["message"]["audio"]
        item = chat.items_from_response(response)[0]
        (part,) = item.parts
        assert isinstance(part, MediaPart)
        self.assertEqual((part.modality, part.mime_type, part.data), (Modality.AUDIO, "audio/wav", InlineText(audio["data"])))
        self.assertEqual(dict(part.metadata), {"openai.id": audio["id"], "openai.expires_at": audio["expires_at"], "openai.transcript": audio["transcript"]})

    def test_text_annotations_sit_on_the_text(self) -> None:
        item = chat.items_from_response(load("chat.input_audio.response.json"))[0]
        self.assertEqual(item.parts, (TextPart("The name mentioned in the audio is Marcelo.", metadata={"openai.annotations": []}),))
        self.assertNotIn("openai.annotations", item.metadata)

    def test_unknown_fields_survive_everywhere(self) -> None:
        response = {
            "id": "chatcmpl-1", "object": "chat.completion", "model": "m", "future_top": {"a": 1},
            "choices": [{
                "index": 0, "finish_reason": "tool_calls", "future_choice": [1],
                "message": {
                    "role": "assistant", "content": "hi", "phase": "commentary",
                    "tool_calls": [{"id": "call_1", "type": "function", "future_call": True,
                                    "function": {"name": "f", "arguments": "{\"a\": 1}", "future_fn": 2}}],
                },
            }],
        }
        item = chat.items_from_response(response)[0]
        self.assertEqual(item.metadata["openai.future_top"], {"a": 1})
        self.assertEqual(item.metadata["openai.future_choice"], [1])
        self.assertEqual(item.metadata["openai.message.phase"], "commentary")
        call = item.parts[1]
        self.assertEqual(call.metadata["openai.future_call"], True)
        self.assertEqual(call.metadata["openai.function.future_fn"], 2)
        self.assertEqual(call.metadata["openai.arguments"], '{"a": 1}')
        # Message-level and call-level fields go back; response/choice-level ones never do.
        message = chat.request_from_items([item])["messages"][0]
        self.assertEqual(message, {
            "role": "assistant", "content": "hi", "phase": "commentary",
            "tool_calls": [{"id": "call_1", "type": "function", "future_call": True,
                            "function": {"name": "f", "arguments": "{\"a\": 1}", "future_fn": 2}}],
        })

    def test_invalid_arguments_do_not_crash_and_go_back_verbatim(self) -> None:
        cases = (("{\"a\": ", None), ("", {}), ("[1,2]", [1, 2]), ("NaN", None), ("{\"a\": 1e999}", None),
                 ('"\\ud800"', None), ("[" * 200 + "]" * 200, None))
        for raw, expected in cases:
            with self.subTest(raw=raw):
                message = {"role": "assistant", "content": None,
                           "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}
                item = chat.items_from_response({"id": "r", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]})[0]
                self.assertEqual(item.parts[0].input, expected)  # type: ignore[attr-defined]
                if raw != "[1,2]":
                    self.assertEqual(item.parts[0].metadata["openai.arguments"], raw)
                self.assertEqual(chat.request_from_items([item])["messages"], [message])
                if expected is None:
                    self.assertEqual(Item.from_dict(json.loads(json.dumps(item.to_dict()))).parts[0].input, None)  # type: ignore[attr-defined]


class StreamTest(unittest.TestCase):
    def test_stream_folds_into_the_items_of_the_accumulated_response(self) -> None:
        names = files(".stream.jsonl")
        self.assertEqual(len(names), 7)
        for name in names:
            with self.subTest(name):
                chunks = events(name)
                decoder, deltas, state = stream(name)
                self.assertFalse(state.is_open)  # every part begun was committed
                expected = chat.items_from_response(accumulate(chunks))
                self.assertEqual(dicts(decoder.finish_all(state.parts)), dicts(expected))
                self.assertEqual(decoder.finish(state.parts), expected[0])
                self.assertEqual(decoder.response(), accumulate(chunks))
                self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts(expected))
                for d in deltas:  # every delta is wire-valid
                    self.assertEqual(Delta.from_dict(json.loads(json.dumps(d.to_dict()))), d)

    def test_every_commit_names_the_part_it_closes(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                _, deltas, _ = stream(name)
                begun = [d.part_id.value for d in deltas if isinstance(d, BeginPart)]
                committed = [d.part_id.value for d in deltas if isinstance(d, CommitPart)]  # type: ignore[union-attr]
                self.assertEqual(sorted(begun), sorted(committed))
                self.assertEqual(len(set(begun)), len(begun))
                for pid in begun:
                    self.assertRegex(pid, r"^part-\d+-(content|refusal|audio|tool-\d+|function-call)$")

    def test_parallel_tool_calls_arrive_whole(self) -> None:
        decoder, deltas, state = stream("chat.parallel_tool_calls.stream.jsonl")
        item = decoder.finish(state.parts)
        self.assertEqual([(p.id.value, p.name, p.input) for p in item.parts], [  # type: ignore[attr-defined]
            ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
            ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
        ])
        self.assertEqual([p.metadata["openai.index"] for p in item.parts], [0, 1])
        # The recording puts a space after ':' and ',': the raw text is kept for an exact echo.
        self.assertEqual(item.parts[1].metadata["openai.arguments"], '{"ticker": "AAPL", "exchange": "NASDAQ"}')
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.usage.tokens.output_tokens, 60)  # type: ignore[union-attr]

    def test_interleaved_fragments_of_parallel_calls(self) -> None:
        """Fragments of two calls shuffled together (order kept per call) still give whole arguments."""
        chunks = events("chat.parallel_tool_calls.stream.jsonl")
        frags = [c for c in chunks if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
        rest_head = [c for c in chunks[:1]]
        tail = [c for c in chunks if c not in frags and c not in rest_head]
        expected = chat.items_from_stream(chunks)
        rng = random.Random(5)
        for trial in range(20):
            by_call = {0: [f for f in frags if f["choices"][0]["delta"]["tool_calls"][0]["index"] == 0],
                       1: [f for f in frags if f["choices"][0]["delta"]["tool_calls"][0]["index"] == 1]}
            mixed = []
            while by_call[0] or by_call[1]:
                k = rng.choice([k for k in by_call if by_call[k]])
                mixed.append(by_call[k].pop(0))
            with self.subTest(trial=trial):
                # Only the first fragment of each call opens its part; if call 1 starts first it comes first.
                got = chat.items_from_stream(rest_head + mixed + tail)[0]
                self.assertEqual(sorted(got.parts, key=lambda p: p.metadata["openai.index"]), list(expected[0].parts))

    def test_snapshot_shows_progress(self) -> None:
        decoder = chat.stream_decoder()
        state = FoldState()
        seen_args: list[str] = []
        for event in events("chat.tool_call.stream.jsonl"):
            for d in decoder.feed(event):
                state = fold(state, d)
            if state.is_open:
                seen_args.append(state.snapshot()[0].metadata.get("agentkit.input_json"))
        self.assertEqual(seen_args, [None, '{"', '{"country', '{"country":"', '{"country":"UK', '{"country":"UK"}'])
        decoder, state = chat.stream_decoder(), FoldState()
        texts: list[str] = []
        for event in events("chat.text_content.stream.jsonl"):
            for d in decoder.feed(event):
                state = fold(state, d)
            if state.is_open:
                texts.append(state.snapshot()[0].text)  # type: ignore[attr-defined]
        self.assertEqual(texts[0], "")
        self.assertEqual(texts[-1], "The capital of the UK is London.")
        self.assertEqual(texts, sorted(texts, key=len))

    def test_open_parts_show_their_header(self) -> None:
        """The decoder sends the fold's header keys as soon as a call's id and name (or audio's type) are known."""
        decoder, state = chat.stream_decoder(), FoldState()
        headers: list[tuple[str, str]] = []
        for event in events("chat.tool_call.stream.jsonl"):
            state = fold_all(state, decoder.feed(event))
            if state.is_open:
                call = state.snapshot()[0]
                assert isinstance(call, ToolCallPart)
                headers.append((call.id.value, call.name))
                self.assertFalse([k for k in call.metadata if k in ("agentkit.tool_call_id", "agentkit.tool_name")])
        self.assertEqual(set(headers), {("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital")})
        decoder, state = chat.stream_decoder(), FoldState()
        media: list[tuple[Modality, str]] = []
        for event in events("chat.audio_output.reconstructed.stream.jsonl"):
            state = fold_all(state, decoder.feed(event))
            if state.is_open:
                audio = state.snapshot()[0]
                assert isinstance(audio, MediaPart)
                media.append((audio.modality, audio.mime_type))
        self.assertEqual(media[0][0], Modality.AUDIO)
        self.assertEqual(media[-1], (Modality.AUDIO, "audio/wav"))

    def test_multiple_choices(self) -> None:
        decoder, deltas, state = stream("chat.multiple_choices.stream.jsonl")
        items = decoder.finish_all(state.parts)
        self.assertEqual([i.metadata["openai.index"] for i in items], [0, 1, 2])
        self.assertEqual([json.loads(i.text_content())["temperature"] for i in items], [65, 61, 59])
        self.assertEqual({i.finish_reason for i in items}, {FinishReason.COMPLETED})
        self.assertIsNotNone(items[0].usage)
        self.assertEqual([i.usage for i in items[1:]], [None, None])  # usage covers all choices: counted once
        self.assertEqual({d.part_id.value for d in deltas if isinstance(d, BeginPart)},
                         {"part-0-content", "part-1-content", "part-2-content"})
        self.assertEqual(decoder.finish(state.parts), items[0])

    def test_refusal(self) -> None:
        decoder, deltas, state = stream("chat.refusal.stream.jsonl")
        item = decoder.finish(state.parts)
        self.assertEqual(item.parts, (TextPart("I'm sorry, I can't assist with that request.", metadata={"openai.refusal": True}),))
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata["openai.finish_reason"], "stop")
        self.assertEqual(chat.request_from_items([item])["messages"], [{"role": "assistant", "refusal": item.parts[0].text}])  # type: ignore[attr-defined]

    def test_finish_length(self) -> None:
        decoder, _, state = stream("chat.finish_length.stream.jsonl")
        item = decoder.finish(state.parts)
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        self.assertEqual(item.metadata["openai.finish_reason"], "length")
        self.assertEqual(item.text_content(), '{"')

    def test_audio_stream(self) -> None:
        decoder, _, state = stream("chat.audio_output.reconstructed.stream.jsonl")
        (part,) = decoder.finish(state.parts).parts
        assert isinstance(part, MediaPart)
        self.assertEqual(part.data, InlineText(load("chat.audio_output.response.json")["choices"][0]["message"]["audio"]["data"]))
        self.assertEqual(part.mime_type, "audio/wav")
        self.assertEqual(part.metadata["openai.transcript"], "A single orange pixel.")
        self.assertEqual(part.metadata["openai.expires_at"], 1742909007)

    def test_cut_short_stream_finishes_from_finalize(self) -> None:
        chunks = events("chat.tool_call.stream.jsonl")[:-2]  # no finish_reason, no usage
        decoder = chat.stream_decoder()
        state = fold_all(FoldState(), chat.deltas_from_stream(chunks, decoder))
        self.assertTrue(state.is_open)
        item = decoder.finish(state.finalize())
        self.assertEqual(item.parts[0].input, {"country": "UK"})  # type: ignore[attr-defined]
        self.assertIsNone(item.finish_reason)
        self.assertIsNone(item.usage)

    def test_sse_bodies_parse_to_the_jsonl_events(self) -> None:
        names = files(".sse.txt")
        self.assertEqual(len(names), 6)
        for name in names:
            with self.subTest(name):
                body = (PAYLOADS / name).read_text(encoding="utf-8")
                self.assertEqual(list(chat.events_from_sse(body)), events(name.replace(".sse.txt", ".stream.jsonl")))


class RequestTest(unittest.TestCase):
    def test_every_request_round_trips(self) -> None:
        names = files(".request.json")
        self.assertEqual(len(names), 6)
        for name in names:
            with self.subTest(name):
                request = load(name)
                items = chat.items_from_request(request)
                self.assertEqual(len(items), len(request["messages"]))
                self.assertEqual(chat.request_from_items(items)["messages"], request["messages"])
                for item in items:
                    self.assertEqual(Item.from_dict(json.loads(json.dumps(item.to_dict()))), item)

    def test_multimodal_request_parts(self) -> None:
        developer, user = chat.items_from_request(load("chat.multimodal_input.request.json"))
        self.assertIs(developer.kind, ItemKind.DEVELOPER)
        self.assertEqual(developer.parts, (TextPart("Answer briefly."),))
        text, png, remote, audio, pdf, file_id = user.parts
        self.assertIsInstance(text, TextPart)
        self.assertEqual((png.modality, png.mime_type, png.metadata["openai.detail"]), (Modality.IMAGE, "image/png", "low"))  # type: ignore[attr-defined]
        self.assertTrue(png.data.value.startswith("iVBORw0KGgo"))  # type: ignore[attr-defined]
        self.assertIsInstance(remote.data, Uri)  # type: ignore[attr-defined]
        self.assertEqual((audio.modality, audio.mime_type), (Modality.AUDIO, "audio/wav"))  # type: ignore[attr-defined]
        self.assertEqual((pdf.name, pdf.mime_type), ("revenue.pdf", "application/pdf"))  # type: ignore[attr-defined]
        self.assertTrue(pdf.data.value.startswith("JVBERi0"))  # type: ignore[attr-defined]
        self.assertEqual(file_id.data, DataRef.handle("file-6F2ksmvXxt4VdoqmHRw6kL"))  # type: ignore[attr-defined]

    def test_single_text_part_in_list_form_stays_a_list(self) -> None:
        messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    {"role": "user", "content": "hi"},
                    {"role": "user", "name": "ann", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]},
                    {"role": "assistant", "content": None, "audio": {"id": "audio_1"}},
                    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]},
                    {"role": "function", "name": "f", "content": "done"},
                    {"role": "user", "content": [{"type": "future_part", "x": 1}]}]
        items = chat.items_from_request({"messages": messages})
        self.assertEqual(chat.request_from_items(items)["messages"], messages)
        self.assertEqual(items[2].metadata["openai.message.name"], "ann")
        self.assertEqual(items[6].parts[0].kind, "openai.future_part")  # type: ignore[attr-defined]


class FollowUpTest(unittest.TestCase):
    """Each recorded follow-up request, rebuilt from the items of the conversation so far."""

    def test_tool_result_followup_after_a_streamed_tool_call(self) -> None:
        first = chat.items_from_request(load("chat.tool_call_stream.request.json"))
        decoder, _, state = stream("chat.tool_call.stream.jsonl")
        assistant = decoder.finish(state.parts)
        call = assistant.parts[0]
        assert isinstance(call, ToolCallPart)
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("London")),))
        rebuilt = chat.request_from_items(first + [assistant, result])
        self.assertEqual(rebuilt["messages"], load("chat.tool_result_followup.request.json")["messages"])

    def test_audio_followup_refers_back_by_id(self) -> None:
        recorded = load("chat.audio_followup.request.json")["messages"]
        assistant = chat.items_from_response(load("chat.audio_output.response.json"))[0]
        items = [Item.text(ItemKind.USER, "Describe the picture."), assistant, Item.text(ItemKind.USER, "Say it again, slower.")]
        self.assertEqual(chat.request_from_items(items)["messages"], recorded)

    def test_tool_result_image_is_reinjected_as_a_user_message(self) -> None:
        request = load("chat.tool_message_then_image.request.json")
        user, assistant = chat.items_from_request(request)[:2]
        call = assistant.parts[0]
        assert isinstance(call, ToolCallPart)
        image = MediaPart(Modality.IMAGE, "image/png", Uri("https://www.gstatic.com/webp/gallery3/1.png"))
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, PartsOutput((TextPart("File attached"), image))),))
        self.assertEqual(chat.request_from_items([user, assistant, result])["messages"], request["messages"])

    def test_parallel_results_keep_tool_messages_contiguous(self) -> None:
        decoder, _, state = stream("chat.parallel_tool_calls.stream.jsonl")
        assistant = decoder.finish(state.parts)
        image = MediaPart(Modality.IMAGE, "image/png", InlineText("iVBORw0KGgo="))
        results = [Item(ItemKind.TOOL, (ToolResultPart(p.id, PartsOutput((TextPart("t"), image))),)) for p in assistant.parts]  # type: ignore[attr-defined]
        messages = chat.request_from_items([assistant, *results])["messages"]
        self.assertEqual([m["role"] for m in messages], ["assistant", "tool", "tool", "user"])
        self.assertEqual(messages[0]["tool_calls"][0]["function"]["arguments"], '{"city": "Edinburgh", "country": "GB", "units": "c"}')
        self.assertNotIn("index", messages[0]["tool_calls"][0])
        self.assertEqual(messages[3]["content"], [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}] * 2)


class AdapterShapeTest(unittest.TestCase):
    def test_module_provides_the_provider_adapter_functions(self) -> None:
        for name in ("items_from_response", "stream_decoder", "items_from_request", "request_from_items"):
            self.assertTrue(callable(getattr(chat, name)), name)
        decoder = chat.stream_decoder()
        self.assertTrue(callable(decoder.feed) and callable(decoder.finish))
        self.assertEqual(decoder.feed({"id": "x", "choices": []}), [])
        empty = decoder.finish(())
        self.assertEqual((empty.kind, empty.parts, empty.id.value), (ItemKind.ASSISTANT, (), "x"))  # type: ignore[union-attr]

    def test_handle_media_cannot_be_sent(self) -> None:
        from agentkit_core import ArtifactId, NormalizeError

        item = Item(ItemKind.USER, (MediaPart(Modality.IMAGE, "image/png", Handle(ArtifactId("art-1"))),))
        with self.assertRaises(NormalizeError):
            chat.request_from_items([item])


if __name__ == "__main__":
    unittest.main()
