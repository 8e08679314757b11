"""The fold's transition rules, and the branches they write to.

Private to :mod:`.fold`, whose docstring states the rules; each is one method
of :class:`Branch` here, which checks its delta, then claims the version it
writes, then appends.  A refused delta raises :class:`ProtocolError` naming
the delta, the part id and what the part was, before anything is written.
The one rule the fold's hot paths take without a call, AppendText, is
decided by :func:`text_refusal`, beside its messages; the rules keep its
answer on each open part's log as ``takes_text``, which the hot paths read.

A branch is shared by a line of fold states, each a version number over it.
It holds the parts committed before it began (``base``), one
:class:`~._fold_log.PartLog` per part begun on it, and, for its newest
version (``tip``), the open parts by id.  Writers take their version from an
atomic counter first (:meth:`Branch.claim`): of two folds onto one state, in
two threads or one after the other, exactly one extends the branch, and the
other copies what the state shows into a new branch (:meth:`Branch.fork`).
The claim also moves ``tip`` before anything is written, so a fold that
looked at the branch meanwhile knows to look again.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import count
from operator import attrgetter

from ._fold_log import UNSET, Head, PartLog, View
from .content import Part, PartKind
from .delta import AppendBytes, AppendText, BeginPart, CommitPart, Delta, ReplaceStructured, SetMetadata
from .error import ProtocolError
from .ids import PartId
from .metadata import EMPTY_METADATA

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any

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


ACCEPTS = {kind: _Accepts(kind) for kind in PartKind}


class Lost(Exception):
    """Another fold claimed the version this one was about to write."""


_BEGUN = attrgetter("begun")


class Branch:
    """The append-only history behind a line of fold states; the transition rules.

    ``base`` holds the parts committed before the branch began; ``logs`` one
    :class:`PartLog` per part begun, or committed with none open, on the
    branch, in order; ``open_parts`` the logs of the parts open at the newest
    version, ``tip``, by id.  A rule checks its delta against the newest
    version, then claims the next version (unless its caller, ``fold_all``,
    already owns it), then appends: a refused delta leaves the branch as it was.
    """

    __slots__ = ("base", "logs", "open_parts", "tip", "claims")

    def __init__(self, base: tuple[Part, ...]) -> None:
        self.base = base
        self.logs: list[PartLog] = []
        self.open_parts: dict[str, PartLog] = {}
        self.tip = 0
        self.claims = count(1)  # next() is atomic: each version is handed out once

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling and deep copies restart the claims after the newest version
        # (itertools.count itself stops pickling in Python 3.14).
        return (_restore, (self.base, self.logs, self.open_parts, self.tip))

    def claim(self, version: int) -> None:
        """Take the right to write ``version``, or raise :class:`Lost` if another fold took it."""
        if next(self.claims) != version:
            raise Lost
        self.tip = version  # before any write: a fold still looking at the old tip then knows

    def view(self, version: int) -> list[tuple[PartLog, View]]:
        """The parts a state at ``version`` holds, each with what the state sees of it."""
        logs = self.logs
        n = len(logs)
        if n and logs[n - 1].begun > version:
            n = bisect_right(logs, version, 0, n, key=_BEGUN)
        return [(log, log.at(version)) for log in logs[:n]]

    def fork(self, version: int) -> Branch:
        """A new branch whose version 0 shows what this one shows at ``version``."""
        view = self.view(version)
        settled: list[Part] = []  # committed parts before the first open one go into the base
        for _, (_, _, head) in view:
            if head.part is None:
                break
            settled.append(head.part)
        branch = Branch(self.base + tuple(settled))
        for log, seen in view[len(settled) :]:
            copy = log.copy(seen, 0)
            branch.logs.append(copy)
            if seen[2].part is None:
                copy.takes_text = text_refusal(copy) is None
                branch.open_parts[copy.key] = copy
        return branch

    def target(self, delta: Any, verb: str) -> PartLog:
        """The open part ``delta`` addresses."""
        pid = delta.part_id
        key = pid.value if type(pid) is PartId and type(pid.value) is str else _key(pid, delta)
        log = self.open_parts.get(key)
        if log is None:
            raise ProtocolError(f"{verb} to part {key!r}, which is not open ({self._open_list()})")
        return log

    def _open_list(self) -> str:
        return "open parts: " + (", ".join(repr(k) for k in self.open_parts) or "none")

    # -- the transition rules: check, claim, append -----------------------------------

    def apply(self, delta: Delta, version: int, claim: bool) -> None:
        """Apply ``delta`` as (part of) ``version``, claiming it first when ``claim``."""
        rule = RULES.get(type(delta))
        if rule is None:
            raise ProtocolError(f"fold: expected a Delta, found {type(delta).__name__}")
        rule(self, delta, version, claim)

    def begin(self, delta: BeginPart, version: int, claim: bool) -> None:
        key = _key(delta.part_id, delta)
        log = self.open_parts.get(key)
        if log is not None:
            raise ProtocolError(f"BeginPart for part {key!r}, which is already {log.describe()}")
        kind = delta.kind
        if not isinstance(kind, PartKind):
            raise ProtocolError(f"BeginPart for part {key!r} has kind {kind!r}, not a PartKind")
        pid = delta.part_id if type(delta.part_id) is PartId else PartId(key)
        if claim:
            self.claim(version)
        log = PartLog(pid, key, kind, ACCEPTS[kind], version)
        log.takes_text = text_refusal(log) is None
        self.logs.append(log)
        self.open_parts[key] = log

    def append_text(self, delta: AppendText, version: int, claim: bool) -> PartLog:
        log = self.target(delta, "AppendText")
        chunk = delta.chunk
        if not log.takes_text or type(chunk) is not str:
            raise ProtocolError(_text_refusal_message(log, chunk))
        if claim:
            self.claim(version)
        log.add_text(version, chunk)
        return log

    def append_bytes(self, delta: AppendBytes, version: int, claim: bool) -> None:
        log = self.target(delta, "AppendBytes")
        chunk = delta.chunk
        accepts = log.accepts
        if not accepts.bytes or (accepts.one_data and log.text):
            raise ProtocolError(_refusal("AppendBytes", log, "inline bytes"))
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise ProtocolError(_bad_chunk("AppendBytes", log, chunk, "bytes"))
        chunk = bytes(chunk)
        if claim:
            self.claim(version)
        log.add_data(version, chunk)
        log.takes_text = text_refusal(log) is None  # bytes in a part's one data field end its text

    def replace_structured(self, delta: ReplaceStructured, version: int, claim: bool) -> None:
        log = self.target(delta, "ReplaceStructured")
        if not log.accepts.value:
            raise ProtocolError(_refusal("ReplaceStructured", log, "a JSON value"))
        if claim:
            self.claim(version)
        log.replace_head(version, Head(log.head.metadata, delta.value, None))
        log.takes_text = text_refusal(log) is None  # a tool call's input, once set, takes no argument text

    def set_metadata(self, delta: SetMetadata, version: int, claim: bool) -> None:
        log = self.target(delta, "SetMetadata")
        head = log.head
        metadata = head.metadata.merged(delta.metadata)
        if claim:
            self.claim(version)
        log.replace_head(version, Head(metadata, head.value, None))

    def commit(self, delta: CommitPart, version: int, claim: bool) -> None:
        part = delta.part
        if not isinstance(part, Part):
            raise ProtocolError(f"CommitPart carries a {type(part).__name__}, not a Part")
        kind = part.part_kind
        log: PartLog | None
        if delta.part_id is not None:
            key = _key(delta.part_id, delta)
            log = self.open_parts.get(key)
            if log is None:
                raise ProtocolError(f"CommitPart for part {key!r}, which is not open ({self._open_list()})")
            if log.kind is not kind:
                raise ProtocolError(f"CommitPart of a {kind.value} part for part {key!r}, which is {log.describe()}")
        else:  # the earliest open part of its kind (dicts keep the order parts began in)
            log = next((log for log in self.open_parts.values() if log.kind is kind), None)
        if claim:
            self.claim(version)
        if log is None:  # none of its kind open: the part is appended, committed as it arrives
            self.logs.append(PartLog(None, "", kind, ACCEPTS[kind], version, Head(EMPTY_METADATA, UNSET, part)))
            return
        del self.open_parts[log.key]
        log.replace_head(version, Head(log.head.metadata, log.head.value, part))


def _restore(base: tuple[Part, ...], logs: list[PartLog], open_logs: dict[str, PartLog], tip: int) -> Branch:
    branch = Branch(base)
    branch.logs, branch.open_parts, branch.tip, branch.claims = logs, open_logs, tip, count(tip + 1)
    return branch


#: Delta type -> the rule that applies it.
RULES: dict[type, Any] = {
    AppendText: Branch.append_text,
    AppendBytes: Branch.append_bytes,
    BeginPart: Branch.begin,
    CommitPart: Branch.commit,
    SetMetadata: Branch.set_metadata,
    ReplaceStructured: Branch.replace_structured,
}


# -- the AppendText rule -----------------------------------------------------------


def text_refusal(log: PartLog) -> str | None:
    """The AppendText rule, decided here once: ``None`` if the open part takes more text, else why not.

    ``"kind"``: its kind takes no text, or it is a media, file or custom part
    already holding bytes in the one data field text would extend;
    ``"replaced"``: a tool call whose input ``ReplaceStructured`` has set.
    The rules store the answer on the log as ``takes_text`` whenever what it
    depends on changes; :func:`.fold.fold` and :func:`.fold.fold_all` read
    that flag alone, and :meth:`Branch.append_text` turns a reason into its
    message (:func:`_text_refusal_message`).
    """
    accepts = log.accepts
    if not accepts.text or (accepts.one_data and log.data):
        return "kind"
    if accepts.tool_call and log.head.value is not UNSET:
        return "replaced"
    return None


def _text_refusal_message(log: PartLog, chunk: object) -> str:
    """What AppendText of ``chunk`` to ``log`` is told: the part's refusal first, then a chunk that is no str."""
    reason = text_refusal(log)
    if reason == "kind":
        return _refusal("AppendText", log, "inline text")
    if type(chunk) is not str:
        return _bad_chunk("AppendText", log, chunk, "a string")
    return f"AppendText to part {log.key!r} ({log.describe()}), whose input was already replaced by ReplaceStructured"


def _key(pid: object, delta: object) -> str:
    value = pid.value if isinstance(pid, PartId) else pid
    if isinstance(value, str):
        return str(value)
    raise ProtocolError(f"{type(delta).__name__} has part_id {pid!r}, not a PartId of a string")


def _bad_chunk(verb: str, log: PartLog, chunk: object, expected: str) -> str:
    return f"{verb} to part {log.key!r} ({log.describe()}) carries a chunk of type {type(chunk).__name__}, not {expected}"


def _refusal(verb: str, log: PartLog, what: str) -> str:
    if log.kind in _ONE_DATA and (log.text or log.data):
        held = "inline text" if log.text else "inline bytes"
        return f"{verb} to part {log.key!r} ({log.describe()}), which already holds {held}: it cannot also take {what}"
    return f"{verb} to part {log.key!r} ({log.describe()}): a {log.kind.value} part takes no {what}"
