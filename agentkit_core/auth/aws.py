"""AWS Signature Version 4, written from AWS's specification, with credentials found as botocore finds them.

The signature (AWS's "Create a signed AWS API request"): a canonical request
(the method; the path, normalised and URI-encoded, each character but
``A-Z a-z 0-9 - _ . ~ /`` as ``%XX``, so a path already percent-encoded on
the wire is encoded again, as botocore does for every service but S3; the
query's names and values URI-encoded and sorted; every header but
``user-agent``, ``expect``, ``transfer-encoding`` and ``x-amzn-trace-id``,
names in lower case, values trimmed and inner runs of white space made one
space, repeated ones joined with ``,``, sorted, plus ``host``; the signed
headers' names; the SHA-256 of the body), hashed into the string to sign
(``AWS4-HMAC-SHA256``, the time, the scope ``date/region/service/aws4_request``),
signed with a key derived by HMAC-SHA256 from the secret through the date,
region, service and ``aws4_request``.  ``x-amz-date`` (and
``x-amz-security-token`` for temporary credentials) are set before signing;
``x-amz-content-sha256`` only when asked (S3 wants it; botocore sends none
to Bedrock).  ``tools/sigv4_compare.py`` checks it byte for byte against
botocore's ``SigV4Auth``; the suite checks AWS's published test vectors.

:class:`SigV4Signer` is a :attr:`~agentkit_core.http.Request.auth`: the
time is read each time it signs, so ``send()`` signs each attempt afresh.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Tuple

from ..http import Request
from ..http._request import DEFAULT_PORTS

__all__ = (
    "AwsCredentials",
    "SigV4Signer",
    "sign",
    "canonical_request",
    "string_to_sign",
    "signing_key",
    "credentials_from_environment",
    "region_from_environment",
    "EMPTY_SHA256",
)

_PUBLIC_MODULE = __name__

#: The SHA-256 of no bytes, the payload hash of a request without a body.
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_ALGORITHM = "AWS4-HMAC-SHA256"
#: Headers never signed: a proxy or the client library may change them on the way (botocore's list).
_UNSIGNED = frozenset(("expect", "transfer-encoding", "user-agent", "x-amzn-trace-id", "authorization"))
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def _hidden(value: str) -> str:
    return "***" if value else "''"


@dataclass(frozen=True, slots=True, repr=False)
class AwsCredentials:
    """An AWS access key: its id, its secret, and the session token of temporary credentials (``""`` if none).

    ``repr`` shows the key id only; the secret and the token are never shown.
    """

    access_key_id: str
    secret_access_key: str
    session_token: str = field(default="")

    def __post_init__(self) -> None:
        for name in ("access_key_id", "secret_access_key", "session_token"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"AwsCredentials.{name}: expected a string, found {type(value).__name__}")
        for name in ("access_key_id", "secret_access_key"):
            if not getattr(self, name).strip():
                raise ValueError(f"AwsCredentials.{name}: expected a value, found an empty string")

    def __repr__(self) -> str:
        token = f", session_token={_hidden(self.session_token)}" if self.session_token else ""
        return f"AwsCredentials(access_key_id={self.access_key_id!r}, secret_access_key=***{token})"

    def __reduce__(self) -> tuple[type[AwsCredentials], tuple[str, str, str]]:
        return (AwsCredentials, (self.access_key_id, self.secret_access_key, self.session_token))


AwsCredentials.__module__ = _PUBLIC_MODULE


def _uri_encode(text: str, keep_slash: bool) -> str:
    """``text`` as UTF-8 with every byte but the unreserved ones (and ``/`` if kept) as ``%XX`` (upper-case hex)."""
    out = []
    for byte in text.encode("utf-8"):
        if byte in _UNRESERVED or (keep_slash and byte == 0x2F):
            out.append(chr(byte))
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _normalized_path(path: str) -> str:
    """``path`` without ``.`` and ``..`` segments and empty ones (``//``), a leading and trailing ``/`` kept."""
    if not path:
        return "/"
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if kept:
                kept.pop()
        elif segment and segment != ".":
            kept.append(segment)
    tail = "/" if path.endswith("/") and kept else ""
    return "/" + "/".join(kept) + tail


def _canonical_query(query: str) -> str:
    """The query's ``name=value`` pairs, each side decoded then URI-encoded, sorted."""
    from urllib.parse import unquote

    pairs = []
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        pairs.append((_uri_encode(unquote(name), False), _uri_encode(unquote(value), False)))
    return "&".join(f"{n}={v}" for n, v in sorted(pairs))


def canonical_request(
    method: str, path: str, query: str, headers: Iterable[Tuple[str, str]], payload_hash: str
) -> tuple[str, str]:
    """The canonical request and the signed headers' names (``host;x-amz-date``) of a request.

    ``path`` is the path as a text to encode (a path taken from a URL is
    encoded a second time, as every service but S3 expects), ``query`` the
    query string without ``?``, ``headers`` every header to sign (``host``
    included), ``payload_hash`` the hex SHA-256 of the body.
    """
    joined: dict[str, list[str]] = {}
    for name, value in headers:
        lower = name.lower()
        if lower not in _UNSIGNED:
            joined.setdefault(lower, []).append(" ".join(value.split()))
    names = sorted(joined)
    canonical_headers = "".join(f"{name}:{','.join(joined[name])}\n" for name in names)
    signed = ";".join(names)
    uri = _uri_encode(_normalized_path(path), True)
    return "\n".join((method, uri, _canonical_query(query), canonical_headers, signed, payload_hash)), signed


def string_to_sign(amz_date: str, scope: str, canonical: str) -> str:
    """What is signed: the algorithm, the time (``20150830T123600Z``), the scope and the canonical request's SHA-256."""
    return f"{_ALGORITHM}\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode('utf-8')).hexdigest()}"


def signing_key(secret_access_key: str, date: str, region: str, service: str) -> bytes:
    """The key of one day, region and service: HMAC-SHA256 from ``"AWS4" + secret`` through each, then ``aws4_request``."""
    key = ("AWS4" + secret_access_key).encode("utf-8")
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode("utf-8"), hashlib.sha256).digest()
    return key


