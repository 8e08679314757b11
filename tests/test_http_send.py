"""Sending to the suite's loopback server: retries, error answers, broken and stalled streams, big bodies, proxies."""

from __future__ import annotations

import gzip
import io
import json
import logging
import os
import socket
import time
import unittest

from agentkit_core.http import ProviderError, Request, Response, TransportError, send
from agentkit_core.providers import anthropic
from tests.capability import can_serve_loopback
from tests.loopback import Loopback, Reply, json_reply, sse_reply
from tests.test_http import ITEMS, KEY, open_recording, plain


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

    def test_a_turn_cut_by_a_reset_closes_as_an_error(self) -> None:
        from agentkit_core import FinishReason, FoldState, fold

        decoder, state = anthropic.stream_decoder(), FoldState()
        body = open_recording("anthropic", "messages.text_tool_use.sse.txt")
        with Loopback([sse_reply(body, 0.0, pieces=3, reset=True)]) as server:
            with self.post(server) as response, self.assertRaises(TransportError):
                for event in response.events():
                    for delta in decoder.feed(event):
                        state = fold(state, delta)
        closed = decoder.close(state, FinishReason.ERROR)
        self.assertEqual(closed.finish_reason, FinishReason.ERROR)
        self.assertTrue(closed.text_content())
        self.assertFalse([call for call in closed.tool_calls() if call.input is None])

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

    def test_tls_is_verified_and_its_handshake_cancellable(self) -> None:
        import ssl
        import threading

        from agentkit_core import CancellationController, TurnCancelledError
        from agentkit_core.http import SocketTransport

        with Loopback([json_reply(200, b"{}")]) as server:  # it speaks plain HTTP: no TLS handshake can succeed
            host, port = server.server.server_address[:2]
            with self.assertRaises(TransportError) as caught:
                send(Request("GET", f"https://{host}:{port}/"), retries=0, connect_timeout=5, timeout=5, transport=plain())  # type: ignore[arg-type]
            self.assertIn("TLS", str(caught.exception))
            controller = CancellationController()
            threading.Timer(0.2, controller.interrupt).start()
            start = time.perf_counter()
            with self.assertRaises((TurnCancelledError, TransportError)):  # the server may answer the hello first
                send(Request("GET", f"https://{host}:{port}/"), cancel=controller, retries=0, transport=plain())  # type: ignore[arg-type]
            self.assertLess(time.perf_counter() - start, 10)
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE
        with self.assertRaises(ValueError):
            SocketTransport(ssl_context=unverified)
        with self.assertRaises(TypeError):
            SocketTransport(ssl_context=object())  # type: ignore[arg-type]

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
        self.assertIn("HTTP 503; attempt 2 of 2 in", stream.getvalue())
        self.assertNotIn(KEY, shown)


    def test_a_server_echoing_the_key_never_shows_it(self) -> None:
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        logger = logging.getLogger("agentkit_core.http")
        logger.addHandler(handler)
        level = logger.level
        logger.setLevel(logging.INFO)
        try:
            with Loopback([Reply(503, [("retry-after-ms", "5")], echo=True), Reply(401, echo=True)]) as server:
                with self.assertRaises(ProviderError) as caught:
                    self.post(server, retries=2)
                self.assertEqual(len(server.requests), 2)  # the 401 is not retried
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        error = caught.exception
        self.assertIn(KEY, json.dumps(json.loads(server.requests[1].body or b"{}")) + server.requests[1].headers["x-api-key"])
        shown = stream.getvalue() + str(error) + repr(error) + error.message + error.body.decode("latin-1") + repr(error.args)
        self.assertNotIn(KEY, shown)
        self.assertIn('"x-api-key": "***"', error.body.decode())  # the echo is there, the key is not
        self.assertEqual(error.retried, 1)
        self.assertIn("(after 2 attempts)", str(error))
        self.assertRegex(stream.getvalue(), r"^POST http://\*\*\*@127\.0\.0\.1:\d+/v1/messages: HTTP 503; attempt 2 of 3 in 0\.01 s\n$")

    def test_retries_are_logged_on_the_package_logger_at_info(self) -> None:
        failed = json_reply(429, b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', [("retry-after-ms", "10")])
        with Loopback([failed, failed, json_reply(200, b"{}")]) as server, self.assertLogs("agentkit_core.http", "INFO") as logs:
            with self.post(server) as response:
                self.assertEqual(response.status, 200)
        self.assertEqual(len(logs.records), 2)
        self.assertEqual([r.levelno for r in logs.records], [logging.INFO] * 2)
        self.assertIn("HTTP 429 rate_limit_error; attempt 2 of 3 in 0.01 s", logs.output[0])
        self.assertIn("attempt 3 of 3", logs.output[1])
        self.assertNotIn("slow down", "".join(logs.output))  # no body

    def test_a_non_ascii_path_goes_out_as_utf8(self) -> None:
        with Loopback([Reply(echo=True)]) as server:
            with send(Request("GET", server.url("/echo/café/日本?q=é")), transport=plain()) as response:
                seen = response.json()
        self.assertEqual(seen["path"], "/echo/caf%C3%A9/%E6%97%A5%E6%9C%AC?q=%C3%A9")  # type: ignore[index,call-overload]

    def test_a_proxy_that_cannot_work_is_not_retried(self) -> None:
        from agentkit_core.http import SocketTransport

        for proxy in ("socks5://127.0.0.1:9", "ftp://127.0.0.1:9", "http://127.0.0.1:port"):  # an https:// one works (TLS inside TLS)
            with self.subTest(proxy=proxy), self.assertRaises(TransportError) as caught:
                send(Request("GET", "https://h.example/"), transport=SocketTransport(proxies={"https": proxy}), retries=2)
            self.assertEqual((caught.exception.retryable, caught.exception.retried), (False, 0))

    def test_what_cannot_be_sent_is_not_retried(self) -> None:
        class Unsendable:  # an exchange whose start() meets what it cannot encode
            def start(self) -> object:
                return "é".encode("ascii")

            def abort(self) -> None:
                pass

            def close(self) -> None:
                pass

        class Refusing:
            made = 0

            def exchange(self, request: Request, **timeouts: float) -> Unsendable:
                self.made += 1
                return Unsendable()

        transport = Refusing()
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", "https://h.example/"), transport=transport, retries=2)  # type: ignore[arg-type]
        self.assertFalse(caught.exception.retryable)
        self.assertEqual(transport.made, 1)


if __name__ == "__main__":
    unittest.main()
