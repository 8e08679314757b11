"""OpenAI Chat Completions <-> agentkit values.

The decoders and encoders are pure functions (native bodies, events and SDK objects in,
items and parts out, and back), ``http_request`` builds a request value, and ``complete``
sends it.  How each native block, message, response field, stream event and tool maps
onto the neutral values is tabulated in ``docs/openai_chat.md``.

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
  ``chat.completion`` body the chunks so far add up to.  :func:`items_from_messages`
  and :func:`messages_from_items` read and write a ``messages`` list as it is,
  without the body around it (only this API keeps its transcript as a bare
  list; ``tests/test_public_surface.py`` lists a provider's own functions).
"""

from __future__ import annotations

from typing import Iterable

from ... import Item, JsonValue, NormalizeError
from ..._for_providers import describe
from .._common.sending import exported
from .._common.streams import events_from_sse, fold_stream
from ._complete import acomplete, astream, complete, stream
from ._http import http_request
from ._request import items_from_request, request_from_items
from ._response import finish_reason, items_from_response, usage_from_native
from ._settings import settings_from_request
from ._stream import ChatStreamDecoder, stream_decoder
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
    "items_from_messages",
    "messages_from_items",
)

exported(__name__, http_request, items_from_request, request_from_items, complete, acomplete, settings_from_request,
         items_from_response, stream_decoder, stream, astream)


# -- responses and streams ----------------------------------------------------------------------


def items_from_stream(events: Iterable[object]) -> list[Item]:
    """Decode and fold a whole stream of parsed chunks: one item per choice.

    A choice the events leave without its ``finish_reason`` (a stream cut
    short) is closed as the decoder's ``close`` closes it, with ``ERROR``.
    """
    return fold_stream(ChatStreamDecoder(), events)


# -- a messages list as it is (this API's own extra: other APIs hold their transcript beside other fields) ---------------


def items_from_messages(messages: object) -> list[Item]:
    """A Chat Completions ``messages`` list, as it is (no ``{"messages": ...}`` around it) -> one item per message.

    :func:`items_from_request` of ``{"messages": messages}``; errors name the
    message from the list (``[3].tool_calls[0].id``).  Raises
    :class:`NormalizeError` for what is no list of Chat messages, and for
    another API's messages, naming what they look like.
    """
    if not isinstance(messages, (list, tuple)):
        found = "a request body (items_from_request reads one)" if isinstance(messages, dict) else describe(messages)
        raise NormalizeError(f"expected a list of Chat Completions messages, found {found}")
    try:
        return items_from_request({"messages": list(messages)})
    except NormalizeError as exc:
        path = exc.path[8:] if exc.path.startswith("messages") else exc.path
        message = exc.message.replace("an OpenAI Chat Completions request", "OpenAI Chat Completions messages", 1)
        raise NormalizeError(message, path) from None


def messages_from_items(items: Iterable[Item]) -> list[JsonValue]:
    """Items -> a Chat Completions ``messages`` list: ``request_from_items(items)["messages"]``, the list alone."""
    messages: list[JsonValue] = request_from_items(items)["messages"]
    return messages


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
