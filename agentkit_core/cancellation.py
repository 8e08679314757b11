"""Cancelling a running turn: generation checkpoints that wake waiters at once.

The model is the reference's.  A :class:`CancellationController` owns a
generation counter that starts at 0; :meth:`~CancellationController.interrupt`
moves it on and returns the new value.  A :class:`TurnCancellation`
checkpoint records the generation when it is taken and reports itself
cancelled once the generation has moved past that.  An interrupt therefore
cancels every outstanding checkpoint and none taken after it: the agent loop
takes a checkpoint at the start of each turn, so an interrupt while idle does
not cancel the next turn.  ``TurnCancellation()`` without a handle is a
checkpoint nothing can cancel, for code paths with no controller.

Beyond the reference, a checkpoint can be waited on without polling
(:meth:`~TurnCancellation.wait`, ``await`` :meth:`~TurnCancellation.cancelled`),
can run callbacks when cancelled (:meth:`~TurnCancellation.add_callback`, or
for the length of a ``with`` block :meth:`~TurnCancellation.on_cancel`), and
has a one-call check for tools (:meth:`~TurnCancellation.raise_if_cancelled`).

Design: why not ``threading.Event``
-----------------------------------
``interrupt()`` must be callable from a signal handler.  CPython runs Python
signal handlers in the main thread, between two bytecodes of whatever that
thread was doing.  ``Event.set()`` takes the Condition's non-reentrant lock,
which the main thread itself holds for a few steps inside ``Event.wait()`` and
``Event.set()``; a handler landing there waits forever for a lock its own
thread will never release.  So this module is built from the primitives
``Event`` is built from, arranged so that no step of ``interrupt()`` can wait
for the thread it runs on:

* The generation is published, negated, in a short sorted list whose first
  item is minus the current generation.  ``interrupt()`` takes a fresh ticket
  from an ``itertools.count``, inserts its negation with ``bisect.insort`` and
  deletes the last item (the oldest generation).  Each of those is one C
  call, which a signal handler cannot split; a handler that lands between two
  of them completes a whole interrupt of its own, and the list stays sorted,
  so the first item always stands for the largest ticket published and the
  generation never goes back.  Readers (``is_cancelled()``, checkpoints) read
  ``list[0]`` and take no lock (negated because ``[0]`` is the index the
  interpreter reads fastest).
* Writers from different threads are serialised by a ``_thread.RLock`` around
  those three calls.  It is re-entrant, so a handler nested in the main
  thread's own ``interrupt()`` enters instead of deadlocking; a handler that
  meets another thread's hold waits only for those three C calls.
* Waiting is Condition's own trick: a blocking waiter acquires a private
  ``_thread.allocate_lock()`` and sleeps acquiring it again; the interrupt
  releases it, which never blocks.  Lock acquisition is interruptible, so a
  handler can run (and interrupt) while the main thread sleeps in ``wait()``.
  An asyncio waiter is woken with ``loop.call_soon_threadsafe``, which takes
  no lock (it appends to a deque and writes a byte to a non-blocking socket).
* Waiters and callbacks sit in one dict keyed by ``(checkpoint, callable)``.
  A registration is inserted first and the generation checked after, while an
  interrupt publishes first and scans after, so one of the two always sees
  the other; whoever pops the entry runs the callable, so it runs once.
  Entries leave the dict when they run or are removed, so nothing grows with
  the number of checkpoints or interrupts.

On the default (GIL) build every claim above follows from single C calls being
atomic.  On the free-threaded build (3.13t) that no longer holds by itself,
which is why writers take the RLock: tickets stay unique and published in
order, and the published list and the registry are only ever changed through
``list``/``dict`` operations, which that build makes safe against the lock-free
readers.  Signal handlers still run only in the main thread between bytecodes,
so the signal argument is unchanged.  This was reasoned from the build's
documented guarantees, not tested here: no free-threaded interpreter was at
hand.

Callbacks (including the ones that wake waiters) run in the thread that
called ``interrupt()`` -- inside the signal handler when the interrupt came
from one -- so they must be short and must not block.  A callback that raises
is logged on the package's logger and does not stop the others.
"""

from __future__ import annotations

import _thread
import itertools
from bisect import insort

