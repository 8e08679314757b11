"""A request as a value: method, URL, headers and body bytes, with its secrets kept out of sight.

Building a request is pure (the provider modules' ``http_request`` does it);
only :func:`~agentkit_core.http.send` touches the network.  The headers that
carry a credential (``authorization``, ``x-api-key``, ``x-goog-api-key``, ...)
and a ``key=`` in the query are shown as ``'***'`` by ``repr`` and by every
error message the package writes; :meth:`Request.secrets` lists their values
so an error answer that echoes one (``Incorrect API key provided: sk-...``)
has it replaced too (:func:`redact`).  A request can mark more of its
headers as credentials (``secret_headers``: a gateway's own key header, say);
they are hidden the same way, and a redirect to another origin drops them.

A URL's path, query and fragment are percent-encoded as UTF-8 where they
hold non-ASCII characters (``%XX`` already there stays as it is), a
non-ASCII host name becomes its IDNA form; a header whose name or value the
wire cannot carry (a control character, anything but ASCII) is refused when
the request is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, Mapping, Tuple, Union

if TYPE_CHECKING:
    from urllib.parse import SplitResult

__all__ = ("Request", "Auth", "SECRET_HEADERS", "DEFAULT_PORTS", "url_origin", "redact_url", "redact", "joined_later", "body_pieces")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__

#: Header names (lower case) whose values are credentials: never shown.
SECRET_HEADERS = frozenset(
    ("authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie", "set-cookie")
)
#: A header name any of whose dash- or underscore-separated words is one of these carries a credential too
#: (a gateway's ``cf-aig-authorization``, ``helicone-auth``, ``x-portkey-api-key``, ``ocp-apim-subscription-key``).
_SECRET_WORDS = frozenset(("key", "apikey", "token", "secret", "auth", "authorization", "password", "credential", "credentials", "cookie"))
_METHODS = frozenset(("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"))
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_SECRET_QUERY = re.compile(r"([?&](?:key|api_key|api-key|access_token)=)([^&#]*)", re.I)
#: A secret shorter than this is not searched for in text (it would hide ordinary words).
_SHORTEST_SECRET = 6
_ASCII = "".join(map(chr, range(128)))
_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#@]*@")

HeadersLike = Union[Mapping[str, str], Iterable[Tuple[str, str]]]
#: What signs a request when it is sent (:attr:`Request.auth`): the request in, the request with its credentials out
#: (an awaitable of it is accepted by ``asend``).
Auth = Callable[["Request"], Union["Request", Awaitable["Request"]]]
#: The port a URL of each scheme means when it names none.
DEFAULT_PORTS = {"http": 80, "https": 443}


def url_origin(parts: SplitResult) -> tuple[str, str, int | None]:
    """A split URL's origin: scheme (lower case), host (lower case, an IPv6 literal unbracketed) and port.

    The port is the scheme's default when the URL names none (0 for a scheme
    without one), ``None`` when what it names is no port (``:x``, ``:99999``).
    The one rule for routing a request, naming a proxy and comparing origins
    across a redirect.
    """
    scheme = parts.scheme.lower()
    try:
        port: int | None = parts.port or DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        port = None
    return scheme, parts.hostname or "", port


def redact_url(url: str) -> str:
    """``url`` with a ``key=`` (or ``api_key=``, ``access_token=``) query value and any user:password hidden."""
    return _USERINFO.sub(r"\1***@", _SECRET_QUERY.sub(r"\1***", url))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every one of ``secrets`` (longest first) replaced by ``***``."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "***")
    return text


def _encode_url(url: str, scheme: str, rest: str) -> str:
    """``url`` with a non-ASCII path, query and fragment percent-encoded as UTF-8 and a non-ASCII host in IDNA."""
    from urllib.parse import quote

    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    if not netloc.isascii():
        userinfo, at, hostport = netloc.rpartition("@")
        host, colon, port = hostport.partition(":") if not hostport.startswith("[") else (hostport, "", "")
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"Request.url: the host {host!r} is not a valid international domain name") from None
        netloc = f"{userinfo}{at}{host}{colon}{port}"
    if not tail.isascii():
        tail = quote(tail, safe=_ASCII)  # only what is not ASCII; white space and controls are refused after
    return f"{scheme}://{netloc}{tail}"


def _checked_secret_names(names: object) -> tuple[str, ...]:
    """The header names a request marks as credentials, lower case, sorted, each once."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise TypeError(f"Request.secret_headers: expected header names (an iterable of strings), found {type(names).__name__}")
    found: set[str] = set()
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"Request.secret_headers: expected header names as strings, found {type(name).__name__}")
        if not _TOKEN.fullmatch(name):
            raise ValueError(f"Request.secret_headers: {name!r} is not a header name")
        found.add(name.lower())
    return tuple(sorted(found))


