"""The JSON text of an item's parts written straight from their fields: byte for byte what ``to_dict`` gives ``json``.

:meth:`Item.to_json <agentkit_core.Item.to_json>` (and so ``dump_items`` and
``append_items``) writes with these, loaded with ``json`` on first use.  The
parts a session is mostly made of (text, reasoning, tool calls, tool results
with text or structured output) are written here, their strings by ``json``'s
C string encoder and their JSON values by the compact C encoder, without
building the nested dicts of ``to_dict`` for the C encoder to walk again;
every other part, output, data reference, usage and finish reason is written
from its own ``to_dict``.  Measured (``tools/bench.py --only sessions``, one
turn of an assistant item and its tool result, CPython 3.11): 7 us instead of
12.  The reference's own bytes check it: ``tests/test_wire.py`` reads every
item of ``reference-wire.tsv`` back through ``to_json``, and
``tests/test_line.py`` compares it with ``to_dict`` on seeded random items.
"""

from __future__ import annotations

from json.encoder import encode_basestring as string  # C: a string's JSON text, non-ASCII kept (ensure_ascii=False)

from .content import ReasoningPart, TextPart
from .jsontext import compact_json
from .metadata import MetadataMap
from .tool import StructuredOutput, TextOutput, ToolCallPart, ToolResultPart

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from .content import Part

__all__ = ("string", "value", "metadata_json", "part_json")

value = compact_json()
"""A JSON value's compact text."""


def metadata_json(md: MetadataMap) -> str:
    """A metadata map's JSON text."""
    data = md._data  # kept with its keys sorted, as to_dict writes them
    return value(data) if data else "{}"


def _bool(b: bool) -> str:
    return "true" if b else "false"


def part_json(p: Part) -> str:
    """A part's JSON text."""
    if type(p) is TextPart:
        return f'{{"Text":{{"text":{string(p.text)},"metadata":{metadata_json(p.metadata)}}}}}'
    if type(p) is ToolCallPart:
        return (f'{{"ToolCall":{{"id":{string(p.id.value)},"name":{string(p.name)},"input":{value(p.input)},'
                f'"metadata":{metadata_json(p.metadata)}}}}}')
    if type(p) is ToolResultPart:
        output = p.output
        if type(output) is TextOutput:
            written = f'{{"Text":{string(output.text)}}}'
        elif type(output) is StructuredOutput:
            written = f'{{"Structured":{value(output.value)}}}'
        else:
            written = value(output.to_dict())
        return (f'{{"ToolResult":{{"call_id":{string(p.call_id.value)},"output":{written},'
                f'"is_error":{_bool(p.is_error)},"metadata":{metadata_json(p.metadata)}}}}}')
    if type(p) is ReasoningPart:
        summary, data = p.summary, p.data
        return (f'{{"Reasoning":{{"summary":{"null" if summary is None else string(summary)},'
                f'"data":{"null" if data is None else value(data.to_dict())},"redacted":{_bool(p.redacted)},'
                f'"metadata":{metadata_json(p.metadata)}}}}}')
    return value(p.to_dict())
