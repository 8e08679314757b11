"""The four provider projections as one product: the same rules, checked across all of them.

* every provider module, private ones included, imports only the public names
  of the package (and of its public ``http`` module), ``_common``, the
  registry and its own provider's private modules;
* the items decoded from every recording of one provider go to every
  provider's ``request_from_items``: each call sends them or refuses one part
  with ``NormalizeError`` naming it, never sends another provider's metadata or
  opaque reasoning state, and keeps every tool result linked to its call;
* the shared rules are stated once, in the package's docstring, and every module points to them.
"""

from __future__ import annotations

import ast
import base64
import importlib
import inspect
import json
import os
import pkgutil
import random
import re
import sys
import unittest
from types import ModuleType
from typing import Any, Callable, Iterator

import agentkit_core
import agentkit_core._for_providers
import agentkit_core.http
import agentkit_core.providers
from agentkit_core import (
    FINISH_REASON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    CustomPart,
    FilePart,
    FilesOutput,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    NormalizeError,
    Part,
    PartsOutput,
    ReasoningPart,
    ToolCallPart,
    ToolResultPart,
)
from agentkit_core.providers import _common, anthropic, gemini, openai_chat, openai_responses
from tests import recorded
from tests.mutation import ODD_VALUES, outcome

#: The package every provider shares: its helpers, written once.
SHARED = "_common"
#: The providers by name (``providers.complete(model="groq:...")``), beside the folders: it calls the wires by their rows.
BY_NAME = "_by_name"
#: The one private core module the providers may use, and what of it: their internal API (the registry, the body
#: detector, the words of argument errors), in the bottom layer.
CORE_SHARED = {"_for_providers": set(agentkit_core._for_providers.__all__)}
#: Each public provider package, as the registry lists them.
PROVIDER_NAMES = tuple(row.module for row in agentkit_core.providers.PROVIDERS)
#: The private modules every provider package has, named for their role (ARCHITECTURE.md, "Providers").
ROLE_MODULES = ("_request", "_response", "_stream", "_keys", "_tools", "_held", "_http", "_settings", "_complete")


def provider_modules() -> list[str]:
    """The dotted name, under ``agentkit_core.providers``, of every module there."""
    root = agentkit_core.providers
    prefix = root.__name__ + "."
    found = pkgutil.walk_packages(root.__path__, prefix=prefix)  # the full prefix: it imports packages to recurse
    return sorted(m.name[len(prefix):] for m in found)


def _owner(name: str) -> str:
    return name.split(".")[0]


