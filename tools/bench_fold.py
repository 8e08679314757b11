"""Fold benchmarks (area "fold" of tools/bench.py).

Two streams:

* the long text stream (issue 13's workload): one text part fed 100,000
  four-character chunks and committed, then a tool call whose ~10 KB JSON
  arguments arrive in 10-character fragments, then its commit;
* the interleaved stream, the OpenAI-compatible adapter's shape: a reasoning
  part, a text part and two tool calls open at once, fed small chunks in turn,
  then committed at the end.

Baselines, measured in the same run:

* the floor of each stream: the least work that turns its chunks into text.
  For the long text stream, appending the chunk strings to a list and joining
  them; for the interleaved one, appending each chunk to its part's list,
  keyed by part id, and joining the lists at the end;
* step-wise ``fold``: pydantic-ai's ``ModelResponsePartsManager`` fed the same
  stream as its own events, when pydantic-ai is installed.  It is mutable: it
  keeps no earlier state, where every state ``fold`` returns stays valid;
* linearity: the interleaved stream 10 times longer, folded step by step with
  every intermediate state kept alive (ideal ratio 10).
"""

from __future__ import annotations

import gc
import json
import time
from typing import Any, Callable

from bench import Row, paired, verdict

import agentkit_core as ak

CHUNKS = ("The ", "parser ", "drops ", "the ", "last ", "line; ", "fix ", "it.")
WORDS = ("abcd", "efgh", "ijkl", "mnop", "qrst", "uvwx", "yz01", "2345", "6789")

#: The interleaved stream's fold_all, as a multiple of its floor, before the branch design.
INTERLEAVED_BEFORE = 4.4


def build_long_text(nchunks: int = 100_000, args_size: int = 10_000) -> tuple[list[ak.Delta], list[str]]:
    """The long text stream and the chunk strings it carries, in order."""
    text, call = ak.PartId("part-0-content"), ak.PartId("part-0-tool-0")
    chunks = [WORDS[n % len(WORDS)] for n in range(nchunks)]
    arguments = json.dumps({"path": "src/notes.md", "content": "".join(chunks)[:args_size]})
    fragments = [arguments[i : i + 10] for i in range(0, len(arguments), 10)]
    deltas: list[ak.Delta] = [ak.BeginPart(text, ak.PartKind.TEXT)]
    deltas += [ak.AppendText(text, chunk) for chunk in chunks]
    deltas.append(ak.CommitPart(ak.TextPart("".join(chunks)), part_id=text))
    deltas.append(ak.BeginPart(call, ak.PartKind.TOOL_CALL))
    deltas += [ak.AppendText(call, fragment) for fragment in fragments]
    final = ak.ToolCallPart(ak.ToolCallId("call_0"), "fs_write_file", json.loads(arguments))
    deltas.append(ak.CommitPart(final, part_id=call))
    return deltas, chunks + fragments


def list_join(chunks: list[str]) -> str:
    """The long text stream's floor: each chunk string onto a list, then one join."""
    out: list[str] = []
    append = out.append
    for chunk in chunks:
        append(chunk)
    return "".join(out)


def build_stream(rounds: int) -> list[ak.Delta]:
    """The interleaved stream: four open parts, ``rounds`` chunks each, in turn; committed at the end."""
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
    """The interleaved stream's floor: each chunk onto its part's list, joined at the end."""
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
    """pydantic-ai's parts manager fed ``deltas``' chunks as its own events (a skip reason without it).

    A tool call's first fragment brings its name and id, as providers send
    them; the manager appends a name given again, so later ones carry none.
    """
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
    events: list[tuple[str, str, str, str | None]] = []
    started: set[str] = set()
    for d in deltas:
        if isinstance(d, ak.AppendText):
            pid = d.part_id.value
            kind = "thinking" if "reasoning" in pid else "tool" if "tool" in pid else "text"
            events.append((kind, pid, d.chunk, None if pid in started else "fs_read_file"))
            started.add(pid)

    def run() -> object:
        manager = make_manager()
        for kind, pid, chunk, name in events:
            if kind == "text":
                for _ in manager.handle_text_delta(vendor_part_id=pid, content=chunk):
                    pass
            elif kind == "thinking":
                for _ in manager.handle_thinking_delta(vendor_part_id=pid, content=chunk):
                    pass
            else:
                manager.handle_tool_call_delta(vendor_part_id=pid, tool_name=name, args=chunk, tool_call_id=name and pid)
        return manager.get_parts()

    run()  # fails here, not half-way through the timing, if its API moved
    return run


def measure(quick: bool) -> list[Row]:
    rounds = 5 if quick else 15
    return measure_long_text(rounds) + measure_interleaved(rounds) + measure_linearity()


