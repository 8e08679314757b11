"""agentkit_core.otel: span attributes of the OpenTelemetry GenAI conventions, proven against their schemas."""

from __future__ import annotations

import base64
import functools
import json
import subprocess
import sys
import unittest
from typing import Any

from agentkit_core import (
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    CostUsage,
    CustomPart,
    DataRef,
    FilePart,
    FinishReason,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    Modality,
    Part,
    ReasoningPart,
    SessionId,
    StructuredPart,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    ToolSpec,
    Usage,
    otel,
)
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses, provider_info
from tests import recorded as R, schema_check as S
from tests.capability import needs_processes

SCHEMAS = {
    "gen_ai.input.messages": S.Validator(S.load("gen-ai-input-messages.json")),
    "gen_ai.output.messages": S.Validator(S.load("gen-ai-output-messages.json")),
    "gen_ai.system_instructions": S.Validator(S.load("gen-ai-system-instructions.json")),
    "gen_ai.tool.definitions": S.Validator(S.load("gen-ai-tool-definitions.json")),
}
#: The standard part types and their definitions: a part of one of these types must match its own
#: definition, not only the generic part the schemas' anyOf also offers.
STANDARD_PARTS = {
    "text": "TextPart",
    "tool_call": "ToolCallRequestPart",
    "tool_call_response": "ToolCallResponsePart",
    "reasoning": "ReasoningPart",
    "blob": "BlobPart",
    "uri": "UriPart",
    "file": "FilePart",
    "server_tool_call": "ServerToolCallPart",
    "server_tool_call_response": "ServerToolCallResponsePart",
}
RECORDINGS = (".request.json", ".response.json", ".stream.jsonl", ".sse.txt")
#: A recording's items, decoded once for all the tests (items are immutable).
decoded = functools.cache(R.items)


def recordings() -> list[tuple[str, str]]:
    """Every recorded request, response and stream of every provider."""
    return [(p, n) for p in R.PROVIDERS for n in R.names(p, "") if n.endswith(RECORDINGS)]


def part_errors(validator: S.Validator, part: Any, path: str) -> list[str]:
    """A standard part checked against its own definition, and the parts a tool response holds."""
    found: list[str] = []
    if not isinstance(part, dict):  # an element of a structured tool output, not a part
        return found
    name = STANDARD_PARTS.get(str(part.get("type")))
    if name is not None and name in validator.root["$defs"]:  # system instructions have no server tool parts
        found += validator.errors(part, {"$ref": f"#/$defs/{name}"}, path)
    if part.get("type") == "blob_omitted":
        if not (isinstance(part.get("modality"), str) and type(part.get("size_bytes")) is int and "mime_type" in part):
            found.append(f"{path}: a blob_omitted part needs modality, mime_type and size_bytes")
    response = part.get("response")
    if part.get("type") == "tool_call_response" and isinstance(response, list):
        for i, inner in enumerate(response):
            found += part_errors(validator, inner, f"{path}.response[{i}]")
    return found


def attribute_errors(attribute: str, text: object) -> list[str]:
    """What is wrong with one content attribute: its JSON text against its schema, parts included."""
    if not isinstance(text, str):
        return [f"{attribute} is {type(text).__name__}, not JSON text"]
    value = json.loads(text)
    validator = SCHEMAS[attribute]
    found = validator.errors(value)
    if attribute == "gen_ai.system_instructions":
        for i, part in enumerate(value):
            found += part_errors(validator, part, f"$[{i}]")
    elif attribute != "gen_ai.tool.definitions":
        for i, message in enumerate(value):
            for j, part in enumerate(message["parts"]):
                found += part_errors(validator, part, f"$[{i}].parts[{j}]")
    return found


