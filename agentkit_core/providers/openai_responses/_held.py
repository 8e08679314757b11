"""Private to :mod:`.openai_responses`: what its native values look like, for :func:`.._common.held.as_native`."""

from __future__ import annotations

from typing import Any

from .._common.held import Native

MODULE = "openai_responses"

#: Fields the Responses API itself sends as null (a dump's nulls elsewhere are the SDK's "unset").
_NULLABLE = frozenset(
    ("error", "incomplete_details", "instructions", "max_output_tokens", "max_tool_calls", "previous_response_id",
     "prompt_cache_key", "prompt_cache_retention", "reasoning", "effort", "generate_summary", "summary",
     "safety_identifier", "temperature", "top_p", "truncation", "usage", "user", "completed_at", "moderation",
     "description", "filters", "city", "region", "timezone", "country", "timeout_ms", "max_output_length",
     "upstream_inference_cost", "param", "code", "conversation", "prompt", "service_tier")
)
#: The caller's own JSON: a tool's parameters or schema.
_OPAQUE = frozenset(("parameters", "schema", "schema_", "input_schema"))


def _event(body: dict[str, object]) -> bool:
    kind = body.get("type")
    return type(kind) is str and kind.startswith("response.")


RESPONSE = Native(
    MODULE, "a response body", "response", ("output", "status", "object"),
    lambda b: b.get("object") == "response", _NULLABLE, _OPAQUE, bare_error=True,
)
REQUEST = Native(MODULE, "a request body", "request", ("input", "instructions"), None, _NULLABLE, _OPAQUE)
EVENT = Native(MODULE, "a stream event", "stream event", ("type",), _event, _NULLABLE, _OPAQUE)
USAGE = Native(MODULE, "a usage object", "usage", nullable=_NULLABLE)


def unaliased(response: object) -> Any:
    """``response`` with ``text.format.schema`` spelled as the API spells it: the openai SDK's ``model_dump()``
    (without ``by_alias``) writes pydantic's alias ``schema_``, which is no field of the API's."""
    text = response.get("text") if isinstance(response, dict) else None
    fmt = text.get("format") if isinstance(text, dict) else None
    if not isinstance(fmt, dict) or "schema_" not in fmt or "schema" in fmt:
        return response
    fmt = {("schema" if k == "schema_" else k): v for k, v in fmt.items()}
    return {**response, "text": {**text, "format": fmt}}  # type: ignore[dict-item]
