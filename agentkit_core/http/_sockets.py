"""The default transport: HTTP/1.1 over the standard library's ``socket`` and ``ssl``, connections kept alive.

Why sockets and a small parser rather than ``http.client``
----------------------------------------------------------
Cancelling must end a blocked connect, TLS handshake or read within
milliseconds, from another thread or from a signal handler running on the
reading thread itself.  ``http.client`` reads through a buffered file whose
lock the reader holds (closing the response from elsewhere waits for it, and
from a signal handler on the reading thread raises a reentrancy error), and
it keeps its socket in private attributes, created inside ``connect()``
where no caller can reach it.  Here each connection (:class:`._pool.Connection`)
keeps a duplicate of its socket from the start; :meth:`SocketExchange.abort`
calls ``shutdown(SHUT_RDWR)`` on that duplicate, which takes no lock,
returns at once, and wakes every blocked call on the connection (a connect
still in progress included, on Linux).  The duplicate also survives TLS
wrapping, which moves the original descriptor into a new object.  Reads go
straight to ``recv`` (no buffered file), so nothing a signal handler does can
meet a lock held by the thread it interrupted.

The answer is read by :class:`._parser.ResponseParser`, which does no I/O:
the exchange is only the loop that feeds it what ``recv`` gives.  Content
codings are undone by :class:`._decompress.Decoding`, a read at a time.

Connections are HTTP/1.1 persistent ones, kept in a small pool per origin
(or per proxy) by :class:`SocketTransport` (see :mod:`._pool`): one goes
back to the pool only once its answer was read to the end and the server
keeps it open (no ``Connection: close``, not HTTP/1.0); one that was
aborted, timed out, broke or was left half-read is closed (unless the
unread rest, at most 16 KiB, had already arrived: read without waiting, as
after ``data: [DONE]``).  A pooled
connection the server had closed while it was idle (the request could not
send, or the connection ended before any byte of the answer) is replaced by
a fresh one once, invisibly.  ``connect_timeout`` bounds the TCP connect,
the proxy's ``CONNECT`` and the TLS handshake together; ``timeout`` the wait
for each byte of the answer.  TLS is always verified.  Proxies are chosen
by :mod:`._proxy` (the environment as urllib reads it): plain HTTP goes to
the proxy with the absolute URL, https through a ``CONNECT`` tunnel; an
``https://`` proxy is spoken to over TLS, and an https origin through it by
TLS inside that TLS (:mod:`._tlstunnel`).  Host names are
resolved with ``getaddrinfo``, which nothing can interrupt; cancelling
during it takes effect as soon as it returns.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING, Mapping

from .. import __version__
from ._decompress import Decoding, content_codings
from ._errors import TransportError
from ._parser import ACCEPT_ENCODING, END, Head, ResponseParser
from ._pool import Connection, Pool, Wire
from ._proxy import Proxy, Route, bracketed, choose_proxy, hostport, route_of
from ._request import DEFAULT_PORTS, Request, body_pieces, redact_url

if TYPE_CHECKING:
    import ssl

__all__ = ("SocketTransport", "SocketExchange", "shared_transport")

_RECV = 64 * 1024
USER_AGENT = f"agentkit_core/{__version__} (python-stdlib)"


#: A body's pieces smaller than this are sent joined with their neighbours (one write, not one per piece).
_SMALL_PIECE = 16384


def _coalesced(head: bytes, pieces: tuple[bytes, ...]) -> list[bytes]:
    """``head`` and the body's ``pieces`` as writes: small neighbours joined, a large piece written as it is (not copied)."""
    out, run = [], [head]
    for piece in pieces:
        if len(piece) < _SMALL_PIECE:
            run.append(piece)
        else:
            out += [b"".join(run), piece] if run else [piece]
            run = []
    return out + [b"".join(run)] if run else out


