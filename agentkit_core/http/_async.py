"""``asend()``: :func:`~agentkit_core.http.send` awaited on the running loop, where cancelling the task aborts the read.

``asend`` drives an :class:`~agentkit_core.http.AsyncExchange` natively:
every step (the answer's head, each read of the body) is awaited on the
running loop, and the wait between retries is an ``await`` racing the
checkpoint, so the loop never blocks and nothing needs a thread.  That is
what a browser page has (:class:`~agentkit_core.http.FetchTransport`, the
default under Pyodide).  A synchronous :class:`~agentkit_core.http.Transport`
(the default :class:`~agentkit_core.http.SocketTransport` on CPython, or
your own) still works: each of its blocking steps runs in the loop's default
executor, one at a time.

Either way the checkpoint's callback is the exchange's ``abort()`` for as
long as the exchange lives, as in :func:`~agentkit_core.http.send`: an
``interrupt()`` from a loop callback, a JavaScript event handler or another
thread ends a pending step at once and the await raises
:class:`~agentkit_core.TurnCancelledError`; cancelling the awaiting task
aborts the exchange too and the task sees ``CancelledError``.  The retry
and redirect decisions are :func:`send`'s own (the same functions:
``next_delay``, ``next_request``, ``check_hop``); only the waiting differs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence, Tuple, Union

from ..error import TurnCancelledError
from ..jsontext import JsonValue, parse_json
from ._client import (
    _CHUNK,
    _ERROR_READ,
    _EXCERPT_READ,
    _REDIRECT_READ,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    _Answer,
    _default_transport,
    check_arguments,
    checkpoint_of,
    is_eventstream,
    is_json,
    media_type,
    next_delay,
    not_a_stream,
    not_streamed,
    provider_error,
    step_failure,
    streamed,
)
from ._errors import ProviderError, TransportError, lower_headers
from ._redirect import check_hop, next_request
from ._request import Request

if TYPE_CHECKING:
    from ..cancellation import CancellationController, CancellationHandle, TurnCancellation
    from ._transport import AsyncExchange, AsyncTransport, Exchange, Transport

__all__ = ("asend", "AsyncResponse")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__


async def asend(
    request: Request,
    *,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    transport: Union[Transport, AsyncTransport, None] = None,
) -> AsyncResponse:
    """:func:`~agentkit_core.http.send` for asyncio: the same arguments, an :class:`AsyncResponse`.

    ``transport`` is an :class:`~agentkit_core.http.AsyncTransport` (driven
    on the loop) or a :class:`~agentkit_core.http.Transport` (its steps run
    in the default executor); by default :class:`FetchTransport` under
    Pyodide and :class:`SocketTransport` elsewhere.  Cancelling the awaiting
    task aborts the connection at once, here and while the response is read;
    so does an interrupt of ``cancel``, and the await raises
    :class:`~agentkit_core.TurnCancelledError`.
    """
    check_arguments("asend", request, timeout, connect_timeout, retries)
    checkpoint = checkpoint_of(cancel)
    maker = _async_transport(transport)
    retried = 0
    current = request
    seen: list[tuple[str, str]] = [(request.method, request.url)]
    error: ProviderError | TransportError
    while True:
        checkpoint.raise_if_cancelled()
        sent = await current.asigned()  # signed afresh on every attempt (Request.auth)
        exchange = maker.aexchange(sent, connect_timeout=connect_timeout, read_timeout=timeout)
        response = AsyncResponse(sent, exchange, checkpoint, len(seen) - 1)
        try:
            await response._start()
        except TransportError as exc:
            error, headers = exc, {}
        else:
            if response.status < 400:
                try:
                    following = next_request(current, response.status, response.headers)
                except TransportError:  # a Location that cannot be followed: the error, its connection closed
                    response.close()
                    raise
                if following is None:
                    return response
                await _drain(response)
                check_hop(seen, following)
                seen.append((following.method, following.url))
                current = following
                continue
            try:
                body = await response._read_bounded(_ERROR_READ)
            except TransportError:
                body = b""
            finally:
                response.close()
            error, headers = provider_error(response.status, response.headers, body, sent), response.headers
        delay = next_delay(sent, error, headers, retried, retries)
        if await _wait(checkpoint, delay):
            raise TurnCancelledError(checkpoint.generation)
        retried += 1


async def _drain(response: AsyncResponse) -> None:
    """Read a redirect's body (bounded) and close it, as ``send`` does, so that its connection can serve the next hop."""
    try:
        await response._read_bounded(_REDIRECT_READ)
    except TransportError:
        pass
    finally:
        response.close()


