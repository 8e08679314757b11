"""Where a name's request goes and what it carries: the base URL, the key, Azure's addressing, a preset's fields.

:func:`resolved` turns the arguments of a call by name (``model="groq:..."``)
into the wire's own arguments, from the name's registry row
(:class:`~agentkit_core.providers.Endpoint`):

* the base URL: the argument, else (``complete()`` only) the row's
  ``base_url_variable``, else the row's default;
* the key: the argument, else (``complete()`` only) the first of the row's
  ``key_variables`` that is set; a hosted name with no key anywhere, sent to
  its own default endpoint, raises ``ValueError`` naming the variables before
  anything is sent (a base URL given or set is a server the caller chose,
  which may need no key: a proxy, a local server);
* Azure OpenAI (``auth="azure_openai"``), as the openai SDK's ``AzureOpenAI`` sends
  it: ``{endpoint}/openai/deployments/{model}/chat/completions?api-version=V``
  (the Responses API: ``{endpoint}/openai/responses?api-version=V``), the key
  as ``api-key`` or an Entra ID token as ``Authorization: Bearer``; with no
  ``api-version`` anywhere, Azure's version-less v1 API
  (``{endpoint}/openai/v1/chat/completions``), which takes the same
  credentials;
* a preset's ``fields``: a setting its server reads from another field than
  the wire writes goes there as a native field.

The environment is read only when ``environ`` is given (``complete()`` gives
``os.environ``; ``http_request`` gives nothing and stays pure).  No key is
ever written into an error.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import quote

from ... import JsonValue, ModelSettings
from ..._for_providers import AZURE_DEPLOYMENTS, Endpoint, endpoint
from .vertex import first_set, vertex_resolved

__all__ = ("split", "resolved", "AZURE_ONLY")

#: What a path segment keeps unquoted besides letters, digits and ``-._~`` (RFC 3986's ``segment``, as the openai SDK).
_SEGMENT = "!$&'()*+,;=:@"

#: The keyword arguments only Azure's names take (the others would send them as body fields).
AZURE_ONLY = ("api_version", "azure_ad_token")


#: Model strings already split (most programs use a few): a dict lookup instead of the parse, bounded.
_SPLIT: dict[str, tuple[Endpoint, str]] = {}


def split(model: object) -> tuple[Endpoint, str]:
    """``"groq:llama-3.3-70b"`` as the name's row and the model; ``ValueError`` without a known ``<provider>:``."""
    if type(model) is str:
        known = _SPLIT.get(model)
        if known is not None:
            return known
    if not isinstance(model, str):
        raise TypeError(f"model: expected a string '<provider>:<model>', found {type(model).__name__}")
    name, colon, rest = model.partition(":")
    if not colon or not name or not rest:
        raise ValueError(
            f"model: expected '<provider>:<model>' (as 'groq:llama-3.3-70b-versatile'), found {model[:80]!r}; "
            "call a provider module's functions for a model name alone"
        )
    found = endpoint(name), rest
    if type(model) is str:
        if len(_SPLIT) >= 256:
            _SPLIT.clear()
        _SPLIT[model] = found
    return found


def resolved(row: Endpoint, model: str, api_key: str | None, base_url: str | None, headers: Mapping[str, str] | None,
             settings: ModelSettings | None, native: dict[str, Any],
             environ: Mapping[str, str] | None) -> tuple[str | None, str | None, Mapping[str, str] | None, ModelSettings | None]:
    """``(api_key, base_url, headers, settings)`` for the wire's function, ``native`` completed in place (see the
    module's docstring)."""
    if row.fields and settings is not None:
        settings = _moved(row, settings, native)
    if row.auth == "azure_openai":
        return _azure(row, model, api_key, base_url, headers, native, environ) + (settings,)
    if row.auth == "google_vertex":
        return vertex_resolved(row.name, api_key, base_url or first_set(environ, (row.base_url_variable,)), native, environ) + (
            headers, settings)
    for name in AZURE_ONLY:
        if name in native:
            raise TypeError(f"{name}: only Azure's names take it ({row.name} does not)")
    if base_url is None and row.base_url_variable:
        base_url = first_set(environ, (row.base_url_variable,))
    if api_key is None:
        api_key = first_set(environ, row.key_variables)
        if api_key is None and environ is not None and row.key_required and base_url in (None, row.base_url):
            raise ValueError(f"{row.name}: no API key: give api_key=... or set {' or '.join(row.key_variables)}")
    if base_url is None and row.wire != row.name.replace("-", "_"):
        base_url = row.base_url  # a preset's server; a wire's own default is its module's (Bedrock's has a region)
    return api_key, base_url, headers, settings


