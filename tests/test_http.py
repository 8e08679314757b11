"""agentkit_core.http without a network: the request value, the retry rules, error answers, http_request, SSE input, a transport of the caller's."""

from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys
import unittest

from agentkit_core import Item, ItemKind, ModelSettings, NormalizeError
from agentkit_core.http import ProviderError, Request, TransportError, send
from agentkit_core.http._client import provider_error
from agentkit_core.http._errors import BODY_KEPT
from agentkit_core.http._retry import retry_delay, server_delay, should_retry
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses
from tests import recorded
from tests.capability import event_loop_test, needs_processes

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

    def test_redact_url_hides_each_secret_query_value_in_any_case(self) -> None:
        from agentkit_core.http._request import redact_url

        for name in ("key", "api_key", "api-key", "access_token", "KEY", "Api_Key", "ACCESS_TOKEN", "Access_Token"):
            for url, shown in (
                (f"https://h.example/v1?{name}={KEY}&a=1", f"https://h.example/v1?{name}=***&a=1"),
                (f"https://h.example/v1?a=1&{name}={KEY}#top", f"https://h.example/v1?a=1&{name}=***#top"),
            ):
                with self.subTest(url=url):
                    self.assertEqual(redact_url(url), shown)
                    self.assertNotIn(KEY, repr(Request("GET", url)))
        kept = "https://h.example/v1?monkey=1&token=2&keys=3"  # names that only contain a secret's name stay
        self.assertEqual(redact_url(kept), kept)
        self.assertEqual(redact_url(f"https://me:{KEY}@h.example/"), "https://***@h.example/")

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


    def test_non_ascii_urls_are_percent_encoded_as_utf8(self) -> None:
        cases = {
            "https://h.example/echo/café": "https://h.example/echo/caf%C3%A9",
            "https://h.example/日本?q=日本&k=é": "https://h.example/%E6%97%A5%E6%9C%AC?q=%E6%97%A5%E6%9C%AC&k=%C3%A9",
            "https://h.example/a%20b/é%C3%A9": "https://h.example/a%20b/%C3%A9%C3%A9",  # what is encoded stays
            "https://bücher.example/x": "https://xn--bcher-kva.example/x",
            "https://h.example/plain?x=1": "https://h.example/plain?x=1",
        }
        for url, sent in cases.items():
            with self.subTest(url=url):
                self.assertEqual(Request("GET", url).url, sent)
        with self.assertRaises(ValueError):
            Request("GET", "https://h.example/é x")  # white space is refused, not guessed at

    def test_headers_the_wire_cannot_carry_are_refused_naming_them(self) -> None:
        with self.assertRaises(ValueError) as caught:
            Request("GET", "https://h.example/", {"x-title": "日本"})
        self.assertIn("x-title", str(caught.exception))
        for name in ("x-api-key", "Authorization", "x-goog-api-key"):
            with self.subTest(name=name), self.assertRaises(ValueError) as caught:
                Request("GET", "https://h.example/", {name: KEY + "é"})
            self.assertIn(name, str(caught.exception))
            self.assertNotIn(KEY, str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            Request("GET", "https://h.example/", {"x-é": "1"})
        self.assertIn("x-é", str(caught.exception))

    def test_headers_a_request_marks_secret_are_hidden_like_the_known_ones(self) -> None:
        request = Request("GET", "https://h.example/", {"X-Gw": KEY, "x-trace": "t-1"}, secret_headers=["x-GW"])
        self.assertEqual(request.secret_headers, ("x-gw",))
        self.assertTrue(request.is_secret("X-Gw") and request.is_secret("Authorization"))
        self.assertFalse(request.is_secret("x-trace") or Request("GET", "https://h.example/").is_secret("x-gw"))
        self.assertIn(KEY, request.secrets())
        self.assertEqual(dict(request.redacted_headers()), {"X-Gw": "***", "x-trace": "t-1"})
        self.assertNotIn(KEY, repr(request))
        self.assertEqual(pickle.loads(pickle.dumps(request)), request)
        self.assertNotEqual(request, Request("GET", "https://h.example/", {"X-Gw": KEY, "x-trace": "t-1"}))
        with self.assertRaises(ValueError) as caught:
            Request("GET", "https://h.example/", {"x-gw": KEY + "\r\n"}, secret_headers=("x-gw",))
        self.assertIn("x-gw", str(caught.exception))
        self.assertNotIn(KEY, str(caught.exception))
        for bad, error in (("x-token", TypeError), ([1], TypeError), (["bad name"], ValueError)):
            with self.subTest(bad=bad), self.assertRaises(error) as failed:
                Request("GET", "https://h.example/", secret_headers=bad)  # type: ignore[arg-type]
            self.assertIn("Request.secret_headers", str(failed.exception))

    def test_a_header_named_as_a_credential_is_hidden_without_being_marked(self) -> None:
        gateway = ("cf-aig-authorization", "Helicone-Auth", "x-portkey-api-key", "Ocp-Apim-Subscription-Key", "x_session_token")
        request = Request("GET", "https://h.example/", {**{name: KEY for name in gateway}, "anthropic-beta": "b", "x-tokenizer": "t"})
        self.assertEqual([name for name, _ in request.headers if request.is_secret(name)], list(gateway))
        self.assertNotIn(KEY, repr(request))
        self.assertEqual(request.secrets(), (KEY,))
        with self.assertRaises(ValueError) as caught:
            Request("GET", "https://h.example/", {"helicone-auth": KEY + "\n"})
        self.assertNotIn(KEY, str(caught.exception))

    def test_a_gateway_key_given_to_http_request_is_hidden(self) -> None:
        items = [Item.text(ItemKind.USER, "hi")]
        request = anthropic.http_request(items, model="m", settings=ModelSettings(max_tokens=8), headers={"cf-aig-authorization": "Bearer " + KEY})
        self.assertTrue(request.is_secret("cf-aig-authorization"))
        self.assertIn(KEY, request.secrets())
        self.assertNotIn(KEY, repr(request))

    def test_secrets_are_listed_for_redaction(self) -> None:
        request = Request("POST", f"https://u:{KEY}-pw@h.example/v1?key={KEY}-q", {"authorization": f"Bearer {KEY}", "x-api-key": KEY + "-x"})
        self.assertTrue({KEY, KEY + "-x", KEY + "-q", KEY + "-pw"} <= set(request.secrets()))
        self.assertEqual(Request("GET", "https://h.example/", {"x-api-key": "ab"}).secrets(), ())  # too short to search for


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
            (b"<html>Bad gateway</html>", {"request-id": "r"}, ("", "Bad Gateway", "r")),
            (b"", {}, ("", "Bad Gateway", "")),
        ]
        for body, headers, (kind, message, rid) in cases:
            with self.subTest(body=body):
                error = provider_error(502, headers, body)
                self.assertEqual((error.error_type, error.message, error.request_id), (kind, message, rid))
                self.assertEqual(error.body, body)
                again = pickle.loads(pickle.dumps(error))
                self.assertEqual((again.status, again.message, str(again)), (502, message, str(error)))

    def test_pages_that_are_not_a_providers_error_read_as_one_line(self) -> None:
        nginx_413 = (b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request "
                     b"Entity Too Large</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n")
        untitled = b"<!DOCTYPE html><html><body><script>x()</script><h1>Gateway &amp; proxy</h1>\n<p>is down</p></body></html>"
        cases = [
            (413, nginx_413, {"content-type": "text/html"}, "Request Entity Too Large"),
            (503, untitled, {}, "Gateway & proxy is down"),
            (502, b"upstream\r\n  connect error", {"content-type": "text/plain"}, "upstream connect error"),
            (500, b'{"detail": "Internal\\nfailure"}', {}, "Internal failure"),
            (400, b'{"error": "model not found"}', {}, "model not found"),
            (599, b"", {}, "HTTP 599"),
        ]
        for status, body, headers, said in cases:
            with self.subTest(status=status):
                error = provider_error(status, headers, body)
                self.assertIn(said, error.message)
                self.assertNotIn("<", error.message)
                self.assertNotIn("\n", error.message)
                self.assertEqual(error.body, body)
        long = provider_error(502, {"content-type": "text/html"}, b"<p>" + b"word " * 1000 + b"</p>")
        self.assertLessEqual(len(long.message), 300)
        self.assertTrue(long.message.startswith("Bad Gateway: word word"))

    def test_headers_are_kept_read_only_in_any_case(self) -> None:
        error = provider_error(429, {"retry-after": "7", "x-ratelimit-remaining-requests": "0"}, b"{}")
        self.assertEqual((error.headers["Retry-After"], error.headers.get("X-RateLimit-Remaining-Requests")), ("7", "0"))
        self.assertIn("RETRY-AFTER", error.headers)
        with self.assertRaises(TypeError):
            error.headers["retry-after"] = "1"  # type: ignore[index]
        again = pickle.loads(pickle.dumps(error))
        self.assertEqual((again.headers, again.retried), (error.headers, 0))
        self.assertEqual(str(ProviderError(429, "", "slow", headers=error.headers, retried=2)), "HTTP 429: slow (after 3 attempts)")
        self.assertEqual(str(pickle.loads(pickle.dumps(TransportError("down", False, 2)))), "down (after 3 attempts)")

    def test_the_key_is_hidden_where_the_server_echoes_it(self) -> None:
        request = Request("POST", "https://h.example/v1", {"authorization": f"Bearer {KEY}"}, b"{}")
        body = b'{"error":{"message":"Incorrect API key provided: %s. You can find your API key at ...","type":"invalid_request_error"}}' % KEY.encode()
        for answer in (body, b"<html><title>bad key " + KEY.encode() + b"</title></html>"):
            with self.subTest(answer=answer[:20]):
                error = provider_error(401, {}, answer, request)
                shown = str(error) + repr(error) + error.message + error.body.decode() + repr(pickle.loads(pickle.dumps(error)))
                self.assertNotIn(KEY, shown)
                self.assertIn("***", error.message)

    def test_the_body_is_cut(self) -> None:
        self.assertEqual(len(provider_error(500, {}, b"x" * (BODY_KEPT * 3)).body), BODY_KEPT)


