"""Private to :mod:`.gemini`: declared tools and the tool choice, both ways (the mapping table is in ``docs/gemini.md``).

Consecutive specs share one ``Tool`` object, ``{"functionDeclarations": [...]}``;
a native dict is a ``Tool`` object of its own (``{"googleSearch": {}}``).
What a request held beyond that rides on its specs as markers, never sent
as fields: ``gemini.schema_field: "parameters"`` (the schema came as an
OpenAPI ``parameters``, not ``parametersJsonSchema``), ``gemini.snake_case``
(``parametersJsonSchema`` and, on the first spec of a ``Tool`` object,
``tool.functionDeclarations``, spelled in snake_case), ``gemini.new_tool``
(the spec starts a ``Tool`` object of its own though a spec precedes it),
``gemini.tools_object`` (``tools`` was that one object, not a list); and
``gemini.tool.<field>``: the other fields of the ``Tool`` object.
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ToolChoice, ToolSpec
from .._common import JsonDict, copy_json, fields_to_metadata, json_object, metadata_to_fields, wrong
from .._common.held import as_native_fields
from .._common.tools import Choice, Tools, chosen, function_native, function_spec, write_tool_fields
from ._held import REQUEST
from ._keys import MARKERS, NS, SNAKE, key_of, marked_paths, respell

__all__ = ("Choice", "Tools", "tool_fields", "tools_from_request", "tool_choice_from_request")

SCHEMA_FIELD = NS + "schema_field"
NEW_TOOL = NS + "new_tool"
TOOLS_OBJECT = NS + "tools_object"
TOOL_NS = NS + "tool."
_SKIP = (*MARKERS, "schema_field", "new_tool", "tools_object")
_GROUP_KEY = "tool.functionDeclarations"
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}


def tool_fields(tools: object, tool_choice: object) -> JsonDict:
    """The body fields ``tools`` and ``toolConfig``, each only when given."""
    return write_tool_fields(tools, tool_choice, tools_value, _choice_fields, "toolConfig")  # a native choice: the toolConfig


def _declaration(spec: ToolSpec) -> JsonDict:
    field = "parameters" if spec.metadata.get(SCHEMA_FIELD) == "parameters" else "parametersJsonSchema"
    native = function_native(spec, NS, field, skip=_SKIP)
    paths = [p for p in marked_paths(spec.metadata, SNAKE) if "." not in p]
    return respell(native, paths) if paths else native


def _choice_fields(choice: ToolChoice) -> JsonDict:
    config: JsonDict = {"mode": _MODES[choice.mode]}
    if choice.name is not None:
        config["allowedFunctionNames"] = [choice.name]
    fields = chosen({"toolConfig": {"functionCallingConfig": config}}, choice, NS, "toolConfig")
    if "toolConfig" in marked_paths(choice.metadata, SNAKE):
        fields = {"tool_config": fields.pop("toolConfig")} if "toolConfig" in fields else fields
    return fields


def tools_value(tools: list[ToolSpec | JsonDict]) -> JsonValue:
    """The native ``tools``: consecutive specs grouped in one ``Tool`` object, native dicts as they are."""
    out: list[JsonValue] = []
    group: list[JsonValue] | None = None
    for tool in tools:
        if not isinstance(tool, ToolSpec):
            out.append(tool)
            group = None
            continue
        md = tool.metadata
        if group is None or md.get(NEW_TOOL) is True:
            key = "function_declarations" if _GROUP_KEY in marked_paths(md, SNAKE) else "functionDeclarations"
            group = []
            out.append({key: group, **metadata_to_fields(md, TOOL_NS)})
        group.append(_declaration(tool))
    first = tools[0] if tools else None
    if len(out) == 1 and isinstance(first, ToolSpec) and first.metadata.get(TOOLS_OBJECT) is True:
        return out[0]
    return out


def tools_from_request(body: Mapping[str, JsonValue]) -> list[ToolSpec | JsonDict]:
    """The request's ``functionDeclarations`` as specs, and its other ``Tool`` objects as native dicts, in order.

    ``request_from_items(items, tools=...)`` writes them back as they came.
    Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    tools = body.get("tools", [])
    single = isinstance(tools, dict)
    if not isinstance(tools, list) and not single:
        raise wrong("a list of tools", tools, "tools")
    out: list[ToolSpec | JsonDict] = []
    for i, tool in enumerate([tools] if single else tools):
        path = "tools" if single else f"tools[{i}]"
        json_object(tool, path, "a tool (a JSON object)")
        key = key_of(tool, "functionDeclarations")
        declarations = tool.get(key) if key is not None else None
        if not isinstance(declarations, list) or not declarations:
            out.append(copy_json(tool))
            continue
        follows_spec = bool(out) and isinstance(out[-1], ToolSpec)
        for j, declaration in enumerate(declarations):
            marks: dict[str, JsonValue] = {}
            if j == 0:
                marks = _group_marks(tool, key, follows_spec, single)  # type: ignore[arg-type]
            out.append(_spec(declaration, f"{path}.{key}[{j}]", marks))
    return out


