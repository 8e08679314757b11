"""Private to :mod:`.openai_responses`: its ``openai.*`` metadata keys and the markers among them.

Fields of a native item ride as ``openai.<field>`` (:data:`NS`), fields of a
content or summary entry as ``openai.part.<field>`` (:data:`PART_NS`); the
markers steer the rebuild and are never sent as fields.  ``openai.chat.*`` is
Chat Completions', not this module's.
"""

from __future__ import annotations

#: Fields of the native item a part came from.
NS = "openai."
#: Fields of the content or summary entry a part came from.
PART_NS = "openai.part."
#: Item metadata: which request field (``instructions``, a string ``input``) the item came from.
REQUEST_FIELD = "openai.request_field"
#: Part metadata: ``"content"`` or ``"summary"``, the reasoning list an entry came from when its type does not say.
ENTRY_OF = "openai.entry.of"
#: Part metadata: a reasoning entry that is not an object with a text, verbatim.
ENTRY_RAW = "openai.entry.raw"
#: Part metadata: ``True`` on the parts of a reasoning item that had no ``summary`` field at all.
NO_SUMMARY = "openai.entry.no_summary"
#: The provider's name, as ``agentkit.provider`` holds it on reasoning state.
PROVIDER = "openai"
#: The custom kind of an input item or entry that is not an object with a string ``type``.
UNKNOWN = "openai.unknown"
