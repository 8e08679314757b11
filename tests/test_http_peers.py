"""send() against real server software: Debian's nginx (TLS from a private CA) and squid (CONNECT, basic auth).

The peers start once for the module (``tests/peers.py``); where nginx, squid
or openssl is not installed the module skips, naming it.  CI installs them.
"""

from __future__ import annotations

import json
import unittest
from typing import Any

from agentkit_core.http import Request, SocketTransport, TransportError, send
from tests import peers
from tests.test_http import KEY

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


def tls(**proxies: str) -> SocketTransport:
    """A transport trusting the module's CA, with ``proxies`` (none by default)."""
    return SocketTransport(ssl_context=NGINX.ssl_context(), proxies=proxies)


class TlsTest(unittest.TestCase):
    def test_a_private_ca_is_trusted_when_given(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=tls()) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_without_the_ca_the_certificate_is_refused(self) -> None:
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=SocketTransport(proxies={}), retries=0)
        self.assertIn("certificate", str(caught.exception).lower())

    def test_a_body_of_64_kib_arrives_whole(self) -> None:
        with send(Request("GET", NGINX.url("/big")), transport=tls()) as response:
            self.assertEqual(response.read(), b"x" * 65536)

    def test_the_backend_sees_the_request_through_nginx(self) -> None:
        request = Request("POST", NGINX.url("/up/echo"), {"x-api-key": KEY, "content-type": "application/json"}, b"{}")
        with send(request, transport=tls()) as response:
            seen = response.json()
        self.assertIsInstance(seen, dict)
        self.assertEqual((seen["method"], seen["path"], seen["body"]), ("POST", "/up/echo", "{}"))  # type: ignore[index,call-overload]
        self.assertEqual(seen["headers"]["x-api-key"], KEY)  # type: ignore[index,call-overload]


class SquidTest(unittest.TestCase):
    def test_connect_through_squid(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=tls(https=SQUID.proxy_url)) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_plain_http_through_squid(self) -> None:
        with send(Request("GET", NGINX.url("/up/plain", tls=False)), transport=tls(http=SQUID.proxy_url)) as response:
            seen = json.loads(response.read())
        self.assertIn("squid", seen["headers"].get("via", ""))

    def test_connect_through_squid_with_basic_auth(self) -> None:
        with send(Request("GET", NGINX.url("/ok")), transport=tls(https=SQUID_AUTH.proxy_url)) as response:
            self.assertEqual((response.status, response.read()), (200, b"ok\n"))

    def test_squid_refuses_a_tunnel_without_credentials_and_no_secret_shows(self) -> None:
        bare = SQUID_AUTH.proxy_url.replace(f"{SQUID_AUTH.user}:{SQUID_AUTH.password}@", "")
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=tls(https=bare), retries=0)
        self.assertIn("407", str(caught.exception))
        wrong = SQUID_AUTH.proxy_url.replace(SQUID_AUTH.password, "wrong-" + SQUID_AUTH.password)
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", NGINX.url("/ok")), transport=tls(https=wrong), retries=0)
        self.assertIn("407", str(caught.exception))
        self.assertNotIn(SQUID_AUTH.password, str(caught.exception) + repr(caught.exception.args))


if __name__ == "__main__":
    unittest.main()
