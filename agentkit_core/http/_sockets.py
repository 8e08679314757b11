"""The default transport: HTTP/1.1 over the standard library's ``socket`` and ``ssl``.

Why sockets and a small parser rather than ``http.client``
----------------------------------------------------------
Cancelling must end a blocked connect, TLS handshake or read within
milliseconds, from another thread or from a signal handler running on the
reading thread itself.  ``http.client`` reads through a buffered file whose
lock the reader holds (closing the response from elsewhere waits for it, and
from a signal handler on the reading thread raises a reentrancy error), and
it keeps its socket in private attributes, created inside ``connect()``
where no caller can reach it.  Here the exchange makes its socket itself and
keeps a duplicate of it from the start; :meth:`SocketExchange.abort` calls
``shutdown(SHUT_RDWR)`` on that duplicate, which takes no lock, returns at
once, and wakes every blocked call on the connection (a connect still in
progress included, on Linux).  The duplicate also survives TLS wrapping,
which moves the original descriptor into a new object.  Reads go straight to
``recv`` (no buffered file), so nothing a signal handler does can meet a
lock held by the thread it interrupted.

The parser is small because the traffic is: one request per connection
(``Connection: close``), bodies framed by ``Content-Length``, chunked
transfer coding or the end of the connection, and ``gzip``/``deflate``
content coding decoded as it streams.  TLS is always verified (the
``ssl.create_default_context()`` default, or the caller's context).  Proxies
come from the environment as ``urllib`` reads them (``getproxies()``,
``proxy_bypass()``): plain HTTP goes to the proxy with the absolute URL, HTTPS
through a ``CONNECT`` tunnel.  Host names are resolved with
``getaddrinfo``, which nothing can interrupt; cancelling during it takes
effect as soon as it returns.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Mapping
from urllib.parse import unquote, urlsplit

from .. import __version__
from ._errors import TransportError
from ._request import Request, redact_url

if TYPE_CHECKING:
    import ssl

__all__ = ("SocketTransport", "SocketExchange")

_HEAD_LIMIT = 64 * 1024
_LINE_LIMIT = 16 * 1024
_RECV = 64 * 1024
USER_AGENT = f"agentkit_core/{__version__} (python-stdlib)"


class SocketTransport:
    """HTTP/1.1 on the standard library: TLS verified, proxies from the environment.

    ``ssl_context`` replaces the default verifying context (give one that
    trusts a private CA, say; verification cannot be turned off through
    this class).  ``proxies`` maps a scheme to a proxy URL as
    ``urllib.request.getproxies()`` does; ``None`` reads the environment at
    each request, ``{}`` uses none.
    """

    def __init__(self, *, ssl_context: ssl.SSLContext | None = None, proxies: Mapping[str, str] | None = None) -> None:
        if ssl_context is not None:
            import ssl
        if ssl_context is not None and not isinstance(ssl_context, ssl.SSLContext):
            raise TypeError(f"SocketTransport.ssl_context: expected an ssl.SSLContext, found {type(ssl_context).__name__}")
        if ssl_context is not None and ssl_context.verify_mode is not ssl.CERT_REQUIRED:
            raise ValueError("SocketTransport.ssl_context: certificate verification must stay on (CERT_REQUIRED)")
        self.ssl_context = ssl_context
        self.proxies = None if proxies is None else dict(proxies)

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> SocketExchange:
        """An exchange for ``request``; nothing is sent before its ``start()``."""
        return SocketExchange(request, self, connect_timeout, read_timeout)

    def proxy_for(self, scheme: str, host: str) -> str | None:
        """The proxy URL a request to ``host`` by ``scheme`` goes through, or ``None``."""
        import urllib.request

        proxies = urllib.request.getproxies() if self.proxies is None else self.proxies
        proxy = proxies.get(scheme)
        if not proxy:
            return None
        bypass = urllib.request.proxy_bypass(host) if self.proxies is None else _bypass(host, proxies.get("no", ""))
        return None if bypass else proxy

    def context(self) -> ssl.SSLContext:
        """The TLS context: the caller's, or a verifying default made once."""
        if self.ssl_context is None:
            try:
                import ssl
            except ImportError:
                raise TransportError("this interpreter has no ssl module: https needs one (or pass a transport)") from None
            self.ssl_context = ssl.create_default_context()
        return self.ssl_context


