"""A request whose body is kept JSON in pieces (http/_request.joined_later) is, to every reader, the request of its joined bytes.

``http_request`` for a transcript it has built before joins nothing: the
request keeps the body's pieces, ``body`` joins them at its first read, and the
socket transport writes them as they are.  Equality, hash, ``repr``,
pickling, ``dataclasses.replace`` and what the server receives are those of
the request made with the joined bytes.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import unittest

from agentkit_core import Item, ItemKind, TextPart, ToolCallId, ToolCallPart, ToolOutput, ToolResultPart
from agentkit_core.http import Request, SocketTransport, send
from agentkit_core.http._request import body_pieces, joined_later
from agentkit_core.http._sockets import _SMALL_PIECE, _coalesced
from agentkit_core.providers import openai_chat
from agentkit_core.providers._common import reuse
from tests.capability import needs_loopback
from tests.loopback import Loopback, Reply


def session(turns: int) -> list[Item]:
    items: list[Item] = []
    for t in range(turns):
        call = ToolCallId(f"call_{t}")
        items += [
            Item(ItemKind.USER, [TextPart(f"look at file {t} " * 20)]),
            Item(ItemKind.ASSISTANT, [ToolCallPart(call, "read", {"path": f"f{t}.py"})]),
            Item(ItemKind.TOOL, [ToolResultPart(call, ToolOutput.text("x = 1\n" * 200))]),
        ]
    return items


def pieces_request(items: list[Item]) -> Request:
    """The request ``http_request`` makes for ``items`` just after making the one for all but the last turn."""
    reuse.clear()
    openai_chat.http_request(items[:-3], model="m", api_key="sk-test-pieces")
    return openai_chat.http_request(items, model="m", api_key="sk-test-pieces")


class PiecesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.items = session(40)
        self.lazy = pieces_request(self.items)
        with reuse.disabled():
            self.whole = openai_chat.http_request(self.items, model="m", api_key="sk-test-pieces")

    def test_a_kept_body_is_held_in_pieces_and_joined_only_when_read(self) -> None:
        pieces = body_pieces(self.lazy)
        self.assertGreater(len(pieces), 1)
        self.assertEqual(body_pieces(self.whole), (self.whole.body,))
        self.assertEqual(b"".join(pieces), self.whole.body)
        body = self.lazy.body
        self.assertIs(type(body), bytes)
        self.assertIs(self.lazy.body, body)  # joined once
        self.assertEqual(body, self.whole.body)

    def test_equality_hash_repr_and_pickling_are_those_of_the_joined_request(self) -> None:
        for lazy in (pieces_request(self.items), self.lazy):
            self.assertEqual(repr(lazy), repr(self.whole))
            self.assertEqual(lazy, self.whole)
            self.assertEqual(self.whole, pieces_request(self.items))
            self.assertEqual(hash(lazy), hash(self.whole))
        for other in (pickle.loads(pickle.dumps(pieces_request(self.items))), copy.copy(pieces_request(self.items)),
                      copy.deepcopy(pieces_request(self.items))):
            self.assertEqual(other, self.whole)
            self.assertEqual(other.body, self.whole.body)
        replaced = dataclasses.replace(pieces_request(self.items), headers=())
        self.assertEqual(replaced.body, self.whole.body)
        self.assertEqual(dataclasses.fields(Request), dataclasses.fields(self.whole))
        self.assertEqual([f.name for f in dataclasses.fields(Request)], ["method", "url", "headers", "body", "secret_headers", "auth"])
        self.assertEqual(dataclasses.astuple(pieces_request(self.items)), dataclasses.astuple(self.whole))

    def test_a_missing_attribute_is_still_an_attribute_error(self) -> None:
        with self.assertRaisesRegex(AttributeError, "'Request' object has no attribute 'bodyy'"):
            self.lazy.bodyy  # noqa: B018 - the read is the test
        self.assertFalse(hasattr(self.whole, "_pieces_missing"))

    def test_only_an_empty_request_takes_pieces_of_bytes(self) -> None:
        with self.assertRaises(ValueError):
            joined_later(Request("POST", "https://example.com", body=b"x"), [b"y"])
        with self.assertRaises(ValueError):
            joined_later(Request("POST", "https://example.com"), ["y"])  # type: ignore[list-item]

    def test_small_pieces_are_written_together_large_ones_as_they_are(self) -> None:
        large = b"x" * _SMALL_PIECE
        writes = _coalesced(b"HEAD", (b"[", b"a", large, b"b", large, large, b"]"))
        self.assertEqual(writes, [b"HEAD[a", large, b"b", large, large, b"]"])
        self.assertIs(writes[1], large)  # not copied
        self.assertEqual(_coalesced(b"HEAD", (b"{", b"}")), [b"HEAD{}"])
        self.assertEqual(_coalesced(b"HEAD", (large,)), [b"HEAD", large])

    @needs_loopback
    def test_the_socket_transport_sends_the_joined_bytes(self) -> None:
        lazy = pieces_request(self.items)
        self.assertGreater(len(_coalesced(b"", body_pieces(lazy))), 2)  # a large piece written on its own
        with Loopback([Reply(echo=True)]) as server:
            target = joined_later(Request("POST", server.url("/v1/chat/completions"), lazy.headers), body_pieces(lazy))
            with SocketTransport() as transport:
                response = send(target, transport=transport)
                echoed = json.loads(response.read())
        self.assertEqual(echoed["body"].encode("utf-8"), self.whole.body)
        self.assertEqual(int(echoed["headers"]["content-length"]), len(self.whole.body))
        self.assertEqual(server.requests[-1].body, self.whole.body)


if __name__ == "__main__":
    unittest.main()