from .error import TurnCancelledError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    import asyncio
    from contextlib import AbstractContextManager
    from typing import Callable

    _Callback = Callable[[], object]

__all__ = ("CancellationController", "CancellationHandle", "TurnCancellation", "TurnCancelledError")

_LOGGER_NAME = __name__.rpartition(".")[0] or __name__


class _State:
    """The generation and the registry one controller shares with its handles."""

    __slots__ = ("lock", "tickets", "published", "callbacks")

    def __init__(self) -> None:
        self.lock = _thread.RLock()
        self.tickets = itertools.count(1)
        # Sorted; -[0] is the generation.  Usually one item; a handler that
        # nests inside interrupt() makes it longer for a moment.
        self.published = [0]
        # (checkpoint, callable) -> the checkpoint's generation.
        self.callbacks: dict[tuple[TurnCancellation, _Callback], int] = {}

    def interrupt(self) -> int:
        published = self.published
        with self.lock:
            generation = next(self.tickets)
            insort(published, -generation)
            del published[-1]
        if self.callbacks:
            self.fire(generation)
        return generation

    def fire(self, generation: int) -> None:
        callbacks = self.callbacks
        due = [key for key, taken_at in callbacks.copy().items() if taken_at < generation]
        _run([key[1] for key in due if callbacks.pop(key, None) is not None])


def _run(functions: list[_Callback]) -> None:
    """Call each function; report what raises and carry on with the rest."""
    pending: BaseException | None = None
    for function in functions:
        try:
            function()
        except Exception:
            import logging

            logging.getLogger(_LOGGER_NAME).exception("cancellation callback %r raised", function)
        except BaseException as exc:  # KeyboardInterrupt, SystemExit: after the others
            pending = pending or exc
    if pending is not None:
        raise pending


class CancellationController:
    """The owner of a generation counter; :meth:`interrupt` cancels a turn.

    Safe to use from any thread and from a signal handler::

        signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt())
    """

    __slots__ = ("_state",)

    def __init__(self) -> None:
        self._state = _State()

    @property
    def generation(self) -> int:
        """The current generation: 0, plus one per interrupt."""
        return -self._state.published[0]

    def interrupt(self) -> int:
        """Cancel every outstanding checkpoint and return the new generation.

        Checkpoints taken afterwards are not cancelled.  Callbacks of the
        cancelled checkpoints, and the wake-ups of their waiters, run in the
        calling thread before this returns.  Never blocks on the calling
        thread itself, so it is safe in a signal handler.
        """
        return self._state.interrupt()

    def handle(self) -> CancellationHandle:
        """A handle sharing this controller's counter, to give to the code that checks it."""
        return CancellationHandle(self._state)

    def __repr__(self) -> str:
        return f"CancellationController(generation={self.generation})"


class CancellationHandle:
    """The checking side of a controller: takes checkpoints, cannot interrupt.

    Obtain one with :meth:`CancellationController.handle`.
    """

    __slots__ = ("_state",)

    def __init__(self, state: _State) -> None:
        self._state = state

    @property
    def generation(self) -> int:
        """The controller's current generation."""
        return -self._state.published[0]

    def checkpoint(self) -> TurnCancellation:
        """A checkpoint at the current generation; same as ``TurnCancellation(handle)``."""
        return TurnCancellation(self)

    def __repr__(self) -> str:
        return f"CancellationHandle(generation={self.generation})"


