"""The Gemini request: ``POST {base_url}/models/{model}:generateContent`` or ``:streamGenerateContent?alt=sse`` (pure)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ... import Item, ModelSettings
from ..._for_providers import provider_info
from ...http import Request
from .._common.sending import checked_model, endpoint, extra_headers, json_request, key_header, request_body
from .._common.tools import Choice, Tools
from ._request import kept_request
from ._settings import checked_body, fields_of

__all__ = ("http_request", "BASE_URL")

BASE_URL = provider_info("gemini").base_url
#: How a Vertex AI base URL ends: ``.../projects/{project}/locations/{location}/publishers/google``.
_VERTEX = "/publishers/google"


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
    """The request for a turn on ``items``: header ``x-goog-api-key``, a JSON body.

    ``model`` goes in the URL (``gemini-2.5-flash`` as ``models/gemini-2.5-flash``;
    a name holding a ``/``, such as ``tunedModels/...``, as it is), with
    ``:generateContent``, or ``:streamGenerateContent?alt=sse`` when
    ``stream`` (server-sent events).  The body is what :func:`request_from_items`
    writes (``contents``, ``systemInstruction``, ``tools``, ``toolConfig``),
    then the settings' ``generationConfig`` and the native fields (``safetySettings``,
    ...).  ``base_url`` replaces ``https://generativelanguage.googleapis.com/v1beta``.
    Send it with :func:`agentkit_core.http.send`, or run the whole turn with
    :func:`complete`.  A ``base_url`` ending in ``/publishers/google`` is Vertex AI's
    (``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google``):
    the same path and body below it, ``api_key`` an OAuth access token sent as
    ``Authorization: Bearer`` (google-genai's ``vertexai=True``).

    ``settings`` (a :class:`~agentkit_core.ModelSettings`) are written into the API's own
    fields (see :mod:`._settings`; one it has no field for raises ``ValueError``);
    ``native`` fields go as given, objects joined with the settings' key by key, but the
    same setting given twice, or a field the transcript or the tools write, raises
    ``ValueError``.  ``headers`` are HTTP headers added to the provider's own, which
    they cannot replace (``ValueError``; replace the built request's headers with
    ``dataclasses.replace`` to do it on purpose).
    """
    name = checked_model(model)
    path = name if "/" in name else "models/" + name
    method = ":streamGenerateContent?alt=sse" if stream else ":generateContent"
    written = fields_of(settings)
    body = checked_body(request_body("gemini", {}, kept_request(items, tools=tools, tool_choice=tool_choice), written, native, {}), written)
    vertex = isinstance(base_url, str) and base_url.rstrip("/").endswith(_VERTEX)
    own = key_header("authorization", api_key, "Bearer ") if vertex else key_header("x-goog-api-key", api_key)
    return json_request(endpoint(base_url, BASE_URL, f"/{path}{method}"), extra_headers(own, headers, stream=stream), body, stream=stream)
