"""The checks every decoder shares, each written once: the decode side.

Decoders read plain JSON-shaped Python data (what ``json.loads`` returns) the
way the Rust reference's serde derive reads JSON text:

* a struct is a dict (unknown keys ignored) or a list of its fields in order;
* an absent optional field reads as ``None``; an absent required one is an error;
* strings must be valid Unicode (no lone surrogates);
* ``u64`` counts are ``int`` in ``0 <= n < 2**64``, never ``bool`` or ``float``;
* containers nest at most :data:`MAX_DEPTH` deep, counted from the root of the
  value being decoded (serde_json refuses the 128th level).

Every failure is a :class:`NormalizeError` whose path starts at the failing
field; callers prefix their own segment (``NormalizeError.under``) while the
error propagates, so decoding that succeeds never builds a path string.

The constructors' checks are in :mod:`._check`, under the same leaf names
(the wire's types: ``string``, ``boolean``, ``u64``, ``f64``...); modules
import the two as words, ``wire`` and ``check``.

Fast paths.  Every check begins with the test that passes the common case; a
hot caller may inline that first line and call the check for the rest::

    name = name if type(name) is str and name.isascii() else wire.string(name, "name")

The inlined test is the check's own first line, or a stricter one, so both
routes accept the same values and only the check has error messages.  The
same goes for structs (``type(v) is dict and depth <= MAX_DEPTH``), empty
``metadata`` (``metadata_field``) and constructors' arguments that already
are what the field holds (``type(metadata) is MetadataMap``).
"""

from __future__ import annotations

from operator import countOf

from .error import NormalizeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, NoReturn, TypeVar, Union

    T = TypeVar("T")

# What a decoder accepts as JSON, published by :mod:`.jsontext` (and the package) under the same names.

#: Any JSON value as Python holds it: ``None``, ``bool``, ``int``, ``float``, ``str``,
#: ``list`` of JSON values or ``dict`` of ``str`` to JSON values.
if TYPE_CHECKING:
    JsonValue = Union[None, bool, int, float, str, List["JsonValue"], Dict[str, "JsonValue"]]
else:  # the same union, as the types.UnionType it has always been at run time
    JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]

#: The deepest container nesting accepted, counted from the root (serde_json refuses the 128th level).
MAX_DEPTH = 127

#: One past the largest ``u64``.
U64_END = 1 << 64


def isfinite(x: float) -> bool:
    """``math.isfinite`` of a ``float``, without loading ``math`` (a shared library to open on most builds).

    ``x - x`` is ``0.0`` for every finite float, and NaN for an infinity or a NaN.  The JSON walkers
    and the ``f64`` fast paths spell ``x - x == 0.0`` inline: a Python call per float made a payload
    of floats a quarter slower to check than ``math.isfinite`` did; inline it costs the same.
    """
    return x - x == 0.0


_isfinite = isfinite


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


#: Stands for a field absent from its struct.
MISSING: object = _Missing()


def fail(message: str, path: str = "") -> NoReturn:
    """Raise a :class:`NormalizeError`."""
    raise NormalizeError(message, path)


def describe(v: object) -> str:
    """Name a Python value the way a JSON reader would, for error messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean `{'true' if v else 'false'}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, float):
        return f"floating point `{v!r}`"
    if isinstance(v, str):
        text = v if len(v) <= 40 else v[:37] + "..."
        return f"string {text!r}"
    if isinstance(v, list):
        return "sequence"
    if isinstance(v, dict):
        return "map"
    return f"Python {type(v).__name__} (not JSON data)"


def too_deep() -> NoReturn:
    fail(too_deep_message(MAX_DEPTH))


def too_deep_message(limit: int) -> str:
    """What an over-deep value is told: serde_json's words, with the limit."""
    return f"recursion limit exceeded: containers nest deeper than {limit} levels"


