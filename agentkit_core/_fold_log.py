"""The fold's per-part logs: append-only records of each part, read at any version.

Private to :mod:`.fold`, whose docstring has the rules and the placeholders;
the rules themselves, which write to these logs, are in :mod:`._fold_rules`.
A branch keeps one :class:`PartLog` per part begun on it, and a log only
grows.  Text chunks, byte chunks and heads (a :class:`Head` holds the
metadata, the structured value and, once committed, the part; it changes
rarely) are appended to lists, each beside a list of *stamps*: the version
at which each item arrived.  A fold state at version ``v`` sees the items
stamped ``v`` or earlier, so what later versions appended is invisible to
it, and a log is read at any version with a bisection of its stamps.

A log renders what a state sees with the documented placeholders, through
the decoders' unchecked makers: everything it holds came from deltas and
parts that were checked when they were made.  It caches its last rendering
and its joined chunks, so a reporter that renders after every delta joins
only what arrived since.
"""

from __future__ import annotations

from bisect import bisect_right

from . import _codec as wire
from .content import (
    Modality,
    Part,
    PartKind,
    _make_custom,
    _make_file,
    _make_media,
    _make_reasoning,
    _make_structured,
    _make_text,
)
from .data import DataRef, _make_inline_bytes, _make_inline_text
from .error import NormalizeError
from .ids import PartId
from .jsontext import MAX_DEPTH, loads
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
from .metadata import EMPTY_METADATA, JsonValue, MetadataMap
from .tool import _make_call, _make_call_id, _make_result, _make_text_output

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any

#: The structured value of a part that has received none.
UNSET: object = object()


class Head:
    """What a part holds besides its chunks; replaced, never changed.  ``part`` once committed."""

    __slots__ = ("metadata", "value", "part")

    def __init__(self, metadata: MetadataMap, value: object, part: Part | None) -> None:
        self.metadata = metadata
        self.value = value
        self.part = part


#: ``(ntext, ndata, head)``: a part as a fold state sees it.
View = tuple[int, int, Head]

_EMPTY_HEAD = Head(EMPTY_METADATA, UNSET, None)


def _count(stamps: list[int], version: int) -> int:
    """How many of the stamped items arrived at or before ``version``."""
    n = len(stamps)
    if n and stamps[n - 1] > version:
        n = bisect_right(stamps, version)
    return n


