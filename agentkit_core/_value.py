"""What every value class shares: equality, hashing and repr by fields, freezing, factories.

Every value class is a frozen slotted dataclass deriving from :class:`Value`,
made by this module's :func:`dataclass`, and writes its own ``__init__``,
which checks its arguments.  The dataclass machinery compiles each method it
generates from source when the class is created, which would be most of the
package's import time; so it generates none.  ``__eq__``, ``__hash__`` and
``__repr__`` come from this base and behave as the generated ones do:

* ``a == b`` when both are exactly the same class and their fields compare
  equal as a tuple (so a field holding the very same NaN still matches, on
  every Python version);
* ``hash(a)`` hashes that tuple, so a value hashes when all of its fields do;
* ``repr(a)`` is ``ClassName(field=value, ...)``, guarded against a value
  reached again through its own JSON payload.

Assigning or deleting any attribute of a value, a field or not, raises
:class:`dataclasses.FrozenInstanceError` naming the class and the attribute:
this base's ``__setattr__`` and ``__delattr__`` refuse everything.  (A
frozen dataclass would generate its own, which also raise a confusing
``TypeError`` for names that are not fields.)  Code that builds values stores
fields through the slots' own descriptors (``_make.filler``), which no
``__setattr__`` sees, or fills a mutable twin (``_make.unchecked_maker``).

A :class:`factory` is a function on a class that makes a value
(``Part.text("hi")``); instances and subclasses refuse it with
``AttributeError``, so ``item.text`` never hands back a function that looks
like a field, and ``ToolCallPart.text("hi")`` never makes a ``TextPart``.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass as _dataclass, fields, is_dataclass
from operator import attrgetter
from reprlib import recursive_repr

from .jsontext import JsonCodec

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Callable, Generic, NoReturn, ParamSpec, TypeVar, overload

    _Fields = tuple[tuple[str, ...], Callable[[object], tuple[object, ...]]]

else:  # the same class without importing typing: see _lean_typing
    from ._lean_typing import Generic, type_parameter as ParamSpec, type_parameter as TypeVar

P = ParamSpec("P")
R = TypeVar("R")

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


def field_values(v: object) -> tuple[object, ...]:
    """The values of a value's fields, in order."""
    known = _fields_of(type(v))
    assert known is not None, "a value class is a dataclass"
    return known[1](v)


def refuse_setattr(self: object, name: str, value: object) -> NoReturn:
    """``__setattr__`` of a frozen value: every assignment raises :class:`FrozenInstanceError`."""
    cls = type(self).__name__
    raise FrozenInstanceError(f"cannot assign to {cls}.{name}: {cls} values are frozen (builders return changed copies)")


def refuse_delattr(self: object, name: str) -> NoReturn:
    """``__delattr__`` of a frozen value: every deletion raises :class:`FrozenInstanceError`."""
    cls = type(self).__name__
    raise FrozenInstanceError(f"cannot delete {cls}.{name}: {cls} values are frozen")


class Value(JsonCodec):
    """The base of every value class: equality, hashing and repr by fields; frozen.

    A subclass that is not a dataclass has none, and keeps ``object``'s.
    """

    __slots__ = ()

    if not TYPE_CHECKING:  # mypy reads frozen=True on each dataclass; these enforce it at run time
        __setattr__ = refuse_setattr
        __delattr__ = refuse_delattr

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


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(*, frozen, **options):
        """``dataclasses.dataclass`` for the value classes, which :class:`Value` freezes.

        ``@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)``
        makes the class the standard decorator would, a frozen slotted
        dataclass, but without having the machinery generate a frozen
        dataclass's ``__setattr__`` and ``__delattr__``: it compiles them from
        source, which made them the most costly part of importing the
        package, and :class:`Value`'s replace them anyway.  So the class is
        frozen by :class:`Value`, says so (``__dataclass_params__.frozen``),
        and pickles and copies by the values of its fields, as a frozen
        slotted dataclass does.
        """

        def make(cls):
            if not (frozen and issubclass(cls, Value)):
                raise TypeError(f"{cls.__name__}: a value class is a frozen dataclass deriving from Value")
            cls = _dataclass(**options)(cls)
            cls.__dataclass_params__.frozen = True
            cls.__getstate__ = _getstate
            cls.__setstate__ = _setstate
            return cls

        return make


def _getstate(self: object) -> list[object]:
    return [getattr(self, name) for name in _fields_of(type(self))[0]]  # type: ignore[index]


def _setstate(self: object, state: list[object]) -> None:
    for name, value in zip(_fields_of(type(self))[0], state):  # type: ignore[index]
        object.__setattr__(self, name, value)


class factory(Generic[P, R]):
    """A factory function reachable from the class that defines it, and only from there.

    ``Part.text`` is the function.  ``part.text`` on an instance raises
    ``AttributeError`` (unless the variant has a field of that name, which
    then shadows the factory, as ``TextPart.text`` does), and so does
    ``ToolCallPart.text`` on a subclass: a variant class offers its own
    factories, never its base's, which would make another variant.
    """

    __slots__ = ("func", "name", "home")

    def __init__(self, func: Callable[P, R]) -> None:
        self.func = func
        self.name = func.__name__
        self.home: type = object  # the defining class, set when the class is made

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.home = name, owner

    if TYPE_CHECKING:

        @overload
        def __get__(self, obj: None, owner: type | None = None) -> Callable[P, R]: ...

        @overload
        def __get__(self, obj: object, owner: type | None = None) -> NoReturn: ...

    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]:
        if obj is None and owner is self.home:
            return self.func
        home, name = self.home.__name__, self.name
        where, holder = (f"{type(obj).__name__!r} object", obj) if obj is not None else (f"type object {getattr(owner, '__name__', '?')!r}", owner)
        raise AttributeError(f"{where} has no attribute {name!r} ({home}.{name} is a factory: call it on {home})", name=name, obj=holder)


def not_constructible(family: str, examples: str) -> Callable[..., NoReturn]:
    """An ``__init__`` for a union's base class, which has no values of its own."""

    def __init__(self: object, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"{family} is the base of its variants and has no values of its own: make a {examples}")

    return __init__
