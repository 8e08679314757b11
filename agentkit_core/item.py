"""Transcript items: the durable envelope of every message, of every kind.

A transcript is a sequence of :class:`Item`.  System prompts, developer
instructions, user messages, assistant turns, tool results, loaded context and
notifications are all items made of :class:`~.content.Part` values.
"""

from __future__ import annotations

from dataclasses import field, replace
from operator import index

from . import _check as check, _codec as wire
from ._codec import MISSING, U64_END
from ._enum import WireEnum, decode_enum
from ._make import filler, mutable, unchecked_maker
from ._value import Value, dataclass, factory
from .content import PART_DECODERS, Part, TextPart
from .error import NormalizeError
from .finish import _BY_NAME as _FINISHES, FinishReason, decode_finish_reason
from .ids import MessageId, Timestamp, make_timestamp
from .metadata import EMPTY_METADATA, JsonValue, MetadataLike, MetadataMap, as_metadata, metadata_field
from .tool import PART_TYPES, ToolCallPart, ToolResultPart
from .usage import Usage

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Iterable, Mapping

__all__ = ("ItemKind", "Item", "unanswered_calls", "close_unanswered")


class ItemKind(WireEnum):
    """Who or what an item comes from; ordered as declared.

    ``CONTEXT`` is loaded material (project instructions, skills, documents),
    distinct from hard-coded ``SYSTEM`` and ``DEVELOPER`` prompts;
    ``NOTIFICATION`` is an out-of-band message to the model.
    """

    SYSTEM = "System"
    DEVELOPER = "Developer"
    USER = "User"
    ASSISTANT = "Assistant"
    TOOL = "Tool"
    CONTEXT = "Context"
    NOTIFICATION = "Notification"


