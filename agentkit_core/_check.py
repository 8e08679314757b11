"""The checks constructors run on their arguments, each rule written once.

A value is valid when made: its constructor refuses what the wire cannot
carry, so ``to_dict()`` never fails and ``from_dict`` reads back what it
writes.  Decoders, whose input was checked as it was read (by :mod:`._codec`,
whose leaf checks have the same names as these: ``string``, ``boolean``,
``u64``, ...), build through the unchecked makers of :mod:`._make` and skip
all of this.  Callers may inline a check's first line (the fast-path
convention in :mod:`._codec`'s docstring).

* ``TypeError`` when an argument is not of a type the field takes
  (``TextPart(5)``: ``TextPart.text: expected a string, found int``, the
  words of :mod:`._error_text`);
* :class:`NormalizeError` (a ``ValueError``) when it is of a kind the field
  takes but the wire cannot carry it: a count that is negative, past 64
  bits, fractional or a bool; a non-finite number; a string with a lone
  surrogate; JSON data holding NaN, infinities, non-string keys or objects
  JSON has no form for; the wire string of an enum member or an id instead of
  the member or the id; an element of the wrong type in a sequence of parts;
  containers nested deeper than ``from_dict`` reads.  Its ``path`` is
  ``Class.field``, continued into the payload (``ToolCallPart.input['a'][1]``).

Depth.  ``from_dict`` refuses containers nested deeper than
:data:`~.jsontext.MAX_DEPTH` levels from the root of the value it decodes,
so a constructor refuses a value whose wire form would nest deeper.  Each
value that can nest deeply keeps its wire form's depth in ``_depth``, so a
value holding it (an item holding parts) learns it in one read: a slot set by
the constructor, measured on first use for values that decoders built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import _codec as wire
from ._codec import MAX_DEPTH, U64_END
from .error import NormalizeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from enum import Enum
    from typing import Any, NoReturn

    from ._codec import JsonValue

_isfinite = wire.isfinite


def wrong_type(owner: str, field: str, expected: str, v: object) -> TypeError:
    """The error for an argument of the wrong type; ``field`` may be empty (a one-argument constructor)."""
    from ._error_text import wrong_type as words  # the error path only: the words load when first needed

    return words(f"{owner}.{field}" if field else owner, expected, v)


def refused(owner: str, field: str, message: str) -> NormalizeError:
    """The error for an argument the wire cannot carry."""
    return NormalizeError(message, f"{owner}.{field}" if field else owner)


def located(exc: NormalizeError, owner: str, field: str) -> NormalizeError:
    """``exc``, raised inside an argument, seen from the constructor: its path under ``owner.field``."""
    return (exc.under(field) if field else exc).under(owner)


def too_deep(owner: str, field: str, depth: int) -> NoReturn:
    """Refuse a value whose wire form would nest ``depth`` levels deep."""
    raise refused(
        owner, field, f"recursion limit exceeded: the wire form would nest {depth} levels deep, past the {MAX_DEPTH} that from_dict reads"
    )


def fits(depth: int, owner: str, field: str) -> int:
    """``depth`` if a wire form that deep is one ``from_dict`` reads; else refuse ``owner.field``."""
    if depth > MAX_DEPTH:
        too_deep(owner, field, depth)
    return depth


# -- scalars -----------------------------------------------------------------------


def string(v: object, owner: str, field: str) -> str:
    """A string field: a valid-Unicode ``str``, stored as an exact ``str``."""
    if type(v) is str and v.isascii():
        return v
    if isinstance(v, str):
        if wire.valid_unicode(v):
            return str.__str__(v)
        raise refused(owner, field, "invalid Unicode: the string holds a lone surrogate")
    raise wrong_type(owner, field, "a string", v)


def opt_string(v: object, owner: str, field: str) -> str | None:
    """An optional string field: ``None`` or :func:`text`."""
    return None if v is None else string(v, owner, field)


def boolean(v: object, owner: str, field: str) -> bool:
    """A ``bool`` field: exactly ``True`` or ``False`` (not ``0`` or ``1``)."""
    if v is True or v is False:
        return v
    raise wrong_type(owner, field, "a boolean", v)


def u64(v: object, owner: str, field: str) -> int:
    """A ``u64`` count: an ``int`` with ``0 <= n < 2**64``; a float or a bool is a wrong value."""
    if type(v) is int and 0 <= v < U64_END:
        return v
    if isinstance(v, (int, float)):
        if isinstance(v, int) and not isinstance(v, bool):
            if 0 <= v < U64_END:
                return int.__int__(v)
            raise refused(owner, field, f"invalid value: integer `{v}`, expected u64 (0 <= n < 2**64)")
        raise refused(owner, field, f"invalid value: {wire.describe(v)}, expected u64 (a whole number 0 <= n < 2**64)")
    raise wrong_type(owner, field, "an integer", v)


def opt_u64(v: object, owner: str, field: str) -> int | None:
    """An optional count: ``None`` or :func:`count`."""
    return None if v is None else u64(v, owner, field)


def f64(v: object, owner: str, field: str) -> float:
    """An ``f64``: a finite ``float`` or ``int`` (not a bool), stored as an exact ``float``."""
    if type(v) is float and v - v == 0.0:  # isfinite(v), inlined (see _codec.isfinite)
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            x = float.__float__(v) if isinstance(v, float) else int.__float__(v)
        except OverflowError:
            x = float("inf")
        if _isfinite(x):
            return x
        raise refused(owner, field, f"invalid value: {wire.describe(v)}, expected a finite f64")
    if isinstance(v, bool):
        raise refused(owner, field, f"invalid value: {wire.describe(v)}, expected a finite f64")
    raise wrong_type(owner, field, "a finite number (float or int)", v)


def byte_string(v: object, owner: str, field: str) -> bytes:
    """A bytes field: ``bytes``, ``bytearray`` or ``memoryview``, stored as exact ``bytes``."""
    if type(v) is bytes:
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(memoryview(v))
    raise wrong_type(owner, field, "bytes", v)


def member(v: object, enum: type[Enum], owner: str, field: str) -> Any:
    """A member of ``enum``; its wire string in its place is a wrong value that names the member."""
    if isinstance(v, enum):
        return v
    if isinstance(v, str):
        hint = enum._value2member_map_.get(v)
        use = f": use {enum.__name__}.{hint.name}" if hint is not None else ""
        raise refused(owner, field, f"expected {_a(enum.__name__)} member, found the string {_describe(v)}{use}")
    raise wrong_type(owner, field, _a(enum.__name__), v)


def ident(v: object, kind: type, owner: str, field: str) -> Any:
    """An id of type ``kind``; a plain string in its place is a wrong value that says how to wrap it."""
    if isinstance(v, kind):
        return v
    if isinstance(v, str):
        raise refused(owner, field, f"expected {_a(kind.__name__)}, found the plain string {_describe(v)}: wrap it, {kind.__name__}(...)")
    raise wrong_type(owner, field, _a(kind.__name__), v)


def _a(name: str) -> str:
    from ._error_text import an

    return an(name)


def _describe(v: object) -> str:
    from ._error_text import describe

    return describe(v)


def instance(v: object, kinds: type | tuple[type, ...], owner: str, field: str, expected: str) -> Any:
    """A value that is an instance of ``kinds``."""
    if isinstance(v, kinds):
        return v
    raise wrong_type(owner, field, expected, v)


# -- sequences of values -----------------------------------------------------------


def members(v: object, kinds: frozenset[type], owner: str, field: str, noun: str) -> tuple[tuple[Any, ...], int]:
    """A tuple of instances of ``kinds`` (or their subclasses) from any iterable, and their deepest wire depth (0 if none).

    A string, bytes or a mapping is a wrong type (iterating it gives no
    values); an element of another type is a wrong value naming its index.
    """
    if type(v) is tuple:
        seq: tuple[Any, ...] = v
    elif type(v) is list:
        seq = tuple(v)
    else:
        seq = _iterate(v, owner, field, noun)
    deepest = 0
    for x in seq:
        if type(x) not in kinds and not isinstance(x, tuple(kinds)):
            i = next(i for i, y in enumerate(seq) if y is x)
            raise refused(owner, f"{field}[{i}]", f"expected {_a(noun)}, found {type(x).__name__}")
        try:  # depth(x), inlined: this loop runs for every part of every item made
            d = x._depth
        except AttributeError:
            d = x._measure()
        if d > deepest:
            deepest = d
    return seq, deepest


def sequence_depth(values: tuple[object, ...], deepest: int, above: int, owner: str, field: str) -> int:
    """The depth of ``{"Tag": [value, ...]}``, which adds ``above`` levels to its deepest value's; refuses one too deep.

    ``deepest`` is what :func:`members` measured; an error names the first value too deep.
    """
    if deepest + above > MAX_DEPTH:
        for i, v in enumerate(values):
            fits(depth(v) + above, owner, f"{field}[{i}]")
    return max(2, deepest + above)


def _iterate(v: object, owner: str, field: str, noun: str) -> tuple[Any, ...]:
    if isinstance(v, (str, bytes, bytearray, Mapping)) or not isinstance(v, Iterable):
        raise wrong_type(owner, field, f"an iterable of {noun} values", v)
    return tuple(v)


def depth(v: Any) -> int:
    """How deep ``v``'s wire form nests: its ``_depth``, measured first if a decoder built ``v``."""
    try:
        d: int = v._depth
    except AttributeError:
        d = v._measure()
    return d


