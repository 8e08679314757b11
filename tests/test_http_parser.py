"""The response parser and the decompressors, fed bytes: no server, no socket.

Every answer is also fed split at every byte (and a byte at a time), so a
verdict that depended on how TCP cut the answer would show here.
"""

from __future__ import annotations

import gzip
import random
import unittest
import zlib
from typing import Iterable

from agentkit_core.http import TransportError
from agentkit_core.http._decompress import Decoding, Decompressor, content_codings
from agentkit_core.http._parser import ACCEPT_ENCODING, DECODABLE, END, HEAD_LIMIT, Head, ResponseParser


def run(pieces: Iterable[bytes], method: str = "GET", eof: bool = True) -> tuple[Head, bytes, ResponseParser]:
    """Feed ``pieces`` then the end of the connection; the head, the body and the parser."""
    parser = ResponseParser(method)
    head: Head | None = None
    body = bytearray()
    feed = iter(pieces)
    while True:
        event = parser.next_event(7)  # a small limit: data comes out in pieces of at most 7
        if event is None:
            piece = next(feed, None)
            if piece is None:
                if not eof:
                    raise AssertionError("the parser wants more bytes")
                parser.feed_eof()
            else:
                parser.feed(piece)
        elif event is END:
            break
        elif isinstance(event, Head):
            head = event
        else:
            if not isinstance(event, bytes) or len(event) > 7:
                raise AssertionError(f"a data event over its limit: {event!r}")
            body += event
    if head is None:
        raise AssertionError("END before a head")
    return head, bytes(body), parser


def splits(answer: bytes) -> Iterable[list[bytes]]:
    """``answer`` whole, a byte at a time, and cut in two at every offset."""
    yield [answer]
    if len(answer) > 4096:  # big answers: a few cuts, in 1 KB pieces and at seeded offsets
        yield [answer[i : i + 1024] for i in range(0, len(answer), 1024)]
        rng = random.Random(len(answer))
        for at in sorted(rng.randrange(1, len(answer)) for _ in range(8)):
            yield [answer[:at], answer[at:]]
        return
    yield [answer[i : i + 1] for i in range(len(answer))]
    for at in range(1, len(answer)):
        yield [answer[:at], answer[at:]]


