"""The Anthropic Messages API <-> agentkit_core: pure functions, no I/O.

Content blocks (the same mapping in responses, streams and requests)
--------------------------------------------------------------------

=================================  ===========================================================
native block                       neutral part
=================================  ===========================================================
``text``                           ``TextPart(text)``; ``citations`` (every citation type,
                                   verbatim) in ``"anthropic.citations"``
``thinking``                       ``ReasoningPart(thinking, data=InlineText(signature))``,
                                   ``agentkit.provider: "anthropic"``
``redacted_thinking``              ``ReasoningPart(None, data=InlineText(data), redacted=True)``,
                                   ``agentkit.provider: "anthropic"``
``tool_use``                       ``ToolCallPart(ToolCallId(id), name, input)`` (an object
                                   ``input``; any other is a block the API never sends)
``tool_result``                    ``ToolResultPart(ToolCallId(tool_use_id), output, is_error)``:
                                   string ``content`` -> ``TextOutput``, a block list ->
                                   ``PartsOutput`` of the blocks' parts; ``agentkit.tool_name``
                                   when the request's earlier ``tool_use`` names the tool; a
                                   null ``content``/``is_error`` reads as absent (kept as null)
``image``, ``base64`` source       ``MediaPart(IMAGE, media_type, InlineBytes(decoded))`` for
                                   the four types the API reads (JPEG, PNG, GIF, WebP)
``image``, ``url`` source          ``MediaPart(IMAGE, "image/*", Uri(url))`` (no media type sent)
``document``, ``base64`` PDF       ``FilePart(InlineBytes(decoded), name=title,
                                   mime_type="application/pdf")``
``document``, ``text`` source      ``FilePart(InlineText(data), name=title, mime_type="text/plain")``
``document``, ``url`` source       ``FilePart(Uri(url), name=title, mime_type="application/pdf")``
any other block                    ``CustomPart("anthropic.<type>", value=<the block verbatim>)``
=================================  ===========================================================

``CustomPart`` holds, verbatim: the server tools' blocks (``server_tool_use``,
``web_search_tool_result``, ``web_fetch_tool_result``,
``code_execution_tool_result``, ``bash_code_execution_tool_result``,
``text_editor_code_execution_tool_result``, ``tool_search_tool_result``),
``mcp_tool_use`` / ``mcp_tool_result`` (the API runs these tools itself, so a
loop must not), ``container_upload``, ``compaction`` (a summary and its
encrypted state, sent back verbatim), ``search_result``, ``tool_reference``,
``mid_conv_system``, images and documents with a ``file`` source (a Files API
id means nothing to another provider) or a ``content`` source, sources with
fields, media types or base64 this table does not map exactly (``data:`` URLs
in a ``url`` source among them), blocks whose known fields have the wrong
type, and block types yet to be invented.

Every field of a block the table does not consume is kept in the part's
metadata as ``"anthropic.<field>"``, verbatim (``citations``,
``cache_control``, ``caller``, ``context``, a document's ``citations``
switch, fields nobody has seen yet) and written back.  Three markers complete
the round trip and are never sent:

* ``"anthropic.omitted"``: optional native fields the block left out although
  the part has a value for them (a ``tool_result`` without ``is_error`` is
  ``is_error=False`` plus ``["is_error"]``; a ``tool_use`` without ``input``
  has ``input={}``);
* ``"anthropic.string_content"`` (item metadata): the message's ``content``
  (or the request's ``system``) was a plain string, not a block list;
* ``"anthropic.blank_sent"``: a text block of whitespace only read from a
  request, which the API took there, so it goes back (the encoder drops blank
  text from anywhere else).

Messages and items
------------------

=============================================  ================================================
native                                         neutral
=============================================  ================================================
``system`` (string or text blocks)             one ``SYSTEM`` item
``role: "user"``                               ``USER`` item; ``TOOL`` when it holds a
                                               ``tool_result`` (parts in native order, so text
                                               sent beside the results stays in place)
``role: "assistant"``                          ``ASSISTANT`` item
``role: "system"`` (a mid-conversation         ``SYSTEM`` item in place, its role kept in
system message)                                ``"anthropic.role"``; ``tool_addition`` and
                                               ``tool_removal`` blocks are custom parts
other message fields (``clear_at``,            item metadata ``"anthropic.<field>"``
``output_config``, ...)
=============================================  ================================================

Back to a request (:func:`request_from_items`): ``SYSTEM`` and ``DEVELOPER``
items become ``system``, but for those with ``anthropic.role: "system"``,
which go back as the system messages they were, in place (even when empty: an
``output_config`` alone); only some models take system messages, so no other
item becomes one.  ``ASSISTANT`` items become assistant messages; ``USER``,
``TOOL``, ``CONTEXT`` and ``NOTIFICATION`` items user messages, one message
per item (the API joins consecutive turns of one role).  Message fields in
item metadata are written back, except on items decoded from a response
(those with ``anthropic.type``, usage or a finish reason: the fields describe
the response).  A message
with no content blocks (a refusal's item, or one whose parts were all
dropped) is not sent, since the API refuses empty messages; nor is a text
part of whitespace only (the API refuses such blocks, which other providers'
transcripts hold, as in a ``"\\n"`` before a call), in a message, the system or
a tool result, unless it was read from an Anthropic request (the API took it
there: ``anthropic.blank_sent``) or came in an Anthropic answer (an item with
``anthropic.type: "message"``: a ``" "`` block streamed before a ``tool_use``
goes back as it came, which the API takes); a message's or the system's plain
string goes as it came.  What
the encoder does with parts that did not come from Anthropic:

* reasoning is sent only when it holds Anthropic's state
  (``agentkit.provider == "anthropic"``); another provider's reasoning, and
  reasoning with no provider state at all, is dropped: the API verifies
  signatures, and reasoning of earlier turns is not needed to continue;
* another provider's custom parts (``openai.*``, ``gemini.*``: its server
  tools) are dropped, and so is its metadata (only ``anthropic.*`` is written);
* ``StructuredPart`` and ``StructuredOutput`` go as their compact JSON text;
  base64 ``data:`` URLs become base64 sources; a document's inline text, or
  UTF-8 ``text/*``, JSON or XML bytes (a ``data:`` URL's too), a ``text``
  source; ``image/jpg`` is sent as ``image/jpeg``; tool calls with no input
  (``input=None``: argument text that did not parse, with
  ``agentkit.input_error``, or a null) go with ``{}``,
  and so do server and MCP tool calls cut off the same way;
  invented ids (``agentkit.invented_id``) are sent, since the API needs ids;
* audio and video, images the API does not read (HEIC, SVG, an unknown
  type held inline), documents other than PDF and text (a Word file, a text
  file by URL, text that is not UTF-8), artifact handles, custom parts of no
  provider, parts a ``tool_result`` cannot hold, tool calls whose input is not a JSON object
  (a Responses custom tool's free text), and a ``SYSTEM`` or ``DEVELOPER``
  item's parts other than text (an image in a Responses developer message:
  ``system`` holds text blocks only) raise :class:`~agentkit_core.NormalizeError`.

Responses
---------

=========================================  ==================================================
``Message`` field                          neutral field
=========================================  ==================================================
``id``                                     ``Item.id = MessageId(id)``
``content``                                ``Item.parts``; an empty ``text`` block with
                                           nothing else is left out (the API sends one
                                           before a refusal and refuses it back)
``usage``                                  ``Item.usage``; raw in ``"anthropic.usage"`` of
                                           ``Usage.metadata``
``stop_reason``                            ``Item.finish_reason`` (below); raw in
                                           ``agentkit.finish_reason``
``type``, ``model``, ``stop_sequence``,    item metadata ``"anthropic.<field>"``
``stop_details``, ``container``, others
an error body (``type: "error"``)          no parts, ``ERROR``, ``"anthropic.error"``,
                                           ``agentkit.finish_reason: "error"``
=========================================  ==================================================

Tokens: Anthropic's ``input_tokens`` *excludes* cache traffic, so
``TokenUsage.input_tokens = input_tokens + cache_read_input_tokens +
cache_creation_input_tokens``, ``cached_input_tokens =
cache_read_input_tokens`` and ``cache_write_input_tokens =
cache_creation_input_tokens`` (``None`` when not reported);
``output_tokens`` already includes thinking; ``reasoning_tokens`` is
``output_tokens_details.thinking_tokens`` where reported (newer models), else ``None``.

Stop reasons: ``end_turn``, ``stop_sequence`` -> ``COMPLETED``; ``tool_use``
-> ``TOOL_CALL``; ``max_tokens``, ``model_context_window_exceeded`` ->
``MAX_TOKENS``; ``refusal`` -> ``BLOCKED`` (``stop_details`` kept); others
(``pause_turn``, future values) -> ``FinishReason.other(raw)``.

Streams
-------

=====================================  ===========================================================
event                                  deltas and state
=====================================  ===========================================================
``message_start``                      the item's id, fields and usage (live ``usage``)
``content_block_start``                ``BeginPart(PartId("part-<index>"))``, then ``SetMetadata``
                                       of the block's fields and the fold's header keys (a tool
                                       call's id and name, a custom part's kind) and, for a
                                       custom part, ``ReplaceStructured`` of the block
``text_delta`` / ``thinking_delta``    ``AppendText`` (text grows by appending only)
``input_json_delta``                   ``AppendText`` of the fragment (tool calls, server tools)
``citations_delta``                    ``SetMetadata`` of ``"anthropic.citations"`` so far
``signature_delta``                    kept for the commit
``compaction_delta``                   its summary extends the block's (a long one comes in
                                       several deltas), its other fields (the encrypted state)
                                       replace the block's unless null: ``ReplaceStructured``
other delta types                      ``SetMetadata`` of ``"anthropic.unknown_deltas"`` (a marker)
``content_block_stop``                 ``CommitPart(part, part_id=...)``: the finished block's part
``message_delta``                      stop reason (live ``finish_reason``), fields, cumulative usage
any event's undeclared fields          merged into the message's as the SDK merges them (objects
                                       key by key, lists extended, other values replaced)
``message_stop``                       commits every block still open
``error``                              ``ERROR`` (raw ``"error"``), the error in ``"anthropic.error"``,
                                       its other fields (``request_id``) as an error body's;
                                       commits every open block
``ping``, unknown events               nothing
=====================================  ===========================================================

A committed block is the block the SDK's accumulator builds, decoded as in a
response: the stream's item equals the response's.  Tool input is parsed when
its block closes, with the fold's convention for text that is not JSON
(``input=None``, the text and the error in ``agentkit.input_json`` and
``agentkit.input_error``), also for a call cut off by ``max_tokens``.  A
thinking block closed before its ``signature_delta`` (a stream cut short)
holds no state the API accepts: it commits without ``agentkit.provider``, so
it is not sent back.

Tools
-----

======================================  ===================================================
``tools[]``, no ``type`` or ``custom``  ``ToolSpec(name, description, input_schema)``; other
                                        fields in ``anthropic.<field>`` (``cache_control``...)
other ``tools[]`` (server tools)        the native dict, verbatim
``tool_choice`` ``auto`` / ``any`` /    ``ToolChoice.auto()`` / ``required()`` /
``tool`` + ``name`` / ``none``          ``tool(name)`` / ``none()``; ``parallel`` is
                                        ``not disable_parallel_tool_use``
======================================  ===================================================

``request_from_items(items, tools=..., tool_choice=...)`` writes them (a native dict as it is);
:func:`tools_from_request`, :func:`tool_choice_from_request` read them back exactly (see ``_tools``).

Settings and whole turns
------------------------

``settings=`` (a :class:`~agentkit_core.ModelSettings`) on :func:`request_from_items`,
:func:`http_request` and :func:`complete` is written into this API's own fields as
``_settings`` tabulates them, a setting it has no field for refused;
:func:`settings_from_request` reads them back.  :func:`complete` and
:func:`acomplete` run a whole turn: request, send, decode, fold, the item.

How this module keeps the shared rules
--------------------------------------

The rules every projection keeps are written once, in :mod:`agentkit_core.providers`;
what they mean here:

* Opaque state.  This module marks its own ``"anthropic"`` (thinking and its
  signature, redacted thinking).  Anthropic verifies a signature on every
  thinking block, so only its own marked reasoning is ever sent (a thinking
  block cut before its signature is unmarked, and dropped).

* Namespaces.  The encoder writes back only ``anthropic.*`` metadata and
  custom parts.

* Finish reasons.  Here the raw reason and the item's agree but for an error
  (``"error"`` is ``ERROR``).

* Tool names.  The encoder does not need ``agentkit.tool_name``:
  ``tool_result`` answers its call by id.

* Invented ids.  The Messages API needs ids: invented ones are sent.  This
  module never invents one (a block without its id stays a custom part).

* Extras.  :func:`finish_reason` reads a ``stop_reason``,
  :func:`usage_from_native` a ``usage`` object; :class:`AnthropicStreamDecoder`
  is what :func:`stream_decoder` makes, and its ``finish_all(parts)`` is
  ``[finish(parts)]`` (``close_all`` is ``[close(...)]``), a stream holding one message.
"""

from __future__ import annotations

from typing import Any, Iterable

from ... import Item
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._stream import AnthropicStreamDecoder, stream_decoder
from ._http import http_request
from ._complete import acomplete, astream, complete, stream
from ._settings import settings_from_request
from ._tools import tool_choice_from_request, tools_from_request
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream

__all__ = (
    "complete",
    "acomplete",
    "stream",
    "astream",
    "http_request",
    "items_from_response",
    "items_from_request",
    "request_from_items",
    "tools_from_request", "tool_choice_from_request",
    "settings_from_request",
    "stream_decoder",
    "items_from_stream",
    "events_from_sse",
    "finish_reason",
    "usage_from_native",
    "AnthropicStreamDecoder",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)

# -- responses and streams --------------------------------------------------------------


def items_from_stream(events: Iterable[Any]) -> list[Item]:
    """Decode and fold a whole stream of events: the item :func:`items_from_response` gives for its message.

    A stream cut short (no ``message_stop``) still gives its item, closed as
    the decoder's ``close`` closes it, with ``FinishReason.ERROR``.
    """
    return fold_stream(AnthropicStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
