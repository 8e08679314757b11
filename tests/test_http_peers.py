"""send() against real server software: Debian's nginx (TLS from a private CA, redirects, error pages) and squid (CONNECT, basic auth).

The peers start once for the module (``tests/peers.py``); where nginx, squid
or openssl is not installed the module skips, naming it.  CI installs them.
"""

from __future__ import annotations

import json
import unittest
from typing import Any

from agentkit_core.http import ProviderError, Request, SocketTransport, TransportError, send
from agentkit_core.providers import anthropic
from tests import peers
from tests.loopback import Reply, sse_reply
from tests.test_http import KEY, open_recording

NGINX: Any = None
BACKEND: Any = None
SQUID: Any = None
SQUID_AUTH: Any = None


def setUpModule() -> None:
    global NGINX, BACKEND, SQUID, SQUID_AUTH
    BACKEND = peers.backend()
    NGINX = peers.nginx(upstream=BACKEND.url())
    SQUID = peers.squid()
    SQUID_AUTH = peers.squid(auth=True)


class PeerTest(unittest.TestCase):
    def tls(self, **proxies: str) -> SocketTransport:
        """A transport trusting the module's CA, with ``proxies`` (none by default), closed after the test."""
        transport = SocketTransport(ssl_context=NGINX.ssl_context(), proxies=proxies)
        self.addCleanup(transport.close)
        return transport


class TlsTest(PeerTest):
    def test_a_private_ca_is_trusted_when_given(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=self.tls()) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_without_the_ca_the_certificate_is_refused(self) -> None:
        default = SocketTransport(proxies={})
        self.addCleanup(default.close)
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=default, retries=2)
        self.assertIn("certificate", str(caught.exception).lower())
        self.assertFalse(caught.exception.retryable)  # a certificate that does not verify cannot verify next time
        self.assertEqual(caught.exception.retried, 0)

    def test_a_body_of_64_kib_arrives_whole(self) -> None:
        with send(Request("GET", NGINX.url("/big")), transport=self.tls()) as response:
            self.assertEqual(response.read(), b"x" * 65536)

    def test_the_backend_sees_the_request_through_nginx(self) -> None:
        request = Request("POST", NGINX.url("/up/echo"), {"x-api-key": KEY, "content-type": "application/json"}, b"{}")
        with send(request, transport=self.tls()) as response:
            seen = response.json()
        self.assertIsInstance(seen, dict)
        self.assertEqual((seen["method"], seen["path"], seen["body"]), ("POST", "/up/echo", "{}"))  # type: ignore[index,call-overload]
        self.assertEqual(seen["headers"]["x-api-key"], KEY)  # type: ignore[index,call-overload]


class StreamTest(PeerTest):
    def test_sse_through_nginx_arrives_while_the_stream_is_open(self) -> None:
        body = open_recording("anthropic", "messages.text_tool_use.sse.txt")
        BACKEND.script([sse_reply(body, stall=True)])  # every event sent, then the stream stays open
        self.addCleanup(BACKEND.script, [Reply(echo=True)])
        expected = [e for e in anthropic.events_from_sse([body])]
        request = Request("POST", NGINX.url("/up/v1/messages"), {"x-api-key": KEY}, b"{}")
        with send(request, transport=self.tls(), timeout=20) as response:
            events = response.events()
            got = [next(events) for _ in expected]  # a buffering proxy would hold them until the stream ends
        self.assertEqual(got, expected)
        self.assertEqual(response.headers.get("transfer-encoding"), "chunked")


class SquidTest(PeerTest):
    def test_connect_through_squid(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=self.tls(https=SQUID.proxy_url)) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_plain_http_through_squid(self) -> None:
        with send(Request("GET", NGINX.url("/up/plain", tls=False)), transport=self.tls(http=SQUID.proxy_url)) as response:
            seen = json.loads(response.read())
        self.assertIn("squid", seen["headers"].get("via", ""))

    def test_connect_through_squid_with_basic_auth(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=self.tls(https=SQUID_AUTH.proxy_url)) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_squid_refuses_a_tunnel_without_credentials_and_no_secret_shows(self) -> None:
        bare = SQUID_AUTH.proxy_url.replace(f"{SQUID_AUTH.user}:{SQUID_AUTH.password}@", "")
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=self.tls(https=bare), retries=0)
        self.assertIn("407", str(caught.exception))
        wrong = SQUID_AUTH.proxy_url.replace(SQUID_AUTH.password, "wrong-" + SQUID_AUTH.password)
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=self.tls(https=wrong), retries=0)
        self.assertIn("407", str(caught.exception))
        self.assertNotIn(SQUID_AUTH.password, str(caught.exception) + repr(caught.exception.args))


    def test_connect_through_squid_to_ipv6(self) -> None:
        with send(Request("GET", NGINX.url("/ok", v6=True)), transport=self.tls(https=SQUID.proxy_url)) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))


