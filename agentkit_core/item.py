"""Transcript items: the durable envelope of every message, of every kind.

A transcript is a sequence of :class:`Item`.  System prompts, developer
instructions, user messages, assistant turns, tool results, loaded context and
notifications are all items made of :class:`~.content.Part` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from . import _codec as C
from .content import Part, TextPart, decode_part
from .finish import FinishReason, opt_finish_reason
from .ids import MessageId, Timestamp
from .metadata import EMPTY_METADATA, JsonValue, MetadataMap, as_metadata, metadata_field, coerce_metadata
from .usage import Usage

__all__ = ("ItemKind", "Item")


class ItemKind(C.WireEnum):
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


def _opt_message_id(v: Any, depth: int) -> MessageId | None:
    return None if v is None or v is C.MISSING else MessageId(C.string(v, ""))


def _opt_timestamp(v: Any, depth: int) -> Timestamp | None:
    return None if v is None or v is C.MISSING else Timestamp(C.u64(v, ""))


_opt_usage = C.optional(Usage._decode)


@dataclass(frozen=True, slots=True)
class Item:
    """One transcript entry: a kind, its parts, and what the loop records about it.

    ``Item(kind, parts)`` mirrors the reference's ``Item::new``; every other
    field is keyword-only.  ``parts`` is stored as a tuple.  ``usage`` and
    ``finish_reason`` are set on assistant items; ``created_at`` when the loop
    appends the item to the transcript.
    """

    kind: ItemKind
    parts: tuple[Part, ...] = ()
    id: MessageId | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)
    usage: Usage | None = field(default=None, kw_only=True)
    finish_reason: FinishReason | None = field(default=None, kw_only=True)
    created_at: Timestamp | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if type(self.parts) is not tuple:
            object.__setattr__(self, "parts", tuple(self.parts))
        if type(self.metadata) is not MetadataMap:
            coerce_metadata(self)

    @classmethod
    def text(cls, kind: ItemKind, text: str) -> Item:
        """An item holding one text part."""
        return cls(kind, (TextPart(text),))

    @classmethod
    def notification(cls, text: str) -> Item:
        """A notification item holding one text part."""
        return cls(ItemKind.NOTIFICATION, (TextPart(text),))

    def with_id(self, id: MessageId | None) -> Item:
        """A copy with ``id`` set."""
        return replace(self, id=id)

    def with_metadata(self, metadata: Mapping[str, JsonValue]) -> Item:
        """A copy whose metadata is ``metadata`` (replaced)."""
        return replace(self, metadata=as_metadata(metadata))

    def push_part(self, part: Part) -> Item:
        """A copy with ``part`` appended."""
        return replace(self, parts=self.parts + (part,))

    def with_parts(self, parts: Iterable[Part]) -> Item:
        """A copy with ``parts`` instead."""
        return replace(self, parts=tuple(parts))

    def with_usage(self, usage: Usage | None) -> Item:
        """A copy with ``usage`` set."""
        return replace(self, usage=usage)

    def with_finish_reason(self, finish_reason: FinishReason | None) -> Item:
        """A copy with ``finish_reason`` set."""
        return replace(self, finish_reason=finish_reason)

    def with_created_at(self, created_at: Timestamp | int | None) -> Item:
        """A copy with ``created_at`` set."""
        return replace(self, created_at=None if created_at is None else Timestamp(created_at))

    def text_content(self, separator: str = "") -> str:
        """The text of every :class:`TextPart`, joined by ``separator``."""
        return separator.join(p.text for p in self.parts if type(p) is TextPart)

    def to_dict(self) -> dict[str, Any]:
        id, usage, finish, created = self.id, self.usage, self.finish_reason, self.created_at
        return {
            "id": None if id is None else id.value,
            "kind": self.kind.value,
            "parts": [p.to_dict() for p in self.parts],
            "metadata": self.metadata.to_dict(),
            "usage": None if usage is None else usage.to_dict(),
            "finish_reason": None if finish is None else finish.to_dict(),
            "created_at": None if created is None else int(created),
        }

    @classmethod
    def from_dict(cls, v: object, /) -> Item:
        """Decode an item; raises :class:`NormalizeError` naming the bad field's path."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: Any, depth: int) -> Item:
        d = C.struct(v, "Item", _ITEM_FIELDS, depth)
        inner = depth + 1
        return cls(
            C.decode_enum(ItemKind, d.get("kind", C.MISSING), "kind"),
            C.field(d, "parts", _parts, inner),
            id=C.field(d, "id", _opt_message_id, inner),
            metadata=metadata_field(d, depth),
            usage=C.field(d, "usage", _opt_usage, inner),
            finish_reason=C.field(d, "finish_reason", opt_finish_reason, inner),
            created_at=C.field(d, "created_at", _opt_timestamp, inner),
        )


def _parts(v: Any, depth: int) -> tuple[Part, ...]:
    return C.items(v, depth, decode_part)