class ImportTest(unittest.TestCase):
    def test_every_module_belongs_to_a_provider(self) -> None:
        names = provider_modules()
        for name in names:
            with self.subTest(name):
                self.assertIn(_owner(name), (*PROVIDER_NAMES, SHARED, BY_NAME), f"{name} belongs to no provider")
                if "." in name:
                    self.assertTrue(name.rpartition(".")[2].startswith("_") or _owner(name) == SHARED, name)
        for public in PROVIDER_NAMES:
            self.assertIn(public, names)

    def test_every_provider_names_its_modules_by_role(self) -> None:
        """Request building, response decoding, stream decoding, keys: the same file names in every folder."""
        names = set(provider_modules())
        for public in PROVIDER_NAMES:
            for role in ROLE_MODULES:
                with self.subTest(public, role=role):
                    self.assertIn(f"{public}.{role}", names)

    def test_only_public_names_common_and_own_private_modules(self) -> None:
        """``from ... import <public names>``, the shared package, ``_for_providers``, the provider's own modules, the stdlib."""
        for name in provider_modules():
            module = importlib.import_module(f"agentkit_core.providers.{name}")
            with self.subTest(name):
                for node in ast.walk(ast.parse(inspect.getsource(module))):
                    # every module sits one package below providers: ``...`` is agentkit_core itself
                    if isinstance(node, ast.ImportFrom) and node.level == 3:
                        names = [a.name for a in node.names]
                        if node.module == "http":  # the package's public HTTP module, by its public names
                            self.assertLessEqual(set(names), set(agentkit_core.http.__all__), names)
                            continue
                        if node.module and node.module.startswith("auth."):  # a public signer of the HTTP layer
                            public = importlib.import_module(f"agentkit_core.{node.module}")
                            self.assertLessEqual(set(names), set(public.__all__), names)
                            continue
                        if node.module in ("auth", "auth.google"):  # the public credentials a cloud's name finds
                            public = importlib.import_module(f"agentkit_core.{node.module}")
                            self.assertLessEqual(set(names), set(public.__all__), names)
                            continue
                        if node.module in CORE_SHARED:  # the providers' internal API module
                            self.assertLessEqual(set(names), CORE_SHARED[node.module], names)
                            continue
                        self.assertIsNone(node.module, "a private core module")  # the package itself
                        self.assertLessEqual(set(names), set(agentkit_core.__all__), names)
                    elif isinstance(node, ast.ImportFrom) and node.level == 2 and name == BY_NAME:
                        # the providers by name sit in providers/ itself: ``..`` is agentkit_core, read by public names
                        public = agentkit_core.__all__ if node.module is None else agentkit_core.http.__all__
                        self.assertIn(node.module, (None, "http"))
                        self.assertLessEqual({a.name for a in node.names}, set(public))
                    elif isinstance(node, ast.ImportFrom) and node.level == 2:
                        self.assertIsNotNone(node.module, "providers/__init__ itself")
                        self.assertEqual(node.module.split(".")[0], SHARED)
                    elif isinstance(node, ast.ImportFrom) and node.level == 1:
                        continue  # its own package (a provider's, or _common) or one of that package's modules
                    elif isinstance(node, ast.ImportFrom):
                        self.assertEqual(node.level, 0)
                        self.assertIsNotNone(node.module)
                        self.assertIn(node.module.split(".")[0], sys.stdlib_module_names)
                    elif isinstance(node, ast.Import):
                        self.assertTrue(all(a.name.split(".")[0] in sys.stdlib_module_names for a in node.names))



# -- the same rules, said the same way ---------------------------------------------------------

#: Sentences of the shared rules, written once in the docstring of ``agentkit_core.providers`` (white space aside).
SHARED_RULES = (
    "``agentkit.provider`` marks every part holding a provider's opaque reasoning state with that provider's name;",
    "The encoder sends its own provider's state and drops every other provider's, which its API would refuse.",
    "Reasoning without ``agentkit.provider`` holds no opaque state: it is sent only when it came from the"
    " encoder's API, and dropped otherwise.",
    "``anthropic.*`` is Anthropic's, ``gemini.*`` Gemini's, ``openai.chat.*`` Chat Completions', and every other"
    " ``openai.*`` key the Responses API's.",
    "``agentkit.finish_reason`` holds the raw finish reason on every assistant item that has one",
    ":func:`finish_reason` says what a raw reason alone means.",
    "``agentkit.tool_name`` is on every tool result of a request that names its tool or answers a call made"
    " earlier in the same request.",
    "An encoder whose API needs an id on every call sends invented ids as it sends any other, so a call and its"
    " result stay linked; one whose API accepts calls without ids withholds them.",
    "Public functions raise only :class:`~agentkit_core.NormalizeError` for input they cannot take,",
    "``request_from_items`` names the part it refuses (``items[i].parts[j]``).",
    "Besides the six functions of every projection: :func:`finish_reason`",
)
#: The headings of the shared rules; each provider module says what each means for its API (errors aside: no
#: module differs there).
RULE_HEADINGS = ("Opaque state.", "Namespaces.", "Finish reasons.", "Tool names.", "Invented ids.", "Extras.")
#: The sentence by which each provider module's docstring points to the shared rules.
POINTER = "The rules every projection keeps are written once, in :mod:`agentkit_core.providers`;"


def _docstring(module: ModuleType) -> str:
    """The module's docstring from its source (present under ``-OO`` too), white space folded."""
    return " ".join((ast.get_docstring(ast.parse(inspect.getsource(module))) or "").split())


