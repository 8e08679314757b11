"""The fold: a pure reducer from streaming deltas to parts.

``fold(state, delta)`` returns a new :class:`FoldState`; ``fold_all(state,
deltas)`` folds a whole stream in one pass with the same result;
``fold_iter(state, deltas)`` and ``afold_iter(state, async_deltas)`` yield the
state after each delta.  The rules, each one method of ``_fold_rules.Branch``:

* ``BeginPart`` opens a part of its kind at the next position.  Opening an id
  that is open is an error.
* ``AppendText`` extends an open part: a text part's text, a reasoning part's
  summary, a tool call's raw JSON argument text, the inline text data of a
  media, file or custom part.  ``AppendBytes`` extends the inline bytes of a
  media, file or custom part, or a reasoning part's ``data``.  A media, file or
  custom part holds text or bytes, not both.
* ``ReplaceStructured`` sets a structured part's value, a tool call's input
  (dropping argument text appended before it; appending after it is an
  error), or a custom part's value.
* ``SetMetadata`` merges keys into the open part's metadata; later keys win.
* ``CommitPart(part)`` is authoritative: ``part`` replaces whatever was
  accumulated.  With ``part_id`` it closes that open part (which must be of the
  same kind); without, the earliest open part of the same kind; with no open
  part of that kind, ``part`` is appended (buffered, non-streaming responses
  send exactly that).
* Parts keep the order they began in, not the order they were committed in.

Anything else (a delta for an id that is not open, a delta the part's kind
does not take, something that is not a delta) raises :class:`ProtocolError`
naming the delta, the part id and what the part was; the state passed in is
unchanged.

Purity and cost.  A state never changes once returned, and folding two deltas
onto one state gives two independent states.  Yet folding a stream step by
step costs O(1) per delta however many earlier states are kept alive.  A state
is a version number over a *branch* (``_fold_rules``), an append-only history
shared by a line of states: each part's chunks and changes in lists, every
item stamped with the version it arrived at (``_fold_log``), and a state sees the
items stamped with its version or earlier.  A fold onto the newest state of
its branch appends and returns the next version.  A fold onto any other state
(an older one, or one that another fold has already extended) first copies
what that state shows into a new branch, joining each open part's chunks: it
costs the size of the state, once.  ``fold_all`` takes one version for the
whole stream, and its loop appends text chunks with nothing else in the way.
Two threads may fold onto one state: each fold claims its version from an
atomic counter before it writes, so exactly one extends the branch and the
other copies.  A ``fold_all`` that raises leaves the branch to the states
already made, so the next fold onto one of them copies it.
:meth:`FoldState.snapshot` renders open parts from what has arrived, joining
only the chunks that arrived since the last snapshot, and reuses the parts
that did not change.

Placeholders in :meth:`~FoldState.snapshot` for what an open part has not
received yet: a tool call has id ``""``, name ``""`` and ``input`` ``None``
(or the last ``ReplaceStructured`` value), its argument text so far in
metadata under ``"agentkit.input_json"`` (not parsed while open); a media part
has modality ``BINARY`` and MIME type ``"application/octet-stream"``; a custom
part has kind ``""``; a tool result has call id ``""`` and empty text output;
absent data is empty inline bytes for media and files and ``None`` elsewhere;
absent values are ``None``.  The committed part carries the real values.

Header keys.  A stream can show an open part's header before it commits, by
``SetMetadata`` with string values under these keys: ``agentkit.tool_call_id``
and ``agentkit.tool_name`` (tool calls; the id for tool results too),
``agentkit.modality`` (a :class:`Modality` wire name, ``"Audio"``) and
``agentkit.mime_type`` (media and files), ``agentkit.file_name`` (files),
``agentkit.custom_kind`` (custom parts); the constants ``TOOL_CALL_ID_KEY``,
``TOOL_NAME_KEY``, ``MODALITY_KEY``, ``MIME_TYPE_KEY``, ``FILE_NAME_KEY`` and
``CUSTOM_KIND_KEY`` (in :mod:`.keys`, with the other well-known keys, and in
the package) name them.  ``snapshot()`` renders them as the
open part's fields and leaves them out of its metadata, except that an open tool
result keeps ``agentkit.tool_name``, which on a result is metadata of its own (the
tool it answers).  The committed part, being authoritative, is unaffected.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._fold_log import PartLog, View
from ._fold_rules import Branch, Lost
from .content import Part
from .delta import AppendText, Delta
from .error import ProtocolError
from .ids import PartId

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import AsyncIterable, AsyncIterator, Iterator, Sequence

__all__ = ("FoldState", "fold", "fold_all", "fold_iter", "afold_iter")


class FoldState:
    """What a stream of deltas has built so far.  Immutable; ``FoldState()`` is empty.

    ``parts`` holds the committed parts; ``snapshot()`` every part, open ones
    rendered from what has arrived; ``open_ids`` the ids of the open parts.
    """

    __slots__ = ("_branch", "_version", "_parts", "_snapshot")

    def __init__(self, parts: Iterable[Part] = ()) -> None:
        done = tuple(parts)
        for i, p in enumerate(done):
            if not isinstance(p, Part):
                raise ProtocolError(f"a fold state holds parts; item {i} is a {type(p).__name__}")
        self._branch = Branch(done)
        self._version = 0
        self._parts: tuple[Part, ...] | None = None
        self._snapshot: tuple[Part, ...] | None = None

    @property
    def parts(self) -> tuple[Part, ...]:
        """The committed parts, in the order they began."""
        parts = self._parts
        if parts is None:
            committed = tuple(head.part for _, (_, _, head) in self._view() if head.part is not None)
            parts = self._parts = self._branch.base + committed
        return parts

    def snapshot(self) -> tuple[Part, ...]:
        """Every part in order, open ones rendered from what has arrived so far (see the module docs)."""
        snap = self._snapshot
        if snap is None:
            snap = self._snapshot = self._branch.base + tuple(log.render(seen) for log, seen in self._view())
        return snap

    def finalize(self) -> tuple[Part, ...]:
        """Every part in order, open ones closed as they stand: argument text parsed.

        For a stream that ended without committing everything.  Malformed
        argument text becomes ``input=None`` with the text and the parse error
        in metadata (``agentkit.input_json``, ``agentkit.input_error``), and so
        does JSON the wire cannot carry (infinite numbers, lone surrogates,
        nesting past the depth limit); empty or absent argument text becomes
        ``{}``, unless ``ReplaceStructured`` set the input.
        """
        return self._branch.base + tuple(log.finalize(seen) for log, seen in self._view())

    @property
    def open_ids(self) -> tuple[PartId, ...]:
        """The ids of the open parts, in the order they began."""
        return tuple(log.part_id for log, (_, _, head) in self._view() if head.part is None)  # type: ignore[misc]  # open parts have ids

    @property
    def is_open(self) -> bool:
        """True while some part is open."""
        return any(head.part is None for _, (_, _, head) in self._view())

    def _view(self) -> list[tuple[PartLog, View]]:
        return self._branch.view(self._version)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FoldState):
            return NotImplemented
        return self.snapshot() == other.snapshot() and self.open_ids == other.open_ids

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        opened = ", ".join(repr(i.value) for i in self.open_ids)
        return f"<FoldState: {len(self.parts)} committed parts, open: [{opened}]>"


_new_state = object.__new__


def _state(branch: Branch, version: int) -> FoldState:
    state: FoldState = _new_state(FoldState)
    state._branch, state._version = branch, version
    state._parts = state._snapshot = None
    return state


def _as_state(state: FoldState | Sequence[Part]) -> FoldState:
    if isinstance(state, FoldState):
        return state
    if isinstance(state, (str, bytes)) or not isinstance(state, Iterable):
        raise ProtocolError(f"fold: state: expected a FoldState or a sequence of parts, found {type(state).__name__}")
    return FoldState(state)


def fold(state: FoldState | Sequence[Part], delta: Delta) -> FoldState:
    """Apply one delta: the next state.  ``state`` is a :class:`FoldState` or committed parts.

    Raises :class:`ProtocolError` when ``delta`` does not fit ``state``;
    ``state`` is never changed.
    """
    if type(state) is not FoldState:
        state = _as_state(state)
    branch, start = state._branch, state._version
    if branch.tip == start:  # the newest state of its branch: try to extend the branch
        version = start + 1
        if type(delta) is AppendText:  # the hot path: text for an open part that takes it
            pid = delta.part_id
            key = pid.value if type(pid) is PartId else None
            log = branch.open_parts.get(key) if type(key) is str else None
            chunk = delta.chunk
            if log is not None and log.takes_text and type(chunk) is str and next(branch.claims) == version:
                branch.tip = version  # Branch.claim, PartLog.add_text and _state, inlined
                log.text.append(chunk)
                log.text_at.append(version)
                new: FoldState = _new_state(FoldState)
                new._branch = branch
                new._version = version
                new._parts = None
                new._snapshot = None
                return new
        try:
            branch.apply(delta, version, True)
        except Lost:
            pass  # another fold extended the branch from this state first
        except ProtocolError:
            if branch.tip == start:
                raise  # nobody wrote while the rule looked: the delta does not fit
        else:
            return _state(branch, version)
    branch = branch.fork(start)
    branch.apply(delta, 1, True)
    return _state(branch, 1)


#: Stands for "no part id yet" in fold_all's loop (``None`` is a part id a bad delta can carry).
_NOTHING: object = object()


def fold_all(state: FoldState | Sequence[Part], deltas: Iterable[Delta]) -> FoldState:
    """Apply a stream of deltas in one pass; the same result as folding them one by one.

    On a :class:`ProtocolError` the message also gives the delta's index in
    ``deltas``, as ``delta #i``; ``state`` is never changed.
    """
    state = _as_state(state)
    stream = iter(deltas)
    branch, version = state._branch, state._version + 1
    try:  # the whole stream is one version of the branch
        if branch.tip != state._version:
            raise Lost
        branch.claim(version)
    except Lost:
        branch, version = branch.fork(state._version), 1
        branch.claim(version)
    open_logs, append_text = branch.open_parts, Branch.append_text
    last, append = _NOTHING, None  # the last AppendText's part id, whose part takes more text
    i = -1
    try:
        for i, delta in enumerate(stream):  # noqa: B007 - i is read after the loop, where it failed
            if type(delta) is AppendText:  # the hot path: chunks go straight onto their part's list
                chunk = delta.chunk
                if delta.part_id is last and type(chunk) is str:
                    append(chunk)  # type: ignore[misc]
                    continue
                pid = delta.part_id
                key = pid.value if type(pid) is PartId else None
                log = open_logs.get(key) if type(key) is str else None
                if log is not None and log.takes_text and type(chunk) is str:
                    log.text.append(chunk)
                else:
                    log = append_text(branch, delta, version, False)  # appends, or raises
                last, append = pid, log.text.append
                continue
            last = _NOTHING
            branch.apply(delta, version, False)
    except ProtocolError as exc:
        raise ProtocolError(f"delta #{i}: {exc}") from None
    for log in open_logs.values():  # stamp the chunks the hot path appended
        missing = len(log.text) - len(log.text_at)
        if missing:
            log.text_at.extend([version] * missing)
    return _state(branch, version)


def fold_iter(state: FoldState | Sequence[Part], deltas: Iterable[Delta]) -> Iterator[FoldState]:
    """Fold ``deltas`` one at a time, yielding the state after each: a reporter's loop.

    ``for state in fold_iter((), deltas): show(state.snapshot())``.  Raises
    what :func:`fold` raises, with the delta's index as :func:`fold_all`
    gives it (``delta #i: ...``); the states yielded before stay valid.
    """
    return _fold_iter(_as_state(state), iter(deltas))


def _fold_iter(state: FoldState, deltas: Iterator[Delta]) -> Iterator[FoldState]:
    for i, delta in enumerate(deltas):
        try:
            state = fold(state, delta)
        except ProtocolError as exc:
            raise ProtocolError(f"delta #{i}: {exc}") from None
        yield state


def afold_iter(state: FoldState | Sequence[Part], deltas: AsyncIterable[Delta]) -> AsyncIterator[FoldState]:
    """:func:`fold_iter` for an async iterable of deltas: an async generator of states.

    ``async for state in afold_iter((), stream): show(state.snapshot())``.
    """
    return _afold_iter(_as_state(state), aiter(deltas))


async def _afold_iter(state: FoldState, deltas: AsyncIterator[Delta]) -> AsyncIterator[FoldState]:
    i = 0
    async for delta in deltas:
        try:
            state = fold(state, delta)
        except ProtocolError as exc:
            raise ProtocolError(f"delta #{i}: {exc}") from None
        yield state
        i += 1


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