class SocketTransport:
    """HTTP/1.1 on the standard library: TLS verified, proxies from the environment, connections kept alive.

    ``ssl_context`` replaces the default verifying context (give one that
    trusts a private CA, say; verification cannot be turned off through
    this class).  ``proxies`` maps a scheme (or ``"all"``, and ``"no"`` for
    the hosts that bypass them) to a proxy URL as
    ``urllib.request.getproxies()`` does; ``None`` reads the environment at
    each request, ``{}`` uses none.  Up to ``max_idle`` idle connections are
    kept per origin (and per proxy) for ``keepalive_expiry`` seconds; give
    ``max_idle=0`` for a connection per request.  Safe to share between
    threads; :meth:`close` (or leaving a ``with`` block) closes the idle
    connections, and the ones in use when their answers close.
    """

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext | None = None,
        proxies: Mapping[str, str] | None = None,
        max_idle: int = 8,
        keepalive_expiry: float = 15.0,
    ) -> None:
        if ssl_context is not None:
            import ssl
        if ssl_context is not None and not isinstance(ssl_context, ssl.SSLContext):
            raise TypeError(f"SocketTransport.ssl_context: expected an ssl.SSLContext, found {type(ssl_context).__name__}")
        if ssl_context is not None and ssl_context.verify_mode is not ssl.CERT_REQUIRED:
            raise ValueError("SocketTransport.ssl_context: certificate verification must stay on (CERT_REQUIRED)")
        if type(max_idle) is not int or max_idle < 0:
            raise ValueError(f"SocketTransport.max_idle: expected a count of 0 or more, found {max_idle!r}")
        if isinstance(keepalive_expiry, bool) or not isinstance(keepalive_expiry, (int, float)) or not keepalive_expiry >= 0:
            raise ValueError(f"SocketTransport.keepalive_expiry: expected seconds of 0 or more, found {keepalive_expiry!r}")
        self.ssl_context = ssl_context
        self.proxies = None if proxies is None else dict(proxies)
        self.pool = Pool(max_idle, float(keepalive_expiry))
        self._lock = threading.Lock()

    @property
    def opened(self) -> int:
        """How many connections this transport has opened so far."""
        return self.pool.opened

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> SocketExchange:
        """An exchange for ``request``; nothing is sent before its ``start()``."""
        return SocketExchange(request, self, connect_timeout, read_timeout)

    def proxy_for(self, scheme: str, host: str) -> str | None:
        """The proxy URL a request to ``host`` by ``scheme`` goes through, or ``None``."""
        return choose_proxy(self.proxies, scheme, host)

    def context(self) -> ssl.SSLContext:
        """The TLS context: the caller's, or a verifying default made once (by one thread)."""
        context = self.ssl_context
        if context is None:
            try:
                import ssl
            except ImportError:
                raise TransportError("this interpreter has no ssl module: https needs one (or pass a transport)", retryable=False) from None
            with self._lock:
                if self.ssl_context is None:
                    self.ssl_context = ssl.create_default_context()
                context = self.ssl_context
        return context

    def close(self) -> None:
        """Close the idle connections; those in use are closed (not kept) when their answers close."""
        self.pool.close()

    def __enter__(self) -> SocketTransport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_shared: SocketTransport | None = None
_shared_lock = threading.Lock()


def shared_transport() -> SocketTransport:
    """The one transport ``send()`` and ``asend()`` use when given none (made on first use, its pool shared)."""
    global _shared
    transport = _shared
    if transport is None:
        with _shared_lock:
            if _shared is None:
                _shared = SocketTransport()
            transport = _shared
    return transport


class _Stale(Exception):
    """A pooled connection turned out closed before anything of the request could be processed."""


