"""The span builders of :mod:`agentkit_core.otel` (the package docstring is their reference, its ``__all__`` their list)."""

from __future__ import annotations

from collections.abc import Mapping

from .. import _check as check
from .._codec import copy_json
from ..finish import FinishReason
from ..item import Item
from ..tool import ToolCallPart, ToolResultPart
from ._answers import OPERATIONS, OTHER_ERROR, PROVIDER_NAMES, error_type as _error_type, response_attributes as _response_attributes, split as _split
from ._messages import Shaper, dumps as _dumps, finish_name
from ._request import request_attributes, settings_attributes

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Iterable

    from .. import JsonValue
    from ..http import Request
    from ..settings import ModelSettings
    from ._answers import AttributeValue


def provider_name(provider: object) -> str:
    """The conventions' provider name of ``provider``: a module of this package, its name, or a name of theirs.

    >>> provider_name("openai_responses"), provider_name("gemini"), provider_name("gcp.vertex_ai")
    ('openai', 'gcp.gemini', 'gcp.vertex_ai')
    """
    name = _module_name(provider)
    return PROVIDER_NAMES.get(name, name)


def finish_reason(reason: FinishReason | None) -> str:
    """The conventions' finish reason for ``reason`` (see the module docs).

    >>> finish_reason(FinishReason.MAX_TOKENS), finish_reason(FinishReason.other("pause_turn"))
    ('length', 'pause_turn')
    """
    if reason is not None:
        check.instance(reason, FinishReason, "finish_reason", "reason", "a FinishReason or None")
    return finish_name(reason)


def input_messages(
    items: Iterable[Item], *, provider: object = "", inline_media: bool = False, max_text: int | None = None
) -> list[dict[str, JsonValue]]:
    """The ``gen_ai.input.messages`` of a transcript, as JSON data: one message per item in order.

    The system items ``provider``'s API takes apart (see the module docs) are
    left out: they are :func:`system_instructions`.
    """
    shaper = _shaper(inline_media, max_text, "input_messages")
    conversation = _split(_items(items, "input_messages", "items"), _module_name(provider))[1]
    return [shaper.message(item) for item in conversation]


def system_instructions(
    items: Iterable[Item], *, provider: object = "", inline_media: bool = False, max_text: int | None = None
) -> list[dict[str, JsonValue]]:
    """The ``gen_ai.system_instructions`` of a transcript, as JSON data: the parts of the system items sent apart."""
    shaper = _shaper(inline_media, max_text, "system_instructions")
    system = _split(_items(items, "system_instructions", "items"), _module_name(provider))[0]
    return [shaped for item in system for shaped in shaper.parts(item.parts)]


def output_messages(
    answer: Item | Iterable[Item] | None, *, inline_media: bool = False, max_text: int | None = None
) -> list[dict[str, JsonValue]]:
    """The ``gen_ai.output.messages`` of an answer, as JSON data: one message per item (choice, candidate)."""
    shaper = _shaper(inline_media, max_text, "output_messages")
    return [shaper.output_message(item) for item in _answers(answer, "output_messages")]


def tool_definitions(tools: Iterable[object]) -> list[dict[str, JsonValue]]:
    """The ``gen_ai.tool.definitions`` of tool specs, as JSON data: what a provider's ``tools_from_request`` gives.

    A ``ToolSpec``, anything with its attributes, or a mapping of the same
    keys without a ``type`` (``name``, a string; ``description`` and
    ``input_schema``, written as ``description`` and ``parameters`` unless
    ``None`` or an empty description) is a ``function`` definition.  Any other
    mapping (one with another ``type``, or Gemini's ``{"codeExecution": {}}``,
    one key holding an object) is a provider's native tool, a server tool: a
    definition of its ``type`` (or its one key) and its ``name`` (else its
    type), nothing more.

    >>> tool_definitions([{"name": "get_weather", "description": "Weather now", "input_schema": None}])
    [{'type': 'function', 'name': 'get_weather', 'description': 'Weather now'}]
    >>> tool_definitions([{"type": "web_search_20250305", "name": "web_search"}, {"googleSearch": {}}])
    [{'type': 'web_search_20250305', 'name': 'web_search'}, {'type': 'googleSearch', 'name': 'googleSearch'}]
    """
    return [_definition(tool, i) for i, tool in enumerate(_iterate(tools, "tool_definitions", "tools"))]


