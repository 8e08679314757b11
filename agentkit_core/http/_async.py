"""``asend()``: :func:`~agentkit_core.http.send` for asyncio, where cancelling the task aborts the read.

The blocking exchange runs in the loop's default executor, one step at a
time (connecting, then each read), so the loop never blocks.  Each send has
a controller of its own whose interrupt aborts the exchange; the awaiting
task being cancelled interrupts it, and so does the caller's checkpoint.  So
``task.cancel()`` ends a blocked read within milliseconds (the worker thread
is freed, the connection closed) and the task sees ``CancelledError``; an
interrupt of the caller's checkpoint, from the loop or any thread, makes
the await raise :class:`~agentkit_core.TurnCancelledError`.  Needs threads:
where there are none (Pyodide) give ``send`` a transport of that platform's
instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, TypeVar

from ..cancellation import CancellationController
from ..jsontext import JsonValue, parse_json
from ._client import DEFAULT_CONNECT_TIMEOUT, DEFAULT_RETRIES, DEFAULT_TIMEOUT, Response, checkpoint_of, send
from ._request import Request, redact_url

if TYPE_CHECKING:
    from ..cancellation import CancellationHandle, TurnCancellation
    from ._transport import Transport

__all__ = ("asend", "AsyncResponse")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__
T = TypeVar("T")


async def _in_thread(fn: Callable[[], T], controller: CancellationController) -> T:
    """``fn()`` in the default executor; cancelling the awaiting task interrupts ``controller`` (aborting ``fn``)."""
    import asyncio

    future = asyncio.get_running_loop().run_in_executor(None, fn)
    try:
        return await future
    except asyncio.CancelledError:
        controller.interrupt()
        raise


async def asend(
    request: Request,
    *,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    transport: Transport | None = None,
) -> AsyncResponse:
    """:func:`~agentkit_core.http.send` for asyncio: the same arguments, an :class:`AsyncResponse`.

    Cancelling the awaiting task aborts the connection at once, here and
    while the response is read.
    """
    outer = checkpoint_of(cancel)
    controller = CancellationController()
    inner = controller.handle().checkpoint()
    outer.add_callback(controller.interrupt)  # runs at once if already cancelled

    def blocking() -> Response:
        return send(request, cancel=inner, timeout=timeout, connect_timeout=connect_timeout, retries=retries, transport=transport)

    try:
        response = await _in_thread(blocking, controller)
    except BaseException:
        outer.remove_callback(controller.interrupt)
        raise
    return AsyncResponse(response, controller, lambda: outer.remove_callback(controller.interrupt))


class AsyncResponse:
    """An answer read from asyncio: the same reads as :class:`~agentkit_core.http.Response`, awaited.

    ``async with`` closes it.  Cancelling the task that awaits a read aborts
    the connection; an interrupt of the send's checkpoint makes the read raise
    :class:`~agentkit_core.TurnCancelledError`.
    """

    __slots__ = ("_response", "_controller", "_release", "status", "headers", "request")

    def __init__(self, response: Response, controller: CancellationController, release: Callable[[], object]) -> None:
        self._response = response
        self._controller = controller
        self._release = release
        self.status = response.status
        self.headers = response.headers
        self.request = response.request

    @property
    def request_id(self) -> str:
        """The request id the provider sent back in a header, ``""`` if none."""
        return self._response.request_id

    async def chunks(self, size: int = 64 * 1024) -> AsyncIterator[bytes]:
        """The body in pieces as they arrive."""
        pieces = self._response.chunks(size)
        end = object()

        def step() -> Any:
            return next(pieces, end)

        while True:
            chunk = await _in_thread(step, self._controller)
            if chunk is end:
                return
            yield chunk

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([chunk async for chunk in self.chunks()])

    async def json(self) -> JsonValue:
        """The body parsed as JSON."""
        return parse_json(await self.read())

    def lines(self) -> AsyncIterator[str]:
        """The body's text lines without their ends, as they arrive."""
        from ..providers._common.streams import alines_of

        return alines_of(self.chunks())

    def events(self) -> AsyncIterator[dict[str, JsonValue]]:
        """The JSON object of each server-sent event, as it arrives."""
        from ..providers._common.streams import events_from_sse

        return events_from_sse(self.chunks())

    async def aclose(self) -> None:
        """Close the connection (never blocks)."""
        self._response.close()
        self._release()

    async def __aenter__(self) -> AsyncResponse:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncResponse(status={self.status}, url={redact_url(self.request.url)!r})"


AsyncResponse.__module__ = _PUBLIC_MODULE
