"""What every provider's tool mapping needs, written once: checking the arguments, and one function tool.

Private to :mod:`agentkit_core.providers`.  A function tool is a
:class:`~agentkit_core.ToolSpec`; a native dict in ``tools`` (a server tool)
goes as it is.  The rules each provider's ``_tools`` module follows:

* a reader keeps every native field with no neutral home in the spec's
  metadata as ``<namespace><field>``, verbatim, and its writer puts them back,
  so a recorded request's tools come back as they were sent;
* a reader records only what its writer would not write by itself: a spec
  read from a request the writer made has no metadata of the provider's (a
  ``ToolSpec`` list goes from one provider to another and back unchanged);
* ``description`` is written when it is not empty; a native description
  that is empty or null is kept as a field (``<namespace>description``);
* ``input_schema=None`` means no schema field (for a provider whose API
  requires one, the writer says what it writes instead);
* a tool choice is read into its neutral meaning; when writing that meaning
  back would not give the native fields as they were, the native
  ``tool_choice`` rides along verbatim in ``<namespace>tool_choice``
  (``None`` there: the request had no ``tool_choice`` field) and is written
  back in place of the neutral one.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ... import JsonValue, NormalizeError, ToolChoice, ToolSpec, checked_json
from .namespaces import copy_json, fields_to_metadata, metadata_to_fields
from .native import JsonDict, describe, json_object, wrong

#: What ``request_from_items`` takes as ``tools``: specs, and native tool definitions sent as they are.
Tools = Iterable[ToolSpec | Mapping[str, JsonValue]]
#: What ``request_from_items`` takes as ``tool_choice``: a choice, a native one sent as it is, or none.
Choice = ToolChoice | Mapping[str, JsonValue] | None

#: The marker (after a provider's prefix) listing the fields a native tool left out that its writer writes.
OMITTED = "omitted"

#: How a provider writes a tool choice: the body fields it sets.
ChoiceWriter = Callable[[ToolChoice], JsonDict]


def tool_arguments(tools: object, tool_choice: object) -> tuple[list[ToolSpec | JsonDict], ToolChoice | JsonDict | None]:
    """``request_from_items``'s ``tools`` and ``tool_choice``, checked: specs and native dicts (copied), a choice.

    Raises :class:`~agentkit_core.NormalizeError` naming ``tools[i]`` or ``tool_choice``.
    """
    if isinstance(tools, (str, bytes, bytearray, Mapping)) or not isinstance(tools, Iterable):
        raise NormalizeError(f"expected a sequence of ToolSpecs or native tool objects, found {describe(tools)}", "tools")
    out: list[ToolSpec | JsonDict] = []
    for i, tool in enumerate(tools):
        out.append(tool if isinstance(tool, ToolSpec) else native_value(tool, f"tools[{i}]", "a ToolSpec or a native tool (a JSON object)"))
    if tool_choice is None or isinstance(tool_choice, ToolChoice):
        return out, tool_choice
    return out, native_value(tool_choice, "tool_choice", "a ToolChoice, a native tool choice (a JSON object) or None")


def write_tool_fields(
    tools: object, tool_choice: object, write_tools: Callable[[list[ToolSpec | JsonDict]], JsonValue], write: ChoiceWriter, choice_key: str = "tool_choice"
) -> JsonDict:
    """The body fields of ``request_from_items``'s ``tools`` and ``tool_choice``, each only when given.

    ``write_tools`` writes the list (specs, and native dicts that go as they
    are), ``write`` a choice; a native choice goes as it is, as ``choice_key``.
    """
    if tool_choice is None and (type(tools) is tuple or type(tools) is list) and not tools:
        return {}  # neither given: nothing to check or write
    specs, choice = tool_arguments(tools, tool_choice)
    fields: JsonDict = {}
    if specs:
        fields["tools"] = write_tools(specs)
    if isinstance(choice, ToolChoice):
        fields.update(write(choice))
    elif choice is not None:
        fields[choice_key] = choice
    return fields


def each(native_tool: Callable[[ToolSpec], JsonDict]) -> Callable[[list[ToolSpec | JsonDict]], JsonValue]:
    """A ``write_tools`` writing every spec with ``native_tool``, one native tool each."""

    def write_tools(tools: list[ToolSpec | JsonDict]) -> JsonValue:
        return [native_tool(t) if isinstance(t, ToolSpec) else t for t in tools]

    return write_tools


def native_value(value: object, path: str, what: str) -> JsonDict:
    """A native object handed to an encoder: a checked copy, or the error naming ``path``."""
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if not isinstance(value, dict):
        raise wrong(what, value, path)
    try:
        checked: JsonDict = checked_json(value)  # type: ignore[assignment]  # a dict stays a dict
    except NormalizeError as exc:
        raise NormalizeError(exc.message, path + exc.path) from None
    return checked


def tool_objects(body: Mapping[str, Any], key: str = "tools") -> list[tuple[str, JsonDict]]:
    """The request's ``tools`` (none when absent), each with its path, or the error naming the one that is not an object."""
    tools = body.get(key, [])
    if not isinstance(tools, list):
        raise wrong("a list of tools", tools, key)
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise wrong("a tool (a JSON object)", tool, f"{key}[{i}]")
    return [(f"{key}[{i}]", tool) for i, tool in enumerate(tools)]


