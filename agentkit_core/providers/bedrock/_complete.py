"""Private to :mod:`.bedrock`: a Converse turn: :func:`complete`, :func:`stream` and their asyncio forms.

All four run the turn driver every provider shares (:mod:`.._common.complete`)
with this package's ``http_request``, ``stream_decoder`` and
``items_from_response``.  The stream is AWS's binary event stream, which
``Response.events()`` reads by its content type; an exception framed in it
raises :class:`~agentkit_core.http.ProviderError`.  The request carries its
signer, so every retry is signed afresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ... import Delta, Item
from ..._for_providers import endpoint
from .._common.complete import AsyncTurnStream, Provider, TurnCall, TurnStream, acomplete_turn, complete_turn
from ._http import http_request
from ._response import items_from_response
from ._stream import stream_decoder

if TYPE_CHECKING:
    from ... import CancellationController, CancellationHandle, ModelSettings, TurnCancellation
    from ...http import Transport
    from .._common.tools import Choice, Tools

__all__ = ("complete", "acomplete", "stream", "astream")

_PROVIDER = Provider(http_request, stream_decoder, items_from_response, endpoint("bedrock"))


def complete(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> Item:
    """One turn of Bedrock Converse on ``items``: the answer's ``ASSISTANT`` item.

    Builds the request as :func:`http_request` does (``credentials=`` and
    ``region=`` among the ``native`` keywords), sends it with
    :func:`agentkit_core.http.send`, decodes and folds the stream (or the body
    when not ``stream``), calls ``on_delta`` for every delta and ``on_text``
    for each chunk of answer text, and returns the item :func:`items_from_stream`
    gives for the same events.  A cut stream comes back closed as
    ``FinishReason.ERROR``, an interrupt of ``cancel`` as ``CANCELLED``; an
    error answer (or an exception in the stream) raises
    :class:`~agentkit_core.http.ProviderError`.
    """
    call = TurnCall(model=model, api_key=api_key, base_url=base_url, stream=stream, tools=tools, tool_choice=tool_choice,
                    settings=settings, headers=headers, native=native, on_text=on_text, on_delta=on_delta, cancel=cancel,
                    transport=transport, timeout=timeout, retries=retries)
    return complete_turn(_PROVIDER, items, call)


async def acomplete(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> Item:
    """:func:`complete` for asyncio, the same parameters, sent with :func:`agentkit_core.http.asend`."""
    call = TurnCall(model=model, api_key=api_key, base_url=base_url, stream=stream, tools=tools, tool_choice=tool_choice,
                    settings=settings, headers=headers, native=native, on_text=on_text, on_delta=on_delta, cancel=cancel,
                    transport=transport, timeout=timeout, retries=retries)
    return await acomplete_turn(_PROVIDER, items, call)


def stream(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> TurnStream:
    """A turn of Bedrock Converse on ``items``, read as it arrives: :func:`complete`'s parameters, sent when the reading starts.

    ::

        with stream(items, model=..., settings=...) as s:
            for chunk in s.text():  # or: for delta in s
                print(chunk, end="")
        answer = s.answer

    Iterating the :class:`~agentkit_core.providers.TurnStream` gives each delta
    as it is decoded (``s.text()``: the visible text), calling ``on_delta`` and
    ``on_text`` first; ``s.answer`` is the item :func:`complete` would return,
    once the stream ended.  Leaving early (``break``, an exception,
    ``s.close()``, the ``with`` block's end) closes the connection at once and
    the answer is the turn closed as ``CANCELLED``, with what arrived.  An
    answer that came whole (not streamed) is handed out as one ``CommitPart``
    a part.  Errors are :func:`complete`'s, raised where the reading is.
    """
    call = TurnCall(model=model, api_key=api_key, base_url=base_url, stream=stream, tools=tools, tool_choice=tool_choice,
                    settings=settings, headers=headers, native=native, on_text=on_text, on_delta=on_delta, cancel=cancel,
                    transport=transport, timeout=timeout, retries=retries)
    return TurnStream(_PROVIDER, items, call)


def astream(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> AsyncTurnStream:
    """:func:`stream` for asyncio (``async with``, ``async for``, ``aclose()``), sent with :func:`agentkit_core.http.asend`.

    Usable as the body of an async generator a web framework closes early (the
    connection is closed when it is).  Cancelling the task that reads it
    aborts the read at once: the ``CancelledError`` propagates and the answer
    is ``CANCELLED``.
    """
    call = TurnCall(model=model, api_key=api_key, base_url=base_url, stream=stream, tools=tools, tool_choice=tool_choice,
                    settings=settings, headers=headers, native=native, on_text=on_text, on_delta=on_delta, cancel=cancel,
                    transport=transport, timeout=timeout, retries=retries)
    return AsyncTurnStream(_PROVIDER, items, call)
