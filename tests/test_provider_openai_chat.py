"""The shipped OpenAI Chat Completions projection, over the recorded corpus and the documented API.

Every file in ``tests/payloads/openai_chat`` is exercised: responses map to
items, streams (JSON Lines and raw SSE) fold closed into exactly the items of
the equivalent non-streaming response, requests round-trip, and the recorded
follow-up requests are rebuilt from the items of the conversation so far.
Shapes the recordings lack are tested with small payloads written from the
API reference (openai-python ``types/chat``), and a seeded mutation test
checks that bad input gives only ``NormalizeError``.
"""

from __future__ import annotations

import base64
import json
import random
import unittest
from functools import partial
from typing import Any

from agentkit_core import (
    FINISH_REASON_KEY,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    STREAM_CUT_KEY,
    TOOL_NAME_KEY,
    AppendBytes,
    AppendText,
    ArtifactId,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FilePart,
    FinishReason,
    FoldState,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    NormalizeError,
    PartKind,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    fold_all,
)
from agentkit_core.providers import _common, openai_chat as chat
from agentkit_core.providers._common import streams as _streams
from tests import recorded
from tests.mutation import mutate, mutate_stream, outcome
from tests.recorded import stored

PROVIDER = "openai_chat"
load = partial(recorded.load, PROVIDER)
events = partial(recorded.load_events, PROVIDER)
files = partial(recorded.names, PROVIDER)


def grow(entries: list[Any], fragment: Any) -> None:
    """A fragment of a list field: it continues the last entry of its ``index`` (when it names no other
    ``type``), whose text grows and whose identity fields (index, type, id, format) it repeats."""
    same = [e for e in entries if isinstance(fragment, dict) and isinstance(fragment.get("index"), int)
            and isinstance(e, dict) and e.get("index") == fragment["index"]]
    if not same or fragment.get("type") not in (None, same[-1].get("type")):
        entries.append(json.loads(json.dumps(fragment)))
        return
    held = same[-1]
    for k, v in fragment.items():
        if isinstance(v, str) and isinstance(held.get(k), str) and k not in ("index", "type", "id", "format"):
            held[k] += v
        elif v is not None or k not in held:
            held[k] = v


