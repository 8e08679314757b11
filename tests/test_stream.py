"""``stream`` and ``astream``: a turn read as it arrives, for all four providers, against the suite's loopback server.

Iterating a stream must give the deltas ``complete`` folds (the item at the
end is ``complete``'s), ``text()`` the visible text; leaving early (``break``,
an exception, ``close()``, the ``with`` block) must close the connection at
once, which the server sees, and leave the answer ``CANCELLED`` with what
arrived.  ``astream`` the same under asyncio, also as the body of an async
generator closed early and in a task cancelled.
"""

from __future__ import annotations

import asyncio
import json
import unittest
from typing import Any, AsyncIterator

from agentkit_core import (
    NOT_STREAMED_KEY,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    fold_all,
)
from agentkit_core.http import ProviderError
from agentkit_core.providers import STREAM_FORMATS, AsyncTurnStream, TurnStream, anthropic, openai_chat
from tests import recorded
from tests.capability import can_run_asyncio
from tests.loopback import LONGEST, Loopback, json_reply
from tests.test_complete import (
    ASK,
    LIMIT,
    MODULES,
    RESPONSES,
    STREAMS,
    TEXT_STREAMS,
    Loop,
    Stalling,
    comparable,
    expected_of,
    first_text,
    reply,
    visible,
)
from tests.test_http import plain


def folded(deltas: list[Delta]) -> Any:
    """The kinds of the parts ``deltas`` fold to (the Responses API's final event may replace a part's state)."""
    return [type(p) for p in fold_all(FoldState(), deltas).parts]


def kinds(item: Item) -> Any:
    return [type(p) for p in item.parts]


class StreamTest(Loop):
    def test_every_provider_hands_out_the_deltas_complete_folds(self) -> None:
        for name, streams in STREAMS.items():
            module = MODULES[name]
            with self.subTest(name), Loopback([reply(name, recorded.raw(name, streams[0]), pieces=5)]) as server:
                seen: list[Delta] = []
                with module.stream(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_delta=seen.append,
                                   transport=plain()) as s:
                    self.assertIsInstance(s, TurnStream)
                    self.assertFalse(s.ended)
                    deltas = list(s)
                    self.assertTrue(s.ended)
                expected = expected_of(name, streams[0])
                self.assertEqual(comparable(s.answer), comparable(expected))
                self.assertEqual(deltas, seen)  # on_delta saw each, as it was handed out
                self.assertEqual(folded(deltas), kinds(s.answer))
                self.assertEqual(list(s), [])  # read once: a loop after the end gives nothing
                sent = {k.lower(): v for k, v in server.requests[0].headers.items()}
                self.assertEqual(sent["accept"], STREAM_FORMATS[recorded.STREAM_FORMATS[name]])  # a streaming request

    def test_text_is_the_visible_text_and_on_text_sees_it_too(self) -> None:
        for name, stream in TEXT_STREAMS.items():
            with self.subTest(name), Loopback([reply(name, recorded.raw(name, stream), pieces=7)]) as server:
                shown: list[str] = []
                with MODULES[name].stream(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_text=shown.append,
                                          transport=plain()) as s:
                    chunks = list(s.text())
                self.assertTrue(chunks)
                self.assertEqual(chunks, shown)
                self.assertEqual("".join(chunks), visible(s.answer))
                self.assertIs(s.answer.finish_reason, expected_of(name, stream).finish_reason)

    def test_the_answer_before_the_end_is_an_error_not_none(self) -> None:
        with Loopback([reply("openai_chat", recorded.raw("openai_chat", "chat.text_content.sse.txt"))]) as server:
            s = openai_chat.stream(ASK, model="m", base_url=server.url(), transport=plain())
            with self.assertRaises(RuntimeError) as caught:
                s.answer  # noqa: B018 - the read is the test
            self.assertIn("until_done()", str(caught.exception))
            self.assertEqual(server.requests, [])  # nothing is sent until the reading starts
            answer = s.until_done()
        self.assertIs(answer, s.answer)
        self.assertEqual(comparable(answer), comparable(expected_of("openai_chat", "chat.text_content.sse.txt")))

    def test_arguments_are_checked_when_the_stream_is_made(self) -> None:
        with self.assertRaises(ValueError):
            anthropic.stream(ASK, model="m")  # no max_tokens: refused before anything is sent
        with self.assertRaises(TypeError):
            anthropic.stream(ASK, model="m", settings=LIMIT, on_text="print")  # type: ignore[arg-type]

    def test_leaving_early_closes_the_connection_the_server_sees_it(self) -> None:
        """break, an exception in the loop, close(), and leaving the with block: each closes the connection at once."""
        for how in ("break", "exception", "close", "with"):
            for name, stream in TEXT_STREAMS.items():
                with self.subTest(how=how, provider=name), Stalling(name, first_text(name, stream)) as server:
                    s = MODULES[name].stream(ASK, model="m-1", base_url=server.url(), settings=LIMIT, transport=plain())
                    got: list[str] = []
                    if how == "break":
                        for chunk in s.text():
                            got.append(chunk)
                            break
                        self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")
                    elif how == "exception":
                        with self.assertRaises(KeyError):
                            for chunk in s.text():
                                got.append(chunk)
                                raise KeyError(chunk)
                    elif how == "close":
                        chunks = s.text()
                        got.append(next(chunks))
                        s.close()
                    else:
                        with s:
                            got.append(next(iter(s.text())))
                    self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")
                    self.assertIs(s.answer.finish_reason, FinishReason.CANCELLED)
                    self.assertTrue(visible(s.answer).startswith("".join(got)) and got)
                    self.assertEqual(list(s), [])
                    s.close()  # again: nothing

    def test_a_whole_answer_is_handed_out_a_part_a_delta(self) -> None:
        """stream=False (and a server that answers whole): one CommitPart a part, the answer items_from_response's."""
        for name, response in RESPONSES.items():
            module = MODULES[name]
            body = recorded.raw(name, response)
            with self.subTest(name), Loopback([json_reply(200, body)]) as server:
                with module.stream(ASK, model="m-1", base_url=server.url(), stream=False, settings=LIMIT,
                                   transport=plain()) as s:
                    deltas = list(s)
                expected = module.items_from_response(json.loads(body))[0]
                self.assertEqual(comparable(s.answer), comparable(expected))
                self.assertNotIn(NOT_STREAMED_KEY, s.answer.metadata)  # not streaming was asked for
                self.assertTrue(deltas and all(type(d) is CommitPart for d in deltas))
                self.assertEqual(folded(deltas), kinds(expected))

    def test_a_provider_error_is_raised_where_the_reading_is(self) -> None:
        error = b'{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'
        with Loopback([json_reply(400, error)]) as server:
            with anthropic.stream(ASK, model="m", base_url=server.url(), settings=LIMIT, transport=plain()) as s:
                with self.assertRaises(ProviderError):
                    next(iter(s))
        self.assertIs(s.answer.finish_reason, FinishReason.CANCELLED)
        self.assertFalse(s.answer.parts)

    def test_close_from_a_callback_ends_the_read(self) -> None:
        for name, stream in TEXT_STREAMS.items():
            with self.subTest(name), Stalling(name, first_text(name, stream)) as server:
                holder: list[TurnStream] = []
                s = MODULES[name].stream(ASK, model="m-1", base_url=server.url(), settings=LIMIT, transport=plain(),
                                         on_text=lambda chunk: holder[0].close())
                holder.append(s)
                list(s)  # ends: the connection was closed under it
                self.assertTrue(server.closed.wait(LONGEST))
                self.assertIs(s.answer.finish_reason, FinishReason.CANCELLED)