def _group_marks(tool: JsonDict, key: str, follows_spec: bool, single: bool) -> dict[str, JsonValue]:
    marks: dict[str, JsonValue] = fields_to_metadata(tool, (key,), TOOL_NS)
    if key != "functionDeclarations":
        marks[SNAKE] = [_GROUP_KEY]
    if follows_spec:
        marks[NEW_TOOL] = True
    if single:
        marks[TOOLS_OBJECT] = True
    return marks


def _spec(declaration: object, path: str, marks: dict[str, JsonValue]) -> ToolSpec:
    native = json_object(declaration, path, "a function declaration (a JSON object)")
    field = key_of(native, "parametersJsonSchema")
    if field is None and "parameters" in native:
        field = "parameters"
        marks[SCHEMA_FIELD] = "parameters"
    elif field is not None and field != "parametersJsonSchema":
        marks[SNAKE] = ["parametersJsonSchema", *marked_paths(marks, SNAKE)]
    spec = function_spec(native, path, NS, field or "parametersJsonSchema")
    return spec.with_metadata({**spec.metadata, **marks}) if marks else spec


def tool_choice_from_request(body: Mapping[str, JsonValue]) -> ToolChoice | None:
    """``toolConfig.functionCallingConfig`` as a :class:`~agentkit_core.ToolChoice`; ``None`` without ``toolConfig``.

    ``AUTO`` is auto, ``NONE`` none, ``ANY`` required, or the one tool its
    ``allowedFunctionNames`` name.  A config the neutral value cannot say
    exactly (``VALIDATED``, several allowed names, other fields, snake_case)
    keeps the native ``toolConfig`` in ``gemini.toolConfig``, written back in
    its place.  Raises :class:`~agentkit_core.NormalizeError` naming the bad field.
    """
    body = as_native_fields(body, REQUEST)
    key = key_of(body, "toolConfig")
    if key is None:
        return None
    config = json_object(body[key], key, "a tool config (a JSON object)")
    inner = config.get(key_of(config, "functionCallingConfig") or "functionCallingConfig")
    calling: JsonDict = inner if isinstance(inner, dict) else {}
    mode = calling.get("mode")
    names = calling.get(key_of(calling, "allowedFunctionNames") or "allowedFunctionNames")
    one = names[0] if isinstance(names, list) and len(names) == 1 and isinstance(names[0], str) else None
    if mode == "ANY" and one is not None:
        neutral = ToolChoice.tool(one)
    else:
        neutral = ToolChoice({"NONE": "none", "ANY": "required"}.get(mode, "auto") if isinstance(mode, str) else "auto")  # type: ignore[arg-type]
    if key != "toolConfig":
        neutral = ToolChoice(neutral.mode, neutral.name, metadata={SNAKE: ["toolConfig"]})
    if _choice_fields(neutral) == {key: config}:
        return neutral
    return ToolChoice(neutral.mode, neutral.name, metadata={**neutral.metadata, NS + "toolConfig": copy_json(config)})
