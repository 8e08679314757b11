"""``asend`` over an asynchronous transport: every step awaited on the loop, no executor, cancels that abort.

The fake exchange below is the :class:`~agentkit_core.http.AsyncExchange`
protocol played from memory: its reads wait on futures the test resolves, and
``abort()`` fails a pending one the way ``fetch`` does (an error, or what
looks like the end of the body).  The loop's executor is replaced by one that
fails the test, so nothing here may reach a thread.  Runs in Pyodide too, on
its own loop.
"""

from __future__ import annotations

import asyncio
import functools
import sys
import unittest
from typing import Any
from unittest import mock

from agentkit_core import CancellationController, TurnCancelledError
from agentkit_core.http import FetchTransport, ProviderError, Request, TransportError, asend, send
from tests.capability import event_loop_test, has_module, needs_threads
from tests.test_http import KEY, FakeTransport

REQUEST = Request("POST", "https://h.example/v1/messages", {"x-api-key": KEY}, b"{}")
SSE = (200, [("Content-Type", "text/event-stream")])
BOUND = 30.0  # what the test awaits before it calls the code under test hung


def refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("asend used the executor for an asynchronous transport")


def without_threads(body: Any) -> Any:
    """Run the ``async def`` test with the loop's ``run_in_executor`` failing: the native path must never use it."""

    @functools.wraps(body)
    async def run(self: unittest.TestCase) -> None:
        with mock.patch.object(asyncio.get_running_loop(), "run_in_executor", refuse):
            await body(self)

    return run


class AsyncFakeExchange:
    """A scripted answer; ``hold=True`` makes a read past the scripted chunks wait until aborted."""

    def __init__(self, status: int, headers: list[tuple[str, str]], chunks: list[bytes], hold: bool = False, quiet_abort: bool = False) -> None:
        self.answer = (status, headers)
        self.chunks = list(chunks)
        self.hold = hold
        self.quiet_abort = quiet_abort  # an abort ends the pending read with b"", as a closed socket does
        self.waiting: asyncio.Future[bytes] | None = None
        self.aborted = self.closed = False
        self.reads = 0

    async def start(self) -> tuple[int, list[tuple[str, str]]]:
        if self.aborted:
            raise TransportError("aborted before it started")
        return self.answer

    async def read(self, size: int) -> bytes:
        self.reads += 1
        if self.chunks:
            await asyncio.sleep(0)
            return self.chunks.pop(0)[:size]
        if not self.hold:
            return b""
        self.waiting = asyncio.get_running_loop().create_future()
        if self.aborted:
            self._fail()
        return await self.waiting

    def _fail(self) -> None:
        if self.waiting is not None and not self.waiting.done():
            if self.quiet_abort:
                self.waiting.set_result(b"")
            else:
                self.waiting.set_exception(TransportError("the fetch was aborted"))

    def abort(self) -> None:
        self.aborted = True
        self._fail()

    def close(self) -> None:
        self.closed = True


class AsyncFakeTransport:
    def __init__(self, *answers: AsyncFakeExchange) -> None:
        self.answers = list(answers)
        self.made: list[AsyncFakeExchange] = []
        self.clock = lambda: 0
        self.ticks: list[int] = []  # clock() as each exchange was made

    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> AsyncFakeExchange:
        self.ticks.append(self.clock())
        self.made.append(self.answers[len(self.made)])
        return self.made[-1]


