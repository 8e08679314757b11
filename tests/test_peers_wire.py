"""The socket transport's wire against real server software: kept-alive connections, tunnels, proxies, IPv6.

nginx (TLS from the module's CA, ``keepalive_timeout 1s``) tells which of its
connections served a request (``/connection``: its serial number and the
requests it carried), so reuse is counted on the server's side as well as by
:attr:`SocketTransport.opened`.  squid tunnels ``CONNECT`` with and without
basic auth, and as an ``https://`` proxy (``https_port``) carries TLS to nginx
inside its own TLS.  The peers start once for the module (``tests/peers.py``); where
nginx, squid or openssl is missing the module skips, naming it.  The mute TLS
peer bounded by ``connect_timeout`` is the suite's own (``tests/test_http_connect.py``).
"""

from __future__ import annotations

import json
import os
import re
import time
import unittest
from typing import Any
from unittest import mock

from agentkit_core.http import Request, SocketTransport, send
from tests import peers, recorded
from tests.loopback import Reply, sse_reply

NGINX: Any = None
BACKEND: Any = None
SQUID: Any = None
SQUID_AUTH: Any = None
SQUID_TLS: Any = None


class TlsSquid(peers.Squid):
    """The harness's squid, listening as an ``https://`` proxy (``https_port``, a certificate from a CA of its own)."""

    name = "squid-tls"

    def __init__(self) -> None:
        super().__init__(auth=False)
        self.ca_file, self.cert, self.key = peers.make_ca(self.dir)  # made before squid's user is given the folder

    @property
    def proxy_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def _start(self, args: list[str], *rest: Any) -> None:
        conf = args[-1]  # squid -N -f <conf>: its http_port lines become https_port ones
        with open(conf) as f:
            text = f.read()
        text = re.sub(r"^http_port (\S+)$", lambda m: f"https_port {m.group(1)} tls-cert={self.cert} tls-key={self.key}", text, flags=re.M)
        with open(conf, "w") as f:
            f.write(text)
        super()._start(args, *rest)


def setUpModule() -> None:
    global NGINX, BACKEND, SQUID, SQUID_AUTH, SQUID_TLS
    BACKEND = peers.backend()
    NGINX = peers.nginx(upstream=BACKEND.url())
    SQUID = peers.squid()
    SQUID_AUTH = peers.squid(auth=True)
    SQUID_TLS = peers._started(TlsSquid)  # stopped at the module's end, or at once if it fails


class WireTest(unittest.TestCase):
    def tls(self, **proxies: str) -> SocketTransport:
        transport = SocketTransport(ssl_context=NGINX.ssl_context(), proxies=proxies)
        self.addCleanup(transport.close)
        return transport

    def connection(self, transport: SocketTransport, url: str) -> tuple[int, int]:
        """(nginx's connection number, requests it carried so far) of a GET of ``url``."""
        with send(Request("GET", url), transport=transport, retries=0) as response:
            number, requests = response.read().split()
        return int(number), int(requests)


class KeepAliveTest(WireTest):
    def test_requests_over_tls_reuse_one_connection(self) -> None:
        transport = self.tls()
        seen = [self.connection(transport, NGINX.url("/connection")) for _ in range(20)]
        self.assertEqual({number for number, _ in seen}, {seen[0][0]})
        self.assertEqual([requests for _, requests in seen], list(range(1, 21)))
        self.assertEqual(transport.opened, 1)

    def test_each_origin_has_its_own_connections(self) -> None:
        transport = self.tls()
        first = [self.connection(transport, NGINX.url("/connection", origin=n % 2)) for n in range(6)]
        self.assertEqual(transport.opened, 2)
        self.assertEqual(len({number for number, _ in first}), 2)

    def test_a_connection_nginx_closed_while_idle_is_replaced_invisibly(self) -> None:
        transport = self.tls()
        number, _ = self.connection(transport, NGINX.url("/connection"))
        time.sleep(1.5)  # past nginx's keepalive_timeout of 1 s: it closes the idle connection
        key = ("https", "127.0.0.1", NGINX.ports[0][1])
        deadline = time.monotonic() + 10  # a loaded machine may run nginx's timer late: wait (bounded) for its close
        while time.monotonic() < deadline and transport.pool.idle():
            conn = transport.pool.take(key)  # None once the close arrived (the idle check drops it)
            if conn is not None:
                transport.pool.give(conn, transport.pool.generation)
                time.sleep(0.1)
        again, requests = self.connection(transport, NGINX.url("/connection"))  # retries=0: no retry hides an error
        self.assertNotEqual(again, number)
        self.assertEqual((requests, transport.opened), (1, 2))

    def test_a_half_read_body_is_not_reused(self) -> None:
        transport = self.tls()
        number, _ = self.connection(transport, NGINX.url("/connection"))
        with send(Request("GET", NGINX.url("/big")), transport=transport) as response:
            self.assertEqual(len(next(response.chunks(100))), 100)
        again, _ = self.connection(transport, NGINX.url("/connection"))
        self.assertNotEqual(again, number)
        self.assertEqual(transport.opened, 2)

    def test_chunked_sse_through_nginx_then_reused(self) -> None:
        body = recorded.raw("anthropic", "messages.text_tool_use.sse.txt")
        BACKEND.replies = [sse_reply(body, 0.01)]
        self.addCleanup(setattr, BACKEND, "replies", [Reply(echo=True)])
        transport = self.tls()
        request = Request("POST", NGINX.url("/up/v1/messages"), {"content-type": "application/json"}, b"{}")
        for _ in range(2):
            with send(request, transport=transport) as response:
                self.assertEqual(response.headers.get("transfer-encoding"), "chunked")
                events = [event["type"] for event in response.events()]
            self.assertEqual(events[0], "message_start")
            self.assertEqual(events[-1], "message_stop")
        self.assertEqual(transport.opened, 1)

    def test_ipv6_over_tls(self) -> None:
        if not peers.has_ipv6():
            self.skipTest("needs [::1]: this machine cannot listen there")
        transport = self.tls()
        seen = [self.connection(transport, NGINX.url("/connection", v6=True)) for _ in range(3)]  # nginx answers a bad Host with 400
        self.assertEqual([requests for _, requests in seen], [1, 2, 3])


