"""Gemini ``generateContent`` / ``streamGenerateContent`` <-> agentkit values.

The decoders and encoders are pure functions (native bodies, events and SDK objects in,
items and parts out, and back), ``http_request`` builds a request value, and ``complete``
sends it.  How each native block, message, response field, stream event and tool maps
onto the neutral values is tabulated in ``docs/gemini.md``.

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

from typing import Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._complete import acomplete, astream, complete, stream
from ._http import http_request
from ._keys import SKIP_SIGNATURE, NewCallId
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._settings import settings_from_request
from ._stream import GeminiStreamDecoder, stream_decoder
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


def items_from_stream(events: Iterable[object], *, new_call_id: NewCallId | None = None) -> list[Item]:
    """Decode and fold a whole stream: one item per candidate (a candidate cut short is closed as ``ERROR``)."""
    return fold_stream(GeminiStreamDecoder(new_call_id), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
