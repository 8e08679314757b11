"""Interop speed: a 1,000-message history converted either way, against the library's own validation of it.

The histories are the committed fixtures (``tests/interop/``, what the
libraries dump), repeated to 1,000 messages (MCP: 1,000 tools).  Each row
times this package's conversion against the library reading the same JSON
(``ModelMessagesTypeAdapter.validate_python``, ``messages_from_dict``,
``ListToolsResult.model_validate``), alternating rounds in one process; the
target for the histories is a ratio of at most 1/3 (the MCP rows, tools and
not a history, are for scale).  Beside each library, ``Item.from_dict`` of the
same items, the package's own wire decoder, shows how fast values checked
when made can be built at all: reading a history cannot beat it.  A library
that is not installed makes its rows say so.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable

from bench import ROOT, Row, paired, verdict

N = 1000


def _fixture(name: str) -> Any:
    with open(os.path.join(ROOT, "tests", "interop", name), encoding="utf-8") as f:
        return json.load(f)


def _times(history: list[Any]) -> list[Any]:
    return [history[i % len(history)] for i in range(N)]


def _row(area: str, name: str, fn: Callable[[], object], base: Callable[[], object], label: str, quick: bool,
         target: bool = True) -> Row:
    ours, theirs, ratio = paired(fn, base, rounds=3 if quick else 7)
    judged = verdict(ratio <= 1 / 3, "<= 0.33x") if target else "for scale"
    return Row(area, name, f"{ours * 1000:.2f} ms", f"{ratio:.2f}x {label} ({theirs * 1000:.2f} ms)", judged)


def _floor(area: str, name: str, items: list[Any], base: Callable[[], object], label: str, quick: bool) -> Row:
    """The package's own wire decoder reading the same items: how fast checked values can be made at all."""
    from agentkit_core import Item

    dicts = [item.to_dict() for item in items]
    return _row(area, name, lambda: [Item.from_dict(d) for d in dicts], base, label, quick, target=False)


def _skipped(area: str, name: str, library: str) -> Row:
    return Row(area, name, "-", "-", f"skipped: {library} not installed")


def measure(quick: bool) -> list[Row]:
    rows: list[Row] = []
    warnings.simplefilter("ignore")  # pydantic-ai's deprecation of RetryPromptPart, read in the fixture
    from agentkit_core.interop import langchain, mcp, pydantic_ai

    history = _times(_fixture("pydantic_ai.json"))
    names = ("pydantic-ai 1,000 messages -> items", "pydantic-ai items -> 1,000 messages")
    try:
        from pydantic_ai.messages import ModelMessagesTypeAdapter as adapter
    except ImportError:
        rows += [_skipped("interop", n, "pydantic-ai-slim") for n in names]
    else:
        items = pydantic_ai.items_from_messages(history)
        base = lambda: adapter.validate_python(history)  # noqa: E731
        rows.append(_row("interop", names[0], lambda: pydantic_ai.items_from_messages(history), base, "validate_python", quick))
        rows.append(_row("interop", names[1], lambda: pydantic_ai.messages_from_items(items), base, "validate_python", quick))
        rows.append(_floor("interop", "  the same items by Item.from_dict", items, base, "validate_python", quick))

    messages = _times(_fixture("langchain.json"))
    names = ("langchain 1,000 messages -> items", "langchain items -> 1,000 messages")
    try:
        from langchain_core.messages import messages_from_dict
    except ImportError:
        rows += [_skipped("interop", n, "langchain-core") for n in names]
    else:
        items = langchain.items_from_messages(messages)
        base = lambda: messages_from_dict(messages)  # noqa: E731
        rows.append(_row("interop", names[0], lambda: langchain.items_from_messages(messages), base, "messages_from_dict", quick))
        rows.append(_row("interop", names[1], lambda: langchain.messages_from_items(items), base, "messages_from_dict", quick))
        rows.append(_floor("interop", "  the same items by Item.from_dict", items, base, "messages_from_dict", quick))

    listing = _fixture("mcp.json")["tools_list"]
    listing["tools"] = _times(listing["tools"])
    names = ("mcp 1,000 tools -> specs", "mcp specs -> 1,000 tools")
    try:
        from mcp.types import ListToolsResult
    except ImportError:
        rows += [_skipped("interop", n, "mcp") for n in names]
    else:
        specs = mcp.specs_from_tools(listing)
        base = lambda: ListToolsResult.model_validate(listing)  # noqa: E731
        rows.append(_row("interop", names[0], lambda: mcp.specs_from_tools(listing), base, "model_validate", quick, target=False))
        rows.append(_row("interop", names[1], lambda: mcp.tools_from_specs(specs), base, "model_validate", quick, target=False))
    return rows
