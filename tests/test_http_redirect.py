"""Redirects as httpx follows them: the pure decision, send() over a recording transport, and the loopback server."""

from __future__ import annotations

import json
import unittest

from agentkit_core.http import Request, TransportError, send
from agentkit_core.http._proxy import route_of
from agentkit_core.http._redirect import MAX_REDIRECTS, check_hop, next_request, same_origin
from tests.capability import can_serve_loopback, event_loop_test
from tests.loopback import Loopback, Reply, json_reply
from tests.test_http import KEY, plain

POST = Request(
    "POST",
    "https://api.example/v1/messages",
    {"x-api-key": KEY, "authorization": f"Bearer {KEY}", "content-type": "application/json", "x-goog-api-key": KEY,
     "anthropic-version": "2023-06-01", "Host": "api.example"},
    b'{"model": "m"}',
)  # fmt: skip


class DecisionTest(unittest.TestCase):
    def test_which_statuses_are_followed(self) -> None:
        for status in (200, 204, 300, 304, 305, 306, 400):
            with self.subTest(status=status):
                self.assertIsNone(next_request(POST, status, {"location": "/x"}))
        self.assertIsNone(next_request(POST, 302, {}))  # no Location: the answer itself

    def test_method_and_body_per_status(self) -> None:
        expected = {301: "GET", 302: "GET", 303: "GET", 307: "POST", 308: "POST"}
        for status, method in expected.items():
            with self.subTest(status=status):
                following = next_request(POST, status, {"location": "/v2/messages"})
                self.assertIsNotNone(following)
                self.assertEqual((following.method, following.url), (method, "https://api.example/v2/messages"))  # type: ignore[union-attr]
                names = {k.lower() for k, _ in following.headers}  # type: ignore[union-attr]
                if method == "GET":
                    self.assertEqual(following.body, b"")  # type: ignore[union-attr]
                    self.assertNotIn("content-type", names)
                else:
                    self.assertEqual(following.body, POST.body)  # type: ignore[union-attr]
                    self.assertIn("content-type", names)
                self.assertIn("x-api-key", names)  # same origin: the credentials stay
                self.assertIn("anthropic-version", names)
                self.assertNotIn("host", names)  # rebuilt for the new URL

    def test_put_and_head(self) -> None:
        put = Request("PUT", "http://h.example/a", {"content-type": "text/plain"}, b"x")
        self.assertEqual(next_request(put, 301, {"location": "/b"}).method, "PUT")  # type: ignore[union-attr]
        self.assertEqual(next_request(put, 302, {"location": "/b"}).method, "GET")  # type: ignore[union-attr]
        head = Request("HEAD", "http://h.example/a")
        for status in (301, 302, 303, 307):
            self.assertEqual(next_request(head, status, {"location": "/b"}).method, "HEAD")  # type: ignore[union-attr]

    def test_another_origin_drops_every_credential(self) -> None:
        for to in ("https://other.example/v1", "https://api.example:8443/v1", "http://api.example/v1", "//evil.example/x"):
            with self.subTest(to=to):
                following = next_request(POST, 307, {"location": to})
                names = {k.lower() for k, _ in following.headers}  # type: ignore[union-attr]
                self.assertFalse(names & {"x-api-key", "authorization", "x-goog-api-key"}, names)
                self.assertIn("anthropic-version", names)
                self.assertEqual(following.body, POST.body)  # type: ignore[union-attr]

    def test_a_header_the_request_marks_secret_goes_only_to_the_same_origin(self) -> None:
        marked = Request("POST", "https://api.example/v1", {"x-gateway-key": KEY, "x-keep": "1"}, b"{}", secret_headers=["X-Gateway-Key"])
        same = next_request(marked, 308, {"location": "/v2"})
        other = next_request(marked, 308, {"location": "https://other.example/v2"})
        self.assertEqual(same.header("x-gateway-key"), KEY)  # type: ignore[union-attr]
        self.assertIsNone(other.header("x-gateway-key"))  # type: ignore[union-attr]
        self.assertEqual(other.header("x-keep"), "1")  # type: ignore[union-attr]
        self.assertEqual((same.secret_headers, other.secret_headers), (("x-gateway-key",), ("x-gateway-key",)))  # type: ignore[union-attr]

    def test_an_upgrade_to_https_keeps_them_as_httpx_does(self) -> None:
        self.assertTrue(same_origin("http://h.example/a", "https://h.example/b"))
        self.assertFalse(same_origin("https://h.example/a", "http://h.example/b"))
        self.assertTrue(same_origin("https://H.example:443/a", "https://h.example/b"))

    def test_a_location_whose_port_is_no_port_is_another_origin(self) -> None:
        # url_origin is the one origin rule (routing, proxies, redirects): a port that is no port is no known origin,
        # so the hop drops the credentials; sending it then fails as "bad port" (route_of).
        self.assertFalse(same_origin("https://api.example/a", "https://api.example:99999/b"))
        following = next_request(POST, 307, {"location": "https://api.example:x/v2"})
        self.assertIsNone(following.header("x-api-key"))  # type: ignore[union-attr]
        with self.assertRaisesRegex(TransportError, "bad port"):
            route_of(following, lambda scheme, host: None)  # type: ignore[arg-type]

    def test_location_resolution(self) -> None:
        cases = {"../b?x=1": "https://api.example/b?x=1", "c#frag": "https://api.example/v1/c",
                 "/café": "https://api.example/caf%C3%A9", "http://[::1]:8080/p": "http://[::1]:8080/p"}  # fmt: skip
        for to, url in cases.items():
            with self.subTest(to=to):
                self.assertEqual(next_request(POST, 308, {"location": to}).url, url)  # type: ignore[union-attr]
        for to in ("ftp://h/x", "mailto:a@b", "javascript:alert(1)"):
            with self.subTest(to=to), self.assertRaises(TransportError) as caught:
                next_request(POST, 302, {"location": to})
            self.assertFalse(caught.exception.retryable)

    def test_loops_and_too_many(self) -> None:
        seen = [(POST.method, POST.url)]
        with self.assertRaises(TransportError) as caught:
            check_hop(seen, POST)
        self.assertIn("loop", str(caught.exception))
        seen = [("GET", f"https://h.example/{n}") for n in range(MAX_REDIRECTS + 1)]
        with self.assertRaises(TransportError) as caught:
            check_hop(seen, Request("GET", "https://h.example/last"))
        self.assertIn("too many redirects", str(caught.exception))
        check_hop(seen[:-1], Request("GET", "https://h.example/last"))  # the 20th hop is fine


