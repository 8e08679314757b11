"""Building requests (area "requests" of tools/bench.py): a fresh build against pydantic-ai, and a long session turn by turn.

The session is 500 turns of a coding agent: a user message, an assistant
item with a text and a tool call (its usage and finish reason set, as a decoded
answer has them), and the tool's result: 1,500 items.

* **Fresh build** (nothing kept): ``request_from_items`` of the whole session
  against pydantic-ai's own mapping of the same history (``ModelRequest`` /
  ``ModelResponse`` made once, outside the timing; only the mapping is timed,
  driven to completion on one event loop, as pydantic-ai itself awaits it):
  ``OpenAIChatModel._map_messages``, ``OpenAIResponsesModel._map_messages``,
  ``AnthropicModel._map_message`` and ``GoogleModel._map_messages``.  Target:
  ours at least 2x faster.  The same for the recorded requests of
  ``tests/payloads`` (read with ``items_from_request``; pydantic-ai gets the
  texts, calls, results, reasoning and images of those items, what its messages
  can hold, so its side does no more work than ours).
* **Per turn** (what a session pays): ``http_request`` for the transcript
  after one more turn, just after the request for the transcript before it was
  built, as an agent loop does; the mean of five turns in a row ending at 30
  items and at 1,500, the least of 21 rounds (9 with ``--quick``), the rounds
  of the two sizes interleaved so that a spell of load on the shared machine
  falls on both alike (the turn at 30 items is only about 35 us: timed all first,
  then the long ones, one spell could double the ratio).  Measured step by
  step (the least of hundreds of repetitions), a turn at 1,500 items costs
  about 5 us more than one at 30, nearly all of it the check that the
  transcript begins with the kept items (a slice and an identity comparison:
  linear, some 3 ns an item), and the first turn after a fresh build some
  10 us more (joining the fresh build's blocks, merging the calls it saw).
  Targets: the cost at
  1,500 items within 2x of the cost at 30 (the cost is what is new, not the
  session's length), and at most a tenth of a fresh ``http_request`` of the
  whole 1,500 items (nothing kept).  The request keeps its body as the kept
  pieces, joined when ``body`` is first read; the socket transport never reads
  it (it writes the pieces), so the turn copies no earlier turn's bytes.  The
  row "reading .body" is what a transport that reads it (``FetchTransport``)
  adds to a turn.
* **Session** (for scale): every request of the 500 turns built in order, the
  total.

The garbage collector is off while timing, on both sides (as ``timeit`` has it):
a collection walks every live object, the peer's too, whichever side it
happens to fall on.

pydantic-ai is optional (``pip install pydantic-ai-slim[openai,anthropic,google]``);
without it the peer rows say "skipped" and the rest runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import glob
import json
import os
import time
from typing import Any, Callable, Iterator

from bench import ROOT, Row, best_of, paired, verdict

import agentkit_core as ak
from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses

TURNS = 500
SMALL = 30  # items of the short transcript in the per-turn rows
WINDOW = 5  # turns timed one after another in a per-turn row (their mean: what is kept is joined in blocks now and then)
FRESH_TARGET = 2.0  # pydantic-ai's time / ours, at least
GROWTH_TARGET = 2.0  # per-turn cost at 1,500 items / at 30, at most
SHARE_TARGET = 0.1  # per-turn cost / a fresh build of the whole transcript, at most
_RESULT = "def parse(lines):\n    return [line.rstrip() for line in lines]\n" * 4

PROVIDERS = {"openai_chat": openai_chat, "openai_responses": openai_responses, "anthropic": anthropic, "gemini": gemini}


def session(turns: int = TURNS) -> list[ak.Item]:
    """The session of the module docstring: ``3 * turns`` items."""
    items: list[ak.Item] = []
    for t in range(turns):
        items.append(ak.Item(ak.ItemKind.USER, [ak.TextPart(f"Please look at src/module_{t}.py and fix the failing test.")]))
        call = ak.ToolCallId(f"call_{t:04d}")
        items.append(ak.Item(
            ak.ItemKind.ASSISTANT,
            [ak.TextPart("I will read the file first, then patch the parser."),
             ak.ToolCallPart(call, "read_file", {"path": f"src/module_{t}.py", "max_lines": 200})],
            usage=ak.Usage(ak.TokenUsage(1200 + t, 350)),
            finish_reason=ak.FinishReason.TOOL_CALL,
        ))
        items.append(ak.Item(ak.ItemKind.TOOL, [ak.ToolResultPart(call, ak.ToolOutput.text(_RESULT))]))
    return items


def recorded(provider: str) -> list[list[ak.Item]]:
    """The transcripts of the recorded ``*.request.json`` of ``provider``, as ``items_from_request`` reads them."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "payloads", provider, "*.request.json"))):
        with open(path, encoding="utf-8") as f:
            out.append(PROVIDERS[provider].items_from_request(json.load(f)))
    return out