ITEMS = [Item.text(ItemKind.USER, "What's the weather in Paris?")]


#: The Messages API requires max_tokens; every provider maps the setting.
LIMIT = ModelSettings(max_tokens=16)


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
                request = module.http_request(ITEMS, model="m-1", api_key=KEY, temperature=0.5, settings=LIMIT)
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
        self.assertEqual(anthropic.http_request(ITEMS, model="m", max_tokens=16).header("anthropic-version"), "2023-06-01")
        self.assertIsNone(anthropic.http_request(ITEMS, model="m", max_tokens=16).header("x-api-key"))

    def test_tools_and_the_choice_go_as_request_from_items_writes_them(self) -> None:
        from agentkit_core import ToolChoice, ToolSpec

        spec = ToolSpec("get_weather", "The weather now", {"type": "object", "properties": {"city": {"type": "string"}}})
        choice = ToolChoice.tool("get_weather")
        for module in recorded.PROVIDERS.values():  # every registry row's
            with self.subTest(module.__name__):
                body = json.loads(module.http_request(ITEMS, model="m", tools=[spec], tool_choice=choice, settings=LIMIT).body)
                expected = module.request_from_items(ITEMS, tools=[spec], tool_choice=choice)
                self.assertEqual({k: body[k] for k in expected}, json.loads(json.dumps(expected)))
                self.assertEqual(module.tools_from_request(body), [spec])

    def test_streaming(self) -> None:
        for module in (anthropic, openai_responses, openai_chat):
            self.assertIs(json.loads(module.http_request(ITEMS, model="m", stream=True, settings=LIMIT).body)["stream"], True)
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
            anthropic.http_request(ITEMS, model="m", api_key=b"k", max_tokens=16)
        with self.assertRaises(ValueError):
            anthropic.http_request(ITEMS, model="m", base_url="api.anthropic.com", max_tokens=16)
        with self.assertRaises(NormalizeError):
            anthropic.http_request(ITEMS, model="m", temperature=float("nan"), max_tokens=16)


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
        with mock.patch.object(sys, "platform", "wasi"), self.assertRaises(TransportError) as caught:
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

    def test_an_echoed_key_is_hidden_by_send(self) -> None:
        body = b'{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}' % KEY.encode()
        with self.assertRaises(ProviderError) as caught:
            send(self.REQUEST, transport=FakeTransport((401, [], [body])))  # type: ignore[arg-type]
        self.assertEqual(caught.exception.message, "Incorrect API key provided: ***")
        self.assertNotIn(KEY.encode(), caught.exception.body)

    @event_loop_test
    async def test_an_echoed_key_is_hidden_by_asend(self) -> None:
        from agentkit_core.http import asend

        body = b'{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}' % KEY.encode()
        with self.assertRaises(ProviderError) as caught:
            await asend(self.REQUEST, transport=FakeTransport((401, [], [body])))  # type: ignore[arg-type]
        self.assertEqual(caught.exception.message, "Incorrect API key provided: ***")
        self.assertNotIn(KEY, repr(caught.exception))

    def test_arguments(self) -> None:
        for bad, error in (({"retries": -1}, ValueError), ({"retries": True}, TypeError), ({"timeout": 0}, ValueError),
                           ({"timeout": float("nan")}, ValueError), ({"connect_timeout": "5"}, TypeError)):
            with self.subTest(bad), self.assertRaises(error):
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


def open_recording(provider: str, name: str) -> bytes:
    from tests import recorded

    return recorded.raw(provider, name)


if __name__ == "__main__":
    unittest.main()