def accumulate(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Chunks -> the equivalent ``chat.completion``, the way the OpenAI SDK's stream state builds it.

    Written independently of the adapter: text fragments (content, refusal,
    arguments, audio data and transcript) concatenate, tool calls merge by
    ``index`` (id, type and name arrive on the first fragment only; an empty
    one later changes nothing), so do the entries of other list fields that
    carry an ``index``, other chunk and choice fields keep their last non-null
    value, usage comes from the one chunk that has it.
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
                            elif v is not None and v != "":  # the SDK joins strings: "call_1" + "" stays
                                call[k] = v
                elif key in ("audio", "function_call"):
                    obj = msg.setdefault(key, {})
                    for k, v in value.items():
                        obj[k] = obj.get(k, "") + v if k in ("data", "transcript", "arguments") else v
                elif isinstance(value, str) and isinstance(msg.get(key), str) and key != "role":
                    msg[key] += value
                elif isinstance(value, list):
                    for entry in value:
                        grow(msg.setdefault(key, []), entry)
                elif value is not None or key not in msg:
                    msg[key] = value
    body["object"] = "chat.completion"
    body["choices"] = [choices[i] for i in sorted(choices)]
    if body.get("usage") is None:
        body.pop("usage", None)
    return body


def run(chunks: list[dict[str, Any]]) -> tuple[chat.ChatStreamDecoder, list[Delta], FoldState]:
    decoder = chat.stream_decoder()
    deltas = [d for e in chunks for d in decoder.feed(e)]
    return decoder, deltas, fold_all(FoldState(), deltas)


def dicts(items: list[Item]) -> list[dict[str, Any]]:
    return [i.to_dict() for i in items]


def body(*choices: dict[str, Any], **top: Any) -> dict[str, Any]:
    """A ``chat.completion`` written from the API reference."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-x", "choices": list(choices), **top}


def choice(finish: str | None = "stop", index: int = 0, **message: Any) -> dict[str, Any]:
    return {"index": index, "message": {"role": "assistant", **message}, "finish_reason": finish, "logprobs": None}


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, index: int = 0, **top: Any) -> dict[str, Any]:
    """A ``chat.completion.chunk``; with neither delta nor finish reason, one with ``choices: []``."""
    choices = [] if delta is None and finish is None else [{"index": index, "delta": delta or {}, "finish_reason": finish}]
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x", "choices": choices, **top}


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def messages_of(items: list[Item]) -> list[dict[str, Any]]:
    return chat.request_from_items(items)["messages"]  # type: ignore[no-any-return]


# -- responses ----------------------------------------------------------------------------------


class ResponseTest(unittest.TestCase):
    def test_every_response_decodes_to_wire_valid_items(self) -> None:
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                items = chat.items_from_response(response)
                self.assertEqual(len(items), len(response["choices"]))
                for item, native in zip(items, response["choices"]):
                    self.assertIs(item.kind, ItemKind.ASSISTANT)
                    self.assertEqual(item.id.value, response["id"])  # type: ignore[union-attr]
                    self.assertEqual(item.metadata["openai.model"], response["model"])
                    self.assertEqual(item.metadata[FINISH_REASON_KEY], native["finish_reason"])
                    self.assertEqual(stored(item), item)
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
                self.assertIsNotNone(tokens)
                got = (tokens.input_tokens, tokens.output_tokens, tokens.reasoning_tokens,
                       tokens.cached_input_tokens, tokens.cache_write_input_tokens)
                self.assertEqual(got, expected)

    def test_prediction_and_audio_token_details_stay_in_the_native_usage(self) -> None:
        usage = {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29,
                 "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 3},
                 "completion_tokens_details": {"reasoning_tokens": 2, "audio_tokens": 1,
                                               "accepted_prediction_tokens": 5, "rejected_prediction_tokens": 1}}
        item = chat.items_from_response(body(choice(content="x"), usage=usage))[0]
        self.assertIsNotNone(item.usage)
        self.assertIsNotNone(item.usage.tokens)
        self.assertEqual((item.usage.tokens.input_tokens, item.usage.tokens.cached_input_tokens,
                          item.usage.tokens.reasoning_tokens), (20, 4, 2))
        self.assertEqual(item.usage.metadata["openai.usage"], usage)
        partial = chat.items_from_response(body(choice(content="x"), usage={"total_tokens": 3}))[0]
        self.assertIsNone(partial.usage.tokens)  # type: ignore[union-attr]

    def test_finish_reasons(self) -> None:
        table = {
            "stop": FinishReason.COMPLETED,
            "length": FinishReason.MAX_TOKENS,
            "tool_calls": FinishReason.TOOL_CALL,
            "function_call": FinishReason.TOOL_CALL,
            "content_filter": FinishReason.BLOCKED,
            "something_new": FinishReason.other("something_new"),
        }
        enums = recorded.load(".", "enums.json")
        self.assertLessEqual(set(enums["openai_chat"]["finish_reason"]) - {None}, set(table))
        for raw, reason in table.items():
            with self.subTest(raw):
                item = chat.items_from_response(body(choice(raw, content="a")))[0]
                self.assertEqual(item.finish_reason, reason)
                self.assertEqual(item.metadata[FINISH_REASON_KEY], raw)
        item = chat.items_from_response(body(choice(None, content="a")))[0]
        self.assertIsNone(item.finish_reason)
        self.assertNotIn(FINISH_REASON_KEY, item.metadata)

    def test_tool_calls(self) -> None:
        item = chat.items_from_response(load("chat.tool_calls.response.json"))[0]
        (call,) = item.parts
        self.assertEqual(call, ToolCallPart(ToolCallId("call_iXFttys57ap0o16JSlC8yhYo"), "get_user_country", {}))
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.metadata["openai.chat.annotations"], [])  # no content: kept on the item
        self.assertEqual(item.metadata["openai.service_tier"], "default")
        self.assertEqual(item.metadata["openai.system_fingerprint"], "fp_f5bdcc3276")
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_iXFttys57ap0o16JSlC8yhYo", "type": "function", "function": {"name": "get_user_country", "arguments": "{}"}}]}])

    def test_a_call_that_says_stop_ends_tool_call(self) -> None:
        """OpenAI answers a ``tool_choice`` that names the function with ``finish_reason: "stop"``."""
        call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        cases = [
            ({"tool_calls": [call]}, FinishReason.TOOL_CALL),
            ({"tool_calls": [{"id": "c", "type": "mcp"}]}, FinishReason.TOOL_CALL),
            ({"function_call": {"name": "f", "arguments": "{}"}}, FinishReason.TOOL_CALL),
            ({"tool_calls": []}, FinishReason.COMPLETED),
            ({"refusal": "no", "tool_calls": [call]}, FinishReason.BLOCKED),
        ]
        for message, expected in cases:
            with self.subTest(message=message):
                [item] = chat.items_from_response(body(choice("stop", content=None, **message)))
                self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (expected, "stop"))
                chunks = [chunk({"role": "assistant", **message}), chunk({}, "stop")]
                decoder, _, state = run(chunks)
                self.assertEqual((decoder.finish_reason, decoder.finish(state.parts).finish_reason), (expected, expected))
        self.assertEqual(chat.finish_reason("stop"), FinishReason.COMPLETED)  # the raw reason alone

    def test_legacy_function_call_keeps_raw_arguments(self) -> None:
        response = load("chat.function_call_legacy.response.json")
        item = chat.items_from_response(response)[0]
        (call,) = item.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id.value, call.name, call.input), ("get_current_weather", "get_current_weather", {"location": "Boston, MA"}))
        self.assertEqual(call.metadata["openai.chat.arguments"], '{\n  "location": "Boston, MA"\n}')
        self.assertIs(call.metadata["openai.chat.legacy_function_call"], True)
        self.assertIs(call.metadata[INVENTED_ID_KEY], True)  # the legacy shape has no id
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertIsNone(item.metadata["openai.system_fingerprint"])
        native = response["choices"][0]["message"]["function_call"]
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": None, "function_call": native}])

    def test_azure_content_filter(self) -> None:
        response = load("chat.content_filter_azure.response.json")
        item = chat.items_from_response(response)[0]
        self.assertEqual(item.parts, ())
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "content_filter")
        self.assertEqual(item.metadata["openai.content_filter_results"], response["choices"][0]["content_filter_results"])
        self.assertEqual(item.metadata["openai.prompt_filter_results"], response["prompt_filter_results"])
        self.assertIsNotNone(item.usage)
        self.assertEqual(messages_of([item]), [])  # nothing to send back

    def test_an_error_body_still_gives_an_item(self) -> None:
        error = {"message": "The response was filtered", "type": None, "param": "prompt", "code": "content_filter",
                 "status": 400, "innererror": {"code": "ResponsibleAIPolicyViolation",
                                               "content_filter_result": {"hate": {"filtered": True, "severity": "high"}}}}
        [item] = chat.items_from_response({"error": error})
        self.assertEqual((item.kind, item.parts, item.finish_reason), (ItemKind.ASSISTANT, (), FinishReason.BLOCKED))
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "content_filter")
        self.assertEqual(item.metadata["openai.error"], error)
        [item] = chat.items_from_response({"error": {"message": "boom", "type": "server_error", "code": None}})
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "error")  # no code: the raw reason says an error ended it
        self.assertEqual(chat.finish_reason(item.metadata[FINISH_REASON_KEY]), FinishReason.ERROR)

    def test_refusal_is_blocked_with_its_usage(self) -> None:
        [item] = chat.items_from_response(body(choice(content=None, refusal="I can't help with that."), usage=USAGE))
        self.assertEqual(item.parts, (TextPart("I can't help with that.", metadata={"openai.chat.refusal": True}),))
        self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.BLOCKED, "stop"))
        self.assertEqual(item.usage.tokens.output_tokens, 5)  # type: ignore[union-attr]
        self.assertEqual(messages_of([item]), [{"role": "assistant", "refusal": "I can't help with that."}])

    def test_audio_output(self) -> None:
        response = load("chat.audio_output.response.json")
        audio = response["choices"][0]["message"]["audio"]
        item = chat.items_from_response(response)[0]
        (part,) = item.parts
        self.assertIsInstance(part, MediaPart)
        self.assertEqual((part.modality, part.mime_type), (Modality.AUDIO, "audio/wav"))
        self.assertEqual(part.data, InlineBytes(base64.b64decode(audio["data"])))
        self.assertEqual(dict(part.metadata), {"openai.chat.audio.id": audio["id"], "openai.chat.audio.expires_at": audio["expires_at"],
                                               "openai.chat.audio.transcript": audio["transcript"]})

    def test_annotations_sit_on_the_text(self) -> None:
        item = chat.items_from_response(load("chat.input_audio.response.json"))[0]
        self.assertEqual(item.parts, (TextPart("The name mentioned in the audio is Marcelo.", metadata={"openai.chat.annotations": []}),))
        note = {"type": "url_citation", "url_citation": {"start_index": 0, "end_index": 4, "title": "Paris", "url": "https://example.org/paris"}}
        item = chat.items_from_response(body(choice(content="Paris is the capital.", annotations=[note])))[0]
        self.assertEqual(item.parts[0].metadata["openai.chat.annotations"], [note])
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": "Paris is the capital."}])  # response-only

    def test_unknown_fields_survive_everywhere(self) -> None:
        response = body({
            "index": 0, "finish_reason": "tool_calls", "future_choice": [1],
            "message": {"role": "assistant", "content": "hi", "phase": "commentary",
                        "tool_calls": [{"id": "call_1", "type": "function", "future_call": True,
                                        "function": {"name": "f", "arguments": "{\"a\": 1}", "future_fn": 2}}]},
        }, future_top={"a": 1})
        item = chat.items_from_response(response)[0]
        self.assertEqual(item.metadata["openai.future_top"], {"a": 1})
        self.assertEqual(item.metadata["openai.future_choice"], [1])
        self.assertEqual(item.metadata["openai.chat.phase"], "commentary")
        call = item.parts[1]
        self.assertEqual(call.metadata["openai.chat.future_call"], True)
        self.assertEqual(call.metadata["openai.chat.function.future_fn"], 2)
        self.assertEqual(call.metadata["openai.chat.arguments"], '{"a": 1}')
        # Message-level and call-level fields go back; response- and choice-level ones never do.
        self.assertEqual(messages_of([item]), [{
            "role": "assistant", "content": "hi", "phase": "commentary",
            "tool_calls": [{"id": "call_1", "type": "function", "future_call": True,
                            "function": {"name": "f", "arguments": "{\"a\": 1}", "future_fn": 2}}],
        }])

    def test_logprobs_tier_and_fingerprint_are_kept_and_never_sent(self) -> None:
        logprobs = {"content": [{"token": "hi", "logprob": -0.1, "bytes": [104, 105], "top_logprobs": []}], "refusal": None}
        response = body(choice(content="hi") | {"logprobs": logprobs}, service_tier="flex", system_fingerprint="fp_1")
        item = chat.items_from_response(response)[0]
        self.assertEqual((item.metadata["openai.logprobs"], item.metadata["openai.service_tier"],
                          item.metadata["openai.system_fingerprint"]), (logprobs, "flex", "fp_1"))
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": "hi"}])

    def test_invalid_arguments_follow_the_fold_convention_and_go_back_verbatim(self) -> None:
        cases = (("{\"a\": ", None), ("", {}), ("[1,2]", [1, 2]), ("NaN", None), ("{\"a\": 1e999}", None),
                 ('"\\ud800"', None), ("[" * 200 + "]" * 200, None), (" {} ", {}))
        for raw, expected in cases:
            with self.subTest(raw=raw):
                message = {"role": "assistant", "content": None,
                           "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}
                item = chat.items_from_response(body(choice("tool_calls", **message)))[0]
                call = item.parts[0]
                self.assertIsInstance(call, ToolCallPart)
                self.assertEqual(call.input, expected)
                if expected is None:
                    self.assertEqual(call.metadata[INPUT_JSON_KEY], raw)
                    self.assertIsInstance(call.metadata[INPUT_ERROR_KEY], str)
                self.assertEqual(messages_of([item]), [message])
                self.assertEqual(stored(item), item)

    def test_raw_arguments_are_kept_exactly_when_the_compact_dump_differs(self) -> None:
        cases = {"{}": False, '{"a":1}': False, '{"a":"\u00e9"}': False, '{"a": 1}': True, "{ }": True,
                 '{"a":"\\u00e9"}': True, '{"a":1.10}': True, '{"a":1,"a":2}': True, '{"a":-0.0}': False}
        for raw, kept in cases.items():
            with self.subTest(raw=raw):
                message = {"role": "assistant", "content": None,
                           "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}
                item = chat.items_from_response(body(choice("tool_calls", **message)))[0]
                self.assertEqual(item.parts[0].metadata.get("openai.chat.arguments"), raw if kept else None)
                self.assertEqual(messages_of([item]), [message])

    def test_dumps_and_to_json_write_what_the_compact_json_encoder_writes_with_or_without_the_accelerator(self) -> None:
        from agentkit_core.jsontext import compact_json

        values: list[Any] = [{}, [], "\u00e9\u2028\x7f\x00\"\\\n", 1.5, -0.0, 1e300, 10**30, True, None,
                             {"a": [1, {"b": "x"}], "\u00e9": [2.5e-9]}]
        expected = [json.dumps(v, separators=(",", ":"), ensure_ascii=False) for v in values]
        saved = json.encoder.c_make_encoder
        try:
            for accelerator in (saved, None):
                with self.subTest(accelerator=accelerator is not None):
                    json.encoder.c_make_encoder = accelerator  # type: ignore[attr-defined]
                    compact_json.cache_clear()  # made again on the next call
                    self.assertEqual([_common.arguments.dumps(v) for v in values], expected)
                    item = Item(ItemKind.USER, [TextPart("\u00e9\u2028\x00")], metadata={"a": values[-1]})
                    self.assertEqual(item.to_json(), json.dumps(item.to_dict(), separators=(",", ":"), ensure_ascii=False))
        finally:
            json.encoder.c_make_encoder = saved  # type: ignore[attr-defined]
            compact_json.cache_clear()

    def test_the_body_encoder_is_dumps_without_nan_with_or_without_the_accelerator(self) -> None:
        from agentkit_core.providers._common import reuse

        values: list[Any] = [{}, "\u00e9\u2028\x00\"\\\n", 1.5, -0.0, 10**30, {"a": [1, {"b": None}], "\u00e9": [True]}]
        expected = [json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=False) for v in values]
        saved = json.encoder.c_make_encoder
        try:
            for accelerator in (saved, None):
                with self.subTest(accelerator=accelerator is not None):
                    json.encoder.c_make_encoder = accelerator  # type: ignore[attr-defined]
                    reuse._encode = None  # made again on the next call
                    encode = reuse.encoder()
                    self.assertEqual([encode(v) for v in values], expected)
                    with self.assertRaises(ValueError):
                        encode([float("nan")])
        finally:
            json.encoder.c_make_encoder = saved  # type: ignore[attr-defined]
            reuse._encode = None

    def test_several_choices(self) -> None:
        response = body(choice(content="a", index=0), choice("length", index=1, content="b"), usage=USAGE)
        first, second = chat.items_from_response(response)
        self.assertEqual((first.text_content(), second.text_content()), ("a", "b"))
        self.assertEqual((first.metadata["openai.index"], second.metadata["openai.index"]), (0, 1))
        self.assertEqual((first.finish_reason, second.finish_reason), (FinishReason.COMPLETED, FinishReason.MAX_TOKENS))
        self.assertEqual(first.id, second.id)
        self.assertIsNotNone(first.usage)
        self.assertIsNone(second.usage)  # the usage covers every choice: counted once

    def test_compatible_reasoning_fields(self) -> None:
        for field in ("reasoning_content", "reasoning"):
            with self.subTest(field):
                item = chat.items_from_response(body(choice(content="4", **{field: "2+2 is 4"})))[0]
                self.assertEqual(item.parts, (ReasoningPart("2+2 is 4", metadata={"openai.chat.reasoning_field": field}), TextPart("4")))
                self.assertNotIn(PROVIDER_KEY, item.parts[0].metadata)  # readable text, no opaque state
                self.assertEqual(messages_of([item]), [{"role": "assistant", "content": "4", field: "2+2 is 4"}])
        both = chat.items_from_response(body(choice(content="4", reasoning="same", reasoning_content="same")))[0]
        self.assertEqual([type(p) for p in both.parts], [ReasoningPart, TextPart])
        self.assertEqual(both.parts[0].metadata["openai.chat.reasoning_field"], "reasoning_content")
        self.assertEqual(both.metadata["openai.chat.reasoning"], "same")  # the other one rides along
        self.assertEqual(messages_of([both]), [{"role": "assistant", "content": "4", "reasoning": "same", "reasoning_content": "same"}])
        details = [{"type": "reasoning.encrypted", "data": "opaque", "id": "r1", "format": "openai-responses-v1", "index": 0}]
        routed = chat.items_from_response(body(choice(content="4", reasoning="r", reasoning_details=details)))[0]
        self.assertEqual(messages_of([routed])[0]["reasoning_details"], details)  # OpenRouter's, sent back as it came

    def test_custom_tool_calls(self) -> None:
        call = {"id": "call_9", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin Patch\n+x\n"}}
        item = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=[call])))[0]
        (part,) = item.parts
        self.assertIsInstance(part, ToolCallPart)
        self.assertEqual((part.id.value, part.name, part.input), ("call_9", "apply_patch", "*** Begin Patch\n+x\n"))
        self.assertEqual(part.metadata["openai.chat.type"], "custom")
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": None, "tool_calls": [call]}])

    def test_a_tool_call_of_an_unknown_type_is_kept_whole(self) -> None:
        call = {"id": "call_2", "type": "mcp", "mcp": {"server": "s", "tool": "t"}}
        item = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=[call])))[0]
        self.assertEqual(item.parts, (CustomPart("openai.chat.tool_call", value=call),))
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": None, "tool_calls": [call]}])

    def test_a_call_without_id_gets_an_invented_one_and_keeps_it(self) -> None:
        call = {"type": "function", "function": {"name": "f", "arguments": "{}"}}
        item = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=[call])))[0]
        part = item.parts[0]
        self.assertIsInstance(part, ToolCallPart)
        self.assertRegex(part.id.value, r"^call_[0-9a-f]{24}$")
        self.assertIs(part.metadata[INVENTED_ID_KEY], True)
        other = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=[call])))[0].parts[0]
        self.assertNotEqual(other.id, part.id)  # type: ignore[attr-defined]
        result = Item(ItemKind.TOOL, (ToolResultPart(part.id, TextOutput("ok")),))
        sent = messages_of([item, result])  # Chat pairs a result with its call by id: the invented one is sent
        self.assertEqual(sent[0]["tool_calls"][0]["id"], part.id.value)
        self.assertEqual(sent[1], {"role": "tool", "tool_call_id": part.id.value, "content": "ok"})

    def test_content_parts_from_a_compatible_server(self) -> None:
        content = [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]
        item = chat.items_from_response(body(choice(content=content)))[0]
        self.assertEqual([type(p) for p in item.parts], [TextPart, MediaPart])
        self.assertEqual(messages_of([item])[0]["content"], "a")  # assistant content takes text only


# -- streams ------------------------------------------------------------------------------------


def text_of(part: Any) -> Any:
    """What grows while a part streams: its text, summary, argument text, custom input or bytes."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ReasoningPart):
        return part.summary or ""
    if isinstance(part, ToolCallPart):
        return part.input if isinstance(part.input, str) else part.metadata.get(INPUT_JSON_KEY)  # None once parsed
    if isinstance(part, MediaPart) and isinstance(part.data, (InlineBytes, InlineText)):
        return part.data.value
    return None


HAND_WRITTEN_STREAMS = [
    [chunk({"role": "assistant", "reasoning_content": ""}), chunk({"reasoning_content": "Two plus"}),
     chunk({"reasoning_content": " two."}), chunk({"content": "4"}), chunk({"content": " it is"}), chunk({}, "stop")],
    [chunk({"tool_calls": [{"index": 0, "id": "call_c", "type": "custom", "custom": {"name": "patch", "input": ""}}]}),
     chunk({"tool_calls": [{"index": 0, "custom": {"input": "line 1\n"}}]}),
     chunk({"tool_calls": [{"index": 0, "custom": {"input": "line 2"}}]}), chunk({}, "tool_calls")],
    [chunk({"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": ""}}),
     chunk({"function_call": {"arguments": "{\"q\":"}}), chunk({"function_call": {"arguments": "1}"}}), chunk({}, "function_call")],
]


