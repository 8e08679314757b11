"""What every provider's ``http_request`` shares: the endpoint, the JSON body, the request value.

Pure: nothing here reads the environment or touches the network.  The API
key goes only into the header the provider reads it from, and
:class:`~agentkit_core.http.Request` hides that header in its ``repr`` and
in every error message.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Protocol, Sequence

from ... import NormalizeError, checked_json
from ...http import Request
from . import JsonDict
from .tools import Choice, Tools

class HttpRequest(Protocol):
    """What every provider's ``http_request`` is: items and settings in, the request to send out."""

    def __call__(
        self,
        items: Sequence[Any],
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        stream: bool = False,
        tools: Tools = (),
        tool_choice: Choice = None,
        **settings: Any,
    ) -> Request: ...


__all__ = ("HttpRequest", "exported", "endpoint", "json_body", "json_request", "checked_model", "key_header")

_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]*")


def exported(package: str, *functions: Callable[..., Any]) -> None:
    """Name ``functions``, defined in private modules, as the provider ``package``'s own (``repr``, ``help()``, pickling)."""
    for function in functions:
        function.__module__ = package


def endpoint(base_url: str | None, default: str) -> str:
    """``base_url`` (or ``default``) without a trailing slash; ``ValueError`` if it is no http(s) URL."""
    if base_url is None:
        return default
    if not isinstance(base_url, str):
        raise TypeError(f"base_url: expected a string, found {type(base_url).__name__}")
    if not base_url.lower().startswith(("http://", "https://")):
        raise ValueError(f"base_url: expected an http:// or https:// URL, found {base_url[:80]!r}")
    return base_url.rstrip("/")


def checked_model(model: object) -> str:
    """``model`` if it is a model name the URL or body can carry, else ``TypeError``/``ValueError``."""
    if not isinstance(model, str):
        raise TypeError(f"model: expected a string, found {type(model).__name__}")
    if not _MODEL.fullmatch(model):
        raise ValueError(f"model: {model[:80]!r} is not a model name")
    return model


def key_header(name: str, api_key: object, prefix: str = "") -> dict[str, str]:
    """``{name: prefix + api_key}``, or nothing without a key; the key itself is never shown in an error."""
    if api_key is None:
        return {}
    if not isinstance(api_key, str) or not api_key:
        raise TypeError(f"api_key: expected a non-empty string, found {type(api_key).__name__}")
    return {name: prefix + api_key}


def json_body(first: JsonDict, settings: Mapping[str, Any], last: JsonDict) -> JsonDict:
    """``first``, then the caller's native ``settings`` (checked JSON data), then ``last``; one JSON object."""
    try:
        extra = checked_json(dict(settings))
    except NormalizeError as exc:
        raise NormalizeError(f"a setting is not JSON data: {exc.message}", exc.path) from None
    assert isinstance(extra, dict)
    return {**first, **extra, **last}


def json_request(url: str, headers: Mapping[str, str], body: JsonDict, *, stream: bool) -> Request:
    """A ``POST`` of ``body`` as compact UTF-8 JSON to ``url``; with ``stream``, accepting an event stream."""
    import json

    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    accept = {"accept": "text/event-stream"} if stream else {}
    return Request("POST", url, {"content-type": "application/json", **headers, **accept}, text.encode("utf-8"))
