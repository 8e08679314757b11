"""Private to :mod:`.openai_responses`: :class:`~agentkit_core.ModelSettings` as Responses API fields.

=========================  ==================================================================
setting                    native field
=========================  ==================================================================
``max_tokens``             ``max_output_tokens``
``temperature``            ``temperature``
``top_p``                  ``top_p``
``stop``                   none: refused
``seed``                   none: refused
``reasoning_effort``       ``reasoning.effort`` (``none``, ``minimal``, ``low``, ``medium``,
                           ``high``, ``xhigh``, ``max``)
``reasoning_budget``       none: refused
``output_schema``          ``text.format: {"type": "json_schema", "name", "schema", "strict":
                           true}``, the name as Chat's
``parallel_tool_calls``    ``parallel_tool_calls`` (only beside ``tools``)
=========================  ==================================================================

Refused when the request is built (``ValueError`` naming both fields and who
set each), as the API refuses them together: ``previous_response_id`` beside
``conversation``, and ``stream_options`` on a request that does not stream.
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import JsonValue, ModelSettings
from .._common import JsonDict
from .._common.settings import Conflict, Row, both_given, key_row, refuse_conflicts, schema_name, settings_fields, settings_from_body, unstreamed_options

__all__ = ("ROWS", "fields_of", "settings_from_request", "conflicts", "checked_body")

_NAME = "openai_responses"


def _format(schema: Any) -> JsonDict:
    return {"type": "json_schema", "name": schema_name(schema), "schema": schema, "strict": True}


def _schema(fmt: Any) -> object:
    return fmt.get("schema") if isinstance(fmt, dict) else None


ROWS: tuple[Row, ...] = (
    key_row("max_tokens", (), "max_output_tokens"),
    key_row("temperature", (), "temperature"),
    key_row("top_p", (), "top_p"),
    key_row("reasoning_effort", ("reasoning",), "effort"),
    key_row("output_schema", ("text",), "format", _format, _schema),
    key_row("parallel_tool_calls", (), "parallel_tool_calls"),
)


def fields_of(settings: ModelSettings | None) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields of ``settings`` and the setting behind each (``ValueError`` for what the API cannot take)."""
    return settings_fields(settings, _NAME, ROWS)


def settings_from_request(body: Mapping[str, JsonValue]) -> ModelSettings:
    """The portable settings a Responses request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)


_PAIRS = (Conflict(("previous_response_id",), ("conversation",), "a turn continues either a stored response or a conversation, not both"),)


def conflicts(body: JsonDict) -> list[Conflict]:
    """The fields of ``body`` that the API refuses together (see the module's docstring)."""
    return both_given(body, _PAIRS) + unstreamed_options(body)


def checked_body(body: JsonDict, written: tuple[JsonDict, dict[tuple[str, ...], str]]) -> JsonDict:
    """``body``, unless it holds fields the API refuses together (``ValueError`` naming both)."""
    return refuse_conflicts(body, written[1], _NAME, conflicts)