def _bypass(host: str, no_proxy: str) -> bool:
    names = [n.strip().lstrip(".").lower() for n in no_proxy.split(",") if n.strip()]
    host = host.lower()
    return "*" in names or any(host == n or host.endswith("." + n) for n in names)


def _address(netloc: str, default_port: int) -> tuple[str, int]:
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        host, _, rest = hostport[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = hostport.partition(":")
    try:
        return host, int(port) if port else default_port
    except ValueError:
        raise TransportError(f"bad port in {hostport!r}") from None


class SocketExchange:
    """One request on its own connection; see :class:`~agentkit_core.http.Exchange`."""

    def __init__(self, request: Request, transport: SocketTransport, connect_timeout: float, read_timeout: float) -> None:
        self.request = request
        self._transport = transport
        self._timeouts = (connect_timeout, read_timeout)
        self._sock: socket.socket | None = None  # the connection (TLS-wrapped for https)
        self._twin: socket.socket | None = None  # a duplicate of it, for abort()
        self._aborted = False
        self._buffer = bytearray()
        self._body: _Body | None = None

    # -- abort and close: never block --------------------------------------------------

    def abort(self) -> None:
        """Shut the connection down under any blocked call; returns at once."""
        self._aborted = True
        twin = self._twin
        if twin is not None:
            try:
                twin.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        """Close the connection and its duplicate."""
        for sock in (self._sock, self._twin):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass

    # -- connecting ----------------------------------------------------------------------

    def _connect(self, host: str, port: int) -> socket.socket:
        where = f"{host}:{port}"
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise TransportError(f"cannot resolve {host!r}: {exc}") from None
        last: OSError | None = None
        for family, kind, proto, _, address in infos:
            try:
                sock = socket.socket(family, kind, proto)
            except OSError as exc:
                raise TransportError(f"this interpreter cannot open a socket ({exc}): pass send() a transport") from None
            self._sock, self._twin = sock, sock.dup()
            if self._aborted:
                raise TransportError("aborted")
            sock.settimeout(self._timeouts[0])
            try:
                sock.connect(address)
            except socket.timeout:
                raise TransportError(f"connecting to {where} timed out after {self._timeouts[0]:g} s", timed_out=True) from None
            except OSError as exc:
                last = exc
                self.close()
                continue
            if self._aborted:  # an abort between the check above and connect() may not have woken it
                raise TransportError("aborted")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(self._timeouts[1])
            return sock
        raise TransportError(f"cannot connect to {where}: {last}")

    def start(self) -> tuple[int, list[tuple[str, str]]]:
        """Connect (through a proxy if one applies), send the request, read the status and headers."""
        request = self.request
        parts = urlsplit(request.url)
        scheme = parts.scheme.lower()
        host, port = _address(parts.netloc, 443 if scheme == "https" else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        proxy = self._transport.proxy_for(scheme, host)
        extra: list[tuple[str, str]] = []
        if proxy is None:
            sock = self._connect(host, port)
        else:
            proxy_parts = urlsplit(proxy if "://" in proxy else "http://" + proxy)
            sock = self._connect(*_address(proxy_parts.netloc, 8080))
            auth = _proxy_auth(proxy_parts.username, proxy_parts.password)
            if scheme == "https":
                self._tunnel(host, port, auth)
            else:
                target = request.url.split("#")[0]
                extra = auth
        if scheme == "https":
            self._handshake(host)
        self._send(request, host, port, scheme, target, extra)
        status, headers = self._head()
        self._body = _Body(self, headers, request.method == "HEAD" or status in (204, 304))
        return status, headers

    def _tunnel(self, host: str, port: int, auth: list[tuple[str, str]]) -> None:
        lines = [f"CONNECT {host}:{port} HTTP/1.1", f"Host: {host}:{port}"] + [f"{k}: {v}" for k, v in auth]
        self._sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        status, _ = self._head()
        if status != 200:
            raise TransportError(f"the proxy refused to tunnel to {host}:{port} (HTTP {status})")

    def _handshake(self, host: str) -> None:
        import ssl

        assert self._sock is not None
        try:
            self._sock = self._transport.context().wrap_socket(self._sock, server_hostname=host)
        except socket.timeout:
            raise TransportError(f"the TLS handshake with {host} timed out", timed_out=True) from None
        except ssl.SSLError as exc:
            raise TransportError(f"TLS with {host} failed: {exc}") from None

    def _send(self, request: Request, host: str, port: int, scheme: str, target: str, extra: list[tuple[str, str]]) -> None:
        given = {k.lower() for k, _ in request.headers}
        default_port = 443 if scheme == "https" else 80
        head = [f"{request.method} {target} HTTP/1.1"]
        if "host" not in given:
            head.append(f"Host: {host}" if port == default_port else f"Host: {host}:{port}")
        head += [f"{k}: {v}" for k, v in request.headers if k.lower() not in ("content-length", "connection")]
        head += [f"{k}: {v}" for k, v in extra]
        defaults = (("User-Agent", USER_AGENT), ("Accept-Encoding", "gzip, deflate"))
        head += [f"{k}: {v}" for k, v in defaults if k.lower() not in given]
        if request.body or request.method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(request.body)}")
        head.append("Connection: close")
        self._sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + request.body)

    # -- the wire --------------------------------------------------------------------------

    def _sendall(self, data: bytes) -> None:
        assert self._sock is not None
        try:
            self._sock.sendall(data)
        except socket.timeout:
            raise TransportError("sending the request timed out", timed_out=True) from None

    def recv(self) -> bytes:
        """The next bytes off the connection (``b""`` when it closed)."""
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            return data
        assert self._sock is not None
        try:
            return self._sock.recv(_RECV)
        except socket.timeout:
            seconds = self._timeouts[1]
            raise TransportError(f"no answer for {seconds:g} s from {redact_url(self.request.url)}", timed_out=True) from None

    def unread(self, data: bytes) -> None:
        """Put ``data`` back in front of what :meth:`recv` gives next."""
        self._buffer[:0] = data

    def line(self) -> bytes:
        """One line without its CRLF (or LF); :class:`TransportError` if the connection ends first."""
        pending = bytearray()
        while True:
            data = self.recv()
            if not data:
                raise TransportError("the connection closed in the middle of the answer")
            end = data.find(b"\n")
            if end >= 0:
                pending += data[:end]
                self.unread(data[end + 1 :])
                return bytes(pending.removesuffix(b"\r"))
            pending += data
            if len(pending) > _LINE_LIMIT:
                raise TransportError("a line of the answer's head is too long")

    def _head(self) -> tuple[int, list[tuple[str, str]]]:
        while True:
            status_line = self.line().decode("latin-1")
            version, _, rest = status_line.partition(" ")
            code = rest[:3]
            if not version.startswith("HTTP/") or not _digits(code):
                raise TransportError(f"not an HTTP answer: {status_line[:80]!r}")
            headers = self._headers()
            if not 100 <= int(code) < 200 or int(code) == 101:
                return int(code), headers

    def _headers(self) -> list[tuple[str, str]]:
        headers: list[tuple[str, str]] = []
        size = 0
        while True:
            line = self.line()
            size += len(line)
            if size > _HEAD_LIMIT:
                raise TransportError("the answer's head is too large")
            if not line:
                return headers
            if line[:1] in (b" ", b"\t") and headers:  # an obsolete folded line
                name, value = headers[-1]
                headers[-1] = (name, value + " " + line.strip().decode("latin-1"))
                continue
            name, colon, value = line.decode("latin-1").partition(":")
            if colon:
                headers.append((name.strip(), value.strip()))

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body, as soon as some are in; ``b""`` at its end."""
        if self._body is None:
            raise TransportError("read() before start()")
        return self._body.read(size)


def _proxy_auth(user: str | None, password: str | None) -> list[tuple[str, str]]:
    if user is None:
        return []
    import base64

    token = base64.b64encode(f"{unquote(user)}:{unquote(password or '')}".encode()).decode("ascii")
    return [("Proxy-Authorization", f"Basic {token}")]


class _Body:
    """The body's framing (length, chunks or the connection's end) and content coding."""

    def __init__(self, wire: SocketExchange, headers: list[tuple[str, str]], empty: bool) -> None:
        named = {k.lower(): v for k, v in headers}
        self.wire = wire
        self.chunked = "chunked" in named.get("transfer-encoding", "").lower()
        length = named.get("content-length", "")
        self.left: int | None = 0 if empty else None if self.chunked or not _digits(length) else int(length)
        self.done = empty
        self.chunk_left = 0
        self.pending = b""  # compressed bytes the inflater left for the next read
        coding = named.get("content-encoding", "").strip().lower()
        self.inflate = None
        if coding in ("gzip", "deflate", "x-gzip"):
            import zlib

            self.inflate = zlib.decompressobj(47 if coding != "deflate" else 15)

    def read(self, size: int) -> bytes:
        while not self.done:
            raw = self._raw(size)
            if self.inflate is None:
                return raw
            try:  # at most ``size`` bytes a read, however much the compressed bytes expand
                data = self.inflate.decompress(raw, size) if raw else self.inflate.flush()
            except Exception as exc:  # zlib.error: a body that does not inflate
                raise TransportError(f"the answer's compressed body is broken: {exc}") from None
            tail = self.inflate.unconsumed_tail
            if tail:
                self.pending = tail  # read again before anything new from the wire
            if data:
                return data
        return b""

    def _raw(self, size: int) -> bytes:
        if self.pending:
            data, self.pending = self.pending, b""
            return data
        wire = self.wire
        if self.chunked:
            if self.chunk_left == 0:
                line = wire.line().split(b";")[0].strip()
                if not line or line.strip(b"0123456789abcdefABCDEF"):
                    raise TransportError(f"a bad chunk size in the answer: {line[:20]!r}")
                self.chunk_left = int(line, 16)
                if self.chunk_left == 0:
                    trailers = 0
                    while line := wire.line():  # trailers, up to the blank line
                        trailers += len(line)
                        if trailers > _HEAD_LIMIT:
                            raise TransportError("the answer's trailers are too large")
                    self.done = True
                    return b""
            data = self._some(min(size, self.chunk_left))
            self.chunk_left -= len(data)
            if self.chunk_left == 0 and wire.line():
                raise TransportError("a chunk of the answer is longer than its size says")
            return data
        if self.left is not None:
            if self.left == 0:
                self.done = True
                return b""
            data = self._some(min(size, self.left))
            self.left -= len(data)
            return data
        data = wire.recv()
        if not data:
            self.done = True
        elif len(data) > size:
            wire.unread(data[size:])
            data = data[:size]
        return data

    def _some(self, size: int) -> bytes:
        data = self.wire.recv()
        if not data:
            raise TransportError("the connection closed in the middle of the answer's body")
        if len(data) > size:
            self.wire.unread(data[size:])
            data = data[:size]
        return data


def _digits(text: str) -> bool:
    """Whether ``text`` is a decimal number in ASCII (``str.isdigit`` also takes ``²``, which ``int`` refuses)."""
    return text.isascii() and text.isdigit()
