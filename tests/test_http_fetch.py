"""FetchTransport against a fake of the browser's ``fetch``: what it sends, reads, aborts and times out.

The fake below plays the few JavaScript objects FetchTransport touches
(``fetch``, ``Headers``, ``AbortController``, a body reader, ``setTimeout``)
with asyncio futures for promises: an abort rejects what is pending with an
``AbortError``, as a browser does.  The real thing runs in Chromium in the
browser run (``tools/browser/run.mjs``); this pins the mapping on every
interpreter.  No network, no threads.
"""

from __future__ import annotations

import asyncio
import unittest
from types import SimpleNamespace
from typing import Any
from unittest import mock

from agentkit_core import CancellationController, TurnCancelledError
from agentkit_core.http import FetchTransport, ProviderError, Request, TransportError, asend, send
from agentkit_core.http._fetch import FetchExchange
from tests.capability import event_loop_test, needs_asyncio_run

KEY = "sk-fetch-0000-secret"
REQUEST = Request("POST", "https://h.example/v1/messages?key=" + KEY, {"x-api-key": KEY, "content-type": "application/json"}, b'{"a":1}')
HOLD = object()  # a step that never answers by itself


class JsError(Exception):
    """What a rejected promise raises in Pyodide (a JsException): ``name`` and ``message``."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name, self.message = name, message


class Signal:
    def __init__(self) -> None:
        self.aborted = False
        self.pending: list[asyncio.Future[Any]] = []

    def wait(self, result: Any) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self.aborted:
            future.set_exception(JsError("AbortError", "signal is aborted without reason"))
        elif result is not HOLD:
            future.set_result(result)
        else:
            self.pending.append(future)
        return future

    def abort(self) -> None:
        self.aborted = True
        for future in self.pending:
            if not future.done():
                future.set_exception(JsError("AbortError", "signal is aborted without reason"))


class FakeJs:
    """``js`` as FetchTransport uses it; ``answer`` is (status, headers, chunks) or a JsError, ``chunks`` may end in HOLD."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[tuple[str, Any]] = []
        self.controllers: list[Any] = []
        self.timers = 0
        self.Headers = SimpleNamespace(new=self._headers)
        self.Object = SimpleNamespace(new=SimpleNamespace)
        self.AbortController = SimpleNamespace(new=self._controller)
        self.Array = SimpleNamespace(from_=lambda headers: SimpleNamespace(to_py=lambda: [list(pair) for pair in headers]))

    def _headers(self) -> Any:
        pairs: list[tuple[str, str]] = []
        return SimpleNamespace(pairs=pairs, append=lambda name, value: pairs.append((name, value)))

    def _controller(self) -> Any:
        signal = Signal()
        controller = SimpleNamespace(signal=signal, abort=signal.abort)
        self.controllers.append(controller)
        return controller

    def fetch(self, url: str, options: Any) -> asyncio.Future[Any]:
        self.sent.append((url, options))
        signal = options.signal
        if isinstance(self.answer, JsError):
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            future.set_exception(self.answer)
            return future
        if self.answer is HOLD:
            return signal.wait(HOLD)
        status, headers, chunks = self.answer
        chunks = list(chunks)

        def read() -> asyncio.Future[Any]:
            if not chunks:
                return signal.wait(SimpleNamespace(done=True, value=None))
            if chunks[0] is HOLD:
                return signal.wait(HOLD)
            data = chunks.pop(0)
            return signal.wait(SimpleNamespace(done=False, value=SimpleNamespace(to_bytes=lambda: data)))

        body = SimpleNamespace(getReader=lambda: SimpleNamespace(read=read))
        return signal.wait(SimpleNamespace(status=status, headers=headers, body=body))

    def setTimeout(self, callback: Any, ms: float) -> Any:  # noqa: N802 - the JavaScript name
        self.timers += 1
        return asyncio.get_running_loop().call_later(ms / 1000, callback)

    def clearTimeout(self, handle: Any) -> None:  # noqa: N802
        self.timers -= 1
        handle.cancel()