def busy(ms: str) -> AsyncFakeExchange:
    return AsyncFakeExchange(529, [("retry-after-ms", ms)], [b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'])


def stream(hold: bool = False, quiet_abort: bool = False) -> AsyncFakeExchange:
    return AsyncFakeExchange(*SSE, [b'data: {"a": 1}\n', b"\n"], hold=hold, quiet_abort=quiet_abort)


async def until(condition: Any) -> None:
    """Yield to the loop until ``condition()`` holds (bounded in iterations, not time)."""
    for _ in range(100_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


class AsendNativeTest(unittest.TestCase):
    @event_loop_test
    @without_threads
    async def test_streams_on_the_loop(self) -> None:
        transport = AsyncFakeTransport(AsyncFakeExchange(*SSE, [b'data: {"a": 1}\n', b'\ndata: {"b"', b": 2}\n\n"]))
        async with await asend(REQUEST, transport=transport) as response:
            self.assertEqual((response.status, response.headers), (200, {"content-type": "text/event-stream"}))
            self.assertEqual([event async for event in response.events()], [{"a": 1}, {"b": 2}])
        self.assertTrue(transport.made[0].closed)
        self.assertFalse(transport.made[0].aborted)

    @event_loop_test
    @without_threads
    async def test_an_interrupt_aborts_a_pending_read(self) -> None:
        controller = CancellationController()
        for quiet in (False, True):
            with self.subTest(quiet_abort=quiet):
                transport = AsyncFakeTransport(stream(hold=True, quiet_abort=quiet))
                async with await asend(REQUEST, cancel=controller, transport=transport) as response:
                    events = response.events()
                    self.assertEqual(await events.__anext__(), {"a": 1})
                    pending = asyncio.ensure_future(events.__anext__())
                    await until(lambda: transport.made[0].waiting is not None)
                    controller.interrupt()  # a loop callback: a click handler, a timer
                    with self.assertRaises(TurnCancelledError):
                        await asyncio.wait_for(pending, BOUND)
                self.assertTrue(transport.made[0].aborted and transport.made[0].closed)

    @event_loop_test
    @without_threads
    async def test_cancelling_the_task_aborts_a_pending_read(self) -> None:
        transport = AsyncFakeTransport(stream(hold=True))
        got: list[Any] = []

        async def turn() -> None:
            async with await asend(REQUEST, transport=transport) as response:
                async for event in response.events():
                    got.append(event)

        task = asyncio.ensure_future(turn())
        await until(lambda: got and transport.made[0].waiting is not None)
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await asyncio.wait_for(task, BOUND)
        self.assertEqual(got, [{"a": 1}])
        self.assertTrue(transport.made[0].aborted and transport.made[0].closed)

    @event_loop_test
    @without_threads
    async def test_a_retry_wait_lets_the_loop_run(self) -> None:
        transport = AsyncFakeTransport(busy("50"), stream())
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        transport.clock = lambda: ticks
        ticking = asyncio.ensure_future(ticker())
        try:
            async with await asend(REQUEST, transport=transport) as response:
                self.assertEqual([event async for event in response.events()], [{"a": 1}])
        finally:
            ticking.cancel()
        self.assertEqual(len(transport.made), 2)
        first, second = transport.ticks
        self.assertGreaterEqual(second - first, 2)  # it ran while asend waited (a blocking wait gives it one turn at most)
        self.assertTrue(transport.made[0].closed)

    @event_loop_test
    @without_threads
    async def test_an_interrupt_ends_a_retry_wait(self) -> None:
        controller = CancellationController()
        transport = AsyncFakeTransport(busy("60000"), stream())  # 60 s: the most a server may ask
        task = asyncio.ensure_future(asend(REQUEST, cancel=controller, transport=transport))
        await until(lambda: transport.made and transport.made[0].closed)
        for _ in range(3):
            await asyncio.sleep(0)
        self.assertFalse(task.done())
        controller.interrupt()
        with self.assertRaises(TurnCancelledError):
            await asyncio.wait_for(task, BOUND)
        self.assertEqual(len(transport.made), 1)  # the retry never went out

    @event_loop_test
    @without_threads
    async def test_cancelling_the_task_ends_a_retry_wait(self) -> None:
        transport = AsyncFakeTransport(busy("60000"), stream())
        task = asyncio.ensure_future(asend(REQUEST, transport=transport))
        await until(lambda: transport.made and transport.made[0].closed)
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await asyncio.wait_for(task, BOUND)
        self.assertEqual(len(transport.made), 1)

    @event_loop_test
    async def test_already_cancelled(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        transport = AsyncFakeTransport(stream())
        with self.assertRaises(TurnCancelledError):
            await asend(REQUEST, cancel=checkpoint, transport=transport)
        self.assertEqual(transport.made, [])

    @event_loop_test
    @without_threads
    async def test_errors_as_send_gives_them(self) -> None:
        not_found = AsyncFakeExchange(404, [("x-request-id", "r")], [b'{"error":{"message":"no such model","type":"not_found"}}'])
        with self.assertRaises(ProviderError) as caught:
            await asend(REQUEST, transport=AsyncFakeTransport(not_found))
        self.assertEqual((caught.exception.status, caught.exception.error_type, caught.exception.request_id), (404, "not_found", "r"))
        self.assertTrue(not_found.closed)
        transport = AsyncFakeTransport(busy("1"), busy("1"))
        with self.assertRaises(ProviderError) as caught:
            await asend(REQUEST, retries=1, transport=transport)
        self.assertEqual((caught.exception.status, len(transport.made)), (529, 2))

        class Broken(AsyncFakeExchange):
            async def start(self) -> tuple[int, list[tuple[str, str]]]:
                raise OSError("connection refused")

        transport = AsyncFakeTransport(Broken(200, [], []), Broken(200, [], []))
        with self.assertRaises(TransportError) as failed:
            await asend(REQUEST, retries=1, transport=transport)
        self.assertEqual((failed.exception.retried, len(transport.made)), (1, 2))
        self.assertIn("connection refused", str(failed.exception))
        self.assertNotIn(KEY, str(failed.exception))

    @event_loop_test
    @without_threads
    async def test_redirects_as_send_follows_them(self) -> None:
        moved = AsyncFakeExchange(307, [("Location", "https://other.example/v2/messages")], [b"moved"])
        transport = AsyncFakeTransport(moved, stream())
        sent: list[Request] = []
        make = transport.aexchange

        def recording(request: Request, **timeouts: float) -> AsyncFakeExchange:
            sent.append(request)
            return make(request, **timeouts)

        transport.aexchange = recording  # type: ignore[method-assign]
        async with await asend(REQUEST, transport=transport) as response:
            self.assertEqual([event async for event in response.events()], [{"a": 1}])
            self.assertEqual((response.url, response.hops), ("https://other.example/v2/messages", 1))
        self.assertEqual([(r.method, r.body) for r in sent], [("POST", b"{}"), ("POST", b"{}")])  # 307 keeps both
        self.assertIsNone(sent[1].header("x-api-key"))  # another origin: the key stays behind
        self.assertTrue(moved.closed)

    @event_loop_test
    async def test_arguments(self) -> None:
        for bad, error in (({"retries": -1}, ValueError), ({"timeout": 0}, ValueError), ({"connect_timeout": "5"}, TypeError)):
            with self.subTest(bad), self.assertRaises(error):
                await asend(REQUEST, transport=AsyncFakeTransport(stream()), **bad)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            await asend("https://h.example/")  # type: ignore[arg-type]
        with self.assertRaises(TypeError) as caught:
            await asend(REQUEST, transport=object())  # type: ignore[arg-type]
        self.assertIn("AsyncTransport", str(caught.exception))

    @event_loop_test
    async def test_a_synchronous_transport_still_works(self) -> None:
        transport = FakeTransport((529, [("retry-after-ms", "1")], [b"{}"]), (200, [], [b'data: {"a": 1}\n\n']))
        async with await asend(REQUEST, transport=transport) as response:  # type: ignore[arg-type]
            self.assertEqual([event async for event in response.events()], [{"a": 1}])
        self.assertEqual(len(transport.made), 2)
        self.assertTrue(all(exchange.closed for exchange in transport.made))


class AsyncResponseTest(unittest.TestCase):
    @event_loop_test
    @without_threads
    async def test_the_reads(self) -> None:
        answer = (200, [("request-id", "req_1"), ("Set-Cookie", "a"), ("set-cookie", "b")])
        transport = AsyncFakeTransport(*(AsyncFakeExchange(*answer, [b'{"a": ', b"[1]}\r\nnext"]) for _ in range(3)))
        response = await asend(REQUEST, transport=transport)
        self.assertEqual((response.request_id, response.headers["set-cookie"]), ("req_1", "a, b"))
        self.assertEqual(await response.read(), b'{"a": [1]}\r\nnext')
        self.assertNotIn(KEY, repr(response))
        self.assertEqual(await response.read(), b"")  # read once, as Response
        async with await asend(REQUEST, transport=transport) as response:
            self.assertEqual([line async for line in response.lines()], ['{"a": [1]}', "next"])
        response = await asend(REQUEST, transport=transport)
        await response.aclose()
        with self.assertRaises(TransportError) as caught:
            await response.read()
        self.assertIn("closed", str(caught.exception))

    @event_loop_test
    @without_threads
    async def test_json(self) -> None:
        response = await asend(REQUEST, transport=AsyncFakeTransport(AsyncFakeExchange(200, [], [b'{"a": ', b"[1]}"])))
        self.assertEqual(await response.json(), {"a": [1]})

    @event_loop_test
    @without_threads
    async def test_an_error_answer_cut_off_and_a_redirect_cut_off(self) -> None:
        class CutOff(AsyncFakeExchange):
            async def read(self, size: int) -> bytes:
                raise OSError("connection reset") if self.answer[0] == 500 else TransportError("connection reset")

        transport = AsyncFakeTransport(CutOff(500, [], []), CutOff(307, [("location", "/v1/again")], []), stream())
        async with await asend(REQUEST, transport=transport) as response:
            self.assertEqual([event async for event in response.events()], [{"a": 1}])
        self.assertEqual(len(transport.made), 3)
        self.assertTrue(all(made.closed for made in transport.made))

    @event_loop_test
    @without_threads
    async def test_an_interrupt_between_a_failure_and_its_wait(self) -> None:
        controller = CancellationController()

        class Failing(AsyncFakeExchange):
            def close(self) -> None:
                super().close()
                controller.interrupt()  # the user gives up just as the error answer was read

        transport = AsyncFakeTransport(Failing(503, [], [b"busy"]), stream())
        with self.assertRaises(TurnCancelledError):
            await asend(REQUEST, cancel=controller, transport=transport)
        self.assertEqual(len(transport.made), 1)

    @event_loop_test
    async def test_the_default_transport_elsewhere(self) -> None:
        transport = FakeTransport((200, [], [b'data: {"a": 1}\n\n']))
        with mock.patch("agentkit_core.http._async._default_transport", return_value=transport), mock.patch.object(sys, "platform", "linux"):
            async with await asend(REQUEST) as response:
                self.assertEqual([event async for event in response.events()], [{"a": 1}])
        self.assertEqual(len(transport.made), 1)

    @event_loop_test
    @needs_threads
    async def test_a_synchronous_exchange_is_closed_only_after_its_step(self) -> None:
        import threading

        class Blocking:
            def __init__(self) -> None:
                self.woken = threading.Event()
                self.in_read = False
                self.closed_in_read: bool | None = None

            def start(self) -> tuple[int, list[tuple[str, str]]]:
                return 200, []

            def read(self, size: int) -> bytes:
                self.in_read = True
                try:
                    self.woken.wait(BOUND)
                    self.woken.clear()
                    self.woken.wait(0.05)  # an abort is seen, the read still winds down
                    return b""
                finally:
                    self.in_read = False

            def abort(self) -> None:
                self.woken.set()

            def close(self) -> None:
                self.closed_in_read = self.in_read

        blocking = Blocking()

        class Maker:
            def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> Blocking:
                return blocking

        async def turn() -> None:
            async with await asend(REQUEST, transport=Maker()) as response:  # type: ignore[arg-type]
                await response.read()

        task = asyncio.ensure_future(turn())
        await until(lambda: blocking.in_read)
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await asyncio.wait_for(task, BOUND)
        for _ in range(int(BOUND / 0.01)):
            if blocking.closed_in_read is not None:
                break
            await asyncio.sleep(0.01)
        self.assertIs(blocking.closed_in_read, False)


class FetchTransportOutsideABrowserTest(unittest.TestCase):
    """Where there is no ``js`` module, FetchTransport says so; under Emscripten it is the default."""

    def test_needs_pyodide(self) -> None:
        if has_module("js"):
            self.skipTest("needs no js module: this interpreter is Pyodide, and the browser run (tools/browser) covers FetchTransport")
        with self.assertRaises(TransportError) as caught:
            FetchTransport().aexchange(REQUEST, connect_timeout=1, read_timeout=1)
        self.assertIn("Pyodide", str(caught.exception))
        with self.assertRaises(TransportError):
            FetchTransport().exchange(REQUEST, connect_timeout=1, read_timeout=1)

    @event_loop_test
    async def test_the_default_under_emscripten(self) -> None:
        if has_module("js"):
            self.skipTest("needs no js module: this interpreter is Pyodide, and the browser run (tools/browser) covers FetchTransport")
        with mock.patch.object(sys, "platform", "emscripten"):
            with self.assertRaises(TransportError) as caught:
                await asend(REQUEST)
            self.assertIn("FetchTransport needs Pyodide", str(caught.exception))
            with self.assertRaises(TransportError) as caught:
                send(REQUEST)
            self.assertIn("FetchTransport needs Pyodide", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
