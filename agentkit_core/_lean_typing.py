"""The few names of :mod:`typing` the package uses at run time, made without importing it.

Importing :mod:`typing` costs about a fifth of what importing the whole package
does (3 ms on a laptop-class core, more than ``enum`` and ``json`` together),
and no value of the package needs it: annotations are strings
(``from __future__ import annotations``), and every module spells
``TYPE_CHECKING = False`` rather than importing it (type checkers read any
name ``TYPE_CHECKING`` as true).  What remains are the class statements that
name typing's special bases, :class:`Generic` and :class:`Protocol`.  A module
imports those from here in its ``else`` branch of ``if TYPE_CHECKING:`` and
from :mod:`typing` in the other, so a type checker sees typing's own, and the
run time sees these:

* :class:`Generic`: a plain base, subscriptable as ``Generic[P, R]`` is, whose
  subscript is the class itself;
* :class:`Protocol` and :func:`runtime_checkable`: a structural base whose
  ``isinstance`` tests the protocol's members the way ``typing`` does for a
  runtime-checkable protocol (every member present, a ``TypeError`` for a
  protocol not marked so), which cannot be instantiated, and whose subscript
  is the class itself; a class deriving from a protocol without naming
  :class:`Protocol` among its bases is an ordinary class;
* :func:`type_parameter`: what stands for a ``TypeVar`` or ``ParamSpec`` in
  those subscripts (its name; nothing reads it).

A user who imports :mod:`typing` loses nothing: annotations resolve to the
same names, and ``isinstance(item, ItemView)`` answers as before.
"""

from __future__ import annotations

TYPE_CHECKING = False  # see above
if TYPE_CHECKING:
    from typing import Any, TypeVar

    C = TypeVar("C", bound=type)

__all__ = ("Generic", "Protocol", "runtime_checkable", "type_parameter")


def type_parameter(name: str, **_variance: bool) -> str:
    """What stands for ``TypeVar(name, ...)`` or ``ParamSpec(name)`` at run time: the name."""
    return name


class Generic:
    """A plain base that ``Generic[...]`` subscripts to itself."""

    __slots__ = ()

    def __class_getitem__(cls, _params: object) -> type:
        return cls


# Names a protocol class has of its own that are not members (typing leaves out the same ones).
_NOT_MEMBERS = frozenset(
    {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__", "__annotations__",
     "__parameters__", "__orig_bases__", "__init__", "__class_getitem__", "__protocol_members__",
     "__firstlineno__", "__static_attributes__", "_is_protocol", "_is_runtime_protocol"}
)


class _ProtocolMeta(type):
    """Makes a protocol's ``isinstance`` structural, as ``typing``'s runtime-checkable protocols are."""

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> None:
        super().__init__(name, bases, namespace)
        cls._is_protocol = name == "Protocol" and not bases or any(base is Protocol for base in bases)
        cls._is_runtime_protocol = False
        members: set[str] = set()
        for klass in cls.__mro__[:-1]:  # every protocol's own members, the ones it derives included
            if klass.__dict__.get("_is_protocol"):
                members.update(n for n in klass.__dict__ if n not in _NOT_MEMBERS)
                members.update(klass.__dict__.get("__annotations__", ()))
        cls.__protocol_members__ = frozenset(members)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls._is_protocol:
            raise TypeError(f"{cls.__name__} is a protocol and cannot be instantiated: any object with its members satisfies it")
        return super().__call__(*args, **kwargs)

    def __instancecheck__(cls, obj: object) -> bool:
        if not cls._is_protocol:
            return super().__instancecheck__(obj)
        if not cls._is_runtime_protocol:
            raise TypeError(f"isinstance() needs a protocol marked @runtime_checkable, and {cls.__name__} is not")
        return all(hasattr(obj, name) for name in cls.__protocol_members__)


class Protocol(metaclass=_ProtocolMeta):
    """The base of a structural protocol at run time (``typing.Protocol`` to a type checker)."""

    __slots__ = ()

    def __class_getitem__(cls, _params: object) -> type:
        return cls


def runtime_checkable(cls: C) -> C:
    """Marks a protocol for ``isinstance``, as ``typing.runtime_checkable`` does."""
    if not getattr(cls, "_is_protocol", False):
        raise TypeError(f"@runtime_checkable applies to protocol classes, and {cls.__name__} is not one")
    setattr(cls, "_is_runtime_protocol", True)  # noqa: B010 - mypy knows no such attribute on C
    return cls
