"""Providers by name: ``providers.complete/acomplete/http_request(model="<provider>:<model>")``.

* every name of the registry reaches its wire at its base URL, with what its
  server reads differently (``max_tokens``, OpenRouter's ``reasoning.effort``);
* ``http_request`` reads no environment; ``complete`` reads the name's key and
  base-URL variables, an argument always winning, and refuses a hosted name
  with no key before sending; a local server gets no key it was not given;
* Azure OpenAI is addressed as the openai SDK's ``AzureOpenAI`` addresses it
  (``tools/azure_compare.py`` checks it against the SDK itself);
* unknown names and models without a provider are clear errors, keys never in one.
"""

from __future__ import annotations

import asyncio
import json
import os
import unittest
from typing import Any
from unittest import mock

import agentkit_core.providers as providers
from agentkit_core import Item, ItemKind, ModelSettings, TextPart
from agentkit_core.providers import ENDPOINTS, PRESETS, endpoint
from tests import recorded
from tests.capability import needs_asyncio_run, needs_loopback
from tests.loopback import Loopback, json_reply, sse_reply
from tests.test_http import KEY, plain

HI = [Item(ItemKind.USER, [TextPart("hi")])]
#: Every variable a name reads, so a test's environment holds only what it sets.
VARIABLES = {v for row in ENDPOINTS for v in (*row.key_variables, row.base_url_variable)} | {
    "AZURE_OPENAI_AD_TOKEN", "OPENAI_API_VERSION"}


def environment(**set_: str) -> Any:
    """``os.environ`` with none of the names' variables but ``set_``."""
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    return mock.patch.dict(os.environ, {**env, **set_}, clear=True)


def header(headers: Any, name: str) -> str | None:
    """The value of the header ``name`` (in any case) of a request's pairs or a received dict, or ``None``."""
    pairs = headers.items() if isinstance(headers, dict) else headers
    return next((v for k, v in pairs if k.lower() == name), None)


def body(request: Any) -> dict[str, Any]:
    return json.loads(request.body)  # type: ignore[no-any-return]


