"""The OpenAI Responses API (``POST /v1/responses``) <-> agentkit values.

Parts: one native *entry* -> one part
-------------------------------------
A native item may hold several entries (a ``message``'s ``content[]``, a
``reasoning`` item's ``content[]`` and ``summary[]``).  Each entry becomes its
own part, as the stream addresses them; the parts of one native item sit next
to each other and share its fields, and :func:`request_from_items` regroups
consecutive parts with the same ``openai.id`` into one native item.

==================================  ===================================================
native                              neutral
==================================  ===================================================
``message``                         one part per ``content[]`` entry (below); ``role``
                                    -> the item kind (requests); a string ``content``
                                    -> one ``TextPart`` with no ``openai.part.type``;
                                    no entries -> ``CustomPart("openai.message")``
 ``output_text`` / ``input_text``   ``TextPart(text)``; ``annotations`` (every kind:
                                    ``url_citation``, ``file_citation``,
                                    ``container_file_citation``, ``file_path``) and
                                    ``logprobs`` verbatim in ``openai.part.*``
 ``refusal``                        ``TextPart(refusal)``, ``openai.part.type="refusal"``
 ``input_image``                    ``MediaPart(IMAGE)``: data URL -> ``InlineText(base64)``
                                    and its MIME type; other ``image_url`` -> ``Uri``
                                    (MIME ``image/*``); ``file_id`` -> ``Handle``
 ``input_file``                     ``FilePart(name=filename)``: ``file_data`` data URL
                                    -> ``InlineText(base64)`` and MIME type (a
                                    ``text/*`` file's UTF-8 content instead:
                                    ``InlineText`` of a text file is its content),
                                    other ``file_data`` -> ``InlineText``;
                                    ``file_url`` -> ``Uri``; ``file_id`` -> ``Handle``
 ``input_audio``                    ``MediaPart(AUDIO)``: ``data`` -> ``InlineText``,
                                    ``format`` ``wav`` / ``mp3`` -> ``audio/wav`` /
                                    ``audio/mpeg`` (inline audio of other types is
                                    sent as an ``input_file``)
 any other entry                    ``CustomPart("openai.<type>", value=<entry>)``
``reasoning``                       one ``ReasoningPart`` per ``content[]``
                                    (``reasoning_text``) entry, then one per
                                    ``summary[]`` (``summary_text``) entry, each with
                                    its own text; none -> one ``ReasoningPart(None)``.
                                    The first holds ``data=InlineText(encrypted_content)``;
                                    every one ``agentkit.provider="openai"`` when the
                                    item has an ``id`` or ``encrypted_content``
``function_call``                   ``ToolCallPart(ToolCallId(call_id), name, input)``;
                                    the item id (``fc_...``) in ``openai.id``;
                                    ``arguments`` parsed with the fold's convention
                                    (text that is not JSON: ``input=None``,
                                    ``agentkit.input_json``/``input_error``); raw text
                                    the compact encoding would not give back in
                                    ``openai.arguments``
``custom_tool_call``                ``ToolCallPart(call_id, name, input=<the string>)``,
                                    ``openai.type="custom_tool_call"``
``function_call_output``            ``ToolResultPart(call_id, TextOutput(output))``, or
                                    ``PartsOutput`` of its ``input_text`` /
                                    ``input_image`` / ``input_file`` list
``custom_tool_call_output``         the same, ``openai.type="custom_tool_call_output"``
every other item: ``web_search_``   ``CustomPart("openai.<type>", value=<item verbatim>)``
``call``, ``file_search_call``,     (``agentkit.provider="openai"`` when it holds an
``computer_call``,                  ``encrypted_content`` string), written back as it
``code_interpreter_call``,          came
``image_generation_call``,
``local_shell_call``,
``shell_call``, ``apply_patch_``
``call``, ``mcp_call``,
``mcp_list_tools``,
``mcp_approval_request``,
their ``*_output`` items,
``mcp_approval_response``,
``item_reference``, unknown ones
==================================  ===================================================

Metadata.  Item fields with no neutral home sit on each of the item's parts as
``openai.<field>`` (``id``, ``status``, ``phase``, ``role`` when it is not the one
the item kind gives, ``type`` where it marks a variant or alone says a
reasoning part is this API's, fields nobody has seen yet); entry fields as
``openai.part.<field>`` (``type``, ``annotations``, ``logprobs``, ``detail``...).  A field consumed only when it has the expected
type stays in metadata otherwise, ``null`` included.  Markers of ours hold
what no field says: ``openai.entry.of`` (which list of a reasoning item an
entry came from, when its ``type`` does not tell), ``openai.entry.raw`` (a
reasoning entry that is not an object with a text, verbatim) and
``openai.entry.no_summary`` (a reasoning item without ``summary``).

Response.  ``Item.id = MessageId(<resp_...>)``; every other top-level field
but ``output`` and ``usage`` is ``openai.<field>`` in the item's metadata.

======================================================  ===========================
``usage.input_tokens`` (includes cached and written)    ``input_tokens``
``usage.input_tokens_details.cached_tokens``            ``cached_input_tokens``
``usage.input_tokens_details.cache_write_tokens``       ``cache_write_input_tokens``
``usage.output_tokens`` (includes reasoning)            ``output_tokens``
``usage.output_tokens_details.reasoning_tokens``        ``reasoning_tokens``
the ``usage`` object, verbatim                          ``Usage.metadata["openai.usage"]``
======================================================  ===========================

Finish reason.  ``agentkit.finish_reason`` is the raw ``status``, except that an
``incomplete`` response with an ``incomplete_details.reason`` string gives that
reason, and a stream that ended on an ``error`` event, like an error body (an
``error`` object and no ``status``), gives ``"error"``:

==============================================================  ===============
``completed``, the output holds a call the client must answer   ``TOOL_CALL``
(``function_call``, ``custom_tool_call``, ``computer_call``,
``local_shell_call``, ``apply_patch_call``, ``mcp_approval_request``,
a ``shell_call`` not run in a container (``environment``), a
``tool_search_call`` whose ``execution`` is ``client``) and no
``*_output`` item answering it
``completed``, the output's content is refusals only            ``BLOCKED``
(reasoning aside)
``completed`` otherwise                                         ``COMPLETED``
``incomplete``, reason ``max_output_tokens``                    ``MAX_TOKENS``
``incomplete``, reason ``content_filter``                       ``BLOCKED``
``incomplete``, another reason (none: ``"incomplete"``)         ``other(<reason>)``
``failed``, the stream's ``error`` event, an error body         ``ERROR``
``cancelled``                                                   ``CANCELLED``
any other status (``in_progress``, ``queued``)                  ``other(<status>)``
==============================================================  ===============

Streaming.  Part ids are ``"<output_index>"`` for the first part an output item
opens and ``"<output_index>.<n>"`` for its next ones.  ``output_item.added``
opens a reasoning item's first part (so a reporter shows it thinking), a tool
call's part (with the fold's header keys ``agentkit.tool_call_id`` and
``agentkit.tool_name``, ``openai.id``, and ``openai.type`` for a custom
tool call, so one the stream cuts off still goes back as one, its input the
text that arrived) and a custom part for every other
non-message item (``agentkit.custom_kind``); ``content_part.added`` and
``reasoning_summary_part.added`` open the others (a text delta for an entry
never announced opens it too).  Text, refusal, reasoning, summary, argument and
custom-tool input fragments are appended as they arrive; a ``*.done`` event
appends whatever its full text adds; ``output_text.annotation.added`` re-sends
the entry's annotations so far (``SetMetadata``); the
``*_call.in_progress`` / ``searching`` / ``interpreting`` / ``generating`` /
``completed`` / ``failed`` events set the open part's ``openai.status``; code
interpreter code, MCP argument, shell command (``shell_call_command.*``, by
``command_index``) and patch diff (``apply_patch_call_operation_diff.*``)
fragments are kept for an item cut short.
``response.created`` / ``in_progress`` / ``queued`` only update the response.

``output_item.done`` commits every part of the item, decoded from the done
item exactly as the non-streaming path decodes it, but for a reasoning
item's ``encrypted_content``: the item takes the terminal response's, the
version the API means to be replayed (``output_item.added`` and ``done``
carry other encryptions); a ``done`` whose ``added`` the stream lacks (a stream
resumed past it) adds the item whole.  A terminal event (``response.completed``, ``incomplete``,
``failed``, ``cancelled``) commits the items still open from the terminal
response's copy (found by id, else by index) or, lacking one, from what
arrived, and adds the output items the stream never announced (an item of
the type the stream announced at its index is that one, renamed: OpenRouter
renews reasoning ids); an ``error``
event (or an event with no ``type`` holding an ``error`` object, the error
payload the SDKs raise on) commits them from what arrived, and puts its fields
(those of its ``error`` object when that is all it holds) in the item's
``openai.error``.  A stream that stops before a terminal or ``error``
event is closed as the decoder's ``close`` closes it, with ``ERROR``.
Events after the end are ignored.  The
decoder's ``usage`` is the latest ``usage`` an event carried, its
``finish_reason`` is set by the event that ends the turn.

Requests.  ``instructions`` (a string) <-> a ``SYSTEM`` item holding one text
part, marked ``{"openai.request_field": "instructions"}`` (``null``, which the API
takes too: that item with no parts); a string ``input`` <->
one ``USER`` item marked ``"input"``.  Each native input item becomes one item:
``message`` by role (``user``, ``system``, ``developer``, ``assistant``; another
role -> ``USER`` with ``openai.role``), ``*_output`` items -> ``TOOL``,
``mcp_approval_response`` -> ``USER``, every other item -> ``ASSISTANT``.

:func:`request_from_items` writes the parts back grouped as above.  An
unmarked ``SYSTEM`` item is a ``system`` message; ``CONTEXT``, ``NOTIFICATION``
and ``TOOL`` text go as ``user`` messages.  It only writes the Responses API's
``openai.*`` metadata, never Chat's ``openai.chat.*`` nor another provider's.
It keeps OpenAI's reasoning (parts marked ``agentkit.provider="openai"``, or
unmarked ones carrying Responses metadata) and drops every other reasoning
part: OpenAI takes back only its own reasoning items, so another provider's
signatures and thoughts are not sent.  Custom parts outside the Responses
namespace (Chat's ``openai.chat.*`` among them) are dropped too, and so are
the media and files of an assistant item that did not come from this API
(a Gemini image, a Chat audio answer): an assistant message takes only
``output_text`` and ``refusal`` entries.  An inline file without a name is
sent with ``filename`` ``"file"`` (``"file.pdf"``, ``"file.txt"``... by its
MIME type), which the API requires beside ``file_data``; audio in a tool
output, whose list takes no ``input_audio``, goes as an ``input_file``.
Entries a request sent go back as they came.  A tool
result's ``is_error`` has no native field.  A result without ``openai.type``
that answers a ``custom_tool_call`` written before it goes as a
``custom_tool_call_output``, the only result the API matches to such a call
(a request that answered one with a ``function_call_output`` keeps that type
in ``openai.type``).  A call whose id another adapter invented
(``agentkit.invented_id``) is sent with it all the same, as OpenAI requires a
``call_id`` and matches the result by it.
Output items go back verbatim, as OpenAI documents the follow-up request
(the earlier input plus ``response.output`` as it came): the ``status`` of
messages, reasoning, function and custom tool calls, and the token
``logprobs`` of an ``output_text`` entry, are sent as they came, from a
response or a request alike; an item that came without them gets none.

Tools
-----

=========================================  ==================================================
``tools[]`` ``{"type": "function", ...}``  ``ToolSpec(name, description, parameters)``; other
                                           fields in ``openai.<field>`` (``strict`` unless
                                           ``false``, which a spec goes with by default)
other ``tools[]`` (hosted, MCP, custom)    the native dict, verbatim
``tool_choice`` ``"auto"`` / ``"none"`` /  ``ToolChoice.auto()`` / ``none()`` / ``required()`` /
``"required"`` / a ``function``            ``tool(name)``; ``parallel_tool_calls`` is ``parallel``
=========================================  ==================================================

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

* Opaque state.  This module marks its own ``"openai"`` (reasoning items with
  an ``id`` or ``encrypted_content``, other items holding
  ``encrypted_content``).  Reasoning came from this API when it holds
  Responses metadata (an ``openai.*`` key that is not Chat's ``openai.chat.*``).

* Namespaces.  The encoder writes back only ``openai.*`` (not
  ``openai.chat.*``) metadata and custom parts.

* Finish reasons.  A ``completed`` turn ends ``TOOL_CALL`` when its output
  holds a call the client must answer, and ``BLOCKED`` when it is refusals only.

* Tool names.  The encoder does not need ``agentkit.tool_name``: results name
  no tool and match their call by ``call_id``.

* Invented ids.  The Responses API needs ids: invented ones are sent as the
  ``call_id``.  This module never invents one (every call has its ``call_id``).

* Extras.  :func:`finish_reason` reads a ``status``, an
  ``incomplete_details.reason`` or ``"error"``, :func:`usage_from_native` a
  ``usage`` object; :class:`ResponsesStreamDecoder` is what
  :func:`stream_decoder` makes, and its ``finish_all(parts)`` is
  ``[finish(parts)]`` (``close_all`` is ``[close(...)]``), a stream holding one response.
"""

from __future__ import annotations

from typing import Any, Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._response import finish_reason, items_from_response, usage_from_native
from ._request import items_from_request, request_from_items
from ._stream import ResponsesStreamDecoder, stream_decoder
from ._http import http_request
from ._complete import acomplete, astream, complete, stream
from ._settings import settings_from_request
from ._tools import tool_choice_from_request, tools_from_request

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
    "ResponsesStreamDecoder",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)


# -- responses -----------------------------------------------------------------------------


# -- streams -------------------------------------------------------------------------------


def items_from_stream(events: Iterable[Any]) -> list[Item]:
    """A whole stream of events (``*.stream.jsonl`` lines, or :func:`events_from_sse` of a body) -> its items."""
    return fold_stream(ResponsesStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