def _amz_date(when: float) -> str:
    import time

    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when))


def sign(
    request: Request,
    credentials: AwsCredentials,
    region: str,
    service: str,
    when: float | None = None,
    *,
    content_sha256: bool = False,
) -> Request:
    """``request`` signed with Signature Version 4 at ``when`` (seconds since the epoch; now by default).

    Returns a new :class:`~agentkit_core.http.Request` with ``x-amz-date``,
    ``x-amz-security-token`` (temporary credentials), ``x-amz-content-sha256``
    (if ``content_sha256``) and ``authorization`` set (any earlier ones
    replaced); its ``auth`` is kept.
    """
    import time
    from urllib.parse import urlsplit

    moment = time.time() if when is None else when
    amz_date = _amz_date(moment)
    parts = urlsplit(request.url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    body = request.body
    payload_hash = hashlib.sha256(body).hexdigest() if body else EMPTY_SHA256
    replaced = {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host"}
    headers = [(k, v) for k, v in request.headers if k.lower() not in replaced]
    headers.append(("x-amz-date", amz_date))
    if credentials.session_token:
        headers.append(("x-amz-security-token", credentials.session_token))
    if content_sha256:
        headers.append(("x-amz-content-sha256", payload_hash))
    canonical, signed = canonical_request(request.method, parts.path, parts.query, [("host", host), *headers], payload_hash)
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    key = signing_key(credentials.secret_access_key, amz_date[:8], region, service)
    signature = hmac.new(key, string_to_sign(amz_date, scope, canonical).encode("utf-8"), hashlib.sha256).hexdigest()
    headers.append(
        ("authorization", f"{_ALGORITHM} Credential={credentials.access_key_id}/{scope}, SignedHeaders={signed}, Signature={signature}")
    )
    return Request(request.method, request.url, headers, body, request.secret_headers, request.auth)


class SigV4Signer:
    """A :attr:`~agentkit_core.http.Request.auth` signing with Signature Version 4 each time a request is sent.

    ``credentials`` an :class:`AwsCredentials` (or a callable returning one,
    asked at each signing: credentials that rotate), ``region`` and
    ``service`` the scope (``"us-east-1"``, ``"bedrock"``); ``clock`` gives
    the time (``time.time`` by default).  ``repr`` shows no secret.
    """

    __slots__ = ("credentials", "region", "service", "content_sha256", "clock")

    def __init__(
        self,
        credentials: AwsCredentials | Callable[[], AwsCredentials],
        region: str,
        service: str,
        *,
        content_sha256: bool = False,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not isinstance(credentials, AwsCredentials) and not callable(credentials):
            raise TypeError(f"SigV4Signer.credentials: expected AwsCredentials, found {type(credentials).__name__}")
        for name, value in (("region", region), ("service", service)):
            if not isinstance(value, str):
                raise TypeError(f"SigV4Signer.{name}: expected a string, found {type(value).__name__}")
            if not value or "/" in value or not value.isprintable() or value.strip() != value:
                raise ValueError(f"SigV4Signer.{name}: expected a name like 'us-east-1', found {value[:40]!r}")
        self.credentials = credentials
        self.region = region
        self.service = service
        self.content_sha256 = content_sha256
        self.clock = clock

    def __call__(self, request: Request) -> Request:
        """``request`` signed now."""
        import time

        found = self.credentials if isinstance(self.credentials, AwsCredentials) else self.credentials()
        if not isinstance(found, AwsCredentials):
            raise TypeError(f"SigV4Signer.credentials: the callable returned {type(found).__name__}, not AwsCredentials")
        when = (self.clock or time.time)()
        return sign(request, found, self.region, self.service, when, content_sha256=self.content_sha256)

    def __repr__(self) -> str:
        who = repr(self.credentials) if isinstance(self.credentials, AwsCredentials) else "<callable>"
        return f"SigV4Signer({who}, region={self.region!r}, service={self.service!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (_signer, (self.credentials, self.region, self.service, self.content_sha256, self.clock))


def _signer(
    credentials: AwsCredentials, region: str, service: str, content_sha256: bool, clock: Callable[[], float] | None
) -> SigV4Signer:
    return SigV4Signer(credentials, region, service, content_sha256=content_sha256, clock=clock)


SigV4Signer.__module__ = _PUBLIC_MODULE


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _shared_file(environ: Mapping[str, str], variable: str, default: str) -> str:
    path = environ.get(variable) or os.path.join("~", ".aws", default)
    return os.path.expanduser(path)


def _read_ini(path: str) -> dict[str, dict[str, str]]:
    """The sections of an AWS shared file (``[default]``, ``[profile x]``), ``{}`` if it is missing or unreadable."""
    import configparser

    parser = configparser.RawConfigParser()
    try:
        with open(path, encoding="utf-8") as handle:
            parser.read_file(handle)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return {}
    return {section: dict(parser.items(section)) for section in parser.sections()}


def _profile(env: Mapping[str, str]) -> str:
    """The profile named by ``AWS_PROFILE`` (or ``AWS_DEFAULT_PROFILE``), else ``default``."""
    return env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"


def _config_section(env: Mapping[str, str], profile: str) -> dict[str, str]:
    """The profile's section of the config file (``AWS_CONFIG_FILE``, ``~/.aws/config``): ``[profile name]``, or ``[default]``."""
    config = _read_ini(_shared_file(env, "AWS_CONFIG_FILE", "config"))
    return config.get(profile if profile == "default" else f"profile {profile}", {})


def credentials_from_environment(environ: Mapping[str, str] | None = None) -> AwsCredentials | None:
    """The credentials botocore would find first without a network call: ``None`` when none are set.

    ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY`` (with ``AWS_SESSION_TOKEN``,
    or the older ``AWS_SECURITY_TOKEN``), else the profile ``AWS_PROFILE``
    (or ``default``) of the shared credentials file (``AWS_SHARED_CREDENTIALS_FILE``,
    ``~/.aws/credentials``), else of the config file (``AWS_CONFIG_FILE``,
    ``~/.aws/config``, where it is ``[profile name]``).  ``environ``
    replaces ``os.environ``.
    """
    env = _environ(environ)
    key, secret = env.get("AWS_ACCESS_KEY_ID", ""), env.get("AWS_SECRET_ACCESS_KEY", "")
    if key.strip() and secret.strip():
        return AwsCredentials(key.strip(), secret.strip(), (env.get("AWS_SESSION_TOKEN") or env.get("AWS_SECURITY_TOKEN") or "").strip())
    profile = _profile(env)
    shared = _read_ini(_shared_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials")).get(profile, {})
    for section in (shared, _config_section(env, profile)):
        key, secret = section.get("aws_access_key_id", "").strip(), section.get("aws_secret_access_key", "").strip()
        if key and secret:
            token = (section.get("aws_session_token") or section.get("aws_security_token") or "").strip()
            return AwsCredentials(key, secret, token)
    return None


def region_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The region botocore would use: ``AWS_REGION``, ``AWS_DEFAULT_REGION``, else the profile's ``region`` in the config file."""
    env = _environ(environ)
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if env.get(name, "").strip():
            return env[name].strip()
    region = _config_section(env, _profile(env)).get("region", "").strip()
    return region or None




def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
