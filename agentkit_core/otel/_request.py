"""The request's side of an inference span: what :class:`~agentkit_core.ModelSettings` asked for, and where the call went.

Private to :mod:`agentkit_core.otel` (its docstring's table is the reference).
"""

from __future__ import annotations

from .._error_text import wrong_type

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from ..http import Request
    from ..settings import ModelSettings
    from ._answers import AttributeValue

__all__ = ("settings_attributes", "request_attributes")

_DEFAULT_PORTS = {"http": 80, "https": 443}


def settings_attributes(settings: ModelSettings | None) -> dict[str, AttributeValue]:
    """``gen_ai.request.max_tokens``, ``temperature``, ``top_p``, ``stop_sequences``, ``seed`` and
    ``reasoning.level`` of the settings that are set."""
    from ..settings import ModelSettings

    if settings is None:
        return {}
    if not isinstance(settings, ModelSettings):
        raise wrong_type("span_attributes.settings", "a ModelSettings", settings)
    out: dict[str, AttributeValue] = {}
    if settings.max_tokens is not None:
        out["gen_ai.request.max_tokens"] = settings.max_tokens
    if settings.temperature is not None:
        out["gen_ai.request.temperature"] = float(settings.temperature)
    if settings.top_p is not None:
        out["gen_ai.request.top_p"] = float(settings.top_p)
    if settings.stop is not None:
        out["gen_ai.request.stop_sequences"] = list(settings.stop)
    if settings.seed is not None:
        out["gen_ai.request.seed"] = settings.seed
    if settings.reasoning_effort is not None:
        out["gen_ai.request.reasoning.level"] = settings.reasoning_effort
    return out


def request_attributes(request: Request | None) -> dict[str, AttributeValue]:
    """``gen_ai.request.stream``, ``server.address`` and ``server.port`` of the request a call sent."""
    from urllib.parse import urlsplit

    from ..http import Request

    if request is None:
        return {}
    if not isinstance(request, Request):
        raise wrong_type("span_attributes.request", "an agentkit_core.http.Request", request)
    parts = urlsplit(request.url)
    out: dict[str, AttributeValue] = {"gen_ai.request.stream": _streams(request)}
    if parts.hostname:
        out["server.address"] = parts.hostname
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port if port is not None else _DEFAULT_PORTS.get(parts.scheme.lower())
    if port is not None:
        out["server.port"] = port
    return out


def _streams(request: Request) -> bool:
    """Whether the request asks for a stream: it accepts an event stream (every provider's ``http_request`` with ``stream``)."""
    accept = request.header("accept") or ""
    return "text/event-stream" in accept.lower()