class PartLog:
    """Everything one branch recorded about one part, in order; appended to, never changed.

    ``text`` and ``data`` hold the chunks; ``text_at`` and ``data_at`` the
    version each chunk arrived at (``fold_all`` stamps its text chunks when it
    ends); ``heads`` and ``heads_at`` each head and the version it took over.  Only
    the branch's newest version writes to a log, and it appends an item before
    the stamp that counts it, so a reader at an older version, or in another
    thread, never sees a half-made change.  ``takes_text`` says whether the
    part, as the newest version left it, takes more text: the AppendText rule
    (``_fold_rules.text_refusal``) decides it and the rules set it after every
    change; the fold's hot paths read that flag alone.
    """

    __slots__ = (
        "part_id",
        "key",
        "kind",
        "accepts",
        "begun",
        "text",
        "text_at",
        "data",
        "data_at",
        "heads",
        "heads_at",
        "takes_text",
        "_text",
        "_data",
        "_rendered",
    )

    def __init__(self, part_id: PartId | None, key: str, kind: PartKind, accepts: Any, version: int, head: Head = _EMPTY_HEAD) -> None:
        self.part_id = part_id
        self.key = key  # part_id's string
        self.kind = kind
        self.accepts = accepts  # what deltas this kind takes (the fold's rule tables)
        self.begun = version
        self.text: list[str] = []
        self.text_at: list[int] = []
        self.data: list[bytes] = []
        self.data_at: list[int] = []
        self.heads: list[Head] = [head]
        self.heads_at: list[int] = [version]
        self.takes_text = False  # set by the rules from _fold_rules.text_refusal, the AppendText rule
        self._text: tuple[int, str] = (0, "")  # the first n text chunks, joined
        self._data: tuple[int, bytes] = (0, b"")
        self._rendered: tuple[int, int, Head | None, Part | None] = (0, 0, None, None)

    def at(self, version: int) -> View:
        """The part as a state at ``version`` sees it."""
        head = self.heads[_count(self.heads_at, version) - 1]
        return _count(self.text_at, version), _count(self.data_at, version), head

    @property
    def head(self) -> Head:
        """The head as the newest version left it."""
        return self.heads[-1]

    def add_text(self, version: int, chunk: str) -> None:
        self.text.append(chunk)
        self.text_at.append(version)

    def add_data(self, version: int, chunk: bytes) -> None:
        self.data.append(chunk)
        self.data_at.append(version)

    def replace_head(self, version: int, head: Head) -> None:
        self.heads.append(head)
        self.heads_at.append(version)

    def describe(self) -> str:
        return f"an open {self.kind.value} part"

    def copy(self, view: View, version: int) -> PartLog:
        """A new log holding what ``view`` shows, at ``version``, its chunks joined into one."""
        ntext, ndata, head = view
        log = PartLog(self.part_id, self.key, self.kind, self.accepts, version, head)
        if head.part is None:
            if ntext:
                log.add_text(version, self.joined_text(ntext))
            if ndata:
                log.add_data(version, self.joined_data(ndata))
        return log

    # -- rendering ---------------------------------------------------------------

    def joined_text(self, n: int) -> str:
        """The first ``n`` text chunks as one string."""
        done, joined = self._text
        if done != n:
            joined = joined + "".join(self.text[done:n]) if done < n else "".join(self.text[:n])
            if n > done:
                self._text = (n, joined)
        return joined

    def joined_data(self, n: int) -> bytes:
        """The first ``n`` byte chunks as one bytes object."""
        done, joined = self._data
        if done != n:
            joined = joined + b"".join(self.data[done:n]) if done < n else b"".join(self.data[:n])
            if n > done:
                self._data = (n, joined)
        return joined

    def render(self, view: View) -> Part:
        """The part as ``view`` shows it: committed, or open with placeholders (see the fold docs)."""
        ntext, ndata, head = view
        if head.part is not None:
            return head.part
        seen_text, seen_data, seen_head, part = self._rendered
        if part is None or seen_text != ntext or seen_data != ndata or seen_head is not head:
            part = self._render(view, final=False)
            self._rendered = (ntext, ndata, head, part)
        return part

    def finalize(self, view: View) -> Part:
        """The part as if committed now: a tool call's argument text is parsed."""
        part = view[2].part
        return self._render(view, final=True) if part is None else part

    def _render(self, view: View, final: bool) -> Part:
        ntext, ndata, head = view
        kind, md = self.kind, head.metadata
        value = None if head.value is UNSET else head.value
        text = self.joined_text(ntext) if ntext else None
        raw = self.joined_data(ndata) if ndata else None
        shown: dict[str, str] = {}
        if md._data and any(k in HEADER_KEYS for k in md._data):
            shown = {k: v for k, v in md.items() if k in HEADER_KEYS and isinstance(v, str)}
            md = md.without(*(_RESULT_HEADER_KEYS if kind is PartKind.TOOL_RESULT else HEADER_KEYS))
        if kind is PartKind.TEXT:
            return _make_text(text or "", md)
        if kind is PartKind.REASONING:
            return _make_reasoning(text, None if raw is None else _make_inline_bytes(raw), False, md)
        if kind is PartKind.TOOL_CALL:
            if head.value is not UNSET:
                pass  # ReplaceStructured set the input; argument text before it is dropped
            elif final:
                value, md = _parse_arguments(text or "", md)
            elif text is not None:
                md = md.merged({INPUT_JSON_KEY: text})
            call_id = _make_call_id(shown.get(TOOL_CALL_ID_KEY, ""))
            return _make_call(call_id, shown.get(TOOL_NAME_KEY, ""), value, md)
        if kind is PartKind.STRUCTURED:
            return _make_structured(value, None, md)
        data = _data_ref(text, raw)
        if kind is PartKind.MEDIA:
            modality = _MODALITIES.get(shown.get(MODALITY_KEY, ""), Modality.BINARY)
            mime = shown.get(MIME_TYPE_KEY, "application/octet-stream")
            return _make_media(modality, mime, data or _NO_BYTES, md)
        if kind is PartKind.FILE:
            return _make_file(data or _NO_BYTES, shown.get(FILE_NAME_KEY), shown.get(MIME_TYPE_KEY), md)
        if kind is PartKind.CUSTOM:
            return _make_custom(shown.get(CUSTOM_KIND_KEY, ""), data, value, md)
        call_id = _make_call_id(shown.get(TOOL_CALL_ID_KEY, ""))
        return _make_result(call_id, _make_text_output(""), False, md)


def _data_ref(text: str | None, raw: bytes | None) -> DataRef | None:
    if text is not None:
        return _make_inline_text(text)
    return None if raw is None else _make_inline_bytes(raw)


_NO_BYTES: DataRef = _make_inline_bytes(b"")
#: On a tool result ``agentkit.tool_name`` is the part's own metadata (the tool it answers), not a header.
_RESULT_HEADER_KEYS = tuple(k for k in HEADER_KEYS if k != TOOL_NAME_KEY)
_MODALITIES = {m._value_: m for m in Modality}


#: Nesting level of a tool call's input in an item's wire form,
#: ``{"parts": [{"ToolCall": {"input": ...}}]}``: a finalized call always fits in an ``Item``.
_INPUT_DEPTH = 5


def _parse_arguments(text: str, md: MetadataMap) -> tuple[JsonValue, MetadataMap]:
    """Parse a tool call's argument text once; malformed JSON is kept in metadata, never raised.

    "Malformed" includes JSON the wire format cannot carry (an infinite
    number, a lone surrogate, nesting past the depth limit), so every
    finalized part encodes and decodes again.
    """
    if not text.strip():
        return {}, md
    try:  # nesting is bounded before parsing, so no argument text can exhaust the stack
        return wire.json_value(loads(text, MAX_DEPTH - _INPUT_DEPTH + 1), _INPUT_DEPTH), md
    except NormalizeError as exc:
        return None, md.merged({INPUT_JSON_KEY: text, INPUT_ERROR_KEY: str(exc)})

