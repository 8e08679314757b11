"""Fold benchmarks (area "fold" of tools/bench.py).

The stream has the OpenAI-compatible adapter's shape: a reasoning part, a
text part and two tool calls open at once, fed small chunks in turn, then
committed at the end.

Baselines, measured in the same run:

* ``fold_all``: the least work that separates the same deltas into parts,
  appending each chunk to its part's list, keyed by part id, and joining the
  lists at the end;
* step-wise ``fold``: pydantic-ai's ``ModelResponsePartsManager`` fed the same
  stream as its own events, when pydantic-ai is installed;
* linearity: the same stream 10 times longer, folded step by step with every
  intermediate state kept alive (ideal ratio 10).
"""

from __future__ import annotations

import gc
import time
from typing import Any, Callable

from bench import Row, paired, verdict

import agentkit_core as ak

CHUNKS = ("The ", "parser ", "drops ", "the ", "last ", "line; ", "fix ", "it.")


def build_stream(rounds: int) -> list[ak.Delta]:
    """Four open parts, ``rounds`` chunks each, interleaved; committed at the end."""
    P = ak.PartId
    ids = (P("part-0-reasoning"), P("part-0-content"), P("part-0-tool-0"), P("part-0-tool-1"))
    kinds = (ak.PartKind.REASONING, ak.PartKind.TEXT, ak.PartKind.TOOL_CALL, ak.PartKind.TOOL_CALL)
    deltas: list[ak.Delta] = [ak.BeginPart(i, k) for i, k in zip(ids, kinds)]
    pieces: dict[ak.PartId, list[str]] = {i: [] for i in ids}
    args = ['{"path": "src/', "file_", "0.py", '", "max_lines": ', "200", "}"]
    for n in range(rounds):
        for i, pid in enumerate(ids):
            chunk = CHUNKS[n % len(CHUNKS)] if i < 2 else args[n % len(args)]
            pieces[pid].append(chunk)
            deltas.append(ak.AppendText(pid, chunk))
    deltas.append(ak.CommitPart(ak.ReasoningPart("".join(pieces[ids[0]])), part_id=ids[0]))
    deltas.append(ak.CommitPart(ak.TextPart("".join(pieces[ids[1]])), part_id=ids[1]))
    for n, pid in enumerate(ids[2:]):
        deltas.append(ak.CommitPart(ak.ToolCallPart(ak.ToolCallId(f"call_{n}"), "fs_read_file", None), part_id=pid))
    return deltas


def append_join(deltas: list[ak.Delta]) -> dict[str, str]:
    """The baseline: each chunk onto its part's list, joined at the end."""
    bufs: dict[str, list[str]] = {}
    for d in deltas:
        if type(d) is ak.AppendText:
            bufs.setdefault(d.part_id.value, []).append(d.chunk)
    return {k: "".join(v) for k, v in bufs.items()}


def stepwise(deltas: list[ak.Delta], keep: bool) -> object:
    state = ak.FoldState()
    kept = []
    for d in deltas:
        state = ak.fold(state, d)
        if keep:
            kept.append(state)
    return state, kept


def stepwise_with_snapshots(deltas: list[ak.Delta]) -> object:
    state = ak.FoldState()
    for d in deltas:
        state = ak.fold(state, d)
        state.snapshot()
    return state


def pydantic_ai_stepwise(deltas: list[ak.Delta]) -> Callable[[], object] | str:
    try:
        from pydantic_ai._parts_manager import ModelResponsePartsManager
        from pydantic_ai.models import ModelRequestParameters
    except ImportError:
        return "pydantic-ai-slim not installed"
    try:  # its constructor changed over releases
        make_manager: Callable[[], Any] = lambda: ModelResponsePartsManager(ModelRequestParameters())  # noqa: E731
        make_manager()
    except TypeError:
        make_manager = ModelResponsePartsManager
    events: list[tuple[str, str, str]] = [
        ("thinking" if "reasoning" in d.part_id.value else "text" if "content" in d.part_id.value else "tool", d.part_id.value, d.chunk)
        for d in deltas
        if isinstance(d, ak.AppendText)
    ]

    def run() -> object:
        manager = make_manager()
        for kind, pid, chunk in events:
            if kind == "text":
                for _ in manager.handle_text_delta(vendor_part_id=pid, content=chunk):
                    pass
            elif kind == "thinking":
                for _ in manager.handle_thinking_delta(vendor_part_id=pid, content=chunk):
                    pass
            else:
                manager.handle_tool_call_delta(vendor_part_id=pid, tool_name="fs_read_file", args=chunk, tool_call_id=pid)
        return manager.get_parts()

    return run


