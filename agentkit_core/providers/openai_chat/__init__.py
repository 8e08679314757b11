"""OpenAI Chat Completions <-> agentkit values.

Responses (``items_from_response``; the stream decoder builds the same items)
-----------------------------------------------------------------------------

========================================  ====================================================
native                                    neutral
========================================  ====================================================
``choices[i]``                            one ASSISTANT ``Item`` each, in order
``id``                                    ``Item.id`` (``MessageId``), shared by every choice
``usage``                                 ``Item.usage`` of the first choice only (it covers all)
``choices[i].finish_reason``              ``Item.finish_reason`` (table below); the raw string
                                          in ``agentkit.finish_reason``
``object``; chunks' ``obfuscation``       dropped (a type tag; stream padding)
other top-level fields (``created``,      item metadata ``openai.<field>``: informational, never
``model``, ``service_tier``,              sent back
``system_fingerprint``, Azure
``prompt_filter_results``, ``error``...)
and choice fields (``index``,
``logprobs``, Azure
``content_filter_results``...)
``message.reasoning_content`` (DeepSeek)  ``ReasoningPart(summary=<text>)`` with
or ``message.reasoning`` (OpenRouter,     ``openai.chat.reasoning_field`` = the field's name;
vLLM), a string                           readable text, no ``agentkit.provider`` (below)
``message.content`` (a string)            ``TextPart``; ``null`` gives no part
``message.content`` (a list: some         one part per entry, as in requests (below)
compatible servers)
``message.annotations``                   ``openai.chat.annotations`` (``url_citation``...) on
                                          the content's ``TextPart`` (on the item without one)
``message.refusal`` (a string)            ``TextPart(refusal)`` with ``openai.chat.refusal: true``
``message.audio``                         ``MediaPart(AUDIO, <sniffed MIME>, InlineBytes(<data>))``
                                          with ``openai.chat.audio.<field>`` (``id``,
                                          ``expires_at``, ``transcript``...)
``message.tool_calls[j]``, ``function``   ``ToolCallPart(ToolCallId(id), name, <parsed arguments>)``
``message.tool_calls[j]``, ``custom``     ``ToolCallPart(id, name, <input string>)`` with
                                          ``openai.chat.type: "custom"``
``message.tool_calls[j]``, other type     ``CustomPart("openai.chat.tool_call", value=<call>)``
``message.function_call`` (legacy)        ``ToolCallPart(ToolCallId(name), name, input)`` with
                                          ``openai.chat.legacy_function_call: true`` and
                                          ``agentkit.invented_id: true`` (it has no id)
other message fields                      item metadata ``openai.chat.<field>``, sent back
========================================  ====================================================

Parts come in this order: reasoning, content, refusal, audio, tool calls, the
legacy function call.  Fields of a native object that have no neutral slot
ride on the part or item made from it as ``openai.chat.<field>`` (fields of a
nested object as ``openai.chat.<object>.<field>``: ``openai.chat.function.strict``,
``openai.chat.image_url.detail``) and go back where they came from; fields
never seen before included.

Several choices (``n > 1``) are alternative answers to one request: each is
an item, with ``openai.index`` saying which.  A conversation goes on from the
one chosen: ``request_from_items`` sends every item it is given, so passing
them all would send them as consecutive assistant messages.

Tool-call arguments are parsed with the fold's convention: empty text is
``{}``, text that is not JSON gives ``input=None`` with the text and the error
in ``agentkit.input_json`` / ``agentkit.input_error``; text that is valid but
not the compact ``json.dumps`` of the input (whitespace...) is kept in
``openai.chat.arguments`` and sent back byte for byte.  A call that arrives
without an id (some compatible servers) gets an invented ``call_...`` id and
``agentkit.invented_id: true``; a call without a name gets ``""``.

Reasoning.  Chat Completions returns no reasoning of its own and has no
opaque reasoning state, so no part it makes carries ``agentkit.provider``.
OpenAI-compatible servers stream readable reasoning in ``reasoning_content``
or ``reasoning``; the first of the two that holds a string becomes the
``ReasoningPart`` (``reasoning_content`` when both do, as vLLM sends; the other
is carried) and is sent back in that field.  Servers that refuse reasoning in
requests (the first DeepSeek reasoner did) need such parts removed first.

Finish reasons (the raw string is always in ``agentkit.finish_reason``):

=================================  ==============================================
``stop``                           ``COMPLETED``; ``BLOCKED`` when the message is a refusal,
                                   ``TOOL_CALL`` when it calls a tool (OpenAI says
                                   ``stop`` when ``tool_choice`` names the function)
``length``                         ``MAX_TOKENS``
``tool_calls``, ``function_call``  ``TOOL_CALL``
``content_filter``                 ``BLOCKED``
``null`` / absent                  ``ERROR`` (a stream cut short, closed as the
                                   decoder's ``close`` closes it)
anything else                      ``FinishReason.other(<raw>)``
an ``error`` body or stream event  ``BLOCKED`` when its ``code`` is ``content_filter``
(no finish reason)                 (Azure's prompt filter), else ``ERROR``; the code
                                   (``"error"`` when it has none) in
                                   ``agentkit.finish_reason``, the error in ``openai.error``
=================================  ==============================================

Usage: ``input_tokens = prompt_tokens`` (it includes
``prompt_tokens_details.cached_tokens`` and ``cache_write_tokens``),
``cached_input_tokens = cached_tokens``, ``cache_write_input_tokens =
cache_write_tokens``, ``output_tokens = completion_tokens`` (it includes
``completion_tokens_details.reasoning_tokens``), ``reasoning_tokens =
reasoning_tokens``; a breakdown not reported stays ``None``.  The native
object (audio, image and prediction details included) is kept verbatim in
``Usage.metadata["openai.usage"]``.

Streams
-------

A choice's parts open (``BeginPart``) when their field first appears in its
``delta`` and grow as fragments arrive: ``AppendText`` of content, refusal,
reasoning and function-call argument text (so every snapshot's text is a
prefix of the final text); ``AppendBytes`` of the decoded audio; a custom
tool call's input as ``ReplaceStructured`` of the text so far.  An empty
``content`` opens nothing until text comes.  A ``content`` array of typed
entries (Mistral's thinking models: ``thinking`` and ``text`` entries, then
plain strings) accumulates into the list the non-streaming answer holds,
each entry extending the last of its type, part ``content-j`` growing with
entry ``j``.  The fold's
header keys are sent with ``SetMetadata`` as soon as they are known (a call's
id and name, audio's modality and MIME type).  A choice's ``finish_reason``
commits every part of that choice (``CommitPart`` with ``part_id``, decoded
from what accumulated exactly as a response is), a tool call cut off by
``length`` included; so does an ``error`` event, for every choice.  An audio
answer ends at the mark OpenAI ends it with, a delta holding only the audio's
``expires_at`` (and id) after its data (gpt-4o-audio-preview sends no
``finish_reason`` after it): its choice commits there with ``finish_reason: "stop"``, as the
SDKs infer it, unless a later chunk says otherwise.  Content for a choice
after its end is refused.  Part ids are
``part-<choice>-<slot>``, slots ``reasoning``, ``content``, ``refusal``,
``audio``, ``tool-<n>`` (the n-th call to appear) and ``function-call``.
Call fragments merge by ``index``; a fragment that opens a call (an id and
a name) where the index's call has another id starts a new call (Ollama and
LiteLLM's Responses bridge send every parallel call at ``index`` 0), and one
without an index is a whole call.  Other message fields accumulate: strings
concatenate; a list entry that carries an ``index`` continues the last entry
of that index unless it names another ``type`` (OpenRouter's
``reasoning_details``: its text, summary, data and signature grow, its
``type``, ``format`` and ``id`` are repeated, not joined); other entries are
appended.

Usage arrives after the finish reasons, in a last chunk with ``choices: []``
(``stream_options.include_usage``).  The decoder's live ``usage`` is the
latest one reported and ``finish_reason`` the first choice's once known;
``finish()`` uses the latest usage.  Several choices (``n > 1``) share one
decoder and fold: :meth:`ChatStreamDecoder.finish_all` gives one item per
choice, ``finish`` the first choice's, ``items_from_stream`` all of them.
An item's parts come in its message's order (the order above), whatever
order the fold began them in: vLLM and OpenRouter send ``content: ""``
before the reasoning, which still comes first.

Requests (``items_from_request`` / ``request_from_items``)
----------------------------------------------------------

========================================  ====================================================
native message                            neutral
========================================  ====================================================
``system``, ``developer``, ``user``,      SYSTEM, DEVELOPER, USER, ASSISTANT; another role is
``assistant``                             USER with ``openai.chat.role``
``tool``                                  TOOL: ``ToolResultPart(tool_call_id, TextOutput |
                                          PartsOutput)``; a ``name`` (some compatible servers)
                                          also in ``agentkit.tool_name``; its media and files
                                          (OpenRouter, LiteLLM) marked ``openai.chat.in_tool``
``function`` (legacy)                     TOOL: ``ToolResultPart(ToolCallId(name), ...)`` with
                                          ``agentkit.tool_name``, ``agentkit.invented_id`` and
                                          ``openai.chat.legacy_function_call``
``content`` a string                      one ``TextPart`` (a lone text part sent as a list,
                                          or an entry with ``annotations``, keeps
                                          ``openai.chat.type: "text"``)
``text`` / ``refusal`` entries            ``TextPart`` (a refusal entry keeps
                                          ``openai.chat.type: "refusal"``)
``image_url``                             ``MediaPart(IMAGE, mime, data)``: a canonical base64
                                          ``data:`` URL -> ``InlineBytes`` and its MIME type,
                                          any other URL -> ``Uri``
``input_audio``                           ``MediaPart(AUDIO, audio/wav | audio/mpeg |
                                          audio/<format>, InlineBytes)`` (non-canonical base64
                                          stays ``InlineText``)
``file``                                  ``FilePart``: ``file_data`` -> ``InlineBytes`` + MIME
                                          (bare base64 marked ``openai.chat.bare_base64``),
                                          ``file_id`` -> ``Handle``, ``filename`` -> ``name``
any other entry                           ``CustomPart("openai.chat.<type>", value=<entry>)``
assistant ``audio: {"id"}``               ``MediaPart(AUDIO, Handle(id))`` with
                                          ``openai.chat.audio.id``
``content`` null or ``[]`` with nothing   item metadata ``openai.chat.content``
to make parts of
no ``content`` field at all               ``openai.chat.no_content: true`` on the item (no
                                          ``content: null`` is added beside tool calls)
assistant fields that make no part        item metadata ``openai.chat.<field>``, sent back
(``refusal: null``, ``audio: null``,      (a message appended as the SDK parsed it)
``tool_calls: []``...)
a tool call's ``index`` (the message      ``openai.chat.index`` on the call, sent back
of a merged stream)
a tool call without ``type``              ``openai.chat.no_type: true``: sent back without it
a function without ``arguments``, or      input ``{}`` with ``openai.chat.no_arguments: true``
with ``arguments: null``                  or ``openai.chat.arguments: null``: sent back so
                                          while the input is still ``{}``
``annotations``; assistant ``audio``      item metadata ``openai.chat.annotations``; the
with ``data``, ``transcript`` or          audio part as in responses; and the item marked
``expires_at``                            ``openai.chat.echo: true``: all sent back
========================================  ====================================================

Writing back, the encoder reads only its own ``openai.chat.*`` keys and the
``agentkit.*`` ones (never ``openai.*`` informational keys, nor the Responses
API's keys on parts it made).  An assistant audio part with
``openai.chat.audio.id`` becomes ``audio: {"id"}``; refusal parts the
``refusal`` field (or a refusal entry); tool calls are sent with their ids,
invented ones included (Chat pairs results with calls by id and requires it);
an assistant message with tool calls and no content gets ``content: null``
(unless it came from a request without ``content``).
Tool results become ``tool`` messages (``function`` messages when they answer
a legacy call, named from ``agentkit.tool_name`` or the call earlier in the
transcript).  OpenAI's tool messages take text only: the media and files of a result
follow the run of tool messages as one ``user`` message, except those read
from a tool message (``openai.chat.in_tool``), which go back there.

Dropped on purpose: ``ReasoningPart`` that carries ``agentkit.provider``
(another provider's opaque state: Anthropic signatures, Responses encrypted
reasoning, Gemini thought signatures) or did not come from a Chat reasoning
field; other providers' ``CustomPart``; media and files in assistant
messages (Chat takes none); ``ToolResultPart.is_error`` (no such flag);
response-only data (annotations, audio data, transcript and expiry) of an
answer decoded from a response, as a client that builds its next request
by hand does (an item with ``openai.chat.echo`` came from a request that
sent them, and sends them again).  A message with nothing left to send is
left out.  Refused with ``NormalizeError``: video or other binary media, an
image held as an artifact handle, a file given by a non-``data:`` URL.

Tools
-----

=========================================  ==================================================
``tools[]`` ``{"type": "function",         ``ToolSpec(name, description, parameters)``; other
"function": {...}}``                       fields in ``openai.chat.<field>`` (``strict``...)
other ``tools[]`` (``custom``, ...)        the native dict, verbatim
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

* Opaque state.  Chat Completions keeps no opaque state, so this module marks
  none, and every marked part is another provider's.  Readable reasoning came
  from this API when it holds ``openai.chat.reasoning_field``, the field a
  compatible server sent it in.

* Namespaces.  The encoder writes back only ``openai.chat.*`` metadata and
  custom parts.

* Finish reasons.  A choice whose message is a refusal ends ``BLOCKED``, and
  one that calls a tool ``TOOL_CALL``, although its raw reason is ``stop``.

* Tool names.  A legacy ``function`` message takes its ``name`` from
  ``agentkit.tool_name``, or from the call earlier in the transcript.

* Invented ids.  Chat Completions needs ids: invented ones are sent.  This
  module invents one for a call that arrives without (``call_`` and 24 hex
  digits), and a legacy ``function_call``, which has none, is known by its name.

* Extras.  :func:`finish_reason` reads a ``finish_reason``,
  :func:`usage_from_native` a ``usage`` object; :class:`ChatStreamDecoder` is
  what :func:`stream_decoder` makes: ``finish_all(parts)`` gives one item per
  choice (``finish`` the first choice's) and ``response()`` the
  ``chat.completion`` body the chunks so far add up to.
"""

from __future__ import annotations

from typing import Any, Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._response import finish_reason, items_from_response, usage_from_native
from ._request import items_from_request, request_from_items
from ._stream import ChatStreamDecoder, stream_decoder
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
    "ChatStreamDecoder",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)


# -- responses and streams ----------------------------------------------------------------------


def items_from_stream(events: Iterable[Any]) -> list[Item]:
    """Decode and fold a whole stream of parsed chunks: one item per choice.

    A choice the events leave without its ``finish_reason`` (a stream cut
    short) is closed as the decoder's ``close`` closes it, with ``ERROR``.
    """
    return fold_stream(ChatStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
