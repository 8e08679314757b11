"""agentkit_core.auth.google: RS256 on the standard library, the token exchanges, the cache, Application Default Credentials.

The key in ``tests/keys/`` is a test-only key (see its README); ``vectors.json`` holds what google-auth made
once for it, so the package's bytes are checked against the reference without the reference installed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from agentkit_core.auth import CredentialsError
from agentkit_core.auth._rsa import SHA256_DIGEST_INFO, RsaKey
from agentkit_core.auth.google import (
    CLOUD_PLATFORM_SCOPE,
    REFRESH_MARGIN,
    TOKEN_URI,
    AuthorizedUserCredentials,
    MetadataCredentials,
    ServiceAccountCredentials,
    credentials_from_info,
    default_credentials,
    gcloud_credentials_path,
)
from agentkit_core.http import ProviderError
from tests.capability import can_serve_loopback, event_loop_test, needs_threads
from tests.loopback import Loopback, json_reply
from tests.test_http import plain

KEYS = Path(__file__).parent / "keys"
PEM = (KEYS / "test_only_rsa_2048.pem").read_text()
INFO: dict[str, Any] = json.loads((KEYS / "test_only_service_account.json").read_text())
VECTORS: dict[str, Any] = json.loads((KEYS / "vectors.json").read_text())
TOKEN = "ya29.TEST-ONLY-access-token-0123456789"
USER = {"type": "authorized_user", "client_id": "c-1.apps.googleusercontent.com", "client_secret": "TEST-client-secret-0123",
        "refresh_token": "1//TEST-refresh-token-0123456789", "quota_project_id": "billed-project"}
SECRETS = (TOKEN, USER["client_secret"], USER["refresh_token"], PEM.splitlines()[1][:20], PEM.splitlines()[5][:20])


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def token_reply(token: str = TOKEN, expires_in: object = 3599) -> Any:
    return json_reply(200, json.dumps({"access_token": token, "expires_in": expires_in, "token_type": "Bearer"}).encode())


class RsaTest(unittest.TestCase):
    def test_the_signature_verifies_with_the_public_exponent(self) -> None:
        key = RsaKey.from_pem(PEM)
        for message in (b"", b"hello", bytes(range(256)) * 40):
            with self.subTest(size=len(message)):
                signature = key.sign(message)
                self.assertEqual(len(signature), 256)
                digest = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
                expected = b"\x00\x01" + b"\xff" * (256 - len(digest) - 3) + b"\x00" + digest
                self.assertEqual(pow(int.from_bytes(signature, "big"), key.e, key.n).to_bytes(256, "big"), expected)

    def test_the_same_bytes_as_google_auth(self) -> None:
        key = RsaKey.from_pem(PEM)
        self.assertEqual(key.sign(VECTORS["message"].encode()).hex(), VECTORS["signature_hex"])
        # Blinding changes the arithmetic, never the answer: PKCS #1 v1.5 is deterministic.
        self.assertEqual(key.sign(VECTORS["message"].encode()), key.sign(VECTORS["message"].encode()))

    def test_pkcs1_and_pkcs8_are_the_same_key(self) -> None:
        one = RsaKey.from_pem((KEYS / "test_only_rsa_2048_pkcs1.pem").read_text())
        self.assertEqual(one.sign(b"x"), RsaKey.from_pem(PEM).sign(b"x"))

    def test_a_bad_key_is_refused_without_showing_it(self) -> None:
        body = "".join(PEM.splitlines()[1:-1])
        cases = {
            "not pem": "hello",
            "not base64": "-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----\n",
            "cut short": f"-----BEGIN PRIVATE KEY-----\n{body[:400]}\n-----END PRIVATE KEY-----\n",
            "another algorithm": "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n",
            "empty": "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\n",
        }
        for name, text in cases.items():
            with self.subTest(name), self.assertRaises(ValueError) as caught:
                RsaKey.from_pem(text)
            self.assertIn("private key", str(caught.exception))
            self.assertNotIn(body[60:80], str(caught.exception))
        with self.assertRaises(TypeError):
            RsaKey.from_pem(b"bytes")  # type: ignore[arg-type]

    def test_the_key_is_never_shown_or_pickled(self) -> None:
        key = RsaKey.from_pem(PEM)
        self.assertEqual(repr(key), "RsaKey(<2048-bit private key, not shown>)")
        with self.assertRaises(TypeError):
            pickle.dumps(key)


class AssertionTest(unittest.TestCase):
    def test_the_jwt_google_auth_writes(self) -> None:
        credentials = ServiceAccountCredentials(INFO)
        made = credentials.assertion(VECTORS["assertion_time"])
        self.assertEqual(made, VECTORS["assertion"])
        header, claims, signature = made.split(".")
        self.assertEqual(json.loads(unb64(header)), {"typ": "JWT", "alg": "RS256", "kid": INFO["private_key_id"]})
        now = VECTORS["assertion_time"]
        self.assertEqual(json.loads(unb64(claims)), {"iat": now, "exp": now + 3600, "iss": INFO["client_email"], "aud": TOKEN_URI,
                                                     "scope": CLOUD_PLATFORM_SCOPE})
        key = RsaKey.from_pem(PEM)
        recovered = pow(int.from_bytes(unb64(signature), "big"), key.e, key.n).to_bytes(256, "big")
        self.assertTrue(recovered.endswith(hashlib.sha256(f"{header}.{claims}".encode()).digest()))

    def test_the_token_request(self) -> None:
        request = ServiceAccountCredentials({**INFO, "token_uri": "https://t.example/token"})._token_request(1700000000)
        self.assertEqual((request.method, request.url, request.header("content-type")),
                         ("POST", "https://t.example/token", "application/x-www-form-urlencoded"))
        form = parse_qs(request.body.decode())
        self.assertEqual(form["grant_type"], ["urn:ietf:params:oauth:grant-type:jwt-bearer"])
        self.assertEqual(form["assertion"][0].split(".")[1], VECTORS["assertion"].split(".")[1])

    def test_a_bad_file_names_the_field_not_the_secret(self) -> None:
        for name, info in {"no email": {**INFO, "client_email": None}, "bad key": {**INFO, "private_key": "-----BEGIN PRIVATE KEY-----x"},
                           "other type": {**INFO, "type": "external_account"}, "no type": {}}.items():
            with self.subTest(name), self.assertRaises(CredentialsError) as caught:
                credentials_from_info(info, source="key.json")
            self.assertTrue(str(caught.exception).startswith("key.json: "), str(caught.exception))
            for secret in SECRETS:
                self.assertNotIn(secret, str(caught.exception))
        for info in (INFO, USER):  # a token_uri no request can be sent to: refused with the file, not at the first token
            with self.subTest(info["type"]), self.assertRaises(CredentialsError) as caught:
                credentials_from_info({**info, "token_uri": "oauth2.googleapis.com/token"}, source="key.json")
            self.assertTrue(str(caught.exception).startswith("key.json: token_uri: "), str(caught.exception))
        with self.assertRaises(CredentialsError):
            credentials_from_info([], source="key.json")  # type: ignore[arg-type]
        with self.assertRaises(CredentialsError):
            credentials_from_info({**USER, "refresh_token": ""})

    def test_reprs_hide_every_secret(self) -> None:
        for credentials in (ServiceAccountCredentials(INFO), AuthorizedUserCredentials(USER), MetadataCredentials()):
            credentials._held = (TOKEN, time.time() + 3600)
            for secret in SECRETS:
                self.assertNotIn(secret, repr(credentials))
            with self.assertRaises(TypeError):
                pickle.dumps(credentials)


class LoopbackCase(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")


class ExchangeTest(LoopbackCase):
    def test_a_service_account_token_is_fetched_then_kept(self) -> None:
        with Loopback([token_reply()]) as server:
            credentials = ServiceAccountCredentials({**INFO, "token_uri": server.url("/token")})
            self.assertEqual(credentials.token(transport=plain()), TOKEN)  # type: ignore[arg-type]
            self.assertEqual(credentials.token(transport=plain()), TOKEN)  # type: ignore[arg-type]
            self.assertEqual(len(server.requests), 1)
            sent = server.requests[0]
            self.assertEqual((sent.method, sent.path, sent.headers["content-type"]), ("POST", "/token", "application/x-www-form-urlencoded"))
            form = parse_qs(sent.body.decode())
            self.assertEqual(form["grant_type"], ["urn:ietf:params:oauth:grant-type:jwt-bearer"])
            claims = json.loads(unb64(form["assertion"][0].split(".")[1]))
            self.assertLess(abs(claims["iat"] - time.time()), 60)

    def test_a_token_about_to_expire_is_fetched_again(self) -> None:
        with Loopback([token_reply("ya29.first-token-000", int(REFRESH_MARGIN) + 1), token_reply("ya29.second-token-00")]) as server:
            credentials = AuthorizedUserCredentials({**USER, "token_uri": server.url("/token")})
            self.assertEqual(credentials.token(transport=plain()), "ya29.first-token-000")  # type: ignore[arg-type]
            time.sleep(1.2)
            self.assertEqual(credentials.token(transport=plain()), "ya29.second-token-00")  # type: ignore[arg-type]
            form = parse_qs(server.requests[0].body.decode())
            self.assertEqual(form, {"grant_type": ["refresh_token"], "client_id": [USER["client_id"]], "client_secret": [USER["client_secret"]],
                                    "refresh_token": [USER["refresh_token"]], "scope": [CLOUD_PLATFORM_SCOPE]})

    def test_an_error_answer_is_a_provider_error_and_a_bad_answer_shows_nothing(self) -> None:
        error = json_reply(400, b'{"error": "invalid_grant", "error_description": "Bad Request"}')
        with Loopback([error]) as server:
            with self.assertRaises(ProviderError) as caught:
                AuthorizedUserCredentials({**USER, "token_uri": server.url("/token")}).token(transport=plain())  # type: ignore[arg-type]
            self.assertEqual(caught.exception.status, 400)
            for secret in SECRETS:
                self.assertNotIn(secret, str(caught.exception))
        for body in (b'{"token": "ya29.TEST-ONLY-access-token-0123456789"}', b"[]", b'{"access_token": ""}'):
            with self.subTest(body), Loopback([json_reply(200, body)]) as server:
                with self.assertRaises(CredentialsError) as failed:
                    AuthorizedUserCredentials({**USER, "token_uri": server.url("/token")}).token(transport=plain())  # type: ignore[arg-type]
                self.assertIn("no access_token", str(failed.exception))
                self.assertNotIn(TOKEN, str(failed.exception))

    def test_the_metadata_server(self) -> None:
        found = [("Metadata-Flavor", "Google"), ("Content-Type", "application/text")]
        with Loopback([json_reply(200, b"", found), token_reply()]) as server:
            host = server.url("").split("//")[1].rstrip("/")
            credentials = default_credentials({"GCE_METADATA_HOST": host, "CLOUDSDK_CONFIG": "/nonexistent-agentkit"})
            self.assertIsInstance(credentials, MetadataCredentials)
            self.assertEqual(credentials.token(transport=plain()), TOKEN)  # type: ignore[arg-type]
            probe, fetch = server.requests
            self.assertEqual((probe.method, probe.path, probe.headers["metadata-flavor"]), ("GET", "/", "Google"))
            self.assertEqual(fetch.path, "/computeMetadata/v1/instance/service-accounts/default/token?scopes="
                                         "https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform")
            self.assertEqual(fetch.headers["metadata-flavor"], "Google")

    def test_the_machine_s_project(self) -> None:
        found = [("Metadata-Flavor", "Google")]
        with Loopback([json_reply(200, b"", found), json_reply(200, b"my-project\n", found)]) as server:
            credentials = MetadataCredentials(host=server.url("").split("//")[1].rstrip("/"))
            self.assertEqual(credentials.fetch_project(transport=plain()), "my-project")  # type: ignore[arg-type]
            self.assertEqual(credentials.fetch_project(transport=plain()), "my-project")  # type: ignore[arg-type]
            self.assertEqual([r.path for r in server.requests], ["/", "/computeMetadata/v1/project/project-id"])
        with Loopback([json_reply(404, b"{}")]) as server:
            credentials = MetadataCredentials(host=server.url("").split("//")[1].rstrip("/"))
            self.assertIsNone(credentials.fetch_project(transport=plain()))  # type: ignore[arg-type]

    def test_no_metadata_server_says_where_credentials_are_looked_for(self) -> None:
        with Loopback([json_reply(404, b"{}")]) as server:  # an answer without Metadata-Flavor: Google is no metadata server
            credentials = MetadataCredentials(host=server.url("").split("//")[1].rstrip("/"), missing="nothing here")
            for _ in range(2):  # probed once
                with self.assertRaises(CredentialsError) as caught:
                    credentials.token(transport=plain())  # type: ignore[arg-type]
                self.assertIn("no Google credentials found: nothing here", str(caught.exception))
            self.assertEqual(len(server.requests), 1)

    @needs_threads
    def test_threads_share_one_fetch(self) -> None:
        from tests.loopback import Reply

        slow = Reply(200, [("Content-Type", "application/json")], [b'{"access_token": "ya29.shared-token-0",', b' "expires_in": 3600}'], delay=0.2)
        with Loopback([slow]) as server:
            credentials = AuthorizedUserCredentials({**USER, "token_uri": server.url("/token")})
            got: list[str] = []
            threads = [threading.Thread(target=lambda: got.append(credentials.token(transport=plain()))) for _ in range(4)]  # type: ignore[arg-type]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            self.assertEqual(got, ["ya29.shared-token-0"] * 4)
            self.assertEqual(len(server.requests), 1)

    @event_loop_test
    async def test_tasks_share_one_fetch(self) -> None:
        import asyncio

        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        with Loopback([token_reply()]) as server:
            credentials = ServiceAccountCredentials({**INFO, "token_uri": server.url("/token")})
            got = await asyncio.gather(*(credentials.atoken(transport=plain()) for _ in range(3)))  # type: ignore[arg-type]
            self.assertEqual(got, [TOKEN] * 3)
            self.assertEqual(len(server.requests), 1)


class LifetimeTest(unittest.TestCase):
    def test_an_expires_in_int_cannot_read_is_no_lifetime(self) -> None:
        """A string of digits ``int`` refuses (a superscript, more digits than it converts) keeps the token a default time."""
        from tests.test_http import FakeTransport

        for said, kept in (("3600", 3600.0), ("²", 300.0 + REFRESH_MARGIN), ("9" * 5000, 300.0 + REFRESH_MARGIN)):
            body = json.dumps({"access_token": TOKEN, "expires_in": said}).encode()
            credentials = AuthorizedUserCredentials(USER)
            with self.subTest(said[:10]):
                before = time.time()
                self.assertEqual(credentials.token(transport=FakeTransport((200, [("content-type", "application/json")], [body]))), TOKEN)  # type: ignore[arg-type]
                held = credentials._held
                self.assertIsNotNone(held)
                self.assertAlmostEqual(held[1] - before, kept, delta=5)  # type: ignore[index]


class LoopNeverBlockedTest(unittest.TestCase):
    @event_loop_test
    @needs_threads
    async def test_a_thread_fetching_does_not_block_a_loop_asking(self) -> None:
        """A thread's fetch holds the thread lock for as long as its exchange takes; a task's fetch must not wait on it."""
        from tests.test_http import FakeTransport

        started, release = threading.Event(), threading.Event()

        def answer(token: str) -> tuple[int, list[tuple[str, str]], list[bytes]]:
            return 200, [("content-type", "application/json")], [json.dumps({"access_token": token, "expires_in": 3600}).encode()]

        class Blocking(FakeTransport):
            def exchange(self, request: Any, **timeouts: float) -> Any:
                started.set()
                release.wait(5)
                return super().exchange(request, **timeouts)

        credentials = AuthorizedUserCredentials(USER)
        thread = threading.Thread(target=credentials.token, kwargs={"transport": Blocking(answer("ya29.thread-token"))})
        thread.start()
        timer = threading.Timer(3.0, release.set)  # the thread's exchange ends in 3 s whatever happens
        timer.start()
        try:
            self.assertTrue(started.wait(5))
            begun = time.perf_counter()
            token = await credentials.atoken(transport=FakeTransport(answer("ya29.loop-token")))  # type: ignore[arg-type]
            self.assertLess(time.perf_counter() - begun, 2.0)
            self.assertEqual(token, "ya29.loop-token")
        finally:
            release.set()
            timer.cancel()
            thread.join(10)


class DefaultCredentialsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write(self, name: str, info: object) -> str:
        path = os.path.join(self.folder.name, name)
        with open(path, "w") as file:
            json.dump(info, file)
        return path

    def test_the_variable_then_gcloud_then_the_metadata_server(self) -> None:
        account = self.write("sa.json", INFO)
        self.write("application_default_credentials.json", USER)
        env = {"GOOGLE_APPLICATION_CREDENTIALS": account, "CLOUDSDK_CONFIG": self.folder.name}
        found = default_credentials(env)
        self.assertIsInstance(found, ServiceAccountCredentials)
        self.assertEqual(found.project, "agentkit-test-project")
        self.assertIs(default_credentials(env), found)  # the same file, the same object (and token)
        user = default_credentials({"CLOUDSDK_CONFIG": self.folder.name})
        self.assertIsInstance(user, AuthorizedUserCredentials)
        self.assertEqual(user.quota_project, "billed-project")
        machine = default_credentials({"CLOUDSDK_CONFIG": os.path.join(self.folder.name, "none")})
        self.assertIsInstance(machine, MetadataCredentials)
        self.assertEqual((machine.host, machine.probe), ("metadata.google.internal", "169.254.169.254"))  # type: ignore[attr-defined]

    def test_gcloud_s_folder(self) -> None:
        self.assertEqual(gcloud_credentials_path({"CLOUDSDK_CONFIG": "/x"}), os.path.join("/x", "application_default_credentials.json"))
        if os.name != "nt":
            self.assertEqual(gcloud_credentials_path({}),
                             os.path.join(os.path.expanduser("~"), ".config", "gcloud", "application_default_credentials.json"))

    def test_a_file_that_cannot_be_used(self) -> None:
        cases = {"missing": os.path.join(self.folder.name, "nope.json"), "not json": self.write("bad.json", "x")[:-8] + "bad.json",
                 "nested too deep": self.write("deep.json", "x")[:-9] + "deep.json"}
        with open(cases["not json"], "w") as file:
            file.write("{not json")
        with open(cases["nested too deep"], "w") as file:
            file.write("[" * 200_000)
        for name, path in cases.items():
            with self.subTest(name), self.assertRaises(CredentialsError) as caught:
                default_credentials({"GOOGLE_APPLICATION_CREDENTIALS": path})
            self.assertIn(path, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