def valid_unicode(s: str) -> bool:
    """Whether ``s`` is valid Unicode, which a Rust string must be: no lone surrogates."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unicode(v: str, key: str) -> str:
    """Check a string is valid Unicode; return it as an exact ``str``."""
    if not (v.isascii() or valid_unicode(v)):
        fail("invalid Unicode: the string holds a lone surrogate", key)
    return str.__str__(v)


# -- structs -----------------------------------------------------------------------


def struct(v: object, name: str, fields: tuple[str, ...], depth: int) -> dict[str, JsonValue]:
    """The fields of a struct: ``v`` itself when it is a dict, else decoded from a list."""
    if type(v) is dict:
        if depth > MAX_DEPTH:
            too_deep()
        return v
    return _struct_slow(v, name, fields, depth)


def _struct_slow(v: object, name: str, fields: tuple[str, ...], depth: int) -> dict[str, JsonValue]:
    if v is MISSING:
        fail("missing field")
    if depth > MAX_DEPTH and isinstance(v, (dict, list)):
        too_deep()
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, list):
        if len(v) != len(fields):
            fail(f"invalid length {len(v)}, expected struct {name} with {len(fields)} elements")
        return dict(zip(fields, v))
    fail(f"invalid type: {describe(v)}, expected struct {name}")


def field(d: dict[str, JsonValue], key: str, decode: Callable[[object, int], T], depth: int) -> T:
    """Decode ``d[key]`` with ``decode(value, depth)``, naming ``key`` in any error."""
    try:
        return decode(d.get(key, MISSING), depth)
    except NormalizeError as exc:
        raise exc.under(key) from None


def variant(value: object, cls: type[T]) -> T:
    """``value`` (a decoded variant) if it is a ``cls``: ``TextPart.from_dict`` refuses a media part."""
    if not isinstance(value, cls):
        from ._error_text import an

        fail(f"expected {an(cls.__name__)}, found {an(type(value).__name__)}")
    return value


def tagged(v: object, family: str, names: str) -> tuple[str, JsonValue]:
    """Split an externally tagged enum value ``{"Tag": body}`` into its tag and body."""
    if type(v) is dict and len(v) == 1:
        return next(iter(v.items()))
    if v is MISSING:
        fail("missing field")
    if isinstance(v, dict) and len(v) == 1:
        return next(iter(dict(v).items()))
    if isinstance(v, str):
        fail(f"invalid type: unit variant {v!r}, expected a {family} variant with data ({names})")
    fail(f"invalid type: {describe(v)}, expected a {family}: a map with one key ({names})")


def dispatch(v: object, depth: int, family: str, decoders: dict[str, Callable[[object, int], T]]) -> T:
    """Decode an externally tagged value at nesting level ``depth`` with ``decoders[tag]``.

    The one rule for every tagged family: check depth, split ``{"Tag": body}``,
    refuse unknown tags, decode the body one level down, name the tag in errors.
    """
    if type(v) is dict and len(v) == 1 and depth <= MAX_DEPTH:
        for tag, body in v.items():
            decode = decoders.get(tag)
            if decode is not None:
                try:
                    return decode(body, depth + 1)
                except NormalizeError as exc:
                    raise exc.under(tag) from None
    # Everything else fails; find the first rule it breaks, in the reference's order.
    if depth > MAX_DEPTH and isinstance(v, dict):
        too_deep()
    names = ", ".join(decoders)
    tag, body = tagged(v, family, names)
    if not isinstance(tag, str) or tag not in decoders:
        unknown_variant(tag, family, names)
    return dispatch({tag: body}, depth, family, decoders)


def dispatcher(family: str, decoders: dict[str, Callable[[object, int], T]]) -> Callable[[object, int], T]:
    """The decoder of a tagged family: ``decode(v, depth)`` is ``dispatch(v, depth, family, decoders)``.

    Its own fast path splits a well-formed ``{"Tag": body}`` (saving a call per
    value, as :func:`variants` does); everything else goes to :func:`dispatch`.
    """

    def decode(v: object, depth: int) -> T:
        if type(v) is dict and len(v) == 1 and depth <= MAX_DEPTH:
            (tag,) = v  # cheaper than v.items() for one key
            found = decoders.get(tag)
            if found is not None:
                try:
                    return found(v[tag], depth + 1)
                except NormalizeError as exc:
                    raise exc.under(tag) from None
        return dispatch(v, depth, family, decoders)

    return decode


def unknown_variant(tag: object, family: str, names: str) -> NoReturn:
    fail(f"unknown variant {tag!r} of {family}, expected one of {names}")


def seq(v: object, depth: int) -> list[Any]:
    """A JSON array, as a list (any other value is an error)."""
    if isinstance(v, list):
        if depth > MAX_DEPTH:
            too_deep()
        return v if type(v) is list else list(v)
    if v is MISSING:
        fail("missing field")
    fail(f"invalid type: {describe(v)}, expected a sequence")


def items(v: object, depth: int, decode: Callable[[object, int], T]) -> tuple[T, ...]:
    """Decode a JSON array element by element; an error names the index."""
    values = v if type(v) is list and depth <= MAX_DEPTH else seq(v, depth)
    out: list[T] = []
    append = out.append
    inner = depth + 1
    try:
        for x in values:
            append(decode(x, inner))
    except NormalizeError as exc:
        raise exc.under(f"[{len(out)}]") from None
    return tuple(out)


def variants(v: object, depth: int, family: str, decoders: dict[str, Callable[[object, int], T]]) -> tuple[T, ...]:
    """Decode a JSON array of externally tagged values, ``[{"Text": ...}, ...]``: :func:`items` of :func:`dispatch`.

    The array sits at level ``depth``.  The loop splits each ``{"Tag": body}``
    itself, one call fewer per value; any value it does not settle goes
    through :func:`dispatch`, which has every rule.
    """
    values = v if type(v) is list and depth <= MAX_DEPTH else seq(v, depth)
    out: list[T] = []
    append = out.append
    inner = depth + 1
    body_depth = inner + 1
    fast = inner <= MAX_DEPTH  # as dispatch's own fast path
    try:
        for x in values:
            decode = None
            if fast and type(x) is dict and len(x) == 1:
                (tag,) = x  # cheaper than x.items() for one key
                decode = decoders.get(tag)
            if decode is None:
                append(dispatch(x, inner, family, decoders))
                continue
            try:
                append(decode(x[tag], body_depth))
            except NormalizeError as exc:
                raise exc.under(tag) from None
    except NormalizeError as exc:
        raise exc.under(f"[{len(out)}]") from None
    return tuple(out)


# -- scalars -----------------------------------------------------------------------


def string(v: object, key: str) -> str:
    """A required string field's value; ``key`` names it in errors."""
    if type(v) is str and v.isascii():
        return v
    return _string_slow(v, key)


