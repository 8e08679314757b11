"""``convert --from mcp-tools|pydantic-ai|langchain`` and ``convert --to ...``: other libraries' shapes.

``--from`` names what the files hold: a provider's traffic (:mod:`.convert`),
MCP tools (a ``tools/list`` result or its ``tools`` list), a pydantic-ai
message history (its JSON form) or LangChain messages (``messages_to_dict``'s
dicts); without it, the files hold this package's items (a transcript) or,
for ``--to mcp-tools``, its tool specs.  ``--to`` names what is written:
``agentkit`` (the default: items, or tool specs, as JSON Lines), or one JSON
document for ``mcp-tools``, ``pydantic-ai`` or ``langchain``, made from every
file's items (or specs) in order.  A file another library's reader refuses
gets one line on standard error, naming what it looks like.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
from typing import IO, Any, Callable

from .._detect import sniff
from .._reader import BINARY, EMPTY, EVENTS, Reading
from ..error import NormalizeError
from ..item import Item
from ..toolspec import ToolSpec

__all__ = ("LIBRARIES", "TARGETS", "run", "handles")

#: The ``--from`` / ``--to`` spellings of the libraries, with their module under ``agentkit_core.interop``.
LIBRARIES = {"mcp-tools": "mcp", "pydantic-ai": "pydantic_ai", "langchain": "langchain"}
#: What ``--to`` takes: this package's own JSON, or a library's.
TARGETS = ("agentkit", *LIBRARIES)


def handles(args: argparse.Namespace) -> bool:
    """Whether the command is this module's: a library on either side, or no ``--from``."""
    return args.provider is None or args.provider in LIBRARIES or getattr(args, "to", "agentkit") != "agentkit"


class _Refused(Exception):
    """A file the command cannot convert: its one line of report."""


def run(
    args: argparse.Namespace,
    open_path: Callable[[str], IO[bytes]],
    report: Callable[[str], None],
    cannot_read: Callable[[str, OSError], None],
    write: Callable[[str], None],
) -> None:
    """Convert every file of ``args``, then write what ``--to`` asks for."""
    source, target = args.provider, args.to
    tools = source == "mcp-tools" or (source is None and target == "mcp-tools")
    if tools and target not in ("agentkit", "mcp-tools"):
        report(f"convert: tools convert to agentkit or mcp-tools, not {target}")
        return
    if not tools and target == "mcp-tools":
        report(f"convert: --to mcp-tools takes tools (--from mcp-tools, or tool specs), not {source}'s messages")
        return
    gathered: list[Any] = []
    if source is not None and source not in LIBRARIES:  # a provider's traffic, through the provider converter
        from . import convert

        convert.run(args, open_path, report, cannot_read, lambda line: gathered.append(Item.from_json(line)))
    else:
        for path in args.files:
            name = "<stdin>" if path == "-" else path
            try:
                with open_path(path) as stream:
                    data = stream.read()
            except OSError as exc:
                cannot_read(name, exc)
                continue
            try:
                gathered += _read(source, tools, name, data)
            except NormalizeError as exc:
                report(f"{name}: {exc}" if not exc.location else str(exc))
            except _Refused as refused:
                report(f"{name}: {refused}")
    if target == "agentkit":
        for value in gathered:
            write(value.to_json())
        return
    module = importlib.import_module(f"..interop.{LIBRARIES[target]}", __package__)
    try:
        document = module.tools_from_specs(gathered) if tools else module.messages_from_items(gathered)
    except NormalizeError as exc:
        report(f"convert --to {target}: {exc}")
        return
    write(json.dumps(document, ensure_ascii=False))


#: What a file of each ``--from`` holds, for the line refusing one that holds nothing of it (no ``--from``: items).
_HOLDS = {"mcp-tools": "MCP tools", "pydantic-ai": "a pydantic-ai message history", "langchain": "LangChain messages"}


def _values(name: str, data: bytes, holds: str) -> list[Any]:
    """Every JSON value of the file: the elements of an array, the lines of JSON Lines, or the one document.

    An empty file, binary data and server-sent events hold no value: :class:`_Refused`, saying what the file is.
    """
    reading = Reading(io.BytesIO(data), name, owned=False)
    if reading.shape == EMPTY:
        raise _Refused(f"not {holds}: the file is empty")
    if reading.shape in (BINARY, EVENTS):
        looks = reading.looks(lambda _: False)
        assert looks is not None  # binary data and events always say what they look like
        raise _Refused(f"not {holds}: {looks.what}")
    values = []
    for record in reading.records():
        if record.problem is not None:
            raise record.problem
        values.append(record.value)
    return values


def _not_ours(value: object, tools: bool, n: int) -> NormalizeError | None:
    """For a value read as items (or tool specs) that is another format's: the error naming it and its ``--from``."""
    from ..interop._common import looks_like
    from ..transcript import looks_like_item
    from . import convert

    what = looks_like(value)
    expected = "a tool spec" if tools else "an agentkit item"
    if what in _LIBRARY_SHAPES:
        return NormalizeError(f"expected {expected}, found {what} (--from {_LIBRARY_SHAPES[what]})", f"[{n}]")
    if tools or looks_like_item(value):
        return None  # the decoder's own error names the field
    found = sniff(value) if type(value) is dict else None
    hint = f" (--from {convert.flag(found.module)})" if found is not None and found.sure else ""
    return NormalizeError(f"expected {expected}, found {what}{hint}", f"[{n}]")


#: What :func:`looks_like` calls a library's value, and the ``--from`` that reads it.
_LIBRARY_SHAPES = {"a LangChain message dict": "langchain", "a pydantic-ai message": "pydantic-ai",
                   "an MCP tool": "mcp-tools"}


def _read(source: str | None, tools: bool, name: str, data: bytes) -> list[Any]:
    values = _values(name, data, _HOLDS[source] if source is not None else "tool specs" if tools else "a transcript")
    if source is None:
        maker: Callable[[object], Any] = ToolSpec.from_dict if tools else Item.from_dict
        out = []
        for n, value in enumerate(values):
            try:
                out.append(maker(value))
            except NormalizeError as exc:
                raise _not_ours(value, tools, n) or exc.under(f"[{n}]") from None
        return out
    module = importlib.import_module(f"..interop.{LIBRARIES[source]}", __package__)
    if tools:
        listing = values[0] if len(values) == 1 and isinstance(values[0], dict) else values
        specs: list[ToolSpec] = module.specs_from_tools(listing)
        return specs
    items: list[Item] = module.items_from_messages(values)
    return items