class SocketExchange:
    """One request on a pooled or fresh connection; see :class:`~agentkit_core.http.Exchange`."""

    def __init__(self, request: Request, transport: SocketTransport, connect_timeout: float, read_timeout: float) -> None:
        self.request = request
        self._transport = transport
        self._timeouts = (connect_timeout, read_timeout)
        self._conn: Connection | None = None
        self._aborted = False
        self._generation = transport.pool.generation
        self._route: Route | None = None
        self._parser: ResponseParser | None = None
        self._decoding: Decoding | None = None
        self._broken = False  # a call failed (a timeout, a broken connection, a bad answer): never reuse

    # -- abort and close: never block ---------------------------------------------------
    # abort() sets the flag, then reads the connection; close() drops the connection, then reads
    # the flag: whichever runs second sees the other's write, so an aborted connection is never pooled.

    def abort(self) -> None:
        """Shut the connection down under any blocked call; returns at once."""
        self._aborted = True
        conn = self._conn
        if conn is not None:
            conn.shutdown()

    def close(self) -> None:
        """Give the connection back to the pool if its answer was read whole and it stays open; else close it."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        parser = self._parser
        whole = not (self._aborted or self._broken) and parser is not None and (parser.done or conn.rest_arrived(parser))
        if whole and parser is not None and parser.keep_alive and not self._aborted:  # an abort meanwhile: closed
            conn.uses += 1
            conn.keep_for = _keep_alive_timeout(parser)
            self._transport.pool.give(conn, self._generation)
        else:
            conn.close()

    def _check_abort(self) -> None:
        if self._aborted:
            raise TransportError("aborted")

    # -- connecting ------------------------------------------------------------------------

    def _connect(self, host: str, port: int, where: str, deadline: float) -> Connection:
        route = self._route
        assert route is not None
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise TransportError(f"cannot resolve {host!r}{_of(where)}: {exc}") from None
        last: OSError | None = None
        for family, kind, proto, _, address in infos:
            try:
                sock = socket.socket(family, kind, proto)
            except OSError as exc:
                raise TransportError(f"this interpreter cannot open a socket ({exc}): pass send() a transport", retryable=False) from None
            conn = self._conn = Connection(sock, route.key)
            self._transport.pool.count_opened()
            self._check_abort()
            sock.settimeout(_left(deadline))
            try:
                sock.connect(address)
            except socket.timeout:
                raise TransportError(f"connecting to {where} timed out after {self._timeouts[0]:g} s (connect_timeout)", timed_out=True) from None
            except OSError as exc:
                last = exc
                self._conn = None
                conn.close()
                self._check_abort()
                continue
            self._check_abort()  # an abort between the check above and connect() may not have woken it
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return conn
        raise TransportError(f"cannot connect to {where}: {last}")

    def _open(self, route: Route) -> Connection:
        deadline = time.monotonic() + self._timeouts[0]
        proxy = route.proxy
        if proxy is None:
            conn = self._connect(route.host, route.port, hostport(route.host, route.port), deadline)
        else:
            conn = self._connect(proxy.host, proxy.port, proxy.where, deadline)
            if proxy.scheme == "https":
                self._handshake(conn, proxy.host, proxy.where, deadline)
            if route.tunnel:
                self._tunnel(conn, route, proxy, deadline)
        if route.scheme == "https":
            nested = proxy is not None and proxy.scheme == "https"  # TLS to the origin inside TLS to the proxy
            self._handshake(conn, route.host, hostport(route.host, route.port), deadline, nested)
        return conn

    def _tunnel(self, conn: Connection, route: Route, proxy: Proxy, deadline: float) -> None:
        target = hostport(route.host, route.port)
        lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}", f"User-Agent: {USER_AGENT}"]
        lines += [f"{k}: {v}" for k, v in proxy.auth]
        ct = self._timeouts[0]
        parser = ResponseParser("CONNECT")
        try:
            conn.sock.settimeout(_left(deadline))
            conn.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
            while True:
                conn.sock.settimeout(_left(deadline))
                event = parser.next_event()
                if event is not None:
                    break
                data = conn.sock.recv(_RECV)
                parser.feed(data) if data else parser.feed_eof()
        except socket.timeout:
            raise TransportError(f"no answer from {proxy.where} to CONNECT {target} within {ct:g} s (connect_timeout)", timed_out=True) from None
        except TransportError as exc:
            self._check_abort()
            raise TransportError(f"the {proxy.where} gave no usable answer to CONNECT {target}: {exc}") from None
        except OSError as exc:
            self._check_abort()
            raise TransportError(f"the connection to the {proxy.where} broke during CONNECT {target}: {exc}") from None
        assert isinstance(event, Head)
        if not 200 <= event.status < 300:
            raise TransportError(f"the {proxy.where} refused to tunnel to {target} (HTTP {event.status})", retryable=event.status != 407)
        if parser.leftover():
            raise TransportError(f"the {proxy.where} sent bytes before the tunnel to {target} was used")

    def _handshake(self, conn: Connection, host: str, where: str, deadline: float, nested: bool = False) -> None:
        import ssl

        try:
            conn.sock.settimeout(_left(deadline))
            if nested:
                from ._tlstunnel import TlsInTls

                inner = TlsInTls(conn.sock, self._transport.context(), host)
                inner.do_handshake()
                conn.sock = inner
            else:
                raw = conn.sock
                assert isinstance(raw, socket.socket)
                conn.sock = self._transport.context().wrap_socket(raw, server_hostname=host)
        except socket.timeout:
            raise TransportError(f"the TLS handshake with {where} timed out after {self._timeouts[0]:g} s (connect_timeout)", timed_out=True) from None
        except ssl.SSLError as exc:
            self._check_abort()
            raise TransportError(f"TLS with {where} failed: {exc}", retryable=not isinstance(exc, ssl.SSLCertVerificationError)) from None

    # -- the request -------------------------------------------------------------------------

    def _head_bytes(self, route: Route) -> bytes:
        request = self.request
        given = {k.lower() for k, _ in request.headers}
        head = [f"{request.method} {route.target} HTTP/1.1"]
        if "host" not in given:
            named = route.port != DEFAULT_PORTS[route.scheme]
            head.append(f"Host: {hostport(route.host, route.port)}" if named else f"Host: {bracketed(route.host)}")
        head += [f"{k}: {v}" for k, v in request.headers if k.lower() not in ("content-length", "connection")]
        if route.proxy is not None and not route.tunnel:
            head += [f"{k}: {v}" for k, v in route.proxy.auth]
        if "user-agent" not in given:
            head.append(f"User-Agent: {USER_AGENT}")
        if "accept-encoding" not in given:
            head.append(f"Accept-Encoding: {ACCEPT_ENCODING}")
        size = sum(map(len, body_pieces(request)))
        if size or request.method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {size}")
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")

    def start(self) -> tuple[int, list[tuple[str, str]]]:
        """Connect (or take a kept-alive connection), send the request, read the status and headers."""
        try:
            return self._start()
        except BaseException:
            self._broken = True
            raise

    def _start(self) -> tuple[int, list[tuple[str, str]]]:
        route = self._route = route_of(self.request, self._transport.proxy_for)
        payload = _coalesced(self._head_bytes(route), body_pieces(self.request))
        pool = self._transport.pool
        conn = pool.take(route.key)
        self._generation = pool.generation  # after take(): a close() from now on keeps this connection out
        while True:
            reused = conn is not None
            if conn is None:
                conn = self._open(route)
            else:
                self._conn = conn
                self._check_abort()
            try:
                head = self._exchange_head(conn, payload, reused)
            except _Stale:  # closed by the server while idle: nothing of the request was processed
                self._conn = None
                conn.close()
                self._check_abort()
                conn = None
                continue
            break
        parser = self._parser
        assert parser is not None
        if not parser.done:
            content = content_codings(", ".join(v for k, v in head.headers if k.lower() == "content-encoding"))
            codings = (content or ()) + parser.transfer_codings  # as applied: the content's codings, then the transfer's
            if codings:
                self._decoding = Decoding(codings)
        return head.status, head.headers

    def _exchange_head(self, conn: Connection, payload: list[bytes], reused: bool) -> Head:
        sock = conn.sock
        parser = self._parser = ResponseParser(self.request.method)
        sock.settimeout(self._timeouts[1])
        unsent: OSError | None = None
        try:
            for data in payload:
                sock.sendall(data)
        except socket.timeout:
            raise TransportError(f"sending the request to {self._where()} timed out (timeout)", timed_out=True) from None
        except OSError as exc:
            if reused and not self._aborted:
                raise _Stale from None
            self._check_abort()
            # A server may answer before it has read the whole body (a 413, a 401) and close: read that
            # answer, as httpcore does, rather than report the broken send; the connection is never kept.
            unsent, self._broken = exc, True
        try:
            while True:
                event = parser.next_event()
                if event is not None:
                    assert isinstance(event, Head)
                    return event
                try:
                    data = self._recv(sock)
                except OSError:  # a reset, or TLS ending badly (a timeout is a TransportError by now)
                    if reused and parser.received == 0 and not self._aborted:
                        raise _Stale from None
                    raise
                if not data and reused and parser.received == 0 and not self._aborted:
                    raise _Stale
                parser.feed(data) if data else parser.feed_eof()
        except (OSError, TransportError):
            if unsent is None or parser.received:
                raise
            raise unsent from None  # no answer came either: the failure is the send's

    # -- the answer ----------------------------------------------------------------------

    def _where(self) -> str:
        route = self._route
        url = redact_url(self.request.url)
        if route is None or route.proxy is None:
            return url
        return f"{url} through {route.proxy.where}" if route.tunnel else f"{route.proxy.where} (for {url})"

    def _recv(self, sock: Wire) -> bytes:
        try:
            return sock.recv(_RECV)
        except socket.timeout:
            raise TransportError(f"no answer for {self._timeouts[1]:g} s (timeout) from {self._where()}", timed_out=True) from None

    def _raw(self, size: int) -> bytes:
        parser = self._parser
        conn = self._conn
        if parser is None or conn is None:
            raise TransportError("read() before start() or after close()")
        while True:
            event = parser.next_event(size)
            if event is None:
                data = self._recv(conn.sock)
                parser.feed(data) if data else parser.feed_eof()
            elif event is END:
                return b""
            else:
                assert isinstance(event, bytes)
                return event

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body, as soon as some are in; ``b""`` at its end."""
        try:
            if self._decoding is not None:
                return self._decoding.read(size, self._raw)
            return self._raw(size)
        except BaseException:
            self._broken = True
            raise


def _keep_alive_timeout(parser: ResponseParser) -> float | None:
    """The idle limit a ``Keep-Alive: timeout=N`` header gives, less a second (its close may be on the way), or ``None``."""
    head = parser.head
    for name, value in head.headers if head is not None else ():
        if name.lower() == "keep-alive":
            for part in value.split(","):
                key, _, number = part.strip().partition("=")
                if key.strip().lower() == "timeout" and number.strip().isascii() and number.strip().isdigit():
                    return max(float(number.strip()) - 1.0, 0.0)
    return None


def _left(deadline: float) -> float:
    """Seconds to ``deadline``, at least a millisecond (a zero timeout would make the socket non-blocking)."""
    return max(deadline - time.monotonic(), 0.001)


def _of(where: str) -> str:
    return f" ({where})" if where.startswith("proxy ") else ""