class FakeFfi:
    def __init__(self, run_sync: Any = None) -> None:
        self.destroyed = 0
        self.run_sync = run_sync

    def create_proxy(self, fn: Any) -> Any:
        """A callable the fake's timers call; ``destroy()`` counted."""
        ffi = self

        class Proxy:
            def __call__(self) -> None:
                fn()

            def destroy(self) -> None:
                ffi.destroyed += 1

        return Proxy()

    def to_js(self, data: bytes) -> Any:
        return ("Uint8Array", bytes(data))

    def can_run_sync(self) -> bool:
        return self.run_sync is not None


class Transport:
    def __init__(self, js: FakeJs, ffi: FakeFfi | None = None) -> None:
        self.js, self.ffi = js, ffi or FakeFfi()

    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> FetchExchange:
        return FetchExchange(self.js, self.ffi, request, connect_timeout, read_timeout)


def exchange(js: FakeJs, read_timeout: float = 30.0, connect_timeout: float = 30.0) -> tuple[FetchExchange, FakeFfi]:
    ffi = FakeFfi()
    return FetchExchange(js, ffi, REQUEST, connect_timeout, read_timeout), ffi


class FetchExchangeTest(unittest.TestCase):
    @event_loop_test
    async def test_sends_the_request_and_reads_the_body_in_pieces(self) -> None:
        js = FakeJs((200, [("content-type", "text/event-stream"), ("request-id", "r1")], [b"abcdef", b"gh"]))
        fetch, ffi = exchange(js)
        status, headers = await fetch.start()
        self.assertEqual((status, headers), (200, [("content-type", "text/event-stream"), ("request-id", "r1")]))
        url, options = js.sent[0]
        self.assertEqual((url, options.method, options.headers.pairs, options.body), (REQUEST.url, "POST", list(REQUEST.headers), ("Uint8Array", b'{"a":1}')))
        self.assertIs(options.signal, js.controllers[0].signal)
        self.assertEqual([await fetch.read(4), await fetch.read(4), await fetch.read(4), await fetch.read(4)], [b"abcd", b"ef", b"gh", b""])
        fetch.close()
        self.assertFalse(js.controllers[0].signal.aborted)  # read to the end: nothing to stop
        self.assertEqual((js.timers, ffi.destroyed), (0, 4))  # a timer a wait (the head, three reads), each cleared and released

    @event_loop_test
    async def test_a_get_has_no_body_and_an_answer_without_one_ends(self) -> None:
        js = FakeJs((204, [], []))
        fetch = FetchExchange(js, FakeFfi(), Request("GET", "https://h.example/v1/models"), 30, 30)
        self.assertEqual((await fetch.start())[0], 204)
        self.assertFalse(hasattr(js.sent[0][1], "body"))
        self.assertEqual(await fetch.read(10), b"")

    @event_loop_test
    async def test_abort_ends_a_pending_read(self) -> None:
        fetch, _ = exchange(FakeJs((200, [], [b"a", HOLD])))
        await fetch.start()
        self.assertEqual(await fetch.read(10), b"a")
        pending = asyncio.ensure_future(fetch.read(10))
        await asyncio.sleep(0)
        fetch.abort()
        with self.assertRaises(TransportError) as caught:
            await asyncio.wait_for(pending, 30)
        self.assertIn("aborted", str(caught.exception))
        self.assertFalse(caught.exception.timed_out)

    @event_loop_test
    async def test_abort_before_start(self) -> None:
        js = FakeJs((200, [], []))
        fetch, _ = exchange(js)
        fetch.abort()
        with self.assertRaises(TransportError):
            await fetch.start()
        self.assertTrue(js.controllers[0].signal.aborted)

    @event_loop_test
    async def test_timeouts(self) -> None:
        fetch, _ = exchange(FakeJs(HOLD), read_timeout=0.01, connect_timeout=0.01)
        with self.assertRaises(TransportError) as caught:
            await asyncio.wait_for(fetch.start(), 30)
        self.assertTrue(caught.exception.timed_out)
        self.assertIn("the answer's head", str(caught.exception))
        fetch, _ = exchange(FakeJs((200, [], [HOLD])), read_timeout=0.01)
        await fetch.start()
        with self.assertRaises(TransportError) as caught:
            await asyncio.wait_for(fetch.read(10), 30)
        self.assertTrue(caught.exception.timed_out)
        self.assertIn("the next byte", str(caught.exception))

    @event_loop_test
    async def test_a_failed_fetch_names_cors_and_hides_the_key(self) -> None:
        fetch, _ = exchange(FakeJs(JsError("TypeError", "Failed to fetch")))
        with self.assertRaises(TransportError) as caught:
            await fetch.start()
        message = str(caught.exception)
        self.assertIn("TypeError: Failed to fetch", message)
        self.assertIn("CORS", message)
        self.assertNotIn(KEY, message)
        self.assertNotIn(KEY, repr(fetch))

    @event_loop_test
    async def test_close_mid_body_stops_the_fetch(self) -> None:
        js = FakeJs((200, [], [b"a", HOLD]))
        fetch, _ = exchange(js)
        await fetch.start()
        await fetch.read(10)
        fetch.close()
        self.assertTrue(js.controllers[0].signal.aborted)


