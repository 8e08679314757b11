"""Declared tools and the tool choice in every provider's request: written, read back, across providers."""

from __future__ import annotations

import random
import unittest
from types import ModuleType
from typing import Any

from agentkit_core import Item, ItemKind, NormalizeError, ToolAnnotations, ToolChoice, ToolSpec
from agentkit_core.providers import PROVIDERS, anthropic, capabilities, gemini, openai_chat, openai_responses
from tests import recorded
from tests.mutation import ODD_VALUES, mutate, outcome

#: The body fields each provider's tool mapping owns.
FIELDS = {
    "anthropic": ("tools", "tool_choice"),
    "openai_chat": ("tools", "tool_choice", "parallel_tool_calls"),
    "openai_responses": ("tools", "tool_choice", "parallel_tool_calls"),
    "gemini": ("tools", "toolConfig", "tool_config"),
    "bedrock": ("toolConfig",),
}
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SPECS = [
    ToolSpec("get_weather", "Get the weather for a city.", WEATHER),
    ToolSpec("now", "", {"type": "object", "properties": {}}, annotations=ToolAnnotations(read_only_hint=True)),
    ToolSpec("grep", "Search files", {"type": "object", "properties": {"pattern": {"type": "string"}}}, output_schema={"type": "array"}),
]
CHOICES = [ToolChoice.auto(), ToolChoice.none(), ToolChoice.required(), ToolChoice.tool("get_weather")]
#: Whether the API has a setting for parallel calls (Gemini has none: a choice goes without it), as the registry says.
PARALLEL = {row.module: "parallel_tool_calls" in row.capabilities.settings for row in PROVIDERS}


#: Where each API's tool list and tool choice sit in a request body (top level unless said here), as paths of keys.
TOOLS_AT = {"bedrock": ("toolConfig", "tools")}
CHOICE_AT = {"bedrock": ("toolConfig", "toolChoice")}


