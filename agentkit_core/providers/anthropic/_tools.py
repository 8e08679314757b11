"""Private to :mod:`.anthropic`: declared tools and the tool choice, both ways (the mapping table is in ``docs/anthropic.md``)."""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ToolChoice, ToolSpec
from .._common import JsonDict, copy_json
from .._common.held import as_native_fields
from .._common.tools import Choice, Tools, as_read, chosen, each, function_native, function_spec, native_choice, tool_objects, write_tool_fields
from ._held import REQUEST

__all__ = ("Choice", "Tools", "tool_fields", "tools_from_request", "tool_choice_from_request")

NS = "anthropic."
_TYPES = {"auto": "auto", "required": "any", "tool": "tool", "none": "none"}
_MODES = {native: mode for mode, native in _TYPES.items()}


def tool_fields(tools: object, tool_choice: object) -> JsonDict:
    """The body fields ``tools`` and ``tool_choice`` of a request, each only when given."""
    return write_tool_fields(tools, tool_choice, each(_native_tool), _choice_fields)


def _native_tool(spec: ToolSpec) -> JsonDict:
    return function_native(spec, NS, "input_schema", no_schema={"type": "object"})  # the API requires a schema


def _choice_fields(choice: ToolChoice) -> JsonDict:
    native: JsonDict = {"type": _TYPES[choice.mode]}
    if choice.name is not None:
        native["name"] = choice.name
    if choice.parallel is not None and choice.mode != "none":
        native["disable_parallel_tool_use"] = not choice.parallel
    return chosen({"tool_choice": native}, choice, NS)


def tools_from_request(body: Mapping[str, JsonValue]) -> list[ToolSpec | JsonDict]:
    """The request's ``tools`` as specs (custom tools) and native dicts (server tools), in order.

    ``request_from_items(items, tools=...)`` writes them back as they came.
    Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    out: list[ToolSpec | JsonDict] = []
    for path, tool in tool_objects(body):
        if tool.get("type", "custom") == "custom":
            out.append(function_spec(tool, path, NS, "input_schema", always=("input_schema",)))
        else:
            out.append(copy_json(tool))
    return out


def tool_choice_from_request(body: Mapping[str, JsonValue]) -> ToolChoice | None:
    """The request's ``tool_choice`` as a :class:`~agentkit_core.ToolChoice`; ``None`` when it has none.

    A choice the neutral value cannot say exactly (a type yet to come, extra
    fields) keeps the native object in ``anthropic.tool_choice``, written back
    in its place.  Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    if "tool_choice" not in body:
        return None
    native = body["tool_choice"]
    native_choice(native, "tool_choice")
    return as_read(_neutral(native), {"tool_choice": native}, _choice_fields, NS)


def _neutral(native: object) -> ToolChoice:
    if not isinstance(native, dict):
        return ToolChoice.auto()
    kind = native.get("type")
    mode = _MODES.get(kind, "auto") if isinstance(kind, str) else "auto"
    name = native.get("name")
    if mode == "tool" and not isinstance(name, str):
        mode = "auto"
    disable = native.get("disable_parallel_tool_use")
    parallel = None if not isinstance(disable, bool) else not disable
    return ToolChoice(mode, name if mode == "tool" else None, parallel=parallel)  # type: ignore[arg-type]