class FetchThroughAsendTest(unittest.TestCase):
    @event_loop_test
    async def test_an_interrupt_is_a_cancellation_and_errors_are_provider_errors(self) -> None:
        controller = CancellationController()
        transport = Transport(FakeJs((200, [], [b'data: {"a": 1}\n\n', HOLD])))
        async with await asend(REQUEST, cancel=controller, transport=transport) as response:
            events = response.events()
            self.assertEqual(await events.__anext__(), {"a": 1})
            asyncio.get_running_loop().call_soon(controller.interrupt)
            with self.assertRaises(TurnCancelledError):
                await asyncio.wait_for(events.__anext__(), 30)
        error = Transport(FakeJs((529, [("retry-after-ms", "1")], [b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'])))
        with self.assertRaises(ProviderError) as caught:
            await asend(REQUEST, retries=1, transport=error)
        self.assertEqual((caught.exception.status, caught.exception.error_type, len(error.js.sent)), (529, "overloaded_error", 2))


class FetchTransportFacesTest(unittest.TestCase):
    def test_the_synchronous_face_needs_run_sync(self) -> None:
        js = FakeJs((200, [], []))
        with mock.patch("agentkit_core.http._fetch._browser", return_value=(js, FakeFfi())):
            self.assertIsInstance(FetchTransport().aexchange(REQUEST, connect_timeout=1, read_timeout=1), FetchExchange)
            with self.assertRaises(TransportError) as caught:
                FetchTransport().exchange(REQUEST, connect_timeout=1, read_timeout=1)
        self.assertIn("asend", str(caught.exception))
        self.assertIn("JSPI", str(caught.exception))

    def test_run_sync_refusing_after_all(self) -> None:
        def refuse(awaitable: Any) -> Any:
            raise RuntimeError("WebAssembly stack switching not supported in this JavaScript runtime")

        with mock.patch("agentkit_core.http._fetch._browser", return_value=(FakeJs((200, [], [])), FakeFfi(refuse))):
            blocking = FetchTransport().exchange(REQUEST, connect_timeout=1, read_timeout=1)
        with self.assertRaises(TransportError) as caught:
            blocking.start()
        self.assertIn("asend", str(caught.exception))
        self.assertIn("stack switching", str(caught.exception))
        self.assertEqual(repr(FetchTransport()), "FetchTransport()")


class BlockingFaceTest(unittest.TestCase):
    @needs_asyncio_run
    def test_send_through_run_sync(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            ffi = FakeFfi(loop.run_until_complete)  # run_sync: the awaitable driven to its end
            js = FakeJs((200, [("content-type", "text/event-stream")], [b'data: {"a": 1}\n\n']))
            with mock.patch("agentkit_core.http._fetch._browser", return_value=(js, ffi)):
                with send(REQUEST, transport=FetchTransport()) as response:
                    self.assertEqual(list(response.events()), [{"a": 1}])
        finally:
            loop.close()
        self.assertFalse(js.controllers[0].signal.aborted)

    @event_loop_test
    async def test_an_answer_without_a_body(self) -> None:
        js = FakeJs((200, [], []))
        answer = js.fetch
        js.fetch = lambda url, options: _no_body(answer(url, options))  # type: ignore[method-assign]
        fetch = FetchExchange(js, FakeFfi(), REQUEST, 30, 30)
        self.assertEqual((await fetch.start())[0], 200)
        self.assertEqual(await fetch.read(10), b"")


async def _no_body(pending: Any) -> Any:
    answer = await pending
    answer.body = None
    return answer


if __name__ == "__main__":
    unittest.main()
