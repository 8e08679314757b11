"""Private to :mod:`.openai_responses`: a turn of the OpenAI Responses API: :func:`complete`, :func:`stream` and their asyncio forms.

All four run the turn driver every provider shares (:mod:`.._common.complete`) with this
package's ``http_request``, ``stream_decoder`` and ``items_from_response``; every
provider's four have this same signature (``tests/test_public_surface.py``).
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

#: What the turn driver runs: this package's functions, and its own name's registry row (its key and base-URL variables).
_PROVIDER = Provider(http_request, stream_decoder, items_from_response, endpoint("openai-responses"))


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
    """One turn of the OpenAI Responses API on ``items``: the answer's ``ASSISTANT`` item.

    Builds the request as :func:`http_request` does (``model``, ``api_key``,
    ``base_url``, ``tools``, ``tool_choice``, ``settings``, ``headers`` and the
    ``native`` body fields), sends it with :func:`agentkit_core.http.send`
    (``cancel``, ``transport``; ``timeout`` and ``retries`` default to
    ``send``'s), decodes and folds the stream (or the body when not
    ``stream``), calls ``on_delta(delta)`` for every delta and
    ``on_text(chunk)`` for each chunk of visible answer text (not reasoning),
    and returns the item :func:`items_from_stream` gives for the same events.
    A stream cut by the network or ended before its final event comes back
    closed as ``FinishReason.ERROR`` with everything that arrived
    (``agentkit.stream_cut`` says why, under ``"error"``); an interrupt of
    ``cancel`` ends the read at once and the turn comes back closed as
    ``CANCELLED``.  An error answer raises :class:`~agentkit_core.http.ProviderError`;
    a request that got no answer at all, :class:`~agentkit_core.http.TransportError`.
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
    """:func:`complete` for asyncio, the same parameters, sent with :func:`agentkit_core.http.asend`.

    Cancelling the task aborts the read at once and raises ``CancelledError``
    (asyncio's rule); an interrupt of ``cancel`` returns the turn closed as
    ``CANCELLED``, as :func:`complete` does.  With an asynchronous transport
    nothing runs in a thread.
    """
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
    """A turn of the OpenAI Responses API on ``items``, read as it arrives: :func:`complete`'s parameters, sent when the reading starts.

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
