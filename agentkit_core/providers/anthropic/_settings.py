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
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import ModelSettings
from .._common import JsonDict
from .._common.settings import Row, key_row, settings_fields, settings_from_body

__all__ = ("ROWS", "fields_of", "settings_from_request")

_NAME = "anthropic"


def _budget(thinking: Any) -> Any:
    if isinstance(thinking, dict) and thinking.get("type") == "enabled" and set(thinking) == {"type", "budget_tokens"}:
        return thinking["budget_tokens"]
    return None


def _schema(fmt: Any) -> Any:
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and set(fmt) == {"type", "schema"}:
        return fmt["schema"]
    return None


def _inverted(flag: Any) -> Any:
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


def with_choice_type(body: JsonDict) -> JsonDict:
    """``body`` with a ``tool_choice`` that only settings wrote (``disable_parallel_tool_use``) made an ``auto`` choice."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and "type" not in choice:
        body = {**body, "tool_choice": {"type": "auto", **choice}}
    return body


def settings_from_request(body: Mapping[str, Any]) -> ModelSettings:
    """The portable settings a Messages request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)
