"""Equality, hashing and repr by fields, written once for every value class.

Every value is a ``@dataclass(frozen=True, slots=True, eq=False, repr=False)``
deriving from :class:`Value`.  The dataclass machinery compiles each method it
generates from source when the class is created, and those compilations are
most of the package's import time; taking ``__eq__``, ``__hash__`` and
``__repr__`` from this base halves them.  They behave as the generated ones do:

* ``a == b`` when both are exactly the same class and their fields compare
  equal as a tuple (so a field holding the very same NaN still matches, on
  every Python version);
* ``hash(a)`` hashes that tuple, so a value hashes when all of its fields do;
* ``repr(a)`` is ``ClassName(field=value, ...)``, guarded against a value
  reached again through its own JSON payload.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, Callable

from .jsontext import JsonCodec

_Fields = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_FIELDS: dict[type, _Fields | None] = {}


def _fields_of(cls: type) -> _Fields | None:
    """A value class's field names and a getter of its fields as a tuple; ``None`` if no dataclass."""
    try:
        return _FIELDS[cls]
    except KeyError:
        pass
    known: _Fields | None = None
    if is_dataclass(cls):
        names = tuple(f.name for f in fields(cls))
        get = attrgetter(*names)
        known = (names, get if len(names) > 1 else lambda v: (get(v),))
    _FIELDS[cls] = known
    return known


class Value(JsonCodec):
    """The base of every value class: equality, hashing and repr by fields.

    A subclass that is not a dataclass has none, and keeps ``object``'s.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        known = _fields_of(self.__class__)
        if known is None:
            return self is other
        return known[1](self) == known[1](other)

    def __hash__(self) -> int:
        known = _fields_of(self.__class__)
        return object.__hash__(self) if known is None else hash(known[1](self))

    @recursive_repr()
    def __repr__(self) -> str:
        known = _fields_of(self.__class__)
        if known is None:
            return object.__repr__(self)
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in known[0])
        return f"{self.__class__.__qualname__}({shown})"