class NamesTest(unittest.TestCase):
    def test_every_name_reaches_its_wire_at_its_base_url(self) -> None:
        for row in ENDPOINTS:
            if row.auth != "wire":
                continue
            with self.subTest(row.name):
                request = providers.http_request(HI, model=f"{row.name}:m-1", api_key=KEY, max_tokens=8)
                template = "{" in row.base_url  # a wire's own URL with a region in it (Bedrock's): its module fills it
                self.assertTrue(template or request.url.startswith(row.base_url + "/"), request.url)
                direct = recorded.PROVIDERS[row.wire].http_request(HI, model="m-1", api_key=KEY,
                                                                   base_url=None if template else row.base_url, max_tokens=8)
                self.assertEqual((request.url, request.headers, request.body), (direct.url, direct.headers, direct.body))

    def test_a_wire_has_both_spellings(self) -> None:
        self.assertIs(endpoint("openai_chat"), endpoint("openai-chat"))
        request = providers.http_request(HI, model="openai_responses:gpt-5", api_key=KEY)
        self.assertEqual(request.url, "https://api.openai.com/v1/responses")

    def test_an_unknown_name_lists_the_known_ones(self) -> None:
        with self.assertRaisesRegex(ValueError, r"provider: 'grok' is none of the known names \(anthropic, openai-chat, .*groq"):
            providers.http_request(HI, model="grok:x")
        for model in ("llama3", ":llama3", "groq:"):
            with self.subTest(model), self.assertRaisesRegex(ValueError, r"model: expected '<provider>:<model>'"):
                providers.http_request(HI, model=model)
        with self.assertRaisesRegex(TypeError, "model: expected a string"):
            providers.http_request(HI, model=3)  # type: ignore[arg-type]

    def test_a_model_keeps_its_own_colons(self) -> None:
        request = providers.http_request(HI, model="ollama:llama3.2:3b")
        self.assertEqual(body(request)["model"], "llama3.2:3b")

    def test_presets_write_the_fields_their_servers_read(self) -> None:
        settings = ModelSettings(max_tokens=64, reasoning_effort="low", seed=7)
        cases = {"groq": {"max_completion_tokens": 64, "reasoning_effort": "low", "seed": 7},
                 "deepseek": {"max_tokens": 64, "reasoning_effort": "low", "seed": 7},
                 "mistral": {"max_tokens": 64, "reasoning_effort": "low", "random_seed": 7},
                 "openrouter": {"max_tokens": 64, "reasoning": {"effort": "low"}, "seed": 7}}
        for name, expected in cases.items():
            with self.subTest(name):
                sent = body(providers.http_request(HI, model=f"{name}:m", settings=settings))
                self.assertEqual({k: v for k, v in sent.items() if k not in ("model", "messages")}, expected)
        joined = body(providers.http_request(HI, model="openrouter:m", settings=settings, reasoning={"exclude": True}))
        self.assertEqual(joined["reasoning"], {"exclude": True, "effort": "low"})
        with self.assertRaisesRegex(ValueError, "max_tokens: Ollama takes ModelSettings.max_tokens in this field"):
            providers.http_request(HI, model="ollama:m", settings=settings, max_tokens=3)
        with self.assertRaisesRegex(ValueError, "'turbo' is no effort level of OpenRouter"):
            providers.http_request(HI, model="openrouter:m", settings=ModelSettings(reasoning_effort="turbo"))

    def test_http_request_reads_no_environment(self) -> None:
        with environment(GROQ_API_KEY=KEY, GROQ_BASE_URL="http://127.0.0.1:9/v1"):
            request = providers.http_request(HI, model="groq:m")
        self.assertEqual(request.url, "https://api.groq.com/openai/v1/chat/completions")
        self.assertIsNone(header(request.headers, "authorization"))

    def test_only_azure_takes_azure_arguments(self) -> None:
        with self.assertRaisesRegex(TypeError, r"azure_ad_token: only Azure's names take it \(groq does not\)"):
            providers.http_request(HI, model="groq:m", azure_ad_token=KEY)

    def test_a_base_url_that_is_no_http_url_is_refused_without_its_text(self) -> None:
        """A key passed where the URL goes, or a password in another scheme's URL, never reaches the error."""
        cases = {KEY: "found text with no scheme (write http:// or https:// in front of a host)",
                 f"ftp://user:{KEY}@files.example/v1": "found a URL of the scheme ftp://",
                 "": "found an empty string"}
        extra: dict[str, dict[str, Any]] = {"anthropic": {"settings": ModelSettings(max_tokens=100)}, "bedrock": {"region": "us-east-1"}}
        for name in ("openai-chat", "openai-responses", "anthropic", "gemini", "groq", "bedrock"):
            for base_url, words in cases.items():
                with self.subTest(name, base_url=base_url[:12]):
                    with self.assertRaises(ValueError) as caught:
                        providers.http_request(HI, model=f"{name}:m", api_key=KEY, base_url=base_url, **extra.get(name, {}))
                    self.assertEqual(str(caught.exception), f"base_url: expected an http:// or https:// URL, {words}")

    def test_the_package_loads_the_functions_on_first_use(self) -> None:
        self.assertIn("complete", dir(providers))
        self.assertIs(providers.complete, providers._by_name.complete)  # type: ignore[attr-defined]
        with self.assertRaises(AttributeError):
            providers.nothing_here  # type: ignore[attr-defined]  # noqa: B018


class AzureTest(unittest.TestCase):
    SITE = "https://res.openai.azure.com"

    def test_deployments_and_api_version_as_the_sdk_sends_them(self) -> None:
        chat = providers.http_request(HI, model="azure:gpt-4o-mini", api_key=KEY, base_url=self.SITE + "/",
                                      api_version="2024-10-21")
        self.assertEqual(chat.url, self.SITE + "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21")
        self.assertEqual(header(chat.headers, "api-key"), KEY)
        self.assertIsNone(header(chat.headers, "authorization"))
        self.assertEqual(body(chat)["model"], "gpt-4o-mini")  # AzureOpenAI keeps it in the body too
        responses = providers.http_request(HI, model="azure-responses:gpt-5", azure_ad_token="entra-" + KEY,
                                           base_url=self.SITE + "/openai", api_version="2025-04-01-preview")
        self.assertEqual(responses.url, self.SITE + "/openai/responses?api-version=2025-04-01-preview")
        self.assertEqual(header(responses.headers, "authorization"), "Bearer entra-" + KEY)
        self.assertNotIn(KEY, repr(chat) + repr(responses))

    def test_no_api_version_is_the_v1_api(self) -> None:
        request = providers.http_request(HI, model="azure:gpt-4o-mini", api_key=KEY, base_url=self.SITE)
        self.assertEqual(request.url, self.SITE + "/openai/v1/chat/completions")

    def test_refusals(self) -> None:
        with self.assertRaisesRegex(ValueError, r"azure: no endpoint: give base_url='https://<resource>.openai.azure.com'$"):
            providers.http_request(HI, model="azure:d", api_key=KEY)
        with self.assertRaisesRegex(ValueError, "api_key, azure_ad_token: give one credential, not both"):
            providers.http_request(HI, model="azure:d", api_key=KEY, azure_ad_token=KEY, base_url=self.SITE)
        with self.assertRaisesRegex(ValueError, "'api-key' is the credential header"):
            providers.http_request(HI, model="azure:d", api_key=KEY, base_url=self.SITE, headers={"API-Key": "x"})
        with self.assertRaisesRegex(ValueError, "base_url: expected the resource's endpoint"):
            providers.http_request(HI, model="azure:d", api_key=KEY, base_url=self.SITE + "/openai?api-version=1")
        with self.assertRaisesRegex(ValueError, "base_url: expected the resource's endpoint") as cm:
            providers.http_request(HI, model="azure:d", base_url=self.SITE + "/openai?api-key=" + KEY)
        self.assertNotIn(KEY, str(cm.exception))  # a key in the refused query is not written into the error

    def test_a_content_filter_answer_reads_as_before(self) -> None:
        from agentkit_core import FinishReason

        item = recorded.items("openai_chat", "chat.content_filter_azure.response.json")[0]
        self.assertIs(item.finish_reason, FinishReason.BLOCKED)


