"""The default transport's parser on answers no real server should send.

A raw server on 127.0.0.1 writes scripted bytes, whatever the request was,
and closes.  Whatever it writes, ``send()`` and the reads after it give the
body or raise :class:`~agentkit_core.http.TransportError` (or the provider
error of an error status): never another exception, never a hang, never
more than one read's worth of memory at once.
"""

from __future__ import annotations

import gzip
import random
import socket
import threading
import unittest
from typing import Sequence

from agentkit_core.http import ProviderError, Request, TransportError, send
from tests.capability import can_serve_loopback

#: The longest the server waits for anything, in seconds.
_WAIT = 10.0


class RawServer:
    """Answers the n-th connection with ``answers[n]`` and closes it; serves ``len(answers)`` connections."""

    def __init__(self, answers: Sequence[bytes]) -> None:
        self.answers = list(answers)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(_WAIT)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        n = 0
        while not self.stopping.is_set() and n < len(self.answers):
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(_WAIT)
                try:
                    self._read_request(conn)
                    conn.sendall(self.answers[n])
                except OSError:
                    pass
            n += 1

    @staticmethod
    def _read_request(conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                return
            data += piece
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(body) < length:
            piece = conn.recv(65536)
            if not piece:
                return
            body += piece

    def url(self) -> str:
        host, port = self.listener.getsockname()[:2]
        return f"http://{host}:{port}/v1/messages"

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept()
        except OSError:
            pass
        self.listener.close()
        self.thread.join(_WAIT)


def _answer(body: bytes, *, chunked: bool, coding: str | None = None, status: bytes = b"200 OK") -> bytes:
    head = [b"HTTP/1.1 " + status, b"Content-Type: application/json", b"Connection: close"]
    if coding:
        head.append(b"Content-Encoding: " + coding.encode())
    if chunked:
        head.append(b"Transfer-Encoding: chunked")
        middle = len(body) // 2
        framed = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:middle], body[middle:]) if c) + b"0\r\n\r\n"
    else:
        head.append(b"Content-Length: %d" % len(body))
        framed = body
    return b"\r\n".join(head) + b"\r\n\r\n" + framed


def _exchange(url: str) -> bytes:
    request = Request("POST", url, {"content-type": "application/json"}, b"{}")
    with send(request, timeout=5.0, connect_timeout=5.0, retries=0) as response:
        return b"".join(response.chunks())