class StreamTest(unittest.TestCase):
    def test_every_stream_folds_closed_into_the_items_of_the_accumulated_response(self) -> None:
        names = files(".stream.jsonl")
        self.assertEqual(len(names), 9)
        for name in names:
            with self.subTest(name):
                chunks = events(name)
                decoder, deltas, state = run(chunks)
                self.assertFalse(state.is_open)  # every part begun was committed
                expected = chat.items_from_response(accumulate(chunks))
                self.assertEqual(dicts(decoder.finish_all(state.parts)), dicts(expected))
                self.assertEqual(decoder.finish(state.parts), expected[0])
                self.assertEqual(decoder.response(), accumulate(chunks))
                self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts(expected))
                for d in deltas:
                    self.assertEqual(Delta.from_dict(json.loads(json.dumps(d.to_dict()))), d)

    def test_the_turn_closes_on_its_finish_reason(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                chunks = events(name)
                last_finish = max(n for n, c in enumerate(chunks) if any(ch.get("finish_reason") for ch in c["choices"]))
                _, _, state = run(chunks[: last_finish + 1])
                self.assertFalse(state.is_open)

    def test_raw_sse_bodies(self) -> None:
        names = files(".sse.txt")
        self.assertEqual(len(names), 8)
        self.assertIs(chat.events_from_sse, _streams.events_from_sse)
        for name in names:
            with self.subTest(name):
                raw = recorded.raw(PROVIDER, name)
                jsonl = events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertEqual(list(chat.events_from_sse(raw.decode("utf-8"))), jsonl)
                self.assertEqual(list(chat.events_from_sse(raw)), jsonl)
                self.assertEqual(list(chat.events_from_sse(raw.splitlines(keepends=True))), jsonl)
                self.assertEqual(dicts(chat.items_from_stream(chat.events_from_sse(raw))), dicts(chat.items_from_stream(jsonl)))

    def test_a_lone_cr_ends_an_sse_line(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                body = recorded.with_lone_cr(recorded.raw(PROVIDER, name))
                jsonl = events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertNotIn(b"\n", body)
                self.assertEqual(list(chat.events_from_sse(body)), jsonl)
                self.assertEqual(list(chat.events_from_sse(body.decode("utf-8"))), jsonl)
                self.assertEqual(list(chat.events_from_sse(recorded.after_each_cr(body))), jsonl)

    def test_every_commit_names_the_part_it_closes(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                _, deltas, _ = run(events(name))
                begun = [d.part_id.value for d in deltas if isinstance(d, BeginPart)]
                committed = [d.part_id.value for d in deltas if isinstance(d, CommitPart)]  # type: ignore[union-attr]
                self.assertEqual(sorted(begun), sorted(committed))
                self.assertEqual(len(set(begun)), len(begun))
                for pid in begun:
                    self.assertRegex(pid, r"^part-\d+-(reasoning|content|refusal|audio|tool-\d+|function-call)$")

    def test_snapshots_only_grow(self) -> None:
        """While the stream runs every open part's text (or bytes) only grows, up to the committed value."""
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                self.assert_grows(events(name))
        for n, chunks in enumerate(HAND_WRITTEN_STREAMS):
            with self.subTest(hand_written=n):
                self.assert_grows(chunks)

    def assert_grows(self, chunks: list[dict[str, Any]]) -> None:
        decoder, state = chat.stream_decoder(), FoldState()
        seen: dict[int, list[Any]] = {}
        for event in chunks:
            state = fold_all(state, decoder.feed(event))
            for n, part in enumerate(state.snapshot()):
                seen.setdefault(n, []).append(text_of(part))
        self.assertFalse(state.is_open)
        native = [c for ch in decoder.response()["choices"] for c in ch["message"].get("tool_calls", [])]
        native += [ch["message"]["function_call"] for ch in decoder.response()["choices"] if "function_call" in ch["message"]]
        for n, texts in seen.items():
            grown = [t for t in texts if t is not None]
            self.assertTrue(grown)
            for a, b in zip(grown, grown[1:]):
                self.assertTrue(b.startswith(a), (a, b))
            final = state.parts[n]
            if isinstance(final, ToolCallPart) and not isinstance(final.input, str):
                self.assertIn(grown[-1], [c.get("function", c).get("arguments") for c in native])
            else:
                self.assertEqual(grown[-1], text_of(final))

    def test_parallel_tool_calls_arrive_whole(self) -> None:
        decoder, _, state = run(events("chat.parallel_tool_calls.stream.jsonl"))
        item = decoder.finish(state.parts)
        self.assertEqual([(p.id.value, p.name, p.input) for p in item.parts], [  # type: ignore[attr-defined]
            ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
            ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
        ])
        # The recording puts a space after ':' and ',': the raw text is kept for an exact echo.
        self.assertEqual(item.parts[1].metadata["openai.chat.arguments"], '{"ticker": "AAPL", "exchange": "NASDAQ"}')
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.usage.tokens.output_tokens, 60)  # type: ignore[union-attr]

    def test_interleaved_fragments_of_parallel_calls(self) -> None:
        """Fragments of two calls shuffled together (order kept per call) still give whole arguments."""
        chunks = events("chat.parallel_tool_calls.stream.jsonl")
        frags = [c for c in chunks if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
        head = chunks[:1]
        tail = [c for c in chunks if c not in frags and c not in head]
        expected = chat.items_from_stream(chunks)[0]
        rng = random.Random(5)
        for trial in range(20):
            by_call = {k: [f for f in frags if f["choices"][0]["delta"]["tool_calls"][0]["index"] == k] for k in (0, 1)}
            mixed = []
            while by_call[0] or by_call[1]:
                k = rng.choice([k for k in by_call if by_call[k]])
                mixed.append(by_call[k].pop(0))
            with self.subTest(trial=trial):
                got = chat.items_from_stream(head + mixed + tail)[0]  # the call that starts first comes first
                self.assertEqual(sorted(got.parts, key=lambda p: p.id.value), sorted(expected.parts, key=lambda p: p.id.value))  # type: ignore[attr-defined]

    def test_parallel_calls_sent_at_one_index_with_their_own_ids(self) -> None:
        """Ollama and LiteLLM's Responses bridge send every parallel call at ``index`` 0: a call opened with a new id is new."""
        def frag(args: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
            head = {"id": call_id, "type": "function"} if call_id else {}
            return {"index": 0, **head, "function": {**({"name": name} if name else {}), "arguments": args}}
        fragmented = [chunk({"role": "assistant", "content": None, "tool_calls": [frag("", "call_a", "write")]}),
                      chunk({"tool_calls": [frag("{\"path\":")]}), chunk({"tool_calls": [frag("\"a.py\"}")]}),
                      chunk({"tool_calls": [frag("", "call_b", "write")]}), chunk({"tool_calls": [frag("{\"path\":\"b.py\"}")]}),
                      chunk({}, "tool_calls")]
        whole = [chunk({"role": "assistant", "tool_calls": [frag("{\"path\":\"a.py\"}", "call_a", "write"),
                                                            frag("{\"path\":\"b.py\"}", "call_b", "write")]}), chunk({}, "tool_calls")]
        for name, chunks in (("fragmented", fragmented), ("whole", whole)):
            with self.subTest(name):
                decoder, _, state = run(chunks)
                self.assertFalse(state.is_open)
                item = decoder.finish(state.parts)
                self.assertEqual([(p.id.value, p.name, p.input) for p in item.parts],  # type: ignore[attr-defined]
                                 [("call_a", "write", {"path": "a.py"}), ("call_b", "write", {"path": "b.py"})])
                self.assertEqual(dicts([item]), dicts(chat.items_from_response(decoder.response())))
        # The same id again (some servers repeat it on every fragment) is the same call, and so is
        # another id on a fragment that does not name the call (Poolside's later fragments).
        repeated = [chunk({"tool_calls": [frag("{\"n\":", "call_a", "f")]}), chunk({"tool_calls": [frag("1}", "call_a", "f")]}), chunk({}, "tool_calls")]
        renamed = [chunk({"tool_calls": [frag("{\"n\":", "call_a", "f")]}), chunk({"tool_calls": [frag("1}", "call_z")]}), chunk({}, "tool_calls")]
        for chunks in (repeated, renamed):
            self.assertEqual([(p.name, p.input) for p in run(chunks)[2].parts], [("f", {"n": 1})])  # type: ignore[attr-defined]

    def test_an_empty_id_on_a_later_fragment_keeps_the_call_id(self) -> None:
        """Alibaba DashScope repeats ``"id": ""`` (and sometimes ``"name": ""``) on every later fragment of a call;
        the call keeps the id it opened with, as the SDK's accumulator keeps it (``"call_..." + ""``), so the
        tool result pairs with it.  The first two chunks are as captured from DashScope (qwen3.8-max) in
        anomalyco/opencode pull request 40969; the ``"name": ""`` form is from pull request 37783."""
        captured = [
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"id": "call_a1ad8367bde7444f82142e8e", "type": "function",
                                                                "index": 0, "function": {"name": "bash", "arguments": ""}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"id": "", "type": "function", "index": 0,
                                                                "function": {"arguments": "{\"command\": "}}]}}]},
            chunk({"tool_calls": [{"id": "", "type": "function", "index": 0, "function": {"name": "", "arguments": "\"ls\"}"}}]}),
            chunk({}, "tool_calls")]
        decoder, _, state = run(captured)
        self.assertFalse(state.is_open)
        [item] = chat.items_from_stream(captured)
        [call] = item.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("call_a1ad8367bde7444f82142e8e"), "bash", {"command": "ls"}))
        self.assertEqual(dicts([item]), dicts(chat.items_from_response(accumulate(captured))))
        self.assertEqual(messages_of([item])[0]["tool_calls"][0]["id"], "call_a1ad8367bde7444f82142e8e")

    def test_open_parts_show_their_header(self) -> None:
        decoder, state = chat.stream_decoder(), FoldState()
        headers: list[tuple[str, str]] = []
        for event in events("chat.tool_call.stream.jsonl"):
            state = fold_all(state, decoder.feed(event))
            if state.is_open:
                call = state.snapshot()[0]
                self.assertIsInstance(call, ToolCallPart)
                headers.append((call.id.value, call.name))
        self.assertEqual(set(headers), {("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital")})
        decoder, state = chat.stream_decoder(), FoldState()
        media: list[tuple[Modality, str]] = []
        for event in events("chat.audio_output.reconstructed.stream.jsonl"):
            state = fold_all(state, decoder.feed(event))
            if state.is_open:
                audio = state.snapshot()[0]
                self.assertIsInstance(audio, MediaPart)
                media.append((audio.modality, audio.mime_type))
        self.assertEqual(media[0][0], Modality.AUDIO)
        self.assertEqual(media[-1], (Modality.AUDIO, "audio/wav"))

    def test_live_usage_and_finish_reason(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                decoder, state = chat.stream_decoder(), FoldState()
                usages, reasons = [], []
                for event in events(name):
                    state = fold_all(state, decoder.feed(event))
                    usages.append(decoder.usage)
                    reasons.append(decoder.finish_reason)
                final = decoder.finish(state.parts)
                reported = [n for n, e in enumerate(events(name)) if e.get("usage")]
                self.assertEqual(usages[: reported[0]], [None] * reported[0])
                self.assertEqual(usages[-1], final.usage)
                self.assertIsNotNone(final.usage)
                # A choice ends at its finish_reason, an audio answer at its expiry mark (which may come alone).
                first_done = min(n for n, e in enumerate(events(name)) if any(
                    ch["index"] == 0 and (ch.get("finish_reason") or "expires_at" in ch["delta"].get("audio", {}))
                    for ch in e["choices"]))
                self.assertEqual(reasons[:first_done], [None] * first_done)
                self.assertEqual(set(reasons[first_done:]), {final.finish_reason})

    def test_usage_after_a_cut_off_tool_call(self) -> None:
        """A call cut off by ``length`` is committed on the finish reason; usage comes after it."""
        chunks = [
            chunk({"role": "assistant", "content": None,
                   "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "weather", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": \"Par"}}]}),
            chunk({}, "length"),
            chunk(usage=USAGE),
        ]
        decoder, state = chat.stream_decoder(), FoldState()
        state = fold_all(state, [d for c in chunks[:3] for d in decoder.feed(c)])
        self.assertFalse(state.is_open)
        self.assertEqual((decoder.finish_reason, decoder.usage), (FinishReason.MAX_TOKENS, None))
        (call,) = state.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id.value, call.name, call.input), ("call_1", "weather", None))
        self.assertEqual(call.metadata[INPUT_JSON_KEY], "{\"city\": \"Par")
        self.assertIn(INPUT_ERROR_KEY, call.metadata)
        self.assertEqual(decoder.feed(chunks[3]), [])
        item = decoder.finish(state.parts)
        self.assertEqual(item.usage.tokens.total_tokens, 15)  # type: ignore[union-attr]
        self.assertEqual(decoder.usage, item.usage)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "length")
        self.assertEqual(messages_of([item])[0]["tool_calls"][0]["function"]["arguments"], "{\"city\": \"Par")

    def test_multiple_choices(self) -> None:
        chunks = events("chat.multiple_choices.stream.jsonl")
        decoder, deltas, state = run(chunks)
        items = decoder.finish_all(state.parts)
        self.assertEqual([i.metadata["openai.index"] for i in items], [0, 1, 2])
        self.assertEqual([json.loads(i.text_content())["temperature"] for i in items], [65, 61, 59])
        self.assertEqual({i.finish_reason for i in items}, {FinishReason.COMPLETED})
        self.assertIsNotNone(items[0].usage)
        self.assertEqual([i.usage for i in items[1:]], [None, None])
        self.assertEqual({d.part_id.value for d in deltas if isinstance(d, BeginPart)},
                         {"part-0-content", "part-1-content", "part-2-content"})
        self.assertEqual(decoder.finish(state.parts), items[0])
        self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts(items))
        with self.assertRaises(NormalizeError):
            decoder.finish_all(state.parts[:2])  # the parts of every choice are needed to split them

    def test_the_live_finish_reason_is_the_first_choices(self) -> None:
        decoder = chat.stream_decoder()
        decoder.feed(chunk({"content": "a"}, index=0))
        decoder.feed(chunk({"content": "b"}, "length", index=1))
        self.assertIsNone(decoder.finish_reason)
        decoder.feed(chunk({}, "stop", index=0))
        self.assertEqual(decoder.finish_reason, FinishReason.COMPLETED)

    def test_refusal(self) -> None:
        decoder, _, state = run(events("chat.refusal.stream.jsonl"))
        item = decoder.finish(state.parts)
        self.assertEqual(item.parts, (TextPart("I'm sorry, I can't assist with that request.", metadata={"openai.chat.refusal": True}),))
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(decoder.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "stop")
        self.assertIsNotNone(item.usage)
        self.assertEqual(messages_of([item]), [{"role": "assistant", "refusal": item.parts[0].text}])  # type: ignore[attr-defined]

    def test_finish_length(self) -> None:
        decoder, _, state = run(events("chat.finish_length.stream.jsonl"))
        item = decoder.finish(state.parts)
        self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "length")
        self.assertEqual(item.text_content(), '{"')

    def test_list_fragments_with_an_index_continue_their_entry(self) -> None:
        """OpenRouter streams ``reasoning_details`` as fragments of entries named by ``index``: they join
        into one entry per index, as the non-streaming message holds them and the SDK accumulates them.
        Recorded: pydantic/pydantic-ai tests/models/cassettes/test_openrouter/test_openrouter_stream_error.yaml
        (minimax-m2 through OpenRouter, cut by max tokens, then an error chunk)."""
        [item] = chat.items_from_stream(chat.events_from_sse(recorded.raw(PROVIDER, "chat.openrouter_reasoning_details.sse.txt")))
        text = "We need to respond to a greeting. The user"
        self.assertEqual(item.metadata["openai.chat.reasoning_details"],
                         [{"type": "reasoning.text", "text": text, "index": 0, "format": None}])
        self.assertEqual(item.parts[0], ReasoningPart(summary=text, metadata={"openai.chat.reasoning_field": "reasoning"}))
        self.assertEqual((item.finish_reason, item.metadata["openai.error"]),
                         (FinishReason.MAX_TOKENS, {"code": 400, "message": "Token limit reached"}))
        # Claude through OpenRouter: the text, then the signature, each fragment repeating type, format and index.
        # Recorded: pydantic/pydantic-ai tests/models/cassettes/test_openrouter/test_openrouter_streaming_reasoning.yaml
        [item] = chat.items_from_stream(events("chat.openrouter_claude_reasoning.stream.jsonl"))
        [detail] = item.metadata["openai.chat.reasoning_details"]  # type: ignore[misc]
        self.assertEqual({k: v for k, v in detail.items() if k != "signature"},  # type: ignore[union-attr]
                         {"type": "reasoning.text", "text": "This is a simple arithmetic question. 2+2 equals 4.",
                          "format": "anthropic-claude-v1", "index": 0})
        self.assertTrue(detail["signature"].startswith("Et0BCkgIChACGAIqQA2s"))  # type: ignore[index]
        # another type at the same index, entries without an index (annotations...) and other indexes are new entries
        chunks = [chunk({"reasoning_details": [{"type": "reasoning.summary", "summary": "A", "index": 0}]}),
                  chunk({"reasoning_details": [{"type": "reasoning.summary", "summary": "B", "index": 0},
                                               {"type": "reasoning.encrypted", "data": "xyz", "index": 1}]}),
                  chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "gA", "id": "rs_1", "index": 0}]}),
                  chunk({"reasoning_details": [{"data": "AB", "id": "rs_1", "index": 0}]}),
                  chunk({"annotations": [{"type": "url_citation", "url_citation": {"url": "u"}}]}),
                  chunk({"annotations": [{"type": "url_citation", "url_citation": {"url": "u"}}]}), chunk({}, "stop")]
        [item] = chat.items_from_stream(chunks)
        self.assertEqual(item.metadata["openai.chat.reasoning_details"],
                         [{"type": "reasoning.summary", "summary": "AB", "index": 0},
                          {"type": "reasoning.encrypted", "data": "xyz", "index": 1},
                          {"type": "reasoning.encrypted", "data": "gAAB", "id": "rs_1", "index": 0}])
        self.assertEqual(len(item.metadata["openai.chat.annotations"]), 2)  # type: ignore[arg-type]

    def test_audio_streams_as_bytes(self) -> None:
        chunks = events("chat.audio_output.reconstructed.stream.jsonl")
        decoder, deltas, state = run(chunks)
        data = base64.b64decode(load("chat.audio_output.response.json")["choices"][0]["message"]["audio"]["data"])
        streamed = b"".join(d.chunk for d in deltas if isinstance(d, AppendBytes))
        self.assertEqual(streamed, data)
        (part,) = decoder.finish(state.parts).parts
        self.assertIsInstance(part, MediaPart)
        self.assertEqual((part.data, part.mime_type), (InlineBytes(data), "audio/wav"))
        self.assertEqual(part.metadata["openai.chat.audio.transcript"], "A single orange pixel.")
        self.assertEqual(part.metadata["openai.chat.audio.expires_at"], 1742909007)

    def test_audio_fragments_that_split_base64_quads(self) -> None:
        data = base64.b64encode(b"RIFF" + bytes(range(50))).decode()
        pieces = [data[i:i + 7] for i in range(0, len(data), 7)]
        chunks = [chunk({"audio": {"id": "audio_1", "data": p}}) for p in pieces] + [chunk({}, "stop")]
        decoder, deltas, state = run(chunks)
        self.assertEqual(b"".join(d.chunk for d in deltas if isinstance(d, AppendBytes)), base64.b64decode(data))
        self.assertEqual(state.parts[0].data, InlineBytes(base64.b64decode(data)))  # type: ignore[attr-defined]

    def test_an_audio_answer_ends_at_its_expiry_mark(self) -> None:
        # gpt-4o-audio-preview as openai-node#1206 shows it: transcript first, then the audio, then a chunk with
        # only expires_at, and no finish_reason at all.
        pcm = base64.b64encode(bytes(range(90))).decode()
        chunks = [chunk({"audio": {"transcript": "Hi"}}), chunk({"audio": {"transcript": "!"}}),
                  chunk({"role": "assistant", "content": None, "refusal": None, "audio": {"id": "audio_1", "data": pcm[:55]}}),
                  chunk({"audio": {"data": pcm[55:]}}), chunk({"audio": {"expires_at": 1730768595}}), chunk(usage=USAGE)]
        decoder, _, state = run(chunks)
        self.assertFalse(state.is_open)
        item = decoder.finish(state.parts)
        self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.COMPLETED, "stop"))
        self.assertEqual(item.parts, (MediaPart(Modality.AUDIO, "application/octet-stream", InlineBytes(bytes(range(90))), metadata={
            "openai.chat.audio.transcript": "Hi!", "openai.chat.audio.id": "audio_1", "openai.chat.audio.expires_at": 1730768595}),))
        self.assertEqual(dicts(chat.items_from_response(decoder.response())), dicts([item]))
        # A finish_reason or the mark again after it is taken; more audio is not.
        self.assertEqual(dicts(chat.items_from_stream(chunks[:5] + [chunk({"audio": {"id": "audio_1", "expires_at": 1730768595}}),
                                                                   chunk({}, "stop"), chunk(usage=USAGE)])), dicts([item]))
        with self.assertRaises(NormalizeError):
            chat.items_from_stream(chunks[:5] + [chunk({"audio": {"data": "AAAA"}})])
        # Servers that send the expiry with every piece of audio (or text) end at their finish_reason.
        every = [chunk({"audio": {"id": "audio_1", "data": pcm[:40], "expires_at": 1}}),
                 chunk({"audio": {"data": "", "expires_at": 1}}), chunk({"content": "Hi", "audio": {"expires_at": 1}}),
                 chunk({"audio": {"data": pcm[40:], "expires_at": 1}}), chunk({}, "stop")]
        decoder, _, state = run(every[:4])
        self.assertTrue(state.is_open)
        self.assertEqual(chat.items_from_stream(every)[0].parts, (
            TextPart("Hi"), MediaPart(Modality.AUDIO, "application/octet-stream", InlineBytes(bytes(range(90))),
                                      metadata={"openai.chat.audio.id": "audio_1", "openai.chat.audio.expires_at": 1})))

    def test_cut_short_stream_finishes_from_finalize(self) -> None:
        chunks = events("chat.tool_call.stream.jsonl")[:-2]  # no finish_reason, no usage
        decoder = chat.stream_decoder()
        state = fold_all(FoldState(), [d for c in chunks for d in decoder.feed(c)])
        self.assertTrue(state.is_open)
        item = decoder.finish(state.finalize())
        # No finish_reason: the call still streaming may be cut off (its text parses here, by chance): dropped.
        self.assertEqual((item.parts, item.finish_reason), ((), FinishReason.ERROR))
        [dropped] = item.metadata[STREAM_CUT_KEY]["dropped_calls"]  # type: ignore[index]
        self.assertEqual(json.loads(dropped["arguments"]), {"country": "UK"})  # type: ignore[index]
        self.assertIsNone(item.usage)
        self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts([item]))
        # A call followed by another is complete: kept.
        two = [chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
               chunk({"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "g", "arguments": "{\"a"}}]})]
        [item] = chat.items_from_stream(two)
        self.assertEqual([c.id.value for c in item.tool_calls()], ["c1"])
        self.assertEqual(item.metadata[STREAM_CUT_KEY], {"dropped_calls": [{"id": "c2", "name": "g", "arguments": '{"a'}]})

    def test_compatible_reasoning_streams_as_a_reasoning_part(self) -> None:
        chunks = HAND_WRITTEN_STREAMS[0] + [chunk(usage=USAGE)]
        decoder, deltas, state = run(chunks)
        item = decoder.finish(state.parts)
        reasoning = ReasoningPart("Two plus two.", metadata={"openai.chat.reasoning_field": "reasoning_content"})
        self.assertEqual(item.parts, (reasoning, TextPart("4 it is")))
        self.assertEqual(deltas[0], BeginPart(deltas[0].part_id, PartKind.REASONING))  # type: ignore[attr-defined]
        self.assertEqual(dicts([item]), dicts(chat.items_from_response(accumulate(chunks))))

    def test_reasoning_after_an_empty_content_delta_still_comes_first(self) -> None:
        """vLLM and OpenRouter open with ``content: ""`` before the reasoning streams: the item keeps the message's order."""
        vllm = [chunk({"role": "assistant", "content": ""}), chunk({"reasoning_content": "Two plus"}),
                chunk({"reasoning_content": " two."}), chunk({"content": "4"}), chunk({}, "stop")]
        openrouter = [chunk({"role": "assistant", "content": "", "reasoning": "Two plus"}), chunk({"content": "", "reasoning": " two."}),
                      chunk({"content": "4", "reasoning": None}), chunk({}, "stop")]
        for name, chunks in (("vllm", vllm), ("openrouter", openrouter)):
            with self.subTest(name):
                decoder, deltas, state = run(chunks)
                # An empty content opens no part: the text part begins with its first text, after the reasoning.
                self.assertEqual([type(p) for p in state.parts], [ReasoningPart, TextPart])
                item = decoder.finish(state.parts)
                self.assertEqual([type(p) for p in item.parts], [ReasoningPart, TextPart])
                self.assertEqual((item.parts[0].summary, item.text_content()), ("Two plus two.", "4"))  # type: ignore[attr-defined]
                self.assertEqual(dicts([item]), dicts(chat.items_from_response(accumulate(chunks))))
                self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts([item]))

    def test_reading_the_response_mid_stream_changes_nothing(self) -> None:
        """Long fields are held in pieces and written into the message when read; reading early is harmless."""
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                chunks = events(name)
                decoder = chat.stream_decoder()
                for n, c in enumerate(chunks):
                    decoder.feed(c)
                    if n % 3 == 0:
                        decoder.response()
                self.assertEqual(decoder.response(), accumulate(chunks))

    def test_typed_content_entries_fold_as_the_non_streaming_answer(self) -> None:
        """Mistral's thinking models stream ``content`` as typed entries (thinking, then text), then plain strings."""
        def think(*texts: str, **extra: Any) -> dict[str, Any]:
            return {"type": "thinking", "thinking": [{"type": "text", "text": t} for t in texts], **extra}

        chunks = [chunk({"role": "assistant", "content": ""}), chunk({"content": [think("Two plus")]}),
                  chunk({"content": [think(" two", " is")]}),
                  chunk({"content": [think(" four.", closed=True), {"type": "text", "text": "4"}]}),
                  chunk({"content": " it"}), chunk({"content": " is."}), chunk({}, "stop")]
        def answer_of(content: list[Any]) -> dict[str, Any]:
            return body({"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"})

        answer = answer_of([think("Two plus two is four.", closed=True), {"type": "text", "text": "4 it is."}])
        expected = chat.items_from_response(answer)
        decoder, deltas, state = run(chunks)
        self.assertFalse(state.is_open)
        self.assertEqual(dicts(decoder.finish_all(state.parts)), dicts(expected))
        self.assertEqual(dicts(chat.items_from_stream(chunks)), dicts(expected))
        self.assertEqual(decoder.response()["choices"][0]["message"]["content"], answer["choices"][0]["message"]["content"])
        grown: dict[str, str] = {}  # what each part's live text grew by
        for d in deltas:
            if isinstance(d, AppendText):
                grown[d.part_id.value] = grown.get(d.part_id.value, "") + d.chunk
        self.assertEqual(list(grown.values()), ["Two plus two is four.", "4 it is."])
        self.assertEqual(expected[0].text_content(), "4 it is.")
        # Plain text first, then entries: the text becomes the first entry, its part kept.
        plain = [chunk({"content": "Hi"}), chunk({"content": [{"type": "text", "text": " there"}, think("hm")]}), chunk({}, "stop")]
        answer = answer_of([{"type": "text", "text": "Hi there"}, think("hm")])
        self.assertEqual(dicts(chat.items_from_stream(plain)), dicts(chat.items_from_response(answer)))
        self.assertFalse(run(plain)[2].is_open)
        with self.assertRaises(NormalizeError):
            chat.stream_decoder().feed(chunk({"content": {"type": "text"}}))

    def test_custom_tool_call_streams_its_input_as_a_value(self) -> None:
        decoder, state, inputs = chat.stream_decoder(), FoldState(), []
        for c in HAND_WRITTEN_STREAMS[1]:
            deltas = decoder.feed(c)
            self.assertFalse([d for d in deltas if type(d).__name__ == "AppendText"])
            state = fold_all(state, deltas)
            if state.is_open:
                inputs.append(state.snapshot()[0].input)  # type: ignore[attr-defined]
        self.assertEqual(inputs, ["", "line 1\n", "line 1\nline 2"])
        (call,) = state.parts
        self.assertEqual((call.name, call.input, call.metadata["openai.chat.type"]), ("patch", "line 1\nline 2", "custom"))  # type: ignore[attr-defined]
        with self.assertRaises(NormalizeError):  # a custom call does not turn into a function call
            chat.stream_decoder().feed(chunk({"tool_calls": [{"index": 0, "type": "custom", "function": {"arguments": "{}"}}]}))

    def test_unknown_tool_call_type_streams_as_a_custom_part(self) -> None:
        chunks = [chunk({"tool_calls": [{"index": 0, "id": "x", "type": "mcp", "mcp": {"tool": "t"}}]}), chunk({}, "tool_calls")]
        decoder, deltas, state = run(chunks)
        self.assertEqual(deltas[0], BeginPart(deltas[0].part_id, PartKind.CUSTOM))  # type: ignore[attr-defined]
        self.assertEqual(state.parts, (CustomPart("openai.chat.tool_call", value={"index": 0, "id": "x", "type": "mcp", "mcp": {"tool": "t"}}),))

    def test_legacy_function_call_stream(self) -> None:
        chunks = HAND_WRITTEN_STREAMS[2]
        decoder, deltas, state = run(chunks)
        item = decoder.finish(state.parts)
        (call,) = item.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.id.value, call.name, call.input), ("lookup", "lookup", {"q": 1}))
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(dicts([item]), dicts(chat.items_from_response(accumulate(chunks))))

    def test_calls_without_index_are_whole_calls(self) -> None:
        calls = [{"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": f"{{\"n\":{n}}}"}} for n in range(2)]
        chunks = [chunk({"tool_calls": [calls[0]]}), chunk({"tool_calls": [calls[1]]}), chunk({}, "tool_calls")]
        _, _, state = run(chunks)
        self.assertEqual([(p.id.value, p.input) for p in state.parts], [("c0", {"n": 0}), ("c1", {"n": 1})])  # type: ignore[attr-defined]
        # An unindexed call and an indexed one never share a part, whatever their kinds.
        mixed = [chunk({"tool_calls": [calls[0], {"index": 0, "id": "k", "type": "custom", "custom": {"name": "p", "input": "a"}}]}),
                 chunk({"tool_calls": [{"index": 0, "custom": {"input": "b"}}]}), chunk({}, "tool_calls")]
        _, _, state = run(mixed)
        self.assertEqual([(p.id.value, p.input) for p in state.parts], [("c0", {"n": 0}), ("k", "ab")])  # type: ignore[attr-defined]

    def test_an_error_event_ends_the_turn(self) -> None:
        chunks = [chunk({"role": "assistant", "content": "Hel"}),
                  chunk({"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": "{"}}]}),
                  {"error": {"message": "The server had an error", "type": "server_error", "param": None, "code": None}}]
        decoder, _, state = run(chunks)
        self.assertFalse(state.is_open)
        self.assertEqual(decoder.finish_reason, FinishReason.ERROR)
        item = decoder.finish(state.parts)
        self.assertEqual((item.text_content(), item.finish_reason), ("Hel", FinishReason.ERROR))
        self.assertEqual(item.metadata["openai.error"]["type"], "server_error")  # type: ignore[index, call-overload]
        self.assertIsNone(item.parts[1].input)  # type: ignore[attr-defined]

    def test_azure_and_padding_fields(self) -> None:
        prompt_filter = [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]
        results = {"violence": {"filtered": False, "severity": "safe"}}
        chunks = [{"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": prompt_filter},
                  chunk({"role": "assistant", "content": "ok"}, obfuscation="xyz"),
                  {**chunk({}, "stop"), "choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "content_filter_results": results}]}]
        decoder, _, state = run(chunks)
        item = decoder.finish(state.parts)
        self.assertEqual(item.metadata["openai.prompt_filter_results"], prompt_filter)
        self.assertEqual(item.metadata["openai.content_filter_results"], results)
        self.assertNotIn("openai.obfuscation", item.metadata)

    def test_content_after_the_finish_reason_is_refused_and_changes_nothing(self) -> None:
        decoder = chat.stream_decoder()
        decoder.feed(chunk({"content": "done"}))
        decoder.feed(chunk({}, "stop"))
        before = decoder.response()
        with self.assertRaises(NormalizeError) as caught:
            decoder.feed(chunk({"content": " and more"}))
        self.assertEqual(caught.exception.path, "choices[0].delta.content")
        self.assertEqual(caught.exception.message, "content for a choice after its finish_reason")
        self.assertEqual(decoder.response(), before)
        self.assertEqual(decoder.feed(chunk({"content": ""})), [])  # empty: nothing to refuse
        self.assertEqual(decoder.feed(chunk(usage=USAGE)), [])  # and the stream goes on

    def test_a_bad_chunk_leaves_the_decoder_as_it_was(self) -> None:
        decoder = chat.stream_decoder()
        decoder.feed(chunk({"content": "a"}))
        before = decoder.response()
        bad = [chunk({"content": "b", "tool_calls": [{"index": 0, "function": {"name": 3}}]}),
               chunk({"content": "b"}, usage=[]), chunk({"content": "b\ud800"}), "not a chunk",
               {"choices": [{"index": -1, "delta": {"content": "b"}}]}]
        for event in bad:
            with self.subTest(event=event):
                with self.assertRaises(NormalizeError):
                    decoder.feed(event)
                self.assertEqual(decoder.response(), before)
        self.assertEqual(decoder.usage, None)


# -- requests -----------------------------------------------------------------------------------


class RequestTest(unittest.TestCase):
    def test_every_request_round_trips(self) -> None:
        names = files(".request.json")
        self.assertEqual(len(names), 7)
        for name in names:
            with self.subTest(name):
                request = load(name)
                items = chat.items_from_request(request)
                self.assertEqual(len(items), len(request["messages"]))
                self.assertEqual(chat.request_from_items(items), {"messages": request["messages"]})
                for item in items:
                    self.assertEqual(stored(item), item)

    def test_multimodal_request_parts(self) -> None:
        request = load("chat.multimodal_input.request.json")
        developer, user = chat.items_from_request(request)
        self.assertIs(developer.kind, ItemKind.DEVELOPER)
        self.assertEqual(developer.parts, (TextPart("Answer briefly."),))
        text, png, remote, audio, pdf, file_id = user.parts
        self.assertIsInstance(text, TextPart)
        native = request["messages"][1]["content"]
        self.assertIsInstance(png, MediaPart)
        self.assertIsInstance(remote, MediaPart)
        self.assertIsInstance(audio, MediaPart)
        self.assertEqual((png.modality, png.mime_type, png.metadata["openai.chat.image_url.detail"]), (Modality.IMAGE, "image/png", "low"))
        self.assertEqual(png.data, InlineBytes(base64.b64decode(native[1]["image_url"]["url"].split(",")[1])))
        self.assertEqual((remote.data, remote.mime_type), (Uri(native[2]["image_url"]["url"]), "image/jpeg"))
        self.assertEqual((audio.modality, audio.mime_type), (Modality.AUDIO, "audio/wav"))
        self.assertEqual(audio.data, InlineBytes(base64.b64decode(native[3]["input_audio"]["data"])))
        self.assertIsInstance(pdf, FilePart)
        self.assertIsInstance(file_id, FilePart)
        self.assertEqual((pdf.name, pdf.mime_type), ("revenue.pdf", "application/pdf"))
        self.assertTrue(pdf.data.value.startswith(b"%PDF-1.4"))  # type: ignore[union-attr]
        self.assertEqual(file_id.data, Handle(ArtifactId("file-6F2ksmvXxt4VdoqmHRw6kL")))

    def test_documented_shapes_round_trip(self) -> None:
        png = base64.b64encode(b"\x89PNG\r\n\x1a\n-image").decode()
        wav = base64.b64encode(b"RIFF----WAVE").decode()
        messages = [
            {"role": "system", "content": [{"type": "text", "text": "be brief"}], "name": "ops"},
            {"role": "developer", "content": "use tools"},
            {"role": "user", "content": "hi"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "user", "name": "ann", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]},
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,not canonical=="}},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat"}},
                {"type": "input_audio", "input_audio": {"data": wav, "format": "wav"}},
                {"type": "input_audio", "input_audio": {"data": wav, "format": "mp3"}},
                {"type": "input_audio", "input_audio": {"data": wav, "format": "mpeg"}},
                {"type": "input_audio", "input_audio": {"data": wav}},
                {"type": "input_audio", "input_audio": {"data": "%%%", "format": "flac"}},
                {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0="}},
                {"type": "file", "file": {"file_data": "JVBERi0="}},
                {"type": "file", "file": {"file_id": "file-1"}, "prompt_cache_breakpoint": {"mode": "explicit"}},
                {"type": "file", "file": {"file_data": "!!"}},
                {"type": "input_video", "video": {"url": "v"}},
                "a bare string",
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "partly"}, {"type": "refusal", "refusal": "no"}]},
            {"role": "assistant", "content": "x", "refusal": "also no", "name": "bot"},
            {"role": "assistant", "content": None, "audio": {"id": "audio_1"}},
            {"role": "assistant", "audio": {"id": "audio_2"}},
            {"role": "assistant", "content": None, "reasoning_content": "think", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": [1, 2]}"}},
                {"id": "c2", "type": "custom", "custom": {"name": "g", "input": "free text"}},
                {"id": "c3", "type": "mcp", "mcp": {"x": 1}},
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "ok"}]},
            {"role": "tool", "tool_call_id": "c3", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "u"}}]},
            {"role": "tool", "tool_call_id": "c3", "name": "g", "content": "named by a compatible server"},
            {"role": "assistant", "content": None, "function_call": {"name": "old", "arguments": "{}"}},
            {"role": "function", "name": "old", "content": "legacy"},
            {"role": "function", "name": "old", "content": None},
            {"role": "critic", "content": "an unknown role"},
            {"role": "user", "content": []},
            {"role": "user", "content": None},
            {"role": "assistant", "content": None},
            {"role": "assistant", "content": ""},
        ]
        items = chat.items_from_request({"messages": messages, "model": "gpt-x"})
        self.assertEqual(messages_of(items), messages)
        for item in items:
            self.assertEqual(stored(item), item)
        user = items[5].parts
        self.assertEqual([type(p).__name__ for p in user], ["TextPart", "MediaPart", "MediaPart", "MediaPart", "MediaPart", "MediaPart",
                                                            "MediaPart", "MediaPart", "MediaPart", "FilePart", "FilePart", "FilePart",
                                                            "CustomPart", "CustomPart", "CustomPart"])
        self.assertEqual(user[2].data, Uri("data:image/png;base64,not canonical=="))  # type: ignore[attr-defined]
        self.assertEqual([p.mime_type for p in user[4:9]], ["audio/wav", "audio/mpeg", "audio/mpeg", "application/octet-stream", "audio/flac"])  # type: ignore[attr-defined]
        self.assertEqual(user[8].data, InlineText("%%%"))  # type: ignore[attr-defined]
        self.assertEqual(user[10].data, InlineBytes(b"%PDF-"))  # type: ignore[attr-defined]
        self.assertEqual([p.kind for p in user[12:]], ["openai.chat.file", "openai.chat.input_video", "openai.chat.content"])  # type: ignore[attr-defined]
        self.assertEqual(items[6].parts[1], TextPart("no", metadata={"openai.chat.type": "refusal"}))
        assistant = items[10]
        self.assertEqual([type(p) for p in assistant.parts], [ReasoningPart, ToolCallPart, ToolCallPart, CustomPart])
        self.assertEqual(assistant.parts[1].input, {"a": [1, 2]})  # type: ignore[attr-defined]
        legacy = items[16].parts[0]
        self.assertEqual((legacy.call_id.value, legacy.metadata[TOOL_NAME_KEY]), ("old", "old"))  # type: ignore[attr-defined]
        self.assertIs(legacy.metadata[INVENTED_ID_KEY], True)
        self.assertEqual(items[11].parts[0].metadata[TOOL_NAME_KEY], "f")  # a tool message names no tool: its call does
        self.assertEqual(items[14].parts[0].metadata[TOOL_NAME_KEY], "g")  # unless a compatible server's does
        self.assertEqual((items[18].kind, items[18].metadata["openai.chat.role"]), (ItemKind.USER, "critic"))

    def test_messages_a_client_sends_back_as_it_got_them_round_trip(self) -> None:
        """An answer appended to ``messages`` as the SDK parsed it (``refusal: null``, ``annotations``...) goes back whole.

        openai-python dumps a ``ChatCompletionMessage`` with every field the
        server sent; the Agents SDK leaves ``content`` out beside tool calls;
        a streamed answer rebuilt by merging chunks keeps each call's ``index``.
        """
        call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        note = {"type": "url_citation", "url_citation": {"end_index": 5, "start_index": 0, "title": "P", "url": "https://p.example"}}
        wav = base64.b64encode(b"RIFF----WAVE").decode()
        messages = [
            {"content": None, "refusal": None, "role": "assistant", "annotations": [], "audio": None, "function_call": None,
             "tool_calls": [call]},
            {"content": "Paris.", "refusal": None, "role": "assistant", "annotations": [note], "tool_calls": None},
            {"role": "assistant", "content": "hi", "tool_calls": []},
            {"role": "assistant", "content": None, "tool_calls": []},
            {"role": "assistant", "content": None, "refusal": None, "annotations": [],
             "audio": {"id": "audio_1", "data": wav, "expires_at": 1742909001, "transcript": "Hi."}},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}},
            {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **call}]},
            {"role": "assistant", "content": "x", "reasoning_content": ""},
            {"role": "assistant"},
            {"role": "user"},
            {"role": "tool", "tool_call_id": "call_1"},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok", "annotations": []},
            {"role": "user", "content": "more", "annotations": [note]},
        ]
        items = chat.items_from_request({"messages": messages})
        self.assertEqual(messages_of(items), messages)
        for item in items:
            self.assertEqual(stored(item), item)
        self.assertEqual(items[1].parts, (TextPart("Paris."),))  # a request's annotations stay on the item
        audio = items[4].parts[0]
        self.assertEqual((audio.data, audio.mime_type), (InlineBytes(base64.b64decode(wav)), "audio/wav"))  # type: ignore[attr-defined]
        # An answer decoded from a response still goes back without what only a response has.
        answer = body(choice(content=None, refusal=None, annotations=[note], audio={"id": "audio_1", "data": wav, "expires_at": 1, "transcript": "Hi."}))
        self.assertEqual(messages_of(chat.items_from_response(answer)), [{"role": "assistant", "audio": {"id": "audio_1"}}])

    def test_messages_start_with_role_and_content(self) -> None:
        messages = [{"role": "user", "content": "hi", "name": "ann"},
                    {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}, "name": "bot"},
                    {"role": "assistant", "content": None, "audio": {"id": "audio_1"}},
                    {"role": "tool", "tool_call_id": "c", "content": "x", "name": "f"}]
        rebuilt = messages_of(chat.items_from_request({"messages": messages}))
        self.assertEqual([list(m) for m in rebuilt], [list(m) for m in messages])

    def test_structured_content_is_sent_as_text(self) -> None:
        from agentkit_core import StructuredPart

        item = Item(ItemKind.USER, (StructuredPart({"k": [1, "é"]}),))
        self.assertEqual(messages_of([item]), [{"role": "user", "content": [{"type": "text", "text": '{"k":[1,"é"]}'}]}])

    def test_a_call_sent_without_its_type_goes_back_without_it(self) -> None:
        calls = [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}, {"id": "c2", "custom": {"name": "sh", "input": "ls"}}]
        messages = [{"role": "assistant", "content": None, "tool_calls": calls}]
        items = chat.items_from_request({"messages": messages})
        self.assertEqual([type(p).__name__ for p in items[0].parts], ["ToolCallPart", "ToolCallPart"])
        self.assertEqual(messages_of(items), messages)
        # An answer from a server that leaves it out is sent as OpenAI takes it.
        answer = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=calls)))
        self.assertEqual([c["type"] for c in messages_of(answer)[0]["tool_calls"]], ["function", "custom"])

    def test_a_call_sent_without_arguments_goes_back_without_them(self) -> None:
        """pydantic-ai's Hugging Face client sent a call whose ``function`` had no ``arguments``.
        Recorded: pydantic/pydantic-ai tests/models/cassettes/test_huggingface/test_together_500_on_tool_continuation.yaml
        (interaction 2, through router.huggingface.co/together)."""
        recorded_messages = load("chat.tool_call_without_arguments.request.json")["messages"]
        items = chat.items_from_request({"messages": recorded_messages})
        call = items[1].parts[0]
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.name, call.input), ("get_weather", {}))
        self.assertEqual(messages_of(items), recorded_messages)
        # ``arguments: null`` goes back as null; an edited input is sent as edited, and a response's call as OpenAI takes it.
        null = [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": None}}]}]
        self.assertEqual(messages_of(chat.items_from_request({"messages": null})), null)
        for messages in (recorded_messages, null):
            [item] = [i for i in chat.items_from_request({"messages": messages}) if i.kind is ItemKind.ASSISTANT]
            sent = item.parts[0]
            self.assertIsInstance(sent, ToolCallPart)
            edited = item.with_parts([ToolCallPart(sent.id, sent.name, {"city": "Rome"}, metadata=sent.metadata)])
            self.assertEqual(messages_of([edited])[0]["tool_calls"][0]["function"]["arguments"], '{"city":"Rome"}')
        answer = chat.items_from_response(body(choice("tool_calls", content=None, tool_calls=null[0]["tool_calls"])))
        self.assertEqual(messages_of(answer)[0]["tool_calls"][0]["function"]["arguments"], "{}")

    def test_annotations_of_a_text_entry_go_back_with_it(self) -> None:
        # A client that turns Responses output text into Chat entries keeps its citations on the entry.
        note = {"type": "url_citation", "url_citation": {"url": "https://x", "title": "x", "start_index": 0, "end_index": 1}}
        messages = [{"role": "user", "content": [{"type": "text", "text": "a", "annotations": []}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "b", "annotations": [note]},
                                                      {"type": "text", "text": "c"}]}]
        items = chat.items_from_request({"messages": messages})
        self.assertEqual(messages_of(items), messages)
        self.assertEqual(items[1].parts[0], TextPart("b", metadata={"openai.chat.annotations": [note], "openai.chat.type": "text"}))

    def test_media_and_files_in_a_tool_message_are_parts_that_go_back_there(self) -> None:
        # OpenRouter and LiteLLM take images in a tool message; other providers take them in tool results.
        png = base64.b64encode(b"\x89PNG\r\n").decode()
        entries = [{"type": "text", "text": "page 2"},
                   {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}", "detail": "low"}},
                   {"type": "file", "file": {"file_id": "file-1"}},
                   {"type": "input_video", "video": {"url": "v"}}]
        messages = [{"role": "assistant", "content": None, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": entries},
                    {"role": "tool", "tool_call_id": "c1", "content": [entries[1]]}]
        items = chat.items_from_request({"messages": messages})
        result = items[1].parts[0]
        self.assertIsInstance(result, ToolResultPart)
        self.assertIsInstance(result.output, PartsOutput)
        text, image, file, video = result.output.parts
        self.assertEqual(text, TextPart("page 2"))
        self.assertIsInstance(image, MediaPart)
        self.assertIsInstance(file, FilePart)
        self.assertEqual((image.mime_type, image.data, image.metadata["openai.chat.image_url.detail"]),
                         ("image/png", InlineBytes(b"\x89PNG\r\n"), "low"))
        self.assertEqual(file.data, Handle(ArtifactId("file-1")))
        self.assertEqual(video, CustomPart("openai.chat.input_video", value=entries[3]))
        self.assertEqual(messages_of(items), messages)
        # The same image made elsewhere still follows the tool messages, as OpenAI takes it.
        plain = image.with_metadata({})
        moved = Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("c1"), PartsOutput((text, plain))),))
        self.assertEqual(messages_of([items[0], moved])[1:], [
            {"role": "tool", "tool_call_id": "c1", "content": "page 2"},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]}])

    def test_a_file_held_as_text_is_sent_as_its_bytes(self) -> None:
        item = Item(ItemKind.USER, (FilePart(InlineText("a,b\n1,2\n"), name="t.csv", mime_type="text/csv"),))
        [entry] = messages_of([item])[0]["content"]
        self.assertEqual(entry["file"], {"filename": "t.csv", "file_data": "data:text/csv;base64," + base64.b64encode(b"a,b\n1,2\n").decode()})

    def test_what_chat_cannot_send_is_refused_with_its_path(self) -> None:
        cases = [
            MediaPart(Modality.VIDEO, "video/mp4", Uri("https://x/v.mp4")),
            MediaPart(Modality.IMAGE, "image/png", Handle(ArtifactId("art-1"))),
            MediaPart(Modality.AUDIO, "audio/wav", Uri("https://x/a.wav")),
            FilePart(Uri("https://x/a.pdf")),
        ]
        for part in cases:
            with self.subTest(part=part):
                with self.assertRaises(NormalizeError) as caught:
                    chat.request_from_items([Item.text(ItemKind.USER, "hi"), Item(ItemKind.USER, (TextPart("see"), part))])
                self.assertEqual(caught.exception.path, "items[1].parts[1]")
        with self.assertRaises(NormalizeError):
            chat.request_from_items([{"role": "user"}])  # type: ignore[list-item]
        with self.assertRaises(NormalizeError):
            chat.request_from_items("not items")  # type: ignore[arg-type]


