"""Gemini ``generateContent`` / ``streamGenerateContent`` <-> agentkit values.

Parts (the same table in responses, streams, requests and ``functionResponse.parts``)
------------------------------------------------------------------------------------

==========================================  ===============================================================
native ``Part``                             neutral part
==========================================  ===============================================================
``text``                                    ``TextPart(text)``
``text`` with ``thought: true``             ``ReasoningPart(text)`` with ``gemini.thought: true``
``inlineData`` image/audio/video            ``MediaPart(modality, mimeType, InlineBytes(decoded))``
``inlineData`` other MIME types             ``FilePart(InlineBytes(decoded), mime_type=mimeType, name=displayName)``
``fileData`` image/audio/video              ``MediaPart(modality, mimeType, Uri(fileUri))``
``fileData`` other or no MIME type          ``FilePart(Uri(fileUri), mime_type=mimeType, name=displayName)``
``functionCall``                            ``ToolCallPart(ToolCallId(id), name, args)`` (id: see below)
``functionResponse``                        ``ToolResultPart(call_id, output)``, ``agentkit.tool_name`` = ``name``;
                                            ``response`` alone -> ``StructuredOutput(response)``; with
                                            ``parts`` -> ``PartsOutput((StructuredPart(response), *parts))``;
                                            ``is_error`` when ``response`` holds only ``error``
``executableCode``, ``codeExecutionResult`` ``CustomPart("gemini.executableCode" | "gemini.codeExecutionResult",
                                            value=<the part>)``: code the *server* ran, not a call for the loop
``toolCall``, ``toolResponse``, unknown     ``CustomPart("gemini.<field>", value=<the part>)``, as are parts
parts, parts holding several data fields,   this table cannot map (a ``text`` that is not a string, base64
malformed data                              that is not canonical...)
``thoughtSignature`` (on any part)          ``gemini.thought_signature`` (the exact string) and
                                            ``agentkit.provider: "gemini"`` on the part it came on
any other field of a part                   ``gemini.<field>`` (``videoMetadata``, ``mediaResolution``,
                                            ``partMetadata``, ``audioTranscription``, ``thought: false``...)
other fields of ``inlineData`` /            ``gemini.inlineData.<field>``, ``gemini.fileData.<field>``,
``fileData`` / ``functionCall`` /           ``gemini.functionCall.<field>`` (``partialArgs``, ``willContinue``),
``functionResponse``                        ``gemini.functionResponse.<field>`` (``willContinue``, ``scheduling``)
==========================================  ===============================================================

Custom parts keep the whole native part except its signature, in the
spelling it came in.  Markers steer the rebuild and are never sent as
fields: ``gemini.snake_case`` (the consumed fields the client spelled in
snake_case, as camelCase paths: ``["inlineData", "inlineData.mimeType"]``;
python-genai sends such mixes), ``gemini.omitted`` (native fields that were
absent although the part has a value: ``functionCall.args`` -> ``{}``,
``functionResponse.response`` -> ``{}``, ``thoughtSignature`` -> the
placeholder (see Requests); on an item, ``role``) and
``gemini.base64: "urlsafe"`` (inline data sent in URL-safe base64).

Function-call ids.  ``functionCall.id`` is optional (Gemini 2.x and most
streams leave it out).  Decoding a response or a stream calls
``new_call_id()`` once for each call without an id and uses what it returns
as the call's id, sent back like an id the server chose.  Without
``new_call_id`` the adapter invents an id (``call_`` + 24 hex digits) and
marks the call ``agentkit.invented_id: true``: an invented id is never sent.
:func:`items_from_request` always invents, and gives each ``functionResponse``
without an id the id of the call it answers (the first unanswered call of
that ``name``, in conversation order), marked invented too.

Contents and items
------------------

* ``systemInstruction`` (or ``system_instruction``) -> one SYSTEM item.
* ``role: "model"`` -> ASSISTANT; any other role (``"user"``, the legacy
  ``"function"``, none) -> USER, or TOOL when the content holds a
  ``functionResponse``: its parts keep the native order, so text sent with the
  results stays in place.
* Fields of a content are item metadata ``gemini.content.<field>``
  (``gemini.content.role``: the role as sent); a content without ``role``
  has the item marker ``gemini.omitted: ["role"]``.

Responses
---------

=======================================  ===========================================================
native field                             neutral field
=======================================  ===========================================================
``candidates[i]``                        one ASSISTANT item each (``n > 1``: in ``index`` order)
``candidates[i].content``                ``Item.parts`` (table above); ``role`` -> ``gemini.content.role``
                                         (an empty part ``{}``, which image models send and
                                         the API refuses back, is no part; a request keeps it)
``candidates[i].finishReason``           ``Item.finish_reason`` (below); verbatim in ``agentkit.finish_reason``
other candidate fields                   item metadata ``gemini.<field>``: ``index``, ``safetyRatings``,
                                         ``citationMetadata``, ``groundingMetadata``, ``finishMessage``,
                                         ``avgLogprobs``, ``logprobsResult``, ``urlContextMetadata``...
``responseId``                           ``Item.id`` (``MessageId``), on every candidate's item
``createTime``                           ``Item.created_at`` (milliseconds) and, verbatim, ``gemini.createTime``
``usageMetadata``                        ``Item.usage`` of the first item only (it covers every candidate)
other response fields                    item metadata ``gemini.<field>``: ``modelVersion``,
                                         ``promptFeedback``, ``modelStatus``... (a candidate field
                                         of the same name wins)
no candidates                            one ASSISTANT item without parts; ``promptFeedback.blockReason``
                                         (a prompt blocked before generation) -> ``BLOCKED``, the reason
                                         in ``agentkit.finish_reason``; an error body (``{"error":
                                         {...}}``) -> ``ERROR``
=======================================  ===========================================================

Usage (``agentkit_core.usage`` conventions; the native object verbatim in
``Usage.metadata["gemini.usage"]``, per-modality details included):
``input_tokens = promptTokenCount + toolUsePromptTokenCount`` (the prompt
includes ``cachedContentTokenCount``; tool-use prompts, such as code
execution output read back, are input the model reads and are billed as
input), ``cached_input_tokens = cachedContentTokenCount``,
``output_tokens = candidatesTokenCount + thoughtsTokenCount`` (candidates
exclude thoughts), ``reasoning_tokens = thoughtsTokenCount``.  So
``total_tokens == totalTokenCount``.  A breakdown not reported stays ``None``.

Finish reasons:

================================================================  ===================================
``finishReason`` / ``blockReason``                                ``FinishReason``
================================================================  ===================================
``STOP``                                                          ``COMPLETED``; ``TOOL_CALL`` when the
                                                                  candidate holds a ``functionCall``
``MAX_TOKENS``                                                    ``MAX_TOKENS``
``SAFETY``, ``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``,  ``BLOCKED``
``SPII``, ``IMAGE_SAFETY``, ``IMAGE_PROHIBITED_CONTENT``,
``IMAGE_RECITATION``, ``MODEL_ARMOR``; any ``blockReason``
``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``,             ``ERROR``
``TOO_MANY_TOOL_CALLS``, ``MISSING_THOUGHT_SIGNATURE``,
``MALFORMED_RESPONSE``; an error body or a stream's ``error``
chunk (raw ``"error"``, the error in ``gemini.error``)
``LANGUAGE``, ``OTHER``, ``NO_IMAGE``, ``IMAGE_OTHER``,             ``FinishReason.other(raw)``
``FINISH_REASON_UNSPECIFIED``, anything else
absent (a stream cut short)                                       ``ERROR``, as the decoder's ``close`` closes it
================================================================  ===================================

Streams
-------

Chunks have no part boundaries.  A text part opens with its first chunk and
grows by ``AppendText``; a new part opens when the kind changes (``thought``
flips) or when a chunk's ``thoughtSignature`` cannot belong to the open part:
it joins the open part only when that part has no signature yet and one of
the two has no text (Gemini 3 may send an answer's signature in a last chunk
with empty text; the first answer chunk of Gemini 2.5 opens a part).  A chunk
holding only ``{"text": ""}`` opens no part (Gemini 3 ends a stream whose
answer is a call with one; clients send the turn back without it).  Any other part (a ``functionCall``, media, code, unknown)
arrives whole: ``BeginPart``, the fold's header keys, ``CommitPart``, and it
closes the open text part.  Part ids are ``part-<candidate>-<n>``.  The chunk
with a ``finishReason`` commits every part of its candidate; the decoder keeps
the latest ``usageMetadata`` snapshot (``usage``, live) and the finish reason
(``finish_reason``, live, of the first candidate).  A chunk with a
``promptFeedback.blockReason`` ends the stream: it commits every part, and a
candidate without a finish reason ends ``BLOCKED``.  Response and candidate
fields of later chunks overwrite earlier ones.  A stream folds to the item the
non-streaming response holding the same content gives.  ``partialArgs`` function-call fragments (Vertex AI's
``streamFunctionCallArguments``) are reassembled: the chunk with the call's
``name`` and ``willContinue: true`` begins a TOOL_CALL part (header only);
the next chunks' ``partialArgs`` set values by JSON path (a string continued
with ``willContinue`` is joined); the first chunk whose ``functionCall`` does
not say ``willContinue`` (or the finish chunk, or any other part) commits the
call the non-streaming response would hold (``name`` + ``args``).

Requests (``request_from_items``)
---------------------------------

SYSTEM and DEVELOPER items -> ``systemInstruction`` (one content, parts in
order; written with its original spelling and role); ASSISTANT -> ``role:
"model"``, every other kind -> ``role: "user"`` (``gemini.content.role`` wins),
one content per item; a content whose parts all drop is left out.  Gemini
wants a turn's parallel calls in one content and all their results in the
next (it refuses a count that differs), while other transcripts may hold one
call or one result per item (Chat's tool messages, the Responses API's
items, a loop's one item per result): an ASSISTANT or TOOL item that did not
come from Gemini joins the content of the item before it when that item is
of the same kind (a dropped or SYSTEM item in between does not count).  Ids
go back as the transcript holds them, except invented ones; a
``functionResponse`` takes its ``name`` from ``agentkit.tool_name`` or from the
call earlier in the transcript (``NormalizeError`` when neither exists), and
drops its id when the call's id was invented.  ``StructuredOutput`` that is
not an object, and ``TextOutput``, go as ``{"output": ...}`` (``{"error":
...}`` when ``is_error``); a ``PartsOutput`` that does not start with an object
``StructuredPart`` as ``{"output": <its text>}`` plus its media as ``parts``,
``FilesOutput`` as ``{}`` plus its files.  ``StructuredPart`` goes as JSON text.

Foreign state.  Whose a part is: its ``agentkit.provider`` when set, else
Gemini's when it has ``gemini.*`` metadata.  A ``gemini.thought_signature`` is
sent only on Gemini's parts.  Reasoning that is not Gemini's (Anthropic
thinking, OpenAI encrypted reasoning, neutral summaries) and other providers'
custom parts are dropped: Gemini cannot verify them.  The first
``functionCall`` of every model content gets, unless it has a signature, the
documented placeholder signature ``skip_thought_signature_validator``
(:data:`SKIP_SIGNATURE`), which Gemini 3 requires on every step of the
current turn and earlier models accept: calls of other providers, and
Gemini 2.x calls that came without one (clients send them so).  A call a
request held without a signature goes back without (:func:`items_from_request`
marks it ``gemini.omitted: ["thoughtSignature"]``).
Artifact handles cannot be sent (``NormalizeError``).

Tools
-----

=========================================  ==================================================
``tools[].functionDeclarations[]``         ``ToolSpec(name, description, parametersJsonSchema
                                           or parameters)``; other fields in ``gemini.<field>``
other ``tools[]`` (``googleSearch``, ...)  the native dict, verbatim
``toolConfig.functionCallingConfig.mode``  ``ToolChoice.auto()`` / ``none()`` / ``required()``;
``AUTO`` / ``NONE`` / ``ANY``; ``ANY``     ``tool(name)`` (Gemini has no ``parallel``: it is
with one ``allowedFunctionNames``          not written)
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

* Opaque state.  This module marks its own ``"gemini"`` (every part that came
  with a ``thoughtSignature``).  A part came from this API when it holds
  ``gemini.*`` metadata (a ``thought`` part does); an unsigned thought summary
  is sent back as it came.

* Namespaces.  The encoder writes back only ``gemini.*`` metadata and custom
  parts.

* Finish reasons.  A candidate holding a ``functionCall`` ends ``TOOL_CALL``
  although its raw reason is ``STOP``, and a prompt blocked before generation
  ``BLOCKED`` whatever its ``blockReason`` (so does a candidate without a
  finish reason when the response has one).

* Tool names.  The encoder needs ``agentkit.tool_name``: a
  ``functionResponse`` takes its ``name`` from it, or from the call earlier in
  the transcript.

* Invented ids.  Gemini accepts calls without ids: invented ones are withheld,
  from the call and from the results that answer it, which Gemini then matches
  by name and order.  This module invents one for every call that arrives
  without, unless ``new_call_id`` names it.

* Extras.  :func:`finish_reason` reads a ``finishReason``,
  :func:`usage_from_native` a ``usageMetadata`` object; also
  :data:`SKIP_SIGNATURE` and the ``new_call_id`` keyword of
  :func:`items_from_response`, :func:`stream_decoder` and
  :func:`items_from_stream`.  :class:`GeminiStreamDecoder` is what
  :func:`stream_decoder` makes: ``finish_all(parts)`` gives one item per
  candidate (``finish`` the first candidate's).
"""

from __future__ import annotations

from typing import Any, Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._response import finish_reason, items_from_response, usage_from_native
from ._keys import SKIP_SIGNATURE, NewCallId
from ._request import items_from_request, request_from_items
from ._stream import GeminiStreamDecoder, stream_decoder
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
    "GeminiStreamDecoder",
    "SKIP_SIGNATURE",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)


# -- responses and streams ----------------------------------------------------------------


def items_from_stream(events: Iterable[Any], *, new_call_id: NewCallId | None = None) -> list[Item]:
    """Decode and fold a whole stream: one item per candidate (a candidate cut short is closed as ``ERROR``)."""
    return fold_stream(GeminiStreamDecoder(new_call_id), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