def _moved(row: Endpoint, settings: ModelSettings, native: dict[str, JsonValue]) -> ModelSettings:
    """``settings`` without those the row writes into other fields, which go into ``native`` (checked as the wire
    checks them: one the server has no field for, or an effort level it does not know, raises ``ValueError``)."""
    given = settings.given()
    can = row.capabilities
    moved = False
    for setting, field in row.fields:
        if setting not in given:
            continue
        value = given.pop(setting)
        if setting == "reasoning_effort" and value not in can.reasoning_efforts:
            raise ValueError(f"ModelSettings.reasoning_effort: {value[:40]!r} is no effort level of {row.display} "
                             f"(it knows {', '.join(can.reasoning_efforts)})")
        *path, key = field.split(".")
        target = native
        for name in path:
            inner = target.get(name, {})
            if not isinstance(inner, dict):
                raise ValueError(f"{name}: {row.display} takes ModelSettings.{setting} in {field}; give one of them")
            target[name] = inner = dict(inner)
            target = inner
        if key in target:
            raise ValueError(f"{field}: {row.display} takes ModelSettings.{setting} in this field; give one of them")
        target[key] = list(value) if setting == "stop" else value
        moved = True
    return ModelSettings(**given) if moved else settings


def _azure(row: Endpoint, model: str, api_key: str | None, base_url: str | None, headers: Mapping[str, str] | None,
           native: dict[str, Any], environ: Mapping[str, str] | None) -> tuple[None, str, Mapping[str, str]]:
    """Azure OpenAI's URL and credential header, as ``AzureOpenAI`` makes them (the module's docstring)."""
    version = native.pop("api_version", None)
    token = native.pop("azure_ad_token", None)
    for name, value in (("api_version", version), ("azure_ad_token", token)):
        if value is not None and (not isinstance(value, str) or not value):
            raise TypeError(f"{name}: expected a non-empty string, found {type(value).__name__}")
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise TypeError(f"api_key: expected a non-empty string, found {type(api_key).__name__}")
    if api_key is not None and token is not None:
        raise ValueError("api_key, azure_ad_token: give one credential, not both")
    if api_key is None and token is None:  # AzureOpenAI's order: the Entra ID token's variable, then the key's
        token = first_set(environ, ("AZURE_OPENAI_AD_TOKEN",))
        if token is None:
            api_key = first_set(environ, row.key_variables)
    if environ is not None and api_key is None and token is None:
        raise ValueError(f"{row.name}: no credential: give api_key=... or azure_ad_token=..., "
                         f"or set {' or '.join(row.key_variables)} or AZURE_OPENAI_AD_TOKEN")
    if version is None:
        version = first_set(environ, ("OPENAI_API_VERSION",))
    site = base_url or first_set(environ, (row.base_url_variable,)) or row.base_url
    if not site:
        raise ValueError(f"{row.name}: no endpoint: give base_url='https://<resource>.openai.azure.com'"
                         + (f" or set {row.base_url_variable}" if environ is not None else ""))
    if not isinstance(site, str) or not site.lower().startswith(("https://", "http://")) or "?" in site:
        shown, query, _ = str(site).partition("?")  # a query is not shown: it may hold a key (?api-key=...)
        raise ValueError(f"base_url: expected the resource's endpoint, an http(s) URL without a query, "
                         f"found {shown[:80]!r}{' with a query' if query else ''}")
    site = site.rstrip("/")
    base = site if site.endswith("/openai") else site + "/openai"
    if version is None:
        url = base + "/v1"
    elif row.wire in AZURE_DEPLOYMENTS:  # a deployments endpoint: the deployment is the model's name
        url = f"{base}/deployments/{quote(model, safe=_SEGMENT)}?api-version={quote(version, safe='')}"
    else:
        url = f"{base}?api-version={quote(version, safe='')}"
    own = {"Authorization": "Bearer " + token} if token is not None else {"api-key": api_key} if api_key is not None else {}
    if headers is not None and not isinstance(headers, Mapping):
        raise TypeError(f"headers: expected a mapping of header names to values, found {type(headers).__name__}")
    if own and headers:
        taken = {name.lower() for name in own}
        if any(isinstance(name, str) and name.lower() in taken for name in headers):
            raise ValueError(f"headers: {next(iter(own))!r} is the credential header the request sets itself")
    return None, url, {**own, **headers} if headers else own
