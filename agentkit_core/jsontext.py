"""JSON values and JSON text: the ``JsonValue`` alias, the nesting limit, and a safe parser.

Every place the package reads JSON *text* goes through :func:`parse_json` (or
the private :func:`loads` it is built on).  Before handing text to
``json.loads`` they check how deep its containers nest, with a linear scan
that skips strings, and refuse anything past :data:`MAX_DEPTH`.
``json.loads`` recurses once per level, and on interpreters with a small
native stack (Pyodide on WebAssembly) deep enough input ends the whole
interpreter instead of raising; bounding first means no input can do that.

This module sits just above the decoders' checks (:mod:`._codec`): it takes
the nesting limit from there, and the JSON walker that :func:`parse_json` and
:func:`checked_json` share with every decoder.  Every value module sits above it.
"""

from __future__ import annotations

from functools import cache
from itertools import accumulate

from ._codec import MAX_DEPTH as MAX_DEPTH, JsonValue as JsonValue, json_value, too_deep_message
from .error import NormalizeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    J = TypeVar("J", bound="JsonCodec")

__all__ = ("JsonValue", "MAX_DEPTH", "checked_json", "nesting_depth", "parse_json")

_BRACKETS = "[]{}"
#: str.translate table deleting every ASCII character but the brackets.
_ASCII_NOT_BRACKETS = dict.fromkeys(c for c in range(128) if chr(c) not in _BRACKETS)
#: bytes.translate deletions: every byte but the brackets.
_BYTES_NOT_BRACKETS = bytes(c for c in range(256) if chr(c) not in _BRACKETS)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_STEP_B = {0x5B: 1, 0x7B: 1, 0x5D: -1, 0x7D: -1}


def nesting_depth(text: str | bytes | bytearray, /) -> int:
    """How deep the containers of JSON ``text`` nest: ``0`` for a scalar, ``1`` for ``[1]``.

    Brackets inside string literals do not count.  Linear in the length of
    ``text``; it never parses, so it is safe on any input.  For text that is
    not valid JSON the answer is only an estimate (an unterminated string
    counts the brackets after its opening quote), never below the depth a
    JSON reader reaches before it fails.  Bytes are read as UTF-8 (or another
    encoding that keeps ASCII as it is); :func:`loads` decodes UTF-16 and
    UTF-32 before it scans.
    """
    if isinstance(text, str):
        outside = _outside_strings(text, "\\", '"') if '"' in text else text
        if outside.isascii():
            brackets: Any = outside.translate(_ASCII_NOT_BRACKETS)
            step: Any = _STEP
        else:  # not JSON outside its strings, but its brackets are still found in one pass
            brackets = outside.encode("utf-8", "surrogatepass").translate(None, _BYTES_NOT_BRACKETS)
            step = _STEP_B
    else:
        raw = bytes(text)
        brackets = (_outside_strings(raw, b"\\", b'"') if b'"' in raw else raw).translate(None, _BYTES_NOT_BRACKETS)
        step = _STEP_B
    if not brackets:
        return 0
    deepest: int = max(accumulate(map(step.__getitem__, brackets)))
    return max(0, deepest)


def _outside_strings(text: Any, backslash: Any, quote: object) -> Any:
    """``text`` without its string literals (the quotes and what they hold), in a few C-speed passes.

    Escapes are paired from the left, as a JSON reader reads them: an escaped
    backslash goes first, then an escaped quote, so every quote left delimits
    a string.  What an unterminated last string holds stays in (it is counted,
    the safe way).  Outside strings JSON has no backslash; where invalid text
    has one, the reader fails there, so what follows does not matter.
    """
    if backslash in text:
        text = text.replace(backslash + backslash, text[:0]).replace(backslash + quote, text[:0])
    parts = text.split(quote)
    outside = parts[::2]
    if len(parts) % 2 == 0:  # an odd number of quotes: the last string never ends
        outside.append(parts[-1])
    return text[:0].join(outside)


def _openers(text: str | bytes | bytearray) -> int:
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def check_depth(text: str | bytes | bytearray, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`NormalizeError` if ``text`` nests deeper than ``limit``.

    Text with no more than ``limit`` opening brackets in all cannot, which two
    C-speed counts settle; only other text is scanned.
    """
    if _openers(text) > limit and nesting_depth(text) > limit:
        raise NormalizeError(too_deep_message(limit))


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number (NaN and infinities are refused)")


@cache
def _json() -> Any:
    """The json module, imported when JSON text is first read or written, not with the package.

    json's decoder, scanner and encoder are a sixteenth of the package's import,
    which values, decoding from dicts and the fold do not need.
    """
    import json

    return json


@cache
def _decoder() -> Any:
    return _json().JSONDecoder(parse_constant=_reject_constant)


@cache
def compact_json() -> Callable[[object], str]:
    """The reference's compact form, ``json.dumps(v, separators=(",", ":"), ensure_ascii=False)``, made once."""
    return compact_encoder(allow_nan=True)


def compact_encoder(*, allow_nan: bool) -> Callable[[object], str]:
    """A new ``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=allow_nan)``: the stdlib's C
    encoder, made here once, else ``JSONEncoder.encode`` (the text is the same).

    ``JSONEncoder.encode`` builds its C encoder (``json.encoder.c_make_encoder``,
    with the same arguments as here) at every call, which costs more than
    encoding a tool call's arguments or a message; where the accelerator is
    missing, the encoder's own ``encode`` does the work.  No circularity check:
    the values are the package's, copied trees of bounded depth.
    """
    json = _json()
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=allow_nan, check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)  # undeclared in typeshed; None without the accelerator
    if make is None:
        plain: Callable[[object], str] = encoder.encode
        return plain
    chunks = make(None, encoder.default, json.encoder.encode_basestring, None, ":", ",", False, False, allow_nan)
    join = "".join

    def encode(value: object) -> str:
        return join(chunks(value, 0))

    return encode


