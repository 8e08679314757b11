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
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import ModelSettings
from .._common import JsonDict
from .._common.settings import Row, key_row, settings_fields, settings_from_body

__all__ = ("ROWS", "fields_of", "settings_from_request")

_NAME = "bedrock"


def _budget(thinking: Any) -> Any:
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


def settings_from_request(body: Mapping[str, Any]) -> ModelSettings:
    """The portable settings a Converse request's fields hold (each read only where it maps exactly)."""
    return settings_from_body(body, ROWS)
