"""What every provider's ``http_request`` shares: the endpoint, the JSON body, the request value.

Pure: nothing here reads the environment or touches the network.  The API
key goes only into the header the provider reads it from, and
:class:`~agentkit_core.http.Request` hides that header in its ``repr`` and
in every error message.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ... import JsonValue, NormalizeError
from ..._for_providers import STREAM_FORMATS
from ...http import Request
from . import JsonDict
from .reuse import json_pieces
from .settings import checked_native, merge, native_conflict, with_settings

__all__ = ("exported", "endpoint", "json_request", "checked_model", "key_header", "request_body",
           "extra_headers")

_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]*")


def exported(package: str, *functions: Callable[..., Any]) -> None:
    """Name ``functions``, defined in private modules, as the provider ``package``'s own (``repr``, ``help()``, pickling)."""
    for function in functions:
        function.__module__ = package


def endpoint(base_url: str | None, default: str, path: str) -> str:
    """The URL of ``path`` (``"/chat/completions"``, perhaps with a query of its own) under ``base_url`` (or
    ``default``): ``ValueError`` if it is no http(s) URL.

    A query in ``base_url`` stays a query, after the path (Azure's
    ``...?api-version=2024-10-21`` gives ``.../chat/completions?api-version=2024-10-21``), joined with the
    path's own by ``&``; a fragment is dropped; a trailing ``/`` of the base is not doubled.
    """
    if base_url is None:
        base_url = default
    elif not isinstance(base_url, str):
        raise TypeError(f"base_url: expected a string, found {type(base_url).__name__}")
    elif not base_url.lower().startswith(("http://", "https://")):
        raise ValueError(f"base_url: expected an http:// or https:// URL, found {_no_url(base_url)}")
    if "?" not in base_url and "#" not in base_url:
        return base_url.rstrip("/") + path
    base, _, query = base_url.partition("#")[0].partition("?")
    path, _, own = path.partition("?")
    query = "&".join(q for q in (query, own) if q)
    return base.rstrip("/") + path + ("?" + query if query else "")


def _no_url(text: str) -> str:
    """What a ``base_url`` that is no http(s) URL looks like, without its text: an API key passed in its place, or a
    ``user:password@`` in another scheme's URL, must not reach the error."""
    if not text:
        return "an empty string"
    scheme = _SCHEME.match(text)
    if scheme:
        return f"a URL of the scheme {scheme.group(1).lower()}://"
    return "text with no scheme (write http:// or https:// in front of a host)"


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,15})://")


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


def json_request(url: str, headers: Mapping[str, str], body: JsonDict, *, stream: bool, stream_format: str = "sse") -> Request:
    """A ``POST`` of ``body`` as compact UTF-8 JSON to ``url``; with ``stream``, accepting the provider's stream format.

    ``stream_format`` is the registry row's (``"sse"``: ``text/event-stream``;
    ``"aws-eventstream"``: ``application/vnd.amazon.eventstream``).  A body
    holding kept JSON (:class:`.reuse.Raw`) is joined only when its ``body`` is first read
    (``agentkit_core.http._request.joined_later``): the socket transport writes the pieces as they are.
    """
    pieces = json_pieces(body)
    accept = {"accept": STREAM_FORMATS[stream_format]} if stream else {}
    request = Request("POST", url, {"content-type": "application/json", **headers, **accept}, pieces[0] if len(pieces) == 1 else b"")
    return request if len(pieces) == 1 else Request._joined_later(request, pieces)


def request_body(
    provider: str,
    first: JsonDict,
    fields: JsonDict,
    settings: tuple[JsonDict, Mapping[tuple[str, ...], str]],
    native: Mapping[str, JsonValue],
    last: JsonDict,
) -> JsonDict:
    """A request's body: ``first`` (``model``), the transcript and tool ``fields``, the ``settings``' fields
    (:func:`.settings.settings_fields`), the caller's ``native`` fields, then ``last`` (``stream``).

    Native fields join the others object by object (a native ``generationConfig``
    beside the settings' keeps both); one that the transcript or the tools
    write, one of ``first`` or ``last``, or a field a setting writes too, raise
    ``ValueError`` naming it (:func:`.settings.checked_native`).
    """
    extra: JsonDict = {}
    if native:  # most calls give none: nothing to check, spell or join
        try:
            extra = checked_native(native, provider, fields, (*first, *last, "stream"))
        except NormalizeError as exc:
            raise NormalizeError(f"a native field is not JSON data: {exc.message}", exc.path) from None
    body = with_settings({**first, **fields}, settings)
    if extra:
        spelled = {_plain_name(k): k for k in settings[0]}
        for name in extra:
            twin = spelled.get(_plain_name(name))
            if twin is not None and twin != name:  # generation_config beside the settings' generationConfig
                raise ValueError(f"{name}: the settings write this field as {twin}; give it so spelled, once")
        body = merge(body, extra, native_conflict(settings[1]))
    body.update(last)
    return body


def _plain_name(name: str) -> str:
    """``name`` without case or underscores: ``generation_config`` and ``generationConfig`` are one field."""
    return name.replace("_", "").lower()


def extra_headers(own: Mapping[str, str], headers: object, *, stream: bool) -> dict[str, str]:
    """``own`` (the provider's auth and version headers) and the caller's ``headers``.

    A caller's header named as one of ``own``, ``content-type`` or ``accept``
    (in any case) raises ``ValueError``: the provider's own headers are not
    replaced by accident.  To replace one on purpose, replace the built
    request's headers: ``dataclasses.replace(request, headers=...)``.  Names
    and values are checked as :class:`~agentkit_core.http.Request` checks them.
    """
    if headers is None:
        return dict(own)
    if not isinstance(headers, Mapping):
        raise TypeError(f"headers: expected a mapping of header names to values, found {type(headers).__name__}")
    taken = {name.lower() for name in own} | {"content-type"} | ({"accept"} if stream else set())
    out = dict(own)
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"headers: expected string names and values, found {type(name).__name__}: {type(value).__name__}")
        if name.lower() in taken:
            raise ValueError(
                f"headers: {name!r} is a header the request sets itself; to replace it on purpose, "
                "replace the built request's headers (dataclasses.replace(request, headers=...))"
            )
        out[name] = value
    return out