def layers(v: object) -> int:
    """How deep a field's wire form nests: JSON data, or a value that knows its depth; 0 for the rest."""
    t = type(v)
    if t is dict or t is list:
        return json_depth(v)
    return depth(v) if hasattr(t, "_depth") else 0


#: The level of a part's JSON payload (``input``, ``value``, ``schema``) in the part's wire form.
PAYLOAD_LEVEL = 3


def part_depth(owner: str, metadata: Any, *layers: int) -> int:
    """The depth of a part's wire form, ``{"Tag": {...}}``, from its fields' depths; refuses a part too deep.

    ``layers`` are the depths of the fields other than metadata, which their
    own checks kept within bounds already.
    """
    try:  # depth(metadata), inlined: every part made runs this
        deepest: int = metadata._depth + 2
    except AttributeError:
        deepest = metadata._measure() + 2
    if deepest > MAX_DEPTH:
        too_deep(owner, "metadata", deepest)
    for layer in layers:
        if layer + 2 > deepest:
            deepest = layer + 2
    return deepest


# -- JSON payloads -----------------------------------------------------------------


def payload(v: object, owner: str, field: str, level: int) -> tuple[JsonValue, int]:
    """A JSON payload sitting at nesting ``level`` of its owner's wire form: a validated copy and its depth.

    The copy shares no container with ``v``, so changing ``v`` afterwards
    cannot change (or invalidate) the value that holds the copy.
    """
    try:
        copy = wire.json_value(v, level)
    except NormalizeError as exc:
        raise located(exc, owner, field) from None
    return copy, json_depth(copy)


def json_depth(v: object) -> int:
    """The depth of valid JSON data (a decoder's output): ``0`` for a scalar."""
    t = type(v)
    if t is dict:
        values: Any = v.values()  # type: ignore[attr-defined]
    elif t is list:
        values = v
    else:
        return 0
    deepest = 0
    for x in values:
        if type(x) is dict or type(x) is list:
            d = json_depth(x)
            if d > deepest:
                deepest = d
    return deepest + 1