def _names_secret(lower: str, marked: tuple[str, ...]) -> bool:
    """Whether the header named ``lower`` carries a credential: a known one, a marked one, or one named as one."""
    if lower in SECRET_HEADERS or lower in marked:
        return True
    return not _SECRET_WORDS.isdisjoint(lower.replace("_", "-").split("-"))


def _checked_headers(headers: object, secret: tuple[str, ...] = ()) -> tuple[tuple[str, str], ...]:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"Request.headers: expected a mapping or pairs of strings, found {type(headers).__name__}")
    out = []
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise TypeError("Request.headers: expected pairs of strings (name, value)")
        name, value = pair
        if not _TOKEN.fullmatch(name):
            raise ValueError(f"Request.headers: {name!r} is not a header name (letters, digits and !#$%&'*+.^_`|~- only)")
        if _BAD_VALUE.search(value) or not value.isascii():
            hidden = _names_secret(name.lower(), secret)
            what = "its value (a credential, not shown)" if hidden else repr(value)
            why = "a control character" if _BAD_VALUE.search(value) else "a character that is not ASCII"
            raise ValueError(f"Request.headers[{name!r}]: {why} in {what}: HTTP/1.1 cannot carry it")
        out.append((name, value))
    return tuple(out)


class _Later:
    """Where a :class:`Request` made by :func:`joined_later` keeps its body's pieces until ``body`` is first read."""

    __slots__ = ("_pieces",)