class DocstringTest(unittest.TestCase):
    def test_the_package_states_the_shared_rules(self) -> None:
        text = _docstring(agentkit_core.providers)
        for heading in (*RULE_HEADINGS, "Errors."):
            with self.subTest(heading):
                self.assertIn(f"* {heading} ", text)
        for rule in SHARED_RULES:
            with self.subTest(rule=rule[:40]):
                self.assertIn(rule, text)

    def test_every_module_points_to_the_shared_rules(self) -> None:
        for name in PROVIDER_NAMES:
            text = _docstring(importlib.import_module(f"agentkit_core.providers.{name}"))
            with self.subTest(name):
                self.assertIn(POINTER, text)
                after = text[text.index(POINTER):]
                for heading in RULE_HEADINGS:
                    self.assertIn(f"* {heading} ", after, heading)
            for rule in SHARED_RULES:  # said once: a module repeating one has not been trimmed
                with self.subTest(name, rule=rule[:40]):
                    self.assertNotIn(rule, text)

    def test_every_module_has_the_documented_extras(self) -> None:
        for name in PROVIDER_NAMES:
            module = importlib.import_module(f"agentkit_core.providers.{name}")
            with self.subTest(name):
                for extra in ("finish_reason", "usage_from_native", "items_from_response", "items_from_request",
                              "request_from_items", "stream_decoder", "items_from_stream", "events_from_sse"):
                    self.assertIn(extra, module.__all__)
                    self.assertTrue(callable(getattr(module, extra)))
                decoder = module.stream_decoder()
                self.assertIn(type(decoder).__name__, module.__all__)
                self.assertEqual(decoder.finish_all(()), [decoder.finish(())])
                self.assertEqual(inspect.signature(type(decoder).finish_all).parameters.keys(), {"self", "parts"})
                self.assertIsNone(module.finish_reason(None))
                with self.assertRaises(NormalizeError):
                    module.usage_from_native([])


# -- the shared rules ------------------------------------------------------------------------------

def _image_request(provider: str, base64_text: str) -> dict[str, Any]:
    """A native request whose one user message is an inline PNG holding ``base64_text``."""
    url = f"data:image/png;base64,{base64_text}"
    return {
        "anthropic": {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64_text}}]}]},
        "gemini": {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": base64_text}}]}]},
        "openai_chat": {"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]},
        "openai_responses": {"model": "m", "input": [{"type": "message", "role": "user", "content": [
            {"type": "input_image", "image_url": url}]}]},
        "bedrock": {"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": base64_text}}}]}]},
    }[provider]


class CanonicalBase64Test(unittest.TestCase):
    """``_common.data.b64decode``: base64 becomes bytes only when it re-encodes to the very text read."""

    def test_only_canonical_base64_decodes(self) -> None:
        from agentkit_core.providers._common.data import b64decode

        self.assertEqual(b64decode("QQ=="), b"A")
        for text in ("QR==", "QQ", "QQ=", "Q Q==", "QQ==\n", "QUI=x"):  # spare bits set, padding missing, junk
            with self.subTest(text=text):
                self.assertIsNone(b64decode(text))
        self.assertEqual(b64decode("-_8=", urlsafe=True), b"\xfb\xff")
        self.assertIsNone(b64decode("-_9=", urlsafe=True))

    def test_non_canonical_base64_is_written_back_unchanged_by_every_provider(self) -> None:
        for name, module in PROVIDERS.items():
            with self.subTest(name):
                [item] = module.items_from_request(_image_request(name, "QR=="))  # "QR==" decodes to b"A" as "QQ==" does
                self.assertNotIn(InlineBytes(b"A"), [getattr(part, "data", None) for part in item.parts])
                written = json.dumps(module.request_from_items([item]))
                self.assertIn("QR==", written)
                self.assertNotIn("QQ==", written)
                [canonical] = module.items_from_request(_image_request(name, "QQ=="))
                self.assertIn("QQ==", json.dumps(module.request_from_items([canonical])))


# -- what no public function takes -----------------------------------------------------------------

