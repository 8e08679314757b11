"""The local servers of the browser run (``tools/browser/run.mjs``): the page's origin and a fake provider.

Two HTTP servers on 127.0.0.1, each on a port of its own, so that the page
and the provider are different origins and every call is a real cross-origin
``fetch`` (a CORS preflight included), as from a page to a provider's API:

* **the page's origin** serves ``page.html`` and ``page.mjs`` (this folder),
  ``turns.py`` (the Python side of the run), the Pyodide files from
  ``tools/pyodide/node_modules/pyodide`` and ``/agentkit_core.zip`` (the
  package source, zipped here at start), plus ``/record/<id>``: what the
  provider saw of the requests made under ``<id>`` (as JSON; ``?wait=S``
  waits up to S seconds for them to end);
* **the provider** answers ``POST /<scenario>[,name=value...]/<id>/<api path>``, the
  recorded streams of ``tests/payloads`` for ``.../messages`` (Anthropic) and
  ``.../chat/completions`` (OpenAI Chat):

  ``stream``   the whole recording, one event every ``gap`` ms (``,gap=15``);
  ``hold``     the events up to the third carrying text, then nothing: it
               waits for the client to go;
  ``busy``     the first request of an id gets 529 ``overloaded_error`` with
               ``retry-after-ms`` (``,ms=``, default 3000), later ones stream;
  ``nocors``   an answer without ``Access-Control-Allow-Origin``;
  ``bad``      400 ``invalid_request_error``.

  Like Anthropic's API, an Anthropic request without
  ``anthropic-dangerous-direct-browser-access: true`` is refused with 401.

Every answer records whether the client closed the connection before the
answer's end (``closed_early``): while the server waits between events it
watches the socket, so an abort is seen within milliseconds.

Prints one line ``{"page": port, "provider": port, "closed": port}`` (the
last one a port nothing listens on) and serves until its
standard input closes (the driver exits, however it exits) or ``--deadline``
seconds pass.  Standard library only.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import select
import socket
import sys
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYODIDE = os.path.join(ROOT, "tools", "pyodide", "node_modules", "pyodide")
PAYLOADS = os.path.join(ROOT, "tests", "payloads")
STREAMS = {
    "messages": os.path.join(PAYLOADS, "anthropic", "messages.thinking_text.sse.txt"),
    "chat/completions": os.path.join(PAYLOADS, "openai_chat", "chat.text_content.sse.txt"),
}
TYPES = {".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".zip": "application/zip", ".py": "text/plain", ".map": "application/json"}
VISIBLE = re.compile(rb'"text_delta","text":"[^"]|"content":"[^"]')  # an event carrying visible text
HOLD = 30.0  # how long a held answer waits for the client to go: far beyond the run's own bounds

records: dict[str, dict[str, Any]] = {}
changed = threading.Condition()


def package_zip() -> bytes:
    """``agentkit_core/`` as a zip, its source files only."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder, dirs, files in os.walk(os.path.join(ROOT, "agentkit_core")):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".typed")):
                    path = os.path.join(folder, name)
                    archive.write(path, os.path.relpath(path, ROOT))
    return buffer.getvalue()


def events(path: str) -> list[bytes]:
    """The recorded stream split into its events (each ending with its blank line)."""
    with open(path, "rb") as file:
        text = file.read().replace(b"\r\n", b"\n")
    return [chunk + b"\n\n" for chunk in text.split(b"\n\n") if chunk.strip()]


def held_part(recorded: list[bytes]) -> int:
    """How many events a held answer sends: up to its third carrying visible text."""
    text = [i for i, event in enumerate(recorded) if VISIBLE.search(event)]
    return text[2] + 1


def note(rid: str, **changes: Any) -> dict[str, Any]:
    with changed:
        record = records.setdefault(rid, {"requests": 0, "closed_early": 0, "finished": 0, "open": 0, "headers": [], "model": ""})
        for key, value in changes.items():
            record[key] = record[key] + value if isinstance(value, int) and key != "open" else value
        changed.notify_all()
        return dict(record)


class Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def send_body(self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class Page(Quiet):
    """The page's origin."""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        path = url.path
        if path.startswith("/record/"):
            rid = path[len("/record/"):]
            wait = float(parse_qs(url.query).get("wait", ["0"])[0])
            end = time.monotonic() + min(wait, HOLD)
            with changed:
                while True:
                    record = records.get(rid, {})
                    if not wait or (record and record.get("requests") and not record.get("open")):
                        break
                    left = end - time.monotonic()
                    if left <= 0:
                        break
                    changed.wait(left)
                body = json.dumps(record).encode()
            return self.send_body(200, body, "application/json")
        if path == "/agentkit_core.zip":
            return self.send_body(200, self.server.package, "application/zip")  # type: ignore[attr-defined]
        if path in ("/", "/page.html"):
            file = os.path.join(HERE, "page.html")
        elif path in ("/page.mjs", "/turns.py"):
            file = os.path.join(HERE, path[1:])
        elif path.startswith("/pyodide/") and "/." not in path:
            file = os.path.join(PYODIDE, path[len("/pyodide/"):])
        else:
            return self.send_body(404, b"not found", "text/plain")
        try:
            with open(file, "rb") as handle:
                body = handle.read()
        except OSError:
            return self.send_body(404, b"not found", "text/plain")
        self.send_body(200, body, TYPES.get(os.path.splitext(file)[1], "application/octet-stream"))


class Provider(Quiet):
    """The fake provider: recorded streams, paced, with CORS as a provider's API does it."""

    def cors(self, origin: bool = True) -> dict[str, str]:
        if not origin:
            return {}
        return {
            "Access-Control-Allow-Origin": self.headers.get("Origin", "*"),
            "Access-Control-Expose-Headers": "request-id, retry-after-ms, retry-after",
        }

    def do_OPTIONS(self) -> None:
        self.send_body(204, b"", "text/plain", {
            **self.cors(),
            "Access-Control-Allow-Methods": "POST",
            "Access-Control-Allow-Headers": self.headers.get("Access-Control-Request-Headers", ""),
            "Access-Control-Max-Age": "600",
        })

    def do_POST(self) -> None:
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            model = json.loads(sent).get("model", "")
        except (ValueError, AttributeError):
            model = f"not a JSON object: {sent[:40]!r}"
        url = urlsplit(self.path)
        first, _, rest = url.path.lstrip("/").partition("/")
        scenario, *settings = first.split(",")
        query = dict(setting.partition("=")[::2] for setting in settings)
        rid, _, api = rest.partition("/")
        api = api.removeprefix("v1/")
        before = note(rid, requests=1, headers=sorted(k.lower() for k in self.headers.keys()), model=model)
        if api not in STREAMS:
            return self.send_body(404, b'{"error":{"type":"not_found_error","message":"no such path"}}', "application/json", self.cors())
        if api == "messages" and self.headers.get("anthropic-dangerous-direct-browser-access") != "true":
            body = b'{"type":"error","error":{"type":"authentication_error","message":"CORS requests must set \'anthropic-dangerous-direct-browser-access\' header"}}'
            return self.send_body(401, body, "application/json", self.cors())
        if scenario == "bad":
            body = b'{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}'
            return self.send_body(400, body, "application/json", {**self.cors(), "request-id": "req_bad_1"})
        if scenario == "busy" and before["requests"] == 1:
            body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
            return self.send_body(529, body, "application/json", {**self.cors(), "retry-after-ms": query.get("ms", "3000")})
        recorded = events(STREAMS[api])
        if scenario == "hold":
            recorded = recorded[: held_part(recorded)]
        self.stream(rid, recorded, float(query.get("gap", "15")) / 1000, scenario == "hold", self.cors(scenario != "nocors"))

    def stream(self, rid: str, recorded: list[bytes], gap: float, hold: bool, cors: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")  # the body ends when the connection does
        for name, value in cors.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        note(rid, open=1)
        try:
            for i, event in enumerate(recorded):
                if i and self.client_left(gap):
                    return
                self.wfile.write(event)
                self.wfile.flush()
            if hold and self.client_left(HOLD):
                return
            note(rid, finished=1)
        except OSError:  # a write to a connection the client closed
            note(rid, closed_early=1)
        finally:
            note(rid, open=0)

    def client_left(self, seconds: float) -> bool:
        """Wait ``seconds``; true (and noted) as soon as the client closes its end."""
        sock = self.connection
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            readable, _, _ = select.select([sock], [], [], left)
            if readable:
                try:
                    gone = sock.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    gone = True
                if gone:
                    rid = urlsplit(self.path).path.lstrip("/").split("/")[1]
                    note(rid, closed_early=1)
                    return True
                time.sleep(min(left, 0.01))  # bytes we do not read: do not spin on them
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, default=180.0, help="stop after this many seconds in any case")
    options = parser.parse_args()
    page = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    page.package = package_zip()  # type: ignore[attr-defined]
    provider = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    for server in (page, provider):
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    with socket.socket() as unused:  # a port nothing listens on, for the refused connection
        unused.bind(("127.0.0.1", 0))
        closed = unused.getsockname()[1]
    print(json.dumps({"page": page.server_address[1], "provider": provider.server_address[1], "closed": closed}), flush=True)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait(options.deadline)
    for server in (page, provider):
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
