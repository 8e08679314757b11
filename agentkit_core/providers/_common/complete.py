"""One whole turn, written once for every provider: what each module's ``complete``, ``acomplete``, ``stream``
and ``astream`` run.

Build the request (the provider's ``http_request``), send it
(:func:`agentkit_core.http.send` or ``asend``), read the answer's events
(:func:`answer_events`, the one place a body is read as events), feed each
to the provider's stream decoder, fold the deltas, hand ``on_delta`` every
delta and ``on_text`` every chunk of visible answer text, then finish the
item.  :class:`TurnStream` (and :class:`AsyncTurnStream`) is that loop, handing
out each delta as it arrives; ``complete`` runs it to its end
(:func:`complete_turn`), so a turn is decoded once, whichever way it is read.

A turn that does not finish is returned closed, never lost:

* the network cuts it (a :class:`~agentkit_core.http.TransportError` once the
  answer began), the stream ends without the provider's final event, or an
  event is not JSON or not the provider's (the decoder's ``feed`` raises
  :class:`~agentkit_core.NormalizeError`): the decoder closes it as
  ``ERROR``, everything that arrived before kept, and ``agentkit.stream_cut``
  gets ``"error"``, saying why (naming the event);
* ``cancel`` is interrupted, or the caller leaves a stream before its end: the
  read ends at once and the decoder closes the turn as ``CANCELLED`` (a call
  whose arguments were cut off dropped, as ``close`` drops it).

The server decides what it answers with, whatever was asked: a JSON answer (a
server that ignored ``"stream": true``, or a request that did not stream) is
the whole answer, decoded by ``items_from_response`` and handed out as if
streamed (a ``CommitPart`` for each part); when streaming was asked for, the
item says so under ``agentkit.not_streamed``.  Any other type (an HTML page
from a captive portal) raises :class:`~agentkit_core.http.ProviderError`
naming it.  A provider's error answer (an error status, after the retries)
raises ``ProviderError`` too; a request that never got an answer (no
connection, after the retries) raises ``TransportError``: nothing arrived,
so nothing is lost.  In the asyncio forms, cancelling the task aborts the
read and the ``CancelledError`` propagates, as asyncio requires.
"""

from __future__ import annotations

import dataclasses
from os import environ
from typing import TYPE_CHECKING, Any, AsyncGenerator, AsyncIterator, Callable, Generator, Iterator, Mapping, NamedTuple, Sequence

from ... import (
    NOT_STREAMED_KEY,
    STREAM_CUT_KEY,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    JsonValue,
    NormalizeError,
    Part,
    PartKind,
    TextPart,
    TurnCancelledError,
    fold,
)
from ...http import AsyncResponse, ProviderError, Request, Response, TransportError, asend, send
from .endpoints import resolved
from .streams import _SEGMENT  # deltas folded before the fold may start afresh, as fold_events does (why: its docstring)
from .vertex import vertex_signer

if TYPE_CHECKING:
    from typing import Protocol

    from ... import CancellationController, CancellationHandle, ModelSettings, StreamDecoder, TurnCancellation
    from ..._for_providers import Endpoint
    from ...http import Transport
    from .tools import Choice, Tools

    class TurnDecoder(StreamDecoder[Any], Protocol):
        """What the driver needs of a provider's stream decoder: :class:`~agentkit_core.projection.StreamDecoder`
        and ``close``, which closes a turn cut short (every provider's decoder has it)."""

        def close(self, parts: Sequence[Part], reason: FinishReason, /) -> Item:
            """The turn's item, closed with ``reason``: what arrived kept, a call cut off dropped."""


__all__ = ("Provider", "TurnCall", "TurnStream", "AsyncTurnStream", "complete_turn", "acomplete_turn", "answer_events",
           "aanswer_events", "ENDED_EARLY")

#: What ``agentkit.stream_cut`` says of a stream that ended without its final event.
ENDED_EARLY = "the stream ended before the provider's final event"


class Provider(NamedTuple):
    """What a turn needs of a provider module: its ``http_request``, ``stream_decoder`` and ``items_from_response``,
    and the registry row of the name it is called by (the wire's own, or a preset's), whose key and base-URL
    variables the turn reads when the call gives none (:func:`.endpoints.resolved`)."""

    http_request: Callable[..., Request]
    stream_decoder: Callable[[], TurnDecoder]
    items_from_response: Callable[[Any], list[Item]]
    endpoint: Endpoint


