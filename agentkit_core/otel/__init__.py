"""Model calls and tool runs as OpenTelemetry GenAI span attributes, with no OpenTelemetry import.

:func:`span_attributes` turns one call to a model (the transcript sent, the
answer items, the provider, the model asked for, the tools offered) into the
attributes of the OpenTelemetry GenAI semantic conventions' inference span;
:func:`tool_span_attributes` does the same for an ``execute_tool`` span.
Both return a plain ``dict`` of strings, numbers and lists of strings, ready
for ``span.set_attributes(...)`` of any OpenTelemetry SDK; this module imports
none, and ``import agentkit_core`` does not import this package.

The conventions followed are those of open-telemetry/semantic-conventions at
commit ``953276ff`` (2026-05-05), the last before the GenAI conventions
moved to their own repository.

Attributes of an inference span
-------------------------------

=============================================  =====================================================
attribute                                      from
=============================================  =====================================================
``gen_ai.operation.name``                      ``operation``: ``"chat"``, or ``"generate_content"``
                                               for Gemini
``gen_ai.provider.name``                       ``provider``: ``anthropic`` -> ``"anthropic"``,
                                               ``openai_chat`` and ``openai_responses`` ->
                                               ``"openai"``, ``gemini`` -> ``"gcp.gemini"``; any
                                               other string as it is (``"gcp.vertex_ai"``)
``gen_ai.request.model``                       ``request_model``
``gen_ai.request.max_tokens``,                 ``settings`` (a ``ModelSettings``): ``max_tokens``,
``gen_ai.request.temperature``,                ``temperature``, ``top_p``, ``stop`` (a list of
``gen_ai.request.top_p``,                      strings), ``seed``, ``reasoning_effort``; each only
``gen_ai.request.stop_sequences``,             when set
``gen_ai.request.seed``,
``gen_ai.request.reasoning.level``
``gen_ai.request.stream``,                     ``request`` (the ``agentkit_core.http.Request``
``server.address``, ``server.port``            sent): whether it accepts an event stream, the
                                               URL's host and port (443 or 80 when the URL
                                               gives none)
``gen_ai.response.model``                      the answer's ``anthropic.model``, ``openai.model``
                                               or ``gemini.modelVersion`` metadata
``gen_ai.response.id``                         the first answer item's ``id``
``gen_ai.response.finish_reasons``             each answer item's finish reason (below)
``gen_ai.usage.input_tokens``,                 the answer items' usage, summed: ``input_tokens``,
``gen_ai.usage.output_tokens``,                ``output_tokens``, ``cached_input_tokens``,
``gen_ai.usage.cache_read.input_tokens``,      ``cache_write_input_tokens``,
``gen_ai.usage.cache_creation.input_tokens``,  ``reasoning_tokens`` (a count the provider did not
``gen_ai.usage.reasoning.output_tokens``       report is left out); inputs include the cache
                                               counts, outputs the reasoning, as the conventions say
``gen_ai.conversation.id``                     ``conversation_id``
``error.type``                                 ``error_type``, else for an answer that ended in
                                               ``ERROR`` the provider's error code
                                               (``"overloaded_error"``, ``"rate_limit_exceeded"``,
                                               ``"RESOURCE_EXHAUSTED"``,
                                               ``"MALFORMED_FUNCTION_CALL"``) or ``"_OTHER"``;
                                               ``"cancelled"`` for a ``CANCELLED`` one
=============================================  =====================================================

Only with ``capture_content=True`` (the conventions make content opt-in: it
holds what users wrote): ``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.system_instructions`` and
``gen_ai.tool.definitions``, each as JSON text following the conventions'
JSON schemas.

Messages
--------

Roles: USER, CONTEXT and NOTIFICATION items -> ``"user"``, ASSISTANT ->
``"assistant"``, TOOL -> ``"tool"``, SYSTEM and DEVELOPER -> ``"system"``.
The system items the provider's API takes apart from the conversation are
``gen_ai.system_instructions`` instead: Anthropic's and Gemini's SYSTEM and
DEVELOPER items (but a mid-conversation system message of Anthropic's), and
the Responses API's ``instructions``; Chat Completions' system messages stay
in the conversation, where the API has them.

=====================================  ================================================================
part                                   message part
=====================================  ================================================================
``TextPart``                           ``{"type": "text", "content": text}``
``StructuredPart``                     a ``text`` part of its compact JSON (what encoders send)
``ReasoningPart``                      ``{"type": "reasoning", "content": summary}`` (``""`` when it
                                       holds only opaque state, which is never written), and
                                       ``"redacted": true`` when redacted
``ToolCallPart``                       ``{"type": "tool_call", "id", "name", "arguments"}``: the
                                       JSON input, or the argument text that did not parse
``ToolResultPart``                     ``{"type": "tool_call_response", "id", "response"}``: the
                                       text, the structured value, or a list of message parts
``MediaPart``, ``FilePart``            by data: a URI -> ``uri``; an artifact handle (a provider's
                                       file id) -> ``file``; bytes, inline text or a ``data:`` URL
                                       -> ``blob`` (base64) only with ``inline_media=True``, else
                                       ``{"type": "blob_omitted", "modality", "mime_type",
                                       "size_bytes"}``.  ``modality``: ``image``, ``audio``,
                                       ``video``, ``binary``; a file's from its MIME type, else
                                       ``document``; a file's ``name`` is kept
``CustomPart``                         a server tool's block (Anthropic's ``server_tool_use``,
                                       ``mcp_tool_use`` and ``*_tool_result``, the Responses
                                       API's hosted tool calls, Gemini's code execution) ->
                                       ``server_tool_call`` / ``server_tool_call_response``;
                                       any other -> the generic part ``{"type": kind, "value":
                                       value}``.  Without ``inline_media``, a string of 256 or
                                       more base64 characters in a block (an image a tool made,
                                       encrypted state) is ``[N characters of base64 data
                                       omitted]``
=====================================  ================================================================

Finish reasons (:func:`finish_reason`): ``COMPLETED`` -> ``"stop"``,
``TOOL_CALL`` -> ``"tool_call"``, ``MAX_TOKENS`` -> ``"length"``,
``BLOCKED`` -> ``"content_filter"`` (a refusal too: no ``error.type``),
``ERROR`` -> ``"error"``, ``CANCELLED`` -> ``"cancelled"``,
``other(raw)`` -> ``raw``, none (a stream cut short) -> ``"unknown"``.

``max_text`` bounds every string of the content: message text, reasoning,
and each string inside tool arguments, results and custom values (the
structure is kept, as the conventions suggest).  A cut string ends with
``[... N characters truncated]``; ids, names and MIME types are never cut.
"""

from __future__ import annotations

from ._spans import (
    finish_reason,
    input_messages,
    output_messages,
    provider_name,
    span_attributes,
    span_name,
    system_instructions,
    tool_definitions,
    tool_span_attributes,
)

__all__ = (
    "span_attributes",
    "tool_span_attributes",
    "span_name",
    "input_messages",
    "output_messages",
    "system_instructions",
    "tool_definitions",
    "provider_name",
    "finish_reason",
)

for _name in __all__:
    globals()[_name].__module__ = __name__  # tracebacks and help() name the public module
del _name


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
