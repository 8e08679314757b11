"""Bedrock Converse: recorded traffic, the binary stream equal to its parsed events, signed requests, whole turns."""

from __future__ import annotations

import json
import os
import unittest
from unittest import mock

from agentkit_core import FinishReason, Item, ItemKind, ModelSettings, NormalizeError, ReasoningPart, ToolCallPart, ToolChoice, ToolSpec
from agentkit_core.auth.aws import AwsCredentials
from agentkit_core.http import ProviderError, events_from_eventstream
from agentkit_core.providers import bedrock
from tests import frames, recorded
from tests.capability import can_serve_loopback
from tests.loopback import Loopback, eventstream_reply, json_reply
from tests.test_http import plain

ASK = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
CREDENTIALS = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token-0123456789")
NO_AWS = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}


class Recordings(unittest.TestCase):
    def test_each_binary_stream_is_its_parsed_events(self) -> None:
        for name in recorded.names("bedrock", ".eventstream"):
            with self.subTest(name):
                events = list(events_from_eventstream(recorded.raw("bedrock", name)))
                unpadded = [{k: {f: v for f, v in e.items() if f != "p"} for k, e in event.items()} for event in events]
                self.assertEqual(unpadded, recorded.load_events("bedrock", name.replace(".eventstream", ".stream.jsonl")))
                self.assertEqual(bedrock.items_from_stream(events), bedrock.items_from_stream(unpadded))  # the padding is no field
                whole = bedrock.items_from_stream(events)
                pieces = [recorded.raw("bedrock", name)[i : i + 13] for i in range(0, len(recorded.raw("bedrock", name)), 13)]
                self.assertEqual(bedrock.items_from_stream(events_from_eventstream(pieces)), whole)

    def test_what_the_recordings_mean(self) -> None:
        [answer] = recorded.items("bedrock", "converse.text.response.json")
        self.assertEqual(answer.finish_reason, FinishReason.COMPLETED)
        self.assertEqual(answer.metadata["bedrock.metrics"], {"latencyMs": 268})
        self.assertEqual((answer.usage.tokens.input_tokens, answer.usage.tokens.output_tokens), (7, 30))  # type: ignore[union-attr]
        [cached] = recorded.items("bedrock", "converse.cache_write_and_read_turn2.response.json")
        tokens = cached.usage.tokens  # type: ignore[union-attr]
        native = cached.usage.metadata["bedrock.usage"]  # type: ignore[union-attr]
        self.assertEqual(tokens.cached_input_tokens, native.get("cacheReadInputTokens"))  # type: ignore[union-attr]
        [thinking] = recorded.items("bedrock", "converse.tool_with_thinking_turn1.response.json")
        self.assertIsInstance(thinking.parts[0], ReasoningPart)
        self.assertEqual(thinking.parts[0].metadata["agentkit.provider"], "bedrock")
        self.assertTrue(thinking.tool_calls())
        [redacted] = recorded.items("bedrock", "converse_stream.redacted_thinking.eventstream")
        self.assertTrue(any(isinstance(p, ReasoningPart) and p.redacted for p in redacted.parts))

    def test_requests_round_trip(self) -> None:
        for name in recorded.names("bedrock", ".request.json"):
            body = recorded.load("bedrock", name)
            with self.subTest(name):
                again = bedrock.request_from_items(bedrock.items_from_request(body), tools=bedrock.tools_from_request(body),
                                                   tool_choice=bedrock.tool_choice_from_request(body))
                self.assertEqual(again, {k: v for k, v in body.items() if k in ("messages", "system", "toolConfig")})

    def test_the_stream_and_the_response_agree_on_a_turn(self) -> None:
        reasoning = bedrock.items_from_stream([
            {"messageStart": {"role": "assistant"}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Hm."}}}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2ln"}}}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
            {"messageStop": {"stopReason": "end_turn"}},
        ])[0]
        response = bedrock.items_from_response({"output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Hm.", "signature": "c2ln"}}}]}}, "stopReason": "end_turn"})[0]
        self.assertEqual(reasoning, response)

    def test_an_exception_event_ends_the_turn(self) -> None:
        item = bedrock.items_from_stream([{"messageStart": {"role": "assistant"}},
                                          {"throttlingException": {"message": "slow down"}}])[0]
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertEqual(item.metadata["bedrock.error"], {"type": "throttlingException", "message": "slow down"})

    def test_a_cut_call_is_dropped(self) -> None:
        events = recorded.load_events("bedrock", "converse_stream.tool_use_turn1.stream.jsonl")
        cut = [e for e in events if "messageStop" not in e and "metadata" not in e]
        cut = cut[: next(i for i, e in enumerate(cut) if "contentBlockStop" in e and e["contentBlockStop"]["contentBlockIndex"] == 1)]
        item = bedrock.items_from_stream(cut)[0]
        self.assertEqual(item.finish_reason, FinishReason.ERROR)
        self.assertFalse(item.tool_calls())
        self.assertEqual(len(item.metadata["agentkit.stream_cut"]["dropped_calls"]), 1)  # type: ignore[index]


