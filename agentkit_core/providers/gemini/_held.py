"""Private to :mod:`.gemini`: what its native values look like, for :func:`.._common.held.as_native`.

Gemini's bodies hold no null (protobuf JSON leaves unset fields out), so any
null marks a dump; google-genai dumps in snake_case, which a response's dump
is respelled from (a request keeps its spelling: the projection writes it back).
"""

from __future__ import annotations

from .._common.held import Native

MODULE = "gemini"

#: The caller's own JSON: a call's arguments, a function's response, JSON schemas.
_OPAQUE = frozenset(
    ("args", "response", "parametersJsonSchema", "parameters_json_schema", "responseJsonSchema", "response_json_schema")
)
_BYTES = frozenset(("thoughtSignature", "thought_signature", "data"))
_MARKS = ("candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId")

RESPONSE = Native(
    MODULE, "a response body", "response", _MARKS, lambda b: "candidates" in b, opaque=_OPAQUE, camel=True, bytes_fields=_BYTES,
)
REQUEST = Native(
    MODULE, "a request body", "request", ("contents", "systemInstruction", "system_instruction"), None,
    opaque=_OPAQUE, bytes_fields=_BYTES,
)
EVENT = Native(
    MODULE, "a stream chunk", "stream chunk", _MARKS, lambda b: "candidates" in b, opaque=_OPAQUE, camel=True, bytes_fields=_BYTES,
)
USAGE = Native(MODULE, "a usage object", "usage", camel=True)
