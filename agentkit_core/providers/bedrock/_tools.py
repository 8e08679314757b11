"""Private to :mod:`.bedrock`: declared tools and the tool choice, both ways, in ``toolConfig``.

==============================================  ==================================================
native                                          neutral
==============================================  ==================================================
``toolConfig.tools[i].toolSpec``                ``ToolSpec(name, description, inputSchema.json)``;
                                                other fields ``bedrock.<field>``
any other entry (``cachePoint``, ``systemTool``) the native dict, written back as it came
``toolChoice: {"auto": {}}``                    ``ToolChoice.auto()``
``toolChoice: {"any": {}}``                     ``ToolChoice.required()``
``toolChoice: {"tool": {"name": n}}``           ``ToolChoice.tool(n)``
none                                            ``ToolChoice.none()``: refused (``ValueError``);
                                                ``parallel``: not sent, Converse has no such setting
==============================================  ==================================================
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, NormalizeError, ToolChoice, ToolSpec
from .._common import JsonDict, copy_json, fields_to_metadata, json_object, metadata_to_fields, wrong
from .._common.held import as_native_fields
from .._common.tools import Choice, Tools, tool_arguments
from ._held import REQUEST

__all__ = ("Choice", "Tools", "tool_fields", "tools_from_request", "tool_choice_from_request")

NS = "bedrock."
_NO_SCHEMA: JsonDict = {"type": "object", "properties": {}}


def _native_tool(spec: ToolSpec) -> JsonDict:
    native: JsonDict = {"name": spec.name}
    if spec.description:
        native["description"] = spec.description
    schema = spec.input_schema if spec.input_schema is not None else _NO_SCHEMA
    native["inputSchema"] = {"json": copy_json(schema)}
    native.update(metadata_to_fields(spec.metadata, NS))
    return {"toolSpec": native}


def _choice(choice: ToolChoice) -> JsonDict:
    carried = choice.metadata.get(NS + "toolChoice")
    if isinstance(carried, dict):
        native: JsonDict = copy_json(carried)
        return native
    if choice.mode == "none":
        raise ValueError("tool_choice: Bedrock Converse has no 'none' choice; leave the tools out instead")
    if choice.mode == "tool":
        return {"tool": {"name": choice.name}}
    return {"any": {}} if choice.mode == "required" else {"auto": {}}


def tool_fields(tools: object, tool_choice: object) -> JsonDict:
    """``{"toolConfig": {"tools": [...], "toolChoice": {...}}}``, each part only when given; ``{}`` for neither."""
    if tool_choice is None and (type(tools) is tuple or type(tools) is list) and not tools:
        return {}
    specs, choice = tool_arguments(tools, tool_choice)
    config: JsonDict = {}
    if specs:
        config["tools"] = [_native_tool(t) if isinstance(t, ToolSpec) else t for t in specs]
    if isinstance(choice, ToolChoice):
        config["toolChoice"] = _choice(choice)
    elif choice is not None:
        config["toolChoice"] = choice
    return {"toolConfig": config} if config else {}


def _config(body: Mapping[str, JsonValue]) -> JsonDict:
    body = as_native_fields(body, REQUEST)
    config = json_object(body.get("toolConfig", {}), "toolConfig", "a tool configuration (a JSON object)")
    for key in config:
        if key not in ("tools", "toolChoice"):
            raise NormalizeError(f"Converse's toolConfig holds tools and toolChoice, not {key!r}", f"toolConfig.{key}")
    return config


def tools_from_request(body: Mapping[str, JsonValue]) -> list[ToolSpec | JsonDict]:
    """The request's ``toolConfig.tools`` as specs (``toolSpec`` entries) and native dicts (the others), in order.

    ``request_from_items(items, tools=...)`` writes them back as they came.
    Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    tools = _config(body).get("tools", [])
    if not isinstance(tools, list):
        raise wrong("a list of tools", tools, "toolConfig.tools")
    out: list[ToolSpec | JsonDict] = []
    for i, tool in enumerate(tools):
        path = f"toolConfig.tools[{i}]"
        json_object(tool, path, "a tool (a JSON object)")
        spec = tool.get("toolSpec")
        if set(tool) != {"toolSpec"}:
            out.append(copy_json(tool))
            continue
        json_object(spec, path + ".toolSpec", "a tool specification (a JSON object)")
        name, description, schema = spec.get("name"), spec.get("description", ""), spec.get("inputSchema")
        if not isinstance(name, str):
            raise wrong("a string", name, path + ".toolSpec.name")
        if not isinstance(description, str):
            raise wrong("a string", description, path + ".toolSpec.description")
        if not (isinstance(schema, dict) and set(schema) == {"json"} and isinstance(schema["json"], dict)):
            out.append(copy_json(tool))  # a schema as Converse may one day take it otherwise: kept as it came
            continue
        metadata = fields_to_metadata(spec, ("name", "description", "inputSchema"), NS)
        out.append(ToolSpec(name, description, copy_json(schema["json"]), metadata=metadata))
    return out


def tool_choice_from_request(body: Mapping[str, JsonValue]) -> ToolChoice | None:
    """The request's ``toolConfig.toolChoice`` as a :class:`~agentkit_core.ToolChoice`; ``None`` when it has none.

    A choice the neutral value cannot say exactly keeps the native object in
    ``bedrock.toolChoice``, written back in its place.
    """
    config = _config(body)
    if "toolChoice" not in config:
        return None
    native = json_object(config["toolChoice"], "toolConfig.toolChoice", "a tool choice (a JSON object)")
    name = native.get("tool", {}).get("name") if isinstance(native.get("tool"), dict) else None
    if native == {"auto": {}}:
        return ToolChoice.auto()
    if native == {"any": {}}:
        return ToolChoice("required")
    if isinstance(name, str) and native == {"tool": {"name": name}}:
        return ToolChoice("tool", name)
    return ToolChoice("auto", metadata={NS + "toolChoice": copy_json(native)})
