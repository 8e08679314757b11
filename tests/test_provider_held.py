"""What users hold decodes as the body does; another provider's body is refused.

The SDKs' objects are played by stand-ins replaying the calls recorded in
``tests/sdk_payloads/`` (``tools/sdk_dumps.py`` recorded them with the real
SDKs): ``model_dump(**kwargs)`` and ``to_dict()`` of the ``anthropic`` and
``openai`` SDKs' pydantic models, ``to_json_dict()`` of google-genai's.  No SDK
is imported.
"""

from __future__ import annotations

import base64
import copy
import datetime
import json
import os
import unittest
from types import ModuleType
from typing import Any, Iterator

from agentkit_core import INVENTED_ID_KEY, FinishReason, Item, NormalizeError, providers
from agentkit_core.providers import PROVIDERS as ROWS, anthropic, gemini, openai_chat, openai_responses
from tests import recorded

SDK = os.path.join(os.path.dirname(recorded.ROOT), "sdk_payloads")
MODULES: dict[str, ModuleType] = dict(recorded.PROVIDERS)


def untagged(value: Any) -> Any:
    """A recorded Python-mode dump with its bytes and datetimes back."""
    if isinstance(value, dict):
        if set(value) == {"$bytes"}:
            return base64.b64decode(value["$bytes"])
        if set(value) == {"$datetime"}:
            return datetime.datetime.fromisoformat(value["$datetime"])
        return {k: untagged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untagged(v) for v in value]
    return value


class PydanticModel:
    """An ``anthropic`` or ``openai`` SDK object: it answers the recorded calls, and only those."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self._calls = calls

    def _answer(self, call: str, kwargs: dict[str, Any]) -> Any:
        for recorded_call in self._calls:
            if recorded_call["call"] == call and recorded_call["kwargs"] == kwargs:
                return untagged(copy.deepcopy(recorded_call["value"]))
        raise AssertionError(f"no recorded {call}(**{kwargs})")

    def model_dump(self, **kwargs: Any) -> Any:
        return self._answer("model_dump", kwargs)

    def to_dict(self) -> Any:
        return self._answer("to_dict", {})


class GenaiModel(PydanticModel):
    """A google-genai object: ``to_json_dict()`` where the other SDKs have ``to_dict()``."""

    to_dict = None  # type: ignore[assignment]

    def to_json_dict(self) -> Any:
        return self._answer("to_json_dict", {})


class Dumped:
    """An SDK object known only by the dump the package asks for (an output item inside a request)."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def model_dump(self, **kwargs: Any) -> Any:
        if kwargs != {"exclude_unset": True, "by_alias": True, "mode": "json"}:
            raise AssertionError(kwargs)
        return copy.deepcopy(self._value)


def recordings() -> Iterator[tuple[str, str, Any, Any]]:
    """``(provider, name, the recorded body or events, the recorded SDK calls)`` of every file in ``tests/sdk_payloads``."""
    for provider in sorted(os.listdir(SDK)):
        for name in sorted(os.listdir(os.path.join(SDK, provider))):
            with open(os.path.join(SDK, provider, name), encoding="utf-8") as f:
                doc = json.load(f)
            source = doc["source"].split("/", 1)[1]
            raw = recorded.load_events(provider, source) if source.endswith(".jsonl") else recorded.load(provider, source)
            yield provider, source, raw, doc["calls"]


def model(provider: str, calls: list[dict[str, Any]]) -> PydanticModel:
    return GenaiModel(calls) if provider == "gemini" else PydanticModel(calls)


def decode(provider: str, raw_or_held: Any, stream: bool) -> list[Item]:
    module = MODULES[provider]
    return module.items_from_stream(raw_or_held) if stream else module.items_from_response(raw_or_held)  # type: ignore[no-any-return]


def essentials(items: list[Item]) -> list[Any]:
    """What a dump must give as the body does: text, reasoning, calls, usage, finish reason, ids (invented ids aside)."""
    out = []
    for item in items:
        parts = []
        for part in item.parts:
            d = part.to_dict()
            body = next(iter(d.values()))
            if body.get("metadata", {}).get(INVENTED_ID_KEY):
                body = {k: v for k, v in body.items() if k != "id"}
            parts.append((type(part).__name__, body.get("text"), body.get("name"), body.get("id"), body.get("input"), body.get("data")))
        out.append((item.kind, item.id, item.finish_reason, item.usage.tokens if item.usage else None, parts))
    return out