class OddInputTest(unittest.TestCase):
    def test_public_functions_raise_only_normalize_error(self) -> None:
        for name, module in PROVIDERS.items():
            calls: dict[str, Callable[[Any], Any]] = {
                "items_from_response": module.items_from_response,
                "items_from_request": module.items_from_request,
                "request_from_items": module.request_from_items,
                "items_from_stream": module.items_from_stream,
                "events_from_sse": lambda x, m=module: list(m.events_from_sse(x)),
                "feed": lambda x, m=module: m.stream_decoder().feed(x),
                "finish": lambda x, m=module: m.stream_decoder().finish(x),
                "finish_all": lambda x, m=module: m.stream_decoder().finish_all(x),
                "finish_reason": module.finish_reason,
                "usage_from_native": module.usage_from_native,
            }
            for function, call in calls.items():
                for value in ODD_VALUES + ([Item.text(ItemKind.USER, "x"), 3], iter([{"type": 1}])):
                    with self.subTest(f"{name}.{function}", value=repr(value)[:40]):
                        outcome(self, lambda: call(value))

    def test_values_no_json_holds_are_refused_with_their_path(self) -> None:
        """A body someone else parsed is checked whole first; the refusal names where the bad value is."""
        deep: list[Any] = []
        innermost = deep
        for _ in range(200):
            innermost.append([])
            innermost = innermost[0]
        bad_values: list[tuple[Any, str]] = [
            ("\ud800", "lone surrogate"),
            (float("nan"), "NaN and infinities are refused"),
            (b"raw", "Python bytes (not JSON data)"),
            (deep, "nest deeper than 120 levels"),
        ]
        requests = {
            "anthropic": lambda v: {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x", "extra": {"odd key": v}}]}]}]},
            "openai_chat": lambda v: {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "extra": {"odd key": v}}]},
            "openai_responses": lambda v: {"input": [{"role": "user", "content": "hi"}, {"type": "message", "role": "user", "content": [], "extra": {"odd key": v}}]},
            "gemini": lambda v: {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "x", "extra": {"odd key": v}}]}]},
            "bedrock": lambda v: {"messages": [{"role": "user", "content": [{"text": "hi"}]}, {"role": "assistant", "content": [{"text": "x"}], "extra": {"odd key": v}}]},
        }
        where = {
            "anthropic": "['messages'][0]['content'][0]['content'][0]['extra']['odd key']",
            "openai_chat": "['messages'][1]['extra']['odd key']",
            "openai_responses": "['input'][1]['extra']['odd key']",
            "gemini": "['contents'][1]['parts'][0]['extra']['odd key']",
            "bedrock": "['messages'][1]['extra']['odd key']",
        }
        for name in PROVIDERS:  # every row (a row without a request here fails)
            body = requests[name]
            for value, message in bad_values:
                with self.subTest(name, value=repr(value)[:20]):
                    with self.assertRaises(NormalizeError) as caught:
                        PROVIDERS[name].items_from_request(body(value))
                    self.assertIn(message, str(caught.exception))
                    self.assertTrue(caught.exception.path.startswith(where[name]), caught.exception.path[:80])
            with self.subTest(name, value="a key that is not a string"):
                with self.assertRaises(NormalizeError) as caught:
                    PROVIDERS[name].items_from_request(body({1: 2}))
                self.assertEqual(caught.exception.path, where[name])

    def test_cut_off_arguments_follow_finalize_exactly(self) -> None:
        """A call cut short is committed as the fold's ``finalize()`` would show it: same input, same words."""
        from agentkit_core import AppendText, BeginPart, PartId, PartKind, fold_all

        texts = ["", "  ", '{"city": "Par', '{"a": 1}', '{"a": NaN}', '{"a": "\\ud800"}', '{"a": [{"b": 1e999}]}',
                 "[" * 123 + "]" * 123, "[" * 124 + "]" * 124, "[" * 100_000, "not json", '{"a": 1}}']
        for text in texts:
            with self.subTest(text=text[:24]):
                state = fold_all((), [BeginPart(PartId("c"), PartKind.TOOL_CALL), AppendText(PartId("c"), text)])
                (part,) = state.finalize()
                self.assertIsInstance(part, ToolCallPart)
                self.assertEqual(_common.parse_arguments(text), (part.input, dict(part.metadata)))

    def test_an_event_stream_may_be_cut_anywhere(self) -> None:
        body = 'data: {"a": "\u00e9\U0001F600"}\r\n\r\n: comment\ndata: {"b": 1}\n\n'.encode()
        for size in range(1, len(body) + 1):
            chunks = [body[i : i + size] for i in range(0, len(body), size)]
            with self.subTest(size=size):
                self.assertEqual(list(openai_chat.events_from_sse(chunks)), [{"a": "\u00e9\U0001F600"}, {"b": 1}])
        text = 'data: {"a":\r\ndata: 1}\r\n\r\ndata: {"b": 2}\r\n\r\n'
        for cut in range(len(text) + 1):  # an empty piece anywhere, between a CR and its LF included
            with self.subTest(empty_piece_at=cut):
                pieces = [text[:cut], "", text[cut:]]
                self.assertEqual(list(openai_chat.events_from_sse(pieces)), [{"a": 1}, {"b": 2}])

    def test_a_recorded_body_cut_short_gives_a_prefix_of_its_events(self) -> None:
        """A stream cut mid-event (a dropped connection) yields the events that ended, then stops quietly."""
        rng = random.Random(7)
        for name, module in PROVIDERS.items():
            for sse in recorded.names(name, ".sse.txt"):
                body = recorded.raw(name, sse)
                whole = list(module.events_from_sse(body))
                cuts = sorted(rng.sample(range(len(body)), min(60, len(body))))
                for cut in cuts:
                    with self.subTest(sse, cut=cut):
                        events = list(module.events_from_sse(body[:cut]))
                        self.assertEqual(events, whole[: len(events)])
                        self.assertGreaterEqual(len(events), len(list(module.events_from_sse(body[: cut // 2]))))
        with self.assertRaises(NormalizeError):  # an event that ended, yet is not JSON, is still refused
            list(openai_chat.events_from_sse(b'data: {"a": 1}\n\ndata: {"b": \n\n'))
        self.assertEqual(list(openai_chat.events_from_sse(b'data: {"a": 1}\n\ndata: {"b": 2}')), [{"a": 1}, {"b": 2}])


# -- every recording to every provider -------------------------------------------------------------

PROVIDERS = recorded.PROVIDERS
#: Whose opaque reasoning state each provider keeps (``agentkit.provider``); Chat keeps none.
STATE = {"anthropic": "anthropic", "openai_chat": None, "openai_responses": "openai", "gemini": "gemini", "bedrock": "bedrock"}
#: Metadata keys in each provider's namespaces, nested objects' included: a body must never carry another's.
SENTINEL_KEYS = {
    "anthropic": ("anthropic.zz_leak",),
    "openai_chat": ("openai.chat.zz_leak", "openai.chat.function.zz_leak", "openai.chat.audio.zz_leak", "openai.chat.image_url.zz_leak"),
    "openai_responses": ("openai.zz_leak", "openai.part.zz_leak"),
    "gemini": ("gemini.zz_leak", "gemini.content.zz_leak", "gemini.functionCall.zz_leak", "gemini.inlineData.zz_leak"),
    "bedrock": ("bedrock.zz_leak", "bedrock.message.zz_leak"),
}
_PATH = re.compile(r"items\[(\d+)\](?:\.parts\[(\d+)\])?")


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mN4ESv/HwAF+QJkshCkKQAAAABJRU5ErkJggg=="

#: Bodies shaped like the APIs' documentation, for what the recordings do not show: readable and
#: unsigned reasoning, server tools and entries that become custom parts, calls without ids.
DOCUMENTED: dict[str, list[tuple[str, Callable[[ModuleType], list[Item]]]]] = {
    "openai_chat": [
        ("compatible reasoning, an mcp call, an unknown entry", lambda m: m.items_from_request({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "input_video", "video": {"url": "https://v.example/a.mp4"}}]},
            {"role": "assistant", "content": None, "reasoning_content": "Let me think about this one carefully.", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}},
                {"id": "c2", "type": "mcp", "mcp": {"server": "s"}},
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "assistant", "function_call": {"name": "legacy", "arguments": "{}"}},
            {"role": "function", "name": "legacy", "content": "old"},
        ]})),
        ("a response whose call has no id", lambda m: m.items_from_response({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
                {"type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]})),
    ],
    "anthropic": [
        ("server tools", lambda m: m.items_from_response({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
            {"type": "text", "text": "found"},
        ], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}})),
    ],
    "openai_responses": [
        ("readable reasoning and a server tool", lambda m: m.items_from_response({"id": "resp_1", "object": "response", "status": "completed", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking it over."}],
             "content": [{"type": "reasoning_text", "text": "Raw chain of thought."}], "encrypted_content": "gAAAAABencryptedstate0123456789"},
            {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "ok", "annotations": []}]},
        ]})),
        ("inline files of every kind", lambda m: m.items_from_request({"input": [{"role": "user", "content": [
            {"type": "input_text", "text": "Read these."},
            {"type": "input_image", "image_url": "data:image/png;base64," + PNG},
            {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"},
            {"type": "input_file", "filename": "t.csv", "file_data": "data:text/csv;base64,YSxiCjEsMgo="},
        ]}]})),
    ],
    "bedrock": [
        ("media, documents, a JSON tool result with an error, a cache point", lambda m: m.items_from_request({"messages": [
            {"role": "user", "content": [
                {"text": "Look."},
                {"image": {"format": "png", "source": {"bytes": PNG}}},
                {"document": {"format": "txt", "name": "notes", "source": {"text": "plain words"}}},
                {"cachePoint": {"type": "default"}},
            ]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {"a": 1}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "status": "error",
                                                         "content": [{"json": {"error": "no"}}]}}]},
        ]})),
        ("a guardrail's answer with metrics and a trace", lambda m: m.items_from_response({
            "output": {"message": {"role": "assistant", "content": [{"text": "Sorry."}]}}, "stopReason": "guardrail_intervened",
            "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5, "cacheWriteInputTokens": 1},
            "metrics": {"latencyMs": 42}, "trace": {"guardrail": {}}})),
    ],
    "gemini": [
        ("unsigned thoughts and id-less calls", lambda m: m.items_from_response({"responseId": "r1", "candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": [
            {"text": "Considering the options.", "thought": True},
            {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "c2lnbmF0dXJlLW9mLWdlbWluaQ=="},
            {"functionCall": {"name": "f", "args": {"a": 2}}},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        ]}}]})),
    ],
}


