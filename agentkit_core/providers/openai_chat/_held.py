"""Private to :mod:`.openai_chat`: what its native values look like, for :func:`.._common.held.as_native`."""

from __future__ import annotations

from .._common.held import Native

MODULE = "openai_chat"

#: Fields OpenAI and compatible servers send as null (a dump's nulls elsewhere are the SDK's "unset").
_NULLABLE = frozenset(
    ("content", "refusal", "reasoning", "reasoning_content", "finish_reason", "logprobs", "native_finish_reason",
     "system_fingerprint", "usage", "format", "upstream_inference_cost", "tool_calls", "function_call", "audio",
     "param", "code")
)
#: The caller's own JSON: a tool's parameters, a response format's schema.
_OPAQUE = frozenset(("parameters", "json_schema"))

RESPONSE = Native(
    MODULE, "a response body", "response", ("choices",),
    lambda b: b.get("object") == "chat.completion", _NULLABLE, _OPAQUE, bare_error=True,
)
REQUEST = Native(MODULE, "a request body", "request", ("messages",), None, _NULLABLE, _OPAQUE)
EVENT = Native(
    MODULE, "a stream event", "stream chunk", ("choices", "usage"),
    lambda b: b.get("object") == "chat.completion.chunk", _NULLABLE, _OPAQUE,
)
USAGE = Native(MODULE, "a usage object", "usage", nullable=_NULLABLE)
