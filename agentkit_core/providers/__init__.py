"""Provider projections: pure functions between native API traffic and agentkit values.

One module per provider API, each with the same functions, so code switches
providers by switching the module:

* :mod:`.anthropic`: the Anthropic Messages API;
* :mod:`.openai_chat`: OpenAI Chat Completions;
* :mod:`.openai_responses`: the OpenAI Responses API;
* :mod:`.gemini`: Gemini ``generateContent`` / ``streamGenerateContent``.

Every module has ``items_from_response(body)``, ``items_from_request(body)``,
``request_from_items(items)``, ``stream_decoder()``, ``items_from_stream(events)``
and ``events_from_sse(text)``, and, besides them, ``finish_reason(raw)`` (what
a raw finish reason alone means), ``usage_from_native(usage)`` (a native
usage object as :class:`~agentkit_core.Usage`) and ``http_request(items,
model=...)`` (the whole request, URL, headers and body, as the
:class:`~agentkit_core.http.Request` that :func:`agentkit_core.http.send` sends).  Every stream decoder has
``feed(event)``, ``finish(parts)``, ``close(parts, reason)`` (a turn stopped
before it finished), ``finish_all(parts)`` and ``close_all(parts, reason)``
(every item of the stream: one per choice or candidate where there can be
several) and the live ``usage`` and ``finish_reason``.  Each module's mapping table is a page of
``docs/`` (``docs/anthropic.md``...), and its docstring says how it keeps the rules below, the rules every
projection keeps (whose opaque state is sent, which metadata is written back,
raw finish reasons, tool names, invented ids, errors).  Only ``complete`` sends, and none
is imported until you import it: ``import agentkit_core`` loads no provider,
and this package loads none either.  They use only the public names of
:mod:`agentkit_core`.

:data:`PROVIDERS` lists them, one :class:`ProviderInfo` row each (module,
display and OpenTelemetry names, key variables, command-line spelling, base
URL), and :func:`capabilities` says what an API can take and give: the
portable settings it has fields for, its effort levels, the part kinds a
request carries and an answer holds, and whether it runs server tools.

Providers by name: :func:`complete`, :func:`acomplete`, :func:`stream`,
:func:`astream` and :func:`http_request` here take ``model="<provider>:<model>"``
(``"groq:llama-3.3-70b-versatile"``, ``"ollama:llama3.2"``,
``"azure:my-deployment"``) and the modules' keyword arguments.  Each name is
an :class:`Endpoint` row of :data:`ENDPOINTS`: the four wires, and the
presets (:data:`PRESETS`), servers that speak a wire (an OpenAI-compatible
server speaks Chat Completions), with their base URL, key variables and
what they read differently.  ``complete()`` reads the key and the base URL
from the environment when they are not given; ``http_request`` reads none.

>>> from agentkit_core.providers import capabilities, provider_info
>>> sorted(capabilities("anthropic").parts_out)
['Custom', 'Reasoning', 'Text', 'ToolCall']
>>> capabilities("openai-chat").server_tools, provider_info("gemini").base_url
(False, 'https://generativelanguage.googleapis.com/v1beta')

Each takes what users hold as well as raw bodies: the official SDKs' objects
(by duck typing: ``model_dump()``, ``to_dict()``, ``to_json_dict()``; no SDK
is imported) and their dumps, and refuses another provider's body with a
:class:`~agentkit_core.NormalizeError` naming what it looks like;
:func:`detect` says whose a body is.

The rules every projection keeps
--------------------------------

Written once here; each module says, under the same headings, what the rule
means for its API (which parts it marks, what its encoder needs).

* Opaque state.  ``agentkit.provider`` marks every part holding a provider's
  opaque reasoning state with that provider's name; a module marks its own
  (Chat Completions keeps none, so it marks none).  The encoder sends its own
  provider's state and drops every other provider's, which its API would
  refuse.  Reasoning without ``agentkit.provider`` holds no opaque state: it is
  sent only when it came from the encoder's API, and dropped otherwise.

* Namespaces.  The encoder writes back only its own provider's metadata and
  custom parts, and reads no other provider's: ``anthropic.*`` is Anthropic's,
  ``gemini.*`` Gemini's, ``openai.chat.*`` Chat Completions', and every other
  ``openai.*`` key the Responses API's.

* Finish reasons.  ``agentkit.finish_reason`` holds the raw finish reason on
  every assistant item that has one (when an error the provider reported ended
  the turn, ``"error"`` or the error's own code); :func:`finish_reason` says
  what a raw reason alone means.  An item's ``finish_reason`` may say more than
  its raw reason does (a turn that calls a tool), as each module tells.

* Tool names.  ``agentkit.tool_name`` is on every tool result of a request
  that names its tool or answers a call made earlier in the same request.  An
  encoder whose API names the tool of a result takes the name from it, or from
  the call earlier in the transcript.

* Invented ids.  ``agentkit.invented_id`` marks an id the adapter made up.  An
  encoder whose API needs an id on every call sends invented ids as it sends
  any other, so a call and its result stay linked; one whose API accepts calls
  without ids withholds them.

* Errors.  Public functions raise only :class:`~agentkit_core.NormalizeError`
  for input they cannot take, naming the bad field; ``request_from_items``
  names the part it refuses (``items[i].parts[j]``).

* Extras.  Besides the six functions of every projection: :func:`finish_reason`
  (a raw finish reason), :func:`usage_from_native` (a native usage object) and
  the stream decoder's class, what ``stream_decoder()`` makes, public under
  the provider's name (``AnthropicStreamDecoder``...).
"""

