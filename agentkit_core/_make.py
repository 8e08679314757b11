"""Unchecked makers and fillers: how values are built without their constructors' checks.

A decoder has checked every field as it read it, so calling the constructor
would check everything twice.  It builds through an *unchecked maker*
instead, made once per class when the module loads::

    _make_text = unchecked_maker(TextPart, "text", "metadata")
    part = _make_text("hi", EMPTY_METADATA)  # a TextPart, no check run

``unchecked_maker`` copies the template for two fields, ``_make2`` below, with
its placeholder names ``f0``, ``f1`` replaced by the fields' (the code of a
function is a value: ``code.replace(co_names=...)``), so ``_make_text``
runs exactly as if it had been written by hand::

    def make_TextPart(a0, a1):
        o = twin()             # an empty _MutableTextPart: TextPart with object's __setattr__
        o.text = a0            # plain attribute stores, which the interpreter specialises
        o.metadata = a1
        o.__class__ = TextPart  # from here on, frozen (see "The class swap" below)
        return o

Constructors, which check their arguments themselves, store them with a
*filler* (:func:`filler`): a closure over the slots' own descriptors
(``TextPart.text.__set__``), which no ``__setattr__`` sees; ``self`` may be
an instance of a user's subclass, so it cannot switch class.

Every module imports both from here (``from ._make import filler,
unchecked_maker``), and so do the fold's renderers, which build open parts
from what checked deltas carried.  Neither compiles anything: compiling each
from source at import, as ``dataclasses`` does, took a sixth of the package's
import time.  Each maker owns its code, so the interpreter's caches for its
stores see one class only.

The class swap.  A value class refuses ``o.x = ...`` (its ``__setattr__``
raises), so a maker starts with an instance of the class's *mutable twin*
(:func:`mutable`): a subclass that adds no slots and takes ``object``'s
``__setattr__`` back.  CPython allows assigning ``__class__`` between two
classes whose instances have the same layout, and the twin, adding no slots,
has its class's layout exactly; after the swap the object is an ordinary
instance of the frozen class, indistinguishable from one its constructor
made (``tests/test_edges.py`` checks its type, equality, hash, repr,
frozenness, pickling and copying).  ``Item.from_dict``, which every item
passes, does the maker's work in place, one call fewer.
"""

from __future__ import annotations

from dataclasses import fields
from functools import partial
from types import FunctionType

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    T = TypeVar("T")

    Setter = Callable[[object, object], None]


#: The class namespace of a mutable twin: no slots of its own; object's hooks back (or the
#: frozen ones would still route every store); and object's ``__init__``, so that calling
#: the twin makes an empty instance entirely in C, cheaper than ``object.__new__(twin)``.
_MUTABLE = {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__, "__init__": object.__init__}


def mutable(cls: type) -> Callable[[], Any]:
    """The mutable twin of value class ``cls``, made once: what a maker fills.

    ``Item.from_dict``, which every item passes, fills one in place, one call
    fewer than a maker: ``o = twin(); o.a = ...; o.__class__ = cls`` (the
    class swap of the module docstring).  (Typed
    as making ``Any``: the type checker cannot know that a frozen class's twin
    takes stores.)
    """
    try:
        return _TWINS[cls]
    except KeyError:
        twin = _TWINS[cls] = type(f"_Mutable{cls.__name__}", (cls,), _MUTABLE)
        return twin


_TWINS: dict[type, type] = {}


def unchecked_maker(cls: type[T], *names: str) -> Callable[..., T]:
    """A fast constructor for decoders: ``unchecked_maker(cls, "a", "b")(a, b)`` builds a ``cls``.

    It skips ``__init__``, whose checks (and payload copies) a decoder's values
    passed already as they were read.  Every field of ``cls`` must be named; a
    part's wire depth, which ``__init__`` would record, is measured on first
    use instead (``_check.depth``).
    """
    if set(names) != {f.name for f in fields(cls)}:  # type: ignore[arg-type]
        raise TypeError(f"unchecked_maker({cls.__name__}) must set every field")
    twin = mutable(cls)
    code = _MAKERS[len(names) - 1].__code__
    field_of = {f"f{i}": name for i, name in enumerate(names)}
    name = f"make_{cls.__name__}"
    code = code.replace(co_names=tuple(field_of.get(n, n) for n in code.co_names), co_name=name)
    make = FunctionType(code, {"twin": twin, "cls": cls}, name)
    make.__qualname__ = name
    return make