class TurnCall(NamedTuple):
    """The arguments of one call of a provider's ``complete`` (or ``acomplete``, ``stream``, ``astream``), as given.

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


# -- reading an answer as events: the one place (a stream format other than server-sent events plugs in here) ----


def answer_events(response: Response) -> Iterator[Any]:
    """The events of a streamed answer, as they arrive: its server-sent events' JSON objects.

    ``Response.events()`` refuses an answer of another type (``ProviderError``
    naming it); the driver reads a JSON answer whole before it gets here.
    """
    return response.events()


def aanswer_events(response: AsyncResponse) -> AsyncIterator[Any]:
    """:func:`answer_events` of an :class:`~agentkit_core.http.AsyncResponse`."""
    return response.events()


def _is_json(media: str) -> bool:
    return media == "application/json" or media.endswith("+json")


# -- the turn ------------------------------------------------------------------------------------------------------


class _Turn:
    """The decoder and the fold of one turn, the callbacks, and the text shown so far of each text part."""

    __slots__ = ("decoder", "state", "done", "count", "shown", "on_text", "on_delta", "events", "cut", "texts")

    def __init__(self, decoder: TurnDecoder, on_text: Callable[[str], object] | None, on_delta: Callable[[Delta], object] | None,
                 texts: bool) -> None:
        self.decoder = decoder
        self.state = FoldState()
        self.done: list[Part] = []  # parts of segments folded before the current state
        self.count = 0  # deltas folded into the current state
        self.shown: dict[str, list[str]] = {}  # open text part id -> the chunks handed out
        self.on_text = on_text
        self.on_delta = on_delta
        self.events = 0  # events decoded
        self.cut = ""  # why the stream was cut, when an event was not the provider's
        self.texts = texts or on_text is not None  # whether the visible text is followed (complete() without on_text: not)

    def decode(self, event: Any) -> Sequence[Delta] | None:
        """The deltas of ``event``; ``None`` when it is not the provider's (the turn is then cut, :attr:`cut` says why)."""
        self.events += 1
        try:
            return self.decoder.feed(event)
        except NormalizeError as exc:
            self.cut = f"event {self.events} is not the provider's: {exc}"
            return None

    def take(self, delta: Delta) -> str:
        """Fold ``delta`` after ``on_delta`` saw it; the visible text it adds (handed to ``on_text``), or ``""``."""
        if self.on_delta is not None:
            self.on_delta(delta)
        self.state = fold(self.state, delta)
        chunk = self.text_of(delta) if self.texts else ""
        if chunk and self.on_text is not None:
            self.on_text(chunk)
        return chunk

    def show(self, delta: Delta) -> str:
        """:meth:`take` without the fold: a delta of an answer that came whole."""
        if self.on_delta is not None:
            self.on_delta(delta)
        chunk = self.text_of(delta) if self.texts else ""
        if chunk and self.on_text is not None:
            self.on_text(chunk)
        return chunk

    def folded(self, n: int) -> None:
        """``n`` more deltas folded (one event's): a fold with nothing open may start afresh."""
        self.count += n
        if self.count >= _SEGMENT and not self.state.is_open:
            self.done += self.state.parts
            self.state, self.count = FoldState(), 0

    def text_of(self, delta: Delta) -> str:
        """The visible answer text ``delta`` adds (not reasoning), ``""`` if none."""
        if type(delta) is AppendText:
            shown = self.shown.get(delta.part_id.value)
            if shown is not None and delta.chunk:
                shown.append(delta.chunk)
                return delta.chunk
        elif type(delta) is BeginPart:
            if delta.kind is PartKind.TEXT:
                self.shown[delta.part_id.value] = []
        elif type(delta) is CommitPart and type(delta.part) is TextPart:
            # A part committed whole (never begun), or committed with more text than its chunks gave.
            chunks = self.shown.pop(delta.part_id.value, None) if delta.part_id is not None else None
            seen = "".join(chunks) if chunks else ""
            text = delta.part.text
            if text.startswith(seen) and len(text) > len(seen):
                return text[len(seen):]
        return ""

    def arrived(self) -> bool:
        """Whether any content arrived (a part begun or folded)."""
        return bool(self.done or self.state.parts or self.state.is_open)

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


