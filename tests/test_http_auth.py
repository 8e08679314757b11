"""``Request.auth``: a request signed afresh on every attempt; the AWS event stream read through ``send()``."""

from __future__ import annotations

import pickle
import threading
import time
import unittest

from agentkit_core import CancellationController, TurnCancelledError
from agentkit_core.http import ProviderError, Request, asend, send
from tests import frames
from tests.capability import can_serve_loopback, event_loop_test, needs_threads
from tests.loopback import Loopback, Reply, eventstream_reply, json_reply
from tests.test_http import plain


class Counter:
    """A signer that stamps each attempt with its number and a secret."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: Request) -> Request:
        self.calls += 1
        headers = [*request.headers, ("x-attempt", str(self.calls)), ("authorization", f"Signed secret-{self.calls:06d}")]
        return Request(request.method, request.url, headers, request.body, request.secret_headers)


class AuthValue(unittest.TestCase):
    def test_not_in_equality_or_repr(self) -> None:
        signer = Counter()
        plain_request = Request("POST", "https://example.com/x", body=b"{}")
        signed = Request("POST", "https://example.com/x", body=b"{}", auth=signer)
        self.assertEqual(plain_request, signed)
        self.assertEqual(hash(plain_request), hash(signed))
        self.assertEqual(repr(plain_request), repr(signed))
        self.assertIs(signed.auth, signer)
        self.assertIs(plain_request.signed(), plain_request)
        self.assertEqual(signed.signed().header("authorization"), "Signed secret-000001")
        self.assertIs(pickle.loads(pickle.dumps(plain_request)).auth, None)

    def test_refusals(self) -> None:
        with self.assertRaisesRegex(TypeError, "Request.auth: expected a callable"):
            Request("GET", "https://example.com/", auth="token")  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "expected the signer to return a Request, found str"):
            Request("GET", "https://example.com/", auth=lambda r: "nope").signed()  # type: ignore[arg-type,return-value]


class AuthOnEachAttempt(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_each_retry_signed_afresh(self) -> None:
        failed = json_reply(500, b'{"message":"secret-000001 oops"}', [("retry-after-ms", "5")])
        signer = Counter()
        with Loopback([failed, failed, json_reply(200, b"{}")]) as server:
            request = Request("POST", server.url("/model/m/converse"), body=b"{}", auth=signer)
            with send(request, transport=plain()) as response:  # type: ignore[arg-type]
                self.assertEqual(response.status, 200)
                self.assertEqual(response.request.header("x-attempt"), "3")
            self.assertEqual([r.headers["x-attempt"] for r in server.requests], ["1", "2", "3"])
        self.assertEqual(signer.calls, 3)

    def test_error_hides_the_fresh_signature(self) -> None:
        with Loopback([json_reply(403, b'{"message":"bad signature Signed secret-000001"}')]) as server:
            request = Request("POST", server.url("/x"), body=b"{}", auth=Counter())
            with self.assertRaises(ProviderError) as caught:
                send(request, transport=plain())  # type: ignore[arg-type]
        self.assertNotIn("secret-000001", str(caught.exception))
        self.assertNotIn(b"secret-000001", caught.exception.body)

    def test_redirects(self) -> None:
        with Loopback([json_reply(200, b"{}")]) as other, Loopback([Reply(307, [("Location", other.url("/there"))]), json_reply(200, b"{}")]) as server:
            signer = Counter()
            with send(Request("POST", server.url("/here"), body=b"{}", auth=signer), transport=plain()) as response:  # type: ignore[arg-type]
                self.assertEqual(response.status, 200)
            self.assertEqual(signer.calls, 1)  # another origin (another port): not signed for it
            self.assertNotIn("x-attempt", other.requests[0].headers)
            self.assertNotIn("authorization", {k.lower() for k in other.requests[0].headers})
            server.script([Reply(307, [("Location", "/again")]), json_reply(200, b"{}")])
            signer = Counter()
            with send(Request("POST", server.url("/here"), body=b"{}", auth=signer), transport=plain()) as response:  # type: ignore[arg-type]
                self.assertEqual(response.status, 200)
            self.assertEqual([r.headers["x-attempt"] for r in server.requests], ["1", "2"])

    @event_loop_test
    async def test_asend_awaits_an_async_signer(self) -> None:
        calls: list[int] = []

        async def signer(request: Request) -> Request:
            calls.append(1)
            return Request(request.method, request.url, [("authorization", "Bearer fresh-token-value")], request.body)

        failed = json_reply(503, b"{}", [("retry-after-ms", "5")])
        with Loopback([failed, json_reply(200, b"{}")]) as server:
            response = await asend(Request("POST", server.url("/x"), auth=signer), transport=plain())  # type: ignore[arg-type]
            self.assertEqual(response.status, 200)
            await response.read()
            response.close()
            self.assertEqual([r.headers["authorization"] for r in server.requests], ["Bearer fresh-token-value"] * 2)
        self.assertEqual(len(calls), 2)


class EventStreamOverHttp(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def test_events_read_by_content_type(self) -> None:
        body = frames.events(("messageStart", {"role": "assistant"}), ("messageStop", {"stopReason": "end_turn"}))
        with Loopback([eventstream_reply(body, pieces=7)]) as server:
            with send(Request("POST", server.url("/s")), transport=plain()) as response:  # type: ignore[arg-type]
                self.assertEqual(list(response.events()), [{"messageStart": {"role": "assistant"}}, {"messageStop": {"stopReason": "end_turn"}}])

    def test_exception_frame(self) -> None:
        body = frames.event("messageStart", {"role": "assistant"}) + frames.exception("modelStreamErrorException", "the model broke")
        with Loopback([eventstream_reply(body)]) as server:
            with send(Request("POST", server.url("/s")), transport=plain()) as response:  # type: ignore[arg-type]
                with self.assertRaises(ProviderError) as caught:
                    list(response.events())
        self.assertEqual((caught.exception.status, caught.exception.error_type), (424, "modelStreamErrorException"))

    @needs_threads
    def test_cancelled_mid_frame(self) -> None:
        frame = frames.event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 100}})
        half = len(frame) // 2
        body = frames.event("messageStart", {"role": "assistant"}) + frame
        chunks = [body[: len(body) - half], body[len(body) - half :]]  # the second half of a frame after a long pause
        controller = CancellationController()
        with Loopback([Reply(200, [("Content-Type", "application/vnd.amazon.eventstream")], chunks, 20.0)]) as server:
            with send(Request("POST", server.url("/s")), cancel=controller, transport=plain()) as response:  # type: ignore[arg-type]
                events = response.events()
                self.assertEqual(next(events), {"messageStart": {"role": "assistant"}})
                threading.Timer(0.2, controller.interrupt).start()
                start = time.perf_counter()
                with self.assertRaises(TurnCancelledError):
                    next(events)
                self.assertLess(time.perf_counter() - start, 2.0)


if __name__ == "__main__":
    unittest.main()
