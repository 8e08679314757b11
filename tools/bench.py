#!/usr/bin/env python3
"""Benchmarks of agentkit_core, as ratios against baselines measured in the same run.

Absolute times on shared machines swing by 2x between runs; a ratio against a
baseline timed in the same process a moment earlier does not.  Each area lives
in a module beside this one (``bench_codec.py``, ``bench_fold.py``,
``bench_cancel.py``, ``bench_providers.py``, ``bench_requests.py``, ``bench_http.py``, ``bench_interop.py``, ``bench_eventstream.py``,
``bench_sessions.py``, ``bench_by_name.py``) exposing functions ``(quick: bool) -> list[Row]``; this
script runs them all and prints one table.

Usage:  python tools/bench.py [--quick] [--only AREA[,AREA...]]

Peer libraries (langchain-core, pydantic-ai-slim, msgspec; pydantic-ai's own
request mapping in the "requests" area) and, in the
"providers" area (``bench_providers.py``), the providers' SDKs (anthropic,
openai, google-genai) are compared when they are importable and reported as
skipped otherwise; nothing here needs them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Callable, NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

#: area -> (module beside this file, function returning its rows)
AREAS = {
    "codec": ("bench_codec", "measure"),
    "import": ("bench_codec", "measure_import"),
    "fold": ("bench_fold", "measure"),
    "cancel": ("bench_cancel", "measure"),
    "cancel-http": ("bench_cancel", "measure_http"),
    "cancel-complete": ("bench_cancel", "measure_complete"),
    "providers": ("bench_providers", "measure"),
    "scaling": ("bench_streams", "measure"),
    "http": ("bench_http", "measure"),
    "requests": ("bench_requests", "measure"),
    "interop": ("bench_interop", "measure"),
    "eventstream": ("bench_eventstream", "measure"),
    "sessions": ("bench_sessions", "measure"),
    "by-name": ("bench_by_name", "measure"),
}


class Row(NamedTuple):
    """One line of the table."""

    area: str
    name: str
    result: str  # what was measured, e.g. "2.1 us/item"
    ratio: str  # e.g. "0.31x baseline (list append+join)"
    target: str  # e.g. "<= 5x: ok" / "skipped: langchain-core not installed"


def best_of(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The best wall time of ``repeat`` runs of ``number`` calls, in seconds per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, time.perf_counter() - t0)
    return best / number


def paired(fn: Callable[[], object], base: Callable[[], object], rounds: int = 7, number: int = 1) -> tuple[float, float, float]:
    """Time ``fn`` and ``base`` in alternating rounds; return (fn seconds, base seconds, ratio).

    Noise on a shared machine only ever adds time, so each side's minimum over
    the rounds converges on its true cost; alternating the rounds exposes both
    sides to the same spells of load.  The ratio is min(fn) / min(base).
    """
    fn_best = base_best = float("inf")
    for _ in range(rounds):
        base_best = min(base_best, best_of(base, 3, number))
        fn_best = min(fn_best, best_of(fn, 3, number))
    return fn_best, base_best, fn_best / base_best


def verdict(ok: bool, target: str) -> str:
    return f"{target}: {'ok' if ok else 'MISSED'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated areas: " + ",".join(AREAS))
    args = parser.parse_args(argv)
    areas = [a for a in args.only.split(",") if a] or list(AREAS)
    rows: list[Row] = []
    for area in areas:
        if area not in AREAS:
            parser.error(f"unknown area {area!r}; choose from {', '.join(AREAS)}")
        module, function = AREAS[area]
        rows.extend(getattr(importlib.import_module(module), function)(args.quick))
    widths = [max(len(r[i]) for r in rows + [Row("area", "measure", "result", "ratio", "target")]) for i in range(5)]
    header = Row("area", "measure", "result", "ratio", "target")
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