class Ipv6Test(PeerTest):
    def test_tls_to_the_ipv6_loopback(self) -> None:
        with send(Request("GET", NGINX.url("/ok", v6=True)), transport=self.tls()) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))  # nginx answers 400 to a Host without brackets

    def test_plain_http_and_a_redirect_on_ipv6(self) -> None:
        url = NGINX.url("/redirect/302?to=/ok", v6=True, tls=False)
        with send(Request("GET", url), transport=self.tls()) as response:
            self.assertEqual((response.status, response.read(), response.url), (200, b"ok\n", NGINX.url("/ok", v6=True, tls=False)))


def echoed(response: Any) -> dict[str, Any]:
    seen = response.json()
    if not isinstance(seen, dict):
        raise AssertionError(f"not an echo: {seen!r}")
    return seen


class RedirectTest(PeerTest):
    CREDENTIALS = {"x-api-key": KEY, "authorization": f"Bearer {KEY}", "x-goog-api-key": KEY, "x-gateway-token": KEY}

    def post(self, url: str) -> Request:
        headers = {**self.CREDENTIALS, "content-type": "application/json", "x-keep": "yes"}
        return Request("POST", url, headers, b'{"a": 1}', secret_headers=["x-gateway-token"])  # a credential of the request's own

    def test_307_and_308_on_the_same_origin_keep_method_body_and_credentials(self) -> None:
        for status in (307, 308):
            with self.subTest(status=status), send(self.post(NGINX.url(f"/redirect/{status}?to=/up/same")), transport=self.tls()) as response:
                seen = echoed(response)
                self.assertEqual((response.status, response.hops, response.url), (200, 1, NGINX.url("/up/same")))
            self.assertEqual((seen["method"], seen["path"], seen["body"]), ("POST", "/up/same", '{"a": 1}'))
            for name in self.CREDENTIALS:
                self.assertEqual(seen["headers"][name], self.CREDENTIALS[name])

    def test_301_302_303_after_a_post_are_gets_without_a_body(self) -> None:
        for status in (301, 302, 303):
            with self.subTest(status=status), send(self.post(NGINX.url(f"/redirect/{status}?to=/up/got")), transport=self.tls()) as response:
                seen = echoed(response)
            self.assertEqual((seen["method"], seen["path"], seen["body"]), ("GET", "/up/got", ""))
            self.assertNotIn("content-type", seen["headers"])
            self.assertNotIn("content-length", seen["headers"])
            self.assertEqual(seen["headers"]["x-api-key"], KEY)

    def test_another_origin_gets_no_credentials(self) -> None:
        other = NGINX.url("/up/elsewhere", origin=1)
        with send(self.post(NGINX.url(f"/redirect/307?to={other}")), transport=self.tls()) as response:
            seen = echoed(response)
            self.assertEqual((response.url, response.hops), (other, 1))
        self.assertEqual((seen["method"], seen["body"], seen["headers"]["x-keep"]), ("POST", '{"a": 1}', "yes"))
        for name in self.CREDENTIALS:
            self.assertNotIn(name, seen["headers"])

    def test_a_chain_across_both_origins_and_schemes(self) -> None:
        last = NGINX.url("/up/end", origin=1, tls=False)
        middle = NGINX.url(f"/redirect/308?to={last}", origin=1)
        with send(self.post(NGINX.url(f"/redirect/307?to={middle}", tls=False)), transport=self.tls()) as response:
            seen = echoed(response)
            self.assertEqual((response.hops, response.url), (2, last))
        self.assertNotIn("x-api-key", seen["headers"])

    def test_the_redirect_s_connection_serves_the_next_hop(self) -> None:
        transport = self.tls()
        for _ in range(3):
            with send(Request("GET", NGINX.url("/redirect/302?to=/ok")), transport=transport) as response:
                self.assertEqual((response.read(), response.hops), (b"ok\n", 1))
        self.assertEqual(transport.opened, 1)  # six answers, one kept-alive connection: each 3xx was read to its end

    def test_a_loop_is_a_transport_error_at_once(self) -> None:
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/loop")), transport=self.tls(), retries=2)
        self.assertIn("redirect loop", str(caught.exception))
        self.assertEqual(caught.exception.retried, 0)