def _string_slow(v: object, key: str) -> str:
    if isinstance(v, str):
        return v if v.isascii() and type(v) is str else _unicode(v, key)
    if v is MISSING:
        fail("missing field", key)
    fail(f"invalid type: {describe(v)}, expected a string", key)


def opt_string(v: object, key: str) -> str | None:
    """An optional string field's value: ``None`` when null or absent."""
    if type(v) is str and v.isascii():
        return v
    if v is None or v is MISSING:
        return None
    return _string_slow(v, key)


def boolean(v: object, key: str) -> bool:
    """A required ``bool`` field's value."""
    if v is True or v is False:
        return v
    if v is MISSING:
        fail("missing field", key)
    fail(f"invalid type: {describe(v)}, expected a boolean", key)


def u64(v: object, key: str) -> int:
    """A required unsigned 64-bit count: an ``int`` in ``0 <= n < 2**64``, never a bool or float."""
    if type(v) is int and 0 <= v < U64_END:
        return v
    return _u64_slow(v, key)


def _u64_slow(v: object, key: str) -> int:
    if v is MISSING:
        fail("missing field", key)
    if isinstance(v, int) and not isinstance(v, bool):
        if 0 <= v < U64_END:
            return int(v)
        fail(f"invalid value: integer `{v}`, expected u64", key)
    fail(f"invalid type: {describe(v)}, expected u64", key)


def opt_u64(v: object, key: str) -> int | None:
    """An optional ``u64`` field: ``None`` when null or absent."""
    if type(v) is int and 0 <= v < U64_END:
        return v
    if v is None or v is MISSING:
        return None
    return _u64_slow(v, key)


