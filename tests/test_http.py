"""agentkit_core.http: the request value, the retry rules, error answers, and sending to the suite's loopback server."""

from __future__ import annotations

import gzip
import io
import json
import logging
import os
import pickle
import random
import socket
import subprocess
import sys
import time
import unittest

from agentkit_core import Item, ItemKind, NormalizeError
from agentkit_core.http import ProviderError, Request, Response, TransportError, send
from agentkit_core.http._client import provider_error
from agentkit_core.http._errors import BODY_KEPT
from agentkit_core.http._retry import retry_delay, server_delay, should_retry
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses
from tests.capability import can_serve_loopback, event_loop_test, needs_processes
from tests.loopback import Loopback, Reply, json_reply, sse_reply

KEY = "sk-test-DO-NOT-SHOW-0123456789"


def plain() -> object:
    """The default transport, but with no proxy: the suite talks to 127.0.0.1 only."""
    from agentkit_core.http import SocketTransport

    return SocketTransport(proxies={})


class RequestTest(unittest.TestCase):
    def test_repr_hides_credentials(self) -> None:
        for header in ("x-api-key", "Authorization", "x-goog-api-key", "api-key"):
            request = Request("POST", f"https://user:{KEY}@h.example/v1?key={KEY}&a=1", {header: KEY}, b"{}")
            self.assertNotIn(KEY, repr(request))
            self.assertIn("'***'", repr(request))
            self.assertIn("a=1", repr(request))

    def test_checked_when_made(self) -> None:
        with self.assertRaises(TypeError):
            Request(b"POST", "https://h.example/")  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            Request("post", "https://h.example/")
        for url in ("ftp://h/", "https://", "https:///path", "h.example/v1", "https://h/a b"):
            with self.subTest(url=url), self.assertRaises(ValueError):
                Request("GET", url)
        with self.assertRaises(TypeError):
            Request("POST", "https://h.example/", body="{}")  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            Request("POST", "https://h.example/", {"bad name": "x"})
        with self.assertRaises(ValueError) as caught:
            Request("POST", "https://h.example/", {"x-api-key": KEY + "\r\nX-Injected: 1"})
        self.assertNotIn(KEY, str(caught.exception))

    def test_a_value(self) -> None:
        request = Request("POST", "https://h.example/v1", {"a": "1", "b": "2"}, bytearray(b"{}"))
        self.assertEqual(request.headers, (("a", "1"), ("b", "2")))
        self.assertEqual(request.body, b"{}")
        self.assertEqual(request.header("A"), "1")
        self.assertIsNone(request.header("c"))
        self.assertEqual(pickle.loads(pickle.dumps(request)), request)
        self.assertEqual(hash(request), hash(Request("POST", "https://h.example/v1", [("a", "1"), ("b", "2")], b"{}")))
        with self.assertRaises(AttributeError):
            request.url = "https://other/"  # type: ignore[misc]


class RetryRuleTest(unittest.TestCase):
    def test_which_statuses(self) -> None:
        for status in (408, 409, 429, 500, 502, 503, 504, 529):
            self.assertTrue(should_retry(status, {}), status)
        for status in (400, 401, 403, 404, 413, 422):
            self.assertFalse(should_retry(status, {}), status)
        self.assertTrue(should_retry(400, {"x-should-retry": "true"}))
        self.assertFalse(should_retry(503, {"x-should-retry": "false"}))

    def test_what_the_server_asks(self) -> None:
        self.assertEqual(server_delay({"retry-after-ms": "250"}), 0.25)
        self.assertEqual(server_delay({"retry-after": "3"}), 3.0)
        self.assertEqual(server_delay({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412475.0), 5.0)
        self.assertIsNone(server_delay({"retry-after": "soon"}))
        self.assertIsNone(server_delay({}))
        self.assertEqual(retry_delay({"retry-after": "2"}, 0), 2.0)

    def test_backoff_with_jitter_and_caps(self) -> None:
        rng = random.Random(5)
        for retried, top in ((0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0), (5000, 8.0)):
            for _ in range(50):
                delay = retry_delay({}, retried, rng)
                self.assertTrue(0.75 * top <= delay <= top, (retried, delay))
        for asked in ("0", "61", "-1"):  # not a reasonable ask: the backoff instead
            self.assertLessEqual(retry_delay({"retry-after": asked}, 0, rng), 0.5)


class ProviderErrorTest(unittest.TestCase):
    def test_each_providers_error_body(self) -> None:
        cases = [
            (b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}',
             {}, ("authentication_error", "invalid x-api-key", "req_1")),
            (b'{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
             {"x-request-id": "req_2"}, ("invalid_request_error", "Incorrect API key", "req_2")),
            (b'[{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}]',
             {}, ("INVALID_ARGUMENT", "API key not valid", "")),
            (b"<html>Bad gateway</html>", {"request-id": "r"}, ("", "<html>Bad gateway</html>", "r")),
            (b"", {}, ("", "HTTP 502", "")),
        ]
        for body, headers, (kind, message, rid) in cases:
            with self.subTest(body=body):
                error = provider_error(502, headers, body)
                self.assertEqual((error.error_type, error.message, error.request_id), (kind, message, rid))
                self.assertEqual(error.body, body)
                again = pickle.loads(pickle.dumps(error))
                self.assertEqual((again.status, again.message, str(again)), (502, message, str(error)))

    def test_the_body_is_cut(self) -> None:
        self.assertEqual(len(provider_error(500, {}, b"x" * (BODY_KEPT * 3)).body), BODY_KEPT)