class ProxyTest(WireTest):
    def test_a_tunnel_through_squid_is_kept_alive(self) -> None:
        for squid in (SQUID, SQUID_AUTH):
            with self.subTest(auth=squid.auth):
                transport = self.tls(https=squid.proxy_url)
                seen = [self.connection(transport, NGINX.url("/connection")) for _ in range(5)]
                self.assertEqual([requests for _, requests in seen], [1, 2, 3, 4, 5])
                self.assertEqual(transport.opened, 1)

    def test_plain_http_through_squid_is_kept_alive(self) -> None:
        transport = self.tls(http=SQUID_AUTH.proxy_url)
        for _ in range(3):
            with send(Request("GET", NGINX.url("/up/plain", tls=False)), transport=transport) as response:
                seen = json.loads(response.read())
            self.assertIn("squid", seen["headers"].get("via", ""))
        self.assertEqual(transport.opened, 1)

    def test_a_tunnel_to_ipv6_through_squid(self) -> None:
        if not peers.has_ipv6():
            self.skipTest("needs [::1]: this machine cannot listen there")
        transport = self.tls(https=SQUID.proxy_url)
        _, requests = self.connection(transport, NGINX.url("/connection", v6=True))
        self.assertEqual(requests, 1)

    def test_an_https_proxy_tunnels_https_by_tls_inside_tls(self) -> None:
        import ssl

        context = ssl.create_default_context(cafile=NGINX.ca_file)
        context.load_verify_locations(SQUID_TLS.ca_file)  # the proxy's certificate comes from a CA of its own
        transport = SocketTransport(ssl_context=context, proxies={"https": SQUID_TLS.proxy_url, "http": SQUID_TLS.proxy_url})
        self.addCleanup(transport.close)
        seen = [self.connection(transport, NGINX.url("/connection")) for _ in range(3)]
        self.assertEqual([requests for _, requests in seen], [1, 2, 3])  # one tunnel, kept alive
        with send(Request("GET", NGINX.url("/up/over-tls", tls=False)), transport=transport) as response:
            echoed = json.loads(response.read())
        self.assertIn("squid", echoed["headers"].get("via", ""))
        self.assertEqual(transport.opened, 2)

    def test_all_proxy_from_the_environment(self) -> None:
        env = {"all_proxy": SQUID_AUTH.proxy_url}
        with mock.patch.dict(os.environ, env):
            for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "no_proxy", "NO_PROXY"):
                os.environ.pop(name, None)
            transport = SocketTransport(ssl_context=NGINX.ssl_context())
            self.addCleanup(transport.close)
            with send(Request("GET", NGINX.url("/up/all", tls=False)), transport=transport) as response:
                seen = json.loads(response.read())
            self.assertIn("squid", seen["headers"].get("via", ""))
            _, requests = self.connection(transport, NGINX.url("/connection"))  # https: a CONNECT tunnel through it
            self.assertEqual(requests, 1)
            self.assertEqual(transport.opened, 2)


if __name__ == "__main__":
    unittest.main()
