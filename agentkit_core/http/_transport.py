"""The transport protocol: what :func:`~agentkit_core.http.send` needs of an HTTP client.

:func:`~agentkit_core.http.send` does retries, cancellation and errors; a
transport only moves one request's bytes.  The default is
:class:`~agentkit_core.http.SocketTransport` (the standard library's sockets
and ``ssl``); any client can stand in for it (httpx, requests, a browser's
``fetch`` under Pyodide) by giving these two small interfaces:

* ``transport.exchange(request, connect_timeout=..., read_timeout=...)``
  returns an :class:`Exchange` for one request, without blocking;
* the exchange's ``start()`` sends the request and blocks until the status
  and headers are in; ``read(size)`` blocks until some of the body is in and
  returns at most ``size`` bytes, ``b""`` at its end; ``close()`` releases
  everything;
* ``abort()`` may be called at any time, from any thread or from a signal
  handler running on the thread blocked in ``start()`` or ``read()``: it must
  return at once (no lock, no waiting for the reader) and make the blocked
  call return or raise soon.  Whatever the blocked call then does, ``send``
  reports :class:`~agentkit_core.TurnCancelledError` to its caller.

Failures are raised as :class:`~agentkit_core.http.TransportError` (or any
``OSError``, which ``send`` turns into one).
"""

from __future__ import annotations

from typing import Protocol, Sequence, Tuple

from ._request import Request

__all__ = ("Exchange", "Transport")


class Exchange(Protocol):
    """One request on the wire: ``start()``, then ``read()`` until ``b""``, then ``close()``; ``abort()`` any time."""

    def start(self) -> tuple[int, Sequence[Tuple[str, str]]]:
        """Send the request; block until the answer's status and headers (name, value pairs) are in."""
        ...

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body as soon as some are in; ``b""`` at its end."""
        ...

    def abort(self) -> None:
        """Make a blocked ``start()`` or ``read()`` end now; never blocks, safe in a signal handler."""
        ...

    def close(self) -> None:
        """Release the connection; called once, after everything else."""
        ...


class Transport(Protocol):
    """A maker of exchanges: see the module docstring."""

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> Exchange:
        """An exchange for ``request``, not yet started (this must not block)."""
        ...