class ParserTest(unittest.TestCase):
    def read_all_ways(self, answer: bytes, method: str = "GET") -> tuple[Head, bytes, bool]:
        results = set()
        for pieces in splits(answer):
            head, body, parser = run(pieces, method, eof=False) if self.framed(answer) else run(pieces, method)
            results.add((head.status, tuple(head.headers), body, parser.keep_alive))
        self.assertEqual(len(results), 1, "the outcome depends on how the bytes were split")
        status, headers, body, keep = results.pop()
        return Head(status, "", "1.1", list(headers)), body, keep

    @staticmethod
    def framed(answer: bytes) -> bool:
        head = answer.split(b"\r\n\r\n")[0].lower()
        return b"content-length" in head or b"chunked" in head or answer.startswith(b"HTTP/1.1 204")

    def refused(self, answer: bytes, words: str, method: str = "GET") -> None:
        for pieces in splits(answer):
            with self.assertRaises(TransportError) as caught:
                run(pieces, method)
            self.assertIn(words, str(caught.exception))

    def test_length_chunked_and_close_delimited(self) -> None:
        head, body, keep = self.read_all_ways(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-A: b\r\n\r\nhello world")
        self.assertEqual((head.status, body, keep), (200, b"hello world", True))
        self.assertEqual(head.headers, [("Content-Length", "11"), ("X-A", "b")])
        _, body, keep = self.read_all_ways(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-T: 1\r\n\r\n")
        self.assertEqual((body, keep), (b"hello world", True))
        _, body, keep = self.read_all_ways(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")
        self.assertEqual((body, keep), (b"until the end", False))

    def test_keep_alive_only_when_the_server_allows(self) -> None:
        _, _, keep = self.read_all_ways(b"HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n")
        self.assertFalse(keep)
        _, _, keep = self.read_all_ways(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi")
        self.assertFalse(keep)
        _, body, keep = self.read_all_ways(b"HTTP/1.1 204 No Content\r\n\r\n")
        self.assertEqual((body, keep), (b"", True))
        head, body, keep = self.read_all_ways(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", method="HEAD")
        self.assertEqual((body, keep), (b"", True))

    def test_leftover_bytes_make_the_connection_unusable(self) -> None:
        parser = ResponseParser()
        parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\n")
        self.assertIsInstance(parser.next_event(), Head)
        self.assertEqual(parser.next_event(), b"hi")
        self.assertIs(parser.next_event(), END)
        self.assertFalse(parser.keep_alive)

    def test_interim_answers_are_skipped_and_folds_joined(self) -> None:
        head, body, _ = self.read_all_ways(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 201 Created\r\nX-Long: a\r\n b\r\nContent-Length: 1\r\n\r\n!")
        self.assertEqual((head.status, head.headers[0], body), (201, ("X-Long", "a b"), b"!"))

    def test_endless_interim_answers_are_refused(self) -> None:
        parser = ResponseParser()
        parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n" * 33 + b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        with self.assertRaises(TransportError) as caught:
            parser.next_event()
        self.assertIn("interim", str(caught.exception))
        parser = ResponseParser()
        parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n" * 32 + b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        self.assertEqual(getattr(parser.next_event(), "status", None), 200)

    def test_bare_lf_lines(self) -> None:
        head, body, _ = self.read_all_ways(b"HTTP/1.1 200 OK\nContent-Length: 2\n\nhi")
        self.assertEqual((head.status, body), (200, b"hi"))

    def test_content_length_rules(self) -> None:
        _, body, _ = self.read_all_ways(b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nhi")
        self.assertEqual(body, b"hi")
        self.refused(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi!", "conflicting Content-Length")
        self.refused(b"HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nhi!", "conflicting Content-Length")
        for bad in (b"-1", b"+2", b"0x2", b"2 2", b"", "\u00b2".encode("latin-1"), b"9" * 40):
            with self.subTest(bad):
                self.refused(b"HTTP/1.1 200 OK\r\nContent-Length: " + bad + b"\r\n\r\nhi", "Content-Length is no length")
        self.refused(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi", "closed in the middle of the answer's body")

    def test_transfer_encoding_rules(self) -> None:
        self.refused(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "both Content-Length and Transfer-Encoding")
        for bad in (b"gzip", b"chunked, gzip", b"chunked, chunked", b"identity"):
            with self.subTest(bad):
                self.refused(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + bad + b"\r\n\r\n0\r\n\r\n", "does not end in chunked")
        self.refused(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n", "transfer coding 'br'")
        parser = ResponseParser()
        parser.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
        self.assertIsInstance(parser.next_event(), Head)
        self.assertEqual(parser.transfer_codings, ("gzip",))

    def test_chunk_rules(self) -> None:
        good = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        for bad in (b"-5", b"0x5", b"1_0", b"", b"+5", b" ", b"5\x00", b"1" * 17):
            with self.subTest(bad):
                self.refused(good.replace(b"\r\n5\r\n", b"\r\n" + bad + b"\r\n", 1), "chunk size")
        _, body, _ = self.read_all_ways(good.replace(b"\r\n5\r\n", b"\r\n5 ;a=1;b=\"x\"\r\n", 1))
        self.assertEqual(body, b"hello")
        self.refused(good.replace(b"hello\r\n", b"hello!\r\n"), "longer than its size says")
        self.refused(good[:-2], "closed in the middle of the answer's trailers")
        self.refused(good.replace(b"\r\n5\r\n", b"\r\n5;" + b"x" * 5000 + b"\r\n", 1), "chunk-size line of the answer is too long")
        trailers = (b"X-T: " + b"a" * 1000 + b"\r\n") * 70
        self.refused(good[:-2] + trailers + b"\r\n", "trailers are too large")

    def test_the_head_limit_counts_the_whole_head(self) -> None:
        many_small = b"HTTP/1.1 200 OK\r\n" + b"X-A: " + b"b" * 90 + b"\r\n" * 0
        lines = b"".join(b"X-%d: %s\r\n" % (n, b"v" * 90) for n in range(HEAD_LIMIT // 90))
        self.refused(b"HTTP/1.1 200 OK\r\n" + lines + b"Content-Length: 0\r\n\r\n", "head is too large")
        self.refused(many_small + b"a" * HEAD_LIMIT, "head is too large")  # never ends: refused, not buffered forever

    def test_malformed_heads(self) -> None:
        for bad, words in (
            (b"HTTP/1.1 2000 OK\r\n\r\n", "not an HTTP answer"),
            (b"HTTP/2 200\r\n\r\n", "not an HTTP answer"),
            (b"HTTP/2.0 200 OK\r\n\r\n", "not an HTTP/1 answer"),
            (b"ICY 200 OK\r\n\r\n", "not an HTTP answer"),
            (b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "malformed header line"),
            (b"HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nhi", "malformed header line"),
            (b"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "control character"),
            (b"HTTP/1.1 200 OK\r\n folded\r\n\r\n", "folded line"),
            (b"", "closed before any answer"),
            (b"HTTP/1.1 200 OK\r\n", "in the middle of the answer's head"),
        ):
            with self.subTest(bad):
                self.refused(bad, words)

    def test_a_connect_answer_ends_at_its_head(self) -> None:
        parser = ResponseParser("CONNECT")
        parser.feed(b"HTTP/1.1 200 Connection established\r\n\r\n\x16\x03")
        head = parser.next_event()
        self.assertIsInstance(head, Head)
        self.assertIs(parser.next_event(), END)
        self.assertEqual(parser.leftover(), b"\x16\x03")
        self.assertFalse(parser.keep_alive)

    def test_random_bytes_raise_only_transport_errors(self) -> None:
        rng = random.Random(24)
        seed = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5;x\r\nhello\r\n0\r\n\r\n"
        for _ in range(400):
            answer = bytearray(seed)
            for _ in range(rng.randint(1, 5)):
                at = rng.randrange(len(answer))
                answer[at : at + rng.randint(0, 3)] = bytes(rng.choice(b"\r\n:;,0123456789abcdef \t\x00\xff") for _ in range(rng.randint(0, 4)))
            cut = rng.randrange(1, len(answer) + 1)
            try:
                run([bytes(answer[:cut]), bytes(answer[cut:])])
            except TransportError:
                pass


class DecompressTest(unittest.TestCase):
    body = b"The quick brown fox jumps over the lazy dog. " * 200

    def inflate(self, coding: str, data: bytes, piece: int = 13, limit: int = 100) -> bytes:
        out = bytearray()
        feed = iter([data[i : i + piece] for i in range(0, len(data), piece)])

        def pull(n: int) -> bytes:
            return next(feed, b"")

        decoding = Decoding([coding])
        while True:
            got = decoding.read(limit, pull)
            if not got:
                return bytes(out)
            self.assertLessEqual(len(got), limit)
            out += got

    def test_gzip_zlib_and_raw_deflate(self) -> None:
        raw = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw_deflate = raw.compress(self.body) + raw.flush()
        for coding, data in (
            ("gzip", gzip.compress(self.body)),
            ("x-gzip", gzip.compress(self.body)),
            ("deflate", zlib.compress(self.body)),
            ("deflate", raw_deflate),  # what some servers send as deflate: urllib3 reads it too
        ):
            for piece in (1, 2, 13, 10_000):
                with self.subTest(coding=coding, piece=piece, raw=data is raw_deflate):
                    self.assertEqual(self.inflate(coding, data, piece), self.body)

    def test_gzip_members_and_padding(self) -> None:
        data = gzip.compress(b"one ") + gzip.compress(b"two") + b"\0\0\0"
        self.assertEqual(self.inflate("gzip", data, 5), b"one two")

    def test_chained_codings(self) -> None:
        twice = gzip.compress(zlib.compress(self.body))
        out = bytearray()
        feed = iter([twice[i : i + 50] for i in range(0, len(twice), 50)])
        decoding = Decoding(["deflate", "gzip"])  # deflate applied first, then gzip
        while got := decoding.read(64, lambda n: next(feed, b"")):
            self.assertLessEqual(len(got), 64)
            out += got
        self.assertEqual(bytes(out), self.body)

    def test_broken_and_truncated_bodies(self) -> None:
        with self.assertRaises(TransportError) as caught:
            self.inflate("gzip", b"not gzip at all")
        self.assertIn("does not inflate", str(caught.exception))
        with self.assertRaises(TransportError) as caught:
            self.inflate("gzip", gzip.compress(self.body)[:-10])
        self.assertIn("ends in the middle", str(caught.exception))
        with self.assertRaises(TransportError):
            self.inflate("deflate", b"\xff\xff\xff\xff garbage")
        self.assertEqual(self.inflate("gzip", b""), b"")  # an empty body is an empty body

    def test_a_bomb_comes_out_bounded(self) -> None:
        bomb = gzip.compress(b"\0" * 5_000_000, 9)
        sizes = []
        feed = iter([bomb])
        decoding = Decoding(["gzip"])
        while got := decoding.read(65536, lambda n: next(feed, b"")):
            sizes.append(len(got))
        self.assertEqual(sum(sizes), 5_000_000)
        self.assertLessEqual(max(sizes), 65536)

    def test_content_codings(self) -> None:
        self.assertEqual(content_codings("gzip"), ("gzip",))
        self.assertEqual(content_codings("identity, GZIP"), ("gzip",))
        self.assertEqual(content_codings(""), ())
        self.assertIsNone(content_codings("br"))
        self.assertIsNone(content_codings("gzip, zstd"))
        with self.assertRaises(ValueError):
            Decompressor("br")

    def test_what_is_offered_is_what_is_undone(self) -> None:
        offered = [c.strip() for c in ACCEPT_ENCODING.split(",")]
        self.assertEqual(content_codings(ACCEPT_ENCODING), tuple(offered))
        self.assertTrue(set(offered) <= DECODABLE, offered)


if __name__ == "__main__":
    unittest.main()
