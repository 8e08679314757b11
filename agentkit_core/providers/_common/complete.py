"""One whole turn, written once for every provider: what each module's ``complete`` and ``acomplete`` run.

Build the request (the provider's ``http_request``), send it
(:func:`agentkit_core.http.send` or ``asend``), feed each event to the
provider's stream decoder, fold the deltas, hand ``on_delta`` every delta and
``on_text`` every chunk of visible answer text, then finish the item.  A turn
that does not finish is returned closed, never lost:

* the network cuts it (a :class:`~agentkit_core.http.TransportError` once the
  answer began) or the stream ends without the provider's final event: the
  decoder closes it as ``ERROR``, everything that arrived kept, and
  ``agentkit.stream_cut`` gets ``"error"``, saying why;
* ``cancel`` is interrupted: the read ends at once and the decoder closes the
  turn as ``CANCELLED`` (a call whose arguments were cut off dropped, as
  ``close`` drops it).

A provider's error answer (an error status, after the retries) raises
:class:`~agentkit_core.http.ProviderError`; a request that never got an
answer (no connection, after the retries) raises ``TransportError``: nothing
arrived, so nothing is lost.  In ``acomplete``, cancelling the task aborts the
read and the ``CancelledError`` propagates, as asyncio requires.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, NamedTuple, Sequence

from ... import (
    STREAM_CUT_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    JsonValue,
    Part,
    PartKind,
    TextPart,
    TurnCancelledError,
    fold,
)
from ...http import Request, TransportError, asend, send
from .streams import _SEGMENT  # deltas folded before the fold may start afresh, as fold_events does (why: its docstring)

if TYPE_CHECKING:
    from typing import Protocol

    from ... import CancellationController, CancellationHandle, ModelSettings, StreamDecoder, TurnCancellation
    from ...http import Transport
    from .tools import Choice, Tools

    class TurnDecoder(StreamDecoder[Any], Protocol):
        """What the driver needs of a provider's stream decoder: :class:`~agentkit_core.projection.StreamDecoder`
        and ``close``, which closes a turn cut short (every provider's decoder has it)."""

        def close(self, parts: Sequence[Part], reason: FinishReason, /) -> Item:
            """The turn's item, closed with ``reason``: what arrived kept, a call cut off dropped."""

__all__ = ("Provider", "TurnCall", "complete_turn", "acomplete_turn", "ENDED_EARLY")

#: What ``agentkit.stream_cut`` says of a stream that ended without its final event.
ENDED_EARLY = "the stream ended before the provider's final event"


class Provider(NamedTuple):
    """What a turn needs of a provider module: its ``http_request``, ``stream_decoder`` and ``items_from_response``."""

    http_request: Callable[..., Request]
    stream_decoder: Callable[[], TurnDecoder]
    items_from_response: Callable[[Any], list[Item]]


class TurnCall(NamedTuple):
    """The arguments of one call of a provider's ``complete`` (or ``acomplete``), as it was given them.

    The first nine go to the provider's ``http_request``; ``on_text`` and
    ``on_delta`` to the turn; ``cancel``, ``transport``, ``timeout`` and
    ``retries`` to :func:`~agentkit_core.http.send` (``timeout`` and
    ``retries`` only when given, ``send``'s defaults else).
    """

    model: str
    api_key: str | None
    base_url: str | None
    stream: bool
    tools: Tools
    tool_choice: Choice
    settings: ModelSettings | None
    headers: Mapping[str, str] | None
    native: Mapping[str, Any]
    on_text: Callable[[str], object] | None
    on_delta: Callable[[Delta], object] | None
    cancel: TurnCancellation | CancellationHandle | CancellationController | None
    transport: Transport | None
    timeout: float | None
    retries: int | None


class _Turn:
    """The decoder and the fold of one turn, and the text shown so far of each text part."""

    __slots__ = ("decoder", "state", "done", "count", "shown", "on_text", "on_delta")

    def __init__(self, decoder: TurnDecoder, on_text: Callable[[str], object] | None, on_delta: Callable[[Delta], object] | None) -> None:
        self.decoder = decoder
        self.state = FoldState()
        self.done: list[Part] = []  # parts of segments folded before the current state
        self.count = 0  # deltas folded into the current state
        self.shown: dict[str, list[str]] = {}  # open text part id -> the chunks handed to on_text
        self.on_text = on_text
        self.on_delta = on_delta

    def feed(self, event: Any) -> None:
        deltas = self.decoder.feed(event)
        for delta in deltas:
            if self.on_delta is not None:
                self.on_delta(delta)
            self.state = fold(self.state, delta)
            if self.on_text is not None:
                self._text(delta)
        self.count += len(deltas)
        if self.count >= _SEGMENT and not self.state.is_open:
            self.done += self.state.parts
            self.state, self.count = FoldState(), 0

    def _text(self, delta: Delta) -> None:
        assert self.on_text is not None
        if type(delta) is AppendText:
            shown = self.shown.get(delta.part_id.value)
            if shown is not None and delta.chunk:
                shown.append(delta.chunk)
                self.on_text(delta.chunk)
        elif type(delta) is BeginPart:
            if delta.kind is PartKind.TEXT:
                self.shown[delta.part_id.value] = []
        elif type(delta) is CommitPart and type(delta.part) is TextPart:
            # A part committed whole (never begun), or committed with more text than its chunks gave.
            chunks = self.shown.pop(delta.part_id.value, None) if delta.part_id is not None else None
            seen = "".join(chunks) if chunks else ""
            text = delta.part.text
            if text.startswith(seen) and len(text) > len(seen):
                self.on_text(text[len(seen):])

    def parts(self) -> list[Part]:
        return [*self.done, *self.state.finalize()]

    def finish(self) -> Item:
        item: Item = self.decoder.finish(self.parts())
        return _why(item, ENDED_EARLY)

    def close(self, reason: FinishReason, why: str | None = None) -> Item:
        item: Item = self.decoder.close(self.parts(), reason)
        return item if why is None else _why(item, why)


def _why(item: Item, why: str) -> Item:
    """``item`` with ``why`` under ``agentkit.stream_cut``'s ``"error"``, if the key is there."""
    cut = item.metadata.get(STREAM_CUT_KEY)
    if not isinstance(cut, dict):
        return item
    said: dict[str, JsonValue] = {**cut, "error": why}
    return item.with_metadata({**item.metadata, STREAM_CUT_KEY: said})


def _whole(turn: _Turn, provider: Provider, body: Any) -> Item:
    item = provider.items_from_response(body)[0]
    if turn.on_text is not None:
        for part in item.parts:
            if type(part) is TextPart and part.text:
                turn.on_text(part.text)
    return item


def _callback(fn: object, name: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{name}: expected a callable or None, found {type(fn).__name__}")


def _start(provider: Provider, items: Sequence[Item], call: TurnCall) -> tuple[Request, _Turn, dict[str, Any]]:
    """The request, the turn and ``send``'s options (``timeout`` and ``retries`` only when given: ``send``'s defaults else)."""
    _callback(call.on_text, "on_text")
    _callback(call.on_delta, "on_delta")
    request = provider.http_request(
        items, model=call.model, api_key=call.api_key, base_url=call.base_url, stream=call.stream, tools=call.tools,
        tool_choice=call.tool_choice, settings=call.settings, headers=call.headers, **call.native,
    )
    options: dict[str, Any] = {"cancel": call.cancel, "transport": call.transport}
    if call.timeout is not None:
        options["timeout"] = call.timeout
    if call.retries is not None:
        options["retries"] = call.retries
    return request, _Turn(provider.stream_decoder(), call.on_text, call.on_delta), options


def complete_turn(provider: Provider, items: Sequence[Item], call: TurnCall) -> Item:
    """One turn on ``items`` with ``provider``'s functions, as ``call`` asks (see the module's docstring)."""
    request, turn, options = _start(provider, items, call)
    stream = call.stream
    try:
        response = send(request, **options)
    except TurnCancelledError:
        return turn.close(FinishReason.CANCELLED)
    try:
        with response:
            if not stream:
                return _whole(turn, provider, response.json())
            for event in response.events():
                turn.feed(event)
    except TurnCancelledError:
        return turn.close(FinishReason.CANCELLED)
    except TransportError as exc:
        return turn.close(FinishReason.ERROR, str(exc))
    return turn.finish()


async def acomplete_turn(provider: Provider, items: Sequence[Item], call: TurnCall) -> Item:
    """:func:`complete_turn` for asyncio: sent with :func:`agentkit_core.http.asend`; the task's cancellation propagates."""
    request, turn, options = _start(provider, items, call)
    stream = call.stream
    try:
        response = await asend(request, **options)
    except TurnCancelledError:
        return turn.close(FinishReason.CANCELLED)
    try:
        async with response:
            if not stream:
                return _whole(turn, provider, await response.json())
            async for event in response.events():
                turn.feed(event)
    except TurnCancelledError:
        return turn.close(FinishReason.CANCELLED)
    except TransportError as exc:
        return turn.close(FinishReason.ERROR, str(exc))
    return turn.finish()
