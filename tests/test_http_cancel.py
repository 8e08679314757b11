"""Cancelling a send: from another thread, from a Ctrl-C handler on the reading thread, from asyncio.

The server pauses far longer between events than any bound here, so a read
that ends in time ended because of the interrupt.  Latencies are asserted
loosely (shared, noisy machines); ``tools/bench_cancel.py`` measures them.
"""

from __future__ import annotations

import asyncio
import io
import logging
import signal
import socket
import threading
import time
import unittest
from typing import Any

from agentkit_core import CancellationController, TurnCancelledError
from agentkit_core.http import Request, asend, send
from agentkit_core.providers import anthropic
from tests import recorded
from tests.capability import can_serve_loopback, event_loop_test
from tests.loopback import Loopback, Reply, json_reply, sse_reply
from tests.test_http import ITEMS, KEY, plain

PAUSE = 20.0  # between two events: far beyond every bound below
BOUND = 2.0  # loose: the target is 50 ms


def slow_stream() -> Reply:
    return sse_reply(recorded.raw("anthropic", "messages.text_tool_use.sse.txt"), PAUSE)


class CancelTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        self.log = io.StringIO()
        self.handler = logging.StreamHandler(self.log)
        logging.getLogger("agentkit_core").addHandler(self.handler)

    def tearDown(self) -> None:
        logging.getLogger("agentkit_core").removeHandler(self.handler)
        self.assertEqual(self.log.getvalue(), "", "a cancellation callback failed")

    def request(self, server: Loopback) -> Request:
        return anthropic.http_request(ITEMS, model="m", api_key=KEY, base_url=server.url(), stream=True, max_tokens=64)

    def test_from_another_thread_mid_read(self) -> None:
        controller = CancellationController()
        took: list[float] = []

        def interrupt() -> None:
            start = time.perf_counter()
            controller.interrupt()
            took.append(time.perf_counter() - start)

        with Loopback([slow_stream()]) as server:
            with send(self.request(server), cancel=controller.handle(), transport=plain()) as response:  # type: ignore[arg-type]
                events = response.events()
                threading.Timer(0.2, interrupt).start()
                start = time.perf_counter()
                with self.assertRaises(TurnCancelledError):
                    for _ in events:
                        pass
                waited = time.perf_counter() - start
        self.assertLess(waited, BOUND)
        self.assertLess(took[0], 0.5)  # interrupt() never waits for the reader

    def test_from_a_signal_handler_on_the_reading_thread(self) -> None:
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_kill"):
            self.skipTest("needs signals: none delivered to the main thread here (signal.pthread_kill)")
        controller = CancellationController()
        previous = signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt())
        try:
            with Loopback([slow_stream()]) as server:
                with send(self.request(server), cancel=controller, transport=plain()) as response:  # type: ignore[arg-type]
                    main = threading.main_thread().ident
                    self.assertIsNotNone(main)
                    threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGINT)).start()  # Ctrl-C
                    start = time.perf_counter()
                    with self.assertRaises(TurnCancelledError):
                        for _ in response.events():
                            pass
                    self.assertLess(time.perf_counter() - start, BOUND)
        finally:
            signal.signal(signal.SIGINT, previous)

    def test_a_wait_between_retries(self) -> None:
        limited = json_reply(429, b'{"error":{"message":"later"}}', [("Retry-After", "30")])
        controller = CancellationController()
        with Loopback([limited]) as server:
            threading.Timer(0.2, controller.interrupt).start()
            start = time.perf_counter()
            with self.assertRaises(TurnCancelledError):
                send(self.request(server), cancel=controller, transport=plain())  # type: ignore[arg-type]
            self.assertLess(time.perf_counter() - start, BOUND)
            self.assertEqual(len(server.requests), 1)

    def test_before_the_answer_comes(self) -> None:
        controller = CancellationController()
        with Loopback([Reply(never=True)]) as server:
            threading.Timer(0.2, controller.interrupt).start()
            start = time.perf_counter()
            with self.assertRaises(TurnCancelledError):
                send(self.request(server), cancel=controller, transport=plain())  # type: ignore[arg-type]
            self.assertLess(time.perf_counter() - start, BOUND)

    def test_a_blocked_connect(self) -> None:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)  # never accepted: once the queue is full, connects hang
            held = _fill_backlog(listener.getsockname())
            try:
                if held is None:
                    self.skipTest("needs a blocked connect: this system completes every connect, so none is left to cancel")
                host, port = listener.getsockname()[:2]
                controller = CancellationController()
                threading.Timer(0.2, controller.interrupt).start()
                start = time.perf_counter()
                with self.assertRaises(TurnCancelledError):
                    send(Request("GET", f"http://{host}:{port}/"), cancel=controller, connect_timeout=20, transport=plain())  # type: ignore[arg-type]
                self.assertLess(time.perf_counter() - start, BOUND)
            finally:
                for sock in held or ():
                    sock.close()

    def test_already_cancelled(self) -> None:
        controller = CancellationController()
        checkpoint = controller.handle().checkpoint()
        controller.interrupt()
        with Loopback([slow_stream()]) as server, self.assertRaises(TurnCancelledError):
            send(self.request(server), cancel=checkpoint, transport=plain())  # type: ignore[arg-type]

    @event_loop_test
    async def test_from_asyncio(self) -> None:
        controller = CancellationController()
        with Loopback([slow_stream()]) as server:
            response = await asend(self.request(server), cancel=controller, transport=plain())  # type: ignore[arg-type]
            async with response:
                asyncio.get_running_loop().call_later(0.2, controller.interrupt)
                start = time.perf_counter()
                with self.assertRaises(TurnCancelledError):
                    async for _ in response.events():
                        pass
                self.assertLess(time.perf_counter() - start, BOUND)

    @event_loop_test
    async def test_cancelling_the_task_aborts_the_read(self) -> None:
        with Loopback([slow_stream()]) as server:
            got: list[Any] = []

            async def turn() -> None:
                async with await asend(self.request(server), transport=plain()) as response:  # type: ignore[arg-type]
                    async for event in response.events():
                        got.append(event)

            task = asyncio.ensure_future(turn())
            while not got:
                await asyncio.sleep(0.01)
            start = time.perf_counter()
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            self.assertLess(time.perf_counter() - start, BOUND)
            self.assertEqual(len(got), 1)


def _fill_backlog(address: Any) -> list[socket.socket] | None:
    """Connect to ``address`` until a connect stays pending; the connections made, or None if none ever hung."""
    held = []
    for _ in range(8):
        sock = socket.socket()
        sock.settimeout(0.3)
        try:
            sock.connect(address)
        except (socket.timeout, OSError):
            sock.close()
            return held
        held.append(sock)
    for sock in held:
        sock.close()
    return None


if __name__ == "__main__":
    unittest.main()
