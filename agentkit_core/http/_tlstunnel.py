"""TLS inside TLS: an https origin reached through an ``https://`` proxy's ``CONNECT`` tunnel.

``ssl.SSLContext.wrap_socket`` cannot wrap a socket that is already TLS, so
the origin's TLS session runs on an :class:`ssl.SSLObject` between two
memory buffers, its records carried over the proxy's TLS connection, as
urllib3 and httpcore do it.  :class:`TlsInTls` offers the few socket calls
the exchange makes (``recv``, ``sendall``, ``settimeout``, ``fileno``,
``close``); timeouts and aborts act on the connection underneath, so
``connect_timeout``, ``timeout`` and cancelling behave as on any other
connection.
"""

from __future__ import annotations

import ssl
from typing import Any

__all__ = ("TlsInTls",)

_RECV = 64 * 1024


class TlsInTls:
    """A TLS session to ``server_hostname`` carried over ``outer`` (itself a TLS socket to the proxy)."""

    def __init__(self, outer: Any, context: ssl.SSLContext, server_hostname: str) -> None:
        self._outer = outer
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._tls = context.wrap_bio(self._incoming, self._outgoing, server_hostname=server_hostname)

    def _run(self, step: Any, *args: Any) -> Any:
        """``step(*args)`` on the TLS object, moving records across ``outer`` until it completes."""
        while True:
            try:
                result = step(*args)
            except ssl.SSLWantReadError:
                self._flush()
                data = self._outer.recv(_RECV)
                if data:
                    self._incoming.write(data)
                else:
                    self._incoming.write_eof()
                continue
            self._flush()
            return result

    def _flush(self) -> None:
        data = self._outgoing.read()
        if data:
            self._outer.sendall(data)

    def do_handshake(self) -> None:
        """The origin's TLS handshake (its certificate verified by the context)."""
        self._run(self._tls.do_handshake)

    def recv(self, size: int) -> bytes:
        """Up to ``size`` bytes from the origin; ``b""`` once it closed."""
        try:
            data: bytes = self._run(self._tls.read, size)
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            return b""
        return data

    def sendall(self, data: bytes) -> None:
        """Send all of ``data`` to the origin."""
        view = memoryview(data)
        while view:
            sent: int = self._run(self._tls.write, view)
            view = view[sent:]

    def settimeout(self, seconds: float | None) -> None:
        """The timeout of each wait on the connection underneath."""
        self._outer.settimeout(seconds)

    def fileno(self) -> int:
        """The descriptor of the connection underneath."""
        return int(self._outer.fileno())

    def close(self) -> None:
        """Close the connection underneath."""
        self._outer.close()