def null_paths(value: Any, path: str = "") -> set[str]:
    """Where ``value`` holds a null, list indices left out."""
    if value is None:
        return {path}
    if isinstance(value, dict):
        return {p for k, v in value.items() for p in null_paths(v, f"{path}.{k}")}
    if isinstance(value, list):
        return {p for v in value for p in null_paths(v, f"{path}[]")}
    return set()


def wire(items: list[Item]) -> Any:
    return [item.to_dict() for item in items]


class HeldTest(unittest.TestCase):
    def test_every_dump_decodes_as_the_body(self) -> None:
        """Every recorded dump gives the body's text, calls, usage, finish reason and ids, and no null it lacks."""
        seen = 0
        for provider, name, raw, calls in recordings():
            stream = name.endswith(".jsonl")
            want = decode(provider, raw, stream)
            for n, call in enumerate(calls[0] if stream else calls):
                held = [untagged(copy.deepcopy(e[n]["value"])) for e in calls] if stream else untagged(copy.deepcopy(call["value"]))
                with self.subTest(f"{provider}/{name}", call=call["call"], kwargs=call["kwargs"]):
                    got = decode(provider, held, stream)
                    self.assertEqual(essentials(got), essentials(want))
                    self.assertLessEqual(null_paths(wire(got)), null_paths(wire(want)))
                    seen += 1
        self.assertGreaterEqual(seen, 13 * 9)

    def test_an_sdk_object_decodes_as_the_body(self) -> None:
        for provider, name, raw, calls in recordings():
            stream = name.endswith(".jsonl")
            held = [model(provider, c) for c in calls] if stream else model(provider, calls)
            with self.subTest(f"{provider}/{name}"):
                got, want = decode(provider, held, stream), decode(provider, raw, stream)
                if provider == "gemini":  # ids invented afresh, and the SDK drops fields it does not know
                    self.assertEqual(essentials(got), essentials(want))
                    self.assertLessEqual(null_paths(wire(got)), null_paths(wire(want)))
                else:  # the fields the body had, under their wire names: the very body
                    self.assertEqual(got, want)

    def test_a_stream_decoder_takes_sdk_events(self) -> None:
        provider, name, raw, calls = next(r for r in recordings() if r[0] == "anthropic" and r[1].endswith(".jsonl"))
        decoder, by_raw = anthropic.stream_decoder(), anthropic.stream_decoder()
        for event, event_calls in zip(raw, calls):
            self.assertEqual(decoder.feed(model(provider, event_calls)), by_raw.feed(event))
        self.assertEqual(decoder.usage, by_raw.usage)

    def test_usage_from_native_takes_sdk_objects(self) -> None:
        for provider, name, raw, calls in recordings():
            if name.endswith(".jsonl"):
                continue
            key = {"gemini": "usageMetadata", "gemini_snake": "usage_metadata"}.get(provider, "usage")
            dumped = next(c["value"] for c in calls if c["call"] == "model_dump" and c["kwargs"] == {})
            usage_dump = dumped["usage_metadata" if provider == "gemini" else "usage"]
            with self.subTest(f"{provider}/{name}"):
                module = MODULES[provider]
                want = module.usage_from_native(raw[key])
                self.assertEqual(module.usage_from_native(untagged(usage_dump)).tokens, want.tokens)
                self.assertEqual(module.usage_from_native(Dumped(raw[key])), want)

    def test_output_items_held_as_objects_inside_a_request(self) -> None:
        """``input=[*earlier, *response.output]``: the SDK's output items go back as the body's would."""
        body = recorded.load("openai_responses", "responses.reasoning_function_call.response.json")
        raw_request = {"input": [{"role": "user", "content": "hi"}, *body["output"]]}
        held_request = {"input": [{"role": "user", "content": "hi"}, *map(Dumped, body["output"])]}
        self.assertEqual(openai_responses.items_from_request(held_request), openai_responses.items_from_request(raw_request))
        contents = [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "yes", "thoughtSignature": "q83v"}]}]
        held = {"contents": [contents[0], Dumped({"role": "model", "parts": [{"text": "yes", "thoughtSignature": "q83v"}]})]}
        self.assertEqual(gemini.items_from_request(held), gemini.items_from_request({"contents": contents}))

    def test_tools_held_as_objects_read_as_the_body(self) -> None:
        """``tools_from_request`` and ``tool_choice_from_request`` take what users hold, as ``items_from_request`` does."""
        for provider, module in MODULES.items():
            folder = os.path.join(recorded.ROOT, provider)
            for name in sorted(n for n in os.listdir(folder) if n.endswith(".request.json")):
                body = recorded.load(provider, name)
                if "tools" not in body and "tool_choice" not in body and "toolConfig" not in body:
                    continue
                with self.subTest(provider, name=name):
                    tools = body.get("tools", [])
                    held_tools = {**body, "tools": [Dumped(t) for t in tools] if isinstance(tools, list) else Dumped(tools)}
                    self.assertEqual(module.tools_from_request(held_tools), module.tools_from_request(body))
                    self.assertEqual(module.tools_from_request(Dumped(body)), module.tools_from_request(body))
                    self.assertEqual(module.tool_choice_from_request(Dumped(body)), module.tool_choice_from_request(body))

    def test_python_mode_bytes_only_where_the_sdk_has_bytes(self) -> None:
        signed = {"candidates": [{"content": {"role": "model", "parts": [{"text": "a", "thought_signature": b"\xab\xcd\xef"}]}}]}
        raw = {"candidates": [{"content": {"role": "model", "parts": [{"text": "a", "thought_signature": "q83v"}]}}]}
        self.assertEqual(gemini.items_from_response(signed), gemini.items_from_response(raw))
        with self.assertRaises(NormalizeError) as caught:
            gemini.items_from_response({"candidates": [{"content": {"role": "model", "parts": [{"text": b"a"}]}}]})
        self.assertIn("text", caught.exception.path)

    def test_an_object_whose_dump_fails_is_refused(self) -> None:
        class Broken:
            def model_dump(self, **kwargs: Any) -> Any:
                raise RuntimeError("secret detail")

        for module in MODULES.values():
            with self.subTest(module.__name__), self.assertRaises(NormalizeError) as caught:
                module.items_from_response(Broken())
            self.assertIn("Broken", str(caught.exception))
            self.assertNotIn("secret", str(caught.exception))

    def test_the_package_values_are_no_sdk_objects(self) -> None:
        from agentkit_core import TextPart

        with self.assertRaises(NormalizeError):
            anthropic.items_from_response({"type": "message", "content": [TextPart("x")]})


