"""Kept-alive HTTPS: 200 sequential small requests to a local TLS server, by each client.

The server is Python's own ``http.server`` behind ``ssl`` in a child process
(so its CPU is not counted against the clients), with a certificate from a
throwaway CA made by the ``openssl`` command in a temporary directory; it
counts the connections it accepted.  Measured, in alternating rounds:

* a shared :class:`~agentkit_core.http.SocketTransport` (one pool, one SSL context);
* ``send()`` given no transport (the module's shared default transport);
* a new ``SocketTransport`` per request (every request a new TCP and TLS
  connection and a new SSL context: what ``send()`` did before pooling);
* ``httpx.Client`` when httpx is importable ("httpx not installed, skipped" otherwise).

Rows give requests per second, CPU per request of the client process and
connections used; the targets (issue 24): the shared transport at least as
fast as ``httpx.Client``, ``send()`` with no transport at most 2x a shared
transport's CPU per request, 200 requests over at most a handful (5) of
connections.  Needs ``openssl`` and loopback sockets; rows say "skipped" otherwise.

Run alone:  python tools/bench_http.py [--quick]   (or python tools/bench.py --only http)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from bench import Row, verdict  # noqa: E402

_SERVER = r"""
import http.server, json, socketserver, ssl, sys, threading
cert, key, ready = sys.argv[1:4]
accepted = [0]
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms wait for a delayed ACK
    def log_message(self, *a): pass
    def do_GET(self):
        body = json.dumps({"connections": accepted[0]}).encode() if self.path == "/stats" else b'{"ok": true, "id": "msg_01"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    def get_request(self):
        sock, addr = self.socket.accept()
        accepted[0] += 1
        return context.wrap_socket(sock, server_side=True), addr
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server = Server(("127.0.0.1", 0), Handler)
with open(ready, "w") as f:
    f.write(str(server.server_address[1]))
threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
server.serve_forever(poll_interval=0.05)
"""


class TlsServer:
    """The child-process TLS server; a context manager. ``url()``, ``connections()``."""

    def __init__(self, folder: str, cert: str, key: str) -> None:
        ready = os.path.join(folder, "port")
        self.process = subprocess.Popen([sys.executable, "-c", _SERVER, cert, key, ready], stdin=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not (os.path.exists(ready) and open(ready).read()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError("the benchmark's TLS server did not start")
            time.sleep(0.05)
        self.port = int(open(ready).read())

    def url(self, path: str = "/v1/messages") -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def connections(self, context: Any) -> int:
        import http.client

        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=context, timeout=10)
        try:
            conn.request("GET", "/stats")
            return int(json.loads(conn.getresponse().read())["connections"]) - 1  # less this one
        finally:
            conn.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.communicate(b"", timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def __enter__(self) -> TlsServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _run(client: Callable[[], None], count: int, server: TlsServer, context: Any) -> tuple[float, float, int]:
    """(seconds of wall time, seconds of CPU, connections) for ``count`` calls of ``client``."""
    before = server.connections(context)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        client()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, server.connections(context) - before


def _clients(server: TlsServer, ca: str) -> tuple[dict[str, Callable[[], None]], list[Callable[[], None]], str]:
    import ssl

    from agentkit_core.http import Request, SocketTransport, _sockets, send

    context = ssl.create_default_context(cafile=ca)
    shared = SocketTransport(ssl_context=context, proxies={})
    os.environ["SSL_CERT_FILE"] = ca  # the default transport's default context trusts the throwaway CA
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        os.environ.pop(name, None)
    _sockets._shared = None  # a default transport made now, with the environment above
    request = Request("GET", server.url(), {"accept": "application/json"})

    def shared_transport() -> None:
        with send(request, transport=shared) as response:
            response.read()

    def no_transport() -> None:
        with send(request) as response:
            response.read()

    def fresh_transport() -> None:
        context = ssl.create_default_context()  # the system's CA bundle, as the old default loaded it each time
        context.load_verify_locations(ca)
        transport = SocketTransport(ssl_context=context, proxies={})
        with send(request, transport=transport) as response:
            response.read()
        transport.close()

    clients = {"shared SocketTransport": shared_transport, "send() with no transport": no_transport, "a new SocketTransport per request": fresh_transport}
    closers = [shared.close, lambda: _sockets.shared_transport().close()]
    try:
        import httpx
    except ImportError:
        return clients, closers, "httpx not installed, skipped"
    client = httpx.Client(verify=ssl.create_default_context(cafile=ca), trust_env=False)

    def httpx_client() -> None:
        client.get(server.url(), headers={"accept": "application/json"}).read()

    clients["httpx.Client"] = httpx_client
    closers.append(client.close)
    return clients, closers, f"httpx {httpx.__version__}"


def measure(quick: bool) -> list[Row]:
    """200 sequential small HTTPS requests per client: requests/s, CPU per request, connections used."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return [Row("http", "kept-alive HTTPS", "-", "-", "skipped: openssl not installed")]
    import ssl

    from tests.peers import make_ca

    count, rounds = (50, 1) if quick else (200, 3)
    folder = tempfile.mkdtemp(prefix="agentkit-bench-http-")
    try:
        ca, cert, key = make_ca(folder)
        with TlsServer(folder, cert, key) as server:
            clients, closers, httpx_note = _clients(server, ca)
            probe = ssl.create_default_context(cafile=ca)
            best: dict[str, tuple[float, float, int]] = {}
            for _name, client in clients.items():
                client()  # warm: imports, the first connection, the SSL context
            for _ in range(rounds):
                for name, client in clients.items():
                    wall, cpu, conns = _run(client, count, server, probe)
                    old = best.get(name)
                    best[name] = (min(wall, old[0]), min(cpu, old[1]), max(conns, old[2])) if old else (wall, cpu, conns)
            for close in closers:
                close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _rows(best, count, httpx_note)


def _rows(best: dict[str, tuple[float, float, int]], count: int, httpx_note: str) -> list[Row]:
    shared_wall, shared_cpu, shared_conns = best["shared SocketTransport"]
    rows = []
    for name, (wall, cpu, conns) in best.items():
        result = f"{count / wall:.0f} req/s, {cpu / count * 1e3:.2f} ms CPU/req, {conns} conn"
        ratio = f"{cpu / shared_cpu:.2f}x shared CPU/req" if name != "shared SocketTransport" else "baseline"
        if name == "shared SocketTransport":
            target = verdict(shared_conns <= 5, f"{count} requests on <= 5 connections")
        elif name == "send() with no transport":
            target = verdict(cpu <= 2 * shared_cpu, "<= 2x shared CPU/req")
        elif name == "httpx.Client":
            ratio = f"shared transport {wall / shared_wall:.2f}x its req/s; {ratio}"
            target = verdict(shared_wall <= wall, f"shared >= httpx req/s ({httpx_note})")
        else:
            target = "context: the old default, no pool"
        rows.append(Row("http", name, result, ratio, target))
    if "httpx.Client" not in best:
        rows.append(Row("http", "httpx.Client", "-", "-", httpx_note))
    return rows


if __name__ == "__main__":
    from bench import main

    sys.exit(main(["--only", "http", *sys.argv[1:]]))