def _async_transport(transport: object) -> AsyncTransport:
    """``transport`` as an asynchronous one: itself, a synchronous one run in the executor, or the platform's default."""
    if transport is None:
        transport = _default_transport()  # FetchTransport under Pyodide, which has aexchange: awaited on the loop
    if callable(getattr(transport, "aexchange", None)):
        return transport  # type: ignore[return-value]
    if callable(getattr(transport, "exchange", None)):
        return _InExecutor(transport)  # type: ignore[arg-type]
    raise TypeError(f"transport: expected a Transport or an AsyncTransport, found {type(transport).__name__}")


async def _wait(checkpoint: TurnCancellation, delay: float) -> bool:
    """Await ``delay`` seconds or the checkpoint's cancellation, whichever comes first; whether it is cancelled."""
    if checkpoint.is_cancelled():
        return True
    if delay > 0:
        import asyncio

        waiter = asyncio.ensure_future(checkpoint.cancelled())
        try:
            await asyncio.wait((waiter,), timeout=delay)
        finally:
            if not waiter.done():
                waiter.cancel()
    return checkpoint.is_cancelled()


class _InExecutor:
    """A synchronous transport seen as an asynchronous one: each blocking step in the loop's default executor."""

    __slots__ = ("_transport",)

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def aexchange(self, request: Request, *, connect_timeout: float, read_timeout: float) -> _ExchangeInExecutor:
        return _ExchangeInExecutor(self._transport.exchange(request, connect_timeout=connect_timeout, read_timeout=read_timeout))