class Malformed(unittest.TestCase):
    """What a body or a stream holds that the mapping does not expect: a custom part or NormalizeError, never a crash."""

    def test_a_media_format_that_is_no_string_is_a_custom_part(self) -> None:
        for fmt in ([], {}, 5):
            block = {"image": {"format": fmt, "source": {"bytes": "QUFB"}}}
            body = {"output": {"message": {"role": "assistant", "content": [block]}}, "stopReason": "end_turn"}
            with self.subTest(fmt=fmt):
                [item] = bedrock.items_from_response(body)
                self.assertEqual(item.parts[0].kind, "bedrock.image")  # type: ignore[attr-defined]
                [user] = bedrock.items_from_request({"messages": [{"role": "user", "content": [block]}]})
                self.assertEqual(user.parts[0].kind, "bedrock.image")  # type: ignore[attr-defined]


    def test_a_streamed_call_whose_input_does_not_parse_is_a_call_without_input(self) -> None:
        # max_tokens can end a toolUse block mid-input; the block began as a call, so it cannot commit as a custom part
        for text, error in (('{"city": "Par', "invalid JSON"), ("5", "expected a JSON object, found 5")):
            events = [
                {"messageStart": {"role": "assistant"}},
                {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "weather"}}}},
                {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": text}}}},
                {"contentBlockStop": {"contentBlockIndex": 0}},
                {"messageStop": {"stopReason": "max_tokens"}},
            ]
            with self.subTest(text):
                [item] = bedrock.items_from_stream(events)
                [call] = item.parts
                self.assertIsInstance(call, ToolCallPart)
                self.assertEqual((call.id.value, call.name, call.input), ("t1", "weather", None))  # type: ignore[attr-defined]
                self.assertEqual(call.metadata["agentkit.input_json"], text)
                self.assertIn(error, str(call.metadata["agentkit.input_error"]))
                self.assertEqual(item.finish_reason, FinishReason.MAX_TOKENS)
                sent = bedrock.request_from_items([item])["messages"][0]["content"]
                self.assertEqual(sent, [{"toolUse": {"toolUseId": "t1", "name": "weather", "input": {}}}])


    def test_redacted_reasoning_in_several_deltas_is_their_bytes_joined(self) -> None:
        def stream(*chunks: str) -> list[object]:
            deltas = [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": c}}}}
                      for c in chunks]
            return [{"messageStart": {"role": "assistant"}}, *deltas, {"contentBlockStop": {"contentBlockIndex": 0}},
                    {"messageStop": {"stopReason": "end_turn"}}]

        [item] = bedrock.items_from_stream(stream("QQ==", "Qg=="))  # b"A", b"B": each its own padded base64
        [part] = item.parts
        self.assertIsInstance(part, ReasoningPart)
        self.assertTrue(part.redacted)  # type: ignore[attr-defined]
        self.assertEqual(part.data.value, "QUI=")  # type: ignore[union-attr]
        with self.assertRaises(NormalizeError) as cm:
            bedrock.items_from_stream(stream("not base64!"))
        self.assertEqual(cm.exception.path, "delta.reasoningContent.redactedContent")


    def test_unmapped_deltas_of_a_streamed_call_are_kept_not_sent(self) -> None:
        events = [
            {"messageStart": {"role": "assistant"}},
            {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "weather"}}}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": {"x": 1}}}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
            {"messageStop": {"stopReason": "tool_use"}},
        ]
        [item] = bedrock.items_from_stream(events)
        self.assertEqual(item.parts[0].metadata["bedrock.deltas"], [{"citation": {"x": 1}}])
        sent = bedrock.request_from_items([item])["messages"][0]["content"]
        self.assertEqual(sent, [{"toolUse": {"toolUseId": "t1", "name": "weather", "input": {}}}])