class EarlyServer(RawServer):
    """Reads only the request's head, then writes its answer (or nothing) and closes, the body unread."""

    @staticmethod
    def _read_request(conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                return
            data += piece


@unittest.skipUnless(can_serve_loopback(), "needs sockets: this interpreter cannot serve and reach 127.0.0.1")
class EarlyAnswerTest(unittest.TestCase):
    BODY = b"x" * 20_000_000  # more than loopback's socket buffers hold: the send breaks when the server closes

    def test_an_answer_before_the_whole_body_is_the_answer(self) -> None:
        page = b"<html><head><title>413 Request Entity Too Large</title></head><body>too big</body></html>"
        answer = b"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/html\r\nConnection: close\r\n"
        answer += b"Content-Length: %d\r\n\r\n%s" % (len(page), page)
        with EarlyServer([answer, answer, answer]) as server:
            with self.assertRaises(ProviderError) as caught:
                send(Request("POST", server.url(), {}, self.BODY), timeout=5.0, connect_timeout=5.0, retries=2)
        self.assertEqual((caught.exception.status, caught.exception.retried), (413, 0))  # not a reset, and not retried
        self.assertEqual(caught.exception.message, "Request Entity Too Large")
        self.assertEqual(caught.exception.body, page)

    def test_no_answer_either_is_the_broken_send(self) -> None:
        with EarlyServer([b""]) as server:
            with self.assertRaises(TransportError) as caught:
                send(Request("POST", server.url(), {}, self.BODY), timeout=5.0, connect_timeout=5.0, retries=0)
        self.assertRegex(str(caught.exception), r"(Reset|BrokenPipe)Error|closed before any answer")


@unittest.skipUnless(can_serve_loopback(), "needs sockets: this interpreter cannot serve and reach 127.0.0.1")
class MalformedAnswerTest(unittest.TestCase):
    def read(self, answer: bytes) -> bytes:
        with RawServer([answer]) as server:
            return _exchange(server.url())

    def assert_refused(self, answer: bytes, words: str) -> None:
        with self.assertRaises(TransportError) as caught:
            self.read(answer)
        self.assertIn(words, str(caught.exception))

    def test_well_formed_answers_read_whole(self) -> None:
        body = b'{"ok": true}' * 50
        for chunked in (False, True):
            for coding in (None, "gzip"):
                with self.subTest(chunked=chunked, coding=coding):
                    data = gzip.compress(body) if coding else body
                    self.assertEqual(self.read(_answer(data, chunked=chunked, coding=coding)), body)

    def test_a_transfer_coding_before_chunked_and_raw_deflate_are_decoded(self) -> None:
        import zlib

        body = b'{"ok": true}' * 50
        raw = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw_deflate = raw.compress(body) + raw.flush()
        gzipped = gzip.compress(body)
        for te, ce, data in (
            (b"gzip, chunked", None, gzipped),  # never handed out as its compressed bytes
            (b"gzip, chunked", b"deflate", gzip.compress(zlib.compress(body))),  # content coding inside the transfer coding
            (b"chunked", b"deflate", raw_deflate),  # raw deflate sent as deflate, as some servers do
        ):
            head = b"HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: " + te + b"\r\n"
            head += b"Content-Encoding: " + ce + b"\r\n" if ce else b""
            framed = b"".join(b"%x\r\n%s\r\n" % (len(data[i : i + 100]), data[i : i + 100]) for i in range(0, len(data), 100))
            with self.subTest(te=te, ce=ce):
                self.assertEqual(self.read(head + b"\r\n" + framed + b"0\r\n\r\n"), body)

    def test_chunk_extensions_are_read_past(self) -> None:
        """RFC 9112 7.1.1: a chunk size may carry ``;name=value`` extensions, which a reader ignores."""
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        for sizes in ((b"5;ext=1", b"6;name=\"quoted;value\"", b"0;last"), (b"5 ;ext", b"6\t;a=b;c", b"0")):
            with self.subTest(sizes=sizes):
                first, second, last = sizes
                answer = head + first + b"\r\nhello\r\n" + second + b"\r\n world\r\n" + last + b"\r\n\r\n"
                self.assertEqual(self.read(answer), b"hello world")

    def test_a_chunk_size_that_is_no_hex_number(self) -> None:
        good = _answer(b"hello", chunked=True)
        for bad in (b"-5", b"0x5", b"1_0", b"", b"+5", b" "):
            with self.subTest(bad):
                self.assert_refused(good.replace(b"\r\n2\r\n", b"\r\n" + bad + b"\r\n", 1), "chunk size")

    def test_a_length_or_status_in_other_digits(self) -> None:
        odd_length = _answer(b"{}", chunked=False).replace(b"Content-Length: 2", "Content-Length: \u00b2".encode("latin-1"))
        self.assert_refused(odd_length, "Content-Length is no length")  # RFC 9112 6.3: an invalid length is an unrecoverable error
        self.assert_refused(_answer(b"{}", chunked=False).replace(b"200 OK", "\u00b2\u00b2\u00b2 OK".encode("latin-1")), "not an HTTP answer")

    def test_endless_trailers_are_refused(self) -> None:
        answer = _answer(b"hi", chunked=True)[: -len(b"\r\n")] + b"X-Trailer: " + b"a" * 1000 + b"\r\n"
        answer += (b"X-Trailer: " + b"a" * 1000 + b"\r\n") * 100 + b"\r\n"
        self.assert_refused(answer, "trailers are too large")

    def test_a_gzip_bomb_comes_out_one_read_at_a_time(self) -> None:
        body = b"\0" * (20 * 1024 * 1024)
        answer = _answer(gzip.compress(body, 9), chunked=False, coding="gzip")
        with RawServer([answer]) as server:
            request = Request("POST", server.url(), {}, b"{}")
            with send(request, timeout=5.0, retries=0) as response:
                sizes = [len(piece) for piece in response.chunks()]
        self.assertEqual(sum(sizes), len(body))
        self.assertLessEqual(max(sizes), 1024 * 1024, "one read inflated far past what it asked for")

    def test_mutated_answers_raise_only_transport_errors(self) -> None:
        rng = random.Random(20261201)
        body = b'{"type": "message", "content": [{"type": "text", "text": "hi"}]}'
        seeds = [
            _answer(body, chunked=True),
            _answer(body, chunked=False),
            _answer(gzip.compress(body), chunked=True, coding="gzip"),
            _answer(b'{"error": {"type": "overloaded_error"}}', chunked=False, status=b"529 Overloaded"),
        ]
        outcomes: dict[str, int] = {}
        answers: list[bytes] = []
        for _ in range(160):
            answer = bytearray(rng.choice(seeds))
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(answer))
                what = rng.randrange(4)
                if what == 0:
                    answer[at] = rng.randrange(256)
                elif what == 1:
                    answer[at:at] = bytes(rng.choice(b"\r\n:;0123456789abcdefx- ") for _ in range(rng.randint(1, 6)))
                elif what == 2:
                    del answer[at : at + rng.randint(1, 8)]
                else:
                    del answer[at:]
                    break
            answers.append(bytes(answer))
        with RawServer(answers) as server:
            for n, answer in enumerate(answers):
                with self.subTest(n, answer=answer[:120]):
                    try:
                        _exchange(server.url())
                        outcomes["read"] = outcomes.get("read", 0) + 1
                    except (TransportError, ProviderError) as exc:
                        outcomes[type(exc).__name__] = outcomes.get(type(exc).__name__, 0) + 1
        self.assertGreater(outcomes.get("TransportError", 0), 10, outcomes)  # the mutations did reach the parser


if __name__ == "__main__":
    unittest.main()
