"""Open parts while a stream folds: their accumulated content and how they render.

Private to :mod:`.fold`.  An open part's text and bytes arrive as chunks kept
in a :class:`Log` each, a shared append-only list that every fold state views up
to its own length; :class:`OpenPart` records what has arrived for one part and
renders it, with the placeholders :mod:`.fold` documents.
"""

from __future__ import annotations

from typing import Any

from . import _codec as C
from .content import Modality, Part, PartKind, _make_custom, _make_file, _make_media, _make_reasoning, _make_structured, _make_text
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

UNSET: Any = object()


class Log:
    """An append-only list shared by every state that views a prefix of it.

    A viewer of length ``n`` appends in place only when it is the tip
    (``len(items) == n``) and its item landed at index ``n``; otherwise it
    copies its prefix first.  Items before any viewer's length never change.
    ``cache`` remembers one joined prefix ``(n, joined)`` so joining resumes
    where it stopped.
    """

    __slots__ = ("items", "cache")

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.cache: tuple[int, Any] = (0, None)

    def push(self, n: int, item: Any) -> Log:
        items = self.items
        if len(items) == n:
            items.append(item)
            if items[n] is item:  # compare-and-append: another branch may have raced us
                return self
        return Log(items[:n] + [item])

    def joined(self, n: int, empty: Any) -> Any:
        cached_n, cached = self.cache
        if cached_n == n and cached is not None:
            return cached
        if cached is not None and cached_n < n:
            value = cached + empty.join(self.items[cached_n:n])
        else:
            value = empty.join(self.items[:n])
        if n >= cached_n:
            self.cache = (n, value)
        return value


class OpenPart:
    """An open part: what has arrived for it so far.  Owned by one builder while it changes."""

    __slots__ = ("part_id", "kind", "accepts", "text", "ntext", "data", "ndata", "value", "metadata", "owner", "_part")

    def __init__(self, part_id: PartId, kind: PartKind, accepts: Any, owner: object) -> None:
        self.part_id = part_id
        self.kind = kind
        self.accepts = accepts  # what deltas this kind takes (fold's rule tables)
        self.text: Log | None = None
        self.ntext = 0
        self.data: Log | None = None
        self.ndata = 0
        self.value: Any = UNSET
        self.metadata = EMPTY_METADATA
        self.owner = owner
        self._part: Part | None = None

    def clone(self, owner: object) -> OpenPart:
        new = OpenPart.__new__(OpenPart)
        new.part_id, new.kind, new.accepts = self.part_id, self.kind, self.accepts
        new.text, new.ntext, new.data, new.ndata = self.text, self.ntext, self.data, self.ndata
        new.value, new.metadata, new.owner, new._part = self.value, self.metadata, owner, None
        return new

    def describe(self) -> str:
        return f"an open {self.kind.value} part"

    # -- rendering ---------------------------------------------------------------

    def render(self) -> Part:
        """The part as it stands: placeholders for what has not arrived (see the module docs)."""
        part = self._part
        if part is None:
            part = self._part = self._render(final=False)
        return part

    def finalize(self) -> Part:
        """The part as if committed now: a tool call's argument text is parsed."""
        return self._render(final=True)

    def _text(self) -> str | None:
        return None if self.text is None else self.text.joined(self.ntext, "")

    def _bytes(self) -> bytes | None:
        return None if self.data is None else self.data.joined(self.ndata, b"")

    def _data(self) -> DataRef | None:
        text = self._text()
        if text is not None:
            return _make_inline_text(text)
        raw = self._bytes()
        return None if raw is None else _make_inline_bytes(raw)

    def _render(self, final: bool) -> Part:
        # Built through the decoders' makers: every piece came from a delta its constructor checked.
        kind, md = self.kind, self.metadata
        value = None if self.value is UNSET else self.value
        head: dict[str, str] = {}
        if md._data and any(k in HEADER_KEYS for k in md._data):
            head = {k: v for k, v in md.items() if k in HEADER_KEYS and isinstance(v, str)}
            md = md.without(*HEADER_KEYS)
        if kind is PartKind.TEXT:
            return _make_text(self._text() or "", md)
        if kind is PartKind.REASONING:
            raw = self._bytes()
            return _make_reasoning(self._text(), None if raw is None else _make_inline_bytes(raw), False, md)
        if kind is PartKind.TOOL_CALL:
            text = self._text()
            if final and self.value is UNSET:
                value, md = _parse_arguments(text or "", md)
            elif text is not None:
                md = md.merged({INPUT_JSON_KEY: text})
            call_id = _make_call_id(head.get(TOOL_CALL_ID_KEY, ""))
            return _make_call(call_id, head.get(TOOL_NAME_KEY, ""), value, md)
        if kind is PartKind.STRUCTURED:
            return _make_structured(value, None, md)
        if kind is PartKind.MEDIA:
            modality = _MODALITIES.get(head.get(MODALITY_KEY, ""), Modality.BINARY)
            mime = head.get(MIME_TYPE_KEY, "application/octet-stream")
            return _make_media(modality, mime, self._data() or _make_inline_bytes(b""), md)
        if kind is PartKind.FILE:
            data = self._data() or _make_inline_bytes(b"")
            return _make_file(data, head.get(FILE_NAME_KEY), head.get(MIME_TYPE_KEY), md)
        if kind is PartKind.CUSTOM:
            return _make_custom(head.get(CUSTOM_KIND_KEY, ""), self._data(), value, md)
        return _make_result(_make_call_id(head.get(TOOL_CALL_ID_KEY, "")), _make_text_output(""), False, md)


_MODALITIES = {m._value_: m for m in Modality}


#: Nesting level of a tool call's input on the wire: ``{"ToolCall": {"input": ...}}``.
_INPUT_DEPTH = 3


def _parse_arguments(text: str, md: MetadataMap) -> tuple[JsonValue, MetadataMap]:
    """Parse a tool call's argument text once; malformed JSON is kept in metadata, never raised.

    "Malformed" includes JSON the wire format cannot carry (an infinite
    number, a lone surrogate, nesting past the depth limit), so every
    finalized part encodes and decodes again.
    """
    if not text.strip():
        return {}, md
    try:  # nesting is bounded before parsing, so no argument text can exhaust the stack
        return C.json_value(loads(text, MAX_DEPTH - _INPUT_DEPTH + 1), _INPUT_DEPTH), md
    except NormalizeError as exc:
        return None, md.merged({INPUT_JSON_KEY: text, INPUT_ERROR_KEY: str(exc)})
