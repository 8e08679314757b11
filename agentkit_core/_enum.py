"""The base of the package's enums, and their decoder.

Each enum's ``.value`` is the reference's variant name, which is also its
wire form, ``str()`` and f-string form (``str(ItemKind.USER) == "User"``, as a
``StrEnum`` would give on every Python version).  Members order as declared,
and only against members of the same enum.
"""

from __future__ import annotations

from enum import Enum

from . import _codec as wire
from .jsontext import JsonCodec

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, TypeVar

    E = TypeVar("E", bound="WireEnum")


class WireEnum(JsonCodec, Enum):
    """An enum whose ``.value`` is the reference's variant name; ordered as declared."""

    def to_dict(self) -> str:
        """The wire form: the bare variant name."""
        name: str = self.value
        return name

    def __str__(self) -> str:
        """The wire name (``str(ItemKind.USER) == "User"``), on every Python version, as a ``StrEnum``'s."""
        name: str = self._value_
        return name

    def __format__(self, spec: str) -> str:
        return format(self._value_, spec)

    @classmethod
    def from_dict(cls: type[E], v: object, /) -> E:
        """Read a variant name (``"User"``; serde's ``{"User": null}`` too)."""
        return decode_enum(cls, v, "")

    def _rank(self) -> int:
        return type(self)._member_names_.index(self.name)

    # Ordered by declaration, and only against members of the same enum.
    def __lt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank() < other._rank()

    def __le__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank() <= other._rank()

    def __gt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank() > other._rank()

    def __ge__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank() >= other._rank()


def decode_enum(cls: type[E], v: object, key: str) -> E:
    """Decode a unit-only enum; ``key`` names the field in errors."""
    members: dict[Any, E] = cls._value2member_map_  # type: ignore[assignment]
    member = members.get(v) if type(v) is str else None
    if member is not None:
        return member
    if v is wire.MISSING:
        wire.fail("missing field", key)
    if isinstance(v, dict) and len(v) == 1:
        ((tag, body),) = dict(v).items()
        if body is None and isinstance(tag, str) and tag in members:
            return members[tag]
        if isinstance(tag, str) and tag in members:
            wire.fail(f"invalid type: {wire.describe(body)}, expected unit variant {tag}", key)
        v = tag
    names = ", ".join(members)
    if isinstance(v, str):
        wire.fail(f"unknown variant {v!r} of {cls.__name__}, expected one of {names}", key)
    wire.fail(f"invalid type: {wire.describe(v)}, expected a {cls.__name__} variant name ({names})", key)
