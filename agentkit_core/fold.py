"""The fold: a pure reducer from streaming deltas to parts.

``fold(state, delta)`` returns a new :class:`FoldState`; ``fold_all(state,
deltas)`` folds a whole stream in one pass with the same result.  The rules,
all of them in :class:`_Builder` below:

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
step costs O(1) per delta however many earlier states are kept alive (times the
number of parts open at once, which real streams keep small): finished parts
and text chunks live in shared append-only logs, which a state views up to its
own length; a fold that is not at a log's tip copies that log first.
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
``CUSTOM_KIND_KEY`` of this module name them.  ``snapshot()`` renders them as the
open part's fields and leaves them out of its metadata.  The committed part,
being authoritative, is unaffected.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, Union

from ._open import UNSET, Log, OpenPart
from .keys import (
    CUSTOM_KIND_KEY,
    FILE_NAME_KEY,
    HEADER_KEYS,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    MIME_TYPE_KEY,
    MODALITY_KEY,
    TOOL_CALL_ID_KEY,
    TOOL_NAME_KEY,
)
from .content import Part, PartKind
from .delta import AppendBytes, AppendText, BeginPart, CommitPart, Delta, ReplaceStructured, SetMetadata
from .error import ProtocolError
from .ids import PartId

__all__ = (
    "FoldState",
    "fold",
    "fold_all",
    "INPUT_JSON_KEY",
    "INPUT_ERROR_KEY",
    "HEADER_KEYS",
    "TOOL_CALL_ID_KEY",
    "TOOL_NAME_KEY",
    "MODALITY_KEY",
    "MIME_TYPE_KEY",
    "FILE_NAME_KEY",
    "CUSTOM_KIND_KEY",
)

# What each delta may extend, by the kind of the open part.
_TEXT_TARGETS = {
    PartKind.TEXT: "text",
    PartKind.REASONING: "summary",
    PartKind.TOOL_CALL: "argument text",
    PartKind.MEDIA: "inline text data",
    PartKind.FILE: "inline text data",
    PartKind.CUSTOM: "inline text data",
}
_BYTES_TARGETS = {
    PartKind.MEDIA: "inline bytes",
    PartKind.FILE: "inline bytes",
    PartKind.REASONING: "data",
    PartKind.CUSTOM: "inline bytes",
}
_REPLACE_TARGETS = {
    PartKind.STRUCTURED: "value",
    PartKind.TOOL_CALL: "input",
    PartKind.CUSTOM: "value",
}
# Kinds whose text and bytes are the same field (data): they take one or the other.
_ONE_DATA = frozenset((PartKind.MEDIA, PartKind.FILE, PartKind.CUSTOM))


class _Accepts:
    """The tables above, looked up once per part when it opens (enum hashing is slow)."""

    __slots__ = ("text", "bytes", "value", "one_data", "tool_call")

    def __init__(self, kind: PartKind) -> None:
        self.text = kind in _TEXT_TARGETS
        self.bytes = kind in _BYTES_TARGETS
        self.value = kind in _REPLACE_TARGETS
        self.one_data = kind in _ONE_DATA
        self.tool_call = kind is PartKind.TOOL_CALL


_ACCEPTS = {kind: _Accepts(kind) for kind in PartKind}


_Slot = Union[Part, OpenPart]


class FoldState:
    """What a stream of deltas has built so far.  Immutable; ``FoldState()`` is empty.

    ``parts`` holds the committed parts; ``snapshot()`` every part, open ones
    rendered from what has arrived; ``open_ids`` the ids of the open parts.
    """

    __slots__ = ("_done", "_ndone", "_pending", "_open", "_parts", "_snapshot")

    def __init__(self, parts: Iterable[Part] = ()) -> None:
        done = list(parts)
        for i, p in enumerate(done):
            if not isinstance(p, Part):
                raise ProtocolError(f"a fold state holds parts; item {i} is a {type(p).__name__}")
        self._done = Log(done)
        self._ndone = len(done)
        self._pending: tuple[_Slot, ...] = ()
        self._open: dict[str, int] = {}
        self._parts: tuple[Part, ...] | None = None
        self._snapshot: tuple[Part, ...] | None = None

    @property
    def parts(self) -> tuple[Part, ...]:
        """The committed parts, in the order they began."""
        parts = self._parts
        if parts is None:
            done = tuple(self._done.items[: self._ndone])
            parts = done + tuple(s for s in self._pending if not isinstance(s, OpenPart))
            self._parts = parts
        return parts

    def snapshot(self) -> tuple[Part, ...]:
        """Every part in order, open ones rendered from what has arrived so far (see the module docs)."""
        snap = self._snapshot
        if snap is None:
            snap = self.parts if not self._open else self._render(lambda o: o.render())
            self._snapshot = snap
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
        return self._render(lambda o: o.finalize()) if self._open else self.parts

    def _render(self, render: Any) -> tuple[Part, ...]:
        done = tuple(self._done.items[: self._ndone])
        return done + tuple(render(s) if isinstance(s, OpenPart) else s for s in self._pending)

    @property
    def open_ids(self) -> tuple[PartId, ...]:
        """The ids of the open parts, in the order they began."""
        return tuple(s.part_id for s in self._pending if isinstance(s, OpenPart))

    @property
    def is_open(self) -> bool:
        """True while some part is open."""
        return bool(self._open)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FoldState):
            return NotImplemented
        return self.snapshot() == other.snapshot() and self.open_ids == other.open_ids

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        opened = ", ".join(repr(i.value) for i in self.open_ids)
        return f"<FoldState: {len(self.parts)} committed parts, open: [{opened}]>"


class _Builder:
    """Applies deltas to a private working copy of a state; :meth:`freeze` makes the next state."""

    __slots__ = ("done", "ndone", "pending", "base", "open", "open_shared")

    def __init__(self, state: FoldState) -> None:
        self.done = state._done
        self.ndone = state._ndone
        self.pending: list[_Slot] = list(state._pending)
        self.base = state._ndone  # absolute position of pending[0]
        self.open = state._open
        self.open_shared = True  # copy self.open before changing it

    def freeze(self) -> FoldState:
        state = FoldState.__new__(FoldState)
        state._done, state._ndone = self.done, self.ndone
        pending = tuple(self.pending)
        for slot in pending:
            if isinstance(slot, OpenPart) and slot.owner is self:
                slot.owner = None
        state._pending = pending
        state._open = self.open
        state._parts = state._snapshot = None
        self.open_shared = True
        return state

    def _writable_open(self) -> dict[str, int]:
        if self.open_shared:
            self.open = dict(self.open)
            self.open_shared = False
        return self.open

    def _open_list(self) -> str:
        return "open parts: " + (", ".join(repr(k) for k in self.open) or "none")

    def _target(self, delta: Any, verb: str) -> OpenPart:
        """The open part ``delta`` addresses, owned by this builder."""
        pid = delta.part_id
        key = pid.value if type(pid) is PartId and type(pid.value) is str else _key(pid, delta)
        pos = self.open.get(key)
        if pos is None:
            raise ProtocolError(f"{verb} to part {key!r}, which is not open ({self._open_list()})")
        slot: OpenPart = self.pending[pos - self.base]  # type: ignore[assignment]  # open ids map to open slots
        if slot.owner is not self:
            slot = slot.clone(self)
            self.pending[pos - self.base] = slot
        else:
            slot._part = None
        return slot

    # -- the transition rules ---------------------------------------------------------

    def apply(self, delta: Delta) -> None:
        rule = _RULES.get(type(delta))
        if rule is None:
            raise ProtocolError(f"fold takes Delta values, not {type(delta).__name__}")
        rule(self, delta)

    def begin(self, delta: BeginPart) -> None:
        key = _key(delta.part_id, delta)
        if key in self.open:
            slot = self.pending[self.open[key] - self.base]
            raise ProtocolError(f"BeginPart for part {key!r}, which is already {slot.describe()}")  # type: ignore[union-attr]
        kind = delta.kind
        if not isinstance(kind, PartKind):
            raise ProtocolError(f"BeginPart for part {key!r} has kind {kind!r}, not a PartKind")
        pid = delta.part_id if type(delta.part_id) is PartId else PartId(key)
        self._writable_open()[key] = self.base + len(self.pending)
        self.pending.append(OpenPart(pid, kind, _ACCEPTS[kind], self))

    def append_text(self, delta: AppendText) -> None:
        # The hottest rule: _target's common case is inlined (an owned open part, looked up by string id).
        pid = delta.part_id
        pos = self.open.get(pid.value) if type(pid) is PartId and type(pid.value) is str else None
        slot: OpenPart = self.pending[pos - self.base] if pos is not None else None  # type: ignore[assignment]
        if slot is None or slot.owner is not self:
            slot = self._target(delta, "AppendText")
        else:
            slot._part = None
        chunk = delta.chunk
        accepts = slot.accepts
        if not accepts.text or (accepts.one_data and slot.data is not None):
            raise ProtocolError(_refusal("AppendText", slot, "inline text"))
        if type(chunk) is not str:
            raise ProtocolError(_bad_chunk("AppendText", slot, chunk, "a str"))
        if accepts.tool_call and slot.value is not UNSET:
            raise ProtocolError(
                f"AppendText to part {slot.part_id.value!r} ({slot.describe()}), whose input was already "
                "replaced by ReplaceStructured"
            )
        text, n = slot.text, slot.ntext
        if text is None:
            slot.text = Log([chunk])
        else:  # Log.push, inlined on the hottest path: extend in place when at the log's tip
            items = text.items
            if len(items) == n:
                items.append(chunk)
                if items[n] is not chunk:  # another branch raced us to the tip
                    slot.text = Log(items[:n] + [chunk])
            else:
                slot.text = Log(items[:n] + [chunk])
        slot.ntext = n + 1

    def append_bytes(self, delta: AppendBytes) -> None:
        slot = self._target(delta, "AppendBytes")
        chunk = delta.chunk
        accepts = slot.accepts
        if not accepts.bytes or (accepts.one_data and slot.text is not None):
            raise ProtocolError(_refusal("AppendBytes", slot, "inline bytes"))
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise ProtocolError(_bad_chunk("AppendBytes", slot, chunk, "bytes"))
        chunk = bytes(chunk)
        data = slot.data
        if data is None:
            slot.data, slot.ndata = Log([chunk]), 1
        else:
            slot.data, slot.ndata = data.push(slot.ndata, chunk), slot.ndata + 1

    def replace_structured(self, delta: ReplaceStructured) -> None:
        slot = self._target(delta, "ReplaceStructured")
        if not slot.accepts.value:
            raise ProtocolError(_refusal("ReplaceStructured", slot, "a JSON value"))
        slot.value = delta.value
        if slot.accepts.tool_call:
            slot.text, slot.ntext = None, 0

    def set_metadata(self, delta: SetMetadata) -> None:
        slot = self._target(delta, "SetMetadata")
        slot.metadata = slot.metadata.merged(delta.metadata)

    def commit(self, delta: CommitPart) -> None:
        part = delta.part
        if not isinstance(part, Part):
            raise ProtocolError(f"CommitPart carries a {type(part).__name__}, not a Part")
        kind = part.part_kind
        if delta.part_id is not None:
            key = _key(delta.part_id, delta)
            pos = self.open.get(key)
            if pos is None:
                raise ProtocolError(f"CommitPart for part {key!r}, which is not open ({self._open_list()})")
            slot = self.pending[pos - self.base]
            assert isinstance(slot, OpenPart)
            if slot.kind is not kind:
                raise ProtocolError(f"CommitPart of a {kind.value} part for part {key!r}, which is {slot.describe()}")
        else:
            for i, slot in enumerate(self.pending):
                if isinstance(slot, OpenPart) and slot.kind is kind:
                    key, pos = slot.part_id.value, self.base + i
                    break
            else:
                self.pending.append(part)
                self._settle()
                return
        del self._writable_open()[key]
        self.pending[pos - self.base] = part
        self._settle()

    def _settle(self) -> None:
        """Move committed parts at the front of ``pending`` into the finished log."""
        pending = self.pending
        n = 0
        while n < len(pending) and not isinstance(pending[n], OpenPart):
            self.done = self.done.push(self.ndone, pending[n])
            self.ndone += 1
            n += 1
        if n:
            del pending[:n]
            self.base += n


#: Delta type -> the rule that applies it.
_RULES: dict[type, Any] = {
    AppendText: _Builder.append_text,
    AppendBytes: _Builder.append_bytes,
    BeginPart: _Builder.begin,
    CommitPart: _Builder.commit,
    SetMetadata: _Builder.set_metadata,
    ReplaceStructured: _Builder.replace_structured,
}


def _key(pid: object, delta: object) -> str:
    value = pid.value if isinstance(pid, PartId) else pid
    if isinstance(value, str):
        return str(value)
    raise ProtocolError(f"{type(delta).__name__} has part_id {pid!r}, not a PartId of a string")


def _bad_chunk(verb: str, slot: OpenPart, chunk: object, expected: str) -> str:
    return f"{verb} to part {slot.part_id.value!r} ({slot.describe()}) carries a chunk of type {type(chunk).__name__}, not {expected}"


def _refusal(verb: str, slot: OpenPart, what: str) -> str:
    key = slot.part_id.value
    if slot.kind in _ONE_DATA and (slot.text is not None or slot.data is not None):
        held = "inline text" if slot.text is not None else "inline bytes"
        return f"{verb} to part {key!r} ({slot.describe()}), which already holds {held}: it cannot also take {what}"
    return f"{verb} to part {key!r} ({slot.describe()}): a {slot.kind.value} part takes no {what}"


def _as_state(state: FoldState | Sequence[Part]) -> FoldState:
    if isinstance(state, FoldState):
        return state
    if isinstance(state, (str, bytes)) or not isinstance(state, Iterable):
        raise ProtocolError(f"fold takes a FoldState or a sequence of parts, not {type(state).__name__}")
    return FoldState(state)


def fold(state: FoldState | Sequence[Part], delta: Delta) -> FoldState:
    """Apply one delta: the next state.  ``state`` is a :class:`FoldState` or committed parts.

    Raises :class:`ProtocolError` when ``delta`` does not fit ``state``;
    ``state`` is never changed.
    """
    builder = _Builder(_as_state(state))
    builder.apply(delta)
    return builder.freeze()


def fold_all(state: FoldState | Sequence[Part], deltas: Iterable[Delta]) -> FoldState:
    """Apply a stream of deltas in one pass; the same result as folding them one by one.

    On a :class:`ProtocolError` the message also gives the delta's index in
    ``deltas``, as ``delta #i``; ``state`` is never changed.
    """
    builder = _Builder(_as_state(state))
    rules = _RULES
    i = -1
    try:
        for i, delta in enumerate(deltas):
            rule = rules.get(type(delta))
            if rule is None:
                raise ProtocolError(f"fold takes Delta values, not {type(delta).__name__}")
            rule(builder, delta)
    except ProtocolError as exc:
        raise ProtocolError(f"delta #{i}: {exc}") from None
    return builder.freeze()
