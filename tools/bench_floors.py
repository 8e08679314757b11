"""Floors for the codec targets: the least any pure-Python codec of this design can cost.

A target is only worth chasing while it sits above the floor.  Each floor is a
function compiled for one transcript that does a codec's unavoidable work and
nothing else:

* :func:`output_floor` builds the transcript's wire dicts from constants: every
  dict and list ``to_dict`` must return, with no attribute read, no call and no
  branch (strings and numbers are shared, as ``to_dict`` shares them);
* :func:`value_floor` builds the transcript's frozen values through the
  decoders' own unchecked makers (``_make.unchecked_maker``), from constants: no
  dict lookup, no type check, no Unicode or range check, no error path.

``tools/bench_codec.py`` times them beside ``to_dict``/``from_dict`` and the
peers, so the table shows how much of each target's budget the floor alone
takes.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable

import agentkit_core as ak
from agentkit_core._make import unchecked_maker
from agentkit_core.metadata import EMPTY_METADATA


def _compile(exprs: list[str], namespace: dict[str, Any]) -> Callable[[], list[Any]]:
    source = "def build():\n    return [\n" + "".join(f"        {e},\n" for e in exprs) + "    ]\n"
    exec(compile(source, "<floor>", "exec"), namespace)
    build: Callable[[], list[Any]] = namespace["build"]
    return build


def output_floor(wire: list[Any]) -> Callable[[], list[Any]]:
    """A function returning fresh copies of ``wire`` (JSON data), built from constants."""
    return _compile([repr(w) for w in wire], {})


def value_floor(items: list[ak.Item], wire: list[Any]) -> Callable[[], list[ak.Item]]:
    """A function returning values equal to ``items``, built from constants without checks.

    ``wire`` is the transcript's wire form: bytes are built from its integer
    lists, as a decoder must.
    """
    namespace: dict[str, Any] = {"EMPTY": EMPTY_METADATA, "Timestamp": ak.Timestamp}
    byte_lists: list[list[int]] = []
    namespace["B"] = byte_lists

    def find_bytes(v: Any) -> None:  # collect the wire's byte arrays, in order
        if isinstance(v, dict):
            if "InlineBytes" in v:
                byte_lists.append(v["InlineBytes"])
            for x in v.values():
                find_bytes(x)
        elif isinstance(v, list):
            for x in v:
                find_bytes(x)

    find_bytes(wire)
    used = iter(range(len(byte_lists)))

    def expr(v: Any) -> str:
        t = type(v)
        if isinstance(v, (enum.Enum, ak.FinishReason)):  # shared constants, as decoders return them
            name = f"k{id(v)}"
            namespace[name] = v
            return name
        if t is ak.MetadataMap:
            assert not v, "the floor transcript has no metadata"
            return "EMPTY"
        if t is ak.Timestamp:
            return f"Timestamp({int(v)})"
        if t is tuple:
            return "(" + "".join(f"{expr(x)}, " for x in v) + ")"
        if t is bytes:
            return f"bytes(B[{next(used)}])"
        if dataclasses.is_dataclass(v):
            names = [f.name for f in dataclasses.fields(v)]
            make = f"make_{t.__name__}"
            if make not in namespace:
                namespace[make] = unchecked_maker(t, *names)
            return f"{make}({', '.join(expr(getattr(v, n)) for n in names)})"
        return repr(v)  # str, int, None, bool; a JSON dict or list is a display, so a fresh copy

    build = _compile([expr(i) for i in items], namespace)
    assert build() == items
    return build
