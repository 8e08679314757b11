"""Vertex AI: its addressing (project, location, host), the two wires under it, and turns on the loopback server.

The URLs and bodies are checked against google-genai and AnthropicVertex by ``tools/compare_vertex.py``; here,
against what those SDKs were seen to send.  A turn end to end: a fake token endpoint and a fake Vertex endpoint
that checks the Bearer token and the URL.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import unittest
from typing import Any

from agentkit_core import FinishReason, Item, ItemKind, ModelSettings, providers
from agentkit_core.auth.google import AuthorizedUserCredentials, authorized, gcloud_project
from agentkit_core.http import Request, send
from agentkit_core.providers import anthropic, gemini
from agentkit_core.providers._common.vertex import root_url, vertex_base_url
from tests import recorded
from tests.capability import can_serve_loopback, event_loop_test
from tests.loopback import Loopback, json_reply, sse_reply
from tests.test_http import plain

TOKEN = "ya29.TEST-ONLY-vertex-token-0123456789"
ITEMS = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "Hi")]
PUBLISHERS = "https://us-east5-aiplatform.googleapis.com/v1/projects/proj-1/locations/us-east5/publishers/"
USER = {"type": "authorized_user", "client_id": "c-1", "client_secret": "TEST-client-secret-0123", "refresh_token": "1//TEST-refresh-0123456789"}


class AddressTest(unittest.TestCase):
    def test_hosts_by_location(self) -> None:
        self.assertEqual(root_url("us-central1"), "https://us-central1-aiplatform.googleapis.com/v1")
        self.assertEqual(root_url("global"), "https://aiplatform.googleapis.com/v1")
        self.assertEqual(root_url("eu"), "https://aiplatform.eu.rep.googleapis.com/v1")

    def test_project_and_location_from_the_call_the_environment_or_the_credential(self) -> None:
        native: dict[str, Any] = {"project": "p-1", "location": "europe-west4", "safetySettings": []}
        url = vertex_base_url("/publishers/google", "vertex", None, native, None)
        self.assertEqual(url, "https://europe-west4-aiplatform.googleapis.com/v1/projects/p-1/locations/europe-west4/publishers/google")
        self.assertEqual(native, {"safetySettings": []})  # taken out: they are no body fields
        env = {"GOOGLE_CLOUD_PROJECT": "g-p", "GOOGLE_CLOUD_LOCATION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "a-p", "CLOUD_ML_REGION": "us"}
        self.assertEqual(vertex_base_url("/publishers/google", "vertex", None, {}, env),
                         "https://us-east5-aiplatform.googleapis.com/v1/projects/g-p/locations/us-east5/publishers/google")
        self.assertEqual(vertex_base_url("/publishers/anthropic", "vertex-anthropic", None, {}, env),
                         "https://aiplatform.us.rep.googleapis.com/v1/projects/a-p/locations/us/publishers/anthropic")
        self.assertEqual(vertex_base_url("/publishers/google", "vertex", None, {}, {}, lambda: "from-key"),
                         "https://aiplatform.googleapis.com/v1/projects/from-key/locations/global/publishers/google")
        self.assertEqual(vertex_base_url("/publishers/google", "vertex", "http://127.0.0.1:9/v1/", {"project": "p"}, None),
                         "http://127.0.0.1:9/v1/projects/p/locations/global/publishers/google")
        whole = PUBLISHERS + "google"
        self.assertEqual(vertex_base_url("/publishers/google", "vertex", whole + "/", {}, None), whole)

    def test_no_project_and_bad_names(self) -> None:
        with self.assertRaisesRegex(ValueError, r"vertex: no Google Cloud project: give project='...' or set GOOGLE_CLOUD_PROJECT$"):
            vertex_base_url("/publishers/google", "vertex", None, {}, {}, lambda: None)
        with self.assertRaisesRegex(ValueError, r"no Google Cloud project: give project='...'$"):
            vertex_base_url("/publishers/google", "vertex", None, {}, None)
        for native in ({"project": "p", "location": "evil.example/x"}, {"project": "p/../q"}):
            with self.subTest(native), self.assertRaises(ValueError):
                vertex_base_url("/publishers/google", "vertex", None, dict(native), None)
        with self.assertRaises(TypeError):
            vertex_base_url("/publishers/google", "vertex", None, {"project": 3}, None)
        for name in ("vertex", "vertex-anthropic"):  # a base URL that is no string: the wires' TypeError, not AttributeError
            with self.subTest(name), self.assertRaisesRegex(TypeError, r"^base_url: expected a string, found int$"):
                providers.http_request(ITEMS, model=f"{name}:m-1", base_url=5, project="p")


class WireTest(unittest.TestCase):
    def test_anthropic_on_vertex(self) -> None:
        for stream, method in ((False, "rawPredict"), (True, "streamRawPredict")):
            with self.subTest(stream=stream):
                request = anthropic.http_request(ITEMS, model="claude-sonnet-4-5@20250929", base_url=PUBLISHERS + "anthropic", api_key=TOKEN,
                                                 stream=stream, settings=ModelSettings(max_tokens=64))
                self.assertEqual(request.url, PUBLISHERS + f"anthropic/models/claude-sonnet-4-5@20250929:{method}")
                body = json.loads(request.body)
                self.assertNotIn("model", body)
                self.assertEqual(body["anthropic_version"], "vertex-2023-10-16")
                self.assertEqual(body.get("stream"), True if stream else None)
                self.assertEqual(request.header("authorization"), "Bearer " + TOKEN)
                self.assertIsNone(request.header("anthropic-version"))
                self.assertIsNone(request.header("x-api-key"))
                self.assertNotIn(TOKEN, repr(request))
        later = anthropic.http_request(ITEMS, model="m", base_url=PUBLISHERS + "anthropic", max_tokens=8, anthropic_version="vertex-2099-01-01")
        self.assertEqual(json.loads(later.body)["anthropic_version"], "vertex-2099-01-01")
        self.assertIsNone(later.header("authorization"))

    def test_gemini_on_vertex(self) -> None:
        request = gemini.http_request(ITEMS, model="gemini-2.5-flash", base_url=PUBLISHERS + "google", api_key=TOKEN, stream=True)
        self.assertEqual(request.url, PUBLISHERS + "google/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        self.assertEqual(request.header("authorization"), "Bearer " + TOKEN)
        self.assertIsNone(request.header("x-goog-api-key"))
        plain_gemini = gemini.http_request(ITEMS, model="gemini-2.5-flash", api_key=TOKEN)
        self.assertEqual(plain_gemini.header("x-goog-api-key"), TOKEN)


class SignerTest(unittest.TestCase):
    def test_authorized_sets_the_bearer_token_and_the_quota_project(self) -> None:
        request = Request("POST", PUBLISHERS + "google/models/m:generateContent", {"Authorization": "Bearer old-token-0000", "x-a": "1"}, b"{}")
        signed = authorized(request, TOKEN, "billed")
        self.assertEqual(signed.headers, (("x-a", "1"), ("authorization", "Bearer " + TOKEN), ("x-goog-user-project", "billed")))
        self.assertEqual(signed.body, b"{}")
        self.assertEqual(authorized(request, TOKEN).header("x-goog-user-project"), None)

    def test_a_held_token_signs_without_a_fetch(self) -> None:
        credentials = AuthorizedUserCredentials({**USER, "quota_project_id": "q-1"})
        credentials._held = (TOKEN, time.time() + 3600)
        request = Request("POST", "https://h.example/x", (), b"{}")
        self.assertEqual(credentials.signer()(request).header("authorization"), "Bearer " + TOKEN)
        self.assertEqual(credentials.signer()(request).header("x-goog-user-project"), "q-1")

    @event_loop_test
    async def test_the_async_signer(self) -> None:
        credentials = AuthorizedUserCredentials(USER)
        credentials._held = (TOKEN, time.time() + 3600)
        signed = await credentials.async_signer()(Request("POST", "https://h.example/x", (), b"{}"))
        self.assertEqual(signed.header("authorization"), "Bearer " + TOKEN)

    def test_gcloud_s_project(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            self.assertIsNone(gcloud_project({"CLOUDSDK_CONFIG": folder}))
            os.mkdir(os.path.join(folder, "configurations"))
            with open(os.path.join(folder, "configurations", "config_work"), "w") as file:
                file.write("[core]\naccount = me@example.com\nproject = my-project\n")
            with open(os.path.join(folder, "active_config"), "w") as file:
                file.write("work\n")
            self.assertEqual(gcloud_project({"CLOUDSDK_CONFIG": folder}), "my-project")
            self.assertEqual(gcloud_project({"CLOUDSDK_CONFIG": folder, "CLOUDSDK_CORE_PROJECT": "over"}), "over")
            self.assertIsNone(gcloud_project({"CLOUDSDK_CONFIG": folder, "CLOUDSDK_ACTIVE_CONFIG_NAME": "none"}))


def token_reply(token: str = TOKEN) -> Any:
    return json_reply(200, json.dumps({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}).encode())


class TurnTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_a_streamed_gemini_turn_on_vertex(self) -> None:
        body = recorded.raw("gemini", "stream_generate_content.thinking_text.sse.txt")
        with Loopback([sse_reply(body)]) as server:
            base = server.url("/v1/projects/proj-1/locations/us-central1/publishers/google")
            item = gemini.complete(ITEMS, model="gemini-2.5-flash", base_url=base, api_key=TOKEN, transport=plain())  # type: ignore[arg-type]
            sent = server.requests[0]
            self.assertEqual(sent.path, "/v1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
            self.assertEqual(sent.headers["authorization"], "Bearer " + TOKEN)
        self.assertEqual(item.kind, ItemKind.ASSISTANT)
        self.assertEqual(item.finish_reason.kind if item.finish_reason else None, FinishReason.COMPLETED.kind)

    def test_a_token_fetched_for_each_attempt_by_request_auth(self) -> None:
        answer = recorded.raw("anthropic", "messages.thinking_text_tool_use.response.json")
        with Loopback([token_reply("ya29.first-token-0001")]) as tokens, Loopback([json_reply(503, b"{}"), json_reply(200, answer)]) as vertex:
            credentials = AuthorizedUserCredentials({**USER, "token_uri": tokens.url("/token")})
            base = vertex.url("/v1/projects/proj-1/locations/us-east5/publishers/anthropic")
            request = anthropic.http_request(ITEMS, model="claude-sonnet-4-5@20250929", base_url=base, max_tokens=64)
            import dataclasses

            request = dataclasses.replace(request, auth=credentials.signer(transport=plain()))  # type: ignore[arg-type]
            with send(request, transport=plain(), retries=1) as response:  # type: ignore[arg-type]
                self.assertEqual(response.status, 200)
                items = anthropic.items_from_response(response.json())
            self.assertEqual([r.headers.get("authorization") for r in vertex.requests], ["Bearer ya29.first-token-0001"] * 2)
            self.assertEqual(vertex.requests[1].path, "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/"
                                                     "claude-sonnet-4-5@20250929:rawPredict")
            self.assertEqual(len(tokens.requests), 1)  # the token was kept for the retry
        self.assertEqual(items[0].kind, ItemKind.ASSISTANT)


class ByNameTest(unittest.TestCase):
    def test_http_request_by_name(self) -> None:
        from agentkit_core import providers

        gemini_request = providers.http_request(ITEMS, model="vertex:gemini-2.5-flash", project="proj-1", location="us-east5", api_key=TOKEN)
        self.assertEqual(gemini_request.url, PUBLISHERS + "google/models/gemini-2.5-flash:generateContent")
        self.assertEqual(gemini_request.header("authorization"), "Bearer " + TOKEN)
        claude = providers.http_request(ITEMS, model="vertex-anthropic:claude-sonnet-4-5@20250929", project="proj-1", location="us-east5",
                                        max_tokens=8, stream=True)
        self.assertEqual(claude.url, PUBLISHERS + "anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict")
        self.assertIsNone(claude.header("authorization"))  # pure: no credential looked for
        self.assertNotIn("project", json.loads(claude.body))
        with self.assertRaisesRegex(ValueError, r"vertex: no Google Cloud project: give project='...'$"):
            providers.http_request(ITEMS, model="vertex:gemini-2.5-flash")

    def test_the_rows(self) -> None:
        from agentkit_core.providers import endpoint

        for name, wire in (("vertex", "gemini"), ("vertex-anthropic", "anthropic")):
            row = endpoint(name)
            self.assertEqual((row.wire, row.otel_name, row.auth), (wire, "gcp.vertex_ai", "google_vertex"))


class ExportTest(unittest.TestCase):
    def test_opentelemetry_names_vertex(self) -> None:
        from agentkit_core import otel

        items = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "Hi")]
        for name, operation in (("vertex", "generate_content"), ("vertex-anthropic", "chat")):
            with self.subTest(name):
                attributes = otel.span_attributes(items, None, provider=name, request_model="m")
                self.assertEqual((attributes["gen_ai.provider.name"], attributes["gen_ai.operation.name"]), ("gcp.vertex_ai", operation))
                self.assertEqual(len(otel.system_instructions(items, provider=name)), 1)  # both wires take the system prompt apart


class ByNameTurnTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def environment(self, tokens: Loopback, vertex: Loopback, **more: str) -> Any:
        from unittest import mock

        from tests.test_auth_google import INFO
        from tests.test_by_name import VARIABLES

        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        key = os.path.join(folder.name, "key.json")
        with open(key, "w") as file:
            json.dump({**INFO, "token_uri": tokens.url("/token")}, file)
        names = VARIABLES | {"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION", "CLOUDSDK_CONFIG"}
        env = {k: v for k, v in os.environ.items() if k not in names}
        env.update(GOOGLE_APPLICATION_CREDENTIALS=key, GOOGLE_VERTEX_BASE_URL=vertex.url("/v1"), ANTHROPIC_VERTEX_BASE_URL=vertex.url("/v1"),
                   CLOUDSDK_CONFIG=folder.name, **more)
        return mock.patch.dict(os.environ, env, clear=True)

    def test_complete_by_name_with_a_service_account_key(self) -> None:
        from agentkit_core import providers

        body = recorded.raw("gemini", "stream_generate_content.thinking_text.sse.txt")
        with Loopback([token_reply()]) as tokens, Loopback([sse_reply(body)]) as vertex, self.environment(tokens, vertex, GOOGLE_CLOUD_LOCATION="us-east5"):
            item = providers.complete(ITEMS, model="vertex:gemini-2.5-flash", transport=plain())  # type: ignore[arg-type]
            sent = vertex.requests[0]
            # the project is the key's own (project_id), the location the environment's
            self.assertEqual(sent.path, "/v1/projects/agentkit-test-project/locations/us-east5/publishers/google/models/"
                                        "gemini-2.5-flash:streamGenerateContent?alt=sse")
            self.assertEqual(sent.headers["authorization"], "Bearer " + TOKEN)
            self.assertIn("urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", tokens.requests[0].body.decode())
        self.assertIs(item.kind, ItemKind.ASSISTANT)

    @event_loop_test
    async def test_acomplete_by_name_on_anthropic(self) -> None:
        from agentkit_core import providers

        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        body = recorded.raw("anthropic", "messages.thinking_text.sse.txt")
        with Loopback([token_reply("ya29.async-token-0001")]) as tokens, Loopback([sse_reply(body)]) as vertex, \
                self.environment(tokens, vertex, ANTHROPIC_VERTEX_PROJECT_ID="a-proj", CLOUD_ML_REGION="us-east5"):
            item = await providers.acomplete(ITEMS, model="vertex-anthropic:claude-sonnet-4-5@20250929", max_tokens=64,
                                             transport=plain())  # type: ignore[arg-type]
            sent = vertex.requests[0]
            self.assertEqual(sent.path, "/v1/projects/a-proj/locations/us-east5/publishers/anthropic/models/"
                                        "claude-sonnet-4-5@20250929:streamRawPredict")
            self.assertEqual(sent.headers["authorization"], "Bearer ya29.async-token-0001")
            sent_body = json.loads(sent.body)
            self.assertEqual((sent_body["anthropic_version"], "model" in sent_body), ("vertex-2023-10-16", False))
        self.assertIs(item.kind, ItemKind.ASSISTANT)


if __name__ == "__main__":
    unittest.main()
