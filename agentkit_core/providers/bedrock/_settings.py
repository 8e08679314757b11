"""Private to :mod:`.bedrock`: :class:`~agentkit_core.ModelSettings` as Converse fields.

=========================  ==================================================================
setting                    native field
=========================  ==================================================================
``max_tokens``             ``inferenceConfig.maxTokens``
``temperature``            ``inferenceConfig.temperature``
``top_p``                  ``inferenceConfig.topP``
``stop``                   ``inferenceConfig.stopSequences``
``reasoning_budget``       ``additionalModelRequestFields.thinking: {"type": "enabled",
                           "budget_tokens": n}`` (Anthropic's models on Bedrock)
others                     none: refused (give a model's own fields as
                           ``additionalModelRequestFields=``)
=========================  ==================================================================

Refused when the request is built (``ValueError`` naming both fields and who
set each), as Claude refuses them with thinking on
(``additionalModelRequestFields.thinking``, which ``reasoning_budget``
writes): ``inferenceConfig.maxTokens`` at or below the budget, a
``temperature`` other than 1, a ``topP`` below 0.95, any
``additionalModelRequestFields.top_k``, and a forced ``toolChoice`` (``any``
or ``tool``).
"""

from __future__ import annotations

from typing import Mapping

from ... import JsonValue, ModelSettings
from .._common import JsonDict
from .._common.settings import (
    Conflict,
    Row,
    ThinkingFields,
    key_row,
    refuse_conflicts,
    settings_fields,
    settings_from_body,
    thinking_conflicts,
)

__all__ = ("ROWS", "fields_of", "settings_from_request", "conflicts", "checked_body")

_NAME = "bedrock"


def _budget(thinking: object) -> object:
    if isinstance(thinking, dict) and thinking.get("type") == "enabled" and set(thinking) == {"type", "budget_tokens"}:
        return thinking["budget_tokens"]
    return None


ROWS: tuple[Row, ...] = (
    key_row("max_tokens", ("inferenceConfig",), "maxTokens"),
    key_row("temperature", ("inferenceConfig",), "temperature"),
    key_row("top_p", ("inferenceConfig",), "topP"),
    key_row("stop", ("inferenceConfig",), "stopSequences"),
    key_row("reasoning_budget", ("additionalModelRequestFields",), "thinking", lambda n: {"type": "enabled", "budget_tokens": n}, _budget),
)


def fields_of(settings: ModelSettings | None) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields of ``settings`` and the setting behind each (``ValueError`` for what Converse cannot take)."""
    return settings_fields(settings, _NAME, ROWS)


def settings_from_request(body: Mapping[str, JsonValue]) -> ModelSettings:
    """The portable settings a Converse request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)


_CONFIG, _EXTRA = "inferenceConfig", "additionalModelRequestFields"
#: Where a Converse body holds what Claude's extended thinking constrains.
_THINKING_FIELDS = ThinkingFields((_EXTRA, "thinking"), (_CONFIG, "maxTokens"), (_CONFIG, "temperature"), (_CONFIG, "topP"),
                                  (_EXTRA, "top_k"), ("toolConfig", "toolChoice"),
                                  lambda choice: isinstance(choice, dict) and ("any" in choice or "tool" in choice))


def conflicts(body: JsonDict) -> list[Conflict]:
    """The fields of ``body`` that Claude on Bedrock refuses together (see the module's docstring)."""
    return thinking_conflicts(body, _THINKING_FIELDS)


def checked_body(body: JsonDict, written: tuple[JsonDict, dict[tuple[str, ...], str]]) -> JsonDict:
    """``body``, unless it holds fields the API refuses together (``ValueError`` naming both)."""
    return refuse_conflicts(body, written[1], _NAME, conflicts)
