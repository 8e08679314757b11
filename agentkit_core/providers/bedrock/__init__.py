"""Amazon Bedrock's Converse API <-> agentkit_core: pure functions, no I/O (but the credentials a request is signed with).

The decoders and encoders are pure functions (native bodies, events and
boto3's answers in, items and parts out, and back), ``http_request`` builds a
request value, signed with AWS Signature Version 4, and ``complete`` sends
it.  How each content block, message, response field and stream event maps
onto the neutral values is tabulated in ``docs/bedrock.md``; in short:

==========================================  ===========================================================
native                                      neutral
==========================================  ===========================================================
``{"text": t}``                             ``TextPart(t)``
``{"image": {format, source}}``             ``MediaPart(IMAGE, image/<format>, bytes or s3:// Uri)``
``{"video": ...}``, ``{"document": ...}``   ``MediaPart(VIDEO, ...)``, ``FilePart(data, name, mime)``
``{"toolUse": {toolUseId, name, input}}``   ``ToolCallPart``
``{"toolResult": {toolUseId, content,       ``ToolResultPart`` (one text block: ``TextOutput``; one ``json``:
status}}``                                  ``StructuredOutput``; else ``PartsOutput``); ``status: error``
                                            is ``is_error``
``{"reasoningContent": {"reasoningText":    ``ReasoningPart(text, InlineText(signature))``, or redacted
{text, signature}}}``, ``redactedContent``  (``InlineText`` of the base64), ``agentkit.provider: "bedrock"``
``{"cachePoint": ...}``, any other block    ``CustomPart("bedrock.<key>", value=block)``, sent back as it came
``system``                                  one SYSTEM item; ``role`` user / assistant -> USER (TOOL when
                                            it holds a ``toolResult``) / ASSISTANT
``stopReason``                              finish reason (``end_turn``, ``stop_sequence``: COMPLETED;
                                            ``tool_use``; ``max_tokens``; ``guardrail_intervened``,
                                            ``content_filtered``: BLOCKED); raw in ``agentkit.finish_reason``
``usage``                                   ``Usage`` (input counts cache reads and writes)
``metrics``, ``additionalModelResponse-     ``bedrock.<field>`` item metadata (``bedrock.metrics``:
Fields``, ``trace``, ...                    ``{"latencyMs": ...}``)
==========================================  ===========================================================

Settings and whole turns
------------------------

``settings=`` (a :class:`~agentkit_core.ModelSettings`) is written into
``inferenceConfig`` (and Anthropic's thinking budget into
``additionalModelRequestFields``) as ``_settings`` tabulates them;
:func:`settings_from_request` reads them back.  :func:`complete` and
:func:`acomplete` run a whole turn; the stream is AWS's binary event stream
(:func:`events_from_eventstream`), an exception in it a
:class:`~agentkit_core.http.ProviderError`.

How this module keeps the shared rules
--------------------------------------

The rules every projection keeps are written once, in :mod:`agentkit_core.providers`;
what they mean here:

* Opaque state.  This module marks its own ``"bedrock"`` (reasoning text with
  its signature, redacted content); only its own marked reasoning is sent.

* Namespaces.  The encoder writes back only ``bedrock.*`` metadata and custom parts.

* Finish reasons.  The raw reason and the item's agree but for an exception
  that ended a stream (``"error"`` is ``ERROR``).

* Tool names.  The encoder does not need ``agentkit.tool_name``: a
  ``toolResult`` answers its call by ``toolUseId``.

* Invented ids.  Converse needs ids: invented ones are sent.  This module
  never invents one.

* Extras.  :func:`finish_reason` reads a ``stopReason``,
  :func:`usage_from_native` a ``usage`` object; :class:`BedrockStreamDecoder`
  is what :func:`stream_decoder` makes, and its ``finish_all(parts)`` is
  ``[finish(parts)]`` (``close_all`` is ``[close(...)]``), a stream holding one message.
"""

from __future__ import annotations

from typing import Iterable

from ... import Item
from ...http import events_from_eventstream
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._complete import acomplete, astream, complete, stream
from ._http import http_request
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._settings import settings_from_request
from ._stream import BedrockStreamDecoder, stream_decoder
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
    "events_from_eventstream",
    "finish_reason",
    "usage_from_native",
    "BedrockStreamDecoder",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)


def items_from_stream(events: Iterable[object]) -> list[Item]:
    """Decode and fold a whole stream of events (boto3's, or :func:`events_from_eventstream`'s): the item
    :func:`items_from_response` gives for the same message.

    A stream cut short (no ``messageStop``) still gives its item, closed as
    the decoder's ``close`` closes it, with ``FinishReason.ERROR``.
    """
    return fold_stream(BedrockStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
