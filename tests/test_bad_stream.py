"""A turn never lost to a bad stream, for all four providers, against the suite's loopback server.

An event that is not JSON, or not the provider's, after some text: the turn
comes back closed as ``ERROR`` with the text, ``agentkit.stream_cut`` naming
the event and why.  A ``200 application/json`` answer to a streaming request
(a server that ignored ``stream: true``) is the whole answer, handed out as if
streamed and marked ``agentkit.not_streamed``.  A ``200 text/html`` page (a
captive portal) raises ``ProviderError`` naming the type and an escaped
excerpt.  Each through ``complete``, ``acomplete``, ``stream`` and
``astream``; then through the browser transport (its JavaScript side faked)
and through ``send()``/``asend()`` driven by hand.
"""

from __future__ import annotations

import asyncio
import json
import unittest
from types import ModuleType
from typing import Any, Callable
from unittest import mock

from agentkit_core import NOT_STREAMED_KEY, STREAM_CUT_KEY, CommitPart, Delta, FinishReason, Item, NormalizeError
from agentkit_core.http import FetchTransport, ProviderError, Request, asend, send
from agentkit_core.providers import STREAM_FORMATS
from tests import frames, recorded
from tests.capability import can_run_asyncio, event_loop_test
from tests.loopback import Loopback, Reply, json_reply
from tests.test_complete import ASK, LIMIT, MODULES, RESPONSES, TEXT_STREAMS, Loop, comparable, first_text, reply, visible
from tests.test_http import plain
from tests.test_http_fetch import FakeFfi, FakeJs

#: stream format -> an event cut inside its JSON (a proxy or server cutting a line), and its words.
NOT_JSON = {"sse": b'data: {"type": "content_block_delta", "delta": {"te\n\n',
            "aws-eventstream": frames.frame({":event-type": "contentBlockDelta", ":content-type": "application/json",
                                             ":message-type": "event"}, b'{"delta": {"te')}
#: stream format -> an event that is JSON but no provider's stream event (each decoder's feed refuses it).
NOT_THEIRS = {"sse": b'data: {"type": 7, "candidates": 7, "choices": 7}\n\n',
              "aws-eventstream": frames.event("whatever", {"type": 7})}
#: A captive portal's page, with a terminal escape in its title that must not reach a terminal raw.
PORTAL = (b"<!DOCTYPE html><html><head><title>Sign in to Airport WiFi \x1b[31mnow</title></head>"
          b"<body><p>Accept the terms</p></body></html>")
HTML = Reply(200, [("Content-Type", "text/html; charset=utf-8")], [PORTAL], chunked=False)

Run = Callable[[ModuleType, str, "list[str]"], Item]


def run_complete(module: ModuleType, url: str, texts: list[str]) -> Item:
    return module.complete(ASK, model="m-1", base_url=url, settings=LIMIT, on_text=texts.append,  # type: ignore[no-any-return]
                           transport=plain(), retries=0)


def run_acomplete(module: ModuleType, url: str, texts: list[str]) -> Item:
    return asyncio.run(module.acomplete(ASK, model="m-1", base_url=url, settings=LIMIT, on_text=texts.append,  # type: ignore[no-any-return]
                                        transport=plain(), retries=0))


def run_stream(module: ModuleType, url: str, texts: list[str]) -> Item:
    with module.stream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain(), retries=0) as s:
        texts += s.text()
    return s.answer  # type: ignore[no-any-return]


def run_astream(module: ModuleType, url: str, texts: list[str]) -> Item:
    async def read() -> Item:
        async with module.astream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain(), retries=0) as s:
            texts.extend([chunk async for chunk in s.text()])
        return s.answer  # type: ignore[no-any-return]

    return asyncio.run(read())


WAYS: dict[str, Run] = {"complete": run_complete, "acomplete": run_acomplete, "stream": run_stream, "astream": run_astream}


def rest_of(name: str, stream: str) -> bytes:
    """The recorded stream after :func:`first_text`'s events: what would have come after the bad event."""
    return b"".join(recorded.frames(name, recorded.raw(name, stream))[len(recorded.frames(name, first_text(name, stream))):])


