"""Codec, memory and import benchmarks (areas "codec" and "import" of tools/bench.py).

The transcript is a realistic agent session of 751 items: a system prompt,
then 250 turns of a user message (every tenth with a 1 KiB image), an
assistant item with reasoning, text, a tool call and usage, and a tool result.

Baselines, measured in the same run:

* codec: ``plain_copy``, a hand-written recursive copy of the same transcript's
  wire dicts, the least work any pure-Python codec returning fresh containers
  does (our ``to_dict`` writes that shape; our ``from_dict`` reads it);
* memory: the wire dicts themselves, held as plain Python data;
* import: ``import dataclasses, enum, threading, json`` in a fresh interpreter.

Peers, when importable (each says "skipped" otherwise): langchain-core
(``messages_to_dict`` / ``messages_from_dict``), pydantic-ai
(``ModelMessagesTypeAdapter.dump_python(mode="json")`` / ``validate_python``)
and msgspec (``to_builtins`` / ``convert`` over equivalent tagged Structs).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import tracemalloc
from typing import Any, Callable

from bench import ROOT, Row, paired, verdict
from bench_floors import output_floor, value_floor

import agentkit_core as ak

TURNS = 250

#: Issue 13's codec targets: how many times faster than the faster of langchain-core and pydantic-ai.
TO_DICT_TARGET = 1.6
FROM_DICT_TARGET = 1.7
IMAGE = bytes(range(256)) * 4  # 1 KiB


def build_transcript() -> list[ak.Item]:
    items = [ak.Item.text(ak.ItemKind.SYSTEM, "You are a careful coding agent. " * 20)]
    for turn in range(TURNS):
        user_parts: list[ak.Part] = [ak.TextPart(f"Please look at file number {turn} and fix the failing test.")]
        if turn % 10 == 0:
            user_parts.append(ak.MediaPart(ak.Modality.IMAGE, "image/png", ak.InlineBytes(IMAGE)))
        items.append(ak.Item(ak.ItemKind.USER, user_parts))
        call_id = ak.ToolCallId(f"call_{turn:04d}")
        items.append(
            ak.Item(
                ak.ItemKind.ASSISTANT,
                [
                    ak.ReasoningPart("The test fails because the parser drops the last line.", data=ak.InlineText("sig" * 30)),
                    ak.TextPart("I will read the file first, then patch the parser."),
                    ak.ToolCallPart(call_id, "fs_read_file", {"path": f"src/file_{turn}.py", "max_lines": 200}),
                ],
                id=ak.MessageId(f"msg_{turn:04d}"),
                usage=ak.Usage(ak.TokenUsage(1200 + turn, 350, reasoning_tokens=50, cached_input_tokens=800)),
                finish_reason=ak.FinishReason.TOOL_CALL,
                created_at=ak.Timestamp(1_784_000_000_000 + turn),
            )
        )
        items.append(
            ak.Item(ak.ItemKind.TOOL, [ak.ToolResultPart(call_id, ak.ToolOutput.text("def parse(lines):\n    ...\n" * 10))])
        )
    return items


def plain_copy(v: Any) -> Any:
    """The baseline: copy JSON-shaped data, container by container."""
    t = type(v)
    if t is dict:
        return {k: plain_copy(x) for k, x in v.items()}
    if t is list:
        return [plain_copy(x) for x in v]
    return v


def retained(make: Callable[[], Any]) -> int:
    """Bytes still allocated while the value ``make`` builds is alive."""
    gc.collect()
    tracemalloc.start()
    value = make()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del value
    return size


# msgspec's Structs resolve their (string) annotations in module globals, so they live here.
try:
    import msgspec
except ImportError:  # the peer is optional
    msgspec = None
else:
    from typing import Optional, Union

    class Text(msgspec.Struct, tag="Text"):
        text: str
        metadata: dict = {}  # type: ignore[type-arg]

    class Media(msgspec.Struct, tag="Media"):
        modality: str
        mime_type: str
        data: bytes
        metadata: dict = {}  # type: ignore[type-arg]

    class Reasoning(msgspec.Struct, tag="Reasoning"):
        summary: Optional[str]
        data: Optional[str]
        redacted: bool = False
        metadata: dict = {}  # type: ignore[type-arg]

    class ToolCall(msgspec.Struct, tag="ToolCall"):
        id: str
        name: str
        input: Any
        metadata: dict = {}  # type: ignore[type-arg]

    class ToolResult(msgspec.Struct, tag="ToolResult"):
        call_id: str
        output: str
        is_error: bool = False
        metadata: dict = {}  # type: ignore[type-arg]

    class Tokens(msgspec.Struct):
        input_tokens: int
        output_tokens: int
        reasoning_tokens: Optional[int] = None
        cached_input_tokens: Optional[int] = None
        cache_write_input_tokens: Optional[int] = None

    class UsageS(msgspec.Struct):
        tokens: Optional[Tokens] = None
        metadata: dict = {}  # type: ignore[type-arg]

    PartS = Union[Text, Media, Reasoning, ToolCall, ToolResult]

    class ItemS(msgspec.Struct):
        kind: str
        parts: list[PartS]  # type: ignore[valid-type]
        id: Optional[str] = None
        metadata: dict = {}  # type: ignore[type-arg]
        usage: Optional[UsageS] = None
        finish_reason: Optional[str] = None
        created_at: Optional[int] = None


# -- peers ---------------------------------------------------------------------------


def langchain_peer(items: list[ak.Item]) -> tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], Any]] | str:
    try:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_from_dict, messages_to_dict
    except ImportError:
        return "langchain-core not installed"
    import base64

    image_url = "data:image/png;base64," + base64.b64encode(IMAGE).decode()
    messages: list[Any] = []
    for item in items:
        if item.kind is ak.ItemKind.SYSTEM:
            messages.append(SystemMessage(item.text_content()))
        elif item.kind is ak.ItemKind.USER:
            content: list[Any] = [{"type": "text", "text": item.text_content()}]
            if len(item.parts) > 1:
                content.append({"type": "image_url", "image_url": {"url": image_url}})
            messages.append(HumanMessage(content=content))
        elif item.kind is ak.ItemKind.ASSISTANT:
            reasoning, text, call = item.parts
            assert isinstance(call, ak.ToolCallPart) and isinstance(reasoning, ak.ReasoningPart)
            tokens = item.usage.tokens  # type: ignore[union-attr]
            messages.append(
                AIMessage(
                    content=text.text,  # type: ignore[attr-defined]
                    id=str(item.id),
                    additional_kwargs={"reasoning": {"summary": reasoning.summary, "signature": "sig" * 30}},
                    tool_calls=[{"id": str(call.id), "name": call.name, "args": call.input, "type": "tool_call"}],
                    usage_metadata={
                        "input_tokens": tokens.input_tokens,  # type: ignore[union-attr]
                        "output_tokens": tokens.output_tokens,  # type: ignore[union-attr]
                        "total_tokens": tokens.total_tokens,  # type: ignore[union-attr]
                        "input_token_details": {"cache_read": 800},
                        "output_token_details": {"reasoning": 50},
                    },
                    response_metadata={"finish_reason": "tool_calls"},
                )
            )
        else:
            result = item.parts[0]
            assert isinstance(result, ak.ToolResultPart) and isinstance(result.output, ak.TextOutput)
            messages.append(ToolMessage(content=result.output.text, tool_call_id=str(result.call_id)))
    return (lambda: messages_to_dict(messages)), messages_from_dict, lambda: messages_from_dict(messages_to_dict(messages))


def pydantic_ai_peer(items: list[ak.Item]) -> tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], Any]] | str:
    try:
        from pydantic_ai import messages as m
        from pydantic_ai.usage import RequestUsage
    except ImportError:
        return "pydantic-ai-slim not installed"
    history: list[Any] = []
    for item in items:
        if item.kind is ak.ItemKind.SYSTEM:
            history.append(m.ModelRequest(parts=[m.SystemPromptPart(item.text_content())]))
        elif item.kind is ak.ItemKind.USER:
            content: list[Any] = [item.text_content()]
            if len(item.parts) > 1:
                content.append(m.BinaryContent(data=IMAGE, media_type="image/png"))
            history.append(m.ModelRequest(parts=[m.UserPromptPart(content)]))
        elif item.kind is ak.ItemKind.ASSISTANT:
            reasoning, text, call = item.parts
            assert isinstance(call, ak.ToolCallPart) and isinstance(reasoning, ak.ReasoningPart)
            tokens = item.usage.tokens  # type: ignore[union-attr]
            history.append(
                m.ModelResponse(
                    parts=[
                        m.ThinkingPart(reasoning.summary or "", signature="sig" * 30),
                        m.TextPart(text.text),  # type: ignore[attr-defined]
                        m.ToolCallPart(call.name, call.input, tool_call_id=str(call.id)),  # type: ignore[arg-type]
                    ],
                    usage=RequestUsage(input_tokens=tokens.input_tokens, output_tokens=tokens.output_tokens, cache_read_tokens=800),  # type: ignore[union-attr]
                    provider_response_id=str(item.id),
                    finish_reason="tool_call",
                )
            )
        else:
            result = item.parts[0]
            assert isinstance(result, ak.ToolResultPart) and isinstance(result.output, ak.TextOutput)
            history.append(m.ModelRequest(parts=[m.ToolReturnPart("fs_read_file", result.output.text, tool_call_id=str(result.call_id))]))
    adapter = m.ModelMessagesTypeAdapter
    return (
        lambda: adapter.dump_python(history, mode="json"),
        adapter.validate_python,
        lambda: adapter.validate_python(adapter.dump_python(history, mode="json")),
    )


def msgspec_peer(items: list[ak.Item]) -> tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], Any]] | str:
    if msgspec is None:
        return "msgspec not installed"
    def part(p: ak.Part) -> Any:
        if isinstance(p, ak.TextPart):
            return Text(p.text)
        if isinstance(p, ak.MediaPart):
            return Media(p.modality.value, p.mime_type, p.data.value)  # type: ignore[attr-defined]
        if isinstance(p, ak.ReasoningPart):
            return Reasoning(p.summary, p.data.value if p.data else None)  # type: ignore[attr-defined]
        if isinstance(p, ak.ToolCallPart):
            return ToolCall(str(p.id), p.name, p.input)
        assert isinstance(p, ak.ToolResultPart) and isinstance(p.output, ak.TextOutput)
        return ToolResult(str(p.call_id), p.output.text)

    structs = [
        ItemS(
            i.kind.value,
            [part(p) for p in i.parts],
            id=None if i.id is None else str(i.id),
            usage=None if i.usage is None else UsageS(Tokens(**i.usage.tokens.to_dict())),  # type: ignore[union-attr]
            finish_reason=None if i.finish_reason is None else i.finish_reason.kind,
            created_at=None if i.created_at is None else int(i.created_at),
        )
        for i in items
    ]
    typ = list[ItemS]
    return (
        lambda: msgspec.to_builtins(structs),
        lambda data: msgspec.convert(data, typ),
        lambda: msgspec.convert(msgspec.to_builtins(structs), typ),
    )


# -- measurement -----------------------------------------------------------------------


def measure(quick: bool) -> list[Row]:
    items = build_transcript()
    n = len(items)
    wire = [i.to_dict() for i in items]
    assert [ak.Item.from_dict(w) for w in wire] == items

    rounds = 3 if quick else 9
    encode = lambda: [i.to_dict() for i in items]  # noqa: E731
    decode = lambda: [ak.Item.from_dict(w) for w in wire]  # noqa: E731
    enc, base, r_enc = paired(encode, lambda: plain_copy(wire), rounds)
    dec, _, r_dec = paired(decode, lambda: plain_copy(wire), rounds)
    us = lambda s: f"{s / n * 1e6:.2f} us/item"  # noqa: E731
    rows = [
        Row("codec", "baseline: plain recursive copy of the wire dicts", us(base), "1.00x", ""),
        Row("codec", f"to_dict ({n}-item transcript)", us(enc), f"{r_enc:.2f}x baseline", ""),
        Row("codec", f"from_dict ({n}-item transcript)", us(dec), f"{r_dec:.2f}x baseline", ""),
    ]
    rows.extend(constructor_rows(items, wire, decode, rounds))

    mem_base = retained(lambda: plain_copy(wire))
    mem_ours = retained(lambda: [ak.Item.from_dict(w) for w in wire])
    rows.append(Row("codec", "memory: wire dicts (baseline)", f"{mem_base / n:.0f} B/item", "1.00x", ""))
    rows.append(Row("codec", "memory: decoded Items", f"{mem_ours / n:.0f} B/item", f"{mem_ours / mem_base:.2f}x baseline", ""))
    rows.extend(depth_rows(items, rounds))

    peer_times: dict[str, tuple[float, float, int]] = {}
    peer_calls: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    for name, make in (("langchain-core", langchain_peer), ("pydantic-ai", pydantic_ai_peer), ("msgspec", msgspec_peer)):
        peer = make(items)
        if isinstance(peer, str):
            rows.append(Row("codec", f"peer {name}", "-", "-", f"skipped: {peer}"))
            continue
        dump, load, build = peer
        data = dump()
        _, t_enc, r_enc = paired(encode, dump, rounds)
        _, t_dec, r_dec = paired(decode, lambda: load(data), rounds)
        mem = retained(build)
        peer_times[name] = (r_enc, r_dec, mem)
        peer_calls[name] = (dump, lambda load=load, data=data: load(data))  # type: ignore[misc]
        rows.append(Row("codec", f"peer {name}: dump", us(t_enc), f"ours {r_enc:.2f}x its time", ""))
        rows.append(Row("codec", f"peer {name}: load", us(t_dec), f"ours {r_dec:.2f}x its time", ""))
        rows.append(Row("codec", f"peer {name}: memory", f"{mem / n:.0f} B/item", f"ours {mem_ours / mem:.2f}x its memory", ""))

    rivals = {k: v for k, v in peer_times.items() if k in ("langchain-core", "pydantic-ai")}
    if rivals:
        speed_enc = 1 / max(v[0] for v in rivals.values())  # against the faster rival
        speed_dec = 1 / max(v[1] for v in rivals.values())
        least_mem = min(v[2] for v in rivals.values())
        rows.append(Row("codec", "to_dict vs faster of langchain/pydantic-ai", "", f"{speed_enc:.2f}x faster", verdict(speed_enc >= TO_DICT_TARGET, f">= {TO_DICT_TARGET}x")))
        rows.append(Row("codec", "from_dict vs faster of langchain/pydantic-ai", "", f"{speed_dec:.2f}x faster", verdict(speed_dec >= FROM_DICT_TARGET, f">= {FROM_DICT_TARGET}x")))
        rows.append(Row("codec", "memory vs least of langchain/pydantic-ai", "", f"{mem_ours / least_mem:.2f}x", verdict(all(mem_ours < v[2] for v in rivals.values()), "below every peer")))
        faster_dump = peer_calls[max(rivals, key=lambda k: rivals[k][0])][0]  # our ratio is highest against the faster
        faster_load = peer_calls[max(rivals, key=lambda k: rivals[k][1])][1]
        rows.extend(floor_rows(items, wire, faster_dump, faster_load, rounds))
    else:
        rows.append(Row("codec", "targets vs langchain/pydantic-ai", "-", "-", "skipped: neither installed"))
    return rows


def depth_rows(items: list[ak.Item], rounds: int) -> list[Row]:
    """What bounding nesting before parsing costs: JSON text read with the scan against without it.

    ``from_json`` scans each line (two ``str.count`` calls settle a line with
    few brackets) before ``json.loads``; a whole document is scanned once.
    """
    from agentkit_core.jsontext import check_depth

    n = len(items)
    lines = [i.to_json() for i in items]
    document = "[" + ",".join(lines) + "]"
    bounded = lambda: [ak.Item.from_json(line) for line in lines]  # noqa: E731
    unbounded = lambda: [ak.Item.from_dict(json.loads(line)) for line in lines]  # noqa: E731
    t_lines, _, r_lines = paired(bounded, unbounded, rounds)
    t_scan, t_parse, r_scan = paired(lambda: check_depth(document), lambda: json.loads(document), rounds)
    return [
        Row("codec", f"Item.from_json, nesting bounded ({n} JSON Lines)", f"{t_lines / n * 1e6:.2f} us/item",
            f"{r_lines:.2f}x from_dict(json.loads(line))", ""),
        Row("codec", f"check_depth of the {n}-item JSON array ({len(document) >> 10} KiB)", f"{t_scan * 1e3:.2f} ms",
            f"{r_scan:.2f}x json.loads of it", ""),
    ]


def constructor_rows(items: list[ak.Item], wire: list[Any], decode: Callable[[], Any], rounds: int) -> list[Row]:
    """What checking every argument costs: the transcript built through the public constructors.

    ``build_transcript`` makes the same values the decoders make, through the
    constructors, factories and ids a caller uses (it also formats its few
    strings, which the decoders read ready-made).  Compared with ``from_dict``
    on the same transcript, and with the decoders' makers alone (no checks at
    all: ``bench_floors.value_floor``).
    """
    n = len(items)
    makers = value_floor(items, wire)
    t_build, _, r_decode = paired(build_transcript, decode, rounds)
    _, _, r_makers = paired(build_transcript, makers, rounds)
    return [
        Row("codec", f"constructors: build the {n}-item transcript", f"{t_build / n * 1e6:.2f} us/item", f"{r_decode:.2f}x from_dict", ""),
        Row("codec", "constructors vs the makers (no checks)", "", f"{r_makers:.2f}x the makers", ""),
    ]


def floor_rows(items: list[ak.Item], wire: list[Any], rival_dump: Callable[[], Any], rival_load: Callable[[], Any], rounds: int) -> list[Row]:
    """How much of each speed target's budget the floor alone takes (see ``bench_floors``)."""
    n = len(items)
    rows = []
    for what, floor, rival, target in (
        ("to_dict floor: build the output dicts from constants", output_floor(wire), rival_dump, TO_DICT_TARGET),
        ("from_dict floor: build the values, no checks", value_floor(items, wire), rival_load, FROM_DICT_TARGET),
    ):
        t_floor, _, ratio = paired(floor, rival, rounds)
        share = ratio * target  # the target allows 1/target of the rival's time
        rows.append(Row("codec", what, f"{t_floor / n * 1e6:.2f} us/item", f"{share:.0%} of the {target}x budget", ""))
    return rows


