"""Stream decoding stays linear: a long answer decodes within a bound no quadratic path can meet (issue 19).

Each provider's decoder is fed one long part of every kind it streams (text,
reasoning, tool-call arguments): 6,000 deltas of 8,000 characters, a 48 MB
answer.  Linear decoding copies each character a few times, well under a
second of work; a decoder that re-joins, re-scans or concatenates what had
accumulated on every delta copies about 144 GB, minutes of memory traffic on
any machine.  The bound (CPU time, so a busy machine's waiting does not count)
is generous enough for the slowest interpreter yet far below that.

The size stays although CI would like the time: decoding costs per delta, not
per character (a 12 MB answer saves about 1 s of CPython's 2.3), and Pyodide
needs the 8 s bound, at which a smaller answer's quadratic path would come
too near to prove anything.
"""

from __future__ import annotations

import time
import unittest
from typing import Any, Callable

from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses

Event = dict[str, Any]
N = 6_000
PIECE = "abcdefgh" * 1_000  # 8,000 characters: the same object each time, so the events cost no memory
BOUND = 8.0  # seconds of CPU for one stream; a quadratic path needs far more


def anthropic_stream(kind: str) -> list[Event]:
    block, dtype, field = {
        "text": ({"type": "text", "text": ""}, "text_delta", "text"),
        "reasoning": ({"type": "thinking", "thinking": ""}, "thinking_delta", "thinking"),
        "arguments": ({"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}, "input_json_delta", "partial_json"),
    }[kind]
    start = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": [],
                                                  "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}
    pieces = _pieces(kind)
    return [start, {"type": "content_block_start", "index": 0, "content_block": block},
            *({"type": "content_block_delta", "index": 0, "delta": {"type": dtype, field: p}} for p in pieces),
            {"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]


def chat_stream(kind: str) -> list[Event]:
    def chunk(delta: Event, finish: str | None = None) -> Event:
        return {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    pieces = _pieces(kind)
    if kind == "arguments":
        first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write", "arguments": ""}}
        deltas = [{"tool_calls": [first]}] + [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces]
    else:
        deltas = [{"content" if kind == "text" else "reasoning_content": p} for p in pieces]
    return [chunk(d) for d in deltas] + [chunk({}, "stop")]


def responses_stream(kind: str) -> list[Event]:
    pieces = _pieces(kind)
    if kind == "arguments":
        item: Event = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "write", "arguments": ""}
        deltas = [{"type": "response.function_call_arguments.delta", "output_index": 0, "delta": p} for p in pieces]
        done = [{"type": "response.function_call_arguments.done", "output_index": 0, "arguments": "".join(pieces)}]
    else:
        item = {"id": "msg_1", "type": "message", "role": "assistant", "content": []} if kind == "text" else {"id": "rs_1", "type": "reasoning", "summary": []}
        etype, at = ("response.output_text", {"content_index": 0}) if kind == "text" else ("response.reasoning_summary_text", {"summary_index": 0})
        deltas = [{"type": etype + ".delta", "output_index": 0, **at, "delta": p} for p in pieces]
        done = [{"type": etype + ".done", "output_index": 0, **at, "text": "".join(pieces)}]
    return [{"type": "response.output_item.added", "output_index": 0, "item": item}, *deltas, *done,
            {"type": "response.completed", "response": {"id": "r", "status": "completed", "output": []}}]


def gemini_stream(kind: str) -> list[Event]:
    flag = {"thought": True} if kind == "reasoning" else {}
    events: list[Event] = [{"candidates": [{"content": {"role": "model", "parts": [{"text": p, **flag}]}, "index": 0}]} for p in _pieces(kind)]
    events[-1]["candidates"][0]["finishReason"] = "STOP"
    return events


def _pieces(kind: str) -> list[str]:
    """The deltas of one long part; arguments are one JSON string holding them all."""
    if kind != "arguments":
        return [PIECE] * N
    return ['{"content": "'] + [PIECE] * (N - 2) + ['"}']


PROVIDERS: list[tuple[str, Any, Callable[[str], list[Event]], tuple[str, ...]]] = [
    ("anthropic", anthropic, anthropic_stream, ("text", "reasoning", "arguments")),
    ("openai_chat", openai_chat, chat_stream, ("text", "reasoning", "arguments")),
    ("openai_responses", openai_responses, responses_stream, ("text", "reasoning", "arguments")),
    ("gemini", gemini, gemini_stream, ("text", "reasoning")),
]


class LinearTest(unittest.TestCase):
    def test_a_48_mb_answer_decodes_within_a_bound_no_quadratic_path_meets(self) -> None:
        for name, module, build, kinds in PROVIDERS:
            for kind in kinds:
                with self.subTest(provider=name, kind=kind):
                    events = build(kind)
                    t0 = time.process_time()
                    [item] = module.items_from_stream(events)
                    spent = time.process_time() - t0
                    [part] = item.parts
                    size = len(part.input["content"]) if kind == "arguments" else len(part.text if kind == "text" else part.summary)
                    self.assertEqual(size, len(PIECE) * (N - 2 if kind == "arguments" else N))
                    self.assertLess(spent, BOUND, f"{name} {kind}: {spent:.1f} s of CPU for {len(events)} events")
                    del events, item, part


class SegmentedFoldTest(unittest.TestCase):
    """``items_from_stream`` folds in segments when no part is open: the parts are the one-pass fold's."""

    def test_many_parts_fold_as_one_pass_does(self) -> None:
        from agentkit_core import FoldState, fold_all

        calls = [{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": f"c{k}", "name": "f", "args": {"k": k}}}]},
                                  "index": 0}]} for k in range(5_000)]
        texts = [{"candidates": [{"content": {"role": "model", "parts": [{"text": f"t{k}"}]}, "index": 0}]} for k in range(5_000)]
        events = calls[:2_500] + texts + calls[2_500:]  # segments end inside the long text part and after it
        events[-1] = {**events[-1], "candidates": [{**events[-1]["candidates"][0], "finishReason": "STOP"}]}
        decoder = gemini.stream_decoder()
        whole = fold_all(FoldState(), [d for e in events for d in decoder.feed(e)])
        self.assertEqual(gemini.items_from_stream(events), decoder.finish_all(whole.parts))
        [item] = gemini.items_from_stream(events)
        self.assertEqual(len(item.parts), 5_001)
        self.assertEqual(item.parts[2_500].text, "".join(f"t{k}" for k in range(5_000)))  # type: ignore[attr-defined]


if __name__ == "__main__":
    unittest.main()
