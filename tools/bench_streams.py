"""Stream decoding scaling (area "scaling" of tools/bench.py): constant work per event.

Synthetic streams of one long answer, for each provider and each kind of
delta it streams: text, reasoning and tool-call arguments (Gemini, which
sends calls whole: many calls, one per chunk).  Each stream is decoded,
folded and finished (``items_from_stream`` on parsed events) at ``n`` and at
``20 n`` deltas; the row shows the cost per event at both sizes and their
ratio, the growth.  A decoder doing constant work per event grows by 1.0x;
one that re-joins or re-scans what accumulated grows with the stream (a
quadratic path shows as 5-20x here).  Target: growth within 1.2x.

The deltas are four characters, as a model's tokens are.

How it is timed.  In CPU time of the thread, with the cyclic collector
running (a user pays for what it walks).  A sample of either size decodes
``20 n`` events: the long stream once, or the short one 20 times in a row,
as a session of short turns would; one untimed ``gc.collect()`` starts each
sample.  Samples of the two sizes alternate (n, 20n, n, 20n, ...) for seven
rounds (two with ``--quick``) and each size keeps its fastest sample, as
``timeit`` advises: noise only adds time, and samples of the same length
meet the same spells of load, so neither size's minimum is the luckier one.
The collector's own callbacks (``gc.callbacks``) time its collections, and
the row shows its share per event of the fastest samples.
"""

from __future__ import annotations

import gc
import json
import time
from typing import Any, Callable

from bench import Row, verdict

from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses

Event = dict[str, Any]
Builder = Callable[[int], "list[Event]"]
WORDS = ("abcd", "efgh", "ijkl", "mnop", "qrst", "uvwx", "yz01", "2345", "6789")


def _chunks(n: int) -> list[str]:
    """``n`` four-character pieces of one long answer."""
    return [WORDS[k % len(WORDS)] for k in range(n)]


def _arguments(n: int) -> list[str]:
    """``n`` four-character pieces of one tool call's JSON arguments (a long file written by a call)."""
    return ['{"pa', 'th":', ' "a"', ', "c', 'onte', 'nt":', ' "'] + _chunks(n - 9) + ['"', "}"]


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_stream(kind: str, n: int) -> list[Event]:
    """``message_start``, one block of ``kind`` fed ``n`` deltas, then the events that end the turn."""
    block: Event = {
        "text": {"type": "text", "text": ""},
        "reasoning": {"type": "thinking", "thinking": ""},
        "arguments": {"type": "tool_use", "id": "toolu_01", "name": "write_file", "input": {}},
    }[kind]
    field, dtype = {"text": ("text", "text_delta"), "reasoning": ("thinking", "thinking_delta"), "arguments": ("partial_json", "input_json_delta")}[kind]
    pieces = _arguments(n) if kind == "arguments" else _chunks(n)
    events: list[Event] = [
        {"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "m", "content": [],
                                              "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
    ]
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": dtype, field: p}} for p in pieces]
    if kind == "reasoning":
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}})
    events += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use" if kind == "arguments" else "end_turn"}, "usage": {"output_tokens": n}},
        {"type": "message_stop"},
    ]
    return events


# -- OpenAI Chat -------------------------------------------------------------------------------


