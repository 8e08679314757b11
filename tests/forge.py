"""Values built around their constructors' checks, for testing what refuses them further on.

Constructors refuse what the wire cannot carry, so a test of a downstream
refusal (the fold's ``ProtocolError`` for a chunk that is not a ``str``, an
encoder's refusal) must build its corrupt value the way corrupt data could
reach that code: bypassing the constructor.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def forged(cls: type[T], **fields: Any) -> T:
    """A ``cls`` whose fields are ``fields`` as given, unchecked (its constructor never runs)."""
    value: T = object.__new__(cls)
    for name, v in fields.items():
        object.__setattr__(value, name, v)
    return value


def lenient(cls: type[T], **fields: Any) -> T:
    """``cls(**fields)`` when the constructor accepts them, else :func:`forged`: what a careless caller might hold."""
    try:
        return cls(**fields)
    except (TypeError, ValueError):
        return forged(cls, **fields)
