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
a raw finish reason alone means) and ``usage_from_native(usage)`` (a native
usage object as :class:`~agentkit_core.Usage`).  Every stream decoder has
``feed(event)``, ``finish(parts)``, ``finish_all(parts)`` (every item of the
stream: one per choice or candidate where there can be several) and the live
``usage`` and ``finish_reason``.  Each module opens with its mapping table as
its docstring and ends with the rules every projection keeps, said the same
way in all four (whose opaque state is sent, which metadata is written back,
raw finish reasons, tool names, invented ids, errors).  None does I/O, and none
is imported until you import it: ``import agentkit_core`` loads no provider,
and this package loads none either.  They use only the public names of
:mod:`agentkit_core`.

Each takes what users hold as well as raw bodies: the official SDKs' objects
(by duck typing: ``model_dump()``, ``to_dict()``, ``to_json_dict()``; no SDK
is imported) and their dumps, and refuses another provider's body with a
:class:`~agentkit_core.NormalizeError` naming what it looks like;
:func:`detect` says whose a body is.
"""

from __future__ import annotations

__all__ = ("detect",)


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
    from ._common.detect import sniff
    from ._common.held import dumped

    found = sniff(value if type(value) is dict else dumped(value, quiet=True))
    return None if found is None else found.module
