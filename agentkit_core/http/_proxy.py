"""Which proxy a request goes through, read as urllib, requests and httpx read it.

The proxy map is ``urllib.request.getproxies()`` (the ``*_proxy``
environment variables, either case; the system settings on macOS and
Windows) unless the transport was given one.  A request by ``scheme`` uses
the map's ``scheme`` entry, else its ``all`` entry (``ALL_PROXY``), unless
the host is bypassed (``NO_PROXY`` as ``urllib`` reads it, or the given
map's ``no`` entry).  A proxy URL without a scheme is ``http://``; without a
port it uses 80 (``http://``) or 443 (``https://``), as those libraries do.
An ``https://`` proxy is spoken to over TLS.

A proxy is named in messages by host and port only (:attr:`Proxy.where`):
its credentials never show.
"""

from __future__ import annotations

from typing import Callable, Hashable, Mapping, NamedTuple
from urllib.parse import unquote, urlsplit

from ._errors import TransportError
from ._request import DEFAULT_PORTS, Request, redact_url, url_origin

__all__ = ("Proxy", "Route", "route_of", "parse_proxy", "choose_proxy", "environment_proxies", "bracketed", "hostport", "bypassed")


def bracketed(host: str) -> str:
    """``host`` as a URL or ``Host`` header writes it: an IPv6 literal in brackets (``[::1]``)."""
    return f"[{host}]" if ":" in host else host


def hostport(host: str, port: int) -> str:
    """``host:port``, an IPv6 literal in brackets (``[::1]:8443``)."""
    return f"{bracketed(host)}:{port}"


class Proxy(NamedTuple):
    """A proxy: its scheme (``http`` or ``https``), host, port and ``Proxy-Authorization`` header (if any)."""

    scheme: str
    host: str
    port: int
    auth: tuple[tuple[str, str], ...]
    url: str  # as given: a pool key, never shown

    @property
    def where(self) -> str:
        """``proxy host:port``, for messages (no credentials)."""
        return f"proxy {hostport(self.host, self.port)}"


def parse_proxy(url: str) -> Proxy:
    """The :class:`Proxy` of a proxy URL; :class:`TransportError` if it is none this transport can use."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    scheme, host, port = url_origin(parts)
    hostpart = parts.netloc.rpartition("@")[2]
    if scheme not in DEFAULT_PORTS:
        raise TransportError(f"the proxy {scheme}://{hostpart} is not an http:// or https:// proxy (the only kinds this transport speaks)", retryable=False)
    if port is None:
        raise TransportError(f"bad port in the proxy URL {scheme}://{hostpart}", retryable=False)
    if not host:
        raise TransportError(f"the proxy URL {scheme}://{hostpart} has no host", retryable=False)
    auth: tuple[tuple[str, str], ...] = ()
    if parts.username is not None:
        import base64

        token = base64.b64encode(f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()).decode("ascii")
        auth = (("Proxy-Authorization", f"Basic {token}"),)
    return Proxy(scheme, host, port, auth, url)


def bypassed(host: str, no_proxy: str) -> bool:
    """Whether ``no_proxy`` (comma-separated names, ``.suffix`` or ``*``) exempts ``host``."""
    names = [n.strip().lstrip(".").lower() for n in no_proxy.split(",") if n.strip()]
    host = host.lower()
    return "*" in names or any(host == n or host.endswith("." + n) for n in names)


def environment_proxies() -> dict[str, str]:
    """The ``http``, ``https``, ``all`` and ``no`` entries of the ``*_proxy`` variables, as ``urllib`` reads them.

    The lower-case variable wins over the upper-case one (an empty one
    removes the entry); ``HTTP_PROXY`` is ignored when ``REQUEST_METHOD`` is
    set (a CGI request could set it).  Eight lookups, where
    ``urllib.request.getproxies()`` walks the whole environment twice.
    """
    import os

    env = os.environ
    found: dict[str, str] = {}
    for key in ("http", "https", "all", "no"):
        value = env.get(f"{key}_proxy")
        if value is None and not (key == "http" and "REQUEST_METHOD" in env):
            value = env.get(f"{key.upper()}_PROXY")
        if value:
            found[key] = value
    return found


def choose_proxy(proxies: Mapping[str, str] | None, scheme: str, host: str) -> str | None:
    """The proxy URL a request to ``host`` by ``scheme`` goes through (``None`` for none); ``proxies=None`` reads the environment."""
    if proxies is None:
        import sys

        found = environment_proxies()
        if not found and sys.platform in ("darwin", "win32"):  # the system's settings, as urllib reads them
            import urllib.request

            system = urllib.request.getproxies()
            proxy = system.get(scheme) or system.get("all")
            return proxy if proxy and not urllib.request.proxy_bypass(host) else None
        proxy = found.get(scheme) or found.get("all")
        if not proxy:
            return None  # no proxy: urllib.request (http.client, email: some 14 ms) is not imported for nothing
        import urllib.request

        return None if urllib.request.proxy_bypass_environment(host, found) else proxy  # type: ignore[attr-defined]
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy:
        return None
    return None if bypassed(host, proxies.get("no", "")) else proxy


class Route(NamedTuple):
    """Where a request goes: the origin, the proxy (if any), the request target and the pool key."""

    scheme: str
    host: str
    port: int
    proxy: Proxy | None
    tunnel: bool  # https through the proxy: CONNECT, then TLS to the origin
    target: str
    key: Hashable


def route_of(request: Request, proxy_for: Callable[[str, str], str | None]) -> Route:
    """Where ``request`` goes, ``proxy_for(scheme, host)`` giving the proxy URL (or ``None``)."""
    parts = urlsplit(request.url)
    scheme, host, port = url_origin(parts)
    if port is None:
        raise TransportError(f"bad port in {redact_url(request.url)!r}", retryable=False)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxy_url = proxy_for(scheme, host)
    if proxy_url is None:
        return Route(scheme, host, port, None, False, target, (scheme, host, port))
    proxy = parse_proxy(proxy_url)
    if scheme == "https":
        return Route(scheme, host, port, proxy, True, target, ("tunnel", proxy_url, host, port))
    return Route(scheme, host, port, proxy, False, request.url.split("#")[0], ("proxy", proxy_url))
