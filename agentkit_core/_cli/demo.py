"""``python -m agentkit_core demo``: one scripted assistant turn, streamed through the fold.

The script is what a provider adapter would emit for a turn that reasons,
answers, calls a tool with its arguments streamed in fragments, and returns a
small image.  Each delta is folded; the growing ``snapshot()`` is redrawn in
place on a terminal, or described one line per delta otherwise.  Then the
transcript (user item, assistant item with usage and finish reason, the tool's
result) is printed as JSON Lines in the reference's wire format.
"""

from __future__ import annotations

import json
import shutil
import time
from typing import IO

from ..content import MediaPart, Modality, Part, PartKind, ReasoningPart, TextPart
from ..data import InlineBytes
from ..delta import AppendBytes, AppendText, BeginPart, CommitPart, Delta, SetMetadata
from ..finish import FinishReason
from ..fold import FoldState, fold
from ..ids import MessageId, PartId, Timestamp, ToolCallId
from ..item import Item, ItemKind
from ..jsontext import loads
from ..keys import INPUT_JSON_KEY, MIME_TYPE_KEY, MODALITY_KEY, TOOL_CALL_ID_KEY, TOOL_NAME_KEY
from ..tool import TextOutput, ToolCallPart, ToolResultPart
from ..usage import CostUsage, TokenUsage, Usage

__all__ = ("script", "transcript", "run")

#: A 1x1 PNG (one orange pixel), the image the assistant "draws".
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478"
    "9c63f8dfc0000004010180c52a185d0000000049454e44ae426082"
)
_REASONING = "The user wants the weather in Paris; the get_weather tool answers that."
_TEXT = "Let me look that up. Here is a sunny icon while you wait."
_ARGS = '{"city": "Paris", "unit": "celsius"}'


def script() -> list[Delta]:
    """The deltas of the demo turn, in stream order."""
    r, t, c, m = PartId("reasoning"), PartId("text"), PartId("call"), PartId("image")
    deltas: list[Delta] = [BeginPart(r, PartKind.REASONING)]
    deltas += [AppendText(r, chunk) for chunk in _chunks(_REASONING, 4)]
    deltas.append(CommitPart(ReasoningPart(_REASONING)))
    deltas.append(BeginPart(t, PartKind.TEXT))
    deltas += [AppendText(t, chunk) for chunk in _chunks(_TEXT, 5)]
    deltas.append(BeginPart(c, PartKind.TOOL_CALL))
    deltas.append(SetMetadata(c, {TOOL_CALL_ID_KEY: "call-1", TOOL_NAME_KEY: "get_weather"}))  # header keys
    deltas += [AppendText(c, chunk) for chunk in ('{"city": ', '"Par', 'is", "unit"', ': "celsius"}')]
    deltas.append(BeginPart(m, PartKind.MEDIA))
    deltas.append(SetMetadata(m, {MODALITY_KEY: Modality.IMAGE.value, MIME_TYPE_KEY: "image/png"}))
    deltas += [AppendBytes(m, PNG[:32]), AppendBytes(m, PNG[32:])]
    deltas.append(CommitPart(TextPart(_TEXT)))
    deltas.append(CommitPart(ToolCallPart(ToolCallId("call-1"), "get_weather", loads(_ARGS))))
    deltas.append(CommitPart(MediaPart(Modality.IMAGE, "image/png", InlineBytes(PNG))))
    return deltas


