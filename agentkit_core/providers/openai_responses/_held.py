"""Private to :mod:`.openai_responses`: what its native values look like, for :func:`.._common.held.take`."""

from __future__ import annotations

from .._common.held import Native

PROVIDER = "openai_responses"

#: Fields the Responses API itself sends as null (a dump's nulls elsewhere are the SDK's "unset").
_NULLABLE = frozenset(
    ("error", "incomplete_details", "instructions", "max_output_tokens", "max_tool_calls", "previous_response_id",
     "prompt_cache_key", "prompt_cache_retention", "reasoning", "effort", "generate_summary", "summary",
     "safety_identifier", "temperature", "top_p", "truncation", "usage", "user", "completed_at", "moderation",
     "description", "filters", "city", "region", "timezone", "country", "timeout_ms", "max_output_length",
     "upstream_inference_cost", "param", "code", "conversation", "prompt", "service_tier")
)
#: The caller's own JSON: a tool's parameters or schema.
_OPAQUE = frozenset(("parameters", "schema", "input_schema"))


def _event(body: dict[str, object]) -> bool:
    kind = body.get("type")
    return type(kind) is str and kind.startswith("response.")


RESPONSE = Native(
    PROVIDER, "a response body", "response", ("output", "status", "object"),
    lambda b: b.get("object") == "response", _NULLABLE, _OPAQUE, bare_error=True,
)
REQUEST = Native(PROVIDER, "a request body", "request", ("input", "instructions"), None, _NULLABLE, _OPAQUE)
EVENT = Native(PROVIDER, "a stream event", "stream event", ("type",), _event, _NULLABLE, _OPAQUE)
USAGE = Native(PROVIDER, "a usage object", "usage", nullable=_NULLABLE)
