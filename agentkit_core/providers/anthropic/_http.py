"""The Anthropic Messages API request: ``POST {base_url}/v1/messages``, or Vertex AI's ``:rawPredict`` (pure, no I/O)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ... import Item, ModelSettings
from ..._for_providers import provider_info
from ...http import Request
from .._common.sending import checked_model, endpoint, extra_headers, json_request, key_header, request_body
from .._common.tools import Choice, Tools
from ._request import kept_request
from ._settings import checked_body, fields_of, with_choice_type

__all__ = ("http_request", "BASE_URL", "API_VERSION", "VERTEX_VERSION")

BASE_URL = provider_info("anthropic").base_url
API_VERSION = "2023-06-01"
#: The ``anthropic_version`` a request to Vertex AI carries in its body (Vertex's documentation, AnthropicVertex's).
VERTEX_VERSION = "vertex-2023-10-16"
#: How a Vertex AI base URL ends: ``.../projects/{project}/locations/{location}/publishers/anthropic``.
_VERTEX = "/publishers/anthropic"
_NAME = "anthropic"


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
    """The request for a turn on ``items``: headers ``x-api-key`` and ``anthropic-version``, a JSON body.

    The body is ``model``, the transcript, ``tools`` and ``tool_choice`` (:class:`~agentkit_core.ToolSpec`
    values or native tools, a :class:`~agentkit_core.ToolChoice`) as :func:`request_from_items`
    writes them, the settings' and the native fields, and ``"stream": true`` when
    ``stream``.  The API requires ``max_tokens``: a request with none (neither
    ``ModelSettings.max_tokens`` nor the native field) raises ``ValueError``.
    Without ``api_key`` no key header is sent (for a gateway that adds its own).
    ``base_url`` replaces ``https://api.anthropic.com``.  Send it with
    :func:`agentkit_core.http.send`, or run the whole turn with :func:`complete`.

    A ``base_url`` ending in ``/publishers/anthropic`` is Vertex AI's
    (``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/anthropic``),
    addressed as Vertex and ``AnthropicVertex`` do: ``POST {base_url}/models/{model}:rawPredict``
    (``:streamRawPredict`` when ``stream``), the body without ``model`` and with
    ``"anthropic_version": "vertex-2023-10-16"`` (a native ``anthropic_version`` replaces it),
    ``api_key`` an OAuth access token sent as ``Authorization: Bearer``, no ``anthropic-version`` header.

    ``settings`` (a :class:`~agentkit_core.ModelSettings`) are written into the API's own
    fields (see :mod:`._settings`; one it has no field for raises ``ValueError``);
    ``native`` fields go as given, objects joined with the settings' key by key, but the
    same setting given twice, or a field the transcript or the tools write, raises
    ``ValueError``.  ``headers`` are HTTP headers added to the provider's own, which
    they cannot replace (``ValueError``; replace the built request's headers with
    ``dataclasses.replace`` to do it on purpose).
    """
    fields = kept_request(items, tools=tools, tool_choice=tool_choice)
    last = {"stream": True} if stream else {}
    name = checked_model(model)
    vertex = isinstance(base_url, str) and base_url.rstrip("/").endswith(_VERTEX)
    written = fields_of(settings)
    body = checked_body(with_choice_type(request_body(_NAME, {} if vertex else {"model": name}, fields, written, native, last)), written)
    if "max_tokens" not in body:
        raise ValueError(
            "max_tokens: the Anthropic Messages API requires it and there is no default that fits every model; "
            "give settings=ModelSettings(max_tokens=...) (or the native max_tokens=...)"
        )
    if vertex:
        body.setdefault("anthropic_version", VERTEX_VERSION)
        url = endpoint(base_url, BASE_URL, f"/models/{name}:{'streamRawPredict' if stream else 'rawPredict'}")
        own = key_header("authorization", api_key, "Bearer ")
    else:
        url = endpoint(base_url, BASE_URL, "/v1/messages")
        own = {"anthropic-version": API_VERSION, **key_header("x-api-key", api_key)}
    return json_request(url, extra_headers(own, headers, stream=stream), body, stream=stream)