def _definition(tool: object, i: int) -> dict[str, JsonValue]:
    """One tool's definition (see :func:`tool_definitions`)."""
    where = f"tools[{i}]"
    if isinstance(tool, Mapping) and tool.get("type", "function") != "function":
        return _native_definition(tool, where)
    if isinstance(tool, Mapping) and len(tool) == 1 and isinstance(next(iter(tool.values())), Mapping):
        return _native_definition(tool, where)  # Gemini's {"codeExecution": {}}
    name = check.string(_tool_field(tool, "name"), "tool_definitions", f"{where}.name")
    definition: dict[str, Any] = {"type": "function", "name": name}
    description = _tool_field(tool, "description")
    if description is not None and check.string(description, "tool_definitions", f"{where}.description"):
        definition["description"] = description
    schema = _tool_field(tool, "input_schema")
    if schema is not None:
        definition["parameters"] = copy_json(schema)
    return definition


def _native_definition(tool: Mapping[Any, Any], where: str) -> dict[str, JsonValue]:
    """A provider's native tool: its ``type`` (or its one key) and its ``name`` (or its type)."""
    kind = tool.get("type", next(iter(tool)) if len(tool) == 1 else None)
    kind = check.string(kind, "tool_definitions", f"{where}.type")
    name = tool.get("name", kind)
    return {"type": kind, "name": check.string(name, "tool_definitions", f"{where}.name")}


def span_attributes(
    items: Iterable[Item],
    answer: Item | Iterable[Item] | None,
    *,
    provider: object,
    request_model: str | None = None,
    tools: Iterable[object] = (),
    conversation_id: object = None,
    operation: str | None = None,
    error_type: str | None = None,
    capture_content: bool = False,
    inline_media: bool = False,
    max_text: int | None = None,
    settings: ModelSettings | None = None,
    request: Request | None = None,
) -> dict[str, AttributeValue]:
    """The attributes of the inference span of one model call (see the module docs for each).

    ``items`` is the transcript sent, ``answer`` the item (or the items, one
    per choice or candidate) that came back, ``None`` when none did.
    ``provider`` is one of this package's provider modules or its name
    (``"anthropic"``, ``"openai_chat"``, ``"openai_responses"``,
    ``"gemini"``), or a provider name of the conventions'.
    ``conversation_id`` is a string or a ``SessionId``.  ``error_type`` names
    the error the call ended with when the caller knows it (an exception's
    class name); it wins over what the answer says.  Content is written only
    with ``capture_content``; ``inline_media`` and ``max_text`` shape it.
    ``settings`` (the call's :class:`~agentkit_core.ModelSettings`) gives the
    ``gen_ai.request.*`` settings, ``request`` (the
    :class:`~agentkit_core.http.Request` sent) ``gen_ai.request.stream``,
    ``server.address`` and ``server.port``.
    """
    owner = "span_attributes"
    shaper = _shaper(inline_media, max_text, owner)
    sent = _items(items, owner, "items")
    answers = _answers(answer, owner)
    module = _module_name(provider)
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": _operation(operation, module),
        "gen_ai.provider.name": PROVIDER_NAMES.get(module, module),
    }
    if request_model is not None:
        attributes["gen_ai.request.model"] = check.string(request_model, owner, "request_model")
    attributes.update(settings_attributes(settings))
    attributes.update(request_attributes(request))
    if conversation_id is not None:
        conversation = getattr(conversation_id, "value", conversation_id)
        attributes["gen_ai.conversation.id"] = check.string(conversation, owner, "conversation_id")
    attributes.update(_response_attributes(answers))
    failure = _error_type(answers, error_type, owner)
    if failure is not None:
        attributes["error.type"] = failure
    if check.boolean(capture_content, owner, "capture_content"):
        system, conversation_items = _split(sent, module)
        instructions = [shaped for item in system for shaped in shaper.parts(item.parts)]
        attributes["gen_ai.input.messages"] = _dumps([shaper.message(item) for item in conversation_items])
        if answers:
            attributes["gen_ai.output.messages"] = _dumps([shaper.output_message(item) for item in answers])
        if instructions:
            attributes["gen_ai.system_instructions"] = _dumps(instructions)
        definitions = tool_definitions(tools)
        if definitions:
            attributes["gen_ai.tool.definitions"] = _dumps(definitions)
    return attributes


