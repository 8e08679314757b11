"""``FetchTransport``: the browser's ``fetch``, for Python running in Pyodide (a web page, a worker, Node).

It is the default of :func:`~agentkit_core.http.asend` under Pyodide, so a
page needs no transport argument::

    async with await asend(request, cancel=checkpoint) as response:
        async for event in response.events():
            ...

Each exchange is one ``fetch(url, {method, headers, body, signal})``: the
request's headers and body as they are (the browser drops the few it sets
itself, such as ``host`` and ``content-length``), the body of the answer
read with ``body.getReader()`` one chunk at a time, and an
``AbortController`` whose ``abort()`` ends a pending fetch or read at once:
``abort()`` here calls it, from any callback (a Stop button, a timer, a
checkpoint's interrupt).  The same controller enforces the timeouts: the
answer's head must come within ``connect_timeout + read_timeout`` seconds
(``fetch`` does not tell connecting from waiting), each later read within
``read_timeout``.  A failed fetch raises :class:`TransportError`: a network
failure and a refusal by CORS look the same to a page (the browser hides
which, by design), and the message says so; ``timed_out`` marks a timeout.
An aborted one raises :class:`TransportError` too, which ``send`` and
``asend`` report as :class:`~agentkit_core.TurnCancelledError` once their
checkpoint is cancelled.  Redirects are the browser's to follow (its
``redirect: "follow"``); a cross-origin answer shows only the headers the
server exposes (``Access-Control-Expose-Headers``).

The synchronous face (``exchange()``, for :func:`~agentkit_core.http.send`)
waits through ``pyodide.ffi.run_sync``, which needs WebAssembly stack
switching (JSPI) and a call entered through an async entry point
(``pyodide.runPythonAsync``); where that is missing, ``exchange()`` raises a
:class:`TransportError` saying to use ``asend``.  ``js`` and ``pyodide`` are
imported when an exchange is made, never when this module is.
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence, Tuple

from ._errors import TransportError
from ._request import Request, redact_url

__all__ = ("FetchTransport",)

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__


def _browser() -> tuple[Any, Any]:
    """The ``js`` module and ``pyodide.ffi``; :class:`TransportError` where this is no Pyodide."""
    try:
        return importlib.import_module("js"), importlib.import_module("pyodide.ffi")
    except ImportError as exc:
        raise TransportError(
            f"FetchTransport needs Pyodide (a browser, a worker or Node): this interpreter has no {exc.name} module"
        ) from None


class FetchTransport:
    """An HTTP client made of the JavaScript ``fetch``: see the module docstring.

    ``aexchange()`` is the :class:`~agentkit_core.http.AsyncTransport` face
    (for ``asend``), ``exchange()`` the synchronous one (for ``send``, where
    ``run_sync`` can wait).
    """

    __slots__ = ()

    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> FetchExchange:
        """An awaited exchange for ``request``, not yet started."""
        js, ffi = _browser()
        return FetchExchange(js, ffi, request, connect_timeout, read_timeout)

    def exchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> _BlockingFetchExchange:
        """A blocking exchange for ``request``; :class:`TransportError` where ``run_sync`` cannot wait here."""
        js, ffi = _browser()
        can_run_sync = getattr(ffi, "can_run_sync", None)
        if can_run_sync is None or not can_run_sync():
            raise TransportError(
                "send() cannot wait for fetch here: this JavaScript runtime has no WebAssembly stack switching "
                "(JSPI), or the call did not come through an async entry point (pyodide.runPythonAsync); "
                "use `await agentkit_core.http.asend(...)`, which needs neither"
            )
        return _BlockingFetchExchange(FetchExchange(js, ffi, request, connect_timeout, read_timeout), ffi.run_sync)

    def __repr__(self) -> str:
        return "FetchTransport()"


class FetchExchange:
    """One ``fetch``: awaited ``start()`` and ``read()``, ``abort()`` and ``close()`` returning at once."""

    __slots__ = (
        "_js", "_ffi", "_request", "_connect_timeout", "_read_timeout",
        "_controller", "_aborted", "_timed_out", "_reader", "_pending", "_ended",
    )  # fmt: skip

    def __init__(self, js: Any, ffi: Any, request: Request, connect_timeout: float, read_timeout: float) -> None:
        self._js = js
        self._ffi = ffi
        self._request = request
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._controller: Any = None
        self._aborted = False
        self._timed_out = ""  # what timed out, once something has
        self._reader: Any = None
        self._pending = b""  # read but not yet handed out (a chunk larger than asked)
        self._ended = False

    def abort(self) -> None:
        """End a pending ``start()`` or ``read()`` now (the ``AbortController``'s ``abort()``); returns at once."""
        self._aborted = True
        if self._controller is not None:
            self._controller.abort()

    def _options(self) -> Any:
        js, request = self._js, self._request
        headers = js.Headers.new()
        for name, value in request.headers:
            headers.append(name, value)
        options = js.Object.new()
        options.method = request.method
        options.headers = headers
        options.signal = self._controller.signal
        options.cache = "no-store"
        if request.body:
            options.body = self._ffi.to_js(request.body)
        return options

    async def start(self) -> tuple[int, Sequence[Tuple[str, str]]]:
        """Send the request; the answer's status and headers once they are in."""
        js = self._js
        self._controller = js.AbortController.new()
        if self._aborted:  # abort() came before there was a controller
            self._controller.abort()
        try:
            with self._deadline(self._connect_timeout + self._read_timeout, "the answer's head"):
                answer = await js.fetch(self._request.url, self._options())
        except Exception as exc:  # noqa: BLE001 - a JavaScript error (JsException) or a conversion failure
            raise self._failure(exc) from None
        pairs = js.Array.from_(answer.headers).to_py()
        body = answer.body
        self._reader = body.getReader() if body else None
        return int(answer.status), [(str(name), str(value)) for name, value in pairs]

    async def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body, awaiting the next chunk when none is left; ``b""`` at its end."""
        if not self._pending and not self._ended:
            if self._reader is None:
                self._ended = True
            else:
                try:
                    with self._deadline(self._read_timeout, "the next byte of the answer"):
                        result = await self._reader.read()
                except Exception as exc:  # noqa: BLE001 - as in start()
                    raise self._failure(exc) from None
                if result.done:
                    self._ended = True
                else:
                    self._pending = result.value.to_bytes()
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def close(self) -> None:
        """Stop the fetch unless its body was read to the end (never blocks)."""
        if not self._ended and self._controller is not None:
            self._controller.abort()
        self._reader = None
        self._pending = b""

    def _deadline(self, seconds: float, what: str) -> _Deadline:
        return _Deadline(self, seconds, what)

    def _time_out(self, what: str) -> None:
        self._timed_out = what
        if self._controller is not None:
            self._controller.abort()

    def _failure(self, exc: Exception) -> TransportError:
        url = redact_url(self._request.url)
        if self._timed_out:
            return TransportError(f"{url}: timed out waiting for {self._timed_out}", timed_out=True)
        if self._aborted:
            return TransportError(f"{url}: the fetch was aborted")
        name = getattr(exc, "name", "") or type(exc).__name__
        message = str(getattr(exc, "message", "") or exc).strip()
        return TransportError(
            f"{url}: fetch failed ({name}: {message}): the network failed, or the server does not allow this "
            "page's origin (CORS: the browser does not tell which; its console does)"
        )

    def __repr__(self) -> str:
        return f"FetchExchange({self._request.method} {redact_url(self._request.url)!r})"


class _Deadline:
    """A JavaScript timer for the length of a ``with`` block that times the exchange out when it fires."""

    __slots__ = ("_exchange", "_seconds", "_what", "_timer", "_proxy")

    def __init__(self, exchange: FetchExchange, seconds: float, what: str) -> None:
        self._exchange = exchange
        self._seconds = seconds
        self._what = what
        self._timer: Any = None
        self._proxy: Any = None

    def __enter__(self) -> None:
        exchange = self._exchange
        self._proxy = exchange._ffi.create_proxy(lambda: exchange._time_out(self._what))
        self._timer = exchange._js.setTimeout(self._proxy, min(self._seconds * 1000, 2**31 - 1))

    def __exit__(self, *exc_info: object) -> None:
        self._exchange._js.clearTimeout(self._timer)
        self._proxy.destroy()


class _BlockingFetchExchange:
    """The synchronous face of a :class:`FetchExchange`: each step waited for with ``run_sync``."""

    __slots__ = ("_exchange", "_run_sync", "abort")

    def __init__(self, exchange: FetchExchange, run_sync: Any) -> None:
        self._exchange = exchange
        self._run_sync = run_sync
        self.abort = exchange.abort

    def _wait(self, awaitable: Any) -> Any:
        try:
            return self._run_sync(awaitable)
        except RuntimeError as exc:  # run_sync refusing after all (its stack cannot be switched here)
            awaitable.close()
            raise TransportError(f"send() cannot wait for fetch here ({exc}): use `await agentkit_core.http.asend(...)`") from None

    def start(self) -> tuple[int, Sequence[Tuple[str, str]]]:
        result: tuple[int, Sequence[Tuple[str, str]]] = self._wait(self._exchange.start())
        return result

    def read(self, size: int) -> bytes:
        result: bytes = self._wait(self._exchange.read(size))
        return result

    def close(self) -> None:
        self._exchange.close()


FetchTransport.__module__ = _PUBLIC_MODULE
FetchExchange.__module__ = _PUBLIC_MODULE