def chat_stream(kind: str, n: int) -> list[Event]:
    """``n`` chunks of ``content`` / ``reasoning_content`` / one call's arguments, then the finish chunk."""
    top = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    if kind == "arguments":
        first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": ""}}
        deltas = [{"tool_calls": [first]}] + [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in _arguments(n)]
    else:
        field = "content" if kind == "text" else "reasoning_content"
        deltas = [{field: p} for p in _chunks(n)]
    events = [{**top, "choices": [{"index": 0, "delta": {"role": "assistant", **d}, "finish_reason": None}]} for d in deltas[:1]]
    events += [{**top, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas[1:]]
    reason = "tool_calls" if kind == "arguments" else "stop"
    events.append({**top, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    return events


# -- OpenAI Responses --------------------------------------------------------------------------


def responses_stream(kind: str, n: int) -> list[Event]:
    """One output item of ``kind`` fed ``n`` deltas, its ``*.done`` events, then ``response.completed``."""
    pieces = _arguments(n) if kind == "arguments" else _chunks(n)
    whole = "".join(pieces)
    if kind == "text":
        added: Event = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
        entry: Event = {"type": "output_text", "text": "", "annotations": []}
        final: Event = {**added, "status": "completed", "content": [{**entry, "text": whole}]}
        open_: list[Event] = [{"type": "response.content_part.added", "output_index": 0, "content_index": 0, "part": entry}]
        deltas = [{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": p} for p in pieces]
        close: list[Event] = [
            {"type": "response.output_text.done", "output_index": 0, "content_index": 0, "text": whole},
            {"type": "response.content_part.done", "output_index": 0, "content_index": 0, "part": {**entry, "text": whole}},
        ]
    elif kind == "reasoning":
        added = {"id": "rs_1", "type": "reasoning", "summary": []}
        entry = {"type": "summary_text", "text": ""}
        final = {**added, "summary": [{**entry, "text": whole}], "encrypted_content": "gAAA"}
        open_ = [{"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 0, "part": entry}]
        deltas = [{"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": p} for p in pieces]
        close = [
            {"type": "response.reasoning_summary_text.done", "output_index": 0, "summary_index": 0, "text": whole},
            {"type": "response.reasoning_summary_part.done", "output_index": 0, "summary_index": 0, "part": {**entry, "text": whole}},
        ]
    else:
        added = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "write_file", "arguments": "", "status": "in_progress"}
        final = {**added, "arguments": whole, "status": "completed"}
        open_ = []
        deltas = [{"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": p} for p in pieces]
        close = [{"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": whole}]
    response: Event = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m", "output": []}
    return [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        *open_,
        *deltas,
        *close,
        {"type": "response.output_item.done", "output_index": 0, "item": final},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [final],
                                                     "usage": {"input_tokens": 10, "output_tokens": n, "total_tokens": n + 10}}},
    ]


# -- Gemini ------------------------------------------------------------------------------------


def gemini_stream(kind: str, n: int) -> list[Event]:
    """``n`` chunks of text / thought text / one whole call each, the last with ``finishReason``."""
    if kind == "calls":
        parts = [{"functionCall": {"id": f"c{k}", "name": "read_file", "args": {"path": f"f{k}"}}} for k in range(n)]
    elif kind == "text":
        parts = [{"text": p} for p in _chunks(n)]
    else:
        parts = [{"text": p, "thought": True} for p in _chunks(n)]
    events = [{"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}], "responseId": "r1"} for p in parts]
    events[-1]["candidates"][0]["finishReason"] = "STOP"
    events[-1]["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": n, "totalTokenCount": n + 10}
    return events


#: provider -> (the module, the stream builder, the kinds of delta it streams)
PROVIDERS: dict[str, tuple[Any, Callable[[str, int], list[Event]], tuple[str, ...]]] = {
    "anthropic": (anthropic, anthropic_stream, ("text", "reasoning", "arguments")),
    "openai_chat": (openai_chat, chat_stream, ("text", "reasoning", "arguments")),
    "openai_responses": (openai_responses, responses_stream, ("text", "reasoning", "arguments")),
    "gemini": (gemini, gemini_stream, ("text", "reasoning", "calls")),
}


def check(module: Any, events: list[Event], kind: str, n: int) -> None:
    """The stream folds to one item holding what was streamed (so the timing measures real work)."""
    (item,) = module.items_from_stream(events)
    if kind == "calls":
        assert len(item.parts) == n, (module.__name__, len(item.parts))
    elif kind == "arguments":
        assert len(item.parts[0].input["content"]) == 4 * (n - 9), module.__name__
    else:
        text = item.parts[0].text if kind == "text" else item.parts[0].summary
        assert len(text) == 4 * n, (module.__name__, kind)


#: CPU time of this thread: what the decoder costs, without the time the shared machine's scheduler takes away.
_clock = getattr(time, "thread_time", time.perf_counter)

#: How many times longer the long stream is than the short one (and how many short streams a sample decodes).
SCALE = 20


def sample(module: Any, events: list[Event], runs: int) -> tuple[float, float]:
    """Seconds per event of ``runs`` calls of ``items_from_stream`` in a row, and the collector's share of them.

    One ``gc.collect()`` before the sample (untimed) starts it with empty
    young generations; then the collector runs as it does for a user, what a
    decoder or the fold keeps per part walked again and again as parts
    accumulate, and its own callbacks time each of its collections.
    """
    spent = [0.0, 0.0]  # the collector's seconds so far, and when its running collection started

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            spent[1] = _clock()
        else:
            spent[0] += _clock() - spent[1]

    gc.collect()
    gc.callbacks.append(watch)
    try:
        t0 = _clock()
        for _ in range(runs):
            module.items_from_stream(events)
        elapsed = _clock() - t0
    finally:
        gc.callbacks.remove(watch)
    count = runs * len(events)
    return elapsed / count, spent[0] / count


def measure(quick: bool) -> list[Row]:
    rows: list[Row] = []
    rounds = 2 if quick else 7
    for name, (module, build, kinds) in PROVIDERS.items():
        n = (500 if quick else 1_000) if name == "gemini" else (1_000 if quick else 2_000)  # Gemini's chunks cost more
        for kind in kinds:
            small, large = build(kind, n), build(kind, SCALE * n)
            check(module, small, kind, n)
            check(module, large, kind, SCALE * n)
            best_small = best_large = (float("inf"), 0.0)
            for _ in range(rounds):  # alternate, so both sizes meet the same spells of load
                best_small = min(best_small, sample(module, small, SCALE))
                best_large = min(best_large, sample(module, large, 1))
            (t_small, gc_small), (t_large, gc_large) = best_small, best_large
            growth = t_large / t_small
            rows.append(
                Row(
                    "scaling",
                    f"{name} {kind}: {n:,} vs {SCALE * n:,} deltas",
                    f"{t_small * 1e6:.1f} / {t_large * 1e6:.1f} us/event (collector {gc_small * 1e6:.1f} / {gc_large * 1e6:.1f})",
                    f"{growth:.2f}x growth",
                    verdict(growth <= 1.2, "<= 1.2x"),
                )
            )
    return rows


if __name__ == "__main__":  # pragma: no cover - a quick look without bench.py's table
    for row in measure(quick=True):
        print(json.dumps(row._asdict()))
