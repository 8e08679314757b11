"""The suite's own HTTP server: 127.0.0.1 only, scripted answers, stops by itself.

    with Loopback([Reply(200, chunks=[b"data: {}\\n\\n"], delay=0.05)]) as server:
        send(Request("POST", server.url("/v1/messages"), body=b"{}"))

Each request takes the next :class:`Reply` (the last one repeats).  A reply
sends its status and headers, then its chunks with ``delay`` seconds between
them, chunked or with a ``Content-Length``; then it may ``reset`` the
connection (an RST, not a clean close) or ``stall`` (send nothing more until
the server stops).  ``Reply(never=True)`` reads the request and answers
nothing; ``Reply(echo=True)`` answers (200, or its status) with a JSON object of what came
in (``method``, ``path``, ``headers`` with lower-case names, ``body`` as
text).  Every wait is bounded by :data:`LONGEST` and ends when the server
stops, so no test can hang on it.  ``server.requests`` records what came in.
"""

from __future__ import annotations

import http.server
import socket
import struct
import threading
import time
from typing import Iterable, NamedTuple, Sequence

#: The longest any scripted wait lasts, in seconds.
LONGEST = 30.0


class Reply(NamedTuple):
    status: int = 200
    headers: Sequence[tuple[str, str]] = ()
    chunks: Iterable[bytes] = ()
    delay: float = 0.0
    chunked: bool = True
    reset: bool = False
    stall: bool = False
    never: bool = False
    echo: bool = False


class Received(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def sse_reply(body: bytes, delay: float = 0.0, pieces: int = 0, **kw: object) -> Reply:
    """A ``text/event-stream`` reply of ``body``: one chunk per event (or ``pieces`` equal ones)."""
    if pieces:
        size = -(-len(body) // pieces)
        chunks = [body[i : i + size] for i in range(0, len(body), size)]
    else:
        chunks = [part + b"\n\n" for part in body.replace(b"\r\n", b"\n").split(b"\n\n") if part.strip()]
    return Reply(200, [("Content-Type", "text/event-stream")], chunks, delay, **kw)  # type: ignore[arg-type]


def eventstream_reply(body: bytes, delay: float = 0.0, pieces: int = 0, **kw: object) -> Reply:
    """An ``application/vnd.amazon.eventstream`` reply of ``body``: one chunk per frame (or ``pieces`` equal ones)."""
    if pieces:
        size = -(-len(body) // pieces)
        chunks = [body[i : i + size] for i in range(0, len(body), size)]
    else:
        chunks, at = [], 0
        while at < len(body):
            total = struct.unpack_from(">I", body, at)[0]
            chunks.append(body[at : at + total])
            at += total
    return Reply(200, [("Content-Type", "application/vnd.amazon.eventstream")], chunks, delay, **kw)  # type: ignore[arg-type]


def stream_reply(stream_format: str, body: bytes, delay: float = 0.0, pieces: int = 0, **kw: object) -> Reply:
    """A streamed reply of ``body`` in a registry row's ``stream_format`` (``"sse"`` or ``"aws-eventstream"``)."""
    make = eventstream_reply if stream_format == "aws-eventstream" else sse_reply
    return make(body, delay, pieces, **kw)


def json_reply(status: int, body: bytes, headers: Sequence[tuple[str, str]] = ()) -> Reply:
    """A JSON reply of ``body`` with a Content-Length."""
    return Reply(status, [("Content-Type", "application/json"), *headers], [body], chunked=False)


def echo_reply(
    method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes, status: int = 200, extra: Sequence[tuple[str, str]] = ()
) -> Reply:
    """A JSON reply of ``status`` (and ``extra`` headers) telling what came in: method, path, headers (lower-case names), body as text."""
    import json

    seen = {"method": method, "path": path, "headers": {k.lower(): v for k, v in headers}, "body": body.decode("latin-1")}
    return json_reply(status, json.dumps(seen).encode(), extra)


class Loopback:
    """A threaded HTTP/1.1 server on 127.0.0.1, for one test; a context manager."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[Received] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        loopback = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with loopback.lock:
                    loopback.requests.append(Received(self.command, self.path, dict(self.headers.items()), body))
                    n = len(loopback.requests) - 1
                    reply = loopback.replies[min(n, len(loopback.replies) - 1)]
                if reply.echo:
                    reply = echo_reply(self.command, self.path, self.headers.items(), body, reply.status, reply.headers)
                loopback.play(self, reply)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_CONNECT = _any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` (bounded); true if the server is stopping meanwhile."""
        return self.stopping.wait(min(seconds, LONGEST))

    def play(self, handler: http.server.BaseHTTPRequestHandler, reply: Reply) -> None:
        try:
            if reply.never:
                self.wait(LONGEST)
                return
            chunks = list(reply.chunks)
            handler.send_response(reply.status)
            for name, value in reply.headers:
                handler.send_header(name, value)
            if reply.chunked:
                handler.send_header("Transfer-Encoding", "chunked")
            else:
                handler.send_header("Content-Length", str(sum(len(c) for c in chunks)))
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.flush()
            for n, chunk in enumerate(chunks):
                if n and reply.delay and self.wait(reply.delay):
                    return
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if reply.chunked else chunk)
                handler.wfile.flush()
            if reply.reset:
                handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                handler.connection.close()
                return
            if reply.stall:
                self.wait(LONGEST)
                return
            if reply.chunked:
                handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client went away (a cancelled read): fine
            pass
        handler.close_connection = True

    def script(self, replies: Sequence[Reply]) -> None:
        """Answer the requests from now on with ``replies`` (the last one repeats), forgetting those recorded."""
        with self.lock:
            self.replies = list(replies)
            self.requests.clear()

    def url(self, path: str = "") -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}{path}"

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(LONGEST)


def elapsed(since: float) -> float:
    return time.perf_counter() - since