class _ExchangeInExecutor:
    """One synchronous exchange stepped from a worker thread.

    ``abort()`` is the exchange's own (safe from any thread).  ``close()``
    while a step still runs in the worker (its task was cancelled, the step
    aborted) is left to the worker, which closes once the step returns: the
    exchange is never closed under a thread still reading it.
    """

    __slots__ = ("_exchange", "_lock", "_busy", "_close_asked", "abort")

    def __init__(self, exchange: Exchange) -> None:
        import _thread

        self._exchange = exchange
        self._lock = _thread.allocate_lock()
        self._busy = False
        self._close_asked = False
        self.abort = exchange.abort

    def _step(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._busy = False
                close = self._close_asked
            if close:
                self._exchange.close()

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        import asyncio

        with self._lock:
            self._busy = True
        # Shielded: a cancelled task must not cancel a step not yet begun, or the close it was left to is lost (a leaked socket).
        step = asyncio.get_running_loop().run_in_executor(None, self._step, fn, *args)
        step.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved: a cancelled task's step may fail unseen
        return await asyncio.shield(step)

    async def start(self) -> tuple[int, Sequence[Tuple[str, str]]]:
        result: tuple[int, Sequence[Tuple[str, str]]] = await self._run(self._exchange.start)
        return result

    async def read(self, size: int) -> bytes:
        result: bytes = await self._run(self._exchange.read, size)
        return result

    def close(self) -> None:
        with self._lock:
            if self._busy:
                self._close_asked = True
                return
        self._exchange.close()


class AsyncResponse(_Answer):
    """An answer read from asyncio: the same reads as :class:`~agentkit_core.http.Response`, awaited.

    ``async with`` closes it (so does ``close()``, which never blocks).  An
    interrupt of the send's checkpoint makes a pending read raise
    :class:`~agentkit_core.TurnCancelledError`; cancelling the task that
    awaits it aborts the connection; a broken or stalled connection raises
    :class:`TransportError`.
    """

    __slots__ = ()
    _NAME = "AsyncResponse"
    _exchange: AsyncExchange

    async def _start(self) -> None:
        self._opened()
        status, headers = await self._call(self._exchange.start)
        self.status, self.headers = status, lower_headers(headers)

    async def _call(self, fn: Any, *args: Any) -> Any:
        """``await fn(*args)`` on the exchange, with its failures, an abort and a task cancel turned into the package's."""
        import asyncio

        checkpoint = self._checkpoint
        if checkpoint.is_cancelled():
            self.close()
            raise TurnCancelledError(checkpoint.generation)
        try:
            result = await fn(*args)
        except asyncio.CancelledError:
            self._exchange.abort()
            self.close()
            raise
        except (OSError, TransportError, ValueError) as exc:
            self.close()
            failure = step_failure(exc, checkpoint, self.request)
            if failure is exc:
                raise
            raise failure from None
        except BaseException:
            self.close()
            raise
        if checkpoint.is_cancelled():  # the abort may look like the body's end
            self.close()
            raise TurnCancelledError(checkpoint.generation)
        return result

    async def _read_bounded(self, limit: int) -> bytes:
        data = bytearray()
        async for chunk in self.chunks():
            data += chunk[: limit - len(data)]
            if len(data) >= limit:
                break
        return bytes(data)

    async def chunks(self, size: int = _CHUNK) -> AsyncIterator[bytes]:
        """The body in pieces as they arrive, each at most ``size`` bytes."""
        self._readable()
        while not self._done:
            chunk: bytes = await self._call(self._exchange.read, size)
            if not chunk:
                self._done = True
                self.close()
                return
            yield chunk

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([chunk async for chunk in self.chunks()])

    async def json(self) -> JsonValue:
        """The body parsed as JSON (nesting bounded); :class:`~agentkit_core.NormalizeError` if it is not JSON."""
        return parse_json(await self.read())

    def lines(self) -> AsyncIterator[str]:
        """The body's text lines (UTF-8) without their ends, as they arrive; CRLF, LF and CR end lines."""
        from ._sse import alines_of

        return alines_of(self.chunks())

    def events(self) -> AsyncIterator[dict[str, JsonValue]]:
        """The JSON object of each event, as it arrives, read as the answer's ``content-type`` says.

        Server-sent events (``data: [DONE]`` ends them), or, for
        ``application/vnd.amazon.eventstream``, AWS's binary event stream as
        ``{event_type: payload}`` (an exception message in it raises
        :class:`ProviderError`; see :func:`._eventstream.events_from_eventstream`).
        An answer that is neither is refused as :meth:`Response.events
        <agentkit_core.http.Response.events>` refuses it, when the first event is awaited.
        """
        return self._events()

    async def _events(self) -> AsyncIterator[dict[str, JsonValue]]:
        if is_eventstream(self.headers):
            from ._eventstream import events_from_eventstream

            async for event in events_from_eventstream(self.chunks()):
                yield event
            return
        from ._sse import events_from_sse

        media = media_type(self.headers)
        if not streamed(media):
            if not is_json(media):
                try:
                    excerpt = await self._read_bounded(_EXCERPT_READ)
                finally:
                    self.close()  # the rest of the page is never read
                raise not_a_stream(self, excerpt)
            raise not_streamed(media)
        async for event in events_from_sse(self.chunks()):
            yield event

    async def aclose(self) -> None:
        """Close the connection (never blocks)."""
        self.close()

    async def __aenter__(self) -> AsyncResponse:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


AsyncResponse.__module__ = _PUBLIC_MODULE