class Requests(unittest.TestCase):
    def test_model_ids_are_encoded_as_botocore_encodes_them(self) -> None:
        arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0"
        request = bedrock.http_request(ASK, model=arn, credentials=CREDENTIALS, region="us-east-1", stream=True)
        self.assertEqual(request.url, "https://bedrock-runtime.us-east-1.amazonaws.com/model/"
                         "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-20250514-v1%3A0"
                         "/converse-stream")
        self.assertEqual(request.header("accept"), "application/vnd.amazon.eventstream")
        self.assertEqual(request.header("x-amz-security-token"), CREDENTIALS.session_token)
        self.assertTrue(str(request.header("authorization")).startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
        self.assertIn("/us-east-1/bedrock/aws4_request", str(request.header("authorization")))

    def test_the_body(self) -> None:
        request = bedrock.http_request(
            [Item.text(ItemKind.SYSTEM, "Be brief."), *ASK], model="m", api_key="bedrock-api-key-0123456789",
            tools=[ToolSpec("get_weather", "Weather.", {"type": "object"})], tool_choice=ToolChoice.auto(),
            settings=ModelSettings(max_tokens=2048, temperature=1, reasoning_budget=1024),  # as Claude takes them, thinking
            guardrailConfig={"guardrailIdentifier": "g", "guardrailVersion": "1"},
        )
        self.assertEqual(request.header("authorization"), "Bearer bedrock-api-key-0123456789")
        self.assertIsNone(request.auth)
        self.assertEqual(json.loads(request.body), {
            "messages": [{"role": "user", "content": [{"text": "What's the weather in Paris?"}]}],
            "system": [{"text": "Be brief."}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Weather.", "inputSchema": {"json": {"type": "object"}}}}],
                           "toolChoice": {"auto": {}}},
            "inferenceConfig": {"maxTokens": 2048, "temperature": 1},
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
            "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1"},
        })
        self.assertNotIn("bedrock-api-key-0123456789", repr(request))
        with self.assertRaisesRegex(ValueError, "no 'none' choice"):
            bedrock.request_from_items(ASK, tools=[ToolSpec("f")], tool_choice=ToolChoice.none())
        forced = bedrock.request_from_items(ASK, tools=[ToolSpec("f")], tool_choice=ToolChoice.tool("f"))
        self.assertEqual(forced["toolConfig"]["toolChoice"], {"tool": {"name": "f"}})

    def test_roles_alternate(self) -> None:
        from agentkit_core import TextOutput, ToolCallId, ToolResultPart

        call = ToolCallPart(ToolCallId("tooluse_1"), "f", {})
        items = [*ASK, Item(ItemKind.ASSISTANT, [call]), Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("18 C"))]),
                 Item.text(ItemKind.USER, "And tomorrow?")]
        messages = bedrock.request_from_items(items)["messages"]
        self.assertEqual([m["role"] for m in messages], ["user", "assistant", "user"])
        self.assertEqual(messages[2]["content"], [{"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "18 C"}]}},
                                                  {"text": "And tomorrow?"}])
        self.assertEqual(json.loads(bedrock.http_request(items, model="m", api_key="k" * 12).body)["messages"], messages)

    def test_credentials_and_region_from_the_environment(self) -> None:
        env = {**NO_AWS, "AWS_ACCESS_KEY_ID": "AKIDFROMENV", "AWS_SECRET_ACCESS_KEY": "secret-from-env", "AWS_REGION": "eu-central-1"}
        with mock.patch.dict(os.environ, env, clear=True):
            request = bedrock.http_request(ASK, model="m")
        self.assertTrue(request.url.startswith("https://bedrock-runtime.eu-central-1.amazonaws.com/"))
        self.assertIn("Credential=AKIDFROMENV/", str(request.header("authorization")))
        with mock.patch.dict(os.environ, {**NO_AWS, "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_CONFIG_FILE": os.devnull}, clear=True):
            unsigned = bedrock.http_request(ASK, model="m", base_url="https://gateway.example/bedrock")
        self.assertIsNone(unsigned.header("authorization"))  # no credentials: for a gateway that signs
        self.assertEqual(unsigned.url, "https://gateway.example/bedrock/model/m/converse")


class Turns(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_a_retry_is_signed_afresh(self) -> None:
        failed = json_reply(503, b'{"message":"busy"}', [("retry-after-ms", "5")])
        answer = recorded.raw("bedrock", "converse.text.response.json")
        times = iter([1_700_000_000.0, 1_700_000_007.0])
        with Loopback([failed, json_reply(200, answer)]) as server, mock.patch("time.time", lambda: next(times, 1_700_000_009.0)):
            item = bedrock.complete(ASK, model="m", base_url=server.url(), stream=False, credentials=CREDENTIALS,
                                    region="us-east-1", transport=plain())
            dates = [r.headers["x-amz-date"] for r in server.requests]
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        self.assertEqual(len(set(dates)), 2)

    def test_an_exception_in_the_stream_is_a_provider_error(self) -> None:
        body = frames.event("messageStart", {"role": "assistant"}) + frames.exception("modelStreamErrorException", "the model failed")
        with Loopback([eventstream_reply(body)]) as server:
            with self.assertRaises(ProviderError) as caught:
                bedrock.complete(ASK, model="m", base_url=server.url(), credentials=CREDENTIALS, transport=plain())
        self.assertEqual(caught.exception.error_type, "modelStreamErrorException")

    def test_a_streamed_tool_turn(self) -> None:
        raw = recorded.raw("bedrock", "converse_stream.tool_use_turn1.eventstream")
        with Loopback([eventstream_reply(raw, pieces=11)]) as server:
            item = bedrock.complete(ASK, model="us.amazon.nova-micro-v1:0", base_url=server.url(), credentials=CREDENTIALS,
                                    transport=plain())
            self.assertEqual(server.requests[0].path, "/model/us.amazon.nova-micro-v1%3A0/converse-stream")
        self.assertEqual(item, recorded.items("bedrock", "converse_stream.tool_use_turn1.eventstream")[0])
        self.assertTrue(all(isinstance(c, ToolCallPart) for c in item.tool_calls()))

    def test_a_turn_by_name_signed_with_credentials_from_the_environment(self) -> None:
        import agentkit_core.providers as providers

        raw = recorded.raw("bedrock", "converse_stream.tool_use_turn1.eventstream")
        env = {**NO_AWS, "AWS_ACCESS_KEY_ID": "AKIDFROMENV", "AWS_SECRET_ACCESS_KEY": "secret-from-env", "AWS_REGION": "eu-west-3"}
        with Loopback([eventstream_reply(raw, pieces=7)]) as server, mock.patch.dict(os.environ, env, clear=True):
            item = providers.complete(ASK, model="bedrock:us.amazon.nova-micro-v1:0", base_url=server.url(), transport=plain())
            received = server.requests[0]
        self.assertEqual(received.path, "/model/us.amazon.nova-micro-v1%3A0/converse-stream")
        authorization = received.headers["authorization"]
        self.assertTrue(authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDFROMENV/"), authorization[:40])
        self.assertIn("/eu-west-3/bedrock/aws4_request", authorization)
        self.assertEqual(item, recorded.items("bedrock", "converse_stream.tool_use_turn1.eventstream")[0])


if __name__ == "__main__":
    unittest.main()