@contextlib.contextmanager
def nothing_kept() -> Iterator[None]:
    """Builds inside make everything afresh (what is kept between builds is set aside, when the package keeps any)."""
    try:
        from agentkit_core.providers._common import reuse
    except ImportError:
        yield
        return
    with reuse.disabled():
        yield


def forget() -> None:
    """Set aside whatever earlier builds kept (nothing, when the package keeps nothing)."""
    try:
        from agentkit_core.providers._common import reuse
    except ImportError:
        return
    reuse.clear()


# -- pydantic-ai's side -------------------------------------------------------------------


def _pai_messages(items: list[ak.Item]) -> list[Any]:
    """``items`` as pydantic-ai messages: what of them its parts can hold."""
    from pydantic_ai import messages as m

    names: dict[str, str] = {}
    out: list[Any] = []
    for item in items:
        if item.kind is ak.ItemKind.ASSISTANT:
            parts: list[Any] = []
            for p in item.parts:
                if isinstance(p, ak.TextPart):
                    parts.append(m.TextPart(p.text))
                elif isinstance(p, ak.ReasoningPart):
                    sig = p.data.value if isinstance(p.data, ak.InlineText) else None
                    parts.append(m.ThinkingPart(p.summary or "", signature=sig))
                elif isinstance(p, ak.ToolCallPart):
                    names[p.id.value] = p.name
                    parts.append(m.ToolCallPart(p.name, p.input if isinstance(p.input, dict) else {}, tool_call_id=p.id.value))
            if parts:
                out.append(m.ModelResponse(parts=parts))
            continue
        request: list[Any] = []
        for p in item.parts:
            if isinstance(p, ak.TextPart):
                kind = item.kind in (ak.ItemKind.SYSTEM, ak.ItemKind.DEVELOPER)
                request.append(m.SystemPromptPart(p.text) if kind else m.UserPromptPart(p.text))
            elif isinstance(p, ak.MediaPart) and p.modality is ak.Modality.IMAGE:
                if isinstance(p.data, ak.InlineBytes):
                    request.append(m.UserPromptPart([m.BinaryContent(data=p.data.value, media_type=p.mime_type)]))
                elif isinstance(p.data, ak.Uri) and not p.data.value.startswith("data:"):
                    request.append(m.UserPromptPart([m.ImageUrl(url=p.data.value)]))
            elif isinstance(p, ak.ToolResultPart):
                text = p.output.text if isinstance(p.output, ak.TextOutput) else json.dumps(p.output.to_dict())
                request.append(m.ToolReturnPart(names.get(p.call_id.value, "tool"), text, tool_call_id=p.call_id.value))
        if request:
            out.append(m.ModelRequest(parts=request))
    return out


def pydantic_ai_mappers() -> dict[str, Callable[[list[Any]], Any]] | str:
    """provider -> a function mapping pydantic-ai messages as that provider's model does; or why not."""
    try:
        from pydantic_ai.models import ModelRequestParameters
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.anthropic import AnthropicProvider
        from pydantic_ai.providers.google import GoogleProvider
        from pydantic_ai.providers.openai import OpenAIProvider
    except ImportError:
        return "pydantic-ai not installed, skipped (pip install pydantic-ai-slim[openai,anthropic,google])"
    params = ModelRequestParameters()
    loop = asyncio.new_event_loop()
    chat = OpenAIChatModel("gpt-4.1", provider=OpenAIProvider(api_key="sk-bench"))
    responses = OpenAIResponsesModel("gpt-4.1", provider=OpenAIProvider(api_key="sk-bench"))
    claude = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="sk-bench"))
    google = GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="sk-bench"))
    run = loop.run_until_complete
    return {
        "openai_chat": lambda h: run(chat._map_messages(h, params)),
        "openai_responses": lambda h: run(responses._map_messages(h, {}, params)),
        "anthropic": lambda h: run(claude._map_message(h, params, {})),
        "gemini": lambda h: run(google._map_messages(h, params)),
    }


# -- measuring ------------------------------------------------------------------------------

#: The Messages API requires max_tokens; every provider maps it.
_LIMIT = ak.ModelSettings(max_tokens=1024)


def _turn_round(module: Any, items: list[ak.Item], n: int) -> float:
    """One round: nothing kept, the request for the transcript before the window, then the mean time of ``http_request``
    over the :data:`WINDOW` turns that end at ``items[:n]``, each just after the one before."""
    ends = range(n - 3 * (WINDOW - 1), n + 1, 3)
    forget()
    module.http_request(items[: ends[0] - 3], model="bench-model", settings=_LIMIT)
    prefixes = [items[:end] for end in ends]
    t0 = time.perf_counter()
    for prefix in prefixes:
        module.http_request(prefix, model="bench-model", settings=_LIMIT)
    return (time.perf_counter() - t0) / len(prefixes)


def _per_turn(module: Any, items: list[ak.Item], sizes: tuple[int, ...], rounds: int) -> list[float]:
    """The least of ``rounds`` :func:`_turn_round` for each of ``sizes``, their rounds interleaved.

    A spell of load on the shared machine then falls on both sizes alike, and the least of many
    rounds is what the turn costs without it (as ``timeit`` advises); timing all the short rounds
    first and the long ones after let one spell decide the ratio.
    """
    best = [float("inf")] * len(sizes)
    for _ in range(rounds):
        for k, n in enumerate(sizes):
            best[k] = min(best[k], _turn_round(module, items, n))
    return best