class AsyncStreamTest(Loop):
    def setUp(self) -> None:
        super().setUp()
        if not can_run_asyncio():
            self.skipTest("needs asyncio.run(): this interpreter cannot run a loop to completion")

    def test_every_provider_hands_out_the_deltas_acomplete_folds(self) -> None:
        for name, streams in STREAMS.items():
            module = MODULES[name]

            async def read(url: str) -> tuple[AsyncTurnStream, list[Delta], list[str]]:
                async with module.astream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain()) as s:
                    deltas = [d async for d in s]
                async with module.astream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain()) as again:
                    texts = [t async for t in again.text()]
                self.assertEqual(comparable(again.answer), comparable(s.answer))
                self.assertEqual([d async for d in s], [])
                return s, deltas, texts

            with self.subTest(name), Loopback([reply(name, recorded.raw(name, streams[0]), pieces=5)]) as server:
                s, deltas, texts = asyncio.run(read(server.url()))
                expected = expected_of(name, streams[0])
                self.assertEqual(comparable(s.answer), comparable(expected))
                self.assertEqual(folded(deltas), kinds(s.answer))
                self.assertEqual("".join(texts), visible(expected))

    def test_the_body_of_an_async_generator_closed_early(self) -> None:
        """What an ASGI StreamingResponse does when the client goes away: aclose() the generator mid-answer."""
        for name, stream in TEXT_STREAMS.items():
            streams: list[AsyncTurnStream] = []

            async def body(url: str) -> AsyncIterator[str]:
                async with MODULES[name].astream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain()) as s:
                    streams.append(s)
                    async for chunk in s.text():
                        yield chunk

            async def serve(url: str) -> str:
                chunks = body(url)
                first = await chunks.__anext__()
                await chunks.aclose()
                return first

            with self.subTest(name), Stalling(name, first_text(name, stream)) as server:
                first = asyncio.run(serve(server.url()))
                self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")
                self.assertIs(streams[0].answer.finish_reason, FinishReason.CANCELLED)
                self.assertTrue(visible(streams[0].answer).startswith(first))

    def test_aclose_and_break(self) -> None:
        for how in ("break", "aclose"):
            name, stream = "anthropic", TEXT_STREAMS["anthropic"]

            async def read(url: str) -> AsyncTurnStream:
                s = MODULES[name].astream(ASK, model="m-1", base_url=url, settings=LIMIT, transport=plain())
                if how == "break":
                    async for _ in s.text():
                        break
                    await asyncio.sleep(0)  # the loop's generator is closed by the event loop's finalizer
                    await asyncio.sleep(0)
                else:
                    await s.text().__anext__()
                    await s.aclose()
                return s

            with self.subTest(how), Stalling(name, first_text(name, stream)) as server:
                s = asyncio.run(read(server.url()))
                self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")
                self.assertIs(s.answer.finish_reason, FinishReason.CANCELLED)

    def test_cancelling_the_task_propagates_and_closes_the_connection(self) -> None:
        for name, stream in TEXT_STREAMS.items():
            streams: list[AsyncTurnStream] = []

            async def main(url: str) -> str:
                started = asyncio.Event()

                async def read() -> None:
                    async with MODULES[name].astream(ASK, model="m-1", base_url=url, settings=LIMIT,
                                                     transport=plain()) as s:
                        streams.append(s)
                        async for _ in s.text():
                            started.set()

                task = asyncio.ensure_future(read())
                await asyncio.wait_for(started.wait(), LONGEST)
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    return "cancelled"
                return "finished"

            with self.subTest(name), Stalling(name, first_text(name, stream)) as server:
                self.assertEqual(asyncio.run(main(server.url())), "cancelled")
                self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")
                self.assertIs(streams[0].answer.finish_reason, FinishReason.CANCELLED)
                self.assertTrue(visible(streams[0].answer))


if __name__ == "__main__":
    unittest.main()