class BadStreamTest(Loop):
    def ways(self) -> dict[str, Run]:
        return WAYS if can_run_asyncio() else {k: v for k, v in WAYS.items() if not k.startswith("a")}

    def test_an_event_not_json_or_not_the_providers_closes_the_turn_with_what_arrived(self) -> None:
        for bad, said in ((NOT_JSON, "invalid JSON"), (NOT_THEIRS, "is not the provider's")):
            for name, stream in TEXT_STREAMS.items():
                good = first_text(name, stream)
                body = good + bad[recorded.STREAM_FORMATS[name]] + rest_of(name, stream)
                number = len(recorded.frames(name, good)) + 1  # the bad event's number
                for way, run in self.ways().items():
                    with self.subTest(said, provider=name, way=way), Loopback([reply(name, body)]) as server:
                        texts: list[str] = []
                        answer = run(MODULES[name], server.url(), texts)
                        self.assertIs(answer.finish_reason, FinishReason.ERROR)
                        self.assertTrue(texts)
                        self.assertEqual(visible(answer), "".join(texts))  # everything that arrived, nothing after
                        why = answer.metadata[STREAM_CUT_KEY]["error"]  # type: ignore[index]
                        self.assertIn(said, why)
                        self.assertRegex(why, rf"\b(event|message) {number}\b")  # as the format counts them

    def test_an_error_event_after_content_closes_the_turn_with_what_arrived(self) -> None:
        """AWS's event stream frames an exception; after text it cuts the turn (before any, it is raised: test_provider_bedrock)."""
        body = first_text("bedrock", TEXT_STREAMS["bedrock"]) + frames.exception("modelStreamErrorException", "the model failed")
        for way, run in self.ways().items():
            with self.subTest(way=way), Loopback([reply("bedrock", body)]) as server:
                texts: list[str] = []
                answer = run(MODULES["bedrock"], server.url(), texts)
                self.assertIs(answer.finish_reason, FinishReason.ERROR)
                self.assertTrue(texts)
                self.assertEqual(visible(answer), "".join(texts))
                self.assertIn("the model failed", answer.metadata[STREAM_CUT_KEY]["error"])  # type: ignore[index]

    def test_a_json_answer_to_a_streaming_request_is_the_whole_answer_marked(self) -> None:
        for name, response in RESPONSES.items():
            module = MODULES[name]
            body = recorded.raw(name, response)
            expected = module.items_from_response(json.loads(body))[0]
            for way, run in self.ways().items():
                with self.subTest(name, way=way), Loopback([json_reply(200, body)]) as server:
                    texts: list[str] = []
                    answer = run(module, server.url(), texts)
                    self.assertEqual(answer.metadata[NOT_STREAMED_KEY], "application/json")
                    unmarked = answer.with_metadata({k: v for k, v in answer.metadata.items() if k != NOT_STREAMED_KEY})
                    self.assertEqual(comparable(unmarked), comparable(expected))
                    self.assertEqual("".join(texts), visible(expected))  # on_text and text() saw it as if streamed
                    self.assertNotIn(STREAM_CUT_KEY, answer.metadata)
                    sent = {k.lower(): v for k, v in server.requests[0].headers.items()}
                    self.assertEqual(sent["accept"], STREAM_FORMATS[recorded.STREAM_FORMATS[name]])  # it was asked to stream
        body = recorded.raw("openai_chat", RESPONSES["openai_chat"])
        with Loopback([json_reply(200, body)]) as server:
            deltas: list[Delta] = []
            with MODULES["openai_chat"].stream(ASK, model="m", base_url=server.url(), transport=plain(), on_delta=deltas.append) as s:
                self.assertEqual(list(s), deltas)
        self.assertTrue(deltas and all(type(d) is CommitPart for d in deltas))
        self.assertEqual([d.part for d in deltas], list(s.answer.parts))  # type: ignore[attr-defined]

    def test_an_html_page_raises_naming_its_type_with_a_safe_excerpt(self) -> None:
        for name in TEXT_STREAMS:
            for way, run in self.ways().items():
                with self.subTest(name, way=way), Loopback([HTML]) as server:
                    with self.assertRaises(ProviderError) as caught:
                        run(MODULES[name], server.url(), [])
                    self.assert_portal(caught.exception)
        with Loopback([Reply(200, [("Content-Type", "text/plain")], [b"x" * 5000], chunked=False)]) as server:
            with self.assertRaises(ProviderError) as caught:
                run_complete(MODULES["gemini"], server.url(), [])
        self.assertIn("text/plain", str(caught.exception))
        self.assertLess(len(str(caught.exception)), 300)  # clipped

    def assert_portal(self, error: ProviderError) -> None:
        said = str(error)
        self.assertEqual(error.status, 200)
        self.assertIn("text/html", said)
        self.assertIn("Sign in to Airport WiFi", said)
        self.assertNotIn("\x1b", said)  # escaped, never raw
        self.assertIn("\\x1b", said)
        self.assertNotIn("ended", said)
        self.assertIn(b"Accept the terms", error.body)


