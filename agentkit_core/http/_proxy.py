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

from typing import Mapping, NamedTuple
from urllib.parse import unquote, urlsplit

from ._errors import TransportError

__all__ = ("Proxy", "parse_proxy", "choose_proxy", "hostport", "bypassed")


def hostport(host: str, port: int) -> str:
    """``host:port``, an IPv6 literal in brackets (``[::1]:8443``)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


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
    scheme = parts.scheme.lower()
    hostpart = parts.netloc.rpartition("@")[2]
    if scheme not in ("http", "https"):
        raise TransportError(f"the proxy {scheme}://{hostpart} is not an http:// or https:// proxy (the only kinds this transport speaks)")
    try:
        port = parts.port
    except ValueError:
        raise TransportError(f"bad port in the proxy URL {scheme}://{hostpart}") from None
    host = parts.hostname or ""
    if not host:
        raise TransportError(f"the proxy URL {scheme}://{hostpart} has no host")
    auth: tuple[tuple[str, str], ...] = ()
    if parts.username is not None:
        import base64

        token = base64.b64encode(f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()).decode("ascii")
        auth = (("Proxy-Authorization", f"Basic {token}"),)
    return Proxy(scheme, host, port or (443 if scheme == "https" else 80), auth, url)


def bypassed(host: str, no_proxy: str) -> bool:
    """Whether ``no_proxy`` (comma-separated names, ``.suffix`` or ``*``) exempts ``host``."""
    names = [n.strip().lstrip(".").lower() for n in no_proxy.split(",") if n.strip()]
    host = host.lower()
    return "*" in names or any(host == n or host.endswith("." + n) for n in names)


def choose_proxy(proxies: Mapping[str, str] | None, scheme: str, host: str) -> str | None:
    """The proxy URL a request to ``host`` by ``scheme`` goes through (``None`` for none); ``proxies=None`` reads the environment."""
    if proxies is None:
        import urllib.request

        found = urllib.request.getproxies()
        proxy = found.get(scheme) or found.get("all")
        if not proxy:
            return None
        return None if urllib.request.proxy_bypass(host) else proxy
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy:
        return None
    return None if bypassed(host, proxies.get("no", "")) else proxy