class TurnCancellation:
    """A checkpoint: cancelled once the controller is interrupted after it was taken.

    ``TurnCancellation(handle)`` records the handle's current generation.
    ``TurnCancellation()`` has a counter of its own that nothing can
    interrupt: it is never cancelled, its :meth:`wait` only times out and its
    :meth:`cancelled` never resolves.
    """

    __slots__ = ("_state", "_published", "_mark")

    def __init__(self, handle: CancellationHandle | None = None) -> None:
        if handle is None:
            state = _State()
        elif isinstance(handle, CancellationHandle):
            state = handle._state
        else:
            from ._error_text import wrong_type  # the error path only

            raise wrong_type("TurnCancellation", "a CancellationHandle", handle)
        self._state = state
        self._published = state.published
        self._mark = state.published[0]  # minus the generation taken at

    @property
    def generation(self) -> int:
        """The generation recorded when this checkpoint was taken."""
        return -self._mark

    def is_cancelled(self) -> bool:
        """Whether an interrupt happened after this checkpoint was taken."""
        return self._published[0] < self._mark

    def raise_if_cancelled(self) -> None:
        """Raise :class:`TurnCancelledError` if cancelled: the one-call check for tools."""
        if self._published[0] < self._mark:
            raise TurnCancelledError(-self._mark)

    def add_callback(self, fn: Callable[[], object]) -> None:
        """Call ``fn()`` once, when this checkpoint is cancelled.

        If it already is, ``fn`` runs now, in this thread.  Otherwise it runs
        in the thread that interrupts (possibly inside a signal handler), so
        it should be quick and must not block: closing a network stream is
        the intended use.  An exception it raises is logged, not propagated.
        Registering the same callable twice on one checkpoint registers it
        once.  Remove it with :meth:`remove_callback` when the work is done,
        or the controller keeps it (and this checkpoint) until the next
        interrupt; :meth:`on_cancel` does both around a ``with`` block.
        """
        if not callable(fn):
            from ._error_text import wrong_type  # the error path only

            raise wrong_type("cancellation callback", "a callable", fn)
        key = (self, fn)
        callbacks = self._state.callbacks
        callbacks[key] = -self._mark
        if self._published[0] < self._mark and callbacks.pop(key, None) is not None:
            _run([fn])

    def remove_callback(self, fn: Callable[[], object]) -> bool:
        """Unregister ``fn``; true if it was registered and had not run."""
        return self._state.callbacks.pop((self, fn), None) is not None

    def on_cancel(self, fn: Callable[[], object]) -> AbstractContextManager[TurnCancellation]:
        """Call ``fn()`` if this checkpoint is cancelled while a ``with`` block runs.

        ::

            with handle.checkpoint().on_cancel(stream.close) as turn:
                for event in stream:
                    ...

        Entering the block registers ``fn`` as :meth:`add_callback` does (so
        if the checkpoint is already cancelled, ``fn`` runs at once); leaving
        it, however it is left, removes ``fn`` as :meth:`remove_callback`
        does.  ``as`` binds this checkpoint.  The block itself is never
        interrupted: it sees the cancellation through ``fn``'s effect or
        by checking the checkpoint.
        """
        return _OnCancel(self, fn)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds passed; return :meth:`is_cancelled`.

        Wakes as soon as another thread, or a signal handler, interrupts.
        ``timeout=None`` waits without limit; zero or less does not block.
        """
        if self._published[0] < self._mark:
            return True
        if timeout is not None and timeout <= 0:
            return False
        lock = _thread.allocate_lock()
        lock.acquire()
        release = lock.release
        try:
            self.add_callback(release)
            if timeout is None:
                lock.acquire()
            else:
                lock.acquire(True, min(timeout, _thread.TIMEOUT_MAX))
        finally:
            self.remove_callback(release)
        return self._published[0] < self._mark

    async def cancelled(self) -> None:
        """Return once cancelled: at once if already, never for a checkpoint nothing can cancel.

        For asyncio code: an interrupt from any thread (or signal handler)
        wakes the awaiting task on its next loop iteration.  Cancelling the
        awaiting task unregisters it.
        """
        if self._published[0] < self._mark:
            return
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # the loop closed meanwhile: nobody is waiting
                pass

        try:
            self.add_callback(wake)
            await future
        finally:
            self.remove_callback(wake)

    def __repr__(self) -> str:
        return f"TurnCancellation(generation={-self._mark}, cancelled={self.is_cancelled()})"


class _OnCancel:
    """The context manager :meth:`TurnCancellation.on_cancel` returns."""

    __slots__ = ("_checkpoint", "_fn")

    def __init__(self, checkpoint: TurnCancellation, fn: _Callback) -> None:
        self._checkpoint = checkpoint
        self._fn = fn

    def __enter__(self) -> TurnCancellation:
        self._checkpoint.add_callback(self._fn)
        return self._checkpoint

    def __exit__(self, *exc_info: object) -> None:
        self._checkpoint.remove_callback(self._fn)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