from __future__ import annotations

from types import ModuleType as _ModuleType
from typing import TYPE_CHECKING

from .._for_providers import (
    ENDPOINTS,
    PRESETS,
    PROVIDERS,
    STREAM_FORMATS,
    Capabilities,
    Endpoint,
    ProviderInfo,
    capabilities,
    endpoint,
    provider_info,
)

if TYPE_CHECKING:
    from ._by_name import acomplete, astream, complete, http_request, stream
    from ._common.complete import AsyncTurnStream, TurnStream

__all__ = ("complete", "acomplete", "stream", "astream", "http_request", "detect", "capabilities", "provider_info", "endpoint", "Capabilities",
           "ProviderInfo", "Endpoint", "PROVIDERS", "STREAM_FORMATS", "PRESETS", "ENDPOINTS", "TurnStream", "AsyncTurnStream")

#: The functions by name, loaded from ``_by_name`` on first use (importing this package loads no provider).
_BY_NAME = ("complete", "acomplete", "stream", "astream", "http_request")


def __getattr__(name: str) -> object:
    """:func:`complete`, :func:`acomplete`, :func:`stream`, :func:`astream` and :func:`http_request` by name, loaded on
    first use (then plain attributes)."""
    if name in _BY_NAME:
        from ._by_name import acomplete, astream, complete, http_request, stream

        functions = {"complete": complete, "acomplete": acomplete, "stream": stream, "astream": astream,
                     "http_request": http_request}
        globals().update(functions)
        return functions[name]
    if name in ("TurnStream", "AsyncTurnStream"):  # what every provider's stream() and astream() return
        from ._common import complete as driver

        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect(value: object) -> str | None:
    """Which projection reads ``value``, judged by its shape alone: ``"anthropic"``, ``"openai_chat"``,
    ``"openai_responses"``, ``"gemini"``, or ``None`` for anything else.

    Recognises the requests, responses and stream events (or chunks) of the
    four APIs, parsed or as an SDK's object; no field is trusted to name its
    provider.  A request holding only ``messages`` (either API's) is taken
    for Chat Completions', or Anthropic's when it has ``max_tokens``.  It only
    looks, and never raises; the projections refuse a body it gives to
    another provider.  Loads no projection.

    >>> from agentkit_core.providers import detect
    >>> detect({"type": "message", "role": "assistant", "content": []})
    'anthropic'
    >>> detect({"candidates": []}), detect({"object": "chat.completion.chunk"}), detect({})
    ('gemini', 'openai_chat', None)
    """
    from .._for_providers import sniff
    from ._common.held import dumped

    found = sniff(value if type(value) is dict else dumped(value, quiet=True))
    return None if found is None else found.module


def __dir__() -> list[str]:
    """The public names only: ``__all__`` and the public submodules imported so far (no private module or helper)."""
    return [*__all__, *(name for name, value in globals().items() if type(value) is _ModuleType and name[0] != "_")]
