"""Which providers' custom parts are server tool calls, and their OpenTelemetry message parts.

A server tool runs at the provider (web search, code execution, an MCP
server the API calls): the provider modules keep its blocks verbatim as
``CustomPart`` values.  The conventions have two part types for them,
``server_tool_call`` and ``server_tool_call_response``, whose details are an
object with a ``type``; :func:`server_part` builds them from the blocks it
knows, and says ``None`` for any other (which stays a generic part).  The
blocks are named as the provider folders' mapping tables name them: this
table is the one place outside the folders that knows them (a provider whose
API runs server tools adds its blocks here, or they export as generic parts).

==========================================  ==========================================================
custom part                                 message part
==========================================  ==========================================================
``anthropic.server_tool_use``,              ``server_tool_call``: ``id``, ``name``, details
``anthropic.mcp_tool_use``                  ``{"type": name, "input": ..., ...}``
``anthropic.<x>_tool_result`` (with         ``server_tool_call_response``: ``id`` = ``tool_use_id``,
``tool_use_id``)                            details ``{"type": "<x>_tool_result", "content": ...}``
``openai.web_search_call``,                 ``server_tool_call``: ``id``, ``name`` (``web_search``...),
``openai.file_search_call``,                details: the item's other fields (the Responses API
``openai.code_interpreter_call``,           returns call and outcome as one item)
``openai.image_generation_call``,
``openai.mcp_call``
``gemini.executableCode``                   ``server_tool_call`` ``code_execution``: code and language
``gemini.codeExecutionResult``              ``server_tool_call_response`` ``code_execution``: outcome
                                            and output
==========================================  ==========================================================

The details are the block's own fields, verbatim; the caller bounds them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any

    from .. import JsonValue

__all__ = ("server_part",)

_ANTHROPIC_CALLS = frozenset(("server_tool_use", "mcp_tool_use"))
_OPENAI_HOSTED = frozenset(("web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call"))
_GEMINI = {
    "executableCode": ("server_tool_call", ("executableCode", "executable_code")),
    "codeExecutionResult": ("server_tool_call_response", ("codeExecutionResult", "code_execution_result")),
}


def server_part(kind: str, value: object) -> dict[str, JsonValue] | None:
    """The ``server_tool_call`` or ``server_tool_call_response`` part of a custom part, or ``None``.

    Its details (``server_tool_call``, ``server_tool_call_response``) hold
    the block's fields as they are: the caller shapes them.
    """
    if not isinstance(value, dict):
        return None
    provider, _, block = kind.partition(".")
    if provider == "anthropic":
        return _anthropic(block, value)
    if provider == "openai" and block in _OPENAI_HOSTED:
        name = block[: -len("_call")]
        return _call(value.get("id"), name, _without(value, "id", "type"))
    if provider == "gemini" and block in _GEMINI:
        return _gemini(block, value)
    return None


def _anthropic(block: str, value: dict[str, JsonValue]) -> dict[str, JsonValue] | None:
    if block in _ANTHROPIC_CALLS:
        name = value.get("name")
        return _call(value.get("id"), name, _without(value, "id", "name", "type")) if isinstance(name, str) else None
    call_id = value.get("tool_use_id")
    if block.endswith("_tool_result") and isinstance(call_id, str):
        return _response(call_id, block, _without(value, "tool_use_id", "type"))
    return None


def _gemini(block: str, value: dict[str, Any]) -> dict[str, Any] | None:
    part_type, spellings = _GEMINI[block]
    inner = next((value[s] for s in spellings if isinstance(value.get(s), dict)), None)
    if inner is None:
        return None
    details = _without(inner, "id")
    if part_type == "server_tool_call":
        return _call(inner.get("id"), "code_execution", details)
    return _response(inner.get("id"), "code_execution", details)


def _call(call_id: object, name: str, details: dict[str, JsonValue]) -> dict[str, JsonValue]:
    shaped: dict[str, JsonValue] = {"type": "server_tool_call", "name": name, "server_tool_call": {**details, "type": name}}
    if isinstance(call_id, str):
        shaped["id"] = call_id
    return shaped


def _response(call_id: object, kind: str, details: dict[str, JsonValue]) -> dict[str, JsonValue]:
    shaped: dict[str, JsonValue] = {"type": "server_tool_call_response", "server_tool_call_response": {**details, "type": kind}}
    if isinstance(call_id, str):
        shaped["id"] = call_id
    return shaped


def _without(value: dict[str, JsonValue], *keys: str) -> dict[str, JsonValue]:
    return {k: v for k, v in value.items() if k not in keys}