def parts_of(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    """Every message part in the content attributes, tool responses' parts included."""
    found: list[dict[str, Any]] = []

    def add(part: dict[str, Any]) -> None:
        found.append(part)
        if part["type"] == "tool_call_response" and isinstance(part["response"], list):
            for inner in part["response"]:
                add(inner)

    for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
        for message in json.loads(attributes.get(key, "[]")):
            for part in message["parts"]:
                add(part)
    for part in json.loads(attributes.get("gen_ai.system_instructions", "[]")):
        add(part)
    return found


def call_span(provider: str, name: str, **options: Any) -> dict[str, Any]:
    """The span attributes of a recording: a request is the transcript sent, anything else the answer."""
    items = decoded(provider, name)
    if name.endswith(".request.json"):
        return otel.span_attributes(items, None, provider=provider, request_model="m", capture_content=True, **options)
    return otel.span_attributes([], items, provider=provider, capture_content=True, **options)


class Recordings(unittest.TestCase):
    """Every message JSON made from every recorded payload follows the conventions' schemas."""

    def test_every_recording_validates(self) -> None:
        checked = 0
        for provider, name in recordings():
            for options in ({}, {"inline_media": True}, {"max_text": 8}):
                with self.subTest(provider=provider, name=name, **options):
                    attributes = call_span(provider, name, **options)
                    for key in SCHEMAS:
                        if key in attributes:
                            self.assertEqual(attribute_errors(key, attributes[key]), [])
                            checked += 1
                    for value in attributes.values():
                        self.assertIsInstance(value, (str, int, list))
                        if isinstance(value, list):
                            self.assertTrue(all(isinstance(v, str) for v in value))
        self.assertGreater(checked, 300)

    def test_every_part_type_is_met(self) -> None:
        met = {part["type"] for p, n in recordings() for part in parts_of(call_span(p, n))}
        met |= {part["type"] for p, n in recordings() for part in parts_of(call_span(p, n, inline_media=True))}
        standard = {"text", "tool_call", "tool_call_response", "reasoning", "blob", "uri", "server_tool_call", "server_tool_call_response"}
        self.assertLessEqual(standard | {"blob_omitted"}, met)
        self.assertTrue(any(t.startswith(("anthropic.", "openai.", "gemini.")) for t in met), met)  # generic parts

    def test_media_is_never_inline_unless_asked(self) -> None:
        for provider, name in recordings():
            with self.subTest(provider=provider, name=name):
                types = {part["type"] for part in parts_of(call_span(provider, name))}
                self.assertNotIn("blob", types)

    def test_requests_and_answers_of_all_four_providers(self) -> None:
        for provider in R.PROVIDERS:
            with self.subTest(provider=provider):
                names = [n for p, n in recordings() if p == provider]
                self.assertTrue(any(n.endswith(".request.json") for n in names))
                self.assertTrue(any(n.endswith((".response.json", ".stream.jsonl")) for n in names))

    def test_answers_carry_model_id_usage_and_finish(self) -> None:
        for provider, name in recordings():
            if name.endswith(".request.json"):
                continue
            with self.subTest(provider=provider, name=name):
                attributes = call_span(provider, name)
                answers = decoded(provider, name)
                if answers[0].id is None:  # an API whose answers carry no id (Bedrock's: its request id is a header)
                    self.assertNotIn("gen_ai.response.id", attributes)
                else:
                    self.assertEqual(attributes["gen_ai.response.id"], answers[0].id.value)
                if provider_info(provider).model_key in answers[0].metadata:
                    self.assertIsInstance(attributes["gen_ai.response.model"], str)
                else:  # nor its model (Bedrock's is in the URL)
                    self.assertNotIn("gen_ai.response.model", attributes)
                self.assertEqual(len(attributes["gen_ai.response.finish_reasons"]), len(answers))
                self.assertGreaterEqual(attributes["gen_ai.usage.input_tokens"], 1)


class ReferenceVectors(unittest.TestCase):
    """Every item and part of the reference's wire vectors, sent and answered, validates too."""

    def test_every_vector_validates(self) -> None:
        checked = 0
        for n, (line, transcript) in enumerate(R.reference_transcripts([ItemKind.USER, ItemKind.SYSTEM])):
            provider, inline = (("anthropic", False), ("openai_chat", True))[n % 2]  # system apart, and not
            with self.subTest(line=line, provider=provider):
                attributes = otel.span_attributes(
                    transcript, transcript, provider=provider, capture_content=True, inline_media=inline, max_text=4
                )
                for key in SCHEMAS:
                    if key in attributes:
                        self.assertEqual(attribute_errors(key, attributes[key]), [])
                        checked += 1
        self.assertGreater(checked, 100)


class Spans(unittest.TestCase):
    def test_attributes_of_a_call(self) -> None:
        sent = R.items("anthropic", "messages.thinking_tool_result_followup.request.json")
        answer = R.items("anthropic", "messages.thinking_tool_result_followup.response.json")[0]
        attributes = otel.span_attributes(
            sent, answer, provider=anthropic, request_model="claude-sonnet-4", conversation_id=SessionId("s-1")
        )
        self.assertEqual(attributes["gen_ai.operation.name"], "chat")
        self.assertEqual(attributes["gen_ai.provider.name"], "anthropic")
        self.assertEqual(attributes["gen_ai.request.model"], "claude-sonnet-4")
        self.assertEqual(attributes["gen_ai.response.model"], answer.metadata["anthropic.model"])
        self.assertEqual(attributes["gen_ai.response.id"], answer.id.value)  # type: ignore[union-attr]
        self.assertEqual(attributes["gen_ai.response.finish_reasons"], ["stop"])
        self.assertEqual(attributes["gen_ai.conversation.id"], "s-1")
        self.assertEqual(otel.span_name(attributes), "chat claude-sonnet-4")
        self.assertFalse([k for k in attributes if k.endswith((".messages", ".instructions", ".definitions"))])

    def test_usage_counts_and_the_cache_and_reasoning_breakdowns(self) -> None:
        cached = call_span("anthropic", "messages.prompt_cache_hit.response.json")
        tokens = R.items("anthropic", "messages.prompt_cache_hit.response.json")[0].usage.tokens  # type: ignore[union-attr]
        self.assertIsNotNone(tokens)
        self.assertEqual(cached["gen_ai.usage.input_tokens"], tokens.input_tokens)  # cache traffic included
        self.assertEqual(cached["gen_ai.usage.cache_read.input_tokens"], tokens.cached_input_tokens)
        self.assertEqual(cached["gen_ai.usage.cache_creation.input_tokens"], tokens.cache_write_input_tokens)
        self.assertNotIn("gen_ai.usage.reasoning.output_tokens", cached)  # not reported: left out
        reasoning = call_span("openai_chat", "chat.reasoning_tokens.response.json")
        self.assertGreater(reasoning["gen_ai.usage.reasoning.output_tokens"], 0)
        answer = Item(ItemKind.ASSISTANT, usage=Usage(TokenUsage(10, 5, reasoning_tokens=3), cost=CostUsage(0.1, "USD")))
        both = otel.span_attributes([], [answer, answer.with_usage(Usage(TokenUsage(1, 1)))], provider="openai")
        self.assertEqual((both["gen_ai.usage.input_tokens"], both["gen_ai.usage.output_tokens"]), (11, 6))

    def test_provider_names_and_operations(self) -> None:
        for provider, name, operation in (
            (anthropic, "anthropic", "chat"),
            (openai_chat, "openai", "chat"),
            (openai_responses, "openai", "chat"),
            (gemini, "gcp.gemini", "generate_content"),
            ("openai_responses", "openai", "chat"),
            ("gcp.vertex_ai", "gcp.vertex_ai", "chat"),
        ):
            with self.subTest(provider=provider):
                attributes = otel.span_attributes([], None, provider=provider)
                self.assertEqual(attributes["gen_ai.provider.name"], name)
                self.assertEqual(attributes["gen_ai.operation.name"], operation)
        self.assertEqual(otel.span_attributes([], None, provider="gemini", operation="chat")["gen_ai.operation.name"], "chat")
        with self.assertRaises(TypeError):
            otel.span_attributes([], None, provider=3)

    def test_every_registry_row_names_its_spans(self) -> None:
        # The names come from the provider registry: a new row needs no edit here.
        from agentkit_core._registry import PROVIDERS

        for row in PROVIDERS:
            with self.subTest(provider=row.module):
                answer = Item(ItemKind.ASSISTANT, metadata={row.model_key: "m-1"})
                attributes = otel.span_attributes([], answer, provider=row.module)
                self.assertEqual(attributes["gen_ai.provider.name"], row.otel_name)
                self.assertEqual(attributes["gen_ai.operation.name"], row.otel_operation)
                self.assertEqual(attributes["gen_ai.response.model"], "m-1")
                self.assertEqual(otel.provider_name(row.module), row.otel_name)

    def test_the_package_names_its_public_module(self) -> None:
        for name in otel.__all__:
            with self.subTest(name=name):
                self.assertEqual(getattr(otel, name).__module__, "agentkit_core.otel")
        self.assertTrue(hasattr(otel, "__path__"))  # a package, like agentkit_core.http

    def test_system_instructions_go_apart_where_the_api_takes_them_apart(self) -> None:
        system = Item.text(ItemKind.SYSTEM, "Be brief.")
        user = Item.text(ItemKind.USER, "hi")
        for provider, apart in (("anthropic", True), ("gemini", True), ("openai_chat", False), ("openai_responses", False)):
            with self.subTest(provider=provider):
                attributes = otel.span_attributes([system, user], None, provider=provider, capture_content=True)
                roles = [m["role"] for m in json.loads(str(attributes["gen_ai.input.messages"]))]
                self.assertEqual(roles, ["user"] if apart else ["system", "user"])
                self.assertEqual("gen_ai.system_instructions" in attributes, apart)
        instructions = R.items("openai_responses", "responses.reasoning_summary_stream.request.json")
        split = call_span("openai_responses", "responses.reasoning_summary_stream.request.json")
        has_instructions = any(i.metadata.get("openai.request_field") == "instructions" for i in instructions)
        self.assertEqual("gen_ai.system_instructions" in split, has_instructions)
        mid = R.items("anthropic", "messages.mid_conversation_system.request.json")
        roles = [
            m["role"] for m in json.loads(call_span("anthropic", "messages.mid_conversation_system.request.json")["gen_ai.input.messages"])
        ]
        self.assertEqual(roles.count("system"), sum("anthropic.role" in i.metadata for i in mid))
        self.assertIn("system", roles)

    def test_the_helpers_give_the_structured_values(self) -> None:
        sent = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "hi")]
        answer = Item.text(ItemKind.ASSISTANT, "hello").with_finish_reason(FinishReason.COMPLETED)
        attributes = otel.span_attributes(sent, answer, provider="gemini", capture_content=True)
        self.assertEqual(json.loads(str(attributes["gen_ai.input.messages"])), otel.input_messages(sent, provider="gemini"))
        self.assertEqual(json.loads(str(attributes["gen_ai.system_instructions"])), otel.system_instructions(sent, provider="gemini"))
        self.assertEqual(json.loads(str(attributes["gen_ai.output.messages"])), otel.output_messages(answer))
        self.assertEqual(
            otel.output_messages(answer), [{"role": "assistant", "parts": [{"type": "text", "content": "hello"}], "finish_reason": "stop"}]
        )

    def test_wrong_arguments(self) -> None:
        span: Any = otel.span_attributes  # called with what its annotations refuse
        for call in (
            lambda: span("hi", None, provider="openai"),
            lambda: span([{"role": "user"}], None, provider="openai"),
            lambda: span([], [3], provider="openai"),
            lambda: span([], None, provider="openai", request_model=5),
            lambda: span([], None, provider="openai", capture_content=1),
            lambda: span([], None, provider="openai", inline_media=None),
            lambda: otel.tool_definitions([{"description": "no name"}]),
            lambda: otel.finish_reason("stop"),  # type: ignore[arg-type]
        ):
            with self.subTest(call=call):
                self.assertRaises(TypeError, call)
        for max_text in (-1, True, 2.0):
            with self.subTest(max_text=max_text), self.assertRaises(ValueError):
                span([], None, provider="openai", max_text=max_text)