def recordings() -> Iterator[tuple[str, str, Callable[[], list[Item]]]]:
    """(provider, file, decode) for every recorded request, response and stream (``.stream.jsonl`` and
    ``.sse.txt``), and the documented bodies."""
    for provider, cases in DOCUMENTED.items():
        for label, make in cases:
            yield provider, label, lambda f=make, m=PROVIDERS[provider]: f(m)
    for provider in PROVIDERS:
        for name in sorted(os.listdir(os.path.join(recorded.ROOT, provider))):
            if name == "README.md":  # the recordings' sources
                continue
            yield provider, name, lambda p=provider, n=name: recorded.items(p, n)


def _each_part(parts: tuple[Part, ...]) -> Iterator[Part]:
    for part in parts:
        yield part
        if isinstance(part, ToolResultPart) and isinstance(part.output, (PartsOutput, FilesOutput)):
            yield from _each_part(tuple(part.output.parts if isinstance(part.output, PartsOutput) else part.output.files))


def secrets(items: list[Item], keeper: str | None) -> set[str]:
    """The opaque state of every provider but ``keeper`` that ``items`` hold (signatures, encrypted content)."""
    found: set[str] = set()
    for item in items:
        for part in _each_part(item.parts):
            owner = part.metadata.get(PROVIDER_KEY)
            if owner is None or owner == keeper:
                continue
            if isinstance(part, ReasoningPart) and isinstance(part.data, InlineText):
                found.add(part.data.value)
            for key in ("gemini.thought_signature", "anthropic.signature"):
                if isinstance(part.metadata.get(key), str):
                    found.add(str(part.metadata[key]))
            if isinstance(part, CustomPart) and isinstance(part.value, dict) and isinstance(part.value.get("encrypted_content"), str):
                found.add(part.value["encrypted_content"])
    return {s for s in found if len(s) >= 16}


