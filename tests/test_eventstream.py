"""The AWS event stream decoder: frames built here, AWS's published vectors, bad frames refused."""

from __future__ import annotations

import random
import struct
import unittest
from typing import AsyncIterator

from agentkit_core import NormalizeError
from agentkit_core.http import ProviderError
from agentkit_core.http._eventstream import (
    MAX_HEADERS_LENGTH,
    MAX_PAYLOAD_LENGTH,
    EventStreamDecoder,
    EventStreamMessage,
    event_of,
    events_from_eventstream,
)
from tests import frames
from tests.capability import event_loop_test


async def _cut(body: bytes) -> AsyncIterator[bytes]:
    yield body[:-1]

# AWS's event stream test vectors (awslabs/aws-c-event-stream's test cases, as aws-sdk-js-v3's
# packages/eventstream-marshaller/src/TestVectors.fixture.ts carries them): the encoded bytes, and
# the headers and payload they decode to, or None for a frame that must be refused.
_FOO = b"{'foo':'bar'}"
VECTORS: dict[str, tuple[list[int], dict[str, object] | None, bytes]] = {
    "empty_message": ([0, 0, 0, 16, 0, 0, 0, 0, 5, 194, 72, 235, 125, 152, 200, 255], {}, b""),
    "int32_header": (
        [0, 0, 0, 43, 0, 0, 0, 14, 52, 139, 236, 123, 8, 101, 118, 101, 110, 116, 45, 105, 100, 4, 0, 0, 160, 12]
        + list(_FOO) + [211, 137, 2, 133],
        {"event-id": 0x0000A00C},
        _FOO,
    ),
    "payload_no_headers": ([0, 0, 0, 29, 0, 0, 0, 0, 253, 82, 140, 90] + list(_FOO) + [195, 101, 57, 54], {}, _FOO),
    "payload_one_str_header": (
        [0, 0, 0, 61, 0, 0, 0, 32, 7, 253, 131, 150, 12] + list(b"content-type") + [7, 0, 16] + list(b"application/json")
        + list(_FOO) + [141, 156, 8, 177],
        {"content-type": "application/json"},
        _FOO,
    ),
    "corrupted_headers": (
        [0, 0, 0, 61, 0, 0, 0, 32, 7, 253, 131, 150, 12] + list(b"content+type") + [7, 0, 16] + list(b"application/json")
        + list(_FOO) + [141, 156, 8, 177],
        None,
        b"",
    ),
    "corrupted_header_len": (
        [0, 0, 0, 61, 0, 0, 1, 32, 7, 253, 131, 150, 12] + list(b"content-type") + [7, 0, 16] + list(b"application/json")
        + list(_FOO) + [141, 156, 8, 177],
        None,
        b"",
    ),
    "corrupted_length": ([1, 0, 0, 29, 0, 0, 0, 0, 253, 82, 140, 90] + list(_FOO) + [195, 101, 57, 54], None, b""),
    "corrupted_payload": ([0, 0, 0, 29, 0, 0, 0, 0, 253, 82, 140, 90] + list(b"{'foo':'bar'\x8d") + [195, 101, 57, 54], None, b""),
}


def decode(data: bytes, piece: int = 0) -> list[EventStreamMessage]:
    decoder = EventStreamDecoder()
    out: list[EventStreamMessage] = []
    step = piece or len(data) or 1
    for i in range(0, len(data), step):
        out += decoder.feed(data[i : i + step])
    decoder.end()
    return out


class PublishedVectors(unittest.TestCase):
    def test_vectors(self) -> None:
        for name, (encoded, headers, payload) in VECTORS.items():
            with self.subTest(name):
                data = bytes(encoded)
                if headers is None:
                    with self.assertRaises(NormalizeError):
                        decode(data)
                    continue
                for piece in (0, 1, 5):
                    self.assertEqual(decode(data, piece), [EventStreamMessage(headers, payload)])
                self.assertEqual(frames.frame(headers, payload), data)  # the tests' encoder agrees with AWS


