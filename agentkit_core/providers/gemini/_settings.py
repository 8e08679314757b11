"""Private to :mod:`.gemini`: :class:`~agentkit_core.ModelSettings` as ``generationConfig`` fields.

=========================  ==================================================================
setting                    native field (all under ``generationConfig``)
=========================  ==================================================================
``max_tokens``             ``maxOutputTokens``
``temperature``            ``temperature``
``top_p``                  ``topP``
``stop``                   ``stopSequences``
``seed``                   ``seed``
``reasoning_effort``       ``thinkingConfig.thinkingLevel`` (``minimal``, ``low``, ``medium``,
                           ``high``)
``reasoning_budget``       ``thinkingConfig.thinkingBudget`` (not with ``reasoning_effort``:
                           the API refuses both at once)
``output_schema``          ``responseMimeType: "application/json"`` and ``responseJsonSchema``
``parallel_tool_calls``    none: refused
=========================  ==================================================================

Refused when the request is built (``ValueError`` naming both fields and who
set each), as the API refuses them together: ``thinkingConfig.thinkingLevel``
beside ``thinkingBudget`` (``reasoning_effort`` with ``reasoning_budget``, or
either with the other as a native field), and ``responseSchema`` beside
``responseJsonSchema``.
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ModelSettings
from .._common import JsonDict
from .._common.settings import Conflict, Row, both_given, key_row, refuse_conflicts, settings_fields, settings_from_body

__all__ = ("ROWS", "fields_of", "settings_from_request", "conflicts", "checked_body")

_NAME = "gemini"
_CONFIG = ("generationConfig",)
_THINKING = ("generationConfig", "thinkingConfig")


def _json_output(config: JsonDict) -> object:
    return config.get("responseJsonSchema") if config.get("responseMimeType") == "application/json" else None


ROWS: tuple[Row, ...] = (
    key_row("max_tokens", _CONFIG, "maxOutputTokens"),
    key_row("temperature", _CONFIG, "temperature"),
    key_row("top_p", _CONFIG, "topP"),
    key_row("stop", _CONFIG, "stopSequences"),
    key_row("seed", _CONFIG, "seed"),
    key_row("reasoning_effort", _THINKING, "thinkingLevel"),
    key_row("reasoning_budget", _THINKING, "thinkingBudget"),
    Row("output_schema", _CONFIG, lambda s: {"responseMimeType": "application/json", "responseJsonSchema": s}, _json_output),
)


def fields_of(settings: ModelSettings | None) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields of ``settings`` and the setting behind each (``ValueError`` for what the API cannot take)."""
    return settings_fields(settings, _NAME, ROWS)


_PAIRS = (
    Conflict((*_THINKING, "thinkingLevel"), (*_THINKING, "thinkingBudget"), "give one: thinkingLevel (the newer models) or thinkingBudget"),
    Conflict((*_CONFIG, "responseJsonSchema"), (*_CONFIG, "responseSchema"), "give one schema for the answer"),
)


def conflicts(body: JsonDict) -> list[Conflict]:
    """The fields of ``body`` that the Gemini API refuses together (see the module's docstring)."""
    return both_given(body, _PAIRS)


def checked_body(body: JsonDict, written: tuple[JsonDict, dict[tuple[str, ...], str]]) -> JsonDict:
    """``body``, unless it holds fields the API refuses together (``ValueError`` naming both)."""
    return refuse_conflicts(body, written[1], _NAME, conflicts)


def settings_from_request(body: Mapping[str, JsonValue]) -> ModelSettings:
    """The portable settings a Gemini request's ``generationConfig`` holds (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)
