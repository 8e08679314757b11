"""Private to :mod:`.anthropic`: :class:`~agentkit_core.ModelSettings` as Messages API fields.

=========================  ==================================================================
setting                    native field
=========================  ==================================================================
``max_tokens``             ``max_tokens`` (the API requires it: a request without one is
                           refused when built)
``temperature``            ``temperature``
``top_p``                  ``top_p``
``stop``                   ``stop_sequences``
``seed``                   none: refused
``reasoning_effort``       ``output_config.effort`` (``low``, ``medium``, ``high``,
                           ``xhigh``, ``max``)
``reasoning_budget``       ``thinking: {"type": "enabled", "budget_tokens": n}``
``output_schema``          ``output_config.format: {"type": "json_schema", "schema": s}``
``parallel_tool_calls``    ``tool_choice.disable_parallel_tool_use`` (inverted; the choice is
                           ``auto`` when no other is given; only beside ``tools``)
=========================  ==================================================================

Refused when the request is built (``ValueError`` naming both fields and who
set each), as the API would refuse them with thinking on (``thinking`` of type
``enabled`` or ``adaptive``, which ``reasoning_budget`` writes): ``max_tokens``
at or below ``budget_tokens`` (the budget is part of ``max_tokens``), a
``temperature`` other than 1, any ``top_k``, a ``top_p`` below 0.95, and a
forced tool choice (``any`` or ``tool``).
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ModelSettings
from .._common import JsonDict
from .._common.settings import Conflict, Row, ThinkingFields, key_row, refuse_conflicts, settings_fields, settings_from_body, thinking_conflicts

__all__ = ("ROWS", "fields_of", "settings_from_request", "conflicts", "checked_body")

_NAME = "anthropic"


def _budget(thinking: object) -> object:
    if isinstance(thinking, dict) and thinking.get("type") == "enabled" and set(thinking) == {"type", "budget_tokens"}:
        return thinking["budget_tokens"]
    return None


def _schema(fmt: object) -> object:
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and set(fmt) == {"type", "schema"}:
        return fmt["schema"]
    return None


def _inverted(flag: object) -> object:
    return not flag if isinstance(flag, bool) else None


ROWS: tuple[Row, ...] = (
    key_row("max_tokens", (), "max_tokens"),
    key_row("temperature", (), "temperature"),
    key_row("top_p", (), "top_p"),
    key_row("stop", (), "stop_sequences"),
    key_row("reasoning_effort", ("output_config",), "effort"),
    key_row("reasoning_budget", (), "thinking", lambda n: {"type": "enabled", "budget_tokens": n}, _budget),
    key_row("output_schema", ("output_config",), "format", lambda s: {"type": "json_schema", "schema": s}, _schema),
    key_row("parallel_tool_calls", ("tool_choice",), "disable_parallel_tool_use", lambda p: not p, _inverted),
)


def fields_of(settings: ModelSettings | None) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields of ``settings`` and the setting behind each (``ValueError`` for what the API cannot take)."""
    return settings_fields(settings, _NAME, ROWS)


#: Where the Messages API's fields are, for the rules of Claude's extended thinking.
_THINKING_FIELDS = ThinkingFields(("thinking",), ("max_tokens",), ("temperature",), ("top_p",), ("top_k",), ("tool_choice", "type"),
                                  lambda choice: choice in ("any", "tool"))


def conflicts(body: JsonDict) -> list[Conflict]:
    """The fields of ``body`` that the Messages API refuses together (see the module's docstring)."""
    return thinking_conflicts(body, _THINKING_FIELDS)


def checked_body(body: JsonDict, written: tuple[JsonDict, dict[tuple[str, ...], str]]) -> JsonDict:
    """``body``, unless it holds fields the API refuses together (``ValueError`` naming both)."""
    return refuse_conflicts(body, written[1], _NAME, conflicts)


def with_choice_type(body: JsonDict) -> JsonDict:
    """``body`` with a ``tool_choice`` that only settings wrote (``disable_parallel_tool_use``) made an ``auto`` choice."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and "type" not in choice:
        body = {**body, "tool_choice": {"type": "auto", **choice}}
    return body


def settings_from_request(body: Mapping[str, JsonValue]) -> ModelSettings:
    """The portable settings a Messages request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)
