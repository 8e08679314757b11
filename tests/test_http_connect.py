"""Connecting: which timeout bounds what and says so, proxies read as urllib/requests/httpx read them, IPv6 targets.

Mute peers here accept TCP and never speak.  Each wait asserted is far
below the other timeout given, so an end in time shows which one ran out.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import unittest
from unittest import mock

from agentkit_core.http import Request, SocketTransport, TransportError, send
from agentkit_core.http._proxy import bypassed, choose_proxy, environment_proxies, parse_proxy
from tests.capability import can_serve_loopback, needs_processes
from tests.loopback import Loopback, json_reply

KEY = "sk-proxy-secret-0123"
LONG = 30.0  # the timeout that must not be the one that ran out


class MutePeer:
    """Accepts connections and reads them, never writes; ``received`` holds what came."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(LONG)
        self.port = int(self.listener.getsockname()[1])
        self.received = b""
        self.stopping = threading.Event()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.conns.append(conn)
            conn.settimeout(0.05)
            while not self.stopping.is_set():
                try:
                    data = conn.recv(65536)
                except socket.timeout:
                    continue
                except OSError:
                    break
                if not data:
                    break
                self.received += data

    def __enter__(self) -> MutePeer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for sock in [self.listener, *self.conns]:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        self.thread.join(LONG)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ConnectTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")

    def fails(self, url: str, transport: SocketTransport, **options: float) -> tuple[TransportError, float]:
        start = time.monotonic()
        with self.assertRaises(TransportError) as caught:
            send(Request("GET", url), transport=transport, retries=0, **options)
        transport.close()
        return caught.exception, time.monotonic() - start

    def test_a_mute_tls_peer_is_bounded_by_connect_timeout(self) -> None:
        with MutePeer() as peer:
            error, took = self.fails(f"https://127.0.0.1:{peer.port}/", SocketTransport(proxies={}), connect_timeout=0.3, timeout=LONG)
        self.assertTrue(error.timed_out)
        self.assertIn(f"TLS handshake with 127.0.0.1:{peer.port} timed out after 0.3 s (connect_timeout)", str(error))
        self.assertLess(took, LONG / 2)

    def test_a_connect_that_hangs_is_bounded_by_connect_timeout(self) -> None:
        from tests.test_http_cancel import _fill_backlog

        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)  # never accepted: once its queue is full, a connect hangs as one to a filtering firewall does
            port = int(listener.getsockname()[1])
            held = _fill_backlog(listener.getsockname())
            try:
                if held is None:
                    self.skipTest("needs a blocked connect: this system completes every connect, so none hangs")
                error, took = self.fails(f"http://127.0.0.1:{port}/", SocketTransport(proxies={}), connect_timeout=0.3, timeout=LONG)
                self.assertTrue(error.timed_out)
                self.assertEqual(str(error), f"connecting to 127.0.0.1:{port} timed out after 0.3 s (connect_timeout)")
                self.assertLess(took, LONG / 2)
                transport = SocketTransport(proxies={"https": f"http://user:{KEY}@127.0.0.1:{port}"})
                error, took = self.fails("https://api.example.invalid/v1", transport, connect_timeout=0.3, timeout=LONG)
                self.assertTrue(error.timed_out)
                self.assertEqual(str(error), f"connecting to proxy 127.0.0.1:{port} timed out after 0.3 s (connect_timeout)")
                self.assertLess(took, LONG / 2)
            finally:
                for sock in held or ():
                    sock.close()

    def test_a_silent_answer_is_bounded_by_timeout(self) -> None:
        with MutePeer() as peer:
            error, took = self.fails(f"http://127.0.0.1:{peer.port}/v1", SocketTransport(proxies={}), connect_timeout=LONG, timeout=0.3)
        self.assertTrue(error.timed_out)
        self.assertEqual(str(error), f"no answer for 0.3 s (timeout) from http://127.0.0.1:{peer.port}/v1")
        self.assertLess(took, LONG / 2)

    def test_a_mute_proxy_is_bounded_by_connect_timeout_and_named(self) -> None:
        with MutePeer() as proxy:
            transport = SocketTransport(proxies={"https": f"http://user:{KEY}@127.0.0.1:{proxy.port}"})
            error, took = self.fails("https://api.example.invalid/v1", transport, connect_timeout=0.3, timeout=LONG)
            self.assertTrue(proxy.received.startswith(b"CONNECT api.example.invalid:443 HTTP/1.1\r\n"))
        self.assertEqual(str(error), f"no answer from proxy 127.0.0.1:{proxy.port} to CONNECT api.example.invalid:443 within 0.3 s (connect_timeout)")
        self.assertLess(took, LONG / 2)
        self.assertNotIn(KEY, str(error))

    def test_a_mute_plain_http_proxy_is_named(self) -> None:
        with MutePeer() as proxy:
            transport = SocketTransport(proxies={"http": f"http://user:{KEY}@127.0.0.1:{proxy.port}"})
            error, _ = self.fails("http://api.example.invalid/v1", transport, connect_timeout=LONG, timeout=0.3)
        self.assertEqual(str(error), f"no answer for 0.3 s (timeout) from proxy 127.0.0.1:{proxy.port} (for http://api.example.invalid/v1)")

    def test_a_proxy_that_is_down_is_named(self) -> None:
        port = free_port()
        for scheme in ("http", "https"):
            with self.subTest(scheme):
                transport = SocketTransport(proxies={scheme: f"http://user:{KEY}@127.0.0.1:{port}"})
                error, _ = self.fails(f"{scheme}://api.example.invalid/", transport, connect_timeout=5)
                self.assertIn(f"cannot connect to proxy 127.0.0.1:{port}", str(error))
                self.assertNotIn(KEY, str(error))
        error, _ = self.fails(f"http://127.0.0.1:{port}/", SocketTransport(proxies={}), connect_timeout=5)
        self.assertIn(f"cannot connect to 127.0.0.1:{port}", str(error))

    def test_an_https_proxy_is_spoken_to_over_tls(self) -> None:
        with Loopback([json_reply(200, b"{}")]) as plain_proxy:  # speaks plain HTTP: a TLS hello to it must fail
            port = plain_proxy.server.server_address[1]
            transport = SocketTransport(proxies={"http": f"https://127.0.0.1:{port}"})
            error, _ = self.fails("http://api.example.invalid/", transport, connect_timeout=5, timeout=5)
            self.assertIn(f"TLS with proxy 127.0.0.1:{port} failed", str(error))
            self.assertEqual(plain_proxy.requests, [])  # nothing went to it in plain HTTP
            transport = SocketTransport(proxies={"https": f"https://127.0.0.1:{port}"})
            error, _ = self.fails("https://api.example.invalid/", transport, connect_timeout=5, timeout=5)
            self.assertIn(f"TLS with proxy 127.0.0.1:{port} failed", str(error))  # no CONNECT in plain HTTP either
            self.assertEqual(plain_proxy.requests, [])

    def test_connect_targets_and_hosts_bracket_ipv6(self) -> None:
        with Loopback([json_reply(407, b"")]) as proxy:
            transport = SocketTransport(proxies={"https": proxy.url()})
            error, _ = self.fails("https://[::1]:8443/v1", transport)
            self.assertIn("HTTP 407", str(error))
            received = proxy.requests[0]
            self.assertEqual((received.method, received.path, received.headers["Host"]), ("CONNECT", "[::1]:8443", "[::1]:8443"))
        with Loopback([json_reply(200, b"{}")]) as proxy:
            with send(Request("GET", "http://[::1]:8080/x"), transport=SocketTransport(proxies={"http": proxy.url()})) as response:
                response.read()
            self.assertEqual(proxy.requests[0].headers["Host"], "[::1]:8080")
            with send(Request("GET", "http://[::1]/x"), transport=SocketTransport(proxies={"http": proxy.url()})) as response:
                response.read()
            self.assertEqual(proxy.requests[1].headers["Host"], "[::1]")

    def test_all_proxy_from_the_environment(self) -> None:
        with Loopback([json_reply(200, b"{}")]) as proxy:
            env = {"all_proxy": proxy.url(), "no_proxy": "bypassed.example"}
            with mock.patch.dict("os.environ", env, clear=False):
                for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy"):
                    os.environ.pop(name, None)
                transport = SocketTransport()
                self.assertEqual(transport.proxy_for("https", "api.example.invalid"), proxy.url())
                self.assertIsNone(transport.proxy_for("http", "bypassed.example"))
                with send(Request("GET", "http://api.example.invalid/v1"), transport=transport) as response:
                    self.assertEqual(response.status, 200)
                transport.close()
            self.assertEqual(proxy.requests[0].path, "http://api.example.invalid/v1")


