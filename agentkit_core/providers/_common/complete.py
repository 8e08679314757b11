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

import sys
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Mapping, NamedTuple, Sequence

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
    from typing import ParamSpec

    from ... import CancellationController, CancellationHandle, ModelSettings, TurnCancellation
    from ...http import Transport
    from .tools import Choice, Tools

    P = ParamSpec("P")

__all__ = ("Provider", "complete_turn", "acomplete_turn", "turn_functions", "ENDED_EARLY")

#: What ``agentkit.stream_cut`` says of a stream that ended without its final event.
ENDED_EARLY = "the stream ended before the provider's final event"


class Provider(NamedTuple):
    """What a turn needs of a provider module."""

    http_request: Callable[..., Request]
    stream_decoder: Callable[[], Any]
    items_from_response: Callable[[Any], list[Item]]


class _Turn:
    """The decoder and the fold of one turn, and the text shown so far of each text part."""

    __slots__ = ("decoder", "state", "done", "count", "shown", "on_text", "on_delta")

    def __init__(self, decoder: Any, on_text: Callable[[str], object] | None, on_delta: Callable[[Delta], object] | None) -> None:
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


def _start(provider: Provider, items: Sequence[Item], request_args: Mapping[str, Any],
           send_args: Mapping[str, Any]) -> tuple[Request, _Turn, dict[str, Any]]:
    """The request, the turn and ``send``'s options (``timeout`` and ``retries`` only when given: ``send``'s defaults else)."""
    on_text, on_delta = send_args.get("on_text"), send_args.get("on_delta")
    _callback(on_text, "on_text")
    _callback(on_delta, "on_delta")
    request = provider.http_request(items, **request_args)
    options = {"cancel": send_args.get("cancel"), "transport": send_args.get("transport")}
    options.update((k, send_args[k]) for k in ("timeout", "retries") if send_args.get(k) is not None)
    return request, _Turn(provider.stream_decoder(), on_text, on_delta), options


def complete_turn(provider: Provider, items: Sequence[Item], request_args: Mapping[str, Any], send_args: Mapping[str, Any]) -> Item:
    """One turn on ``items`` (see the module's docstring): ``request_args`` go to ``http_request``, ``send_args``
    (``on_text``, ``on_delta``, ``cancel``, ``transport``, ``timeout``, ``retries``; each may be absent) to the turn and ``send``."""
    request, turn, options = _start(provider, items, request_args, send_args)
    stream = bool(request_args.get("stream"))
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


async def acomplete_turn(provider: Provider, items: Sequence[Item], request_args: Mapping[str, Any],
                         send_args: Mapping[str, Any]) -> Item:
    """:func:`complete_turn` for asyncio: sent with :func:`agentkit_core.http.asend`; the task's cancellation propagates."""
    request, turn, options = _start(provider, items, request_args, send_args)
    stream = bool(request_args.get("stream"))
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


# -- each provider's complete and acomplete, made here from one signature -----------------------


def turn_parameters(
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
    """One turn of {api} on ``items``: the answer's ASSISTANT item.

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
    raise NotImplementedError("the parameters of every provider's complete, written once; call a provider's complete")


_ACOMPLETE_DOC = """:func:`complete` for asyncio, the same parameters, sent with :func:`agentkit_core.http.asend`.

    Cancelling the task aborts the read at once and raises ``CancelledError``
    (asyncio's rule); an interrupt of ``cancel`` returns the turn closed as
    ``CANCELLED``, as :func:`complete` does.  With an asynchronous transport
    nothing runs in a thread.
    """

#: The parameters that go to the send and the turn, not to ``http_request``.
_SEND_PARAMETERS = ("on_text", "on_delta", "cancel", "transport", "timeout", "retries")


def _arguments(name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """``(items, the http_request arguments, the send's)`` of a call, refused as Python refuses a call of the signature."""
    if len(args) + ("items" in kwargs) != 1:
        said = "got multiple values for argument 'items'" if args else "missing 1 required positional argument: 'items'"
        raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were given" if len(args) > 1 else f"{name}() {said}")
    if "model" not in kwargs:
        raise TypeError(f"{name}() missing 1 required keyword-only argument: 'model'")
    request = dict(kwargs)
    items = args[0] if args else request.pop("items")
    send_args = {key: request.pop(key, None) for key in _SEND_PARAMETERS}
    request.setdefault("stream", True)
    return items, request, send_args


def turn_functions(
    shape: Callable[P, Item], package: str, api: str
) -> tuple[Callable[P, Item], Callable[P, Coroutine[Any, Any, Item]]]:
    """The provider ``package``'s ``complete`` and ``acomplete``, with ``shape``'s signature (``help()``, ``inspect``, mypy).

    ``shape`` is :func:`turn_parameters`; ``api`` names the API in the docstring.  The package's
    ``http_request``, ``stream_decoder`` and ``items_from_response`` are looked up when a turn
    runs (the package imports the module that calls this, so it is loaded by then).
    """

    def provider() -> Provider:
        module = sys.modules[package]
        return Provider(module.http_request, module.stream_decoder, module.items_from_response)

    def complete(*args: P.args, **kwargs: P.kwargs) -> Item:
        items, request_args, send_args = _arguments("complete", args, kwargs)
        return complete_turn(provider(), items, request_args, send_args)

    async def acomplete(*args: P.args, **kwargs: P.kwargs) -> Item:
        items, request_args, send_args = _arguments("acomplete", args, kwargs)
        return await acomplete_turn(provider(), items, request_args, send_args)

    for function, doc in ((complete, shape.__doc__ and shape.__doc__.replace("{api}", api)), (acomplete, _ACOMPLETE_DOC)):
        function.__module__, function.__doc__ = package, doc if shape.__doc__ else None
        function.__qualname__ = function.__name__
        function.__annotations__ = dict(shape.__annotations__)
        setattr(function, "__wrapped__", shape)  # inspect.signature() and help() show shape's parameters
    return complete, acomplete