def tool_span_attributes(
    call: ToolCallPart,
    result: ToolResultPart | None = None,
    *,
    tool: object = None,
    error_type: str | None = None,
    capture_content: bool = False,
    max_text: int | None = None,
) -> dict[str, AttributeValue]:
    """The attributes of the ``execute_tool`` span of one tool run.

    ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` and ``gen_ai.tool.type``
    (``"function"``) from ``call``; ``gen_ai.tool.description`` from ``tool``
    (a ``ToolSpec`` or a mapping, as :func:`tool_definitions` takes) when
    given.  ``error.type`` is ``error_type`` when given, else ``"_OTHER"``
    when ``result`` is an error.  With ``capture_content``:
    ``gen_ai.tool.call.arguments`` and, for a result that is not an error,
    ``gen_ai.tool.call.result``, as JSON text (a text output is a JSON
    string), bounded by ``max_text`` as messages are.

    >>> from agentkit_core import ToolCallId, ToolCallPart, ToolResultPart, ToolOutput
    >>> call = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Paris"})
    >>> failed = ToolResultPart.error(ToolCallId("call_1"), ToolOutput.text("no such city"))
    >>> tool_span_attributes(call, failed)["error.type"]
    '_OTHER'
    """
    owner = "tool_span_attributes"
    call = check.instance(call, ToolCallPart, owner, "call", "a ToolCallPart")
    if result is not None:
        result = check.instance(result, ToolResultPart, owner, "result", "a ToolResultPart or None")
        if result.call_id != call.id:
            raise check.refused(owner, "result", f"answers call {result.call_id.value!r}, not {call.id.value!r}")
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id.value,
        "gen_ai.tool.type": "function",
    }
    if tool is not None:
        description = _tool_field(tool, "description")
        if description is not None and check.string(description, owner, "tool.description"):
            attributes["gen_ai.tool.description"] = str(description)
    shaper = _shaper(False, max_text, owner)
    failed = result is not None and result.is_error
    if error_type is not None:
        attributes["error.type"] = check.string(error_type, owner, "error_type")
    elif failed:
        attributes["error.type"] = OTHER_ERROR
    if check.boolean(capture_content, owner, "capture_content"):
        attributes["gen_ai.tool.call.arguments"] = _dumps(shaper.arguments(call))
        if result is not None and not failed:
            attributes["gen_ai.tool.call.result"] = _dumps(shaper.output(result.output))
    return attributes


def span_name(attributes: Mapping[str, object]) -> str:
    """The span name the conventions ask for: ``"{operation} {model}"``, or ``"execute_tool {tool}"``.

    >>> span_name({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5"})
    'chat gpt-5'
    """
    operation = str(attributes.get("gen_ai.operation.name", ""))
    target = attributes.get("gen_ai.tool.name" if operation == "execute_tool" else "gen_ai.request.model")
    return f"{operation} {target}" if target else operation


# -- helpers ---------------------------------------------------------------------------


def _module_name(provider: object) -> str:
    """The provider's name: a module's last dotted segment, or the string given."""
    if not isinstance(provider, str):
        module = getattr(provider, "__name__", None)
        if not isinstance(module, str):
            raise check.wrong_type("otel", "provider", "a provider module or its name", provider)
        provider = module.rpartition(".")[2]
    return check.string(provider, "otel", "provider")


def _operation(operation: str | None, module: str) -> str:
    if operation is not None:
        return check.string(operation, "span_attributes", "operation")
    return OPERATIONS.get(module, "chat")


def _tool_field(tool: object, name: str) -> object:
    """A ``ToolSpec`` field, read by duck typing: an attribute, or a mapping's key."""
    if isinstance(tool, Mapping):
        return tool.get(name)
    return getattr(tool, name, None)


def _iterate(values: object, owner: str, field: str) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise check.wrong_type(owner, field, "an iterable", values)
    return tuple(values)


def _items(items: object, owner: str, field: str) -> tuple[Item, ...]:
    found = _iterate(items, owner, field)
    for i, item in enumerate(found):
        if not isinstance(item, Item):
            raise check.wrong_type(owner, f"{field}[{i}]", "an Item", item)
    return found


def _answers(answer: object, owner: str) -> tuple[Item, ...]:
    if answer is None:
        return ()
    if isinstance(answer, Item):
        return (answer,)
    return _items(answer, owner, "answer")


def _shaper(inline_media: bool, max_text: int | None, owner: str) -> Shaper:
    inline = check.boolean(inline_media, owner, "inline_media")
    return Shaper(inline, None if max_text is None else check.u64(max_text, owner, "max_text"))
