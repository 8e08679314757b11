"""Private to :mod:`.anthropic`: its ``anthropic.*`` metadata keys and the markers among them.

Every native field without a neutral home rides as ``anthropic.<field>``
(:data:`NS`); the markers steer the rebuild and are never written as fields.
"""

from __future__ import annotations

#: The provider's name, as ``agentkit.provider`` holds it on reasoning state.
PROVIDER = "anthropic"
NS = PROVIDER + "."
#: Marker keys: they steer the rebuild and are never written as native fields.
OMITTED = NS + "omitted"
STRING_CONTENT = NS + "string_content"
UNKNOWN_DELTAS = NS + "unknown_deltas"
#: On a text part of whitespace only read from a request: the API took it there, so it goes back.
BLANK_SENT = NS + "blank_sent"
#: The markers, by their field names.
MARKERS = ("omitted", "string_content", "unknown_deltas", "blank_sent")
#: On a SYSTEM item from a ``role: "system"`` message: the message's role, so it goes back in place.
SYSTEM_ROLE = NS + "role"