#: A streamed Anthropic answer cut by an event that is not JSON, for the transports below.
CUT = first_text("anthropic", TEXT_STREAMS["anthropic"]) + NOT_JSON["sse"]


class BrowserTransportTest(unittest.TestCase):
    """FetchTransport (the browser's fetch, faked as tests/test_http_fetch.py fakes it): the same three answers."""

    def turn(self, answer: Any) -> Item:
        return asyncio.run(self.aturn(answer))

    async def aturn(self, answer: Any) -> Item:
        js = FakeJs(answer)
        with mock.patch("agentkit_core.http._fetch._browser", return_value=(js, FakeFfi())):
            return await MODULES["anthropic"].acomplete(ASK, model="m", api_key="sk-test", settings=LIMIT, transport=FetchTransport())  # type: ignore[no-any-return]

    @event_loop_test
    async def test_a_bad_event_a_json_answer_and_a_page(self) -> None:
        cut = await self.aturn((200, [("content-type", "text/event-stream")], [CUT]))
        self.assertIs(cut.finish_reason, FinishReason.ERROR)
        self.assertTrue(visible(cut))
        self.assertIn("invalid JSON", cut.metadata[STREAM_CUT_KEY]["error"])  # type: ignore[index]
        body = recorded.raw("anthropic", RESPONSES["anthropic"])
        whole = await self.aturn((200, [("content-type", "application/json")], [body[:100], body[100:]]))
        self.assertEqual(whole.metadata[NOT_STREAMED_KEY], "application/json")
        self.assertEqual(whole.parts, MODULES["anthropic"].items_from_response(json.loads(body))[0].parts)
        with self.assertRaises(ProviderError) as caught:
            await self.aturn((200, [("content-type", "text/html")], [PORTAL]))
        BadStreamTest.assert_portal(self, caught.exception)  # type: ignore[arg-type]


class ByHandTest(Loop):
    """send() and asend() driven by hand: events() refuses an answer that is no event stream, saying which."""

    def test_events_of_a_json_answer_says_the_server_did_not_stream_and_leaves_it_readable(self) -> None:
        body = recorded.raw("anthropic", RESPONSES["anthropic"])
        with Loopback([json_reply(200, body), HTML]) as server:
            request = Request("POST", server.url(), {"accept": "text/event-stream"}, b"{}")
            with send(request, transport=plain()) as response:
                self.assertEqual(response.media_type, "application/json")
                with self.assertRaises(NormalizeError) as caught:
                    next(response.events())
                self.assertIn("did not stream", str(caught.exception))
                self.assertEqual(response.json(), json.loads(body))
            with send(request, transport=plain()) as response:
                with self.assertRaises(ProviderError) as error:
                    list(response.events())
                BadStreamTest.assert_portal(self, error.exception)  # type: ignore[arg-type]

    def test_a_page_longer_than_the_excerpt_read_is_closed(self) -> None:
        """The page is read only as far as the excerpt needs; the rest is never read, so the connection is closed."""
        from tests.test_http import FakeTransport

        page = (200, [("content-type", "text/html")], [PORTAL[:-14], b"<p>" + b"x" * 40_000 + b"</p>", b"</body></html>"])
        transport = FakeTransport(page)
        response = send(Request("POST", "https://example.com/s"), transport=transport)  # type: ignore[arg-type]
        with self.assertRaises(ProviderError):
            next(response.events())
        self.assertTrue(transport.made[0].closed)
        if can_run_asyncio():
            transport = FakeTransport(page)

            async def main() -> None:
                answer = await asend(Request("POST", "https://example.com/s"), transport=transport)  # type: ignore[arg-type]
                with self.assertRaises(ProviderError):
                    await answer.events().__anext__()

            asyncio.run(main())
            self.assertTrue(transport.made[0].closed)

    def test_asend_the_same(self) -> None:
        if not can_run_asyncio():
            self.skipTest("needs asyncio.run(): this interpreter cannot run a loop to completion")
        body = recorded.raw("anthropic", RESPONSES["anthropic"])

        async def main(url: str) -> None:
            request = Request("POST", url, {"accept": "text/event-stream"}, b"{}")
            async with await asend(request, transport=plain()) as response:
                with self.assertRaises(NormalizeError):
                    await response.events().__anext__()
                self.assertEqual(await response.json(), json.loads(body))
            async with await asend(request, transport=plain()) as response:
                with self.assertRaises(ProviderError) as error:
                    await response.events().__anext__()
                BadStreamTest.assert_portal(self, error.exception)  # type: ignore[arg-type]

        with Loopback([json_reply(200, body), HTML]) as server:
            asyncio.run(main(server.url()))


if __name__ == "__main__":
    unittest.main()