class FinishAndErrors(unittest.TestCase):
    """A cancelled turn, a refusal, an error answer and a tool failure, in the conventions' words."""

    def test_the_finish_reason_vocabulary(self) -> None:
        expected = {
            FinishReason.COMPLETED: "stop",
            FinishReason.TOOL_CALL: "tool_call",
            FinishReason.MAX_TOKENS: "length",
            FinishReason.BLOCKED: "content_filter",
            FinishReason.ERROR: "error",
            FinishReason.CANCELLED: "cancelled",
            FinishReason.other("pause_turn"): "pause_turn",
            None: "unknown",
        }
        for reason, name in expected.items():
            with self.subTest(reason=reason):
                self.assertEqual(otel.finish_reason(reason), name)

    def test_a_cancelled_turn(self) -> None:
        cancelled = openai_responses.items_from_response(
            {"id": "resp_1", "object": "response", "status": "cancelled", "model": "gpt-5", "output": []}
        )
        attributes = otel.span_attributes([], cancelled, provider=openai_responses, capture_content=True)
        self.assertEqual(attributes["gen_ai.response.finish_reasons"], ["cancelled"])
        self.assertEqual(attributes["error.type"], "cancelled")
        self.assertEqual(attribute_errors("gen_ai.output.messages", attributes["gen_ai.output.messages"]), [])
        loop_cancelled = Item.text(ItemKind.ASSISTANT, "Partial").with_finish_reason(FinishReason.CANCELLED)
        self.assertEqual(otel.span_attributes([], loop_cancelled, provider="anthropic")["error.type"], "cancelled")

    def test_a_refusal_is_content_filter_and_no_error(self) -> None:
        for provider, name in (
            ("anthropic", "messages.refusal.response.json"),
            ("openai_chat", "chat.refusal.stream.jsonl"),
            ("openai_chat", "chat.content_filter_azure.response.json"),
            ("gemini", "generate_content.safety_block.response.json"),
        ):
            with self.subTest(provider=provider, name=name):
                attributes = call_span(provider, name)
                self.assertEqual(attributes["gen_ai.response.finish_reasons"], ["content_filter"])
                self.assertNotIn("error.type", attributes)

    def test_an_error_answer_names_the_providers_error(self) -> None:
        for provider, body, code in (
            (anthropic, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "overloaded_error"),
            (openai_chat, {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}, "rate_limit_exceeded"),
            (openai_chat, {"error": {"message": "boom", "type": "server_error", "code": None}}, "server_error"),
            (
                openai_responses,
                {
                    "id": "resp_1",
                    "object": "response",
                    "status": "failed",
                    "output": [],
                    "error": {"code": "server_error", "message": "boom"},
                },
                "server_error",
            ),
            (gemini, {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}, "RESOURCE_EXHAUSTED"),
            (
                gemini,
                {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "MALFORMED_FUNCTION_CALL"}]},
                "MALFORMED_FUNCTION_CALL",
            ),
        ):
            with self.subTest(provider=provider.__name__, code=code):
                attributes = otel.span_attributes([], provider.items_from_response(body), provider=provider, capture_content=True)
                self.assertEqual(attributes["gen_ai.response.finish_reasons"], ["error"])
                self.assertEqual(attributes["error.type"], code)
                self.assertEqual(attribute_errors("gen_ai.output.messages", attributes["gen_ai.output.messages"]), [])
        bare = Item(ItemKind.ASSISTANT, finish_reason=FinishReason.ERROR)
        self.assertEqual(otel.span_attributes([], bare, provider="openai")["error.type"], "_OTHER")
        given = otel.span_attributes([], None, provider="openai", error_type="TimeoutError")
        self.assertEqual(given["error.type"], "TimeoutError")
        self.assertNotIn("gen_ai.response.finish_reasons", given)

    def test_a_tool_failure(self) -> None:
        call = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Atlantis"})
        failed = ToolResultPart.error(ToolCallId("call_1"), ToolOutput.text("no such city"))
        attributes = otel.tool_span_attributes(call, failed, capture_content=True)
        self.assertEqual(attributes["error.type"], "_OTHER")
        self.assertEqual(json.loads(str(attributes["gen_ai.tool.call.arguments"])), {"city": "Atlantis"})
        self.assertNotIn("gen_ai.tool.call.result", attributes)  # only a successful run's result
        named = otel.tool_span_attributes(call, failed, error_type="LookupError")
        self.assertEqual(named["error.type"], "LookupError")