def measure_long_text(rounds: int) -> list[Row]:
    deltas, chunks = build_long_text()
    n = len(deltas)
    whole = ak.fold_all((), deltas)
    assert not whole.is_open and whole == stepwise(deltas, False)[0]  # type: ignore[index]
    assert whole.parts[0] == ak.TextPart(list_join(chunks[:100_000]))

    ns = lambda s: f"{s / n * 1e9:.0f} ns/delta"  # noqa: E731
    label = f"long text ({n} deltas)"
    t_all, t_floor, r_all = paired(lambda: ak.fold_all((), deltas), lambda: list_join(chunks), rounds)
    rows = [
        Row("fold", f"{label}: floor, list append + join", ns(t_floor), "1.00x", ""),
        Row("fold", f"{label}: fold_all", ns(t_all), f"{r_all:.2f}x floor", verdict(r_all <= 7, "<= 7x")),
    ]
    peer = pydantic_ai_stepwise(deltas)
    if isinstance(peer, str):
        step, _, r_step = paired(lambda: stepwise(deltas, False), lambda: list_join(chunks), max(3, rounds // 3))
        rows.append(Row("fold", f"{label}: step-wise fold", ns(step), f"{r_step:.2f}x floor", f"vs pydantic-ai skipped: {peer}"))
        return rows
    for keep, what in ((False, "step-wise fold"), (True, "step-wise fold, every state kept")):
        ours, theirs, ratio = paired(lambda: stepwise(deltas, keep), peer, max(3, rounds // 3))
        speedup = 1 / ratio
        target = verdict(speedup >= 2, ">= 2x faster") if not keep else "info: 100k live states for the collector"
        rows.append(Row("fold", f"{label}: {what}", ns(ours), f"{speedup:.2f}x faster than pydantic-ai ({ns(theirs)})", target))
    return rows


def measure_interleaved(rounds: int) -> list[Row]:
    deltas = build_stream(2500)  # 10k appends
    n = len(deltas)
    expected = ak.fold_all((), deltas)
    assert expected.parts == ak.fold_all((), deltas).parts and not expected.is_open
    assert stepwise(deltas, False)[0] == expected  # type: ignore[index]

    ns = lambda s: f"{s / n * 1e9:.0f} ns/delta"  # noqa: E731
    label = f"interleaved ({n} deltas, 4 parts open)"
    whole, base, r_whole = paired(lambda: ak.fold_all((), deltas), lambda: append_join(deltas), rounds)
    step, _, r_step = paired(lambda: stepwise(deltas, False), lambda: append_join(deltas), rounds)
    kept, _, r_kept = paired(lambda: stepwise(deltas, True), lambda: append_join(deltas), rounds)
    snap, _, r_snap = paired(lambda: stepwise_with_snapshots(deltas), lambda: append_join(deltas), rounds)
    before = f"<= {INTERLEAVED_BEFORE}x, as before the branch design"
    rows = [
        Row("fold", f"{label}: floor, list append + join per part", ns(base), "1.00x", ""),
        Row("fold", f"{label}: fold_all", ns(whole), f"{r_whole:.2f}x floor", verdict(r_whole <= INTERLEAVED_BEFORE, before)),
        Row("fold", f"{label}: fold step by step", ns(step), f"{r_step:.2f}x floor", ""),
        Row("fold", f"{label}: step by step, every state kept", ns(kept), f"{r_kept:.2f}x floor", ""),
        Row("fold", f"{label}: fold + snapshot() after every delta", ns(snap), f"{r_snap:.2f}x floor", ""),
    ]
    peer = pydantic_ai_stepwise(deltas)
    if isinstance(peer, str):
        rows.append(Row("fold", f"{label}: step-wise fold vs pydantic-ai", "-", "-", f"skipped: {peer}"))
    else:
        ours, theirs, ratio = paired(lambda: stepwise(deltas, False), peer, rounds)
        speedup = 1 / ratio
        rows.append(Row("fold", f"{label}: step-wise fold", ns(ours), f"{speedup:.2f}x faster than pydantic-ai ({ns(theirs)})", verdict(speedup >= 1, "not slower")))
    return rows


def measure_linearity() -> list[Row]:
    rows = []
    small, large = build_stream(25_000), build_stream(250_000)  # ~100k and ~1M deltas
    for label, fn in (("step-wise, all states kept", lambda d: stepwise(d, True)), ("fold_all", lambda d: ak.fold_all((), d))):
        t_small = min(_timed(lambda: fn(small), gc_paused=True) for _ in range(5))
        t_large = min(_timed(lambda: fn(large), gc_paused=True) for _ in range(3))
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