def raw_decode(text: str, pos: int) -> tuple[object, int]:
    """One JSON value of already bounded text at a position: ``(value, end)``.

    It does not bound nesting itself: call :func:`check_depth` on ``text`` first,
    once for all the values it holds.  Raises ``json.JSONDecodeError``, or
    ``ValueError`` for NaN and infinities.
    """
    found: tuple[object, int] = _decoder().raw_decode(text, pos)
    return found


def loads(text: str | bytes | bytearray, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` with nesting bounded first and NaN/Infinity refused; errors are :class:`NormalizeError`.

    The values are what ``json.loads`` gives: decoders check them further.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        from ._error_text import wrong_type

        raise wrong_type("JSON text", "a string, bytes or a bytearray", text)
    json = _json()
    if not isinstance(text, str):  # decoded first: the scan reads UTF-16 and UTF-32 only as text
        try:
            text = bytes(text).decode(json.detect_encoding(text))
        except ValueError as exc:
            raise NormalizeError(f"invalid JSON: {exc}") from None
    check_depth(text, limit)
    try:
        return _decoder().decode(text)
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # "Unterminated string starting at" ends in the word already
        raise NormalizeError(f"invalid JSON: {message} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # a refused constant, bad bytes; RecursionError on a tiny stack
        raise NormalizeError(f"invalid JSON: {exc}") from None


def parse_json(text: str | bytes | bytearray, /, *, max_depth: int = MAX_DEPTH) -> JsonValue:
    """Parse JSON text into a :data:`JsonValue` that every constructor of the package accepts.

    Nesting deeper than ``max_depth`` is refused before parsing, so no input
    can exhaust the interpreter's stack.  Refused, as the wire refuses them:
    NaN and infinities (also numbers too large for a float), lone surrogates
    in strings or keys.  Every refusal is a :class:`NormalizeError` (a
    ``ValueError``) whose message says what is wrong.

    >>> parse_json('{"city": "Paris"}')
    {'city': 'Paris'}
    """
    # The decoders' own walker: what it refuses, no value of the package can hold.
    return json_value(loads(text, max_depth), 1)


def checked_json(value: object, /, *, max_depth: int = MAX_DEPTH) -> JsonValue:
    """A copy of JSON data parsed elsewhere (an SDK's dicts, a web framework's body) that every constructor accepts.

    What :func:`parse_json` refuses in text, this refuses in data, each with a
    :class:`NormalizeError` whose ``path`` names the bad value
    (``messages[1].content[0].input['x']``): objects that are not JSON data (a
    tuple, bytes, a set), keys that are not strings, NaN and infinities, lone
    surrogates, containers nested deeper than ``max_depth`` levels (``value``
    itself is level 1; at most :data:`MAX_DEPTH`).  Subclasses of the JSON
    types become the exact types, and the copy shares no container with
    ``value``.  Recursion is bounded by ``max_depth``, so no input can exhaust
    the stack.

    >>> checked_json({"city": "Paris", "days": (1, 2)})
    Traceback (most recent call last):
      ...
    agentkit_core.NormalizeError: ['days']: invalid type: Python tuple (not JSON data), expected a JSON value
    """
    if type(max_depth) is not int:
        from ._error_text import wrong_type

        raise wrong_type("checked_json: max_depth", "an integer", max_depth)
    if not 1 <= max_depth <= MAX_DEPTH:
        raise ValueError(f"checked_json: max_depth: expected 1 to {MAX_DEPTH}, found {max_depth}")
    shift = MAX_DEPTH - max_depth  # json_value counts to MAX_DEPTH: start it that many levels down
    try:
        return json_value(value, 1 + shift)
    except NormalizeError as exc:
        if shift and exc.message == too_deep_message(MAX_DEPTH):
            raise NormalizeError(too_deep_message(max_depth), exc.path) from None
        raise


# -- JSON text of the wire types -----------------------------------------------------

class JsonCodec:
    """``to_json()`` and ``from_json()`` for every wire type, built on its ``to_dict``/``from_dict``.

    A mixin with no state: the value classes, ids, enums and ``MetadataMap`` derive from it.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        def to_dict(self) -> object: ...

        @classmethod
        def from_dict(cls, v: object, /) -> Any: ...

    def to_json(self) -> str:
        """The compact JSON text of the wire form, byte for byte what the Rust reference writes."""
        return compact_json()(self.to_dict())

    @classmethod
    def from_json(cls: type[J], text: str | bytes | bytearray, /) -> J:
        """Read a value from JSON text (``str``, or UTF-8/16/32 bytes).

        Nesting deeper than 127 levels is refused before parsing.  Invalid
        JSON and data that is not this type raise :class:`NormalizeError`.
        """
        value: J = cls.from_dict(loads(text))
        return value


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
