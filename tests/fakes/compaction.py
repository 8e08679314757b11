"""Compaction: a long transcript -> fewer items, from nothing but what the items hold.

``compact(items, keep_last=N)`` keeps

* every SYSTEM, DEVELOPER and CONTEXT item, in order (instructions and loaded
  material are not conversation to summarise);
* the last ``N`` turns whole, a turn being a USER item and everything after it
  up to the next USER item;

and replaces everything else with **one CONTEXT item** that summarises it.
CONTEXT rather than NOTIFICATION: the summary is material the model works
from, standing in for the turns it replaces, not an event that happened; and
every adapter sends CONTEXT as user content.  The summary item sits after the
kept instructions and before the kept turns.  It holds one ``TextPart`` for the
model (turns and items summarised, the user's requests, tool calls by name and
how many failed, files named in tool call inputs, tokens used, the last thing
the assistant said), the summarised turns' total ``Usage`` as its ``usage`` (so
``sum`` over the transcript's usage is the same before and after), and the
counts, machine-readable, in metadata under ``agentkit.compaction``.

Tool calls and their results stay together: if the boundary would keep a
result whose call is summarised away (or the other way round, whatever the
item order), the boundary moves back until the pair is on one side.  The kept
tail is never split inside a pair, so a provider never sees an orphan.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from agentkit_core import (
    Item,
    ItemKind,
    JsonValue,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

__all__ = ("compact", "COMPACTION_KEY")

#: Item metadata of a summary: what it replaced, as counts.
COMPACTION_KEY = "agentkit.compaction"
_PINNED = (ItemKind.SYSTEM, ItemKind.DEVELOPER, ItemKind.CONTEXT)
#: Keys of a tool call's input that name a file.
_PATH_KEYS = ("path", "file", "file_path", "filename", "paths", "files")


def _calls(item: Item) -> set[str]:
    return {p.id.value for p in item.parts if isinstance(p, ToolCallPart)}


def _results(item: Item) -> set[str]:
    return {p.call_id.value for p in item.parts if isinstance(p, ToolResultPart)}


def _boundary(items: Sequence[Item], keep_last: int) -> int:
    """Index of the first kept item: the start of the last ``keep_last`` turns, moved back past split pairs."""
    starts = [i for i, item in enumerate(items) if item.kind is ItemKind.USER]
    if keep_last <= 0:
        cut = len(items)
    elif len(starts) <= keep_last:
        return 0
    else:
        cut = starts[-keep_last]
    while cut > 0:
        kept = set().union(*(_calls(it) | _results(it) for it in items[cut:]))
        split = [i for i in range(cut) if (_calls(items[i]) | _results(items[i])) & kept]
        if not split:
            break
        cut = min(split)
    return cut


def _paths(value: JsonValue) -> list[str]:
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    for key in _PATH_KEYS:
        v = value.get(key)
        if isinstance(v, str):
            found.append(v)
        elif isinstance(v, list):
            found += [x for x in v if isinstance(x, str)]
    return found


def _clip(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _summary(items: Sequence[Item]) -> Item:
    turns = sum(1 for it in items if it.kind is ItemKind.USER)
    tools: Counter[str] = Counter()
    failed = 0
    files: list[str] = []
    for item in items:
        for part in item.parts:
            if isinstance(part, ToolCallPart):
                tools[part.name] += 1
                files += [f for f in _paths(part.input) if f not in files]
            elif isinstance(part, ToolResultPart) and part.is_error:
                failed += 1
    usage = sum((it.usage for it in items if it.usage is not None), Usage())
    requests = [it.text_content(" ") for it in items if it.kind is ItemKind.USER and it.text_content()]
    replies = [it.text_content(" ") for it in items if it.kind is ItemKind.ASSISTANT and it.text_content()]

    lines = [f"Summary of {len(items)} earlier items ({turns} turns)."]
    if requests:
        lines.append(f"The user asked, first: {_clip(requests[0])!r}; last: {_clip(requests[-1])!r}.")
    if tools:
        calls = ", ".join(f"{name} x{n}" for name, n in sorted(tools.items()))
        lines.append(f"Tools called: {calls}" + (f" ({failed} failed)." if failed else "."))
    if files:
        lines.append("Files touched: " + ", ".join(files) + ".")
    if usage.tokens is not None:
        lines.append(f"Tokens used: {usage.tokens.input_tokens} in, {usage.tokens.output_tokens} out.")
    if replies:
        lines.append(f"The assistant last said: {_clip(replies[-1])!r}.")
    counts: dict[str, JsonValue] = {
        "items": len(items),
        "turns": turns,
        "tool_calls": dict(sorted(tools.items())),
        "failed_tool_calls": failed,
        "files": list(files),
    }
    return Item(
        ItemKind.CONTEXT,
        (TextPart("\n".join(lines)),),
        metadata={COMPACTION_KEY: counts},
        usage=usage if usage != Usage() else None,
    )


def compact(items: Sequence[Item], keep_last: int = 2) -> list[Item]:
    """``items`` with everything but instructions, context and the last turns summarised into one item.

    Returns a copy of ``items`` when there is nothing to summarise.
    """
    cut = _boundary(items, keep_last)
    head = items[:cut]
    dropped = [it for it in head if it.kind not in _PINNED]
    if not dropped:
        return list(items)
    pinned = [it for it in head if it.kind in _PINNED]
    return [*pinned, _summary(dropped), *items[cut:]]