def with_sentinels(items: list[Item], keys: tuple[str, ...]) -> list[Item]:
    """``items`` with the metadata ``keys`` on every item and part (nested parts of tool results too)."""
    marks = {key: f"LEAK:{key}" for key in keys}

    def mark(part: Part) -> Part:
        if isinstance(part, ToolResultPart) and isinstance(part.output, PartsOutput):
            part = ToolResultPart(part.call_id, PartsOutput([mark(p) for p in part.output.parts]), is_error=part.is_error, metadata=part.metadata)
        return part.with_metadata(part.metadata.merged(marks))

    return [item.with_parts([mark(p) for p in item.parts]).with_metadata(item.metadata.merged(marks)) for item in items]


def _values(value: Any) -> Iterator[Any]:
    """Every object and array in a JSON value, itself included."""
    if isinstance(value, (dict, list)):
        yield value
        for inner in value.values() if isinstance(value, dict) else value:
            yield from _values(inner)


def _own_kind(kind: str, provider: str) -> bool:
    """Whether a custom part of ``kind`` is ``provider``'s: ``openai.chat.*`` is Chat's, every other ``openai.*`` the Responses API's."""
    if provider == "openai_chat":
        return kind.startswith("openai.chat.")
    if provider == "openai_responses":
        return kind.startswith("openai.") and not kind.startswith("openai.chat.")
    return kind.startswith(provider + ".")