#: What the import figure times: the package, and the names a program touches first (issue 13).
#: Touching them counts whatever a lazy module attribute would defer.
IMPORT_OURS = "import agentkit_core; agentkit_core.Item, agentkit_core.Part, agentkit_core.fold, agentkit_core.CancellationController"
IMPORT_BASE = "import dataclasses, enum, threading, json"
IMPORT_PEER = "import langchain_core.messages"
IMPORT_TARGET = 1.6  # the package's import / the baseline's, at most (issue 27)


def import_once(statement: str) -> float | None:
    """Seconds of ``statement`` timed inside a fresh interpreter (start-up excluded); ``None`` if it fails.

    The package and the baseline are timed with ``-S`` (no ``site``): ``.pth`` files in an
    interpreter's site-packages (``certifi``'s, setuptools' ``distutils`` hack) import ``enum``,
    ``re``, ``typing``, ``threading`` and more before the statement runs, which would take half
    the baseline out of the baseline and leave the package's share whole.  The peer needs
    ``site`` to be found at all, so it keeps it.
    """
    flags = ["-I"] if statement == IMPORT_PEER else ["-I", "-S"]
    probe = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, *flags, "-c", f"import sys; sys.path.insert(0, {ROOT!r}); {probe}"], capture_output=True, text=True)
    return float(out.stdout) if out.returncode == 0 else None