def _chunks(text: str, n: int) -> list[str]:
    words = text.split(" ")
    size = -(-len(words) // n)
    return [" ".join(words[i : i + size]) + (" " if i + size < len(words) else "") for i in range(0, len(words), size)]


def transcript(parts: tuple[Part, ...]) -> list[Item]:
    """The demo's transcript around the assistant's folded ``parts``."""
    start = 1767225600000  # 2026-01-01T00:00:00Z: fixed, so the output is the same every run
    usage = Usage(
        TokenUsage(1250, 96, reasoning_tokens=24, cached_input_tokens=1024, cache_write_input_tokens=0),
        cost=CostUsage(0.00193, "USD"),
    )
    return [
        Item.text(ItemKind.USER, "What's the weather in Paris? And draw me a tiny icon.")
        .with_id(MessageId("msg-1"))
        .with_created_at(start),
        Item(
            ItemKind.ASSISTANT,
            parts,
            id=MessageId("msg-2"),
            usage=usage,
            finish_reason=FinishReason.TOOL_CALL,
            created_at=Timestamp(start + 1800),
        ),
        Item(
            ItemKind.TOOL,
            (ToolResultPart(ToolCallId("call-1"), TextOutput("18 °C, sunny")),),
            id=MessageId("msg-3"),
            created_at=Timestamp(start + 2100),
        ),
    ]


def describe(part: Part) -> str:
    """One line saying what ``part`` holds so far."""
    if isinstance(part, TextPart):
        return f"Text       {part.text}"
    if isinstance(part, ReasoningPart):
        return f"Reasoning  {part.summary or ''}"
    if isinstance(part, ToolCallPart):
        if INPUT_JSON_KEY in part.metadata or not part.name:  # still open: raw argument text so far
            return f"ToolCall   {part.name or '?'} (streaming) {part.metadata.get(INPUT_JSON_KEY, '')}"
        return f"ToolCall   {part.name}({json.dumps(part.input, ensure_ascii=False)}) id={part.id.value}"
    if isinstance(part, MediaPart):
        size = len(part.data.value) if isinstance(part.data, InlineBytes) else 0
        return f"Media      {part.modality.value} {part.mime_type}, {size} bytes"
    return f"{part.part_kind.value:<10} {json.dumps(part.to_dict(), ensure_ascii=False)}"


def change(delta: Delta) -> str:
    """One line saying what ``delta`` does."""
    if isinstance(delta, BeginPart):
        return f"BeginPart    {delta.part_id.value:<9} opens a {delta.kind.value} part"
    if isinstance(delta, AppendText):
        return f"AppendText   {delta.part_id.value:<9} + {json.dumps(delta.chunk, ensure_ascii=False)}"
    if isinstance(delta, AppendBytes):
        return f"AppendBytes  {delta.part_id.value:<9} + {len(delta.chunk)} bytes"
    if isinstance(delta, SetMetadata):
        return f"SetMetadata  {delta.part_id.value:<9} {_compact(delta.metadata.to_dict())}"
    if isinstance(delta, CommitPart):
        return f"CommitPart   {'':<9} {describe(delta.part)}"
    return type(delta).__name__


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def run(out: IO[str], *, live: bool, delay: bool, quiet: bool, deltas: bool) -> int:
    """Play the demo onto ``out``; ``live`` redraws in place (a terminal), else one line per delta."""
    stream = script()
    if deltas:
        for d in stream:
            out.write(d.to_json() + "\n")
        return 0
    state = FoldState()
    drawn = 0
    width = max(20, shutil.get_terminal_size().columns - 1)
    for i, delta in enumerate(stream, 1):
        state = fold(state, delta)
        if quiet:
            continue
        if not live:
            out.write(f"{i:2} {change(delta)}"[:200].rstrip() + "\n")
            continue
        lines = [f"delta {i}/{len(stream)}: {change(delta)}"] + ["  " + describe(p) for p in state.snapshot()]
        up = f"\x1b[{drawn}F\x1b[J" if drawn else ""
        out.write(up + "".join(line[:width] + "\n" for line in lines))
        out.flush()
        drawn = len(lines)
        if delay:
            time.sleep(0.08)
    if not quiet:
        out.write("\nThe transcript, as JSON Lines in the reference's wire format:\n")
    for item in transcript(state.parts):
        out.write(item.to_json() + "\n")
    return 0