ITEMS = [Item.text(ItemKind.USER, "What's the weather in Paris?")]


class HttpRequestTest(unittest.TestCase):
    def test_each_providers_request(self) -> None:
        cases = [
            (anthropic, "https://api.anthropic.com/v1/messages", "x-api-key", KEY),
            (openai_chat, "https://api.openai.com/v1/chat/completions", "Authorization", "Bearer " + KEY),
            (openai_responses, "https://api.openai.com/v1/responses", "Authorization", "Bearer " + KEY),
            (gemini, "https://generativelanguage.googleapis.com/v1beta/models/m-1:generateContent", "x-goog-api-key", KEY),
        ]
        for module, url, header, value in cases:
            with self.subTest(module.__name__):
                request = module.http_request(ITEMS, model="m-1", api_key=KEY, temperature=0.5)
                self.assertEqual((request.method, request.url), ("POST", url))
                self.assertEqual(request.header(header), value)
                self.assertEqual(request.header("content-type"), "application/json")
                self.assertNotIn(KEY, repr(request))
                body = json.loads(request.body)
                self.assertEqual(body["temperature"], 0.5)
                self.assertNotIn("stream", body)
                transcript = module.request_from_items(ITEMS)
                self.assertEqual({k: body[k] for k in transcript}, transcript)
                self.assertEqual(body.get("model"), None if module is gemini else "m-1")
        self.assertEqual(anthropic.http_request(ITEMS, model="m").header("anthropic-version"), "2023-06-01")
        self.assertIsNone(anthropic.http_request(ITEMS, model="m").header("x-api-key"))

    def test_streaming(self) -> None:
        for module in (anthropic, openai_responses, openai_chat):
            self.assertIs(json.loads(module.http_request(ITEMS, model="m", stream=True).body)["stream"], True)
        chat = json.loads(openai_chat.http_request(ITEMS, model="m", stream=True).body)
        self.assertEqual(chat["stream_options"], {"include_usage": True})
        own = json.loads(openai_chat.http_request(ITEMS, model="m", stream=True, stream_options={"x": 1}).body)
        self.assertEqual(own["stream_options"], {"x": 1})
        streamed = gemini.http_request(ITEMS, model="models/gemini-2.5-flash", stream=True, base_url="http://127.0.0.1:9/v1/")
        self.assertEqual(streamed.url, "http://127.0.0.1:9/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        self.assertNotIn("stream", json.loads(streamed.body))

    def test_refusals(self) -> None:
        with self.assertRaises(ValueError):
            anthropic.http_request(ITEMS, model="a model?")
        with self.assertRaises(TypeError):
            anthropic.http_request(ITEMS, model="m", api_key=b"k")
        with self.assertRaises(ValueError):
            anthropic.http_request(ITEMS, model="m", base_url="api.anthropic.com")
        with self.assertRaises(NormalizeError):
            anthropic.http_request(ITEMS, model="m", temperature=float("nan"))


class SseLinesTest(unittest.TestCase):
    """``events_from_sse`` reads lines without their ends (``iter_lines()``) and async iterables."""

    BODY = 'event: a\ndata: {"a": 1}\n\n: ping\n\ndata: {"b":\ndata: 2}\n\ndata: [DONE]\n\n'

    def test_lines_without_ends(self) -> None:
        lines = self.BODY.split("\n")[:-1]
        self.assertEqual(list(anthropic.events_from_sse(lines)), [{"a": 1}, {"b": 2}])
        self.assertEqual(list(anthropic.events_from_sse([ln.encode() for ln in lines])), [{"a": 1}, {"b": 2}])
        self.assertEqual(list(anthropic.events_from_sse(["event: x", 'data: {"c": 3}'])), [{"c": 3}])
        self.assertEqual(list(anthropic.events_from_sse([ln + "\n" for ln in lines])), [{"a": 1}, {"b": 2}])

    def test_lines_come_out_as_their_event_ends(self) -> None:
        seen: list[str] = []

        def lines():  # type: ignore[no-untyped-def]
            for line in ['data: {"a": 1}', "", 'data: {"b": 2}', ""]:
                seen.append(line)
                yield line

        events = anthropic.events_from_sse(lines())
        self.assertEqual(next(events), {"a": 1})
        self.assertEqual(len(seen), 2)  # not a line more than the event needed

    @event_loop_test
    async def test_async_iterables(self) -> None:
        async def pieces(parts):  # type: ignore[no-untyped-def]
            for part in parts:
                yield part

        chunks = [self.BODY[i : i + 5].encode() for i in range(0, len(self.BODY), 5)]
        for parts in (chunks, self.BODY.split("\n")[:-1]):
            events = [event async for event in gemini.events_from_sse(pieces(parts))]
            self.assertEqual(events, [{"a": 1}, {"b": 2}])


class DefaultTransportTest(unittest.TestCase):
    def test_webassembly_says_it_has_no_sockets(self) -> None:
        from unittest import mock

        request = Request("GET", "https://h.example/", {"x-api-key": KEY})
        with mock.patch.object(sys, "platform", "emscripten"), self.assertRaises(TransportError) as caught:
            send(request)
        self.assertIn("no network sockets", str(caught.exception))
        self.assertIn("transport", str(caught.exception))


class FakeExchange:
    """An exchange that plays a scripted answer from memory: the transport protocol, no sockets."""

    def __init__(self, status: int, headers: list[tuple[str, str]], chunks: list[bytes]) -> None:
        self.answer = (status, headers)
        self.chunks = list(chunks)
        self.aborted = self.closed = False

    def start(self) -> tuple[int, list[tuple[str, str]]]:
        return self.answer

    def read(self, size: int) -> bytes:
        if self.aborted:
            return b""  # what an aborted socket gives: it must not pass for the end
        return self.chunks.pop(0)[:size] if self.chunks else b""

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.closed = True


class FakeTransport:
    def __init__(self, *answers: tuple[int, list[tuple[str, str]], list[bytes]]) -> None:
        self.answers = list(answers)
        self.made: list[FakeExchange] = []

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> FakeExchange:
        self.made.append(FakeExchange(*self.answers[min(len(self.made), len(self.answers) - 1)]))
        return self.made[-1]


class TransportProtocolTest(unittest.TestCase):
    """``send`` over a transport of the caller's: what httpx, requests or fetch would plug in (runs in Pyodide too)."""

    REQUEST = Request("POST", "https://h.example/v1/messages", {"x-api-key": KEY}, b"{}")

    def test_retries_and_events(self) -> None:
        busy = (529, [("retry-after-ms", "1")], [b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'])
        transport = FakeTransport(busy, (200, [("Content-Type", "text/event-stream")], [b'data: {"a": 1}\n', b'\ndata: [DONE]\n\n']))
        with send(self.REQUEST, transport=transport) as response:  # type: ignore[arg-type]
            self.assertEqual(list(response.events()), [{"a": 1}])
        self.assertEqual(len(transport.made), 2)
        self.assertTrue(all(exchange.closed for exchange in transport.made))

    def test_an_aborted_read_is_a_cancellation_not_the_end(self) -> None:
        from agentkit_core import CancellationController, TurnCancelledError

        controller = CancellationController()
        transport = FakeTransport((200, [], [b"data: {}\n\n"] * 3))
        with send(self.REQUEST, cancel=controller, transport=transport) as response:  # type: ignore[arg-type]
            events = response.events()
            next(events)
            controller.interrupt()
            self.assertTrue(transport.made[0].aborted)
            with self.assertRaises(TurnCancelledError):
                next(events)

    def test_an_error_answer(self) -> None:
        transport = FakeTransport((404, [("x-request-id", "r")], [b'{"error":{"message":"no such model","type":"not_found"}}']))
        with self.assertRaises(ProviderError) as caught:
            send(self.REQUEST, transport=transport)  # type: ignore[arg-type]
        self.assertEqual((caught.exception.status, caught.exception.error_type, caught.exception.request_id), (404, "not_found", "r"))
        self.assertEqual(len(transport.made), 1)

    def test_arguments(self) -> None:
        for bad in ({"retries": -1}, {"retries": True}, {"timeout": 0}, {"connect_timeout": "5"}):
            with self.subTest(bad), self.assertRaises(ValueError):
                send(self.REQUEST, transport=FakeTransport((200, [], [])), **bad)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            send(self.REQUEST, cancel=object(), transport=FakeTransport((200, [], [])))  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            send("https://h.example/")  # type: ignore[arg-type]


class ImportTest(unittest.TestCase):
    @needs_processes
    def test_importing_loads_no_network_module(self) -> None:
        code = (
            "import sys; import agentkit_core.http, agentkit_core.providers.anthropic; "
            "print(sorted(m for m in ('socket', 'ssl', 'http.client', 'urllib.request', 'asyncio', 'email') if m in sys.modules))"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.stdout.strip(), "[]", done.stderr)


class SendTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def post(self, server: Loopback, **options: object) -> Response:
        base = server.url().replace("http://", f"http://user:{KEY}@")  # a key in the URL is hidden too
        request = anthropic.http_request(ITEMS, model="m", api_key=KEY, base_url=base, max_tokens=64)
        options.setdefault("transport", plain())
        return send(request, **options)  # type: ignore[arg-type]

    def test_429_with_retry_after_then_200(self) -> None:
        limited = json_reply(429, b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', [("Retry-After", "0.2")])
        with Loopback([limited, json_reply(200, b'{"ok": true}')]) as server:
            start = time.perf_counter()
            with self.post(server) as response:
                self.assertEqual((response.status, response.json()), (200, {"ok": True}))
            self.assertGreaterEqual(time.perf_counter() - start, 0.15)
            self.assertEqual(len(server.requests), 2)
            self.assertEqual(server.requests[0].body, server.requests[1].body)

    def test_500_twice_then_200(self) -> None:
        failed = json_reply(500, b'{"type":"error","error":{"type":"api_error","message":"oops"}}', [("retry-after-ms", "20")])
        with Loopback([failed, failed, json_reply(200, b"{}")]) as server:
            with self.post(server) as response:
                self.assertEqual(response.status, 200)
            self.assertEqual(len(server.requests), 3)

    def test_the_retries_are_bounded(self) -> None:
        failed = json_reply(529, b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', [("retry-after-ms", "10")])
        with Loopback([failed]) as server:
            with self.assertRaises(ProviderError) as caught:
                self.post(server, retries=2)
            self.assertEqual((caught.exception.status, caught.exception.error_type), (529, "overloaded_error"))
            self.assertEqual(len(server.requests), 3)

    def test_401_is_not_retried_and_says_why(self) -> None:
        body = b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
        with Loopback([json_reply(401, body, [("request-id", "req_011")])]) as server:
            with self.assertRaises(ProviderError) as caught:
                self.post(server)
            self.assertEqual(len(server.requests), 1)
            self.assertEqual(server.requests[0].headers["x-api-key"], KEY)  # sent, and nowhere else
        error = caught.exception
        self.assertEqual((error.status, error.error_type, error.message, error.request_id), (401, "authentication_error", "invalid x-api-key", "req_011"))
        self.assertEqual(str(error), "HTTP 401 authentication_error: invalid x-api-key (request id req_011)")
        self.assertNotIn(KEY, repr(error) + str(error) + repr(error.args))

    def test_a_reset_mid_stream_is_not_retried(self) -> None:
        body = open_recording("anthropic", "messages.text_tool_use.sse.txt")
        with Loopback([sse_reply(body, 0.0, pieces=3, reset=True)]) as server:
            with self.post(server) as response, self.assertRaises(TransportError):
                for _ in response.events():
                    pass
            self.assertEqual(len(server.requests), 1)

    def test_a_stall_mid_stream_times_out(self) -> None:
        body = open_recording("anthropic", "messages.text_tool_use.sse.txt")
        with Loopback([sse_reply(body, 0.0, pieces=2, stall=True)]) as server:
            with self.post(server, timeout=0.3) as response:
                start = time.perf_counter()
                with self.assertRaises(TransportError) as caught:
                    for _ in response.events():
                        pass
            self.assertTrue(caught.exception.timed_out)
            self.assertLess(time.perf_counter() - start, 10)
            self.assertEqual(len(server.requests), 1)

    def test_a_server_that_never_answers(self) -> None:
        with Loopback([Reply(never=True)]) as server:
            start = time.perf_counter()
            with self.assertRaises(TransportError) as caught:
                self.post(server, timeout=0.3, retries=1)
            self.assertTrue(caught.exception.timed_out)
            self.assertEqual(caught.exception.retried, 1)
            self.assertEqual(len(server.requests), 2)  # a timeout is retried, as the SDKs do
            self.assertLess(time.perf_counter() - start, 15)

    def test_a_refused_connection(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        request = Request("GET", f"http://127.0.0.1:{port}/", {"x-api-key": KEY})
        with self.assertRaises(TransportError) as caught:
            send(request, retries=0, transport=plain())  # type: ignore[arg-type]
        self.assertIn(f"127.0.0.1:{port}", str(caught.exception))
        self.assertNotIn(KEY, str(caught.exception))

    def test_a_body_of_50_mb(self) -> None:
        block = bytes(range(256)) * 4096  # 1 MiB
        for chunked in (False, True):
            with self.subTest(chunked=chunked), Loopback([Reply(200, (), [block] * 50, chunked=chunked)]) as server:
                with self.post(server) as response:
                    size = sum(len(chunk) for chunk in response.chunks())
                self.assertEqual(size, 50 * len(block))
        with Loopback([Reply(200, (), [block] * 50, chunked=False)]) as server, self.post(server) as response:
            self.assertEqual(response.read()[-len(block):], block)

    def test_gzip_lines_and_headers(self) -> None:
        packed = gzip.compress(b"one\r\ntwo\nthree\rfour")
        reply = Reply(200, [("Content-Encoding", "gzip"), ("X-Request-Id", "r-9")], [packed[:7], packed[7:]])
        with Loopback([reply]) as server, self.post(server) as response:
            self.assertEqual(response.request_id, "r-9")
            self.assertEqual(response.headers["content-encoding"], "gzip")
            self.assertEqual(list(response.lines()), ["one", "two", "three", "four"])
            self.assertNotIn(KEY, repr(response))

    def test_through_a_proxy(self) -> None:
        from agentkit_core.http import SocketTransport

        with Loopback([json_reply(200, b"{}")]) as proxy:
            transport = SocketTransport(proxies={"http": proxy.url()})
            with send(Request("GET", "http://api.example.invalid/v1/models?x=1"), transport=transport) as response:
                self.assertEqual(response.status, 200)
            self.assertEqual(proxy.requests[0].path, "http://api.example.invalid/v1/models?x=1")
        with Loopback([json_reply(407, b"")]) as proxy:
            host, port = proxy.server.server_address[:2]
            transport = SocketTransport(proxies={"https": f"http://user:{KEY}@{host}:{port}"})
            with self.assertRaises(TransportError) as caught:
                send(Request("GET", "https://api.example.invalid/v1"), transport=transport, retries=0)
            self.assertIn("HTTP 407", str(caught.exception))
            self.assertNotIn(KEY, str(caught.exception))
            received = proxy.requests[0]
            self.assertEqual((received.method, received.path), ("CONNECT", "api.example.invalid:443"))
            self.assertTrue(received.headers["Proxy-Authorization"].startswith("Basic "))

    def test_proxies_from_the_environment(self) -> None:
        from unittest import mock

        from agentkit_core.http import SocketTransport

        with Loopback([json_reply(200, b"{}")]) as proxy:
            env = {"http_proxy": proxy.url(), "no_proxy": "bypassed.example"}
            with mock.patch.dict("os.environ", env, clear=False):
                for name in ("HTTP_PROXY", "NO_PROXY"):
                    os.environ.pop(name, None)
                transport = SocketTransport()
                self.assertEqual(transport.proxy_for("http", "api.example.invalid"), proxy.url())
                self.assertIsNone(transport.proxy_for("http", "bypassed.example"))
                self.assertIsNone(transport.proxy_for("https", "api.example.invalid"))

    def test_no_key_in_logs_or_errors(self) -> None:
        failed = json_reply(503, b'{"error":{"message":"down"}}', [("retry-after-ms", "5")])
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        root = logging.getLogger()
        root.addHandler(handler)
        level = root.level
        root.setLevel(logging.DEBUG)
        try:
            with Loopback([failed]) as server, self.assertRaises(ProviderError) as caught:
                self.post(server, retries=1)
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
        shown = stream.getvalue() + str(caught.exception) + repr(caught.exception)
        self.assertIn("retry 1 in", stream.getvalue())
        self.assertNotIn(KEY, shown)


def open_recording(provider: str, name: str) -> bytes:
    from tests import recorded

    return recorded.raw(provider, name)


if __name__ == "__main__":
    unittest.main()
