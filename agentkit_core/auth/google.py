"""Google OAuth access tokens without google-auth: Application Default Credentials on the standard library.

:func:`default_credentials` looks where google-auth's ``google.auth.default()``
looks, in the same order:

1. the JSON file named by ``GOOGLE_APPLICATION_CREDENTIALS``;
2. gcloud's file, ``application_default_credentials.json`` in gcloud's
   configuration folder (``CLOUDSDK_CONFIG``, else ``~/.config/gcloud``, or
   ``%APPDATA%\\gcloud`` on Windows), which ``gcloud auth application-default
   login`` writes;
3. the metadata server of a Google Cloud machine
   (``http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token``
   with ``Metadata-Flavor: Google``; ``GCE_METADATA_HOST`` names another host),
   probed once, briefly, at the first token.

A file holds one of two kinds (its ``type``): ``service_account``
(:class:`ServiceAccountCredentials`: a JWT assertion signed RS256 with the
account's private key, exchanged at its ``token_uri`` with the
``urn:ietf:params:oauth:grant-type:jwt-bearer`` grant) or ``authorized_user``
(:class:`AuthorizedUserCredentials`: a refresh token exchanged with the
``refresh_token`` grant).  Every kind asks for :data:`CLOUD_PLATFORM_SCOPE`.

A credential's :meth:`~GoogleCredentials.token` (or ``await``
:meth:`~GoogleCredentials.atoken`) gives an access token, kept until
:data:`REFRESH_MARGIN` seconds before it expires, then fetched again under a
lock (one fetch at a time among threads, and one at a time on each event
loop, which never waits for a thread's fetch).  The
exchanges go through :func:`agentkit_core.http.send` (``asend``), so they take
its ``transport``, ``cancel`` and retries.  No token, private key, refresh
token or client secret is ever logged, shown in a ``repr`` or put in an error.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Sequence

from ..http import Request
from ._errors import CredentialsError
from ._rsa import RsaKey

if TYPE_CHECKING:
    import asyncio

    from ..cancellation import CancellationController, CancellationHandle, TurnCancellation
    from ..http import AsyncTransport, Transport
    from ..jsontext import JsonValue

    Cancel = TurnCancellation | CancellationHandle | CancellationController | None

__all__ = (
    "GoogleCredentials",
    "ServiceAccountCredentials",
    "AuthorizedUserCredentials",
    "MetadataCredentials",
    "default_credentials",
    "gcloud_credentials_path",
    "gcloud_project",
    "authorized",
    "credentials_from_info",
    "CLOUD_PLATFORM_SCOPE",
    "TOKEN_URI",
    "REFRESH_MARGIN",
)

_PUBLIC_MODULE = __name__

#: The scope every token is asked for (what Vertex AI takes).
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
#: Google's OAuth 2.0 token endpoint (a credential file's ``token_uri`` may name another); a service account's JWT
#: names it as its audience whatever the file says, as google-auth does.
TOKEN_URI = "https://oauth2.googleapis.com/token"
#: A token is fetched again this many seconds before it expires (google-auth's ``REFRESH_THRESHOLD``: 3 min 45 s).
REFRESH_MARGIN = 225.0
#: How long a service account's JWT assertion is valid, in seconds.
ASSERTION_LIFETIME = 3600
#: The metadata server's host name, and the address the probe asks (no name to resolve: off Google Cloud,
#: resolving ``metadata.google.internal`` can take tens of seconds).
METADATA_HOST = "metadata.google.internal"
METADATA_IP = "169.254.169.254"
#: Seconds the metadata probe waits to connect and for the answer: one try, no retry.
PROBE_TIMEOUT = 1.0
_JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_FORM = "application/x-www-form-urlencoded"
_EXCHANGE_TIMEOUT = 30.0  # seconds to wait for a token endpoint's answer
_NO_EXPIRY = 300.0  # an answer naming no lifetime is kept this long
_CREDENTIALS_FILE = "application_default_credentials.json"


class GoogleCredentials:
    """A source of Google OAuth access tokens, cached until :data:`REFRESH_MARGIN` before they expire.

    ``project`` is the Google Cloud project the credential names, if any
    (a service account's ``project_id``); ``quota_project`` the project a
    user credential bills (its ``quota_project_id``, sent as
    ``x-goog-user-project``).  Subclasses say how a token is fetched.
    """

    project: str | None = None
    quota_project: str | None = None

    def __init__(self) -> None:
        self._lock = threading.Lock()  # held by a thread for its whole fetch
        self._locks_lock = threading.Lock()  # held only to find a loop's lock: a task never waits on a thread's fetch
        self._held: tuple[str, float] | None = None  # (token, when it expires, as time.time())
        self._loop_locks: dict[int, tuple[Any, asyncio.Lock]] = {}

    def _fresh(self) -> str | None:
        held = self._held
        return held[0] if held is not None and time.time() < held[1] - REFRESH_MARGIN else None

    def token(self, *, transport: Transport | None = None, cancel: Cancel = None) -> str:
        """An access token: the one held while it is fresh, else a new one (fetched by one thread at a time)."""
        token = self._fresh()
        if token is not None:
            return token
        with self._lock:
            token = self._fresh()
            if token is None:
                token = self._keep(self._fetch(transport, cancel))
        return token

    async def atoken(self, *, transport: Transport | AsyncTransport | None = None, cancel: Cancel = None) -> str:
        """:meth:`token` for asyncio: fetched with ``asend``, by one task a loop at a time, never blocking the loop."""
        token = self._fresh()
        if token is not None:
            return token
        async with self._loop_lock():
            token = self._fresh()
            if token is None:
                token = self._keep(await self._afetch(transport, cancel))
        return token

    def signer(self, *, transport: Transport | None = None, cancel: Cancel = None) -> Callable[[Request], Request]:
        """What ``Request(auth=...)`` takes for :func:`~agentkit_core.http.send`: a request with a fresh token.

        Called before every attempt, it gives the request with
        ``Authorization: Bearer <token>`` (and ``x-goog-user-project`` for a
        credential naming a quota project), the token from :meth:`token`
        (``transport`` and ``cancel`` are its fetch's).
        """

        def sign(request: Request) -> Request:
            return authorized(request, self.token(transport=transport, cancel=cancel), self.quota_project)

        return sign

    def async_signer(
        self, *, transport: Transport | AsyncTransport | None = None, cancel: Cancel = None
    ) -> Callable[[Request], Awaitable[Request]]:
        """:meth:`signer` for :func:`~agentkit_core.http.asend`: the token from :meth:`atoken`, awaited on the loop."""

        async def sign(request: Request) -> Request:
            return authorized(request, await self.atoken(transport=transport, cancel=cancel), self.quota_project)

        return sign

    def _loop_lock(self) -> asyncio.Lock:
        """The running loop's lock for fetching (an ``asyncio.Lock`` belongs to one loop)."""
        import asyncio

        loop = asyncio.get_running_loop()
        with self._locks_lock:
            found = self._loop_locks.get(id(loop))
            if found is None or found[0]() is not loop:
                import weakref

                self._loop_locks = {k: v for k, v in self._loop_locks.items() if v[0]() is not None}
                found = self._loop_locks[id(loop)] = (weakref.ref(loop), asyncio.Lock())
            return found[1]

    def _keep(self, answer: tuple[str, float]) -> str:
        self._held = answer
        return answer[0]

    def _fetch(self, transport: Transport | None, cancel: Cancel) -> tuple[str, float]:
        from ..http import send

        started = time.time()
        with send(self._token_request(started), transport=transport, cancel=cancel, timeout=_EXCHANGE_TIMEOUT) as response:
            answer = response.json()
        return _token_of(answer, started, self._where())

    async def _afetch(self, transport: Transport | AsyncTransport | None, cancel: Cancel) -> tuple[str, float]:
        from ..http import asend

        started = time.time()
        response = await asend(self._token_request(started), transport=transport, cancel=cancel, timeout=_EXCHANGE_TIMEOUT)
        async with response:
            answer = await response.json()
        return _token_of(answer, started, self._where())

    def _token_request(self, now: float) -> Request:
        raise NotImplementedError

    def _where(self) -> str:
        raise NotImplementedError

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError(f"a {type(self).__name__} is not pickled: it holds secrets")


def authorized(request: Request, token: str, quota_project: str | None = None) -> Request:
    """``request`` with ``Authorization: Bearer <token>`` (replacing one it has) and, given one, ``x-goog-user-project``."""
    import dataclasses

    own = {"authorization": "Bearer " + token, **({"x-goog-user-project": quota_project} if quota_project else {})}
    kept = tuple((k, v) for k, v in request.headers if k.lower() not in own)
    return dataclasses.replace(request, headers=(*kept, *own.items()))


def _token_of(answer: object, started: float, where: str) -> tuple[str, float]:
    """The token and its expiry of a token answer, or :class:`CredentialsError` (never showing the answer)."""
    token = answer.get("access_token") if isinstance(answer, dict) else None
    if not isinstance(token, str) or not token:
        raise CredentialsError(f"{where}: the answer holds no access_token")
    lifetime = answer.get("expires_in") if isinstance(answer, dict) else None
    if isinstance(lifetime, str) and lifetime.isdigit():
        try:
            lifetime = int(lifetime)
        except ValueError:  # digits int() does not read ("²"), or more of them than it converts
            lifetime = None
    if isinstance(lifetime, bool) or not isinstance(lifetime, (int, float)) or lifetime <= 0:
        lifetime = _NO_EXPIRY + REFRESH_MARGIN
    return token, started + lifetime


def _form(fields: Mapping[str, str]) -> bytes:
    from urllib.parse import urlencode

    return urlencode(fields).encode("ascii")


def _text(info: Mapping[str, JsonValue], field: str, where: str, default: str | None = None) -> str:
    """The string ``info[field]``, or :class:`CredentialsError` naming the field (never its value)."""
    value = info.get(field, default)
    if not isinstance(value, str) or not value:
        raise CredentialsError(f"{where}: {field}: expected a non-empty string, found {type(value).__name__}")
    return value


def _token_uri(info: Mapping[str, JsonValue], where: str) -> str:
    """The file's ``token_uri`` (Google's by default), or :class:`CredentialsError` if no request can be sent to it."""
    uri = _text(info, "token_uri", where, TOKEN_URI)
    try:
        Request("POST", uri)
    except ValueError as exc:
        raise CredentialsError(f"{where}: token_uri: {exc}") from None
    return uri


def _optional(info: Mapping[str, JsonValue], field: str) -> str | None:
    value = info.get(field)
    return value if isinstance(value, str) and value else None


def _b64url(data: bytes) -> bytes:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=")


class ServiceAccountCredentials(GoogleCredentials):
    """A service account's key (its JSON key file's ``info``): RS256 JWT assertions exchanged for tokens.

    ``subject`` is a user the account acts for (domain-wide delegation).
    """

    def __init__(self, info: Mapping[str, JsonValue], *, scopes: Sequence[str] = (CLOUD_PLATFORM_SCOPE,), subject: str | None = None,
                 source: str = "service account") -> None:
        super().__init__()
        self.source = source
        self.email = _text(info, "client_email", source)
        try:
            self._key = RsaKey.from_pem(_text(info, "private_key", source))
        except (TypeError, ValueError) as exc:
            raise CredentialsError(f"{source}: {exc}") from None
        self._key_id = _optional(info, "private_key_id")
        self.token_uri = _token_uri(info, source)
        self.project = _optional(info, "project_id")
        self.quota_project = _optional(info, "quota_project_id")
        self.scopes = tuple(scopes)
        self.subject = subject  # a user the account acts for (domain-wide delegation), the JWT's "sub"

    def assertion(self, now: float) -> str:
        """The signed JWT asking for a token at ``now`` (seconds since the epoch): the bytes google-auth writes."""
        import json

        issued = int(now)
        header = {"typ": "JWT", "alg": "RS256", **({"kid": self._key_id} if self._key_id else {})}
        claims: dict[str, object] = {
            "iat": issued,
            "exp": issued + ASSERTION_LIFETIME,
            "iss": self.email,
            "aud": TOKEN_URI,
            "scope": " ".join(self.scopes),
        }
        if self.subject:
            claims["sub"] = self.subject
        signed = _b64url(json.dumps(header).encode()) + b"." + _b64url(json.dumps(claims).encode())
        return (signed + b"." + _b64url(self._key.sign(signed))).decode("ascii")

    def _token_request(self, now: float) -> Request:
        body = _form({"assertion": self.assertion(now), "grant_type": _JWT_GRANT})
        return Request("POST", self.token_uri, {"content-type": _FORM}, body)

    def _where(self) -> str:
        return f"{self.source}: the token endpoint {self.token_uri}"

    def __repr__(self) -> str:
        return f"ServiceAccountCredentials(email={self.email!r}, project={self.project!r})"


class AuthorizedUserCredentials(GoogleCredentials):
    """A user's refresh token (gcloud's ``application_default_credentials.json``), exchanged for tokens."""

    def __init__(self, info: Mapping[str, JsonValue], *, scopes: Sequence[str] = (CLOUD_PLATFORM_SCOPE,), source: str = "authorized user") -> None:
        super().__init__()
        self.source = source
        self._client_id = _text(info, "client_id", source)
        self._client_secret = _text(info, "client_secret", source)
        self._refresh_token = _text(info, "refresh_token", source)
        self.token_uri = _token_uri(info, source)
        self.quota_project = _optional(info, "quota_project_id")
        self.scopes = tuple(scopes)

    def _token_request(self, now: float) -> Request:
        fields = {
            "grant_type": "refresh_token",
            "client_id": self._client_id,
            "client_secret": self._client_secret,
            "refresh_token": self._refresh_token,
        }
        if self.scopes:
            fields["scope"] = " ".join(self.scopes)
        return Request("POST", self.token_uri, {"content-type": _FORM}, _form(fields))

    def _where(self) -> str:
        return f"{self.source}: the token endpoint {self.token_uri}"

    def __repr__(self) -> str:
        return f"AuthorizedUserCredentials(quota_project={self.quota_project!r})"


class MetadataCredentials(GoogleCredentials):
    """The default service account of the Google Cloud machine this runs on, through its metadata server.

    ``host`` replaces ``metadata.google.internal`` (``GCE_METADATA_HOST``
    when :func:`default_credentials` made it); ``probe`` is the address asked
    once, before the first token, whether a metadata server is there at all
    (``Metadata-Flavor: Google`` in a 200 answer, within
    :data:`PROBE_TIMEOUT`, no retry).  Without one, the first token raises
    :class:`CredentialsError` naming every place credentials are looked for.
    """

    def __init__(self, *, host: str = METADATA_HOST, probe: str | None = None, scopes: Sequence[str] = (CLOUD_PLATFORM_SCOPE,),
                 missing: str = "no metadata server answered") -> None:
        super().__init__()
        self.host = host
        self.probe = probe if probe is not None else (METADATA_IP if host == METADATA_HOST else host)
        self.scopes = tuple(scopes)
        self._present: bool | None = None
        self._missing = missing

    def _token_request(self, now: float) -> Request:
        from urllib.parse import quote

        query = f"?scopes={quote(','.join(self.scopes), safe='')}" if self.scopes else ""
        url = f"http://{self.host}/computeMetadata/v1/instance/service-accounts/default/token{query}"
        return Request("GET", url, {"metadata-flavor": "Google"})

    def _probe_request(self) -> Request:
        return Request("GET", f"http://{self.probe}/", {"metadata-flavor": "Google"})

    def _fetch(self, transport: Transport | None, cancel: Cancel) -> tuple[str, float]:
        if self._present is None:
            self._present = self._probe(transport, cancel)
        self._check_present()
        return super()._fetch(transport, cancel)

    async def _afetch(self, transport: Transport | AsyncTransport | None, cancel: Cancel) -> tuple[str, float]:
        if self._present is None:
            from ..http import HttpError, asend

            try:
                response = await asend(self._probe_request(), transport=transport, cancel=cancel, timeout=PROBE_TIMEOUT,
                                       connect_timeout=PROBE_TIMEOUT, retries=0)
                async with response:
                    self._present = response.status == 200 and response.headers.get("metadata-flavor") == "Google"
            except HttpError:
                self._present = False
        self._check_present()
        return await super()._afetch(transport, cancel)

    def fetch_project(self, *, transport: Transport | None = None, cancel: Cancel = None) -> str | None:
        """The machine's project id from the metadata server (``project/project-id``), kept once read; ``None``
        when there is no metadata server or it does not say."""
        if self.project is None:
            from ..http import HttpError, send

            try:
                self._present = self._present if self._present is not None else self._probe(transport, cancel)
                if self._present:
                    url = f"http://{self.host}/computeMetadata/v1/project/project-id"
                    with send(Request("GET", url, {"metadata-flavor": "Google"}), transport=transport, cancel=cancel,
                              timeout=_EXCHANGE_TIMEOUT) as response:
                        text = response.read().decode("utf-8", "replace").strip()
                    self.project = text or None
            except HttpError:
                return None
        return self.project

    def _probe(self, transport: Transport | None, cancel: Cancel) -> bool:
        from ..http import HttpError, send

        try:
            with send(self._probe_request(), transport=transport, cancel=cancel, timeout=PROBE_TIMEOUT,
                      connect_timeout=PROBE_TIMEOUT, retries=0) as response:
                return response.status == 200 and response.headers.get("metadata-flavor") == "Google"
        except HttpError:
            return False

    def _check_present(self) -> None:
        if not self._present:
            raise CredentialsError(f"no Google credentials found: {self._missing} (at http://{self.probe}/)")

    def _where(self) -> str:
        return f"the metadata server at {self.host}"

    def __repr__(self) -> str:
        return f"MetadataCredentials(host={self.host!r})"


MetadataCredentials.__module__ = ServiceAccountCredentials.__module__ = AuthorizedUserCredentials.__module__ = _PUBLIC_MODULE
GoogleCredentials.__module__ = _PUBLIC_MODULE


def credentials_from_info(info: Mapping[str, JsonValue], *, source: str = "credentials") -> GoogleCredentials:
    """The credential a parsed JSON credential file describes: ``service_account`` or ``authorized_user``.

    ``source`` names it in errors (the file's path).  Any other ``type``
    (``external_account``, ``impersonated_service_account``, ...) raises
    :class:`CredentialsError`: those need google-auth.
    """
    if not isinstance(info, Mapping):
        raise CredentialsError(f"{source}: expected a JSON object, found {type(info).__name__}")
    kind = info.get("type")
    if kind == "service_account":
        return ServiceAccountCredentials(info, source=source)
    if kind == "authorized_user":
        return AuthorizedUserCredentials(info, source=source)
    shown = repr(kind[:60]) if isinstance(kind, str) else type(kind).__name__
    raise CredentialsError(f"{source}: type {shown} is not supported (service_account and authorized_user are)")


def gcloud_credentials_path(environ: Mapping[str, str] | None = None) -> str:
    """Where ``gcloud auth application-default login`` writes its file, as google-auth finds it."""
    env = os.environ if environ is None else environ
    folder = env.get("CLOUDSDK_CONFIG")
    if not folder:
        if os.name == "nt":
            appdata = env.get("APPDATA")
            folder = os.path.join(appdata, "gcloud") if appdata else os.path.join(env.get("SystemDrive", "C:"), "\\", "gcloud")
        else:
            folder = os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    return os.path.join(folder, _CREDENTIALS_FILE)


def gcloud_project(environ: Mapping[str, str] | None = None) -> str | None:
    """The project gcloud is set to (``gcloud config get project``), read from its files: ``CLOUDSDK_CORE_PROJECT``,
    else ``[core] project`` of the active configuration (``CLOUDSDK_ACTIVE_CONFIG_NAME``, else ``active_config``)."""
    import configparser

    env = os.environ if environ is None else environ
    if env.get("CLOUDSDK_CORE_PROJECT"):
        return env["CLOUDSDK_CORE_PROJECT"]
    folder = os.path.dirname(gcloud_credentials_path(env))
    name = env.get("CLOUDSDK_ACTIVE_CONFIG_NAME")
    try:
        if not name:
            with open(os.path.join(folder, "active_config"), encoding="utf-8") as file:
                name = file.read().strip() or "default"
        config = configparser.ConfigParser(interpolation=None)
        config.read(os.path.join(folder, "configurations", f"config_{name}"), encoding="utf-8")
    except (OSError, UnicodeError, configparser.Error):
        return None
    project = config.get("core", "project", fallback="").strip()
    return project or None


_cache_lock = threading.Lock()
_cache: dict[tuple[str, bytes], GoogleCredentials] = {}


def _from_file(path: str, what: str) -> GoogleCredentials:
    from ..jsontext import parse_json

    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise CredentialsError(f"{what} names {path!r}, which cannot be read: {exc.strerror or type(exc).__name__}") from None
    with _cache_lock:  # the same file gives the same credential, and so its cached token
        found = _cache.get((path, data))
        if found is None:
            try:
                info = parse_json(data)  # nesting bounded: no file exhausts the stack
            except ValueError:
                raise CredentialsError(f"{path}: not a JSON credential file") from None
            found = _cache[(path, data)] = credentials_from_info(info, source=path)  # type: ignore[arg-type]  # refuses a non-object
        return found


def default_credentials(environ: Mapping[str, str] | None = None) -> GoogleCredentials:
    """The Application Default Credentials, found as google-auth finds them (see the module's docstring).

    ``environ`` replaces ``os.environ``.  The same file (path and contents)
    gives the same credential object, so its token is shared across calls.
    Nothing is sent here; the metadata server is probed at the first token.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        return _from_file(explicit, "GOOGLE_APPLICATION_CREDENTIALS")
    gcloud = gcloud_credentials_path(env)
    if os.path.isfile(gcloud):
        user = _from_file(gcloud, "gcloud's application default credentials")
        if user.project is None:  # a user's credential names none: gcloud's own setting, as google-auth reads it
            user.project = gcloud_project(env)
        return user
    host = env.get("GCE_METADATA_HOST") or env.get("GCE_METADATA_ROOT") or METADATA_HOST
    probe = None if host != METADATA_HOST else env.get("GCE_METADATA_IP") or METADATA_IP
    missing = (
        f"GOOGLE_APPLICATION_CREDENTIALS is not set, there is no {gcloud} (run `gcloud auth application-default login`), "
        "and no metadata server answered (this is not a Google Cloud machine); or give the access token as api_key="
    )
    key = ("metadata:" + host + " " + (probe or ""), b"")
    with _cache_lock:
        found = _cache.get(key)
        if found is None:
            found = _cache[key] = MetadataCredentials(host=host, probe=probe, missing=missing)
        return found


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
