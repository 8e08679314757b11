"""Private to :mod:`.bedrock`: its ``bedrock.*`` metadata keys and the markers among them.

Every native field without a neutral home rides as ``bedrock.<field>``
(:data:`NS`); the markers steer the rebuild and are never written as fields.
"""

from __future__ import annotations

#: The provider's name, as ``agentkit.provider`` holds it on reasoning state.
PROVIDER = "bedrock"
NS = PROVIDER + "."
#: Marker: the native fields left out although the part has a value (a ``toolUse`` without ``input``).
OMITTED = NS + "omitted"
#: Marker: a tool result's content that was one ``{"json": ...}`` block (read back as a structured output).
RESULT_JSON = NS + "result_json"
#: Marker: the deltas of a streamed block that nothing maps (a citation...), kept on its part, never sent.
DELTAS = NS + "deltas"
#: The markers, by their field names.
MARKERS = ("omitted", "result_json", "deltas")
