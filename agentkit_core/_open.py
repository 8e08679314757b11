"""Open parts while a stream folds: their accumulated content and how they render.

Private to :mod:`.fold`.  An open part's text and bytes arrive as chunks kept
in a :class:`Log` each, a shared append-only list that every fold state views up
to its own length; :class:`OpenPart` records what has arrived for one part and
renders it, with the placeholders :mod:`.fold` documents.
"""

from __future__ import annotations

from typing import Any

from . import _codec as C
from .content import CustomPart, FilePart, MediaPart, Modality, Part, PartKind, ReasoningPart, StructuredPart, TextPart
from .data import DataRef, InlineBytes, InlineText
from .error import NormalizeError
from .ids import PartId, ToolCallId
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
from .tool import TextOutput, ToolCallPart, ToolResultPart

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
            return InlineText(text)
        raw = self._bytes()
        return None if raw is None else InlineBytes(raw)

    def _render(self, final: bool) -> Part:
        kind, md = self.kind, self.metadata
        value = None if self.value is UNSET else self.value
        head: dict[str, str] = {}
        if md._data and any(k in HEADER_KEYS for k in md._data):
            head = {k: v for k, v in md.items() if k in HEADER_KEYS and isinstance(v, str)}
            md = md.without(*HEADER_KEYS)
        if kind is PartKind.TEXT:
            return TextPart(self._text() or "", metadata=md)
        if kind is PartKind.REASONING:
            raw = self._bytes()
            return ReasoningPart(self._text(), data=None if raw is None else InlineBytes(raw), metadata=md)
        if kind is PartKind.TOOL_CALL:
            text = self._text()
            if final and self.value is UNSET:
                value, md = _parse_arguments(text or "", md)
            elif text is not None:
                md = md.merged({INPUT_JSON_KEY: text})
            call_id = ToolCallId(head.get(TOOL_CALL_ID_KEY, ""))
            return ToolCallPart(call_id, head.get(TOOL_NAME_KEY, ""), value, metadata=md)
        if kind is PartKind.STRUCTURED:
            return StructuredPart(value, metadata=md)
        if kind is PartKind.MEDIA:
            modality = _MODALITIES.get(head.get(MODALITY_KEY, ""), Modality.BINARY)
            mime = head.get(MIME_TYPE_KEY, "application/octet-stream")
            return MediaPart(modality, mime, self._data() or InlineBytes(b""), metadata=md)
        if kind is PartKind.FILE:
            data = self._data() or InlineBytes(b"")
            return FilePart(data, name=head.get(FILE_NAME_KEY), mime_type=head.get(MIME_TYPE_KEY), metadata=md)
        if kind is PartKind.CUSTOM:
            return CustomPart(head.get(CUSTOM_KIND_KEY, ""), data=self._data(), value=value, metadata=md)
        return ToolResultPart(ToolCallId(head.get(TOOL_CALL_ID_KEY, "")), TextOutput(""), metadata=md)


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
