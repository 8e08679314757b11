"""An ``https://`` proxy: spoken to over TLS, https origins reached by TLS inside its TLS, tunnels kept alive.

The proxy and the origin are the suite's own, on 127.0.0.1, with
certificates from a CA made here by the ``openssl`` command
(``tests.peers.make_ca``); the module skips where openssl is missing.  The
proxy tunnels ``CONNECT`` (a single thread shuttles bytes both ways) and
answers any other request itself, naming the absolute URL it was given.
"""

from __future__ import annotations

import http.server
import select
import shutil
import socket
import ssl
import tempfile
import threading
import unittest
from typing import Any

from agentkit_core.http import Request, SocketTransport, TransportError, send
from tests.capability import can_serve_loopback, can_spawn_process

_WAIT = 10.0
CA = CERT = KEY = ""
KEY_TEXT = "proxy-secret-0123"


def setUpModule() -> None:
    global CA, CERT, KEY
    if not can_serve_loopback():
        raise unittest.SkipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
    if not can_spawn_process():
        raise unittest.SkipTest("needs processes: this interpreter cannot spawn one (openssl makes the certificates)")
    from tests.peers import make_ca

    folder = tempfile.mkdtemp(prefix="agentkit-tls-proxy-")
    unittest.addModuleCleanup(shutil.rmtree, folder, True)
    CA, CERT, KEY = make_ca(folder)


def server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    return context


class TlsOrigin:
    """An HTTPS keep-alive server answering each GET with how many connections it accepted so far."""

    def __init__(self, close_after: bool = False) -> None:
        accepted = self.accepted = [0]
        context = server_context()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = b"%d %s" % (accepted[0], self.headers.get("Host", "").encode())
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = close_after  # closes without saying so (no Connection: close)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self) -> Any:
                sock, address = self.socket.accept()
                accepted[0] += 1
                return context.wrap_socket(sock, server_side=True), address

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> TlsOrigin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(_WAIT)


class TlsProxy:
    """An HTTPS proxy: CONNECT tunnels, other requests answered by itself; ``heads`` records what came."""

    def __init__(self) -> None:
        self.context = server_context()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(_WAIT)
        self.port = self.listener.getsockname()[1]
        self.heads: list[bytes] = []
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.socks: list[socket.socket] = []

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            self.socks.append(raw)
            thread = threading.Thread(target=self._serve, args=(raw,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, raw: socket.socket) -> None:
        client: Any = raw
        try:
            raw.settimeout(_WAIT)
            client = self.context.wrap_socket(raw, server_side=True)  # raw's descriptor moves into it
            self.socks.append(client)
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    piece = client.recv(65536)
                    if not piece:
                        return
                    data += piece
                head, _, data = data.partition(b"\r\n\r\n")
                self.heads.append(head)
                method, target, _ = head.split(b"\r\n")[0].split(b" ", 2)
                if method != b"CONNECT":
                    body = b"forwarded " + target
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                    continue
                host, _, port = target.rpartition(b":")
                origin = socket.create_connection((host.strip(b"[]").decode(), int(port)), timeout=_WAIT)
                self.socks.append(origin)
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._shuttle(client, origin, data)
                return
        except OSError:
            pass
        finally:
            client.close()

    def _shuttle(self, client: ssl.SSLSocket, origin: socket.socket, early: bytes) -> None:
        if early:
            origin.sendall(early)
        while not self.stopping.is_set():
            ready, _, _ = select.select([client, origin], [], [], 0.1)
            for sock in ready:
                try:
                    data = sock.recv(65536)
                except ssl.SSLWantReadError:
                    continue
                if not data:
                    origin.close()
                    return
                (origin if sock is client else client).sendall(data)
                while sock is client and client.pending():
                    origin.sendall(client.recv(client.pending()))

    def __enter__(self) -> TlsProxy:
        thread = threading.Thread(target=self._accept, daemon=True)
        self.threads.append(thread)
        thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for sock in [self.listener, *self.socks]:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        for thread in self.threads:
            thread.join(_WAIT)


class HttpsProxyTest(unittest.TestCase):
    def transport(self, proxy: TlsProxy, **context: Any) -> SocketTransport:
        url = f"https://user:{KEY_TEXT}@127.0.0.1:{proxy.port}"
        transport = SocketTransport(ssl_context=ssl.create_default_context(cafile=CA), proxies={"https": url, "http": url}, **context)
        self.addCleanup(transport.close)
        return transport

    def test_an_https_origin_by_tls_inside_the_proxys_tls(self) -> None:
        with TlsOrigin() as origin, TlsProxy() as proxy:
            transport = self.transport(proxy)
            bodies = []
            for _ in range(3):
                with send(Request("GET", f"https://127.0.0.1:{origin.port}/v1"), transport=transport, retries=0) as response:
                    bodies.append(response.read())
            self.assertEqual(bodies, [b"1 127.0.0.1:%d" % origin.port] * 3)  # one tunnel, kept alive
            self.assertEqual(transport.opened, 1)
            self.assertEqual(len(proxy.heads), 1)
            self.assertTrue(proxy.heads[0].startswith(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n" % origin.port))
            self.assertIn(b"\r\nProxy-Authorization: Basic ", proxy.heads[0])

    def test_a_plain_http_origin_goes_to_the_proxy_over_tls(self) -> None:
        with TlsProxy() as proxy:
            with send(Request("GET", "http://api.example.invalid/v1?x=1"), transport=self.transport(proxy), retries=0) as response:
                self.assertEqual(response.read(), b"forwarded http://api.example.invalid/v1?x=1")

    def test_a_tls_connection_closed_behind_the_idle_check_is_replaced_invisibly(self) -> None:
        from unittest import mock

        transport = SocketTransport(ssl_context=ssl.create_default_context(cafile=CA), proxies={})
        self.addCleanup(transport.close)
        with TlsOrigin(close_after=True) as origin:
            with mock.patch("agentkit_core.http._pool.Connection.idle_and_open", return_value=True):  # the check misses the close
                bodies = [send(Request("GET", f"https://127.0.0.1:{origin.port}/"), transport=transport, retries=0).read() for _ in range(3)]
        self.assertEqual([b.split()[0] for b in bodies], [b"1", b"2", b"3"])
        self.assertEqual(transport.opened, 3)

    def test_a_proxy_certificate_that_does_not_verify(self) -> None:
        with TlsProxy() as proxy:
            transport = SocketTransport(proxies={"https": f"https://user:{KEY_TEXT}@127.0.0.1:{proxy.port}"})
            self.addCleanup(transport.close)
            with self.assertRaises(TransportError) as caught:
                send(Request("GET", "https://api.example.invalid/"), transport=transport, retries=0)
        self.assertIn(f"TLS with proxy 127.0.0.1:{proxy.port} failed", str(caught.exception))
        self.assertNotIn(KEY_TEXT, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