class ToolSpans(unittest.TestCase):
    def test_a_successful_run(self) -> None:
        call = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Paris"})
        done = ToolResultPart.success(ToolCallId("call_1"), ToolOutput.structured({"sky": "rain", "temp_c": 14}))
        tool = {"name": "get_weather", "description": "Weather now", "input_schema": {"type": "object"}}
        attributes = otel.tool_span_attributes(call, done, tool=tool, capture_content=True)
        self.assertEqual(
            {k: v for k, v in attributes.items() if not k.startswith("gen_ai.tool.call.a")},
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.type": "function",
                "gen_ai.tool.description": "Weather now",
                "gen_ai.tool.call.result": '{"sky":"rain","temp_c":14}',
            },
        )
        self.assertEqual(otel.span_name(attributes), "execute_tool get_weather")
        quiet = otel.tool_span_attributes(call, done)
        self.assertNotIn("gen_ai.tool.call.arguments", quiet)
        self.assertNotIn("error.type", quiet)
        text = otel.tool_span_attributes(call, ToolResultPart.success(ToolCallId("call_1"), ToolOutput.text("rain")), capture_content=True)
        self.assertEqual(json.loads(str(text["gen_ai.tool.call.result"])), "rain")

    def test_arguments_that_did_not_parse_are_written_as_text(self) -> None:
        broken = ToolCallPart(ToolCallId("c"), "f", None, metadata={INPUT_JSON_KEY: '{"a": ', INPUT_ERROR_KEY: "EOF"})
        attributes = otel.tool_span_attributes(broken, capture_content=True)
        self.assertEqual(json.loads(str(attributes["gen_ai.tool.call.arguments"])), '{"a": ')

    def test_a_result_of_another_call_is_refused(self) -> None:
        call = ToolCallPart(ToolCallId("call_1"), "f", {})
        with self.assertRaises(ValueError):
            otel.tool_span_attributes(call, ToolResultPart.success(ToolCallId("call_2"), ToolOutput.text("")))

    def test_tool_definitions_of_real_tool_specs(self) -> None:
        specs = [
            ToolSpec("get_weather", "Weather now", {"type": "object", "properties": {"city": {"type": "string"}}}),
            ToolSpec("ping"),  # no description, no schema
        ]
        self.assertEqual(
            otel.tool_definitions(specs),
            [
                {"type": "function", "name": "get_weather", "description": "Weather now", "parameters": specs[0].input_schema},
                {"type": "function", "name": "ping"},
            ],
        )
        call = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Paris"})
        failed = ToolResultPart.failure(call, "the weather service is down")
        attributes = otel.tool_span_attributes(call, failed, tool=specs[0])
        self.assertEqual((attributes["gen_ai.tool.description"], attributes["error.type"]), ("Weather now", "_OTHER"))
        self.assertNotIn("gen_ai.tool.description", otel.tool_span_attributes(call, tool=specs[1]))

    def test_the_tools_of_every_recorded_request(self) -> None:
        function = {"$ref": "#/$defs/FunctionToolDefinition"}
        validator = SCHEMAS["gen_ai.tool.definitions"]
        seen = set()
        for provider, module in R.PROVIDERS.items():
            for name in R.names(provider, ".request.json"):
                tools = module.tools_from_request(R.load(provider, name))
                if not tools:
                    continue
                with self.subTest(provider=provider, name=name):
                    attributes = call_span(provider, name, tools=tools)
                    self.assertEqual(attribute_errors("gen_ai.tool.definitions", attributes["gen_ai.tool.definitions"]), [])
                    definitions = json.loads(attributes["gen_ai.tool.definitions"])
                    self.assertEqual(
                        [d["name"] for d in definitions], [getattr(t, "name", None) or t.get("name") or next(iter(t)) for t in tools]
                    )
                    for tool, definition in zip(tools, definitions):
                        seen.add(type(tool))
                        if isinstance(tool, ToolSpec):
                            self.assertEqual(validator.errors(definition, function), [])
                        else:
                            self.assertNotEqual(definition["type"], "function")  # a server tool is no function
        self.assertEqual(seen, {ToolSpec, dict})

    def test_tool_definitions_from_mappings_and_objects(self) -> None:
        class Spec:
            name = "search"
            description = None
            input_schema = {"type": "object", "properties": {"q": {"type": "string"}}}

        tools = [Spec(), {"name": "now", "description": "The time", "input_schema": None}, {"name": "quiet", "description": ""}]
        attributes = otel.span_attributes([], None, provider="openai", tools=tools, capture_content=True)
        self.assertEqual(attribute_errors("gen_ai.tool.definitions", attributes["gen_ai.tool.definitions"]), [])
        self.assertEqual(
            json.loads(str(attributes["gen_ai.tool.definitions"])),
            [
                {"type": "function", "name": "search", "parameters": Spec.input_schema},
                {"type": "function", "name": "now", "description": "The time"},
                {"type": "function", "name": "quiet"},  # an empty description says nothing
            ],
        )
        function = {"$ref": "#/$defs/FunctionToolDefinition"}
        for definition in otel.tool_definitions(tools):
            self.assertEqual(SCHEMAS["gen_ai.tool.definitions"].errors(definition, function), [])
        self.assertNotIn("gen_ai.tool.definitions", otel.span_attributes([], None, provider="openai", tools=tools))