def at(body: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` in ``body``."""
    for key in path:
        body = body[key]
    return body


def tools_of(name: str, body: dict[str, Any]) -> Any:
    """The tool list of ``body``, a request of ``name``'s API."""
    return at(body, TOOLS_AT.get(name, ("tools",)))


def choices(name: str) -> list[ToolChoice]:
    """The :data:`CHOICES` whose mode ``name``'s API has (its row's ``tool_modes``)."""
    return [c for c in CHOICES if c.mode in capabilities(name).tool_modes]


def tool_fields(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """The tool fields of ``body``; an empty ``tools`` list is no tools, which is what the writer writes for it."""
    if name in TOOLS_AT:  # the list sits in an object of its own (Bedrock's toolConfig): the same rule inside it
        outer, inner = TOOLS_AT[name]
        config = {k: v for k, v in body.get(outer, {}).items() if not (k == inner and v == [])}
        return {outer: config} if config else {}
    return {k: body[k] for k in FIELDS[name] if k in body and body[k] != []}


def written(module: ModuleType, tools: Any = (), tool_choice: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = module.request_from_items([Item.text(ItemKind.USER, "hi")], tools=tools, tool_choice=tool_choice)
    return body


def read_back(module: ModuleType, body: dict[str, Any]) -> tuple[list[Any], ToolChoice | None]:
    return module.tools_from_request(body), module.tool_choice_from_request(body)


def as_list(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with a Gemini ``tools`` object that declares no function as the list holding it, which is how it reads back.

    (A lone ``Tool`` object with declarations reads back as it came: its first spec says so.)
    """
    tools = body.get("tools")
    declarations = tools.get("functionDeclarations", tools.get("function_declarations")) if isinstance(tools, dict) else None
    if isinstance(tools, dict) and not (isinstance(declarations, list) and declarations):
        return {**body, "tools": [tools]}
    return body


def shape(items: list[Item]) -> list[Any]:
    """What a transcript holds, but for the ids a request's decoder invents afresh each time (Gemini's)."""
    return [(i.kind, [(type(p), getattr(p, "text", None), getattr(p, "name", None)) for p in i.parts]) for i in items]


class RecordedRequests(unittest.TestCase):
    def test_every_recorded_request_round_trips_its_tools_exactly(self) -> None:
        seen = 0
        for name, module in recorded.PROVIDERS.items():
            for request in recorded.names(name, ".request.json"):
                body = recorded.load(name, request)
                with self.subTest(request):
                    tools, choice = read_back(module, body)
                    again = written(module, tools, choice)
                    self.assertEqual(tool_fields(name, again), tool_fields(name, body))
                    self.assertEqual(read_back(module, again), (tools, choice))
                    seen += bool(tools)
        self.assertGreaterEqual(seen, 20)

    def test_what_recorded_requests_mean(self) -> None:
        tools, choice = read_back(anthropic, recorded.load("anthropic", "messages.tool_result_is_error.request.json"))
        self.assertEqual([t.name for t in tools], ["get_weather", "stock_lookup", "search_tools"])
        self.assertEqual(dict(tools[1].metadata), {"anthropic.defer_loading": True})
        self.assertEqual(choice, ToolChoice.auto())
        tools, _ = read_back(anthropic, recorded.load("anthropic", "messages.thinking_server_tool.request.json"))
        self.assertEqual(tools, [{"name": "code_execution", "type": "code_execution_20260120"}])
        tools, choice = read_back(openai_chat, recorded.load("openai_chat", "chat.tool_call_stream.request.json"))
        self.assertEqual(tools[0].metadata["openai.chat.strict"], True)
        self.assertEqual(tools[0].input_schema["required"], ["country"])
        _, choice = read_back(openai_responses, recorded.load("openai_responses", "responses.function_call_stream.request.json"))
        self.assertEqual(choice, ToolChoice.required())
        tools, choice = read_back(gemini, recorded.load("gemini", "generate_content.parallel_function_calls.request.json"))
        self.assertEqual([t.name for t in tools], ["generate_topic", "final_result"])
        self.assertEqual(tools[1].input_schema["required"], ["response"])
        self.assertIsNotNone(choice)
        self.assertEqual(choice.mode, "required")  # ANY, over two allowed names: kept verbatim
        self.assertIn("gemini.toolConfig", choice.metadata)
        tools, _ = read_back(gemini, recorded.load("gemini", "generate_content.code_execution.request.json"))
        self.assertEqual(tools, [{"codeExecution": {}}])

    def test_tools_are_not_transcript(self) -> None:
        for name, module in recorded.PROVIDERS.items():
            for request in recorded.names(name, ".request.json"):
                body = recorded.load(name, request)
                bare = {k: v for k, v in body.items() if k not in FIELDS[name]}
                with self.subTest(request):
                    self.assertEqual(shape(module.items_from_request(body)), shape(module.items_from_request(bare)))


class HandBuilt(unittest.TestCase):
    def test_native_shapes(self) -> None:
        spec = SPECS[0]
        self.assertEqual(written(anthropic, [spec], ToolChoice.tool("get_weather", parallel=False))["tool_choice"],
                         {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True})
        self.assertEqual(written(anthropic, [spec])["tools"], [{"name": "get_weather", "description": "Get the weather for a city.", "input_schema": WEATHER}])
        self.assertEqual(written(anthropic, [ToolSpec("x")])["tools"], [{"name": "x", "input_schema": {"type": "object"}}])
        self.assertEqual(written(anthropic, (), ToolChoice.required())["tool_choice"], {"type": "any"})
        chat = written(openai_chat, [spec], ToolChoice.tool("get_weather", parallel=False))
        self.assertEqual(chat["tools"], [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather for a city.", "parameters": WEATHER}}])
        self.assertEqual((chat["tool_choice"], chat["parallel_tool_calls"]), ({"type": "function", "function": {"name": "get_weather"}}, False))
        self.assertEqual(written(openai_chat, (), ToolChoice.required())["tool_choice"], "required")
        responses = written(openai_responses, [spec], ToolChoice.tool("get_weather"))
        self.assertEqual(responses["tools"], [{"type": "function", "name": "get_weather", "description": "Get the weather for a city.", "parameters": WEATHER, "strict": False}])
        self.assertEqual(responses["tool_choice"], {"type": "function", "name": "get_weather"})
        self.assertNotIn("parallel_tool_calls", responses)
        body = written(gemini, [spec, SPECS[1]], ToolChoice.tool("get_weather", parallel=True))
        self.assertEqual(body["tools"], [{"functionDeclarations": [
            {"name": "get_weather", "description": "Get the weather for a city.", "parametersJsonSchema": WEATHER},
            {"name": "now", "parametersJsonSchema": {"type": "object", "properties": {}}},
        ]}])
        self.assertEqual(body["toolConfig"], {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})
        self.assertEqual(written(gemini, (), ToolChoice.none())["toolConfig"], {"functionCallingConfig": {"mode": "NONE"}})

    def test_no_tools_no_fields(self) -> None:
        for name, module in recorded.PROVIDERS.items():
            with self.subTest(name):
                self.assertEqual(tool_fields(name, written(module)), {})
                self.assertEqual(read_back(module, written(module)), ([], None))

    def test_specs_and_choices_round_trip_through_every_provider(self) -> None:
        for name, module in recorded.PROVIDERS.items():
            for choice in choices(name) + [ToolChoice.auto(parallel=False), ToolChoice.required(parallel=True)]:
                with self.subTest(name, choice=choice):
                    tools, back = read_back(module, written(module, SPECS, choice))
                    self.assertEqual(tools, [self.sent(s) for s in SPECS])
                    self.assertEqual(back, choice if PARALLEL[name] or choice.mode == "none" else choice.with_parallel(None))

    @staticmethod
    def sent(spec: ToolSpec) -> ToolSpec:
        """What a provider is told of a spec: no annotations, no output schema."""
        return ToolSpec(spec.name, spec.description, spec.input_schema, metadata=spec.metadata)

    def test_across_providers(self) -> None:
        """Specs written by one provider and read back, then written by another and read back, are the specs."""
        sent = [self.sent(s) for s in SPECS]
        for first, one in recorded.PROVIDERS.items():
            for second, other in recorded.PROVIDERS.items():
                with self.subTest(first=first, second=second):
                    tools, choice = read_back(one, written(one, SPECS, ToolChoice.tool("grep")))
                    self.assertEqual(read_back(other, written(other, tools, choice)), (sent, ToolChoice.tool("grep")))

    def test_a_native_tool_goes_as_it_is(self) -> None:
        natives = {
            "anthropic": {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            "openai_chat": {"type": "custom", "custom": {"name": "sql", "format": {"type": "text"}}},
            "openai_responses": {"type": "web_search"},
            "gemini": {"googleSearch": {}},
            "bedrock": {"cachePoint": {"type": "default"}},
        }
        for name, module in recorded.PROVIDERS.items():
            with self.subTest(name):
                body = written(module, [natives[name], SPECS[0]])
                self.assertEqual(tools_of(name, body)[0], natives[name])
                tools, _ = read_back(module, body)
                self.assertEqual(tools, [natives[name], self.sent(SPECS[0])])

    def test_a_native_choice_goes_as_it_is_and_reads_back(self) -> None:
        natives = {
            "anthropic": ("tool_choice", {"type": "auto", "future_field": 1}),
            "openai_chat": ("tool_choice", {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": []}}),
            "openai_responses": ("tool_choice", {"type": "web_search_preview"}),
            "gemini": ("toolConfig", {"functionCallingConfig": {"mode": "VALIDATED"}}),
            "bedrock": ("toolChoice", {"auto": {}, "future_field": 1}),
        }
        for name, module in recorded.PROVIDERS.items():
            key, native = natives[name]
            path = CHOICE_AT.get(name, (key,))
            with self.subTest(name):
                body = written(module, [SPECS[0]], native)
                self.assertEqual(at(body, path), native)
                choice = module.tool_choice_from_request(body)
                self.assertEqual(at(written(module, [SPECS[0]], choice), path), native)
        chat = openai_chat.tool_choice_from_request({"tool_choice": natives["openai_chat"][1]})
        self.assertEqual(chat.mode, "required")
        only_parallel = openai_chat.tool_choice_from_request({"parallel_tool_calls": False})
        self.assertEqual((only_parallel.mode, only_parallel.parallel), ("auto", False))
        self.assertEqual(tool_fields("openai_chat", written(openai_chat, (), only_parallel)), {"parallel_tool_calls": False})


class Refusals(unittest.TestCase):
    def test_bad_arguments_name_their_place(self) -> None:
        for name, module in recorded.PROVIDERS.items():
            cases: list[tuple[Any, Any, str]] = [
                ("tools", None, "tools"),
                ({"name": "x"}, None, "tools"),
                ([SPECS[0], "x"], None, "tools[1]"),
                ([{"a": float("nan")}], None, "tools[0]['a']"),
                ((), "auto", "tool_choice"),
                ((), 3, "tool_choice"),
            ]
            for tools, choice, path in cases:
                with self.subTest(name, path=path, tools=repr(tools)[:30]):
                    with self.assertRaises(NormalizeError) as caught:
                        written(module, tools, choice)
                    self.assertEqual(caught.exception.path, path)

    def test_bad_bodies_name_their_field(self) -> None:
        cases = [
            (anthropic, {"tools": {}}, "tools"),
            (anthropic, {"tools": [3]}, "tools[0]"),
            (anthropic, {"tools": [{"input_schema": {}}]}, "tools[0].name"),
            (openai_chat, {"tools": [{"type": "function", "function": {"name": 1}}]}, "tools[0].function.name"),
            (openai_responses, {"tools": [{"type": "function"}]}, "tools[0].name"),
            (gemini, {"tools": [{"functionDeclarations": [{"name": "a"}, 5]}]}, "tools[0].functionDeclarations[1]"),
            (gemini, {"tools": 5}, "tools"),
        ]
        for module, body, path in cases:
            with self.subTest(body=body):
                with self.assertRaises(NormalizeError) as caught:
                    module.tools_from_request(body)
                self.assertEqual(caught.exception.path, path)
        for module, body, path in [
            (anthropic, {"tool_choice": 5}, "tool_choice"),
            (openai_chat, {"parallel_tool_calls": "yes"}, "parallel_tool_calls"),
            (openai_responses, {"tool_choice": []}, "tool_choice"),
            (gemini, {"toolConfig": "ANY"}, "toolConfig"),
        ]:
            with self.subTest(body=body):
                with self.assertRaises(NormalizeError) as caught:
                    module.tool_choice_from_request(body)
                self.assertEqual(caught.exception.path, path)

    def test_odd_input_raises_only_normalize_error(self) -> None:
        for name, module in recorded.PROVIDERS.items():
            for value in ODD_VALUES:
                for call in (module.tools_from_request, module.tool_choice_from_request):
                    with self.subTest(name, call=call.__name__, value=repr(value)[:30]):
                        outcome(self, lambda: call(value))
                        outcome(self, lambda: call({"tools": value, "tool_choice": value, "toolConfig": value, "parallel_tool_calls": value}))
                        outcome(self, lambda: call({"tools": [value], "toolConfig": {"functionCallingConfig": value}}))

    def test_mutated_recorded_tools_decode_and_round_trip_or_are_refused(self) -> None:
        """Fuzzing: what decodes is written back as it came (the tool fields), anything else is a NormalizeError."""
        rng = random.Random(17)
        for name, module in recorded.PROVIDERS.items():
            bodies = [tool_fields(name, recorded.load(name, n)) for n in recorded.names(name, ".request.json")]
            bodies = [b for b in bodies if b]
            for n in range(300):
                body = mutate(rng.choice(bodies), rng)
                with self.subTest(name, n=n):
                    found = outcome(self, lambda: read_back(module, body))
                    if found is not None and isinstance(body, dict):
                        self.assertEqual(tool_fields(name, written(module, *found)), tool_fields(name, as_list(body)))


if __name__ == "__main__":
    unittest.main()