def function_spec(
    native: JsonDict, path: str, prefix: str, schema_key: str, consumed: Iterable[str] = (), defaults: Mapping[str, JsonValue] | None = None,
    always: Iterable[str] = (),
) -> ToolSpec:
    """A native function declaration (``name``, ``description``, ``schema_key``, others) as a spec.

    ``consumed`` names further fields the caller maps itself; ``defaults``
    holds fields the writer writes by itself, which are kept only when they
    differ (``{"strict": False}``).  A field of ``defaults`` or ``always``
    (what the writer writes even for a spec without it, the schema) that the
    native tool leaves out is listed in ``<prefix>omitted``.
    """
    json_object(native, path, "a tool (a JSON object)")
    name = native.get("name")
    if not isinstance(name, str):
        raise wrong("a string", name, f"{path}.name")
    description = native.get("description")
    taken = {"name", *consumed}
    if isinstance(description, str) and description:
        taken.add("description")
    else:
        description = ""
    schema = native.get(schema_key)
    if schema is not None:
        taken.add(schema_key)
    defaults = defaults or {}
    taken.update(key for key, value in defaults.items() if native.get(key, _ABSENT) == value)
    metadata = fields_to_metadata(native, taken, prefix)
    omitted: list[JsonValue] = [key for key in (*always, *defaults) if key not in native]
    if omitted:
        metadata[prefix + OMITTED] = omitted
    return ToolSpec(name, description, schema, metadata=metadata)


_ABSENT: Any = object()


def function_native(
    spec: ToolSpec, prefix: str, schema_key: str, defaults: Mapping[str, JsonValue] | None = None, skip: Iterable[str] = (), no_schema: JsonValue = _ABSENT
) -> JsonDict:
    """A spec as a native function declaration: the neutral fields, ``defaults``, then the carried ones.

    ``no_schema`` is what goes for a spec without a schema (by default no
    schema field); the fields the spec marks ``<prefix>omitted`` are left out.
    """
    native: JsonDict = {"name": spec.name}
    if spec.description:
        native["description"] = spec.description
    if spec.input_schema is not None:
        native[schema_key] = copy_json(spec.input_schema)
    elif no_schema is not _ABSENT:
        native[schema_key] = copy_json(no_schema)
    native.update(copy_json(dict(defaults or {})))
    native.update(metadata_to_fields(spec.metadata, prefix, (OMITTED, *skip)))
    omitted = spec.metadata.get(prefix + OMITTED)
    for key in omitted if isinstance(omitted, list) else ():
        if isinstance(key, str):
            native.pop(key, None)
    return native


def chosen(fields: JsonDict, choice: ToolChoice, prefix: str, key: str = "tool_choice") -> JsonDict:
    """``fields`` (what the writer makes of ``choice``) with the native choice ``choice`` carries put back."""
    if prefix + key in choice.metadata:
        native = choice.metadata[prefix + key]
        fields.pop(key, None)
        if native is not None:
            fields[key] = copy_json(native)
    return fields


def as_read(choice: ToolChoice, native: JsonDict, write: ChoiceWriter, prefix: str, key: str = "tool_choice") -> ToolChoice:
    """``choice``, read from the native ``fields``: with the native choice in metadata if writing it back would differ."""
    if write(choice) == native:
        return choice
    metadata = {**choice.metadata, prefix + key: copy_json(native.get(key))}
    return ToolChoice(choice.mode, choice.name, parallel=choice.parallel, metadata=metadata)


def flag(value: object, path: str) -> bool | None:
    """An optional native boolean (``parallel_tool_calls``), or the error naming ``path``."""
    if value is None or isinstance(value, bool):
        return value
    raise wrong("a boolean", value, path)


def native_choice(value: object, path: str) -> None:
    """Refuse a native tool choice that is neither a string nor an object."""
    if not isinstance(value, (str, dict)):
        raise wrong("a string or an object", value, path)


# -- OpenAI's two APIs: tool_choice a string or an object, parallel_tool_calls beside it -------------

_STRING_MODES = ("auto", "none", "required")
_CHOICE_KEYS = ("tool_choice", "parallel_tool_calls")


def openai_choice_fields(choice: ToolChoice, named: Callable[[str], JsonDict], prefix: str) -> JsonDict:
    """``tool_choice`` (a mode's string, or ``named(name)`` for one tool) and ``parallel_tool_calls`` when set."""
    fields: JsonDict = {"tool_choice": named(choice.name) if choice.name is not None else choice.mode}
    if choice.parallel is not None:
        fields["parallel_tool_calls"] = choice.parallel
    return chosen(fields, choice, prefix)


def openai_choice(body: Mapping[str, Any], name_of: Callable[[JsonDict], object], write: ChoiceWriter, prefix: str) -> ToolChoice | None:
    """The choice of ``tool_choice`` and ``parallel_tool_calls``; ``None`` when the body has neither.

    An object naming one tool (``name_of`` finds its name) is that tool; any
    other object (``allowed_tools``, a hosted tool, an MCP server) means the
    mode it states, else ``"required"``, and is kept verbatim.
    """
    fields = {key: body[key] for key in _CHOICE_KEYS if key in body}
    if not fields:
        return None
    parallel = flag(fields.get("parallel_tool_calls"), "parallel_tool_calls")
    native = fields.get("tool_choice", "auto")
    native_choice(native, "tool_choice")
    name: object = None
    if isinstance(native, str):
        mode = native if native in _STRING_MODES else "auto"
    else:
        name = name_of(native)
        mode = "tool" if isinstance(name, str) else _stated_mode(native)
    neutral = ToolChoice(mode, name if mode == "tool" else None, parallel=parallel)  # type: ignore[arg-type]
    return as_read(neutral, fields, write, prefix)


def _stated_mode(native: JsonDict) -> str:
    inner = native.get("allowed_tools")  # Chat nests the allowed tools' mode, the Responses API does not
    mode = (inner if isinstance(inner, dict) else native).get("mode")
    return mode if mode in ("auto", "required") else "required"