class Headers(unittest.TestCase):
    def test_every_type(self) -> None:
        headers = {
            "t": True,
            "f": False,
            "byte": (2, -7),
            "short": (3, -30000),
            "integer": (4, 2_000_000_000),
            "long": (5, -(2**62)),
            "bytes": b"\x00\xffraw",
            "string": "h\u00e9llo",
            "timestamp": (8, 1_700_000_000_123),
            "uuid": (9, bytes(range(16))),
        }
        (message,) = decode(frames.frame(headers, b"body"))
        self.assertEqual(
            message.headers,
            {
                "t": True, "f": False, "byte": -7, "short": -30000, "integer": 2_000_000_000, "long": -(2**62),
                "bytes": b"\x00\xffraw", "string": "h\u00e9llo", "timestamp": 1_700_000_000_123, "uuid": bytes(range(16)),
            },
        )
        self.assertEqual(message.payload, b"body")
        self.assertIn("4 bytes", repr(message))

    def test_unknown_type_refused(self) -> None:
        body = frames.frame({"x": (10, b"")})  # the tests' encoder writes the type byte alone
        with self.assertRaisesRegex(NormalizeError, "unknown header type 10"):
            decode(body)

    def test_header_running_past_the_headers(self) -> None:
        encoded = frames.header("name", "a long value")[:-3]
        prelude = struct.pack(">II", 16 + len(encoded), len(encoded))
        import zlib

        prelude += struct.pack(">I", zlib.crc32(prelude))
        body = prelude + encoded
        body += struct.pack(">I", zlib.crc32(body))
        with self.assertRaisesRegex(NormalizeError, "message 1: the headers do not parse"):
            decode(body)


class Framing(unittest.TestCase):
    def test_any_split(self) -> None:
        body = frames.events(("messageStart", {"role": "assistant"}), ("contentBlockDelta", {"delta": {"text": "hi"}}))
        rng = random.Random(36)
        for _ in range(50):
            cuts = sorted(rng.sample(range(1, len(body)), rng.randint(0, 8)))
            pieces = [body[a:b] for a, b in zip([0] + cuts, cuts + [len(body)])]
            self.assertEqual(
                list(events_from_eventstream(pieces)),
                [{"messageStart": {"role": "assistant"}}, {"contentBlockDelta": {"delta": {"text": "hi"}}}],
            )

    def test_short_frame(self) -> None:
        body = frames.event("messageStop", {"stopReason": "end_turn"})
        for cut in (1, 11, 12, len(body) - 1):
            with self.subTest(cut=cut), self.assertRaisesRegex(NormalizeError, "message 1: the body ended inside a frame"):
                list(events_from_eventstream(body[:cut]))

    def test_bad_crcs(self) -> None:
        body = bytearray(frames.event("messageStop", {"stopReason": "end_turn"}))
        prelude = bytearray(body)
        prelude[9] ^= 1
        with self.assertRaisesRegex(NormalizeError, "prelude's CRC32"):
            decode(bytes(prelude))
        for at in (14, len(body) - 6, len(body) - 1):
            damaged = bytearray(body)
            damaged[at] ^= 0x20
            with self.subTest(at=at), self.assertRaisesRegex(NormalizeError, "message's CRC32"):
                decode(bytes(damaged))

    def test_second_message_named(self) -> None:
        body = bytearray(frames.event("a", {}) + frames.event("b", {}))
        body[-1] ^= 1
        with self.assertRaisesRegex(NormalizeError, "message 2: "):
            decode(bytes(body))

    def test_oversized(self) -> None:
        import zlib

        for total, headers, why in (
            (16 + MAX_HEADERS_LENGTH + 1, MAX_HEADERS_LENGTH + 1, "headers of"),
            (16 + MAX_PAYLOAD_LENGTH + 1, 0, "a payload of"),
            (15, 0, "cannot hold"),
        ):
            prelude = struct.pack(">II", total, headers)
            prelude += struct.pack(">I", zlib.crc32(prelude))
            with self.subTest(why), self.assertRaisesRegex(NormalizeError, why):
                EventStreamDecoder().feed(prelude)  # refused on the prelude, before the frame is waited for

    def test_long_frame_in_many_pieces(self) -> None:
        payload = b"x" * 200_000
        body = frames.frame({":event-type": "big"}, payload)
        decoder = EventStreamDecoder()
        got: list[EventStreamMessage] = []
        for i in range(0, len(body), 1000):
            got += decoder.feed(body[i : i + 1000])
        self.assertEqual([m.payload for m in got], [payload])

    def test_not_bytes(self) -> None:
        with self.assertRaisesRegex(NormalizeError, "eventstream body"):
            list(events_from_eventstream("text"))  # type: ignore[call-overload]
        with self.assertRaisesRegex(NormalizeError, r"\[1\]: expected bytes"):
            list(events_from_eventstream([b"", "x"]))  # type: ignore[list-item]


