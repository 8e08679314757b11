"""Vertex AI's addressing: a model's base URL from the project and the location, as google-genai and AnthropicVertex make it.

``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/{publisher}``,
the ``global`` location at ``aiplatform.googleapis.com`` and the multi-regions
(``us``, ``eu``) at ``aiplatform.{location}.rep.googleapis.com``; the wire's
``http_request`` adds ``/models/{model}:...`` (Gemini's ``generateContent``,
Anthropic's ``rawPredict``) and sends the key as ``Authorization: Bearer``.
The project and the location are the call's ``project=`` and ``location=``,
else (``complete()`` only) the environment's, else the credential's project
and the ``global`` location.  Pure but for the ``environ`` it is handed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Mapping, Tuple

from ..._for_providers import VERTEX_PUBLISHERS

if TYPE_CHECKING:
    from ...http import Request

__all__ = ("VERTEX_ONLY", "first_set", "LOCATION", "root_url", "vertex_base_url", "vertex_resolved", "vertex_signer",
           "VERTEX_VARIABLES")

#: The keyword arguments only Vertex AI's names take.
VERTEX_ONLY = ("project", "location")
#: The location a call names none of goes to (google-genai's default).
LOCATION = "global"
#: The locations served from a multi-regional host, ``aiplatform.{location}.rep.googleapis.com``.
_MULTI_REGIONS = frozenset(("us", "eu"))
_LOCATION = re.compile(r"[a-z][a-z0-9-]{0,62}")
_PROJECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.:_-]{0,127}")

#: Per publisher (its path under a location), the variables ``complete()`` reads the project and the location from, in order: google-genai's
#: (``GOOGLE_CLOUD_PROJECT``, ``GOOGLE_CLOUD_LOCATION``), and AnthropicVertex's before them for Anthropic's models.
VERTEX_VARIABLES: Mapping[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "/publishers/google": (("GOOGLE_CLOUD_PROJECT",), ("GOOGLE_CLOUD_LOCATION",)),
    "/publishers/anthropic": (("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT"), ("CLOUD_ML_REGION", "GOOGLE_CLOUD_LOCATION")),
}


def root_url(location: str) -> str:
    """The API's root for ``location``, version included (``https://us-central1-aiplatform.googleapis.com/v1``)."""
    if location == "global":
        return "https://aiplatform.googleapis.com/v1"
    if location in _MULTI_REGIONS:
        return f"https://aiplatform.{location}.rep.googleapis.com/v1"
    return f"https://{location}-aiplatform.googleapis.com/v1"


def first_set(environ: Mapping[str, str] | None, names: Tuple[str, ...]) -> str | None:
    """The first of ``names`` set (and not empty) in ``environ``; ``None`` without an environment."""
    if environ is not None:
        for name in names:
            value = environ.get(name)
            if value:
                return value
    return None


def vertex_base_url(publisher: str, name: str, base_url: str | None, native: dict[str, Any], environ: Mapping[str, str] | None,
                    credentials_project: Any = None) -> str:
    """The base URL of ``publisher``'s models (``"/publishers/google"``, ``"/publishers/anthropic"``) for ``name``'s call.

    ``project=`` and ``location=`` are taken out of ``native``; ``environ``
    (``complete()``'s) supplies them when not given, then
    ``credentials_project()`` (the credential's project, asked only then).
    ``base_url`` replaces the API's root (``https://{host}/v1``); one that
    already ends in ``/publishers/{publisher}`` is used as it is.  A project
    found nowhere raises ``ValueError`` naming where it is looked for.
    """
    from urllib.parse import quote

    if base_url is not None and not isinstance(base_url, str):
        raise TypeError(f"base_url: expected a string, found {type(base_url).__name__}")
    project, location = native.pop("project", None), native.pop("location", None)
    for field, value in (("project", project), ("location", location)):
        if value is not None and (not isinstance(value, str) or not value):
            raise TypeError(f"{field}: expected a non-empty string, found {type(value).__name__}")
    projects, locations = VERTEX_VARIABLES[publisher]
    tail = publisher
    if isinstance(base_url, str) and base_url.rstrip("/").endswith(tail):
        return base_url.rstrip("/")
    location = location or first_set(environ, locations) or LOCATION
    if not _LOCATION.fullmatch(location):
        raise ValueError(f"location: {location[:40]!r} is not a Vertex AI location (as 'us-central1' or 'global')")
    project = project or first_set(environ, projects) or (credentials_project() if credentials_project is not None else None)
    if not project:
        where = f" or set {' or '.join(projects)}" if environ is not None else ""
        raise ValueError(f"{name}: no Google Cloud project: give project='...'{where}")
    if not _PROJECT.fullmatch(project):
        raise ValueError(f"project: {project[:40]!r} is not a Google Cloud project id")
    root = root_url(location) if base_url is None else base_url.rstrip("/")
    return f"{root}/projects/{quote(project, safe=':')}/locations/{location}{tail}"


def _credentials(environ: Mapping[str, str]) -> Any:
    from ...auth.google import default_credentials

    return default_credentials(environ)


def vertex_resolved(name: str, api_key: str | None, base_url: str | None, native: dict[str, Any],
                    environ: Mapping[str, str] | None) -> tuple[str | None, str]:
    """``(api_key, base_url)`` for the wire's ``http_request`` of a Vertex AI name's call: the token given (sent as
    ``Authorization: Bearer``) and the publisher's base URL.  With ``environ`` (``complete()``), a project found
    nowhere else is the credential's (Application Default Credentials'; a Google Cloud machine's own)."""
    project_of = None
    if environ is not None:
        def project_of() -> str | None:
            from ...auth import CredentialsError
            from ...auth.google import MetadataCredentials

            try:
                found = _credentials(environ)
                return found.fetch_project() if isinstance(found, MetadataCredentials) else found.project
            except CredentialsError:
                return None

    return api_key, vertex_base_url(VERTEX_PUBLISHERS[name], name, base_url, native, environ, project_of)


def vertex_signer(name: str, auth: str, api_key: str | None, environ: Mapping[str, str], transport: Any, cancel: Any,
                  asynchronous: bool) -> Callable[[Request], Any] | None:
    """The ``Request.auth`` of a turn of the Vertex AI name ``name`` given no token: a fresh token from Application
    Default Credentials on every attempt (fetched with the turn's ``transport`` and ``cancel``); ``None`` for any
    other name, or a token given."""
    if auth != "google_vertex" or api_key is not None:
        return None
    credentials = _credentials(environ)
    if asynchronous:
        return credentials.async_signer(transport=transport, cancel=cancel)  # type: ignore[no-any-return]
    return credentials.signer(transport=transport, cancel=cancel)  # type: ignore[no-any-return]