def _callback(fn: object, name: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{name}: expected a callable or None, found {type(fn).__name__}")


def _start(provider: Provider, items: Sequence[Item], call: TurnCall, texts: bool,
           asynchronous: bool = False) -> tuple[Request, _Turn, dict[str, Any]]:
    """The request, the turn and ``send``'s options (``timeout`` and ``retries`` only when given: ``send``'s defaults else)."""
    _callback(call.on_text, "on_text")
    _callback(call.on_delta, "on_delta")
    native = dict(call.native)
    api_key, base_url, headers, settings = resolved(provider.endpoint, call.model, call.api_key, call.base_url,
                                                    call.headers, call.settings, native, environ)
    request = provider.http_request(
        items, model=call.model, api_key=api_key, base_url=base_url, stream=call.stream, tools=call.tools,
        tool_choice=call.tool_choice, settings=settings, headers=headers, **native,
    )
    row = provider.endpoint
    signer = vertex_signer(row.name, row.auth, api_key, environ, call.transport, call.cancel, asynchronous)
    if signer is not None:  # a credential found as Application Default Credentials do: a fresh token each attempt
        request = dataclasses.replace(request, auth=signer)
    options: dict[str, Any] = {"cancel": call.cancel, "transport": call.transport}
    if call.timeout is not None:
        options["timeout"] = call.timeout
    if call.retries is not None:
        options["retries"] = call.retries
    return request, _Turn(provider.stream_decoder(), call.on_text, call.on_delta, texts), options


class _Stream:
    """What :class:`TurnStream` and :class:`AsyncTurnStream` share: the turn, the request, the answer."""

    __slots__ = ("_provider", "_turn", "_request", "_options", "_streamed", "_answer", "_whole", "_chunk", "_response")
    _ASYNC = False  # whether it is sent with asend (a credential's token then fetched on the loop)

    def __init__(self, provider: Provider, items: Sequence[Item], call: TurnCall, *, texts: bool = True) -> None:
        self._provider = provider
        self._request, self._turn, self._options = _start(provider, items, call, texts, self._ASYNC)
        self._streamed = call.stream  # whether streaming was asked for
        self._answer: Item | None = None
        self._whole: Item | None = None  # an answer that came whole, while its deltas are handed out
        self._chunk = ""  # the visible text of the delta last handed out
        self._response: Response | AsyncResponse | None = None  # once sent

    @property
    def answer(self) -> Item:
        """The answer's item, once the stream ended or was left (``close()``, leaving the ``with`` block or a loop).

        Before that, ``RuntimeError``: read the stream to its end (``until_done()``) or leave it first.
        """
        if self._answer is None:
            raise RuntimeError("the stream has not ended: read it to its end (until_done()) or leave it (close()) "
                               "before asking for its answer")
        return self._answer

    @property
    def ended(self) -> bool:
        """Whether the stream ended or was left: :attr:`answer` is then known."""
        return self._answer is not None

    def _end(self, item: Item) -> None:
        if self._answer is None:
            self._answer = item

    def _left(self) -> None:
        """The caller left before the end: the answer is what arrived, closed as ``CANCELLED``."""
        self._end(self._whole if self._whole is not None else self._turn.close(FinishReason.CANCELLED))

    def _media(self, media: str) -> bool:
        """Whether an answer of type ``media`` is read whole: JSON, or no type said when streaming was not asked for."""
        return _is_json(media) or (not media and not self._streamed)

    def _replay(self, body: Any, media: str) -> Iterator[Delta]:
        """The deltas of an answer that came whole (a ``CommitPart`` a part), the answer kept to end with."""
        item = self._provider.items_from_response(body)[0]
        if self._streamed:
            item = item.with_metadata({**item.metadata, NOT_STREAMED_KEY: media})
        self._whole = item
        for part in item.parts:
            delta = CommitPart(part)
            self._chunk = self._turn.show(delta)
            yield delta
        self._end(item)


class TurnStream(_Stream):
    """One turn read as it arrives: what a provider's ``stream()`` returns.

    ::

        with anthropic.stream(items, model=..., settings=...) as s:
            for chunk in s.text():
                print(chunk, end="")
        answer = s.answer

    Iterating gives each :class:`~agentkit_core.Delta` as it is decoded
    (``on_delta`` and ``on_text`` are called before it is handed out);
    :meth:`text` gives the visible answer text instead, chunk by chunk.  The
    request is sent when the reading starts.  A stream is read once: leaving a
    loop over it early (``break``, an exception), :meth:`close` or leaving the
    ``with`` block closes the connection at once and makes :attr:`answer` the
    turn closed as ``CANCELLED``, with what arrived; a loop started after the
    end gives nothing.  :meth:`until_done` reads the rest and returns the
    answer.  One thread reads a stream; to stop it from another, interrupt
    ``cancel`` (the answer is then ``CANCELLED`` too).
    """

    __slots__ = ("_reader",)

    def __init__(self, provider: Provider, items: Sequence[Item], call: TurnCall, *, texts: bool = True) -> None:
        super().__init__(provider, items, call, texts=texts)
        self._reader: Generator[Delta, None, None] | None = None

    def __enter__(self) -> TurnStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Delta]:
        """The deltas as they arrive; leaving the loop early leaves the stream."""
        reader = self._open()
        done = False
        try:
            yield from reader
            done = True
        finally:
            if not done:
                self.close()

    def text(self) -> Iterator[str]:
        """The visible answer text (no reasoning), chunk by chunk as it arrives; leaving the loop early leaves the stream."""
        reader = self._open()
        done = False
        try:
            for _ in reader:
                if self._chunk:
                    yield self._chunk
            done = True
        finally:
            if not done:
                self.close()

    def until_done(self) -> Item:
        """Read the rest of the stream (the callbacks see every delta) and return :attr:`answer`."""
        for _ in self._open():
            pass
        return self.answer

    def close(self) -> None:
        """Leave the stream: the connection is closed at once; :attr:`answer` is what arrived, closed as
        ``CANCELLED`` (or the whole answer, if it had ended).  Closing again does nothing."""
        reader, self._reader = self._reader, _nothing()
        if self._response is not None:
            self._response.close()  # never blocks
        if reader is not None and not getattr(reader, "gi_running"):  # noqa: B009 - typeshed lacks it; running: close() called by a callback
            reader.close()
        self._left()

    def _open(self) -> Generator[Delta, None, None]:
        if self._reader is None:
            self._reader = self._read()
        return self._reader

    def _read(self) -> Generator[Delta, None, None]:
        """The one reading loop: send, then each event's deltas as they are decoded; the answer set at the end."""
        turn = self._turn
        try:
            response = send(self._request, **self._options)
        except TurnCancelledError:
            self._end(turn.close(FinishReason.CANCELLED))
            return
        self._response = response
        try:
            with response:
                media = response.media_type
                if self._media(media):
                    yield from self._replay(response.json(), media)
                    return
                events = answer_events(response)
                while True:
                    try:
                        event = next(events)
                    except StopIteration:
                        break
                    except NormalizeError as exc:  # the body is no event stream past this point
                        turn.cut = str(exc)
                        break
                    except ProviderError as exc:  # an error event (AWS's event stream has them)
                        if not turn.arrived():
                            raise  # no content arrived: the error is the answer
                        turn.cut = str(exc)
                        break
                    deltas = turn.decode(event)
                    if deltas is None:
                        break
                    for delta in deltas:
                        self._chunk = turn.take(delta)
                        yield delta
                    turn.folded(len(deltas))
        except TurnCancelledError:
            self._end(turn.close(FinishReason.CANCELLED))
        except TransportError as exc:
            self._end(turn.close(FinishReason.ERROR, str(exc)))
        else:
            self._end(turn.close(FinishReason.ERROR, turn.cut) if turn.cut else turn.finish())


