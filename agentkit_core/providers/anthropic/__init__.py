"""The Anthropic Messages API <-> agentkit_core: pure functions, no I/O.

The decoders and encoders are pure functions (native bodies, events and SDK objects in,
items and parts out, and back), ``http_request`` builds a request value, and ``complete``
sends it.  How each native block, message, response field, stream event and tool maps
onto the neutral values is tabulated in ``docs/anthropic.md``.

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

from typing import Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._complete import acomplete, astream, complete, stream
from ._http import http_request
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._settings import settings_from_request
from ._stream import AnthropicStreamDecoder, stream_decoder
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
    "AnthropicStreamDecoder",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)

# -- responses and streams --------------------------------------------------------------


def items_from_stream(events: Iterable[object]) -> list[Item]:
    """Decode and fold a whole stream of events: the item :func:`items_from_response` gives for its message.

    A stream cut short (no ``message_stop``) still gives its item, closed as
    the decoder's ``close`` closes it, with ``FinishReason.ERROR``.
    """
    return fold_stream(AnthropicStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
