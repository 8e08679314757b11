"""Kept-alive connections, a few per origin (or proxy), handed to one exchange at a time.

A :class:`Connection` is a socket (TLS-wrapped for https) and a duplicate of
its descriptor, kept from the start so that an abort can ``shutdown()`` it
without a lock (see :mod:`._sockets`).  The :class:`Pool` holds only idle
connections: an exchange takes one out (:meth:`Pool.take`) and gives it back
(:meth:`Pool.give`) only after its answer was read to the end on a
connection the server keeps open; everything else is closed.  A connection
idle for longer than the pool's expiry, or one the server closed or wrote to
while idle (its descriptor is readable), is closed instead of handed out.
One lock guards the idle lists and is never held across I/O, so several
threads share a pool; an abort never takes it.  In a child made by
``fork()`` the pool starts empty: the parent's connections stay the parent's.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from typing import Hashable, Protocol

from ._errors import TransportError
from ._parser import END, ResponseParser

__all__ = ("Connection", "Pool", "Wire")

#: How much of an unread rest :meth:`Connection.rest_arrived` reads to keep a connection (the end of an SSE stream after ``[DONE]``).
_REST_LIMIT = 16 * 1024
_RECV = 64 * 1024


class Wire(Protocol):
    """What an exchange talks on: a socket, a TLS socket, or TLS inside a proxy's TLS (:mod:`._tlstunnel`)."""

    def recv(self, size: int, /) -> bytes: ...
    def sendall(self, data: bytes, /) -> None: ...
    def settimeout(self, seconds: float | None, /) -> None: ...
    def fileno(self) -> int: ...
    def close(self) -> None: ...


class Connection:
    """One connection: ``sock`` to talk on, ``twin`` (a duplicate descriptor) to shut it down from anywhere."""

    __slots__ = ("sock", "twin", "key", "idle_since", "uses", "keep_for")

    def __init__(self, sock: socket.socket, key: Hashable) -> None:
        self.sock: Wire = sock
        self.twin = sock.dup()
        self.key = key
        self.idle_since = 0.0
        self.uses = 0  # how many answers were read on it
        self.keep_for: float | None = None  # the server's own idle limit (Keep-Alive: timeout=N), if it gave one

    def shutdown(self) -> None:
        """Wake every call blocked on the connection; never blocks, takes no lock."""
        try:
            self.twin.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self) -> None:
        """Close the socket and its duplicate."""
        for sock in (self.sock, self.twin):
            try:
                sock.close()
            except OSError:
                pass

    def rest_arrived(self, parser: ResponseParser) -> bool:
        """Whether the rest of a body left unread had already arrived (at most :data:`_REST_LIMIT`), read without waiting.

        A reader that stops at OpenAI's ``data: [DONE]`` leaves the chunked
        body's last bytes (the zero-size chunk and a blank line) unread; they are usually in by then.
        The socket is made non-blocking for this, so closing never waits.
        """
        if parser.head is None:
            return False
        taken = 0
        try:
            self.sock.settimeout(0.0)
            while taken <= _REST_LIMIT:
                event = parser.next_event(_REST_LIMIT)
                if event is END:
                    return True
                if isinstance(event, bytes):
                    taken += len(event)
                    continue
                data = self.sock.recv(_RECV)  # raises at once when nothing is there
                if not data:
                    return False
                parser.feed(data)
        except (OSError, TransportError):
            return False
        return False

    def idle_and_open(self) -> bool:
        """Whether nothing arrived while idle: no close, no reset, no stray bytes (a zero-wait readiness check)."""
        try:
            if self.sock.fileno() < 0:
                return False
            if hasattr(select, "poll"):
                poller = select.poll()
                poller.register(self.twin, select.POLLIN)
                return not poller.poll(0)
            readable, _, _ = select.select([self.twin], [], [], 0)
            return not readable
        except (OSError, ValueError):
            return False


class Pool:
    """Idle connections by key, at most ``per_key`` each, dropped after ``expiry`` idle seconds."""

    def __init__(self, per_key: int = 8, expiry: float = 15.0) -> None:
        self.per_key = per_key
        self.expiry = expiry
        self._idle: dict[Hashable, list[Connection]] = {}
        self._lock = threading.Lock()
        self._generation = 0  # moves on at close(): connections out at that time are not taken back
        self.opened = 0
        self._pid = os.getpid()  # a forked child must not share the parent's connections

    def count_opened(self) -> int:
        """Note a connection opened; the new count (exact however many threads open at once)."""
        with self._lock:
            self.opened += 1
            return self.opened

    @property
    def generation(self) -> int:
        """The pool's current generation; :meth:`give` refuses connections taken in an older one."""
        return self._generation

    def take(self, key: Hashable) -> Connection | None:
        """An idle connection for ``key`` that still looks open, or ``None``."""
        stale: list[Connection] = []
        found = None
        now = time.monotonic()
        if os.getpid() != self._pid:  # forked: the idle connections are the parent's too; drop this copy of them
            self._pid = os.getpid()
            self.close()
        with self._lock:
            idle = self._idle.get(key)
            while idle:
                conn = idle.pop()  # the most recently used: the likeliest to be open
                limit = self.expiry if conn.keep_for is None else min(self.expiry, conn.keep_for)
                if now - conn.idle_since > limit:
                    stale.append(conn)
                    continue
                found = conn
                break
        for conn in stale:
            conn.close()
        if found is not None and not found.idle_and_open():
            found.close()
            return self.take(key)
        return found

    def give(self, conn: Connection, generation: int) -> None:
        """Take ``conn`` back as idle (or close it: the pool was closed since, or is full)."""
        conn.idle_since = time.monotonic()
        with self._lock:
            if generation == self._generation:
                idle = self._idle.setdefault(conn.key, [])
                if len(idle) < self.per_key:
                    idle.append(conn)
                    return
        conn.close()

    def idle(self) -> int:
        """How many connections are idle in the pool."""
        with self._lock:
            return sum(len(v) for v in self._idle.values())

    def __del__(self) -> None:
        # a transport dropped without close(): its idle sockets go with it, quietly (as they did before pooling)
        for conns in getattr(self, "_idle", {}).values():
            for conn in conns:
                conn.close()

    def close(self) -> None:
        """Close every idle connection; those in use are closed when their exchanges end."""
        with self._lock:
            idle, self._idle = self._idle, {}
            self._generation += 1
        for conns in idle.values():
            for conn in conns:
                conn.close()
