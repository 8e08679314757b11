"""Decoding a Bedrock ConverseStream: per event against Anthropic's SSE decoding, and against botocore.

Two rows, each a ratio measured in alternating rounds in one process:

* a Converse stream of ``n`` text deltas, from the binary body
  (``application/vnd.amazon.eventstream``) through :func:`agentkit_core.http.events_from_eventstream`
  and the Bedrock stream decoder to deltas, per event, against an Anthropic
  Messages stream of as many text deltas from its ``text/event-stream``
  body through ``events_from_sse`` and its decoder (target: at most 1x);
* the frames alone to ``{event_type: payload}`` (CRCs, headers, the JSON
  parse) against botocore's ``EventStreamBuffer`` plus ``json.loads`` of
  each payload (target: at most 0.5x, twice as fast; skipped without botocore).

Run alone:  python tools/bench_eventstream.py [--quick]   (or python tools/bench.py --only eventstream)
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from bench import Row, paired, verdict  # noqa: E402

from agentkit_core.http import events_from_eventstream, events_from_sse  # noqa: E402
from agentkit_core.providers import anthropic, bedrock  # noqa: E402
from tests import frames  # noqa: E402

_WORDS = ["The", " capital", " of", " France", " is", " Paris", ".", " It", " is", " known"]


def converse_body(n: int) -> bytes:
    """A ConverseStream body of ``n`` text deltas, padded as Bedrock pads its payloads."""
    events = [("messageStart", {"p": "abcdefgh", "role": "assistant"})]
    events += [("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": _WORDS[i % 10]}, "p": "abcdefghijklmnop"}) for i in range(n)]
    events += [("contentBlockStop", {"contentBlockIndex": 0, "p": "abc"}), ("messageStop", {"stopReason": "end_turn", "p": "ab"}),
               ("metadata", {"usage": {"inputTokens": 10, "outputTokens": n, "totalTokens": 10 + n}, "metrics": {"latencyMs": 300}})]
    return frames.events(*events)


def anthropic_body(n: int) -> bytes:
    """An Anthropic Messages SSE body of ``n`` text deltas."""
    events = [{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                                                    "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": _WORDS[i % 10]}} for i in range(n)]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": n}},
               {"type": "message_stop"}]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _chunks(body: bytes, size: int = 16384) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def measure(quick: bool) -> list[Row]:
    n = 500 if quick else 2000
    rounds = 3 if quick else 7
    rows: list[Row] = []
    converse, messages = _chunks(converse_body(n)), _chunks(anthropic_body(n))

    def ours() -> None:
        decoder = bedrock.stream_decoder()
        for event in events_from_eventstream(converse):
            decoder.feed(event)

    def theirs() -> None:
        decoder = anthropic.stream_decoder()
        for event in events_from_sse(messages):
            decoder.feed(event)

    mine, base, ratio = paired(ours, theirs, rounds)
    count = n + 5
    rows.append(Row("eventstream", "Converse stream -> deltas, per event", f"{mine / count * 1e6:.2f} us/event",
                    f"{ratio:.2f}x Anthropic SSE -> deltas ({base / (n + 6) * 1e6:.2f} us/event)", verdict(ratio <= 1.0, "<= 1x")))
    try:
        from botocore.eventstream import EventStreamBuffer
    except ImportError:
        rows.append(Row("eventstream", "frames -> events vs botocore", "-", "-", "skipped: botocore not installed"))
        return rows

    def frames_only() -> None:
        for _ in events_from_eventstream(converse):
            pass

    def botocore_parse() -> None:
        buffer = EventStreamBuffer()
        for chunk in converse:
            buffer.add_data(chunk)
            for message in buffer:
                json.loads(message.payload)

    mine, base, ratio = paired(frames_only, botocore_parse, rounds)
    rows.append(Row("eventstream", "frames -> {event: payload}", f"{mine / count * 1e6:.2f} us/event",
                    f"{ratio:.2f}x botocore EventStreamBuffer + json.loads ({base / count * 1e6:.2f} us/event)",
                    verdict(ratio <= 0.5, "<= 0.5x")))
    return rows


if __name__ == "__main__":
    for row in measure("--quick" in sys.argv):
        print(" | ".join(row))
