"""Private to :mod:`.bedrock`: what its native values look like, for :func:`.._common.held.as_native`.

Converse bodies hold no null; boto3's answers are plain dicts, whose ``bytes``
fields (an image's, a document's, redacted reasoning) hold ``bytes`` where
the wire holds base64.
"""

from __future__ import annotations

from .._common.held import Native

MODULE = "bedrock"

#: The caller's own JSON: a call's input, a tool's schema, a result's JSON, the model's own fields.
_OPAQUE = frozenset(("input", "json", "additionalModelRequestFields", "additionalModelResponseFields"))
_BYTES = frozenset(("bytes", "redactedContent"))
#: Every ConverseStream event, as boto3 yields it: one of these keys.
EVENTS = frozenset(
    ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata",
     "internalServerException", "modelStreamErrorException", "validationException", "throttlingException",
     "serviceUnavailableException")
)


def _event(body: dict[str, object]) -> bool:
    return len(body) == 1 and next(iter(body)) in EVENTS


RESPONSE = Native(
    MODULE, "a response body", "response", ("output", "stopReason"), lambda b: "output" in b and "stopReason" in b,
    opaque=_OPAQUE, bytes_fields=_BYTES,
)
REQUEST = Native(MODULE, "a request body", "request", ("messages", "system"), None, opaque=_OPAQUE, bytes_fields=_BYTES)
EVENT = Native(MODULE, "a stream event", "stream event", tuple(sorted(EVENTS)), _event, opaque=_OPAQUE, bytes_fields=_BYTES)
USAGE = Native(MODULE, "a usage object", "usage")