class ProxyRulesTest(unittest.TestCase):
    def test_parse(self) -> None:
        proxy = parse_proxy(f"http://user:{KEY}@proxy.example")
        self.assertEqual((proxy.scheme, proxy.host, proxy.port, proxy.where), ("http", "proxy.example", 80, "proxy proxy.example:80"))
        self.assertTrue(proxy.auth[0][1].startswith("Basic "))
        self.assertEqual(parse_proxy("proxy.example:3128")[:3], ("http", "proxy.example", 3128))
        self.assertEqual(parse_proxy("https://proxy.example")[:3], ("https", "proxy.example", 443))
        self.assertEqual(parse_proxy("http://[::1]:3128").where, "proxy [::1]:3128")
        self.assertEqual(parse_proxy("http://proxy.example:8080").auth, ())
        for bad, words in (("socks5://h:1080", "not an http:// or https:// proxy"), ("http://h:99999", "bad port"), ("http://:80", "no host")):
            with self.subTest(bad), self.assertRaises(TransportError) as caught:
                parse_proxy(bad)
            self.assertIn(words, str(caught.exception))
        with self.assertRaises(TransportError) as caught:
            parse_proxy(f"socks5://user:{KEY}@h:1080")
        self.assertNotIn(KEY, str(caught.exception))

    def test_the_environment_as_urllib_reads_it(self) -> None:
        import urllib.request

        cases = [
            {"HTTP_PROXY": "http://up:1", "https_proxy": "http://low:2", "HTTPS_PROXY": "http://up:2", "ALL_PROXY": "http://all:3"},
            {"http_proxy": "", "HTTP_PROXY": "http://up:1", "no_proxy": "a.example", "NO_PROXY": "b.example"},
            {"HTTP_PROXY": "http://up:1", "REQUEST_METHOD": "GET", "all_proxy": "http://all:3"},
            {"http_proxy": "http://low:1", "REQUEST_METHOD": "GET"},
            {},
        ]
        names = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")
        for env in cases:
            with self.subTest(env), mock.patch.dict(os.environ, env):
                for name in names:
                    for spelling in (name, name.upper()):
                        if spelling not in env:
                            os.environ.pop(spelling, None)
                expected = {k: v for k, v in urllib.request.getproxies_environment().items() if k in ("http", "https", "all", "no")}
                self.assertEqual(environment_proxies(), expected)
                for host in ("a.example", "b.example", "c.example"):
                    wanted = None if urllib.request.proxy_bypass_environment(host, expected) else expected.get("https") or expected.get("all")
                    self.assertEqual(choose_proxy(None, "https", host), wanted)

    @needs_processes
    def test_no_proxy_set_imports_no_urllib_request(self) -> None:
        # urllib.request pulls in http.client and email (some 14 ms on a first send): only a proxy to bypass needs it,
        # or the system's settings (macOS, Windows), which are read through it.
        code = (
            "import sys; from agentkit_core.http._proxy import choose_proxy; "
            "choose_proxy(None, 'https', 'api.example'); print('urllib.request' in sys.modules)"
        )
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(done.stdout.strip(), str(sys.platform in ("darwin", "win32")), done.stderr)

    def test_choose(self) -> None:
        proxies = {"all": "http://all:1", "https": "http://s:2", "no": "internal.example, .corp"}
        self.assertEqual(choose_proxy(proxies, "https", "api.example"), "http://s:2")
        self.assertEqual(choose_proxy(proxies, "http", "api.example"), "http://all:1")
        self.assertIsNone(choose_proxy(proxies, "http", "internal.example"))
        self.assertIsNone(choose_proxy(proxies, "http", "a.b.corp"))
        self.assertIsNone(choose_proxy({}, "http", "api.example"))
        self.assertTrue(bypassed("x", "*"))
        self.assertFalse(bypassed("notcorp", "corp"))


if __name__ == "__main__":
    unittest.main()