# -- conversations ------------------------------------------------------------------------------


class FollowUpTest(unittest.TestCase):
    """Each recorded follow-up request, rebuilt from the items of the conversation so far."""

    def test_tool_result_followup_after_a_streamed_tool_call(self) -> None:
        first = chat.items_from_request(load("chat.tool_call_stream.request.json"))
        [assistant] = chat.items_from_stream(events("chat.tool_call.stream.jsonl"))
        call = assistant.parts[0]
        self.assertIsInstance(call, ToolCallPart)
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("London")),))
        rebuilt = chat.request_from_items(first + [assistant, result])
        self.assertEqual(rebuilt["messages"], load("chat.tool_result_followup.request.json")["messages"])

    def test_audio_followup_refers_back_by_id(self) -> None:
        recorded_messages = load("chat.audio_followup.request.json")["messages"]
        assistant = chat.items_from_response(load("chat.audio_output.response.json"))[0]
        items = [Item.text(ItemKind.USER, "Describe the picture."), assistant, Item.text(ItemKind.USER, "Say it again, slower.")]
        self.assertEqual(messages_of(items), recorded_messages)
        [streamed] = chat.items_from_stream(events("chat.audio_output.reconstructed.stream.jsonl"))
        self.assertEqual(messages_of([items[0], streamed, items[2]])[1]["audio"], {"id": "audio_67e2a1bf9d2c8190a5e1f0c3b2d4e6f8"})

    def test_tool_result_image_is_reinjected_as_a_user_message(self) -> None:
        request = load("chat.tool_message_then_image.request.json")
        user, assistant = chat.items_from_request(request)[:2]
        call = assistant.parts[0]
        self.assertIsInstance(call, ToolCallPart)
        image = MediaPart(Modality.IMAGE, "image/png", Uri("https://www.gstatic.com/webp/gallery3/1.png"))
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, PartsOutput((TextPart("File attached"), image))),))
        self.assertEqual(messages_of([user, assistant, result]), request["messages"])

    def test_parallel_results_keep_tool_messages_contiguous(self) -> None:
        [assistant] = chat.items_from_stream(events("chat.parallel_tool_calls.stream.jsonl"))
        image = MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG"))
        results = [Item(ItemKind.TOOL, (ToolResultPart(p.id, PartsOutput((TextPart("t"), image))),)) for p in assistant.parts]  # type: ignore[attr-defined]
        messages = messages_of([assistant, *results, Item.text(ItemKind.USER, "thanks")])
        self.assertEqual([m["role"] for m in messages], ["assistant", "tool", "tool", "user", "user"])
        self.assertEqual(messages[0]["tool_calls"][0]["function"]["arguments"], '{"city": "Edinburgh", "country": "GB", "units": "c"}')
        self.assertNotIn("index", messages[0]["tool_calls"][0])
        self.assertEqual(messages[3]["content"], [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}] * 2)
        self.assertEqual(messages[4], {"role": "user", "content": "thanks"})

    def test_a_result_answering_a_legacy_call_is_a_function_message(self) -> None:
        assistant = chat.items_from_response(load("chat.function_call_legacy.response.json"))[0]
        call = assistant.parts[0]
        self.assertIsInstance(call, ToolCallPart)
        result = Item(ItemKind.TOOL, (ToolResultPart(call.id, StructuredOutput({"temp": 22})),))
        self.assertEqual(messages_of([assistant, result])[1], {"role": "function", "name": "get_current_weather", "content": '{"temp":22}'})

    def test_an_edited_input_is_sent_as_edited(self) -> None:
        item = chat.items_from_stream(events("chat.parallel_tool_calls.stream.jsonl"))[0]
        call = item.parts[1]
        self.assertIsInstance(call, ToolCallPart)
        edited = item.with_parts([ToolCallPart(call.id, call.name, {"ticker": "MSFT"}, metadata=call.metadata)])
        self.assertEqual(messages_of([edited])[0]["tool_calls"][0]["function"]["arguments"], '{"ticker":"MSFT"}')