def f64(v: object, key: str) -> float:
    """A required ``f64``: any finite JSON number, returned as ``float``."""
    if type(v) is float and v - v == 0.0:  # isfinite(v), inlined (see isfinite)
        return v
    if v is MISSING:
        fail("missing field", key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            x = float(v)
        except OverflowError:
            fail(f"invalid value: {describe(v)} is out of range for f64", key)
        if _isfinite(x):
            return x
        fail(f"invalid value: {describe(v)}, expected a finite f64", key)
    fail(f"invalid type: {describe(v)}, expected f64", key)


def byte_array(v: object, depth: int) -> bytes:
    """Bytes as the reference writes them: a JSON array of integers 0..255."""
    values = seq(v, depth)
    if not values:
        return b""
    if countOf(map(type, values), int) == len(values):  # bool is an int subclass: bytes() would take it
        try:
            # Through a bytearray, which reads a list of ints twice as fast as bytes() does (3.11+).
            return bytes(bytearray(values))
        except ValueError:
            pass
    for i, b in enumerate(values):
        if type(b) is not int or not 0 <= b <= 255:
            if isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 255:
                continue
            if isinstance(b, int) and not isinstance(b, bool):
                fail(f"invalid value: integer `{b}`, expected u8", f"[{i}]")
            fail(f"invalid type: {describe(b)}, expected u8", f"[{i}]")
    return bytes(int(b) for b in values)


# -- JSON values -------------------------------------------------------------------


def json_value(v: Any, depth: int) -> JsonValue:
    """Validate any JSON value and return a fresh copy that shares no container with ``v``.

    ``depth`` is the nesting level ``v`` has if it is a container.  Floats must
    be finite; strings and keys valid Unicode; keys strings; subclasses of the
    JSON types become exact ones.  The one JSON walker: decoders keep the
    copy, constructors measure its depth too (``_check.json_depth``).
    """
    t = type(v)
    if t is dict:
        if depth > MAX_DEPTH:
            too_deep()
        return json_object(v, depth)
    if t is list:
        if depth > MAX_DEPTH:
            too_deep()
        items: list[JsonValue] = []
        append = items.append
        inner = depth + 1
        for x in v:
            tx = type(x)
            if (tx is str and x.isascii()) or tx is int or tx is bool or x is None or (tx is float and x - x == 0.0):
                append(x)
                continue
            try:
                append(json_value(x, inner))
            except NormalizeError as exc:
                raise exc.under(f"[{len(items)}]") from None
        return items
    if t is int or t is bool or v is None or (t is float and v - v == 0.0):
        return v  # type: ignore[no-any-return]
    return _json_slow(v, depth)


def json_object(v: dict[Any, Any], depth: int) -> dict[str, JsonValue]:
    """Copy a JSON object (already depth-checked at ``depth``), validating keys and values."""
    out: dict[str, JsonValue] = {}
    inner = depth + 1
    for k, x in v.items():
        if type(k) is not str or not k.isascii():
            k = json_key(k)
        tx = type(x)
        if (tx is str and x.isascii()) or tx is int or tx is bool or x is None or (tx is float and x - x == 0.0):
            out[k] = x  # scalars checked here: a call per value costs more than the check
            continue
        try:
            out[k] = json_value(x, inner)
        except NormalizeError as exc:
            raise exc.under(key_segment(k)) from None
    return out


def _json_slow(v: object, depth: int) -> JsonValue:
    if isinstance(v, str):
        return _unicode(v, "")
    if isinstance(v, int):  # a subclass (bool cannot be subclassed, and exact bools never get here)
        return int.__int__(v)
    if isinstance(v, float) and _isfinite(v):
        return float.__float__(v)
    if isinstance(v, dict):
        return json_value(dict(v), depth)
    if isinstance(v, list):
        return json_value(list(v), depth)
    if v is MISSING:
        fail("missing field")
    if isinstance(v, float):
        fail(f"invalid value: {v!r} is not a JSON number (NaN and infinities are refused)")
    fail(f"invalid type: {describe(v)}, expected a JSON value")


def key_segment(key: object) -> str:
    """The path segment naming a map key: ``["key"]``."""
    return f"[{key!r}]"


def json_key(k: object) -> str:
    """A JSON object key that is not plain ASCII: valid Unicode, as an exact ``str``."""
    if isinstance(k, str):
        if k.isascii() or valid_unicode(k):
            return str.__str__(k)
        fail(f"invalid Unicode: a key holds a lone surrogate ({describe(k)})")
    fail(f"invalid key: {describe(k)}, expected a string")


#: The types of JSON's scalars, which a copy shares.
SCALARS = frozenset((str, int, float, bool, type(None)))


def copy_json(v: Any) -> JsonValue:
    """A deep copy of a JSON value built from dicts and lists (scalars are shared)."""
    t = type(v)
    if t is dict:
        if SCALARS.issuperset(map(type, v.values())):  # flat, the common case: one C-speed copy
            return v.copy()  # type: ignore[no-any-return]
        return {k: x if type(x) in SCALARS else copy_json(x) for k, x in v.items()}
    if t is list:
        if SCALARS.issuperset(map(type, v)):
            return v.copy()  # type: ignore[no-any-return]
        return [x if type(x) in SCALARS else copy_json(x) for x in v]
    return v  # type: ignore[no-any-return]
