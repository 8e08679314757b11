"""Private to :mod:`.openai_chat`: :class:`~agentkit_core.ModelSettings` as Chat Completions fields.

=========================  ==================================================================
setting                    native field
=========================  ==================================================================
``max_tokens``             ``max_completion_tokens`` (``max_tokens`` is deprecated)
``temperature``            ``temperature``
``top_p``                  ``top_p``
``stop``                   ``stop`` (a list)
``seed``                   ``seed``
``reasoning_effort``       ``reasoning_effort`` (``none``, ``minimal``, ``low``, ``medium``,
                           ``high``, ``xhigh``, ``max``)
``reasoning_budget``       none: refused
``output_schema``          ``response_format: {"type": "json_schema", "json_schema": {"name",
                           "schema", "strict": true}}``, the name the schema's ``title`` when
                           it is a valid name, else ``"output"``
``parallel_tool_calls``    ``parallel_tool_calls`` (only beside ``tools``)
=========================  ==================================================================

Refused when the request is built (``ValueError`` naming both fields and who
set each), as the API refuses them together: ``max_tokens`` beside
``max_completion_tokens`` (``ModelSettings.max_tokens`` writes the latter),
``top_logprobs`` without ``logprobs: true``, and ``stream_options`` on a
request that does not stream.
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import JsonValue, ModelSettings
from .._common import JsonDict
from .._common.settings import (
    Conflict,
    Row,
    at,
    both_given,
    key_row,
    present,
    refuse_conflicts,
    schema_name,
    settings_fields,
    settings_from_body,
    unstreamed_options,
)

__all__ = ("ROWS", "fields_of", "settings_from_request", "conflicts", "checked_body")

_NAME = "openai_chat"


def _format(schema: Any) -> JsonDict:
    return {"type": "json_schema", "json_schema": {"name": schema_name(schema), "schema": schema, "strict": True}}


def _schema(fmt: Any) -> object:
    inner = fmt.get("json_schema") if isinstance(fmt, dict) else None
    return inner.get("schema") if isinstance(inner, dict) else None


ROWS: tuple[Row, ...] = (
    key_row("max_tokens", (), "max_completion_tokens"),
    key_row("temperature", (), "temperature"),
    key_row("top_p", (), "top_p"),
    key_row("stop", (), "stop"),
    key_row("seed", (), "seed"),
    key_row("reasoning_effort", (), "reasoning_effort"),
    key_row("output_schema", (), "response_format", _format, _schema),
    key_row("parallel_tool_calls", (), "parallel_tool_calls"),
)


def fields_of(settings: ModelSettings | None) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields of ``settings`` and the setting behind each (``ValueError`` for what the API cannot take)."""
    return settings_fields(settings, _NAME, ROWS)


def settings_from_request(body: Mapping[str, JsonValue]) -> ModelSettings:
    """The portable settings a Chat Completions request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)


_PAIRS = (Conflict(("max_completion_tokens",), ("max_tokens",), "give one: max_tokens is the deprecated spelling of max_completion_tokens"),)


def conflicts(body: JsonDict) -> list[Conflict]:
    """The fields of ``body`` that the API refuses together (see the module's docstring)."""
    found = both_given(body, _PAIRS) + unstreamed_options(body)
    if present(at(body, "top_logprobs")) and at(body, "logprobs") is not True:
        found.append(Conflict(("top_logprobs",), ("logprobs",), "top_logprobs needs logprobs: true"))
    return found


def checked_body(body: JsonDict, written: tuple[JsonDict, dict[tuple[str, ...], str]]) -> JsonDict:
    """``body``, unless it holds fields the API refuses together (``ValueError`` naming both)."""
    return refuse_conflicts(body, written[1], _NAME, conflicts)