class MixedProvidersTest(unittest.TestCase):
    """A transcript from several providers: Chat keeps its own state and drops the others' opaque state."""

    def test_foreign_state_is_dropped_and_foreign_keys_never_leak(self) -> None:
        gemini_call = ToolCallPart(ToolCallId("gem_1"), "lookup", {"q": "x"},
                                   metadata={INVENTED_ID_KEY: True, PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"})
        transcript = [
            Item.text(ItemKind.USER, "start"),
            Item(ItemKind.ASSISTANT, (  # Anthropic: thinking with a signature, cited text, a tool call
                ReasoningPart("pondering", data=InlineText("sig-a"), metadata={PROVIDER_KEY: "anthropic"}),
                TextPart("Calling.", metadata={"anthropic.citations": []}),
                ToolCallPart(ToolCallId("toolu_1"), "search", {"q": "a"}, metadata={"anthropic.caller": {"type": "direct"}}),
            )),
            Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("toolu_1"), TextOutput("found"), metadata={"anthropic.cache_control": {}}),)),
            Item(ItemKind.ASSISTANT, (  # the Responses API: encrypted reasoning, item fields, a server tool
                ReasoningPart(None, data=InlineText("enc"), metadata={PROVIDER_KEY: "openai", "openai.id": "rs_1"}),
                CustomPart("openai.web_search_call", value={"type": "web_search_call", "id": "ws_1"}),
                TextPart("Searched.", metadata={"openai.id": "msg_1", "openai.status": "completed", "openai.part.type": "output_text"}),
                ToolCallPart(ToolCallId("call_r"), "fetch", {}, metadata={"openai.id": "fc_1", "openai.type": "function_call", "openai.status": "completed"}),
            )),
            Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("call_r"), TextOutput("page")),)),
            Item(ItemKind.ASSISTANT, (TextPart("Thinking done.", metadata={PROVIDER_KEY: "gemini", "gemini.thoughtSignature": "c2ln"}), gemini_call)),
            Item(ItemKind.TOOL, (ToolResultPart(ToolCallId("gem_1"), TextOutput("42"), metadata={TOOL_NAME_KEY: "lookup", INVENTED_ID_KEY: True}),)),
            Item(ItemKind.ASSISTANT, (ReasoningPart("mine", metadata={"openai.chat.reasoning_field": "reasoning_content"}), TextPart("It is 42."))),
        ]
        self.assertEqual(messages_of(transcript), [
            {"role": "user", "content": "start"},
            {"role": "assistant", "content": "Calling.", "tool_calls": [
                {"id": "toolu_1", "type": "function", "function": {"name": "search", "arguments": '{"q":"a"}'}}]},
            {"role": "tool", "tool_call_id": "toolu_1", "content": "found"},
            {"role": "assistant", "content": "Searched.", "tool_calls": [
                {"id": "call_r", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_r", "content": "page"},
            {"role": "assistant", "content": "Thinking done.", "tool_calls": [
                {"id": "gem_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}]},
            {"role": "tool", "tool_call_id": "gem_1", "content": "42"},
            {"role": "assistant", "content": "It is 42.", "reasoning_content": "mine"},
        ])

    def test_readable_reasoning_from_elsewhere_is_not_sent(self) -> None:
        item = Item(ItemKind.ASSISTANT, (ReasoningPart("a thought summary"), TextPart("answer")))
        self.assertEqual(messages_of([item]), [{"role": "assistant", "content": "answer"}])


# -- bad input ----------------------------------------------------------------------------------

class BadInputTest(unittest.TestCase):
    """Seeded mutations of every recording: only success or NormalizeError, and success is wire-valid."""

    def check_items(self, items: list[Item]) -> None:
        for item in items:
            self.assertEqual(stored(item), item)
        outcome(self, lambda: chat.request_from_items(items))

    def test_mutated_responses_and_requests(self) -> None:
        rng = random.Random(20240510)
        for suffix, decode in ((".response.json", chat.items_from_response), (".request.json", chat.items_from_request)):
            for name in files(suffix):
                original = load(name)
                with self.subTest(name):
                    for _ in range(150):
                        bad = mutate(original, rng)
                        items = outcome(self, lambda: decode(bad))
                        if items is not None:
                            self.check_items(items)

    def test_mutated_streams(self) -> None:
        rng = random.Random(7)
        for name in files(".stream.jsonl"):
            original = events(name)
            with self.subTest(name):
                for _ in range(120):
                    self.fold_each(mutate_stream(original, rng))

    def fold_each(self, chunks: list[Any]) -> None:
        """Fold event by event: a refused event changes nothing, and the fold never meets a bad delta."""
        decoder, state = chat.stream_decoder(), FoldState()
        for event in chunks:
            before = decoder.response()
            deltas = outcome(self, lambda: decoder.feed(event))
            if deltas is None:
                self.assertEqual(decoder.response(), before)
                continue
            state = fold_all(state, deltas)  # a ProtocolError here would be the decoder's bug
        items = decoder.finish_all(state.finalize())
        self.check_items(items)

    def test_not_json_objects(self) -> None:
        for bad in (None, [], "text", 3, {"x": float("nan")}, {"x": b"bytes"}, {1: "key"}, {"x": "\udc80"}, {"x": {"y": (1,)}}):
            with self.subTest(bad=bad):
                for decode in (chat.items_from_response, chat.items_from_request, chat.stream_decoder().feed):
                    with self.assertRaises(NormalizeError):
                        decode(bad)
        for odd in ({"choices": {}}, {"messages": "hi"}, {"choices": [{"message": {"content": 3}}]}, {"choices": [None]}):
            with self.subTest(odd=odd):
                for decode in (chat.items_from_response, chat.items_from_request, chat.stream_decoder().feed):
                    outcome(self, lambda: decode(odd))
        deep: Any = "x"
        for _ in range(130):
            deep = [deep]
        with self.assertRaises(NormalizeError):
            chat.items_from_response(body(choice(content="a"), extra=deep))
        with self.assertRaises(NormalizeError):
            chat.items_from_stream("data: {}\n\n")

    def test_native_json_is_checked_before_values_are_made(self) -> None:
        nested: Any = []
        for _ in range(118):
            nested = [nested]
        _common.native_object({"a": nested}, "a body")  # 120 levels: the bound
        with self.assertRaises(NormalizeError):
            _common.native_object({"a": [nested]}, "a body")
        good = {"a": [1, 2.5, True, None, "\u00e9", {"b": "c"}]}
        self.assertEqual(_common.native_object(good, "a body"), good)
        for bad in ({"a": float("inf")}, {"a": {2: 1}}, {"a": {"\ud800": 1}}, {"a": {1, 2}}, {"a": [b"x"]}):
            with self.subTest(bad=bad), self.assertRaises(NormalizeError) as caught:
                _common.native_object(bad, "a body")
            self.assertTrue(caught.exception.path.startswith("['a']"), caught.exception.path)

    def test_errors_name_the_field(self) -> None:
        cases = [
            (chat.items_from_response, body(choice(content=3)), "choices[0].message.content"),
            (chat.items_from_response, body(choice(tool_calls=[{"id": 1, "function": {"name": "f"}}])), "choices[0].message.tool_calls[0].id"),
            (chat.items_from_response, body(choice(tool_calls=[{"id": "c", "function": {"name": "f", "arguments": 1}}])),
             "choices[0].message.tool_calls[0].function.arguments"),
            (chat.items_from_request, {"messages": [{"role": "user", "content": "a"}, {"role": "tool", "content": "x"}]}, "messages[1].tool_call_id"),
            (chat.items_from_request, {"messages": [{"content": "a"}]}, "messages[0].role"),
        ]
        for decode, native, path in cases:
            with self.subTest(path):
                with self.assertRaises(NormalizeError) as caught:
                    decode(native)
                self.assertEqual(caught.exception.path, path)


class ModuleShapeTest(unittest.TestCase):
    def test_the_provider_functions(self) -> None:
        for name in ("items_from_response", "items_from_request", "request_from_items", "stream_decoder",
                     "items_from_stream", "events_from_sse"):
            self.assertTrue(callable(getattr(chat, name)), name)
        decoder = chat.stream_decoder()
        self.assertIsNot(decoder, chat.stream_decoder())
        self.assertEqual((decoder.usage, decoder.finish_reason), (None, None))
        self.assertEqual(decoder.feed({"id": "x", "choices": []}), [])
        empty = decoder.finish(())
        self.assertEqual((empty.kind, empty.parts, empty.id.value), (ItemKind.ASSISTANT, (), "x"))  # type: ignore[union-attr]



if __name__ == "__main__":
    unittest.main()
