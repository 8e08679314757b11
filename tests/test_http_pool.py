"""Kept-alive connections: reused when the answer was read whole, closed otherwise, a stale one replaced invisibly.

A raw keep-alive server on 127.0.0.1 counts its connections and answers each
request by a script that may keep the connection, close it, reset it, or
close it without answering (what a server does to a connection it timed out
while the client thought it idle).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
import unittest
from typing import Callable, Optional

from agentkit_core import CancellationController, TurnCancelledError
from agentkit_core.http import Request, SocketTransport, TransportError, send
from tests.capability import can_serve_ipv6_loopback, can_serve_loopback

_WAIT = 10.0
#: (connection number, request number on it, request head) -> bytes to answer, or None to close unanswered
Script = Callable[[int, int, bytes], Optional[bytes]]


def ok(body: bytes = b"{}", *extra: bytes) -> bytes:
    return b"\r\n".join([b"HTTP/1.1 200 OK", b"Content-Length: %d" % len(body), *extra]) + b"\r\n\r\n" + body


class KeepAliveServer:
    """Serves connections in threads, each request answered by ``script``; ``connections`` counts them."""

    def __init__(self, script: Script, family: int = socket.AF_INET) -> None:
        self.script = script
        host = "::1" if family == socket.AF_INET6 else "127.0.0.1"
        self.listener = socket.create_server((host, 0), family=family)
        self.listener.settimeout(_WAIT)
        self.connections = 0
        self.heads: list[bytes] = []
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()

    def url(self, path: str = "/") -> str:
        host, port = self.listener.getsockname()[:2]
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}{path}"

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                n = self.connections
                self.connections += 1
                self.open.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn, n), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket, n: int) -> None:
        conn.settimeout(_WAIT)
        data = b""
        served = 0
        try:
            while not self.stopping.is_set():
                while b"\r\n\r\n" not in data:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    data += piece
                head, _, data = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(data) < length:
                    data += conn.recv(65536)
                data = data[length:]
                with self.lock:
                    self.heads.append(head)
                answer = self.script(n, served, head)
                served += 1
                if answer is None:
                    return
                if answer == b"RESET":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if answer.startswith(b"CLOSE"):  # answer, then close as a server does after Connection: close
                    conn.sendall(answer[5:])
                    return
                if answer.startswith(b"STALL"):
                    conn.sendall(answer[5:])
                    self.stopping.wait(_WAIT)
                    return
                conn.sendall(answer)
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> KeepAliveServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        self.threads.append(thread)
        thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for sock in [self.listener, *self.open]:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.listener.close()
        for thread in self.threads:
            thread.join(_WAIT)


def get(transport: SocketTransport, url: str, **options: object) -> bytes:
    options.setdefault("retries", 0)
    with send(Request("GET", url), transport=transport, timeout=5.0, connect_timeout=5.0, **options) as response:  # type: ignore[arg-type]
        return response.read()


class PoolTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        self.transport = SocketTransport(proxies={})
        self.addCleanup(self.transport.close)

    def test_sequential_requests_share_one_connection(self) -> None:
        chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
        with KeepAliveServer(lambda c, r, h: ok(b"%d" % r) if r % 2 else chunked) as server:
            bodies = [get(self.transport, server.url()) for _ in range(20)]
        self.assertEqual(bodies, [b"hi" if n % 2 == 0 else b"%d" % n for n in range(20)])
        self.assertEqual((server.connections, self.transport.opened), (1, 1))
        self.assertTrue(all(b"connection: close" not in h.lower() for h in server.heads))

    def test_what_the_server_closes_is_not_reused(self) -> None:
        for answer in (ok(b"x", b"Connection: close"), b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", b"CLOSEHTTP/1.1 200 OK\r\n\r\nx"):
            with self.subTest(answer), KeepAliveServer(lambda c, r, h: answer) as server:
                for _ in range(3):
                    self.assertEqual(get(self.transport, server.url()), b"x")
                self.assertEqual(server.connections, 3)

    def test_a_half_read_answer_is_not_reused(self) -> None:
        with KeepAliveServer(lambda c, r, h: ok(b"x" * 200_000)) as server:
            with send(Request("GET", server.url()), transport=self.transport, retries=0) as response:
                next(response.chunks(10))
            self.assertEqual(len(get(self.transport, server.url())), 200_000)
            self.assertEqual(get(self.transport, server.url())[:1], b"x")
            self.assertEqual(server.connections, 2)

    def test_a_stream_read_up_to_done_is_reused(self) -> None:
        events = b'data: {"n": 1}\n\n', b"data: [DONE]\n\n"
        stream = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        stream += b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"
        with KeepAliveServer(lambda c, r, h: stream) as server:
            for _ in range(3):
                with send(Request("GET", server.url()), transport=self.transport, retries=0) as response:
                    self.assertEqual(list(response.events()), [{"n": 1}])  # stops at [DONE]: the last chunk is left unread
            self.assertEqual(server.connections, 1)

    def test_an_error_answer_read_whole_is_reused(self) -> None:
        error = b'{"error": {"message": "no"}}'
        script: Script = lambda c, r, h: ok() if r else b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s" % (len(error), error)  # noqa: E731
        with KeepAliveServer(script) as server:
            with self.assertRaises(Exception):  # noqa: B017 - whatever the client raises, it raises
                get(self.transport, server.url())
            get(self.transport, server.url())
        self.assertEqual(server.connections, 1)

    def test_a_cancelled_read_is_never_reused(self) -> None:
        controller = CancellationController()
        script: Script = lambda c, r, h: ok() if r or c else b"STALLHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"  # noqa: E731
        with KeepAliveServer(script) as server:
            with send(Request("GET", server.url()), transport=self.transport, cancel=controller, retries=0) as response:
                chunks = response.chunks()
                self.assertEqual(next(chunks), b"abc")
                threading.Timer(0.1, controller.interrupt).start()
                with self.assertRaises(TurnCancelledError):
                    next(chunks)
            self.assertEqual(self.transport.pool.idle(), 0)
            get(self.transport, server.url())
        self.assertEqual(server.connections, 2)

    def test_a_timed_out_read_is_never_reused(self) -> None:
        script: Script = lambda c, r, h: ok() if c else b"STALLHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"  # noqa: E731
        with KeepAliveServer(script) as server:
            with self.assertRaises(TransportError) as caught:
                with send(Request("GET", server.url()), transport=self.transport, timeout=0.2, retries=0) as response:
                    response.read()
            self.assertTrue(caught.exception.timed_out)
            self.assertIn("(timeout)", str(caught.exception))
            get(self.transport, server.url())
        self.assertEqual(server.connections, 2)

    def test_a_connection_closed_while_idle_is_replaced_invisibly(self) -> None:
        for stale in (None, b"RESET"):
            # the first connection answers once, then drops the second request unanswered: a server's idle timeout
            script: Script = lambda c, r, h: ok(b"%d.%d" % (c, r)) if c or r == 0 else stale  # noqa: E731
            with self.subTest(stale), KeepAliveServer(script) as server:
                transport = SocketTransport(proxies={})
                self.assertEqual(get(transport, server.url()), b"0.0")
                self.assertEqual(get(transport, server.url()), b"1.0")  # retries=0: the replacement is not a retry
                self.assertEqual(server.connections, 2)
                self.assertEqual(len(server.heads), 3)
                transport.close()

    def test_a_close_the_idle_check_missed_is_replaced_invisibly(self) -> None:
        from unittest import mock

        # the server closes after each answer without saying so; the idle check is made to miss it (the race
        # where the close arrives just after the check), so the request meets the closed connection itself
        with KeepAliveServer(lambda c, r, h: b"CLOSE" + ok(b"%d" % c)) as server:
            with mock.patch("agentkit_core.http._pool.Connection.idle_and_open", return_value=True):
                bodies = [get(self.transport, server.url()) for _ in range(3)]
        self.assertEqual(bodies, [b"0", b"1", b"2"])
        self.assertEqual((server.connections, len(server.heads)), (3, 3))

    def test_the_servers_keep_alive_timeout_is_honoured(self) -> None:
        answer = ok(b"x", b"Keep-Alive: timeout=1, max=100")  # kept for 1 s less a second: not kept idle at all
        with KeepAliveServer(lambda c, r, h: answer) as server:
            get(self.transport, server.url())
            time.sleep(0.01)
            get(self.transport, server.url())
        self.assertEqual(server.connections, 2)
        with KeepAliveServer(lambda c, r, h: ok(b"x", b"Keep-Alive: timeout=5")) as server:
            get(self.transport, server.url())
            time.sleep(0.01)
            get(self.transport, server.url())
        self.assertEqual(server.connections, 1)

    def test_a_forked_child_starts_with_an_empty_pool(self) -> None:
        from unittest import mock

        with KeepAliveServer(lambda c, r, h: ok(b"%d" % c)) as server:
            self.assertEqual(get(self.transport, server.url()), b"0")
            with mock.patch("agentkit_core.http._pool.os.getpid", return_value=-1):  # as after fork(): another process
                self.assertEqual(get(self.transport, server.url()), b"1")  # not the parent's connection
                self.assertEqual(get(self.transport, server.url()), b"1")  # its own is kept
        self.assertEqual(server.connections, 2)

    def test_async_sends_share_the_pool(self) -> None:
        import asyncio

        from agentkit_core.http import asend

        async def twice(url: str) -> list[bytes]:
            bodies = []
            for _ in range(2):
                async with await asend(Request("GET", url), transport=self.transport, retries=0) as response:
                    bodies.append(await response.read())
            return bodies

        with KeepAliveServer(lambda c, r, h: ok(b"%d" % r)) as server:
            self.assertEqual(asyncio.run(twice(server.url())), [b"0", b"1"])
        self.assertEqual(server.connections, 1)

    def test_a_read_whose_task_was_cancelled_is_never_reused(self) -> None:
        import asyncio

        from agentkit_core.http import asend

        async def cut(url: str) -> None:
            response = await asend(Request("GET", url), transport=self.transport, retries=0)
            chunks = response.chunks()
            self.assertEqual(await chunks.__anext__(), b"abc")
            reading = asyncio.ensure_future(chunks.__anext__())
            await asyncio.sleep(0.1)
            reading.cancel()  # the task is cancelled while its read waits in the executor
            with self.assertRaises(asyncio.CancelledError):
                await reading
            response.close()

        script: Script = lambda c, r, h: ok() if r or c else b"STALLHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"  # noqa: E731
        with KeepAliveServer(script) as server:
            asyncio.run(cut(server.url()))
            self.assertEqual(self.transport.pool.idle(), 0)
            get(self.transport, server.url())
        self.assertEqual(server.connections, 2)

    def test_a_fresh_connection_closed_unanswered_is_an_error(self) -> None:
        with KeepAliveServer(lambda c, r, h: None) as server:
            with self.assertRaises(TransportError) as caught:
                get(self.transport, server.url())
            self.assertIn("closed before any answer", str(caught.exception))
            self.assertEqual(server.connections, 1)

    def test_a_connection_the_server_closed_is_not_handed_out(self) -> None:
        with KeepAliveServer(lambda c, r, h: ok() if r == 0 else None) as server:
            get(self.transport, server.url())
            deadline = time.monotonic() + _WAIT
            for sock in list(server.open):
                sock.shutdown(socket.SHUT_RDWR)
            while self.transport.pool.idle() and time.monotonic() < deadline:
                conn = self.transport.pool.take(("http",) + tuple(server.listener.getsockname()[:2]))
                if conn is None:
                    break
                self.transport.pool.give(conn, self.transport.pool.generation)
                time.sleep(0.01)
            self.assertEqual(self.transport.pool.idle(), 0)

    def test_threads_share_a_transport(self) -> None:
        with KeepAliveServer(lambda c, r, h: ok(b"%d" % r)) as server:
            errors: list[BaseException] = []

            def work() -> None:
                try:
                    for _ in range(15):
                        get(self.transport, server.url())
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)

            threads = [threading.Thread(target=work) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(_WAIT * 3)
            self.assertEqual(errors, [])
            self.assertEqual(len(server.heads), 60)
            self.assertLessEqual(server.connections, 8)

    def test_close_ends_the_pool(self) -> None:
        with KeepAliveServer(lambda c, r, h: ok()) as server:
            get(self.transport, server.url())
            self.assertEqual(self.transport.pool.idle(), 1)
            with send(Request("GET", server.url()), transport=self.transport, retries=0) as response:
                self.transport.close()  # while this one is out: it is closed, not kept, when it ends
                response.read()
            self.assertEqual(self.transport.pool.idle(), 0)
            get(self.transport, server.url())  # still usable afterwards, with a new connection
            self.assertEqual((server.connections, self.transport.pool.idle()), (2, 1))

    def test_no_pooling_when_asked(self) -> None:
        for transport in (SocketTransport(proxies={}, max_idle=0), SocketTransport(proxies={}, keepalive_expiry=0)):
            with self.subTest(transport.pool.per_key), KeepAliveServer(lambda c, r, h: ok()) as server:
                get(transport, server.url())
                time.sleep(0.01)
                get(transport, server.url())
                self.assertEqual(server.connections, 2)
                transport.close()
        with self.assertRaises(ValueError):
            SocketTransport(max_idle=-1)
        with self.assertRaises(ValueError):
            SocketTransport(keepalive_expiry=True)  # type: ignore[arg-type]

    def test_ipv6_literals_are_bracketed(self) -> None:
        if not (socket.has_ipv6 and can_serve_ipv6_loopback()):
            self.skipTest("needs [::1]: this machine cannot listen there")
        server = KeepAliveServer(lambda c, r, h: ok(), socket.AF_INET6)
        port = server.listener.getsockname()[1]
        with server:
            get(self.transport, server.url())
            get(self.transport, server.url())
        self.assertIn(b"\r\nHost: [::1]:%d" % port, server.heads[0])
        self.assertEqual(server.connections, 1)


class SharedTransportTest(unittest.TestCase):
    def test_webassembly_makes_no_pool(self) -> None:
        import sys
        from unittest import mock

        from agentkit_core.http import _sockets
        from agentkit_core.http._client import _default_transport

        shared = _sockets._shared
        with mock.patch.object(sys, "platform", "emscripten"):
            self.assertNotIsInstance(_default_transport(), SocketTransport)  # the browser's fetch: no sockets, no pool
        self.assertIs(_sockets._shared, shared)

    def test_one_transport_and_one_context_for_sends_given_none(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        from agentkit_core.http._client import _default_transport
        from agentkit_core.http._sockets import shared_transport

        self.assertIs(_default_transport(), shared_transport())
        self.assertIs(shared_transport().context(), shared_transport().context())
        made: list[object] = []
        threads = [threading.Thread(target=lambda: made.append(shared_transport())) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(_WAIT)
        self.assertEqual({id(t) for t in made}, {id(shared_transport())})

    def test_threads_sending_with_no_transport_share_its_pool(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        import os
        from unittest import mock

        from agentkit_core.http._sockets import shared_transport

        self.addCleanup(shared_transport().pool.close)  # the server will be gone: drop what the pool kept of it
        proxies = {k: v for k, v in os.environ.items() if k.lower().endswith("_proxy")}
        with mock.patch.dict(os.environ, {}), KeepAliveServer(lambda c, r, h: ok(b"%d" % r)) as server:
            for name in proxies:
                del os.environ[name]  # loopback goes direct, whatever proxy this machine has
            opened = shared_transport().opened
            errors: list[BaseException] = []
            start = threading.Barrier(4, timeout=_WAIT)

            def work() -> None:
                try:
                    start.wait()  # all four at once
                    for _ in range(10):
                        with send(Request("GET", server.url()), timeout=5.0, connect_timeout=5.0, retries=0) as response:
                            response.read()
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)

            threads = [threading.Thread(target=work) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(_WAIT * 3)
            self.assertEqual(errors, [])
            self.assertEqual(len(server.heads), 40)
            self.assertLessEqual(server.connections, 4)  # each thread's connection went back for the next request
            self.assertEqual(shared_transport().opened - opened, server.connections)


if __name__ == "__main__":
    unittest.main()