class GeminiSpellingTest(unittest.TestCase):
    """The Gemini API reads snake_case as well as camelCase: a body in either spelling decodes the same."""

    @staticmethod
    def snake(value: Any) -> Any:
        """``value`` with every field name around the contents in snake_case (the contents as they are)."""
        if isinstance(value, dict):
            return {("".join("_" + c.lower() if c.isupper() else c for c in k)): v if k == "content" else GeminiSpellingTest.snake(v)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [GeminiSpellingTest.snake(v) for v in value]
        return value

    def test_either_spelling_decodes_the_same(self) -> None:
        for name in recorded.names("gemini", ".response.json"):
            body = recorded.load("gemini", name)
            with self.subTest(name):
                ids = iter(f"call_{n}" for n in range(1000))
                want = gemini.items_from_response(body, new_call_id=lambda: next(ids))
                ids = iter(f"call_{n}" for n in range(1000))
                self.assertEqual(gemini.items_from_response(self.snake(body), new_call_id=lambda: next(ids)), want)
        # a candidate's own fields alone in snake_case (no top-level field tells)
        candidate = {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finish_reason": "STOP", "avg_logprobs": -0.5}
        [item] = gemini.items_from_response({"candidates": [candidate]})
        self.assertEqual((item.finish_reason, item.metadata["gemini.avgLogprobs"]), (FinishReason.COMPLETED, -0.5))


class RecordingToolTest(unittest.TestCase):
    def test_without_the_sdks_it_says_so_and_writes_nothing(self) -> None:
        import contextlib
        import importlib.util
        import io

        if any(importlib.util.find_spec(name) is not None for name in ("anthropic", "openai")):
            self.skipTest("needs no provider SDK: anthropic or openai is installed here, so the tool would record")
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "sdk_dumps.py")
        spec = importlib.util.spec_from_file_location("sdk_dumps", path)
        self.assertIsNotNone(spec)
        self.assertIsNotNone(spec.loader)
        tool = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tool)
        before = {name: os.path.getmtime(os.path.join(SDK, p, name)) for p in os.listdir(SDK) for name in os.listdir(os.path.join(SDK, p))}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tool.main(), 0)
        self.assertIn("skipped, an SDK is missing", out.getvalue())
        self.assertEqual(before, {name: os.path.getmtime(os.path.join(SDK, p, name)) for p in os.listdir(SDK) for name in os.listdir(os.path.join(SDK, p))})


