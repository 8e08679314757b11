"""Private to :mod:`.openai_responses`: declared tools and the tool choice, both ways (the mapping table is in ``docs/openai_responses.md``)."""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ToolChoice, ToolSpec
from .._common import JsonDict, copy_json
from .._common.held import as_native_fields
from .._common.tools import Choice, Tools, each, function_native, function_spec, openai_choice, openai_choice_fields, tool_objects, write_tool_fields
from ._held import REQUEST

__all__ = ("Choice", "Tools", "tool_fields", "tools_from_request", "tool_choice_from_request")

NS = "openai."
#: What the writer sends unless a spec says otherwise: the API's own default for ``strict`` is
#: ``true``, which refuses most schemas not written for it, so a spec goes non-strict as in Chat.
_DEFAULTS = {"strict": False}


def tool_fields(tools: object, tool_choice: object) -> JsonDict:
    """The body fields ``tools``, ``tool_choice`` and ``parallel_tool_calls``, each only when given."""
    return write_tool_fields(tools, tool_choice, each(_native_tool), _choice_fields)


def _native_tool(spec: ToolSpec) -> JsonDict:
    return {"type": "function", **function_native(spec, NS, "parameters", _DEFAULTS, no_schema=None)}  # required, null allowed


def _named(name: str) -> JsonDict:
    return {"type": "function", "name": name}


def _choice_fields(choice: ToolChoice) -> JsonDict:
    return openai_choice_fields(choice, _named, NS)


def tools_from_request(body: Mapping[str, JsonValue]) -> list[ToolSpec | JsonDict]:
    """The request's ``tools`` as specs (function tools) and native dicts (hosted, MCP, custom tools...), in order.

    ``request_from_items(items, tools=...)`` writes them back as they came.
    Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    out: list[ToolSpec | JsonDict] = []
    for path, tool in tool_objects(body):
        if tool.get("type") == "function":
            out.append(function_spec(tool, path, NS, "parameters", ("type",), _DEFAULTS, always=("parameters",)))
        else:
            out.append(copy_json(tool))
    return out


def tool_choice_from_request(body: Mapping[str, JsonValue]) -> ToolChoice | None:
    """``tool_choice`` and ``parallel_tool_calls`` as a :class:`~agentkit_core.ToolChoice`; ``None`` when neither is set.

    A choice the neutral value cannot say exactly (``allowed_tools``, a hosted
    or MCP tool, a custom tool, no ``tool_choice`` beside
    ``parallel_tool_calls``) keeps the native value in ``openai.tool_choice``
    (null: absent), written back in its place.  Raises
    :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    return openai_choice(as_native_fields(body, REQUEST), _name_of, _choice_fields, NS)


def _name_of(native: JsonDict) -> object:
    return native.get("name") if native.get("type") in ("function", "custom") else None
