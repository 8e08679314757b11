"""Private to :mod:`.anthropic`: what its native values look like, for :func:`.._common.held.as_native`."""

from __future__ import annotations

from .._common.held import Native

MODULE = "anthropic"

_EVENTS = frozenset(
    ("message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta",
     "content_block_stop", "ping", "error")
)
#: Fields the Messages API itself sends as null (a dump's nulls elsewhere are the SDK's "unset").
_NULLABLE = frozenset(
    ("stop_reason", "stop_sequence", "stop_details", "content", "encrypted_content", "file_id", "details")
)
#: The caller's own JSON: a tool call's input, a tool's schema.
_OPAQUE = frozenset(("input", "input_schema"))

def _event(body: dict[str, object]) -> bool:
    kind = body.get("type")
    return type(kind) is str and kind in _EVENTS


RESPONSE = Native(
    MODULE, "a response body", "response", ("content", "type", "role", "stop_reason"),
    lambda b: b.get("type") == "message", _NULLABLE, _OPAQUE,
)
REQUEST = Native(MODULE, "a request body", "request", ("messages", "system"), None, _NULLABLE, _OPAQUE)
EVENT = Native(MODULE, "a stream event", "stream event", ("type",), _event, _NULLABLE, _OPAQUE)
USAGE = Native(MODULE, "a usage object", "usage", nullable=_NULLABLE)