class AsyncTurnStream(_Stream):
    """:class:`TurnStream` for asyncio: what a provider's ``astream()`` returns.

    ::

        async with anthropic.astream(items, model=..., settings=...) as s:
            async for chunk in s.text():
                ...
        answer = s.answer

    ``async for`` gives the deltas (``text()`` the visible text) as they
    arrive, sent with :func:`agentkit_core.http.asend`; :meth:`aclose` (or
    leaving the ``async with`` block) closes the connection at once and makes
    :attr:`answer` the turn closed as ``CANCELLED``, with what arrived.  It may
    be the body of an async generator that a web framework closes early.
    Cancelling the task that reads it aborts the read and the
    ``CancelledError`` propagates; the connection is closed and the answer is
    ``CANCELLED``.  One task reads a stream.
    """

    __slots__ = ("_reader",)

    _ASYNC = True

    def __init__(self, provider: Provider, items: Sequence[Item], call: TurnCall, *, texts: bool = True) -> None:
        super().__init__(provider, items, call, texts=texts)
        self._reader: AsyncGenerator[Delta, None] | None = None

    async def __aenter__(self) -> AsyncTurnStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def __aiter__(self) -> AsyncIterator[Delta]:
        """The deltas as they arrive; leaving the loop early leaves the stream."""
        reader = self._open()
        done = False
        try:
            async for delta in reader:
                yield delta
            done = True
        finally:
            if not done:
                await self.aclose()

    async def text(self) -> AsyncIterator[str]:
        """The visible answer text, chunk by chunk as it arrives; leaving the loop early leaves the stream."""
        reader = self._open()
        done = False
        try:
            async for _ in reader:
                if self._chunk:
                    yield self._chunk
            done = True
        finally:
            if not done:
                await self.aclose()

    async def until_done(self) -> Item:
        """Read the rest of the stream (the callbacks see every delta) and return :attr:`answer`."""
        async for _ in self._open():
            pass
        return self.answer

    async def aclose(self) -> None:
        """Leave the stream: the connection is closed at once; :attr:`answer` is what arrived, closed as
        ``CANCELLED`` (or the whole answer, if it had ended).  Closing again does nothing."""
        reader, self._reader = self._reader, _ended()
        if self._response is not None:
            self._response.close()  # never blocks; a read pending in another task ends
        if reader is not None and not getattr(reader, "ag_running"):  # noqa: B009 - typeshed lacks it; running: a read pending in another task
            await reader.aclose()
        self._left()

    def _open(self) -> AsyncGenerator[Delta, None]:
        if self._reader is None:
            self._reader = self._read()
        return self._reader

    async def _read(self) -> AsyncGenerator[Delta, None]:
        """:meth:`TurnStream._read`, awaited."""
        turn = self._turn
        try:
            response = await asend(self._request, **self._options)
        except TurnCancelledError:
            self._end(turn.close(FinishReason.CANCELLED))
            return
        self._response = response
        try:
            async with response:
                media = response.media_type
                if self._media(media):
                    for delta in self._replay(await response.json(), media):
                        yield delta
                    return
                events = aanswer_events(response)
                while True:
                    try:
                        event = await events.__anext__()
                    except StopAsyncIteration:
                        break
                    except NormalizeError as exc:
                        turn.cut = str(exc)
                        break
                    except ProviderError as exc:  # an error event (AWS's event stream has them)
                        if not turn.arrived():
                            raise  # no content arrived: the error is the answer
                        turn.cut = str(exc)
                        break
                    deltas = turn.decode(event)
                    if deltas is None:
                        break
                    for delta in deltas:
                        self._chunk = turn.take(delta)
                        yield delta
                    turn.folded(len(deltas))
        except TurnCancelledError:
            self._end(turn.close(FinishReason.CANCELLED))
        except TransportError as exc:
            self._end(turn.close(FinishReason.ERROR, str(exc)))
        else:
            self._end(turn.close(FinishReason.ERROR, turn.cut) if turn.cut else turn.finish())


def _nothing() -> Generator[Delta, None, None]:
    """A reader with nothing left: what a stream reads once it ended or was left."""
    return
    yield  # a generator


async def _ended() -> AsyncGenerator[Delta, None]:
    """:func:`_nothing` for asyncio."""
    return
    yield  # an async generator


def complete_turn(provider: Provider, items: Sequence[Item], call: TurnCall) -> Item:
    """One turn on ``items`` with ``provider``'s functions, as ``call`` asks: :class:`TurnStream` read to its end."""
    with TurnStream(provider, items, call, texts=False) as turn:  # text() is never called: no text followed for it
        return turn.until_done()


async def acomplete_turn(provider: Provider, items: Sequence[Item], call: TurnCall) -> Item:
    """:func:`complete_turn` for asyncio: :class:`AsyncTurnStream` read to its end; the task's cancellation propagates."""
    async with AsyncTurnStream(provider, items, call, texts=False) as turn:
        return await turn.until_done()


TurnStream.__module__ = AsyncTurnStream.__module__ = __name__.rpartition("._common")[0]  # public as agentkit_core.providers's
