"""Data references: where a part's bytes or text are.

A :class:`DataRef` is inline text, inline bytes, a URI, or the handle of an
artifact stored elsewhere; media, files, reasoning and custom parts point at
their data through one.
"""

from __future__ import annotations

from . import _check as check, _codec as wire
from ._make import filler, unchecked_maker
from ._value import Value, dataclass, factory, not_constructible
from .ids import ArtifactId

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, ClassVar

    from .metadata import JsonValue

__all__ = ("DataRef", "InlineText", "InlineBytes", "Uri", "Handle")


# -- data references ---------------------------------------------------------------


class DataRef(Value):
    """Where some content's data is: inline text, inline bytes, a URI, or an artifact handle.

    The four variants are :class:`InlineText`, :class:`InlineBytes`, :class:`Uri`
    and :class:`Handle`; each holds its payload as ``value``.  On the wire,
    ``{"InlineText": "..."}``, ``{"InlineBytes": [0, 255]}`` (an array of
    integers, as the reference writes bytes), ``{"Uri": "..."}``, ``{"Handle": "art-1"}``.
    """

    __slots__ = ()

    #: How deep the wire form nests (fixed per variant).
    _depth: ClassVar[int] = 1

    __init__ = not_constructible("DataRef", "InlineText, InlineBytes, Uri or Handle, or use DataRef.inline_text(...) and friends")

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, JsonValue]: ...

    @factory
    def inline_text(text: str) -> InlineText:
        """Text data held inline (base64 media, a text file's contents...)."""
        return InlineText(text)

    @factory
    def inline_bytes(data: bytes | bytearray | memoryview) -> InlineBytes:
        """Binary data held inline."""
        return InlineBytes(data)

    @factory
    def uri(uri: str) -> Uri:
        """Data found at a URI (``https:``, ``file:``, ``data:``, a provider file id URI)."""
        return Uri(uri)

    @factory
    def handle(artifact_id: ArtifactId | str) -> Handle:
        """Data stored elsewhere under an artifact id (a plain string is wrapped in an :class:`ArtifactId`)."""
        return Handle(ArtifactId(artifact_id) if isinstance(artifact_id, str) else artifact_id)

    @classmethod
    def from_dict(cls, v: object, /) -> DataRef:
        """Decode any data reference; raises :class:`NormalizeError`."""
        return wire.variant(decode_data_ref(v, 1), cls)


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class InlineText(DataRef):
    """Text held inline."""

    value: str

    def __init__(self, value: str) -> None:
        _set_inline_text(self, check.string(value, "InlineText", "value"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"InlineText": "..."}``."""
        return {"InlineText": self.value}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class InlineBytes(DataRef):
    """Bytes held inline; written as an array of integers 0..255.

    The constructor takes ``bytes``, ``bytearray`` or ``memoryview`` and keeps ``bytes``.
    """

    _depth = 2  # {"InlineBytes": [...]}

    value: bytes

    def __init__(self, value: bytes | bytearray | memoryview) -> None:
        _set_inline_bytes(self, check.byte_string(value, "InlineBytes", "value"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"InlineBytes": [0..255, ...]}``, a list of integers."""
        return {"InlineBytes": list(self.value)}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class Uri(DataRef):
    """Data at a URI."""

    value: str

    def __init__(self, value: str) -> None:
        _set_uri(self, check.string(value, "Uri", "value"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Uri": "..."}``."""
        return {"Uri": self.value}


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class Handle(DataRef):
    """Data stored elsewhere, named by an :class:`ArtifactId`."""

    value: ArtifactId

    def __init__(self, value: ArtifactId) -> None:
        _set_handle(self, check.ident(value, ArtifactId, "Handle", "value"))

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"Handle": "<artifact id>"}``."""
        return {"Handle": self.value.value}


_set_inline_text = filler(InlineText, "value")
_set_inline_bytes = filler(InlineBytes, "value")
_set_uri = filler(Uri, "value")
_set_handle = filler(Handle, "value")

#: The variants, for checking a field that holds a data reference.
DATA_REFS = (InlineText, InlineBytes, Uri, Handle)

_make_inline_text = unchecked_maker(InlineText, "value")
_make_inline_bytes = unchecked_maker(InlineBytes, "value")
_make_uri = unchecked_maker(Uri, "value")
_make_handle = unchecked_maker(Handle, "value")
_make_artifact_id = unchecked_maker(ArtifactId, "value")


def _inline_text(v: object, depth: int) -> InlineText:
    return _make_inline_text(v if type(v) is str and v.isascii() else wire.string(v, ""))


def _inline_bytes(v: object, depth: int) -> InlineBytes:
    return _make_inline_bytes(wire.byte_array(v, depth))


def _uri(v: object, depth: int) -> Uri:
    return _make_uri(wire.string(v, ""))


def _handle(v: object, depth: int) -> Handle:
    return _make_handle(_make_artifact_id(wire.string(v, "")))


_DATA_REF_DECODERS: dict[str, Callable[[object, int], DataRef]] = {
    "InlineText": _inline_text,
    "InlineBytes": _inline_bytes,
    "Uri": _uri,
    "Handle": _handle,
}


#: ``decode_data_ref(v, depth)``: decode a data reference whose tagged object sits at nesting level ``depth``.
decode_data_ref = wire.dispatcher("DataRef", _DATA_REF_DECODERS)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
