"""Seeded mutation of native JSON, for the bad-input tests of the provider projections.

The rule, as tomli's ``fuzzer/fuzz.py`` states it: whatever a public function
is given, it returns or raises :class:`~agentkit_core.NormalizeError`, never
any other exception.  :func:`mutate` breaks one place of a body,
:func:`mutate_stream` a stream of events, and :func:`outcome` runs a call under
the rule.  Every choice comes from the caller's seeded ``random.Random``, so a
failure replays.
"""

from __future__ import annotations

import copy
import random
import unittest
from typing import Any, Callable, Sequence, TypeVar

from agentkit_core import NormalizeError, TextPart

T = TypeVar("T")

#: What a body may hold where the API puts something else: every JSON type with its edge values
#: (a number no 64-bit integer holds, text no encoder expects), shapes the decoders dispatch on,
#: and values no JSON holds at all (NaN, bytes, a lone surrogate, tuples, sets, non-string keys,
#: objects, parts), which every decoder refuses.
ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 5, 2**70, 1.5, 2.5, float("nan"),
    "", "x", "text", "\u00e9", "\u2028", "STOP", "response.completed",
    [], [1], [None], [1, "a"], {"a": {"b": [[[[]]]]}},
    {}, {"a": None}, {"text": "t"},
    {"type": "text"}, {"type": None}, {"type": "message"}, {"type": "reasoning"}, {"type": "function_call"},
    "\udc80", b"\xff\xfe", b"data: {}\n\n", {"a": float("nan")}, {1: 2}, {"a": (1,)}, ("t",), {1, 2},
    object(), [TextPart("x")],
)


def odd_value(rng: random.Random) -> Any:
    """A fresh copy of one of :data:`ODD_VALUES`."""
    return copy.deepcopy(rng.choice(ODD_VALUES))


def paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value``, as the keys and indices that lead to it; ``()`` is ``value`` itself."""
    found = [here]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, here + (key,))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, here + (index,))
    return found


def mutate(value: Any, rng: random.Random) -> Any:
    """A copy of ``value`` with one change at one place (the whole value included).

    The place is dropped, nulled, replaced by an odd value or wrapped in a
    list; a key is renamed (``camelCase`` to ``snake_case``, or upper case); a
    list is reversed, cut, grown by a copy of its first element or shuffled.
    """
    value = copy.deepcopy(value)
    path = rng.choice(paths(value))
    if not path:
        return odd_value(rng)
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    action = rng.randrange(6)
    if action == 0:
        del parent[key]
    elif action == 1:
        parent[key] = None
    elif action == 2:
        parent[key] = [parent[key]]
    elif action == 3 and isinstance(key, str):
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        parent[snake if snake != key else key.upper()] = parent.pop(key)
    elif action == 4 and isinstance(parent[key], list) and parent[key]:
        items = parent[key]
        rng.choice([items.reverse, items.pop, lambda: items.append(copy.deepcopy(items[0])), lambda: rng.shuffle(items)])()
    else:
        parent[key] = odd_value(rng)
    return value


def mutate_stream(events: Sequence[Any], rng: random.Random, pool: Sequence[Any] | None = None) -> list[Any]:
    """A copy of ``events`` with one change.

    The stream is cut short or shuffled; one event is dropped or repeated in
    place; one to three events are mutated; two mutated events of ``pool`` are
    inserted, two of its events appended, or about a fifth of the stream dropped
    and one event of ``pool`` appended twice.  ``pool`` (the stream itself
    unless given: another stream's events, say) is never changed.
    """
    source = events if pool is None else pool
    events = copy.deepcopy(list(events))
    action = rng.randrange(8) if events else 6
    if action == 0:
        return events[: rng.randrange(len(events) + 1)]
    if action == 1:
        rng.shuffle(events)
    elif action == 2:
        del events[rng.randrange(len(events))]
    elif action == 3:
        at = rng.randrange(len(events))
        events.insert(at, copy.deepcopy(events[at]))
    elif action == 4:
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(events))
            events[at] = mutate(events[at], rng)
    elif action == 5 and source:
        at = rng.randrange(len(events) + 1)
        events[at:at] = [mutate(rng.choice(source), rng) for _ in range(2)]
    elif action == 6 and source:
        events += [copy.deepcopy(rng.choice(source)) for _ in range(2)]
    elif action == 7:
        events = [e for e in events if rng.random() > 0.2]
        again = [rng.choice(source)] * 2 if source else []
        events += copy.deepcopy(again)
    return events


def outcome(test: unittest.TestCase, call: Callable[[], T]) -> T | None:
    """``call()``, or ``None`` when it raised ``NormalizeError`` (which must name a path).

    Any other exception escapes, and ``test`` errs: that is the failure the rule forbids.
    """
    try:
        return call()
    except NormalizeError as exc:
        test.assertIsInstance(exc.path, str)
        return None
