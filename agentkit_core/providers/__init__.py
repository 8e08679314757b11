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
``feed(event)``, ``finish(parts)``, ``finish_all(parts)`` (every item of the
stream: one per choice or candidate where there can be several) and the live
``usage`` and ``finish_reason``.  Each module opens with its mapping table as
its docstring and ends with the rules every projection keeps, said the same
way in all four (whose opaque state is sent, which metadata is written back,
raw finish reasons, tool names, invented ids, errors).  None does I/O, and none
is imported until you import it: ``import agentkit_core`` loads no provider,
and this package loads none either.  They use only the public names of
:mod:`agentkit_core`.
"""
