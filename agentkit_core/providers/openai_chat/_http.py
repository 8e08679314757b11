"""The OpenAI Chat Completions request: ``POST {base_url}/chat/completions`` (pure, no I/O)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ... import Item, JsonValue, ModelSettings
from ..._for_providers import provider_info
from ...http import Request
from .._common.sending import checked_model, endpoint, extra_headers, json_request, key_header, request_body
from .._common.tools import Choice, Tools
from ._request import kept_request
from ._settings import checked_body, fields_of

__all__ = ("http_request", "BASE_URL")

BASE_URL = provider_info("openai_chat").base_url


def http_request(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = False,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    **native: Any,
) -> Request:
    """The request for a turn on ``items``: ``Authorization: Bearer <api_key>``, a JSON body.

    The body is ``model``, the messages and tools :func:`request_from_items`
    writes, then the settings' and the native fields.  With ``stream``:
    ``"stream": true`` and ``"stream_options": {"include_usage": true}`` (so
    the last chunk carries the usage), unless a native ``stream_options`` is
    given.  ``base_url`` replaces ``https://api.openai.com/v1`` (any server
    that speaks the API).  Send it with :func:`agentkit_core.http.send`, or run
    the whole turn with :func:`complete`.

    ``settings`` (a :class:`~agentkit_core.ModelSettings`) are written into the API's own
    fields (see :mod:`._settings`; one it has no field for raises ``ValueError``);
    ``native`` fields go as given, objects joined with the settings' key by key, but the
    same setting given twice, or a field the transcript or the tools write, raises
    ``ValueError``.  ``headers`` are HTTP headers added to the provider's own, which
    they cannot replace (``ValueError``; replace the built request's headers with
    ``dataclasses.replace`` to do it on purpose).
    """
    fields = kept_request(items, tools=tools, tool_choice=tool_choice)
    last: dict[str, JsonValue] = {}
    if stream:
        native = dict(native)
        last = {"stream": True, "stream_options": native.pop("stream_options", {"include_usage": True})}
    written = fields_of(settings)
    body = checked_body(request_body("openai_chat", {"model": checked_model(model)}, fields, written, native, last), written)
    own = key_header("Authorization", api_key, "Bearer ")
    return json_request(endpoint(base_url, BASE_URL, "/chat/completions"), extra_headers(own, headers, stream=stream), body, stream=stream)