def payloads(items: list[Item]) -> set[bytes]:
    """The bytes of every media and file part held inline: base64 text decoded, a text file's content encoded."""
    found = set()
    for item in items:
        for part in _each_part(item.parts):
            if isinstance(part, (MediaPart, FilePart)):
                if isinstance(part.data, InlineBytes):
                    found.add(part.data.value)
                elif isinstance(part.data, InlineText):
                    text = part.data.value
                    if isinstance(part, FilePart) and (part.mime_type or "text/").startswith("text/"):
                        found.add(text.encode("utf-8"))
                    else:
                        found.add(base64.b64decode(text + "=" * (-len(text) % 4), validate=False))
    return found


def links(items: list[Item]) -> tuple[int, list[int | None]]:
    """How many calls, and for every tool result the ordinal of the call it answers (``None``: no call before it)."""
    calls: list[str] = []
    answers: list[int | None] = []
    for item in items:
        for part in item.parts:
            if isinstance(part, ToolCallPart):
                calls.append(part.id.value)
            elif isinstance(part, ToolResultPart):
                found = [n for n, c in enumerate(calls) if c == part.call_id.value]
                answers.append(found[-1] if found else None)
    return len(calls), answers


class MatrixTest(unittest.TestCase):
    """The items of every recording of provider A, sent to every provider B."""

    def check_send(self, target: str, items: list[Item], what: str) -> None:
        module = PROVIDERS[target]
        try:
            body = module.request_from_items(items)
        except NormalizeError as exc:
            found = _PATH.fullmatch(exc.path) or _PATH.match(exc.path)
            self.assertIsNotNone(found, f"{what}: the error names no item and part: {exc}")
            self.assertIsNotNone(found)
            i, j = int(found[1]), found[2]
            self.assertLess(i, len(items))
            self.assertIsNotNone(j, f"{what}: the error names the item but not the part: {exc}")
            self.assertLess(int(j), len(items[i].parts))
            return
        text = json.dumps(body, ensure_ascii=False)
        for leaked in secrets(items, STATE[target]):
            self.assertNotIn(leaked, text, f"{what}: another provider's opaque state was sent")
        # Another provider's custom parts (its server tools, entries only it knows) are not sent.
        sent = list(_values(body))
        for item in items:
            for part in _each_part(item.parts):
                if isinstance(part, CustomPart) and not _own_kind(part.kind, target) and isinstance(part.value, (dict, list)) and part.value:
                    self.assertNotIn(part.value, sent, f"{what}: another provider's {part.kind} was sent")
        # Another provider's metadata is neither written nor read: with more of it, the body is the same.
        foreign = tuple(k for p, keys in SENTINEL_KEYS.items() if p != target for k in keys)
        self.assertEqual(module.request_from_items(with_sentinels(items, foreign)), body, f"{what}: foreign metadata changed the body")
        back = module.items_from_request(body)
        self.assertEqual(links(back), links(items), f"{what}: calls and results came apart")
        # Inline data means the same to every provider: what comes back is bytes that went out.
        self.assertLessEqual(payloads(back), payloads(items), f"{what}: inline data was changed on the way")

    def test_every_recording_to_every_provider(self) -> None:
        seen = 0
        for source, name, decode in recordings():
            items = decode()
            for target in PROVIDERS:
                with self.subTest(f"{source}/{name} -> {target}"):
                    self.check_send(target, items, f"{source}/{name} -> {target}")
                    seen += 1
        self.assertGreaterEqual(seen, 4 * 80)

    def test_one_transcript_mixing_every_provider(self) -> None:
        mixed: list[Item] = []
        mixed += anthropic.items_from_request(recorded.load("anthropic", "messages.thinking_tool_result_followup.request.json"))
        mixed += anthropic.items_from_response(recorded.load("anthropic", "messages.thinking_tool_result_followup.response.json"))
        for provider, cases in DOCUMENTED.items():
            mixed += [item for _, make in cases for item in make(PROVIDERS[provider])]
        mixed += openai_responses.items_from_request(recorded.load("openai_responses", "responses.function_call_output.request.json"))
        mixed += openai_chat.items_from_request(recorded.load("openai_chat", "chat.tool_result_followup.request.json"))
        mixed += gemini.items_from_request(recorded.load("gemini", "generate_content.parallel_function_calls_turn2.request.json"))
        mixed += gemini.items_from_stream(recorded.load_events("gemini", "stream_generate_content.thinking_text.stream.jsonl"))
        for target in PROVIDERS:
            with self.subTest(target):
                self.check_send(target, mixed, f"mixed -> {target}")

    def test_every_reference_value_is_sent_or_refused(self) -> None:
        """The reference's wire vectors (odd metadata, every part and output shape) through every encoder."""
        seen = 0
        for n, items in recorded.reference_transcripts((ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL)):
            for target, module in PROVIDERS.items():
                seen += 1
                try:
                    module.request_from_items(items)
                except NormalizeError as exc:
                    self.assertRegex(exc.path, r"^items\[0\]\.parts\[\d+\]", f"line {n} -> {target}")
        self.assertGreaterEqual(seen, 4 * 600)

    def test_invented_ids_go_only_to_apis_that_need_ids(self) -> None:
        """Anthropic and both OpenAI APIs need an id on every call: they send invented ones; Gemini withholds them."""
        seen: dict[str, int] = {}
        for source, cases in DOCUMENTED.items():
            for label, make in cases:
                items = make(PROVIDERS[source])
                invented = {p.id.value for i in items for p in i.parts if isinstance(p, ToolCallPart) and p.metadata.get(INVENTED_ID_KEY) is True}
                invented = {i for i in invented if len(i) > 20}  # made up by the adapter (a legacy call's name stands in for none)
                for target, module in PROVIDERS.items():
                    with self.subTest(f"{source}: {label} -> {target}"):
                        text = json.dumps(module.request_from_items(items))
                        for call_id in invented:
                            (self.assertNotIn if target == "gemini" else self.assertIn)(call_id, text)
                seen[source] = seen.get(source, 0) + len(invented)
        self.assertTrue(seen["openai_chat"] and seen["gemini"], seen)

    def test_the_raw_finish_reason_is_on_every_finished_item(self) -> None:
        for source, name, decode in recordings():
            if name.endswith(".request.json"):
                continue
            for item in decode():
                with self.subTest(f"{source}/{name}"):
                    raw = item.metadata.get(FINISH_REASON_KEY)
                    self.assertEqual(raw is None, item.finish_reason is None)
                    if raw is not None:
                        self.assertIsInstance(raw, str)
                        alone = PROVIDERS[source].finish_reason(raw)
                        # The turn's content may say more than the raw reason: a call to answer, a refusal.
                        self.assertIn(item.finish_reason, (alone, FinishReason.TOOL_CALL, FinishReason.BLOCKED))


if __name__ == "__main__":
    unittest.main()