CHAT = "chat.text_content.sse.txt"


@needs_loopback
class CompleteByNameTest(unittest.TestCase):
    def turn(self, server: Loopback, model: str, **kw: Any) -> Item:
        return providers.complete(HI, model=model, transport=plain(), **kw)  # type: ignore[arg-type]

    def test_key_and_base_url_from_the_environment(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(GROQ_API_KEY=KEY, GROQ_BASE_URL=server.url("/openai/v1"), OPENAI_API_KEY="sk-not-groq"):
            answer = self.turn(server, "groq:llama-3.3-70b-versatile")
        self.assertIs(answer.kind, ItemKind.ASSISTANT)
        (received,) = server.requests
        self.assertEqual(received.path, "/openai/v1/chat/completions")
        self.assertEqual(header(received.headers, "authorization"), "Bearer " + KEY)
        self.assertEqual(json.loads(received.body)["model"], "llama-3.3-70b-versatile")

    def test_arguments_win_over_the_environment(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(OPENAI_API_KEY="sk-from-the-environment", OPENAI_BASE_URL="http://127.0.0.1:9/v1"):
            self.turn(server, "openai-chat:gpt-5", api_key=KEY, base_url=server.url("/v1"))
        self.assertEqual(header(server.requests[0].headers, "authorization"), "Bearer " + KEY)

    def test_a_hosted_name_without_a_key_sends_nothing(self) -> None:
        sent: list[Any] = []
        for model, variables in (("groq:m", "GROQ_API_KEY"), ("gemini:m", "GEMINI_API_KEY or GOOGLE_API_KEY"),
                                 ("azure:d", "AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN")):
            with self.subTest(model), environment(AZURE_OPENAI_ENDPOINT="https://r.openai.azure.com"):
                with self.assertRaisesRegex(ValueError, f"no (API key|credential).*set {variables}"):
                    providers.complete(HI, model=model, transport=sent.append)  # type: ignore[arg-type]
        self.assertEqual(sent, [])
        # A server the caller chose (a proxy, a local server) may need no key: sent without one.
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, environment():
            self.turn(server, "openai-chat:m", base_url=server.url("/v1"))
        self.assertIsNone(header(server.requests[0].headers, "authorization"))

    def test_a_local_server_gets_no_key_it_was_not_given(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(OLLAMA_BASE_URL=server.url("/v1"), OPENAI_API_KEY="sk-openai-" + KEY):
            self.turn(server, "ollama:llama3.2")
        self.assertIsNone(header(server.requests[0].headers, "authorization"))
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(VLLM_BASE_URL=server.url("/v1"), VLLM_API_KEY=KEY):
            self.turn(server, "vllm:qwen")
        self.assertEqual(header(server.requests[0].headers, "authorization"), "Bearer " + KEY)

    def test_azure_from_the_environment(self) -> None:
        reply = json_reply(200, recorded.raw("openai_chat", "chat.content_filter_azure.response.json"))
        with Loopback([reply]) as server, environment(AZURE_OPENAI_ENDPOINT=server.url(), AZURE_OPENAI_API_KEY=KEY,
                                                      OPENAI_API_VERSION="2024-10-21"):
            self.turn(server, "azure:gpt-4o", stream=False)
        self.assertEqual(server.requests[0].path, "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21")
        self.assertEqual(header(server.requests[0].headers, "api-key"), KEY)
        with Loopback([reply]) as server, environment(AZURE_OPENAI_ENDPOINT=server.url(), AZURE_OPENAI_API_KEY="sk-x",
                                                      AZURE_OPENAI_AD_TOKEN="entra-" + KEY):
            self.turn(server, "azure:gpt-4o", stream=False)
        self.assertEqual(server.requests[0].path, "/openai/v1/chat/completions")
        self.assertEqual(header(server.requests[0].headers, "authorization"), "Bearer entra-" + KEY)
        self.assertIsNone(header(server.requests[0].headers, "api-key"))

    def test_no_error_shows_a_key(self) -> None:
        for call in (lambda: providers.http_request(HI, model="azure:d", api_key=KEY, azure_ad_token=KEY, base_url="https://r"),
                     lambda: providers.http_request(HI, model="groq:m", api_key=KEY, headers={"Authorization": KEY})):
            with self.assertRaises(ValueError) as caught:
                call()
            self.assertNotIn(KEY, str(caught.exception))

    def test_each_modules_complete_reads_its_own_variables(self) -> None:
        from agentkit_core.providers import anthropic, gemini, openai_chat

        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=server.url("/v1")):
            openai_chat.complete(HI, model="gpt-5", transport=plain())
        self.assertEqual((server.requests[0].path, header(server.requests[0].headers, "authorization")),
                         ("/v1/chat/completions", "Bearer " + KEY))
        stream = recorded.raw("gemini", "stream_generate_content.thinking_text.sse.txt")
        with Loopback([sse_reply(stream)]) as server, environment(GOOGLE_API_KEY=KEY):
            gemini.complete(HI, model="gemini-2.5-flash", base_url=server.url("/v1beta"), transport=plain())
        self.assertEqual(header(server.requests[0].headers, "x-goog-api-key"), KEY)
        sent: list[Any] = []
        refusal = "anthropic: no API key: give api_key=... or set ANTHROPIC_API_KEY"
        with environment(), self.assertRaisesRegex(ValueError, refusal):
            anthropic.complete(HI, model="claude", max_tokens=9, transport=sent.append)  # type: ignore[arg-type]
        self.assertEqual(sent, [])

    def test_stream_by_name(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(DEEPSEEK_API_KEY=KEY, DEEPSEEK_BASE_URL=server.url()):
            with providers.stream(HI, model="deepseek:deepseek-chat", transport=plain()) as s:  # type: ignore[arg-type]
                text = "".join(s.text())
        self.assertEqual(text, s.answer.text_content())
        self.assertTrue(text)
        self.assertEqual(header(server.requests[0].headers, "authorization"), "Bearer " + KEY)
        self.assertEqual(server.requests[0].path, "/chat/completions")

    @needs_asyncio_run
    def test_astream_by_name(self) -> None:
        async def read(url: str) -> str:
            async with providers.astream(HI, model="ollama:llama3.2", base_url=url) as s:
                return "".join([chunk async for chunk in s.text()])

        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, environment():
            text = asyncio.run(read(server.url("/v1")))
        self.assertTrue(text)
        self.assertEqual(server.requests[0].path, "/v1/chat/completions")

    @needs_asyncio_run
    def test_acomplete_by_name(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", CHAT))]) as server, \
                environment(TOGETHER_API_KEY=KEY, TOGETHER_BASE_URL=server.url("/v1")):
            answer = asyncio.run(providers.acomplete(HI, model="together:m", settings=ModelSettings(max_tokens=9)))
        self.assertIs(answer.kind, ItemKind.ASSISTANT)
        self.assertEqual(header(server.requests[0].headers, "authorization"), "Bearer " + KEY)
        self.assertEqual(json.loads(server.requests[0].body)["max_tokens"], 9)


class PresetRowsTest(unittest.TestCase):
    def test_the_docs_and_readme_tables_list_every_name(self) -> None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for page in (os.path.join("docs", "providers.md"), "README.md"):
            with self.subTest(page), open(os.path.join(root, page), encoding="utf-8") as f:
                rows = [line for line in f if line.startswith("| `")]
                self.assertEqual([line.split("`")[1] for line in rows], [row.name for row in ENDPOINTS])
                for line, row in zip(rows, ENDPOINTS, strict=True):
                    self.assertIn(f"`{row.base_url}`" if row.base_url else "the resource's endpoint", line)
                    self.assertIn(f"`{row.key_variables[0]}`", line)


    def test_presets_are_rows_on_a_wire(self) -> None:
        for row in PRESETS:
            with self.subTest(row.name):
                wire = endpoint(row.wire)
                self.assertLessEqual(row.capabilities.settings, wire.capabilities.settings)
                self.assertLessEqual(set(row.capabilities.reasoning_efforts), set(wire.capabilities.reasoning_efforts))
                self.assertTrue(row.base_url_variable.isupper() and all(v.isupper() for v in row.key_variables))
                if row.key_required:
                    self.assertTrue(row.base_url == "" or row.base_url.startswith("https://"), row.base_url)
                else:
                    self.assertTrue(row.base_url.startswith("http://localhost:"), row.base_url)


if __name__ == "__main__":
    unittest.main()
