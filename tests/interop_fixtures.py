"""The interop fixtures in ``tests/interop/`` (what the real libraries dump; see the README there), loaded once."""

from __future__ import annotations

import functools
import json
import os
from typing import Any

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "interop")


@functools.lru_cache(maxsize=None)
def _load(name: str) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def load(name: str) -> Any:
    """A fresh copy of the fixture ``name`` (``"mcp.json"``), parsed."""
    return json.loads(_load(name))


#: Values a library writes for a field left at its default: a dump holds them, a history written back may leave them out.
DEFAULTS: tuple[Any, ...] = (None, False, 0, 0.0, {}, [], "complete", "conversation", "success")


def covers(test: Any, written: Any, dumped: Any, path: str = "") -> None:
    """``written`` says what ``dumped`` says: the same value at every field it has, and only defaults left out."""
    if isinstance(dumped, dict) and isinstance(written, dict):
        for key, value in written.items():
            test.assertIn(key, dumped, f"{path}.{key}: written, not in the dump")
            covers(test, value, dumped[key], f"{path}.{key}")
        for key, value in dumped.items():
            if key not in written:
                test.assertIn(value, DEFAULTS, f"{path}.{key}: left out, and not a default")
    elif isinstance(dumped, list) and isinstance(written, list):
        test.assertEqual(len(written), len(dumped), path)
        for n, (a, b) in enumerate(zip(written, dumped)):
            covers(test, a, b, f"{path}[{n}]")
    else:
        test.assertEqual(written, dumped, path)