@dataclass(frozen=True, slots=True, repr=False, init=False)
class Request(_Later):
    """One HTTP request, checked when made; ``repr`` hides credentials.

    ``method`` is an upper-case HTTP method, ``url`` an ``http://`` or
    ``https://`` URL with a host, ``headers`` a mapping or ``(name, value)``
    pairs (kept in order, as pairs), ``body`` bytes.  ``secret_headers``
    names headers beyond :data:`SECRET_HEADERS` whose values are credentials
    (kept lower case): hidden like those, and dropped by a redirect to another
    origin.  Wrong types raise ``TypeError``, wrong values ``ValueError``,
    naming the field.

    ``auth`` signs the request each time it is sent: ``send()`` and
    ``asend()`` call ``auth(request)`` right before every attempt (a retry
    included, and a redirect to the same origin; one to another origin drops
    it) and send the request it returns, so a signature with a time in it
    (AWS Signature Version 4) or a short-lived token (a refreshed OAuth
    access token) is fresh on each try.  ``asend()`` awaits what it returns
    when that is awaitable.  It is no part of equality or ``repr``.
    """

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    secret_headers: tuple[str, ...]
    auth: Auth | None = field(default=None, compare=False)

    def __init__(
        self,
        method: str,
        url: str,
        headers: HeadersLike = (),
        body: bytes = b"",
        secret_headers: Iterable[str] = (),
        auth: Auth | None = None,
    ) -> None:
        if not isinstance(method, str):
            raise TypeError(f"Request.method: expected a string, found {type(method).__name__}")
        if method not in _METHODS:
            raise ValueError(f"Request.method: {method!r} is not one of {', '.join(sorted(_METHODS))}")
        if not isinstance(url, str):
            raise TypeError(f"Request.url: expected a string, found {type(url).__name__}")
        scheme, sep, rest = url.partition("://")
        if not sep or scheme.lower() not in ("http", "https") or not rest or rest[0] in "/?#":
            raise ValueError(f"Request.url: expected an http:// or https:// URL with a host, found {redact_url(url)!r}")
        if not url.isascii():
            url = _encode_url(url, scheme, rest)
        if any(c.isspace() or not c.isprintable() for c in url):
            raise ValueError(f"Request.url: white space or a control character in {redact_url(url)!r}")
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"Request.body: expected bytes, found {type(body).__name__}")
        secret = () if secret_headers == () else _checked_secret_names(secret_headers)
        checked = _checked_headers(headers, secret)
        if auth is not None and not callable(auth):
            raise TypeError(f"Request.auth: expected a callable that signs a request, found {type(auth).__name__}")
        fields = (("method", method), ("url", url), ("headers", checked), ("body", bytes(body)), ("secret_headers", secret), ("auth", auth))
        for name, value in fields:
            object.__setattr__(self, name, value)

    if not TYPE_CHECKING:  # hidden from type checkers: to them a Request has its fields and nothing else

        def __getattr__(self, name):
            # Only reached for an attribute not set: the body of a request made by joined_later, joined at its first read.
            if name != "body":
                raise AttributeError(f"'Request' object has no attribute {name!r}")
            body = b"".join(self._pieces)
            object.__setattr__(self, "body", body)  # equal bytes whichever thread sets it
            return body

    @staticmethod
    def _joined_later(request: Request, pieces: Iterable[bytes]) -> Request:
        """:func:`joined_later`, for the provider modules (which import only the HTTP package's public names)."""
        return joined_later(request, pieces)

    def header(self, name: str) -> str | None:
        """The value of the first header called ``name`` (any case), or ``None``."""
        lower = name.lower()
        return next((v for k, v in self.headers if k.lower() == lower), None)

    def is_secret(self, name: str) -> bool:
        """Whether the header ``name`` (any case) carries a credential.

        One of :data:`SECRET_HEADERS` or of ``secret_headers``, or a name any of
        whose words says so (``...-key``, ``...-token``, ``...-auth``, ``...-secret``:
        a gateway's own key header is hidden without being marked).
        """
        return _names_secret(name.lower(), self.secret_headers)

    def secrets(self) -> tuple[str, ...]:
        """The credential values this request carries (secret headers, their tokens, ``key=`` query values, URL passwords)."""
        found: list[str] = []
        for name, value in self.headers:
            if self.is_secret(name):
                found.append(value.strip())
                found.append(value.strip().rpartition(" ")[2])  # the token after "Bearer " or "Basic "
        found += [m.group(2) for m in _SECRET_QUERY.finditer(self.url)]
        userinfo = _USERINFO.match(self.url)
        if userinfo:
            found.append(self.url[userinfo.end(1) : userinfo.end() - 1].partition(":")[2])
        return tuple(dict.fromkeys(s for s in found if len(s) >= _SHORTEST_SECRET))

    def redacted_headers(self) -> tuple[tuple[str, str], ...]:
        """The headers with every credential's value replaced by ``'***'``."""
        return tuple((k, "***" if self.is_secret(k) else v) for k, v in self.headers)

    def __repr__(self) -> str:
        size = sum(map(len, body_pieces(self)))
        return (
            f"Request({self.method!r}, {redact_url(self.url)!r}, headers={dict(self.redacted_headers())!r}, "
            f"body=<{size} byte{'' if size == 1 else 's'}>)"
        )

    def __reduce__(self) -> tuple[type[Request], tuple[object, ...]]:
        fields = (self.method, self.url, self.headers, self.body, self.secret_headers)
        return (Request, fields if self.auth is None else (*fields, self.auth))

    def signed(self) -> Request:
        """The request as it is sent: ``auth(self)`` (checked to be a :class:`Request`), or itself without ``auth``."""
        if self.auth is None:
            return self
        out = self.auth(self)
        if not isinstance(out, Request):
            raise TypeError(f"Request.auth: expected the signer to return a Request, found {type(out).__name__}")
        return out

    async def asigned(self) -> Request:
        """:meth:`signed`, awaiting what ``auth`` returns when it is awaitable (a signer that fetches a token on the loop)."""
        if self.auth is None:
            return self
        out = self.auth(self)
        if not isinstance(out, Request):
            out = await out
        if not isinstance(out, Request):
            raise TypeError(f"Request.auth: expected the signer to return a Request, found {type(out).__name__}")
        return out


Request.__module__ = _PUBLIC_MODULE


def joined_later(request: Request, pieces: Iterable[bytes]) -> Request:
    """``request`` (made with an empty body) with the body ``b"".join(pieces)``, joined only when ``body`` is first read.

    A request's ``body`` is ``bytes`` to every reader; a transport that writes
    pieces (:func:`body_pieces`: the socket transport) sends them without
    joining them, so a body built from a long session's kept JSON is not
    copied into one new object every turn.  Equality, hash, ``repr`` and
    pickling are those of the request with the joined body.
    """
    kept = tuple(pieces)
    if request.body or not all(type(p) is bytes for p in kept):
        raise ValueError("joined_later: expected a request with an empty body and pieces of bytes")
    object.__delattr__(request, "body")
    object.__setattr__(request, "_pieces", kept)
    return request


def body_pieces(request: Request) -> tuple[bytes, ...]:
    """The pieces that, joined, are ``request.body``, read without joining them."""
    try:
        return request._pieces  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        return (request.body,)