class OpenAIErrorTest(unittest.TestCase):
    """The SDK's ``BadRequestError.body`` is the inner ``error`` object: it decodes as the wrapped error does."""

    ERROR = {"message": "Invalid 'messages[0].role'", "type": "invalid_request_error", "param": "messages[0].role", "code": None}

    def test_the_error_object_alone(self) -> None:
        for module in (openai_chat, openai_responses):
            with self.subTest(module.__name__):
                alone, wrapped = module.items_from_response(self.ERROR), module.items_from_response({"error": self.ERROR})
                self.assertEqual(alone, wrapped)
                self.assertEqual(alone[0].finish_reason, FinishReason.ERROR)
                self.assertEqual(module.items_from_response(Dumped(self.ERROR)), wrapped)


# -- refuse what is wrong -------------------------------------------------------------------------


def samples() -> Iterator[tuple[str, str, Any]]:
    """``(provider, kind, value)``: every recorded response, request and stream of every provider."""
    for provider in MODULES:
        for suffix, kind in ((".response.json", "response"), (".request.json", "request"), (".stream.jsonl", "stream")):
            for name in recorded.names(provider, suffix):
                value = recorded.load_events(provider, name) if kind == "stream" else recorded.load(provider, name)
                yield provider, kind, value


def call(module: ModuleType, kind: str, value: Any) -> Any:
    return {"response": module.items_from_response, "request": module.items_from_request, "stream": module.items_from_stream}[kind](value)


class RefuseTest(unittest.TestCase):
    NAMES = {row.module: row.display for row in ROWS}  # the registry's names, which the refusals say

    def test_every_mismatched_pair_is_refused_naming_the_provider(self) -> None:
        seen = 0
        for source, kind, value in samples():
            for target, module in MODULES.items():
                if target == source:
                    continue
                with self.subTest(f"{source} {kind} -> {target}"):
                    with self.assertRaises(NormalizeError) as caught:
                        call(module, kind, value)
                    if kind != "stream" or "error" not in str(caught.exception):
                        self.assertIn(self.NAMES[source], str(caught.exception))
                    seen += 1
        self.assertGreaterEqual(seen, 3 * 90)

    def test_a_request_is_no_response(self) -> None:
        for provider, module in MODULES.items():
            request = recorded.load(provider, recorded.names(provider, ".request.json")[0])
            with self.subTest(provider), self.assertRaises(NormalizeError) as caught:
                module.items_from_response(request)
            self.assertIn("request", str(caught.exception))

    def test_an_empty_object_is_refused(self) -> None:
        for provider, module in MODULES.items():
            for kind in ("response", "request"):
                with self.subTest(provider, kind=kind), self.assertRaises(NormalizeError) as caught:
                    call(module, kind, {})
                self.assertIn("empty object", str(caught.exception))
            with self.subTest(provider, kind="event"), self.assertRaises(NormalizeError):
                module.stream_decoder().feed({})

    def test_every_own_recording_is_taken(self) -> None:
        for provider, kind, value in samples():
            with self.subTest(provider, kind=kind):
                self.assertIsInstance(call(MODULES[provider], kind, value), list)

    def test_an_error_body_is_the_providers_own(self) -> None:
        error = {"message": "overloaded", "type": "overloaded_error"}
        for provider, module in MODULES.items():
            body = {"type": "error", "error": error} if provider == "anthropic" else {"error": error}
            with self.subTest(provider):
                self.assertEqual(module.items_from_response(body)[0].finish_reason, FinishReason.ERROR)
                module.items_from_response({"error": error})  # any error body is taken: it names no provider


class DetectTest(unittest.TestCase):
    def test_every_recording_is_detected(self) -> None:
        for provider, kind, value in samples():
            for body in value if kind == "stream" else [value]:
                with self.subTest(provider, kind=kind):
                    self.assertIn(providers.detect(body), (provider, None) if kind == "stream" else (provider,))

    def test_sdk_objects_are_detected(self) -> None:
        for provider, name, _raw, calls in recordings():
            if not name.endswith(".jsonl"):
                with self.subTest(provider, name=name):
                    self.assertEqual(providers.detect(model(provider, calls)), provider)

    def test_what_is_no_body(self) -> None:
        for value in ({}, [], "text", None, 5, {"a": 1}, object()):
            with self.subTest(repr(value)):
                self.assertIsNone(providers.detect(value))


if __name__ == "__main__":
    unittest.main()
