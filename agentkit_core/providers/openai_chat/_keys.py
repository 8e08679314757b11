"""Private to :mod:`.openai_chat`: its ``openai.chat.*`` metadata keys and the markers among them.

Fields of the native message, part, call or audio object a value came from
ride as ``openai.chat.<field>`` (:data:`CHAT`) and go back; the markers steer
the rebuild and are never sent as fields.
"""

from __future__ import annotations

#: Response- and choice-level fields on an item: informational, never sent back.
NS = "openai."
#: Fields of the native message, part, call or audio object a value came from: sent back.
CHAT = "openai.chat."
#: Adapter markers under :data:`CHAT` (not native fields).
REFUSAL_KEY = CHAT + "refusal"
LEGACY_KEY = CHAT + "legacy_function_call"
ARGUMENTS_KEY = CHAT + "arguments"
TYPE_KEY = CHAT + "type"
REASONING_FIELD_KEY = CHAT + "reasoning_field"
BARE_KEY = CHAT + "bare_base64"
#: On an item read from a request: the message had no ``content`` field (not even ``null``).
NO_CONTENT_KEY = CHAT + "no_content"
#: On a tool call read from a request: it had no ``type`` (some compatible clients leave it out).
NO_TYPE_KEY = CHAT + "no_type"
#: On a tool call read from a request: its ``function`` had no ``arguments`` (pydantic-ai's Hugging Face
#: client sent such calls); ``openai.chat.arguments: null`` says it had ``arguments: null``.
NO_ARGUMENTS_KEY = CHAT + "no_arguments"
#: On an item read from a request: it sent fields a response alone has (``annotations``, ``audio.data``...),
#: so they go back.
ECHO_KEY = CHAT + "echo"
#: On media or a file read from a ``tool`` message's content (a compatible server's extension): it goes back
#: there, not in a ``user`` message after the tool messages.
IN_TOOL_KEY = CHAT + "in_tool"
AUDIO = CHAT + "audio."
#: What :func:`native_fields` leaves out: markers on parts, and what an item's message fields are not.
PART_MARKERS = ("type", "refusal", "legacy_function_call", "arguments", "reasoning_field", "bare_base64",
                 "annotations", "in_tool", "no_type", "no_arguments")
ITEM_MARKERS = ("role", "content", "annotations", "no_content", "echo")
