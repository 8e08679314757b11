"""``ModelSettings``: checked when made, written into each provider's own fields as the table in docs/turns.md ("Portable settings") says,
refused where the API has no field, read back by ``settings_from_request``; native fields, headers and
Anthropic's ``max_tokens`` as the issue's newcomer met them."""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import unittest
from dataclasses import replace
from typing import Any

from agentkit_core import Item, ItemKind, ModelSettings, ToolChoice, ToolSpec
from agentkit_core._registry import PROVIDERS, capabilities
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses
from agentkit_core.settings import SETTING_NAMES
from tests import recorded

ITEMS = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "Hi")]
SCHEMA = {"type": "object", "title": "Answer", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
MODULES = recorded.PROVIDERS  # one per registry row
REFUSED = "refused"

#: setting -> value, then per provider the native fields it must write (REFUSED: a ValueError).
TABLE: dict[str, tuple[Any, dict[str, Any]]] = {
    "max_tokens": (512, {
        "anthropic": {"max_tokens": 512}, "openai_chat": {"max_completion_tokens": 512},
        "openai_responses": {"max_output_tokens": 512}, "gemini": {"generationConfig": {"maxOutputTokens": 512}}, "bedrock": {"inferenceConfig": {"maxTokens": 512}}}),
    "temperature": (0.2, {
        "anthropic": {"temperature": 0.2}, "openai_chat": {"temperature": 0.2}, "openai_responses": {"temperature": 0.2},
        "gemini": {"generationConfig": {"temperature": 0.2}}, "bedrock": {"inferenceConfig": {"temperature": 0.2}}}),
    "top_p": (0.9, {
        "anthropic": {"top_p": 0.9}, "openai_chat": {"top_p": 0.9}, "openai_responses": {"top_p": 0.9},
        "gemini": {"generationConfig": {"topP": 0.9}}, "bedrock": {"inferenceConfig": {"topP": 0.9}}}),
    "stop": (("END",), {
        "anthropic": {"stop_sequences": ["END"]}, "openai_chat": {"stop": ["END"]}, "openai_responses": REFUSED,  # type: ignore[dict-item]
        "gemini": {"generationConfig": {"stopSequences": ["END"]}}, "bedrock": {"inferenceConfig": {"stopSequences": ["END"]}}}),
    "seed": (7, {
        "anthropic": REFUSED, "openai_chat": {"seed": 7}, "openai_responses": REFUSED,  # type: ignore[dict-item]
        "gemini": {"generationConfig": {"seed": 7}}, "bedrock": REFUSED}),
    "reasoning_effort": ("high", {
        "anthropic": {"output_config": {"effort": "high"}}, "openai_chat": {"reasoning_effort": "high"},
        "openai_responses": {"reasoning": {"effort": "high"}},
        "gemini": {"generationConfig": {"thinkingConfig": {"thinkingLevel": "high"}}}, "bedrock": REFUSED}),
    "reasoning_budget": (2048, {
        "anthropic": {"thinking": {"type": "enabled", "budget_tokens": 2048}}, "openai_chat": REFUSED,  # type: ignore[dict-item]
        "openai_responses": REFUSED, "gemini": {"generationConfig": {"thinkingConfig": {"thinkingBudget": 2048}}},
        "bedrock": {"additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}}}),
    "output_schema": (SCHEMA, {
        "anthropic": {"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}},
        "openai_chat": {"response_format": {"type": "json_schema", "json_schema": {"name": "Answer", "schema": SCHEMA, "strict": True}}},
        "openai_responses": {"text": {"format": {"type": "json_schema", "name": "Answer", "schema": SCHEMA, "strict": True}}},
        "gemini": {"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": SCHEMA}}, "bedrock": REFUSED}),
    "parallel_tool_calls": (False, {
        "anthropic": {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
        "openai_chat": {"parallel_tool_calls": False}, "openai_responses": {"parallel_tool_calls": False},
        "gemini": REFUSED, "bedrock": REFUSED}),  # type: ignore[dict-item]
}


SPEC = ToolSpec("get_weather", "The weather now", {"type": "object"})


def body_of(module: Any, **kw: Any) -> dict[str, Any]:
    kw.setdefault("settings", None)
    if kw["settings"] is not None and kw["settings"].parallel_tool_calls is not None:
        kw.setdefault("tools", [SPEC])  # written only beside tools
    if module is anthropic and "max_tokens" not in kw and (kw["settings"] is None or kw["settings"].max_tokens is None):
        kw["max_tokens"] = 64 + ((kw["settings"] and kw["settings"].reasoning_budget) or 0)  # more than a thinking budget
    return json.loads(module.http_request(ITEMS, model="m", **kw).body)  # type: ignore[no-any-return]


def without(body: dict[str, Any], paths: list[tuple[str, ...]]) -> dict[str, Any]:
    """``body`` without the fields at ``paths`` (key paths), and without the objects left empty by that."""
    out = copy.deepcopy(body)
    for path in paths:
        holders = [out]
        for key in path[:-1]:
            holders.append(holders[-1][key])
        del holders[-1][path[-1]]
        for holder, key in zip(reversed(holders[:-1]), reversed(path[:-1])):
            if holder[key] == {}:
                del holder[key]
    return out


def limited(module: Any, settings: ModelSettings) -> ModelSettings:
    """``settings`` as read back from :func:`body_of`'s body (Anthropic's with the ``max_tokens`` it adds)."""
    if module is anthropic and settings.max_tokens is None:
        return settings.merged(ModelSettings(max_tokens=64 + (settings.reasoning_budget or 0)))
    return settings


class ModelSettingsTest(unittest.TestCase):
    def test_checked_when_made(self) -> None:
        for kw, error in (
            ({"temperature": 2.5}, ValueError), ({"temperature": -0.1}, ValueError), ({"temperature": "0.5"}, TypeError),
            ({"temperature": True}, TypeError), ({"temperature": float("nan")}, ValueError), ({"top_p": 1.5}, ValueError),
            ({"temperature": 2**1100}, ValueError), ({"top_p": float("inf")}, ValueError), ({"seed": 2**64}, ValueError),
            ({"max_tokens": 0}, ValueError), ({"max_tokens": 1.0}, TypeError), ({"max_tokens": True}, TypeError),
            ({"reasoning_budget": -1}, ValueError), ({"stop": "END"}, TypeError), ({"stop": ["END", 3]}, TypeError),
            ({"stop": [""]}, ValueError), ({"stop": []}, ValueError), ({"seed": 1.5}, TypeError),
            ({"reasoning_effort": 3}, TypeError), ({"reasoning_effort": ""}, ValueError),
            ({"output_schema": [1]}, TypeError), ({"output_schema": {"a": float("inf")}}, ValueError),
            ({"parallel_tool_calls": 1}, TypeError),
        ):
            with self.subTest(kw), self.assertRaises(error) as caught:
                ModelSettings(**kw)
            self.assertIn(f"ModelSettings.{next(iter(kw))}", str(caught.exception))

    def test_a_frozen_value_with_a_dict_form(self) -> None:
        s = ModelSettings(max_tokens=5, temperature=0, stop=["a", "b"], output_schema=SCHEMA, parallel_tool_calls=True)
        self.assertEqual(s.stop, ("a", "b"))
        self.assertIsNot(s.output_schema, SCHEMA)
        with self.assertRaises(AttributeError):
            s.max_tokens = 6  # type: ignore[misc]
        self.assertEqual(s.to_dict(), {"max_tokens": 5, "temperature": 0, "stop": ["a", "b"], "output_schema": SCHEMA,
                                       "parallel_tool_calls": True})
        self.assertEqual(ModelSettings.from_dict(s.to_dict()), s)
        self.assertEqual(ModelSettings.from_dict(json.loads(json.dumps(s.to_dict()))), s)
        self.assertEqual(pickle.loads(pickle.dumps(s)), s)
        self.assertEqual(hash(s), hash(ModelSettings.from_dict(s.to_dict())))
        self.assertEqual(s.merged(ModelSettings(max_tokens=9)).max_tokens, 9)
        with self.assertRaises(ValueError):
            ModelSettings.from_dict({"max_token": 5})
        self.assertEqual(ModelSettings().to_dict(), {})

    def test_the_public_names_are_documented(self) -> None:
        """Read from the source (``-OO`` strips ``__doc__``): each of issue 25's public names has a docstring."""
        import ast
        import inspect
        import textwrap

        from agentkit_core.otel import span_attributes

        named = [ModelSettings, span_attributes, *(getattr(ModelSettings, n) for n in ("given", "to_dict", "from_dict", "to_json",
                                                                                      "from_json", "merged"))]
        named += [getattr(m, n) for m in MODULES.values() for n in ("complete", "acomplete", "settings_from_request", "http_request")]
        for value in named:
            with self.subTest(getattr(value, "__qualname__", value)):
                node = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(value)))).body[0]
                self.assertIsInstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                self.assertTrue((ast.get_docstring(node) or "").strip())  # type: ignore[arg-type]

    def test_every_setting_in_the_table_and_the_registry_agrees(self) -> None:
        self.assertEqual(set(TABLE), set(SETTING_NAMES))
        for row in PROVIDERS:
            with self.subTest(row.module):
                mapped = {name for name, (_, native) in TABLE.items() if native[row.module] != REFUSED}
                self.assertEqual(row.capabilities.settings, mapped)


class MappingTest(unittest.TestCase):
    def test_each_setting_maps_as_the_table_says(self) -> None:
        for name, (value, natives) in TABLE.items():
            for provider, native in natives.items():
                module = MODULES[provider]
                settings = ModelSettings(**{name: value})
                with self.subTest(name, provider=provider):
                    if native == REFUSED:
                        with self.assertRaises(ValueError) as caught:
                            body_of(module, settings=settings)
                        self.assertIn(name, str(caught.exception))
                        self.assertIn(next(r.display for r in PROVIDERS if r.module == provider), str(caught.exception))
                        with self.assertRaises(ValueError):
                            module.request_from_items(ITEMS, settings=settings)
                        continue
                    tools = [SPEC] if name == "parallel_tool_calls" else []
                    fields = module.request_from_items(ITEMS, settings=settings, tools=tools)
                    transcript = module.request_from_items(ITEMS, tools=tools)
                    self.assertEqual({k: v for k, v in fields.items() if k not in transcript}, native)
                    body = body_of(module, settings=settings)
                    self.assertEqual({k: body[k] for k in native}, native)
                    self.assertEqual(module.settings_from_request(body), limited(module, settings))
                    self.assertEqual(module.settings_from_request(fields), settings)

    def test_all_at_once_round_trip(self) -> None:
        for provider, module in MODULES.items():
            given = {n: v for n, (v, natives) in TABLE.items() if natives[provider] != REFUSED}
            if provider == "gemini":
                given.pop("reasoning_effort")  # effort and a thinking budget are two ways to ask (Gemini refuses both)
            if provider in ("anthropic", "bedrock"):
                given.pop("reasoning_budget")  # thinking refuses the table's temperature, top_p and max_tokens
            settings = ModelSettings(**given)
            with self.subTest(provider):
                body = body_of(module, settings=settings)
                self.assertEqual(module.settings_from_request(body), limited(module, settings))
                self.assertEqual(module.items_from_request(body), module.items_from_request(module.request_from_items(ITEMS)))

    def test_recorded_requests_come_back_as_they_were(self) -> None:
        """Each recorded request read as items, tools, settings and the native rest, then built again: the same body."""
        seen: set[str] = set()
        for provider, module in MODULES.items():
            fields_of = importlib.import_module(f"{module.__name__}._settings").fields_of
            for name in recorded.names(provider, ".request.json"):
                body = recorded.load(provider, name)
                with self.subTest(provider, request=name):
                    settings = module.settings_from_request(body)
                    seen.update(settings.given())
                    items, tools = module.items_from_request(body), module.tools_from_request(body)
                    choice = module.tool_choice_from_request(body)
                    transcript = module.request_from_items(items, tools=tools, tool_choice=choice)
                    native = {k: v for k, v in without(body, list(fields_of(settings)[1])).items()
                              if k not in transcript and k not in ("model", "stream")}
                    request = module.http_request(items, model=body.get("model", "gemini-x"), stream=body.get("stream") is True,
                                                  tools=tools, tool_choice=choice, settings=settings, **native)
                    self.assertEqual(json.loads(request.body), {k: v for k, v in body.items() if (k, v) != ("stream", False)})
                    self.assertEqual(module.settings_from_request(json.loads(request.body)), settings)
        self.assertLessEqual({"max_tokens", "reasoning_budget", "reasoning_effort"}, seen)  # the recordings hold settings

    def test_fields_that_do_not_map_exactly_stay_native(self) -> None:
        odd = {"response_format": {"type": "json_schema", "json_schema": {"name": "other", "schema": SCHEMA, "strict": True}},
               "stop": "END", "temperature": True}
        self.assertEqual(openai_chat.settings_from_request(odd), ModelSettings())
        self.assertEqual(anthropic.settings_from_request({"thinking": {"type": "enabled", "budget_tokens": 10, "x": 1}}),
                         ModelSettings())
        self.assertEqual(gemini.settings_from_request({"generationConfig": {"responseJsonSchema": SCHEMA}}), ModelSettings())

    def test_effort_levels_each_api_knows(self) -> None:
        for provider, module in MODULES.items():
            for level in capabilities(provider).reasoning_efforts:
                with self.subTest(provider, level=level):
                    self.assertEqual(module.settings_from_request(body_of(module, settings=ModelSettings(reasoning_effort=level))),
                                     limited(module, ModelSettings(reasoning_effort=level)))
            with self.subTest(provider, level="turbo"), self.assertRaises(ValueError) as caught:
                body_of(module, settings=ModelSettings(reasoning_effort="turbo"))
            if capabilities(provider).reasoning_efforts:  # an API with levels names the one it lacks
                self.assertIn("turbo", str(caught.exception))
            self.assertIn("ModelSettings.reasoning_effort", str(caught.exception))
            self.assertIn(next(r.display for r in PROVIDERS if r.module == provider), str(caught.exception))
        with self.assertRaises(ValueError):
            body_of(gemini, settings=ModelSettings(reasoning_effort="xhigh"))
        with self.assertRaises(ValueError):
            body_of(openai_chat, settings=ModelSettings(reasoning_effort="adaptive"))
        # The SDKs' own lists (anthropic 2.15 OutputConfigParam.effort, openai 3.57 ReasoningEffort) pass.
        self.assertEqual(capabilities("anthropic").reasoning_efforts, ("low", "medium", "high", "xhigh", "max"))
        for provider in ("openai_chat", "openai_responses"):
            self.assertEqual(capabilities(provider).reasoning_efforts, ("none", "minimal", "low", "medium", "high", "xhigh", "max"))

    def test_gemini_takes_a_thinking_level_or_a_budget_not_both(self) -> None:
        with self.assertRaises(ValueError) as caught:
            body_of(gemini, settings=ModelSettings(reasoning_effort="low", reasoning_budget=1024))
        self.assertIn("ModelSettings.reasoning_effort", str(caught.exception))
        self.assertIn("ModelSettings.reasoning_budget", str(caught.exception))
        self.assertIn("Gemini", str(caught.exception))
        both = body_of(anthropic, settings=ModelSettings(reasoning_effort="low", reasoning_budget=1024))  # Anthropic takes both
        self.assertEqual((both["output_config"], both["thinking"]["budget_tokens"]), ({"effort": "low"}, 1024))

    def test_parallel_calls_go_only_beside_tools(self) -> None:
        for module in (anthropic, openai_chat, openai_responses):
            with self.subTest(module.__name__):
                body = json.loads(module.http_request(ITEMS, model="m", max_tokens=5, settings=ModelSettings(parallel_tool_calls=False)).body)
                self.assertNotIn("parallel_tool_calls", body)
                self.assertNotIn("tool_choice", body)
                self.assertEqual(module.request_from_items(ITEMS, settings=ModelSettings(parallel_tool_calls=True)),
                                 module.request_from_items(ITEMS))

    def test_parallel_calls_and_the_tool_choice_agree_or_are_refused(self) -> None:
        spec = ToolSpec("f", "F", {"type": "object"})
        for module in (anthropic, openai_chat, openai_responses):
            with self.subTest(module.__name__):
                same = body_of(module, tools=[spec], tool_choice=ToolChoice.auto(parallel=False),
                               settings=ModelSettings(parallel_tool_calls=False))
                self.assertEqual(module.tool_choice_from_request(same), ToolChoice.auto(parallel=False))
                with self.assertRaises(ValueError):
                    body_of(module, tools=[spec], tool_choice=ToolChoice.auto(parallel=True),
                            settings=ModelSettings(parallel_tool_calls=False))
        required = body_of(anthropic, tools=[spec], tool_choice=ToolChoice.required(), settings=ModelSettings(parallel_tool_calls=False))
        self.assertEqual(required["tool_choice"], {"type": "any", "disable_parallel_tool_use": True})


class NativeFieldsTest(unittest.TestCase):
    def test_native_fields_still_pass_and_join_the_settings(self) -> None:
        body = body_of(gemini, settings=ModelSettings(temperature=0.5), generationConfig={"candidateCount": 1}, safetySettings=[])
        self.assertEqual(body["generationConfig"], {"temperature": 0.5, "candidateCount": 1})
        self.assertEqual(body["safetySettings"], [])
        body = body_of(openai_responses, settings=ModelSettings(reasoning_effort="low"), reasoning={"summary": "auto"})
        self.assertEqual(body["reasoning"], {"effort": "low", "summary": "auto"})
        self.assertEqual(body_of(anthropic, max_tokens=9)["max_tokens"], 9)

    def test_the_same_setting_twice_is_refused(self) -> None:
        for module, native in ((anthropic, {"max_tokens": 5}), (openai_chat, {"temperature": 1}),
                               (openai_responses, {"reasoning": {"effort": "low"}}),
                               (gemini, {"generationConfig": {"temperature": 1}})):
            setting = {"max_tokens": 5} if module is anthropic else {"temperature": 1} if module in (openai_chat, gemini) else {"reasoning_effort": "low"}
            with self.subTest(module.__name__), self.assertRaises(ValueError) as caught:
                body_of(module, settings=ModelSettings(**setting), **native)
            self.assertIn(f"ModelSettings.{next(iter(setting))}", str(caught.exception))

    def test_a_native_field_spelled_otherwise_than_the_settings_write_it_is_refused(self) -> None:
        with self.assertRaises(ValueError) as caught:
            body_of(gemini, settings=ModelSettings(temperature=0.5), generation_config={"candidateCount": 2})
        self.assertIn("generationConfig", str(caught.exception))
        self.assertEqual(body_of(gemini, generation_config={"candidateCount": 2})["generation_config"], {"candidateCount": 2})

    def test_a_native_field_the_transcript_or_tools_write_is_refused(self) -> None:
        """The newcomer's finding: ``system="..."`` dropped the SYSTEM item, ``messages=[]`` the whole conversation."""
        fields = {anthropic: ("system", "messages"), openai_chat: ("messages",),
                  openai_responses: ("input", "instructions"), gemini: ("contents", "systemInstruction", "system_instruction")}
        for module, names in fields.items():
            for name in names:
                with self.subTest(module.__name__, field=name), self.assertRaises(ValueError) as caught:
                    body_of(module, **{name: []})
                self.assertIn(name, str(caught.exception))
        for module, names in fields.items():  # also when the transcript holds no system item
            for name in names:
                with self.subTest(module.__name__, field=name, system=False), self.assertRaises(ValueError) as caught:
                    module.http_request([Item.text(ItemKind.USER, "Hi")], model="m", max_tokens=5, **{name: "Be brief."})
                self.assertIn(name, str(caught.exception))
        with self.assertRaises(ValueError):
            body_of(gemini, tools=[ToolSpec("f", "F", {"type": "object"})], tool_choice=ToolChoice.auto(), toolConfig={})

    def test_an_anthropic_request_without_max_tokens_is_refused(self) -> None:
        with self.assertRaises(ValueError) as caught:
            anthropic.http_request(ITEMS, model="claude-sonnet-4-5")
        self.assertIn("max_tokens", str(caught.exception))
        self.assertIn("ModelSettings(max_tokens=", str(caught.exception))


class HeadersTest(unittest.TestCase):
    def test_headers_are_http_headers_not_body_fields(self) -> None:
        """The newcomer's finding: ``headers={"anthropic-beta": ...}`` went into the body as a JSON field."""
        request = anthropic.http_request(ITEMS, model="m", max_tokens=5, api_key="sk-x", headers={"anthropic-beta": "b-1"})
        self.assertEqual(request.header("anthropic-beta"), "b-1")
        self.assertNotIn("headers", json.loads(request.body))
        self.assertEqual(request.header("x-api-key"), "sk-x")
        chat = openai_chat.http_request(ITEMS, model="m", headers={"OpenAI-Organization": "org-1"})
        self.assertEqual(chat.header("openai-organization"), "org-1")

    def test_the_providers_own_headers_are_not_replaced_by_accident(self) -> None:
        cases = ((anthropic, "X-Api-Key"), (anthropic, "anthropic-version"), (openai_chat, "authorization"),
                 (openai_responses, "Authorization"), (gemini, "x-goog-api-key"), (gemini, "Content-Type"))
        for module, name in cases:
            with self.subTest(module.__name__, header=name), self.assertRaises(ValueError) as caught:
                module.http_request(ITEMS, model="m", api_key="sk-secret", max_tokens=5, headers={name: "mine"})
            self.assertIn("dataclasses.replace", str(caught.exception))
            self.assertNotIn("sk-secret", str(caught.exception))
        # Without a key the request has no auth header: a gateway's own may go.
        own = anthropic.http_request(ITEMS, model="m", max_tokens=5, headers={"Authorization": "Bearer gw"})
        self.assertEqual(own.header("authorization"), "Bearer gw")
        # On purpose: replace the built request's headers.
        request = anthropic.http_request(ITEMS, model="m", max_tokens=5)
        dated = replace(request, headers=[(k, "2025-01-01" if k == "anthropic-version" else v) for k, v in request.headers])
        self.assertEqual(dated.header("anthropic-version"), "2025-01-01")

    def test_headers_are_checked(self) -> None:
        with self.assertRaises(ValueError):
            openai_chat.http_request(ITEMS, model="m", headers={"bad name": "x"})
        with self.assertRaises(ValueError):
            openai_chat.http_request(ITEMS, model="m", headers={"x-a": "line\nbreak"})
        with self.assertRaises(TypeError):
            openai_chat.http_request(ITEMS, model="m", headers={"x-a": 1})  # type: ignore[dict-item]
        with self.assertRaises(TypeError):
            openai_chat.http_request(ITEMS, model="m", headers=[("x-a", "1")])  # type: ignore[arg-type]



class ConflictTests(unittest.TestCase):
    """Settings an API refuses together are refused when the request is built, naming both and who set each."""

    def refused(self, module: Any, *named: str, build: Any = None, **kw: Any) -> None:
        for how in ("http_request", "request_from_items") if build is None else (build,):
            if how == "request_from_items" and set(kw) - {"settings", "tools", "tool_choice"}:
                continue  # native fields go only to http_request
            with self.subTest(module=module.__name__, how=how, kw=kw):
                with self.assertRaises(ValueError) as caught:
                    if how == "http_request":
                        module.http_request(ITEMS, model="m", **kw)
                    else:
                        module.request_from_items(ITEMS, **kw)
                for words in named:
                    self.assertIn(words, str(caught.exception))

    def test_anthropic_thinking(self) -> None:
        self.refused(anthropic, "ModelSettings.max_tokens (100)", "ModelSettings.reasoning_budget (thinking.budget_tokens: 2048)",
                     "more than the thinking budget", "Anthropic", settings=ModelSettings(max_tokens=100, reasoning_budget=2048, temperature=0.3))
        self.refused(anthropic, "ModelSettings.max_tokens (2048)", settings=ModelSettings(max_tokens=2048, reasoning_budget=2048))
        self.refused(anthropic, "the native field max_tokens (100)", "ModelSettings.reasoning_budget",
                     settings=ModelSettings(reasoning_budget=2048), max_tokens=100)
        self.refused(anthropic, "ModelSettings.temperature (0.3)", "ModelSettings.reasoning_budget", "temperature cannot be changed",
                     settings=ModelSettings(max_tokens=4096, reasoning_budget=2048, temperature=0.3))
        self.refused(anthropic, "the native field top_k (5)", settings=ModelSettings(max_tokens=4096, reasoning_budget=2048), top_k=5)
        self.refused(anthropic, "ModelSettings.top_p (0.9)", "from 0.95 to 1", settings=ModelSettings(max_tokens=4096, reasoning_budget=2048, top_p=0.9))
        self.refused(anthropic, "the native field temperature (0)", 'the native field thinking.type ("adaptive")',
                     settings=ModelSettings(max_tokens=4096), thinking={"type": "adaptive"}, temperature=0)
        self.refused(anthropic, 'the tool choice tool_choice.type ("tool")', "forced tool choice",
                     settings=ModelSettings(max_tokens=4096, reasoning_budget=2048), tools=[SPEC], tool_choice=ToolChoice.tool(SPEC.name))
        self.refused(anthropic, 'tool_choice.type ("any")', settings=ModelSettings(max_tokens=4096, reasoning_budget=2048), tools=[SPEC],
                     tool_choice=ToolChoice.required())
        # What the API takes while thinking: temperature 1, top_p from 0.95, auto choice; and anything without thinking.
        fine = [
            dict(settings=ModelSettings(max_tokens=4096, reasoning_budget=2048, temperature=1, top_p=0.95), tools=[SPEC],
                 tool_choice=ToolChoice.auto()),
            dict(settings=ModelSettings(max_tokens=100, temperature=0.3, top_p=0.5), top_k=5, tools=[SPEC], tool_choice=ToolChoice.required()),
            dict(settings=ModelSettings(max_tokens=100, temperature=0.3), thinking={"type": "disabled"}),
        ]
        for kw in fine:
            with self.subTest(kw=kw):
                anthropic.http_request(ITEMS, model="m", **kw)  # type: ignore[arg-type]

    def test_bedrock_claude_thinking(self) -> None:
        from agentkit_core.providers import bedrock

        thinking = "ModelSettings.reasoning_budget (additionalModelRequestFields.thinking.budget_tokens: 2048)"
        self.refused(bedrock, "ModelSettings.max_tokens (inferenceConfig.maxTokens: 100)", thinking, "Bedrock",
                     settings=ModelSettings(max_tokens=100, reasoning_budget=2048))
        self.refused(bedrock, "ModelSettings.temperature (inferenceConfig.temperature: 0.3)", thinking,
                     settings=ModelSettings(max_tokens=4096, reasoning_budget=2048, temperature=0.3))
        self.refused(bedrock, "the native field additionalModelRequestFields.top_k (5)", settings=ModelSettings(max_tokens=4096, reasoning_budget=2048),
                     additionalModelRequestFields={"top_k": 5})
        self.refused(bedrock, "the tool choice toolConfig.toolChoice", "forced tool choice",
                     settings=ModelSettings(max_tokens=4096, reasoning_budget=2048), tools=[SPEC], tool_choice=ToolChoice.tool(SPEC.name))
        bedrock.http_request(ITEMS, model="m", settings=ModelSettings(max_tokens=4096, reasoning_budget=2048, top_p=0.97), tools=[SPEC],
                             tool_choice=ToolChoice.auto(), api_key="k")
        bedrock.http_request(ITEMS, model="m", settings=ModelSettings(max_tokens=100, temperature=0.3), tools=[SPEC],
                             tool_choice=ToolChoice.required(), api_key="k")

    def test_gemini(self) -> None:
        self.refused(gemini, "ModelSettings.reasoning_effort (generationConfig.thinkingConfig.thinkingLevel", "thinkingBudget (5)",
                     "the native field", settings=ModelSettings(reasoning_effort="low"), generationConfig={"thinkingConfig": {"thinkingBudget": 5}})
        self.refused(gemini, "ModelSettings.output_schema", "the native field generationConfig.responseSchema", "one schema",
                     settings=ModelSettings(output_schema=SCHEMA), generationConfig={"responseSchema": {"type": "OBJECT"}})
        gemini.http_request(ITEMS, model="m", settings=ModelSettings(reasoning_budget=512, temperature=0.1))

    def test_openai_chat(self) -> None:
        self.refused(openai_chat, "ModelSettings.max_tokens (max_completion_tokens: 5)", "the native field max_tokens (9)",
                     settings=ModelSettings(max_tokens=5), max_tokens=9)
        self.refused(openai_chat, "the native field top_logprobs (3)", "the native field logprobs (not set)", top_logprobs=3)
        self.refused(openai_chat, "logprobs (false)", top_logprobs=3, logprobs=False)
        self.refused(openai_chat, "stream_options", "stream (not set)", "streamed", stream_options={"include_usage": True})
        openai_chat.http_request(ITEMS, model="m", top_logprobs=3, logprobs=True, max_tokens=9)
        openai_chat.http_request(ITEMS, model="m", stream=True, stream_options={"include_usage": False})

    def test_openai_responses(self) -> None:
        self.refused(openai_responses, 'the native field previous_response_id ("resp_1")', 'the native field conversation ("conv_1")',
                     previous_response_id="resp_1", conversation="conv_1")
        self.refused(openai_responses, "stream (not set)", stream_options={"include_obfuscation": False})
        openai_responses.http_request(ITEMS, model="m", previous_response_id="resp_1", settings=ModelSettings(max_tokens=5))


if __name__ == "__main__":
    unittest.main()