def import_times(statements: dict[str, str], runs: int) -> dict[str, float | None]:
    """The least seconds of each statement over ``runs`` rounds, each round timing every statement once.

    The least, not the median: on a shared machine noise only adds time; and
    in rounds, so that a spell of load meets every statement alike.
    """
    best: dict[str, float | None] = dict.fromkeys(statements, float("inf"))
    for _ in range(runs):
        for name, statement in statements.items():
            least = best[name]
            if least is not None:  # None: it failed to import once, which says enough
                t = import_once(statement)
                best[name] = None if t is None else min(t, least)
    return best


def measure_import(quick: bool) -> list[Row]:
    runs = 5 if quick else 15
    times = import_times({"base": IMPORT_BASE, "ours": IMPORT_OURS, "peer": IMPORT_PEER}, runs)
    base, ours, lc = times["base"], times["ours"], times["peer"]
    assert base is not None and ours is not None, "the baseline and the package import"
    ratio = ours / base
    rows = [
        Row("import", f"baseline: {IMPORT_BASE}", f"{base * 1e3:.1f} ms", "1.00x", ""),
        Row("import", "import agentkit_core, touch Item, Part, fold, CancellationController", f"{ours * 1e3:.1f} ms", f"{ratio:.2f}x baseline",
            verdict(ratio <= IMPORT_TARGET, f"<= {IMPORT_TARGET:g}x")),
    ]
    if lc is None:
        rows.append(Row("import", "peer langchain_core.messages", "-", "-", "skipped: langchain-core not installed"))
    else:
        rows.append(Row("import", "peer import langchain_core.messages", f"{lc * 1e3:.1f} ms", f"ours {lc / ours:.1f}x faster", verdict(lc / ours >= 6, ">= 6x faster")))
    return rows
