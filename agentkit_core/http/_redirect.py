"""Following redirects as httpx does with ``follow_redirects=True`` (the SDKs' setting): pure functions, no I/O.

* 301, 302, 303, 307 and 308 with a ``Location`` are followed; any other
  status (304, 300, a 3xx without ``Location``) is the answer.
* 303 becomes ``GET`` (a ``HEAD`` stays ``HEAD``), and so does a 302 of any
  method but ``HEAD`` and a 301 of a ``POST``: without the body and without
  the headers that describe it (``content-*``, ``transfer-encoding``).
  307 and 308 keep the method and the body.
* ``Location`` is resolved against the URL it answered; its fragment is
  dropped, and a URL that is not ``http(s)://`` is a :class:`TransportError`.
* A redirect to another origin (scheme, host or port differ; an ``http``
  to ``https`` upgrade on the same host, default ports, excepted, as in
  httpx) drops every credential header (:data:`SECRET_HEADERS`:
  ``authorization``, ``x-api-key``, ``x-goog-api-key``, ``cookie``, ...,
  and those the request marks in ``secret_headers``).
  A ``Host`` the caller set is dropped on every hop.
* At most :data:`MAX_REDIRECTS` hops, and never the same request twice
  (:func:`check_hop`): a loop is a :class:`TransportError` at once.

:func:`next_request` decides one hop; ``send()`` and ``asend()`` both call it.
"""

from __future__ import annotations

from typing import Mapping, Sequence, Tuple

from ._errors import TransportError
from ._request import DEFAULT_PORTS, Request, redact_url, url_origin

__all__ = ("next_request", "check_hop", "MAX_REDIRECTS", "REDIRECT_STATUSES", "same_origin")

#: The most redirects one send follows (httpx's default).
MAX_REDIRECTS = 20
#: The statuses that are followed.
REDIRECT_STATUSES = frozenset((301, 302, 303, 307, 308))


def _origin(url: str) -> tuple[str, str, int | None]:
    from urllib.parse import urlsplit

    return url_origin(urlsplit(url))


def same_origin(a: str, b: str) -> bool:
    """Whether URLs ``a`` and ``b`` share scheme, host and port (an http to https upgrade of the same host counts)."""
    first, second = _origin(a), _origin(b)
    if first == second:
        return True
    return first == ("http", second[1], 80) and second[0] == "https" and second[2] == 443


def _method(method: str, status: int) -> str:
    if status in (302, 303) and method != "HEAD" or status == 301 and method == "POST":
        return "GET"
    return method


def next_request(request: Request, status: int, headers: Mapping[str, str]) -> Request | None:
    """The request to send after ``request`` was answered ``status`` with ``headers`` (lower-case names), or ``None``.

    ``None`` when the answer is not a redirect to follow.  A ``Location``
    that is no ``http(s)`` URL raises :class:`TransportError`.
    """
    if status not in REDIRECT_STATUSES:
        return None
    location = headers.get("location", "").strip()
    if not location:
        return None
    from urllib.parse import urldefrag, urljoin

    try:
        url = urldefrag(urljoin(request.url, location))[0]
    except ValueError:
        url = ""
    scheme, host, _ = _origin(url)
    if scheme not in DEFAULT_PORTS or not host:
        raise TransportError(
            f"{redact_url(request.url)} redirected (HTTP {status}) to {redact_url(location)!r}, which is not an http(s) URL",
            retryable=False,
        )
    method = _method(request.method, status)
    kept: Sequence[Tuple[str, str]] = request.headers
    body = request.body
    if method != request.method:
        body = b""
        kept = [(k, v) for k, v in kept if not k.lower().startswith("content-") and k.lower() != "transfer-encoding"]
    cross = not same_origin(request.url, url)
    kept = [(k, v) for k, v in kept if k.lower() != "host" and not (cross and request.is_secret(k))]
    try:
        return Request(method, url, kept, body, request.secret_headers, None if cross else request.auth)
    except ValueError as exc:
        raise TransportError(f"{redact_url(request.url)} redirected (HTTP {status}) to a URL that cannot be sent: {exc}", retryable=False) from None


def check_hop(seen: Sequence[Tuple[str, str]], following: Request) -> None:
    """Raise :class:`TransportError` if ``following`` is a hop too many or a loop; ``seen`` holds the (method, url) sent so far."""
    if (following.method, following.url) in seen:
        raise TransportError(f"redirect loop: {following.method} {redact_url(following.url)} again after {len(seen) - 1} redirects", retryable=False)
    if len(seen) > MAX_REDIRECTS:
        raise TransportError(f"too many redirects: more than {MAX_REDIRECTS}, the last to {redact_url(following.url)}", retryable=False)
