"""Private to :mod:`.openai_chat`: declared tools and the tool choice, both ways (the mapping table is in ``docs/openai_chat.md``)."""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ToolChoice, ToolSpec
from .._common import JsonDict, copy_json, fields_to_metadata, metadata_to_fields
from .._common.held import as_native_fields
from .._common.tools import Choice, Tools, each, function_native, function_spec, openai_choice, openai_choice_fields, tool_objects, write_tool_fields
from ._held import REQUEST

__all__ = ("Choice", "Tools", "tool_fields", "tools_from_request", "tool_choice_from_request")

NS = "openai.chat."
#: Fields of the tool object around ``function`` (``{"type": "function", "function": {...}}``).
TOOL_NS = NS + "tool."


def tool_fields(tools: object, tool_choice: object) -> JsonDict:
    """The body fields ``tools``, ``tool_choice`` and ``parallel_tool_calls``, each only when given."""
    return write_tool_fields(tools, tool_choice, _write_tools, _choice_fields)


def _native_tool(spec: ToolSpec) -> JsonDict:
    return {"type": "function", "function": function_native(spec, NS, "parameters"), **metadata_to_fields(spec.metadata, TOOL_NS)}


_write_tools = each(_native_tool)  # made once, not at every request


def _named(name: str) -> JsonDict:
    return {"type": "function", "function": {"name": name}}


def _choice_fields(choice: ToolChoice) -> JsonDict:
    return openai_choice_fields(choice, _named, NS)


def tools_from_request(body: Mapping[str, JsonValue]) -> list[ToolSpec | JsonDict]:
    """The request's ``tools`` as specs (function tools) and native dicts (custom tools, anything else), in order.

    ``request_from_items(items, tools=...)`` writes them back as they came.
    Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    out: list[ToolSpec | JsonDict] = []
    for path, tool in tool_objects(body):
        function = tool.get("function")
        if tool.get("type") == "function" and isinstance(function, dict):
            spec = function_spec(function, f"{path}.function", NS, "parameters")
            outer = fields_to_metadata(tool, ("type", "function"), TOOL_NS)
            out.append(spec.with_metadata({**spec.metadata, **outer}) if outer else spec)
        else:
            out.append(copy_json(tool))
    return out


def tool_choice_from_request(body: Mapping[str, JsonValue]) -> ToolChoice | None:
    """``tool_choice`` and ``parallel_tool_calls`` as a :class:`~agentkit_core.ToolChoice`; ``None`` when neither is set.

    A choice the neutral value cannot say exactly (``allowed_tools``, a custom
    tool, no ``tool_choice`` beside ``parallel_tool_calls``) keeps the native
    value in ``openai.chat.tool_choice`` (null: absent), written back in its
    place.  Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    return openai_choice(as_native_fields(body, REQUEST), _name_of, _choice_fields, NS)


def _name_of(native: JsonDict) -> object:
    kind = native.get("type")
    inner = native.get(kind) if kind == "function" or kind == "custom" else None  # {"type": "function", "function": {"name"}}
    return inner.get("name") if isinstance(inner, dict) else None