class Answer:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes = b"") -> None:
        self.status, self.headers, self.body = status, headers, [body] if body else []
        self.closed = False

    def start(self) -> tuple[int, list[tuple[str, str]]]:
        return self.status, self.headers

    def read(self, size: int) -> bytes:
        return self.body.pop(0) if self.body else b""

    def abort(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class Recording:
    """A transport answering by URL path from a table, recording each request (no sockets: runs in Pyodide too)."""

    def __init__(self, table: dict[str, tuple[int, list[tuple[str, str]]]]) -> None:
        self.table, self.sent, self.made = table, [], []  # type: ignore[var-annotated]

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> Answer:
        self.sent.append(request)
        path = "/" + request.url.split("/", 3)[3]
        status, headers = self.table.get(path, (200, []))
        self.made.append(Answer(status, headers, b"moved" if status != 200 else b"ok"))
        return self.made[-1]


class SendTest(unittest.TestCase):
    def test_followed_to_the_end(self) -> None:
        transport = Recording({"/v1/messages": (307, [("Location", "/v2/messages")]), "/v2/messages": (308, [("Location", "/v3")])})
        with send(POST, transport=transport) as response:  # type: ignore[arg-type]
            self.assertEqual((response.status, response.read(), response.hops), (200, b"ok", 2))
            self.assertEqual(response.url, "https://api.example/v3")
            self.assertIn("hops=2", repr(response))
        self.assertEqual([r.method for r in transport.sent], ["POST"] * 3)
        self.assertEqual({r.body for r in transport.sent}, {POST.body})
        self.assertTrue(all(answer.closed for answer in transport.made[:2]))  # each 3xx read and closed first

    def test_a_loop_is_an_error_at_once(self) -> None:
        transport = Recording({"/a": (302, [("Location", "/b")]), "/b": (302, [("Location", "/a")])})
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", "https://h.example/a"), transport=transport, retries=2)  # type: ignore[arg-type]
        self.assertIn("redirect loop", str(caught.exception))
        self.assertEqual(len(transport.sent), 2)  # not retried

    def test_a_location_that_cannot_be_followed_is_an_error_and_closed(self) -> None:
        transport = Recording({"/a": (302, [("Location", "ftp://files.example/x")])})
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", "https://h.example/a"), transport=transport, retries=2)  # type: ignore[arg-type]
        self.assertIn("not an http(s) URL", str(caught.exception))
        self.assertEqual([answer.closed for answer in transport.made], [True])  # not retried, not left open

    def test_too_many_hops(self) -> None:
        table = {f"/{n}": (302, [("Location", f"/{n + 1}")]) for n in range(40)}
        transport = Recording(table)
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", "https://h.example/0"), transport=transport)  # type: ignore[arg-type]
        self.assertIn("too many redirects", str(caught.exception))
        self.assertEqual(len(transport.sent), MAX_REDIRECTS + 1)
        table[f"/{MAX_REDIRECTS}"] = (200, [])
        with send(Request("GET", "https://h.example/0"), transport=Recording(table)) as response:  # type: ignore[arg-type]
            self.assertEqual((response.status, response.hops), (200, MAX_REDIRECTS))


class AsyncAnswer(Answer):
    """:class:`Answer` as an asynchronous exchange (no thread, no executor: runs on Pyodide's loop too)."""

    async def start(self) -> tuple[int, list[tuple[str, str]]]:  # type: ignore[override]
        return self.status, self.headers

    async def read(self, size: int) -> bytes:  # type: ignore[override]
        return self.body.pop(0) if self.body else b""


class AsyncRecording(Recording):
    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> AsyncAnswer:
        answer = self.exchange(request, connect_timeout=connect_timeout, read_timeout=read_timeout)
        self.made[-1] = AsyncAnswer(answer.status, answer.headers, b"".join(answer.body))
        return self.made[-1]  # type: ignore[no-any-return]


class AsyncSendTest(unittest.TestCase):
    """asend() takes the same hops, stops at the same loop and the same 21st hop as send()."""

    @event_loop_test
    async def test_followed_to_the_end(self) -> None:
        from agentkit_core.http import asend

        transport = AsyncRecording({"/v1/messages": (303, [("Location", "/v2")]), "/v2": (308, [("Location", "/v3")])})
        async with await asend(POST, transport=transport) as response:  # type: ignore[arg-type]
            self.assertEqual((response.status, await response.read(), response.hops), (200, b"ok", 2))
            self.assertEqual(response.url, "https://api.example/v3")
            self.assertIn("hops=2", repr(response))
        self.assertEqual([(r.method, r.body) for r in transport.sent], [("POST", POST.body), ("GET", b""), ("GET", b"")])
        self.assertTrue(all(answer.closed for answer in transport.made))

    @event_loop_test
    async def test_a_loop_and_too_many_hops(self) -> None:
        from agentkit_core.http import asend

        transport = AsyncRecording({"/a": (302, [("Location", "/b")]), "/b": (302, [("Location", "/a")])})
        with self.assertRaises(TransportError) as caught:
            await asend(Request("GET", "https://h.example/a"), transport=transport, retries=2)  # type: ignore[arg-type]
        self.assertIn("redirect loop", str(caught.exception))
        self.assertEqual(len(transport.sent), 2)
        table = {f"/{n}": (302, [("Location", f"/{n + 1}")]) for n in range(40)}
        transport = AsyncRecording(table)
        with self.assertRaises(TransportError) as caught:
            await asend(Request("GET", "https://h.example/0"), transport=transport)  # type: ignore[arg-type]
        self.assertIn("too many redirects", str(caught.exception))
        self.assertEqual(len(transport.sent), MAX_REDIRECTS + 1)
        self.assertTrue(all(answer.closed for answer in transport.made))
        transport = AsyncRecording({"/a": (302, [("Location", "ftp://files.example/x")])})
        with self.assertRaises(TransportError) as caught:
            await asend(Request("GET", "https://h.example/a"), transport=transport, retries=2)  # type: ignore[arg-type]
        self.assertIn("not an http(s) URL", str(caught.exception))
        self.assertEqual([answer.closed for answer in transport.made], [True])


class LoopbackTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_across_origins_the_credentials_are_gone(self) -> None:
        with Loopback([Reply(echo=True)]) as other:
            with Loopback([Reply(307, [("Location", other.url("/landed?x=1"))])]) as first:
                request = Request("POST", first.url("/v1"), {"x-api-key": KEY, "authorization": f"Bearer {KEY}", "x-keep": "1"}, b"{}")
                with send(request, transport=plain()) as response:
                    seen = json.loads(response.read())
                    self.assertEqual((response.url, response.hops), (other.url("/landed?x=1"), 1))
            self.assertEqual(first.requests[0].headers["x-api-key"], KEY)
        self.assertEqual((seen["method"], seen["path"], seen["body"]), ("POST", "/landed?x=1", "{}"))
        self.assertNotIn("x-api-key", seen["headers"])
        self.assertNotIn("authorization", seen["headers"])
        self.assertEqual(seen["headers"]["x-keep"], "1")

    def test_a_redirected_streaming_post_streams(self) -> None:
        from agentkit_core.providers import anthropic
        from tests.loopback import sse_reply
        from tests.test_http import ITEMS, open_recording

        body = open_recording("anthropic", "messages.text_tool_use.sse.txt")
        with Loopback([sse_reply(body)]) as target, Loopback([Reply(307, [("Location", target.url("/v1/messages"))])]) as gateway:
            request = anthropic.http_request(ITEMS, model="m", api_key=KEY, base_url=gateway.url(), stream=True, max_tokens=64)
            with send(request, transport=plain()) as response:
                events = list(response.events())
            self.assertEqual(target.requests[0].body, request.body)
        self.assertEqual(events, list(anthropic.events_from_sse([body])))
        self.assertEqual(events[0]["type"], "message_start")

    def test_a_303_after_a_post_is_a_get_without_a_body(self) -> None:
        with Loopback([json_reply(303, b"{}", [("Location", "/result")]), Reply(echo=True)]) as server:
            request = Request("POST", server.url("/v1"), {"x-api-key": KEY, "content-type": "application/json"}, b'{"a":1}')
            with send(request, transport=plain()) as response:
                seen = json.loads(response.read())
        self.assertEqual((seen["method"], seen["path"], seen["body"]), ("GET", "/result", ""))
        self.assertEqual(seen["headers"]["x-api-key"], KEY)  # the same origin keeps it
        self.assertNotIn("content-type", seen["headers"])


if __name__ == "__main__":
    unittest.main()
