"""Sending a request on the standard library alone: retries, timeouts and cancellation that works.

Build a request with a provider module's ``http_request(items, model=...)``
(or :class:`Request` by hand), then::

    with send(request, cancel=checkpoint) as response:
        for event in response.events():
            ...

* :func:`send` connects, sends, retries as the official SDKs do (connection
  failures and statuses 408, 409, 429, 5xx; exponential backoff with jitter;
  ``Retry-After``, ``retry-after-ms`` and ``x-should-retry`` honoured; never
  once the answer was handed out; each retry logged at INFO), follows
  redirects as httpx does (credentials dropped across origins, at most 20
  hops) and returns a :class:`Response` (status, headers, ``url``, ``hops``;
  ``read()``, ``json()``, ``chunks()``, ``lines()``, ``events()``).
* Interrupting ``cancel`` (a :class:`~agentkit_core.TurnCancellation`, or a
  handle or controller) from any thread, a signal handler (Ctrl-C) or an
  asyncio callback aborts a blocked connect or read at once; ``interrupt()``
  returns at once and the reader gets
  :class:`~agentkit_core.TurnCancelledError`, never a quiet end of the body.
* :func:`asend` is the asyncio form, every step awaited on the running loop
  (no thread needed: it runs in a browser page); cancelling its task aborts
  the read, and so does an interrupt of ``cancel``.
* Errors: :class:`ProviderError` (the provider answered with an error:
  status, type, a readable one-line message, request id, :class:`Headers`,
  raw body), :class:`TransportError` (connecting, TLS, a broken connection,
  a timeout, a redirect loop).  No error, log line or ``repr`` shows an API
  key, not even one the server echoed back.
* :class:`Transport` is what a replacement client (httpx, requests)
  provides, :class:`AsyncTransport` its awaited form; the default is
  :class:`SocketTransport` (TLS always verified, proxies from the
  environment as ``urllib`` reads them, connections kept alive in a pool
  its ``close()`` ends; ``send()`` given no transport shares one), and under Pyodide
  :class:`FetchTransport` (the browser's ``fetch``).
* :func:`events_from_sse` parses a ``text/event-stream`` body (whole, in
  chunks, as lines, or async) into the JSON object of each event: what
  ``Response.events()`` reads with, and what every provider module
  re-exports as its own ``events_from_sse``; :func:`events_from_eventstream`
  does the same for AWS's binary event stream
  (``application/vnd.amazon.eventstream``: Bedrock's streams), which
  ``Response.events()`` reads when the answer's ``content-type`` says so.

Importing this package imports no ``socket``, ``ssl``, ``http.client``,
``asyncio``, ``js`` or ``pyodide``: the modules that need them are loaded
when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._async import AsyncResponse, asend
from ._client import Response, send
from ._errors import Headers, HttpError, ProviderError, TransportError
from ._eventstream import events_from_eventstream
from ._request import Request
from ._sse import events_from_sse
from ._transport import AsyncExchange, AsyncTransport, Exchange, Transport

if TYPE_CHECKING:
    from ._fetch import FetchTransport
    from ._sockets import SocketTransport

__all__ = (
    "Request",
    "send",
    "asend",
    "Response",
    "AsyncResponse",
    "HttpError",
    "ProviderError",
    "TransportError",
    "Headers",
    "Transport",
    "Exchange",
    "AsyncTransport",
    "AsyncExchange",
    "SocketTransport",
    "FetchTransport",
    "events_from_sse",
    "events_from_eventstream",
)


def __getattr__(name: str) -> Any:
    """``SocketTransport`` (with ``socket``) and ``FetchTransport`` are loaded on first use."""
    if name == "SocketTransport":
        from ._sockets import SocketTransport

        return SocketTransport
    if name == "FetchTransport":
        from ._fetch import FetchTransport

        return FetchTransport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