def measure(quick: bool) -> list[Row]:
    deltas = build_stream(2500)  # 10k appends
    n = len(deltas)
    expected = ak.fold_all((), deltas)
    assert expected.parts == ak.fold_all((), deltas).parts and not expected.is_open
    assert stepwise(deltas, False)[0] == expected  # type: ignore[index]

    ns = lambda s: f"{s / n * 1e9:.0f} ns/delta"  # noqa: E731
    rounds = 5 if quick else 15
    whole, base, r_whole = paired(lambda: ak.fold_all((), deltas), lambda: append_join(deltas), rounds)
    step, _, r_step = paired(lambda: stepwise(deltas, False), lambda: append_join(deltas), rounds)
    kept, _, r_kept = paired(lambda: stepwise(deltas, True), lambda: append_join(deltas), rounds)
    snap, _, r_snap = paired(lambda: stepwise_with_snapshots(deltas), lambda: append_join(deltas), rounds)
    rows = [
        Row("fold", "baseline: list append + join per part", ns(base), "1.00x", ""),
        Row("fold", f"fold_all ({n} deltas, 4 parts open)", ns(whole), f"{r_whole:.2f}x baseline", verdict(r_whole <= 5, "<= 5x (goal 3x)")),
        Row("fold", "fold step by step", ns(step), f"{r_step:.2f}x baseline", ""),
        Row("fold", "fold step by step, every state kept", ns(kept), f"{r_kept:.2f}x baseline", ""),
        Row("fold", "fold + snapshot() after every delta", ns(snap), f"{r_snap:.2f}x baseline", ""),
    ]

    peer = pydantic_ai_stepwise(deltas)
    if isinstance(peer, str):
        rows.append(Row("fold", "peer pydantic-ai parts manager", "-", "-", f"skipped: {peer}"))
    else:
        ours, theirs, ratio = paired(lambda: stepwise(deltas, False), peer, rounds)
        speedup = 1 / ratio
        rows.append(Row("fold", "peer pydantic-ai parts manager (same stream)", ns(theirs), f"ours (step-wise) {speedup:.2f}x faster", verdict(speedup >= 1, "not slower (goal 1.5x)")))

    small, large = build_stream(25_000), build_stream(250_000)  # ~100k and ~1M deltas
    for label, fn in (("step-wise, all states kept", lambda d: stepwise(d, True)), ("fold_all", lambda d: ak.fold_all((), d))):
        t_small = min(_timed(lambda: fn(small), gc_paused=True) for _ in range(5))
        t_large = min(_timed(lambda: fn(large), gc_paused=True) for _ in range(2))
        ratio = t_large / t_small
        rows.append(Row("fold", f"1M vs 100k deltas, {label} (GC paused)", f"{t_large:.2f} s vs {t_small:.2f} s", f"{ratio:.1f}x", verdict(ratio <= 12, "linear: about 10")))
    t_small, t_large = _timed(lambda: stepwise(small, True)), _timed(lambda: stepwise(large, True))
    rows.append(
        Row("fold", "1M vs 100k deltas, states kept, GC running", f"{t_large:.2f} s vs {t_small:.2f} s", f"{t_large / t_small:.1f}x", "info: CPython's collector re-traverses 1M live states")
    )
    return rows


def _timed(fn: Callable[[], object], gc_paused: bool = False) -> float:
    """Seconds of one call; ``gc_paused`` pauses the cyclic collector while timing, as ``timeit`` does."""
    gc.collect()
    if gc_paused:
        gc.disable()
    try:
        t0 = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
    del result
    gc.collect()
    return elapsed
