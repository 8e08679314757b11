"""Newtype identifiers and the transcript timestamp.

Each id wraps one string.  ``str(id)`` is that string and so is its wire form.
Ids of different types never compare equal, even around the same string
(``ToolCallId("x") != MessageId("x")``, and no id equals a plain ``str``);
ids of one type are hashable and ordered by their string.
"""

from __future__ import annotations

from functools import partial

from . import _check as check, _codec as wire
from ._make import filler
from ._value import Value, dataclass, refuse_delattr, refuse_setattr
from .jsontext import JsonCodec

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, TypeVar

__all__ = (
    "SessionId",
    "TurnId",
    "MessageId",
    "ToolCallId",
    "ToolResultId",
    "TaskId",
    "ProviderMessageId",
    "ArtifactId",
    "PartId",
    "ApprovalId",
    "Timestamp",
)

if TYPE_CHECKING:
    IdT = TypeVar("IdT", bound="_Id")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class _Id(Value):
    """The shared shape of every id: one string, compared only within its own type.

    The constructor takes a ``str`` (a subclass is stored as a plain ``str``)
    holding valid Unicode: anything else raises ``TypeError``, a lone
    surrogate :class:`NormalizeError`.
    """

    value: str

    def __init__(self, value: str) -> None:
        _set_id(self, value if type(value) is str and value.isascii() else check.string(value, type(self).__name__, "value"))

    def __str__(self) -> str:
        return self.value

    # Written out rather than generated (dataclass(order=True)): ids are hashed and compared often.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.value == other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.value,))

    def __lt__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.value < other.value
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.value <= other.value
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.value > other.value
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.value >= other.value
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def to_dict(self) -> str:
        """The wire form: the plain string."""
        return self.value

    @classmethod
    def from_dict(cls: type[IdT], v: object, /) -> IdT:
        """Read an id from its wire form, a string; raises :class:`NormalizeError`."""
        return cls(wire.string(v, ""))


_set_id = filler(_Id, "value")


class SessionId(_Id):
    """Identifies one agent session (a conversation and everything run in it)."""

    __slots__ = ()


class TurnId(_Id):
    """Identifies one turn of the agent loop."""

    __slots__ = ()


class MessageId(_Id):
    """Identifies one transcript item (``Item.id``)."""

    __slots__ = ()


class ToolCallId(_Id):
    """Identifies one tool call; a tool result names it as ``call_id``."""

    __slots__ = ()


class ToolResultId(_Id):
    """Identifies one tool result."""

    __slots__ = ()


class TaskId(_Id):
    """Identifies a background task."""

    __slots__ = ()


class ProviderMessageId(_Id):
    """A provider's own id for a message or response (``msg_...``, ``resp_...``)."""

    __slots__ = ()


class ArtifactId(_Id):
    """Identifies stored bytes that a ``Handle`` data reference points at."""

    __slots__ = ()


class PartId(_Id):
    """Identifies a part while it streams: deltas address open parts by it."""

    __slots__ = ()


class ApprovalId(_Id):
    """Identifies an approval request."""

    __slots__ = ()


class Timestamp(JsonCodec, int):
    """Milliseconds since the Unix epoch; on the wire, a plain integer.

    It is an ``int``, so it compares and subtracts like one.  It is made from
    an ``int`` with ``0 <= n < 2**64``: a float or a bool, a negative or a
    too large number raises :class:`NormalizeError`, a non-number ``TypeError``.
    """

    __slots__ = ()

    def __new__(cls, value: int) -> Timestamp:
        return int.__new__(cls, check.u64(value, "Timestamp", ""))

    if not TYPE_CHECKING:
        __setattr__ = refuse_setattr
        __delattr__ = refuse_delattr

    @classmethod
    def now(cls) -> Timestamp:
        """The current wall-clock time."""
        import time

        return cls(time.time_ns() // 1_000_000)

    def __repr__(self) -> str:
        return f"Timestamp({int(self)})"

    def to_dict(self) -> int:
        """The wire form: the integer."""
        return int(self)

    @classmethod
    def from_dict(cls, v: object, /) -> Timestamp:
        """Read a ``u64`` millisecond count; raises :class:`NormalizeError`."""
        return make_timestamp(wire.u64(v, ""))


#: ``make_timestamp(n)``: a :class:`Timestamp` of a count a decoder checked already (no Python frame).
make_timestamp: Callable[[int], Timestamp] = partial(int.__new__, Timestamp)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
