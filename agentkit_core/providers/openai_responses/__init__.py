"""The OpenAI Responses API (``POST /v1/responses``) <-> agentkit values.

The decoders and encoders are pure functions (native bodies, events and SDK objects in,
items and parts out, and back), ``http_request`` builds a request value, and ``complete``
sends it.  How each native block, message, response field, stream event and tool maps
onto the neutral values is tabulated in ``docs/openai_responses.md``.

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

from typing import Iterable

from ... import Item
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._complete import acomplete, astream, complete, stream
from ._http import http_request
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._settings import settings_from_request
from ._stream import ResponsesStreamDecoder, stream_decoder
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


def items_from_stream(events: Iterable[object]) -> list[Item]:
    """A whole stream of events (``*.stream.jsonl`` lines, or :func:`events_from_sse` of a body) -> its items."""
    return fold_stream(ResponsesStreamDecoder(), events)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