class Content(unittest.TestCase):
    def messages(self, *parts: Part, **options: Any) -> list[dict[str, Any]]:
        return otel.input_messages([Item(ItemKind.USER, parts)], **options)[0]["parts"]  # type: ignore[no-any-return]

    def test_media_bytes_are_described_unless_asked_for(self) -> None:
        png = b"\x89PNG\r\n\x1a\n" + bytes(100)
        image = MediaPart(Modality.IMAGE, "image/png", DataRef.inline_bytes(png))
        self.assertEqual(self.messages(image), [{"type": "blob_omitted", "modality": "image", "mime_type": "image/png", "size_bytes": 108}])
        (blob,) = self.messages(image, inline_media=True)
        self.assertEqual((blob["type"], base64.b64decode(blob["content"])), ("blob", png))
        data_url = MediaPart(Modality.AUDIO, "audio/wav", DataRef.uri("data:audio/wav;base64," + base64.b64encode(b"RIFF1234").decode()))
        self.assertEqual(self.messages(data_url)[0]["size_bytes"], 8)
        self.assertEqual(base64.b64decode(self.messages(data_url, inline_media=True)[0]["content"]), b"RIFF1234")

    def test_references_are_uris_and_file_ids(self) -> None:
        parts = self.messages(
            MediaPart(Modality.VIDEO, "video/mp4", DataRef.uri("gs://bucket/clip.mp4")),
            FilePart(DataRef.handle("file-abc"), name="report.pdf", mime_type="application/pdf"),
            FilePart(DataRef.uri("https://example.com/cat.png"), mime_type="image/png"),
            MediaPart(Modality.BINARY, "application/octet-stream", DataRef.inline_text("hi")),
        )
        self.assertEqual(
            parts,
            [
                {"type": "uri", "modality": "video", "mime_type": "video/mp4", "uri": "gs://bucket/clip.mp4"},
                {"type": "file", "modality": "document", "mime_type": "application/pdf", "file_id": "file-abc", "name": "report.pdf"},
                {"type": "uri", "modality": "image", "mime_type": "image/png", "uri": "https://example.com/cat.png"},
                {"type": "blob_omitted", "modality": "binary", "mime_type": "application/octet-stream", "size_bytes": 2},
            ],
        )

    def test_other_parts(self) -> None:
        parts = self.messages(
            StructuredPart({"b": [1, 2]}),
            ReasoningPart("thinking about it"),
            ReasoningPart(None, data=DataRef.inline_text("opaque-signature"), redacted=True),
            CustomPart("anthropic.container_upload", value={"type": "container_upload", "file_id": "file_1"}),
        )
        self.assertEqual(
            parts,
            [
                {"type": "text", "content": '{"b":[1,2]}'},
                {"type": "reasoning", "content": "thinking about it"},
                {"type": "reasoning", "content": "", "redacted": True},
                {"type": "anthropic.container_upload", "value": {"type": "container_upload", "file_id": "file_1"}},
            ],
        )
        self.assertNotIn("opaque-signature", json.dumps(parts))
        call = ToolCallPart(ToolCallId("c"), "f", {"a": [1]})
        self.messages(call)[0]["arguments"]["a"].append(2)  # the caller's copy, not the part's
        self.assertEqual(call.input, {"a": [1]})

    def test_server_tools(self) -> None:
        parts = self.messages(
            CustomPart(
                "anthropic.server_tool_use",
                value={"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "otel"}},
            ),
            CustomPart("anthropic.web_search_tool_result", value={"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []}),
            CustomPart(
                "openai.web_search_call",
                value={"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
            ),
            CustomPart("gemini.executableCode", value={"executableCode": {"language": "PYTHON", "code": "print(1)"}}),
            CustomPart("gemini.codeExecutionResult", value={"code_execution_result": {"id": "x1", "outcome": "OUTCOME_OK", "output": "1"}}),
            CustomPart("anthropic.server_tool_use", value={"type": "server_tool_use", "id": "srv_2"}),  # no name: generic
        )
        self.assertEqual(
            parts,
            [
                {
                    "type": "server_tool_call",
                    "id": "srv_1",
                    "name": "web_search",
                    "server_tool_call": {"type": "web_search", "input": {"query": "otel"}},
                },
                {
                    "type": "server_tool_call_response",
                    "id": "srv_1",
                    "server_tool_call_response": {"type": "web_search_tool_result", "content": []},
                },
                {
                    "type": "server_tool_call",
                    "id": "ws_1",
                    "name": "web_search",
                    "server_tool_call": {"type": "web_search", "status": "completed", "action": {"type": "search"}},
                },
                {
                    "type": "server_tool_call",
                    "name": "code_execution",
                    "server_tool_call": {"type": "code_execution", "language": "PYTHON", "code": "print(1)"},
                },
                {
                    "type": "server_tool_call_response",
                    "id": "x1",
                    "server_tool_call_response": {"type": "code_execution", "outcome": "OUTCOME_OK", "output": "1"},
                },
                {"type": "anthropic.server_tool_use", "value": {"type": "server_tool_use", "id": "srv_2"}},
            ],
        )
        validator = SCHEMAS["gen_ai.input.messages"]
        for i, part in enumerate(parts[:5]):
            self.assertEqual(part_errors(validator, part, f"parts[{i}]"), [])

    def test_base64_in_provider_blocks_is_omitted_unless_asked_for(self) -> None:
        image = base64.b64encode(bytes(range(256)) * 4).decode()
        block = CustomPart("openai.image_generation_call", value={"type": "image_generation_call", "id": "ig_1", "result": image})
        (shaped,) = self.messages(block)
        self.assertEqual(shaped["server_tool_call"]["result"], f"[{len(image)} characters of base64 data omitted]")
        self.assertEqual(self.messages(block, inline_media=True)[0]["server_tool_call"]["result"], image)
        prose = " ".join(["words"] * 100)
        (kept,) = self.messages(CustomPart("anthropic.compaction", value={"content": prose, "encrypted_content": image}))
        self.assertEqual(kept["value"]["content"], prose)
        self.assertTrue(kept["value"]["encrypted_content"].endswith("base64 data omitted]"))

    def test_truncation_is_said_in_the_value(self) -> None:
        long = "x" * 50
        call = ToolCallPart(ToolCallId("call_" + "9" * 40), "a_tool_with_a_long_name", {"query": long, "n": 3})
        text, shaped_call = self.messages(TextPart(long), call, max_text=10)
        self.assertEqual(text["content"], "x" * 10 + "[... 40 characters truncated]")
        self.assertEqual(shaped_call["arguments"], {"query": "x" * 10 + "[... 40 characters truncated]", "n": 3})
        self.assertEqual((shaped_call["id"], shaped_call["name"]), (call.id.value, call.name))  # never cut
        self.assertEqual(self.messages(TextPart(long), max_text=50)[0]["content"], long)  # fits: whole
        result = ToolResultPart.success(call.id, ToolOutput.text(long))
        attributes = otel.tool_span_attributes(call, result, capture_content=True, max_text=0)
        self.assertEqual(json.loads(str(attributes["gen_ai.tool.call.result"])), "[... 50 characters truncated]")

    def test_roles(self) -> None:
        kinds = [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL, ItemKind.DEVELOPER, ItemKind.CONTEXT, ItemKind.NOTIFICATION]
        messages = otel.input_messages([Item(k) for k in kinds], provider="openai_chat")
        self.assertEqual([m["role"] for m in messages], ["user", "assistant", "tool", "system", "user", "user"])
        answer = Item(ItemKind.ASSISTANT, id=MessageId("m1"), finish_reason=FinishReason.TOOL_CALL)
        self.assertEqual(otel.output_messages([answer, answer]), [{"role": "assistant", "parts": [], "finish_reason": "tool_call"}] * 2)


class Isolation(unittest.TestCase):
    @needs_processes
    def test_not_imported_by_the_package_and_imports_no_opentelemetry(self) -> None:
        script = (
            "import sys, agentkit_core\n"
            "if 'agentkit_core.otel' in sys.modules: raise AssertionError('the package imported otel')\n"
            "import agentkit_core.otel\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry'))\n"
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)


if __name__ == "__main__":
    unittest.main()