def _join(module: Any, items: list[ak.Item]) -> tuple[float, int]:
    """The time of joining the body of ``http_request(items)`` from its kept pieces, and the body's size.

    ``http_request`` does not pay it: the request keeps the pieces and joins them when its ``body`` is
    first read.  The socket transport writes the pieces as they are; a transport that reads ``body``
    (``FetchTransport``) pays this on top of the turn.
    """
    from agentkit_core.providers._common.reuse import json_bytes

    forget()
    fields = module._request.kept_request(items)
    body = {"model": "bench-model", **fields}
    return best_of(lambda: json_bytes(body), 20), len(json_bytes(body))


def _fresh_http(module: Any, items: list[ak.Item]) -> Callable[[], Any]:
    def run() -> Any:
        with nothing_kept():
            return module.http_request(items, model="bench-model", settings=_LIMIT)

    return run


def _session_total(module: Any, items: list[ak.Item]) -> float:
    t0 = time.perf_counter()
    for n in range(3, len(items) + 1, 3):
        module.http_request(items[:n], model="bench-model", settings=_LIMIT)
    return time.perf_counter() - t0


def measure(quick: bool) -> list[Row]:
    """The fresh-build, recorded, per-turn and session rows of every provider, the garbage collector off while timing (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        return _measure(quick)
    finally:
        gc.enable()


def _measure(quick: bool) -> list[Row]:
    rounds = 3 if quick else 7
    items = session()
    mappers = pydantic_ai_mappers()
    history = _pai_messages(items) if not isinstance(mappers, str) else None
    rows: list[Row] = []
    for name, module in PROVIDERS.items():
        gc.collect()  # what the last provider's rows left, collected outside the timing
        def ours() -> Any:
            return module.request_from_items(items)

        if isinstance(mappers, str):
            rows.append(Row("requests", f"{name}: fresh build, {len(items)} items", "-", "-", mappers))
            rows.append(Row("requests", f"{name}: fresh build, recorded requests", "-", "-", mappers))
        else:
            mapper = mappers[name]
            t_ours, t_peer, ratio = paired(ours, lambda: mapper(history), rounds)
            rows.append(Row("requests", f"{name}: fresh build, {len(items)} items", f"{t_ours * 1e3:.1f} ms",
                            f"pydantic-ai takes {1 / ratio:.2f}x as long ({t_peer * 1e3:.1f} ms)",
                            verdict(1 / ratio >= FRESH_TARGET, f">= {FRESH_TARGET:g}x")))
            transcripts = recorded(name)
            histories = [_pai_messages(t) for t in transcripts]

            def ours_recorded() -> None:
                for t in transcripts:
                    module.request_from_items(t)

            def peer_recorded() -> None:
                for h in histories:
                    mapper(h)

            t_ours, t_peer, ratio = paired(ours_recorded, peer_recorded, rounds)
            count = len(transcripts)
            rows.append(Row("requests", f"{name}: fresh build, recorded requests", f"{t_ours / count * 1e6:.0f} us/request",
                            f"pydantic-ai takes {1 / ratio:.2f}x as long ({t_peer / count * 1e6:.0f} us; {count} requests)",
                            verdict(1 / ratio >= FRESH_TARGET, f">= {FRESH_TARGET:g}x")))
        small, large = _per_turn(module, items, (SMALL, len(items)), rounds * 3)
        fresh = best_of(_fresh_http(module, items), max(3, rounds // 2))
        rows.append(Row("requests", f"{name}: per turn, {SMALL} items", f"{small * 1e6:.0f} us", "1.00x", ""))
        rows.append(Row("requests", f"{name}: per turn, {len(items)} items", f"{large * 1e6:.0f} us",
                        f"{large / small:.2f}x the turn at {SMALL} items", verdict(large / small <= GROWTH_TARGET, f"<= {GROWTH_TARGET:g}x")))
        join, size = _join(module, items)
        rows.append(Row("requests", f"{name}: per turn, {len(items)} items, reading .body (joins)", f"{join * 1e6:.0f} us",
                        f"{join / large:.2f}x the turn ({size / 1e3:.0f} kB; a transport that cannot write pieces)", "(for scale)"))
        rows.append(Row("requests", f"{name}: per turn / fresh http_request, {len(items)} items", f"{fresh * 1e3:.1f} ms fresh",
                        f"{large / fresh:.3f}x a fresh build", verdict(large / fresh <= SHARE_TARGET, f"<= {SHARE_TARGET:g}x")))
        forget()
        if not quick:
            total = _session_total(module, items)
            rows.append(Row("requests", f"{name}: session of {TURNS} turns, every request", f"{total:.2f} s",
                            f"{total / fresh:.1f}x one fresh build of the last", "(for scale)"))
    return rows