class AsyncRedirectTest(PeerTest):
    """asend() follows nginx's redirects as send() does (the same decisions, awaited)."""

    CREDENTIALS = RedirectTest.CREDENTIALS
    post = RedirectTest.post

    def asend(self, request: Request, **options: Any) -> tuple[Any, dict[str, Any]]:
        import asyncio

        from agentkit_core.http import asend

        async def run() -> tuple[Any, dict[str, Any]]:
            async with await asend(request, transport=self.tls(), **options) as response:
                seen = json.loads(await response.read())
                return response, seen

        return asyncio.run(run())

    def test_another_origin_gets_no_credentials_and_303_is_a_get(self) -> None:
        other = NGINX.url("/up/elsewhere", origin=1)
        response, seen = self.asend(self.post(NGINX.url(f"/redirect/307?to={other}")))
        self.assertEqual((response.status, response.url, response.hops), (200, other, 1))
        self.assertEqual((seen["method"], seen["body"], seen["headers"]["x-keep"]), ("POST", '{"a": 1}', "yes"))
        for name in self.CREDENTIALS:
            self.assertNotIn(name, seen["headers"])
        response, seen = self.asend(self.post(NGINX.url("/redirect/303?to=/up/got")))
        self.assertEqual((seen["method"], seen["path"], seen["body"], response.hops), ("GET", "/up/got", "", 1))
        self.assertEqual(seen["headers"]["x-api-key"], KEY)

    def test_an_async_loop_is_a_transport_error_at_once(self) -> None:
        with self.assertRaises(TransportError) as caught:
            self.asend(Request("GET", NGINX.url("/loop")), retries=2)
        self.assertIn("redirect loop", str(caught.exception))
        self.assertEqual(caught.exception.retried, 0)


class ErrorPageTest(PeerTest):
    def fails(self, request: Request, retries: int = 0) -> ProviderError:
        with self.assertRaises(ProviderError) as caught:
            send(request, transport=self.tls(), retries=retries)
        error = caught.exception
        for shown in (error.message, str(error)):
            self.assertNotIn("<", shown)
            self.assertNotIn("\n", shown)
            self.assertLessEqual(len(shown), 400)
        self.assertEqual(error.headers["Server"].split("/")[0], "nginx")
        self.assertIn(b"<html>", error.body.lower())  # the raw page stays in body
        return error

    def test_413_from_a_small_client_max_body_size(self) -> None:
        error = self.fails(Request("POST", NGINX.url("/small/upload"), {"x-api-key": KEY}, b"x" * 4096))
        self.assertEqual(error.status, 413)
        self.assertIn("Too Large", error.message)
        self.assertNotIn("413 Request", error.message)  # the status line is said once, not repeated from the title

    def test_502_from_a_dead_upstream_after_two_attempts(self) -> None:
        error = self.fails(Request("GET", NGINX.url("/dead/x")), retries=1)
        self.assertEqual((error.status, error.message, error.retried), (502, "Bad Gateway", 1))
        self.assertTrue(str(error).endswith("(after 2 attempts)"), str(error))

    def test_a_503_maintenance_page_with_retry_after(self) -> None:
        error = self.fails(Request("GET", NGINX.url("/unavailable", v6=True)))
        self.assertEqual(error.status, 503)
        self.assertEqual(error.message, "Service Unavailable: Down for maintenance")
        self.assertEqual(error.headers["retry-after"], "1")
        self.assertEqual(error.headers["Content-Type"], "text/html")

    def test_a_providers_json_error_through_nginx_hides_an_echoed_key(self) -> None:
        BACKEND.script([Reply(401, echo=True)])
        self.addCleanup(BACKEND.script, [Reply(echo=True)])
        with self.assertRaises(ProviderError) as caught:
            send(Request("POST", NGINX.url("/up/v1/messages"), {"x-api-key": KEY}, b"{}"), transport=self.tls())
        error = caught.exception
        self.assertEqual(error.status, 401)
        self.assertNotIn(KEY, str(error) + repr(error) + error.body.decode())
        self.assertIn('"x-api-key": "***"', error.body.decode())


if __name__ == "__main__":
    unittest.main()
