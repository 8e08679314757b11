"""Why a turn ended, normalised to a small stable set.

``FinishReason.COMPLETED``, ``TOOL_CALL``, ``MAX_TOKENS``, ``CANCELLED``,
``BLOCKED``, ``ERROR``, and ``FinishReason.other("...")`` for anything else,
keeping the provider's string.  Adapters map native stop reasons here and keep
the raw value in namespaced metadata.  Equal reasons compare equal, so
``match`` works with the constants as value patterns::

    match reason:
        case FinishReason.COMPLETED: ...
        case FinishReason(kind="Other", detail=raw): ...
"""

from __future__ import annotations

from . import _check as check, _codec as wire
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, factory

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import ClassVar

__all__ = ("FinishReason",)

_UNITS = ("Completed", "ToolCall", "MaxTokens", "Cancelled", "Blocked", "Error")
_NAMES = ", ".join(_UNITS + ("Other",))


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class FinishReason(Value):
    """A normalised finish reason: ``kind`` is the variant name, ``detail`` the ``Other`` string.

    Use the class constants and :meth:`other` rather than the constructor.
    """

    kind: str
    detail: str | None = None

    if TYPE_CHECKING:  # set below the class
        COMPLETED: ClassVar[FinishReason]
        TOOL_CALL: ClassVar[FinishReason]
        MAX_TOKENS: ClassVar[FinishReason]
        CANCELLED: ClassVar[FinishReason]
        BLOCKED: ClassVar[FinishReason]
        ERROR: ClassVar[FinishReason]

    def __init__(self, kind: str, detail: str | None = None) -> None:
        kind = check.string(kind, "FinishReason", "kind")
        if kind == "Other":
            if detail is None:
                raise TypeError("FinishReason.detail: FinishReason('Other') needs its provider string: use FinishReason.other(text)")
            detail = check.string(detail, "FinishReason", "detail")
        elif kind not in _UNITS:
            raise check.refused("FinishReason", "kind", f"unknown finish reason {kind!r}; expected one of {_NAMES}")
        elif detail is not None:
            raise TypeError(f"FinishReason.detail: FinishReason.{_CONSTANT_NAMES[kind]} takes no detail")
        _fill_finish(self, kind, detail)

    @factory
    def other(text: str) -> FinishReason:
        """A reason outside the stable set, keeping the provider's string."""
        return FinishReason("Other", text)

    @property
    def _depth(self) -> int:
        """How deep :meth:`to_dict` nests: ``{"Other": "..."}`` is a level, a bare name none."""
        return 0 if self.detail is None else 1

    @property
    def is_other(self) -> bool:
        """True for :meth:`other` reasons."""
        return self.kind == "Other"

    def __repr__(self) -> str:
        if self.kind == "Other":
            return f"FinishReason.other({self.detail!r})"
        return f"FinishReason.{_CONSTANT_NAMES[self.kind]}"

    def to_dict(self) -> str | dict[str, str]:
        """The wire form: ``"Completed"``, or ``{"Other": "..."}``."""
        if self.kind == "Other":
            return {"Other": self.detail}  # type: ignore[dict-item]
        return self.kind

    @classmethod
    def from_dict(cls, v: object, /) -> FinishReason:
        """Decode a finish reason; raises :class:`NormalizeError`."""
        return decode_finish_reason(v, 1)


_fill_finish = filler(FinishReason, "kind", "detail")
_make_finish = unchecked_maker(FinishReason, "kind", "detail")

_CONSTANT_NAMES = {
    "Completed": "COMPLETED",
    "ToolCall": "TOOL_CALL",
    "MaxTokens": "MAX_TOKENS",
    "Cancelled": "CANCELLED",
    "Blocked": "BLOCKED",
    "Error": "ERROR",
}
_BY_NAME: dict[str, FinishReason] = {}
for _kind, _const in _CONSTANT_NAMES.items():
    _BY_NAME[_kind] = FinishReason(_kind)
    setattr(FinishReason, _const, _BY_NAME[_kind])
del _kind, _const


def decode_finish_reason(v: object, depth: int) -> FinishReason:
    """Decode a finish reason sitting at nesting level ``depth``."""
    if type(v) is str:
        found = _BY_NAME.get(v)
        if found is not None:
            return found
    if isinstance(v, dict):
        if depth > wire.MAX_DEPTH:
            wire.too_deep()
        tag, body = wire.tagged(v, "FinishReason", _NAMES)
        if isinstance(tag, str) and tag == "Other":
            return _make_finish("Other", wire.string(body, "Other"))
        if tag in _BY_NAME:
            if body is None:
                return _BY_NAME[tag]
            wire.fail(f"invalid type: {wire.describe(body)}, expected unit variant {tag}", tag)
        wire.unknown_variant(tag, "FinishReason", _NAMES)
    if type(v) is str and v == "Other":
        wire.fail("invalid type: unit variant 'Other', expected {\"Other\": \"...\"}")
    if isinstance(v, str):
        wire.unknown_variant(v, "FinishReason", _NAMES)
    if v is wire.MISSING:
        wire.fail("missing field")
    wire.fail(f"invalid type: {wire.describe(v)}, expected a FinishReason")


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
