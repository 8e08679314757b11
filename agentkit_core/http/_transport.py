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

The asynchronous face, for :func:`~agentkit_core.http.asend` on an event
loop with no thread to block (a browser page), is the same with awaited
steps: ``transport.aexchange(...)`` returns an :class:`AsyncExchange` whose
``start()`` and ``read(size)`` are coroutines, while ``abort()`` (from any
callback: a click handler, a timer, another task) and ``close()`` stay plain
calls that return at once.  An awaited step that is aborted must end soon
(raise or return); a task cancelled while awaiting one sees
``CancelledError`` there, and ``asend`` then aborts the exchange itself.
:class:`~agentkit_core.http.FetchTransport` (a browser's ``fetch``) gives
both faces; a transport giving only the synchronous one still works with
``asend``, each step run in the loop's default executor.
"""

from __future__ import annotations

from typing import Protocol, Sequence, Tuple

from ._request import Request

__all__ = ("Exchange", "Transport", "AsyncExchange", "AsyncTransport")


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


class AsyncExchange(Protocol):
    """One request on the wire, awaited: ``await start()``, then ``await read()`` until ``b""``, then ``close()``."""

    async def start(self) -> tuple[int, Sequence[Tuple[str, str]]]:
        """Send the request; return once the answer's status and headers (name, value pairs) are in."""
        ...

    async def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body as soon as some are in; ``b""`` at its end."""
        ...

    def abort(self) -> None:
        """Make a pending ``start()`` or ``read()`` end soon; returns at once, safe from any callback."""
        ...

    def close(self) -> None:
        """Release the connection (never blocks); called once, after everything else."""
        ...


class AsyncTransport(Protocol):
    """A maker of awaited exchanges: see the module docstring."""

    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> AsyncExchange:
        """An exchange for ``request``, not yet started (this must not block)."""
        ...