_ITEM_FIELDS = ("id", "kind", "parts", "metadata", "usage", "finish_reason", "created_at")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class Item(Value):
    """One transcript entry: a kind, its parts, and what the loop records about it.

    ``Item(kind, parts)`` mirrors the reference's ``Item::new``; every other
    field is keyword-only.  ``parts`` takes any iterable of parts and is
    stored as a tuple; ``created_at`` takes an ``int`` and is stored as a
    :class:`Timestamp`.  ``usage`` and ``finish_reason`` are set on assistant
    items; ``created_at`` when the loop appends the item to the transcript.
    """

    kind: ItemKind
    parts: tuple[Part, ...] = ()
    id: MessageId | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)
    usage: Usage | None = field(default=None, kw_only=True)
    finish_reason: FinishReason | None = field(default=None, kw_only=True)
    created_at: Timestamp | None = field(default=None, kw_only=True)

    def __init__(
        self,
        kind: ItemKind,
        parts: Iterable[Part] = (),
        *,
        id: MessageId | None = None,
        metadata: MetadataLike = EMPTY_METADATA,
        usage: Usage | None = None,
        finish_reason: FinishReason | None = None,
        created_at: Timestamp | int | None = None,
    ) -> None:
        if type(kind) is not ItemKind:
            kind = check.member(kind, ItemKind, "Item", "kind")
        checked, deepest = check.members(parts, PART_TYPES, "Item", "parts", "Part")
        check.sequence_depth(checked, deepest, 2, "Item", "parts")  # {"parts": [{"Tag": ...}]}
        if id is not None and type(id) is not MessageId:
            id = check.ident(id, MessageId, "Item", "id")
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "Item")
        if md is not EMPTY_METADATA:
            check.fits(1 + check.depth(md), "Item", "metadata")
        if usage is not None:
            usage = check.instance(usage, Usage, "Item", "usage", "a Usage or None")
            if usage.metadata is not EMPTY_METADATA:
                check.fits(1 + usage._depth, "Item", "usage")
        if finish_reason is not None and type(finish_reason) is not FinishReason:
            finish_reason = check.instance(finish_reason, FinishReason, "Item", "finish_reason", "a FinishReason or None")
        if created_at is not None and type(created_at) is not Timestamp:
            created_at = make_timestamp(check.u64(created_at, "Item", "created_at"))
        _fill_item(self, kind, checked, id, md, usage, finish_reason, created_at)

    @factory
    def text(kind: ItemKind, text: str) -> Item:
        """An item holding one text part."""
        return Item(kind, (TextPart(text),))

    @factory
    def notification(text: str) -> Item:
        """A notification item holding one text part."""
        return Item(ItemKind.NOTIFICATION, (TextPart(text),))

    def with_id(self, id: MessageId | None) -> Item:
        """A copy with ``id`` set."""
        return replace(self, id=id)

    def with_metadata(self, metadata: Mapping[str, JsonValue]) -> Item:
        """A copy whose metadata is ``metadata`` (replaced)."""
        return replace(self, metadata=metadata)  # type: ignore[arg-type]  # __init__ converts

    def push_part(self, part: Part) -> Item:
        """A copy with ``part`` appended."""
        return replace(self, parts=self.parts + (part,))

    def with_parts(self, parts: Iterable[Part]) -> Item:
        """A copy with ``parts`` instead."""
        return replace(self, parts=parts)  # type: ignore[arg-type]  # __init__ converts

    def with_usage(self, usage: Usage | None) -> Item:
        """A copy with ``usage`` set."""
        return replace(self, usage=usage)

    def with_finish_reason(self, finish_reason: FinishReason | None) -> Item:
        """A copy with ``finish_reason`` set."""
        return replace(self, finish_reason=finish_reason)

    def with_created_at(self, created_at: Timestamp | int | None) -> Item:
        """A copy with ``created_at`` set."""
        return replace(self, created_at=created_at)  # type: ignore[arg-type]  # __init__ converts

    def text_content(self, separator: str = "") -> str:
        """The text of every :class:`TextPart`, joined by ``separator``."""
        return separator.join(p.text for p in self.parts if type(p) is TextPart)

    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The tool calls this item holds, in order (a model's turn may make several)."""
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: id, kind, parts, metadata, usage, finish reason and creation time, ready for ``json.dumps``."""
        parts: list[JsonValue] = []
        for p in self.parts:  # a loop, not a comprehension: before 3.12 that is a function call per item
            parts.append(p.to_dict())
        id = self.id
        md = self.metadata
        usage = self.usage
        finish = self.finish_reason
        created = self.created_at
        return {
            "id": None if id is None else id.value,
            "kind": self.kind._value_,  # ._value_ is .value without the property call
            "parts": parts,
            "metadata": md.to_dict() if md._data else {},
            "usage": None if usage is None else usage.to_dict(),
            "finish_reason": None if finish is None else finish.kind if finish.detail is None else finish.to_dict(),
            "created_at": None if created is None else index(created),  # the plain int, cheaper than int()
        }

    def to_json(self) -> str:
        """The compact JSON text of the wire form, byte for byte what the Rust reference writes."""
        w = _line or _load_line()  # written from the fields, not through to_dict (_line.py says why)
        string, value = w.string, w.value
        id, usage, finish, created = self.id, self.usage, self.finish_reason, self.created_at
        parts = ",".join([w.part_json(p) for p in self.parts])
        if finish is None:
            finished = "null"
        else:
            finished = string(finish.kind) if finish.detail is None else value(finish.to_dict())
        return (f'{{"id":{"null" if id is None else string(id.value)},"kind":"{self.kind._value_}","parts":[{parts}],'
                f'"metadata":{w.metadata_json(self.metadata)},"usage":{"null" if usage is None else value(usage.to_dict())},'
                f'"finish_reason":{finished},"created_at":{"null" if created is None else index(created)}}}')

    @classmethod
    def from_dict(cls, v: object, /) -> Item:
        """Decode an item; raises :class:`NormalizeError` naming the bad field's path."""
        # An item is always the root (level 1) of what is decoded: nothing holds items.
        # Each field's common case is settled here; anything else goes to the rule in _codec.
        d = v if type(v) is dict else wire.struct(v, "Item", _ITEM_FIELDS, 1)
        get = d.get
        kind = get("kind", MISSING)
        kind = _KINDS.get(kind) if type(kind) is str else None
        if kind is None:
            kind = decode_enum(ItemKind, get("kind", MISSING), "kind")
        try:
            parts = wire.variants(get("parts", MISSING), 2, "Part", PART_DECODERS)
        except NormalizeError as exc:
            raise exc.under("parts") from None
        id = get("id")
        if id is not None:
            id = _make_message_id(id if type(id) is str and id.isascii() else wire.string(id, "id"))
        metadata = get("metadata", MISSING)
        metadata = EMPTY_METADATA if type(metadata) is dict and not metadata else metadata_field(d, 1)
        usage = get("usage")
        if usage is not None:
            try:
                usage = _decode_usage(usage, 2)
            except NormalizeError as exc:
                raise exc.under("usage") from None
        finish = get("finish_reason")
        if finish is not None:
            found = _FINISHES.get(finish) if type(finish) is str else None
            finish = found if found is not None else wire.field(d, "finish_reason", decode_finish_reason, 2)
        created = get("created_at")
        if created is not None:
            created = make_timestamp(created if type(created) is int and 0 <= created < U64_END else wire.u64(created, "created_at"))
        # An unchecked maker's work, written out: one call fewer for every item decoded.  The
        # stores go to the mutable twin; the class swap then freezes it (see _make's docstring).
        item = _MutableItem()
        item.kind = kind
        item.parts = parts
        item.id = id
        item.metadata = metadata
        item.usage = usage
        item.finish_reason = finish
        item.created_at = created
        item.__class__ = Item
        return item  # type: ignore[no-any-return]


_decode_usage = Usage._decode  # bound once: a class attribute would bind a method on every call
#: :mod:`._line`, loaded with ``json`` when an item is first written as JSON text.
_line: ModuleType | None = None


def _load_line() -> ModuleType:
    global _line
    from . import _line as line

    _line = line
    return line


_MutableItem = mutable(Item)
_fill_item = filler(Item, "kind", "parts", "id", "metadata", "usage", "finish_reason", "created_at")
_make_message_id = unchecked_maker(MessageId, "value")
_KINDS: dict[str, ItemKind] = {k._value_: k for k in ItemKind}


# -- calls and their results ----------------------------------------------------------

#: What :func:`close_unanswered` says in the results it makes, unless told otherwise.
NOT_RUN = "The tool call was cancelled: the tool did not run."


def unanswered_calls(items: Iterable[Item]) -> list[ToolCallPart]:
    """The tool calls of a transcript that no later tool result answers, in order.

    A result answers a call with its ``call_id`` made earlier in the
    transcript (an earlier part of the same item included); one result answers
    one call.  A transcript whose last turn was cut short, or whose tools were
    never run, has some: every API refuses a request that leaves a call
    without its result (see :func:`close_unanswered`).  Raises ``TypeError``
    for anything in ``items`` that is not an :class:`Item`.
    """
    calls: list[ToolCallPart] = []
    waiting: dict[str, list[int]] = {}  # call id -> the indices in calls of its calls not answered yet
    answered: set[int] = set()
    for n, item in enumerate(items):
        if not isinstance(item, Item):
            raise check.wrong_type("unanswered_calls", f"items[{n}]", "an Item", item)
        for part in item.parts:
            if isinstance(part, ToolCallPart):
                waiting.setdefault(part.id.value, []).append(len(calls))
                calls.append(part)
            elif isinstance(part, ToolResultPart) and waiting.get(part.call_id.value):
                answered.add(waiting[part.call_id.value].pop(0))
    return [call for i, call in enumerate(calls) if i not in answered]


def close_unanswered(items: Iterable[Item], message: str = NOT_RUN) -> Item | None:
    """A TOOL item answering every unanswered call of ``items`` with an error result; ``None`` if there is none.

    Append it after a turn was cancelled or failed (and after the closed
    item itself), so the next request is one every API accepts: each result
    is :meth:`ToolResultPart.failure` of its call with ``message``.
    """
    calls = unanswered_calls(items)
    if not calls:
        return None
    return Item(ItemKind.TOOL, [ToolResultPart.failure(call, message) for call in calls])


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
