"""The provider registry: one row per provider API, the one place that names them.

Everything outside a provider's folder that needs to know which providers
exist, or what they are called, reads :data:`PROVIDERS`: detection, the
OpenTelemetry export, the command line and the tests.  Adding a provider is
its folder under ``providers/`` plus one :class:`ProviderInfo` row here.

The row also says what the API can take and give (:class:`Capabilities`):
which portable :class:`~agentkit_core.ModelSettings` fields it has a native
field for, the effort levels it knows, which part kinds a request can carry
and an answer can hold, and whether it runs tools on the server.  The
settings' refusals read it, so a capability is stated once.

Plain data, standard library only: reading it loads no projection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

__all__ = ("Capabilities", "ProviderInfo", "PROVIDERS", "provider_info", "capabilities")


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a provider API can take and give, as the projection maps it."""

    settings: frozenset[str]
    """The :class:`~agentkit_core.ModelSettings` fields the API has a field for; the others are refused."""
    reasoning_efforts: Tuple[str, ...]
    """The ``reasoning_effort`` levels the API knows, as it spells them."""
    parts_in: frozenset[str]
    """The part kinds (``PartKind`` values) a request can carry."""
    parts_out: frozenset[str]
    """The part kinds an answer can hold."""
    server_tools: bool
    """Whether the API runs tools itself (web search, code execution) and reports their calls."""


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """One provider API: its module and every name the package uses for it."""

    module: str
    """The module under ``agentkit_core.providers`` (``"anthropic"``)."""
    display: str
    """The API's name for people (``"Anthropic Messages"``)."""
    otel_name: str
    """The OpenTelemetry GenAI ``gen_ai.provider.name`` (``"anthropic"``, ``"openai"``, ``"gcp.gemini"``)."""
    otel_operation: str
    """The ``gen_ai.operation.name`` of an inference call (``"chat"``, ``"generate_content"``)."""
    key_variables: Tuple[str, ...]
    """The environment variables an API key may be in, in the order they are read."""
    cli: str
    """The command line's spelling (``--from openai-chat``, ``--provider openai-chat``)."""
    base_url: str
    """The default endpoint ``http_request`` sends to."""
    model_key: str
    """The metadata key of an answer that names the model that answered."""
    transcript_fields: Tuple[str, ...]
    """A request's fields the transcript writes (a native field of that name would replace it)."""
    capabilities: Capabilities
    """What the API can take and give."""


_COMMON_SETTINGS = frozenset(("max_tokens", "temperature", "top_p", "reasoning_effort", "output_schema"))
_TEXTUAL = frozenset(("Text", "Media", "File", "Structured", "Reasoning", "ToolCall", "ToolResult", "Custom"))

#: Every provider API the package projects, in the order the README lists them.
PROVIDERS: Tuple[ProviderInfo, ...] = (
    ProviderInfo(
        module="anthropic",
        display="Anthropic Messages",
        otel_name="anthropic",
        otel_operation="chat",
        key_variables=("ANTHROPIC_API_KEY",),
        cli="anthropic",
        base_url="https://api.anthropic.com",
        model_key="anthropic.model",
        transcript_fields=("messages", "system"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "reasoning_budget", "parallel_tool_calls"},
            reasoning_efforts=("low", "medium", "high", "max"),
            parts_in=_TEXTUAL,
            parts_out=_TEXTUAL,
            server_tools=True,
        ),
    ),
    ProviderInfo(
        module="openai_chat",
        display="OpenAI Chat Completions",
        otel_name="openai",
        otel_operation="chat",
        key_variables=("OPENAI_API_KEY",),
        cli="openai-chat",
        base_url="https://api.openai.com/v1",
        model_key="openai.model",
        transcript_fields=("messages",),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "seed", "parallel_tool_calls"},
            reasoning_efforts=("none", "minimal", "low", "medium", "high", "xhigh"),
            parts_in=_TEXTUAL,
            parts_out=_TEXTUAL,
            server_tools=False,
        ),
    ),
    ProviderInfo(
        module="openai_responses",
        display="OpenAI Responses",
        otel_name="openai",
        otel_operation="chat",
        key_variables=("OPENAI_API_KEY",),
        cli="openai-responses",
        base_url="https://api.openai.com/v1",
        model_key="openai.model",
        transcript_fields=("input", "instructions"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"parallel_tool_calls"},
            reasoning_efforts=("none", "minimal", "low", "medium", "high", "xhigh"),
            parts_in=_TEXTUAL,
            parts_out=_TEXTUAL,
            server_tools=True,
        ),
    ),
    ProviderInfo(
        module="gemini",
        display="Gemini",
        otel_name="gcp.gemini",
        otel_operation="generate_content",
        key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        cli="gemini",
        base_url="https://generativelanguage.googleapis.com/v1beta",
        model_key="gemini.modelVersion",
        transcript_fields=("contents", "systemInstruction", "system_instruction"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "seed", "reasoning_budget"},
            reasoning_efforts=("minimal", "low", "medium", "high"),
            parts_in=_TEXTUAL,
            parts_out=_TEXTUAL,
            server_tools=True,
        ),
    ),
)

_BY_MODULE = {row.module: row for row in PROVIDERS}


def provider_info(name: str) -> ProviderInfo:
    """The registry row of ``name``: a provider module's name (``"openai_chat"``) or its CLI spelling (``"openai-chat"``)."""
    if not isinstance(name, str):
        raise TypeError(f"provider: expected a string, found {type(name).__name__}")
    row = _BY_MODULE.get(name.replace("-", "_"))
    if row is None:
        raise ValueError(f"provider: {name[:80]!r} is none of {', '.join(_BY_MODULE)}")
    return row


def capabilities(name: str) -> Capabilities:
    """What the provider API ``name`` can take and give (see :class:`Capabilities`)."""
    return provider_info(name).capabilities