class Fuzz(unittest.TestCase):
    def test_damaged_bodies_decode_or_are_refused(self) -> None:
        """Any bytes either decode or raise the package's own errors, never another exception."""
        rng = random.Random(36)
        whole = frames.events(("messageStart", {"role": "assistant"}), ("contentBlockDelta", {"delta": {"text": "hi"}})) + \
            frames.frame({"t": True, "s": (3, 7), "u": (9, bytes(16)), ":event-type": "x"}, b"{}")
        for n in range(400):
            body = bytearray(whole)
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(body))
                choice = rng.random()
                if choice < 0.5:
                    body[at] = rng.randrange(256)
                elif choice < 0.75:
                    del body[at : at + rng.randint(1, 9)]
                else:
                    body[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 9)))
            with self.subTest(n=n):
                try:
                    list(events_from_eventstream(bytes(body)))
                except (NormalizeError, ProviderError):
                    pass


    def test_damage_behind_good_crcs_decodes_or_is_refused(self) -> None:
        """Headers and payloads damaged, then sealed with correct CRCs: the header and JSON readers meet the damage."""
        import zlib

        rng = random.Random(37)
        headers = b"".join(frames.header(k, v) for k, v in
                           {":event-type": "contentBlockDelta", "b": (2, 1), "l": (5, 9), "by": b"xy", "ts": (8, 5), "u": (9, bytes(16))}.items())
        payload = b'{"contentBlockIndex":0,"delta":{"text":"hi"}}'
        for n in range(400):
            head, body = bytearray(headers), bytearray(payload)
            target = head if rng.random() < 0.6 else body
            for _ in range(rng.randint(1, 3)):
                if target:
                    target[rng.randrange(len(target))] = rng.randrange(256)
            prelude = struct.pack(">II", 16 + len(head) + len(body), len(head))
            prelude += struct.pack(">I", zlib.crc32(prelude))
            frame = prelude + bytes(head) + bytes(body)
            frame += struct.pack(">I", zlib.crc32(frame))
            with self.subTest(n=n):
                try:
                    list(events_from_eventstream(frame))
                except (NormalizeError, ProviderError):
                    pass


class Events(unittest.TestCase):
    def test_event_shape(self) -> None:
        self.assertEqual(list(events_from_eventstream(frames.frame({":event-type": "ping", ":message-type": "event"}))), [{"ping": {}}])
        self.assertEqual(list(events_from_eventstream(frames.frame({"other": "x"}))), [])  # no event type: skipped

    def test_bad_payload(self) -> None:
        with self.assertRaisesRegex(NormalizeError, "message 1: e: "):
            list(events_from_eventstream(frames.frame({":event-type": "e"}, b"{nope")))
        with self.assertRaisesRegex(NormalizeError, "not a JSON object"):
            list(events_from_eventstream(frames.frame({":event-type": "e"}, b"[1]")))

    def test_exception_is_provider_error(self) -> None:
        body = frames.event("messageStart", {"role": "assistant"}) + frames.exception("throttlingException", "Too many  requests")
        got = []
        with self.assertRaises(ProviderError) as caught:
            for e in events_from_eventstream(body):
                got.append(e)
        self.assertEqual(got, [{"messageStart": {"role": "assistant"}}])
        self.assertEqual((caught.exception.status, caught.exception.error_type), (429, "throttlingException"))
        self.assertEqual(caught.exception.message, "Too many requests")
        other = frames.frame({":message-type": "exception", ":exception-type": "somethingNew"}, b"plain words")
        with self.assertRaises(ProviderError) as caught:
            event_of(decode(other)[0])
        self.assertEqual((caught.exception.status, caught.exception.message), (500, "plain words"))

    def test_error_message(self) -> None:
        body = frames.frame({":message-type": "error", ":error-code": "InternalFailure", ":error-message": "it broke"})
        with self.assertRaises(ProviderError) as caught:
            list(events_from_eventstream(body))
        self.assertEqual((caught.exception.status, caught.exception.error_type, caught.exception.message), (400, "InternalFailure", "it broke"))

    @event_loop_test
    async def test_async(self) -> None:
        body = frames.events(("a", {"x": 1}), ("b", {"y": 2}))

        async def pieces() -> AsyncIterator[bytes]:
            for i in range(0, len(body), 7):
                yield body[i : i + 7]

        self.assertEqual([e async for e in events_from_eventstream(pieces())], [{"a": {"x": 1}}, {"b": {"y": 2}}])
        with self.assertRaises(NormalizeError):
            [e async for e in events_from_eventstream(pieces())][:0] + [e async for e in events_from_eventstream(_cut(body))]

if __name__ == "__main__":
    unittest.main()