# The templates.  ``twin`` and ``cls`` are each maker's own globals; ``f0``... are replaced by the
# field names.  The last store before ``return`` swaps the class: legal because the twin adds no
# slots (same layout), and safe because nothing else has seen ``o`` yet (see the module docstring).
# The module's own ``twin`` and ``cls`` below are what the templates read when called themselves,
# which nothing does: a maker binds its class's (unchecked_maker), so these only refuse.


def twin() -> Any:
    """What a template called as itself reads for ``twin``: a refusal (a maker binds its class's twin)."""
    raise TypeError("a maker template is copied by unchecked_maker, never called itself")


cls: type = type(None)  # a maker binds its class; a template called as itself never gets this far


def _make1(a0: object) -> object:
    o = twin()
    o.f0 = a0
    o.__class__ = cls
    return o


def _make2(a0: object, a1: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.__class__ = cls
    return o


def _make3(a0: object, a1: object, a2: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.f2 = a2
    o.__class__ = cls
    return o


def _make4(a0: object, a1: object, a2: object, a3: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.f2 = a2
    o.f3 = a3
    o.__class__ = cls
    return o


def _make5(a0: object, a1: object, a2: object, a3: object, a4: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.f2 = a2
    o.f3 = a3
    o.f4 = a4
    o.__class__ = cls
    return o


def _make6(a0: object, a1: object, a2: object, a3: object, a4: object, a5: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.f2 = a2
    o.f3 = a3
    o.f4 = a4
    o.f5 = a5
    o.__class__ = cls
    return o


def _make7(a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object) -> object:
    o = twin()
    o.f0 = a0
    o.f1 = a1
    o.f2 = a2
    o.f3 = a3
    o.f4 = a4
    o.f5 = a5
    o.f6 = a6
    o.__class__ = cls
    return o


#: The maker templates, by number of fields.
_MAKERS = (_make1, _make2, _make3, _make4, _make5, _make6, _make7)


def filler(cls: type, *names: str) -> Callable[..., None]:
    """A function storing ``names`` on an instance of ``cls``, in order: ``fill(obj, a, b)``.

    Each store goes through the slot's own descriptor (``cls.a.__set__``),
    which no ``__setattr__`` sees, and which is faster than
    ``object.__setattr__(obj, "a", a)``, a generic call that looks the name
    up every time.  Constructors fill their instance this way once their
    arguments are checked.
    """
    setters = [getattr(cls, name).__set__ for name in names]
    if len(setters) == 1:
        set_one: Callable[..., None] = setters[0]
        return set_one
    if len(setters) > len(_FILLERS) + 1:  # a wide class (ModelSettings): one loop, for constructors off the hot paths
        return partial(_fill_all, tuple(setters))
    fill: Callable[..., None] = _FILLERS[len(setters) - 2](*setters)
    return fill


def _fill_all(setters: tuple[Setter, ...], o: object, *values: object) -> None:
    for store, value in zip(setters, values):
        store(o, value)


def _fill2(s0: Setter, s1: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object) -> None:
        s0(o, a0)
        s1(o, a1)

    return fill


def _fill3(s0: Setter, s1: Setter, s2: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object, a2: object) -> None:
        s0(o, a0)
        s1(o, a1)
        s2(o, a2)

    return fill


def _fill4(s0: Setter, s1: Setter, s2: Setter, s3: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object, a2: object, a3: object) -> None:
        s0(o, a0)
        s1(o, a1)
        s2(o, a2)
        s3(o, a3)

    return fill


def _fill5(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object, a2: object, a3: object, a4: object) -> None:
        s0(o, a0)
        s1(o, a1)
        s2(o, a2)
        s3(o, a3)
        s4(o, a4)

    return fill


def _fill6(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object) -> None:
        s0(o, a0)
        s1(o, a1)
        s2(o, a2)
        s3(o, a3)
        s4(o, a4)
        s5(o, a5)

    return fill


def _fill7(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter) -> Callable[..., None]:
    def fill(o: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object) -> None:
        s0(o, a0)
        s1(o, a1)
        s2(o, a2)
        s3(o, a3)
        s4(o, a4)
        s5(o, a5)
        s6(o, a6)

    return fill


#: The filler closures, by number of fields from two.
_FILLERS = (_fill2, _fill3, _fill4, _fill5, _fill6, _fill7)
