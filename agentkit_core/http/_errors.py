"""The errors of sending: a provider's error answer, and a transport that failed.

A cancelled send raises the package's :class:`~agentkit_core.TurnCancelledError`
(the exception a cancelled checkpoint raises everywhere), never an error of
this module and never a quiet end of the body.  Both errors here pickle
intact and report ``agentkit_core.http`` as their module.  Neither ever holds
an API key: messages name the URL with its credentials hidden.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping, Tuple, Union

from ..error import AgentError

__all__ = ("HttpError", "ProviderError", "TransportError", "Headers", "BODY_KEPT", "lower_headers")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__

#: How much of an error answer's body :class:`ProviderError` keeps, in bytes.
BODY_KEPT = 64 * 1024


def lower_headers(pairs: Iterable[Tuple[str, str]]) -> dict[str, str]:
    """Header pairs as a dict, names in lower case, a repeated one's values joined with ``", "`` (RFC 9110, 5.3)."""
    found: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        found[key] = f"{found[key]}, {value}" if key in found else value
    return found


class Headers(Mapping[str, str]):
    """An answer's headers, read-only, looked up in any case; repeated ones joined with ``", "``."""

    __slots__ = ("_map",)

    def __init__(self, headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = ()) -> None:
        self._map = lower_headers(headers.items() if isinstance(headers, Mapping) else headers)

    def __getitem__(self, name: str) -> str:
        return self._map[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._map

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._map == {str(k).lower(): v for k, v in other.items()}
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Headers({self._map!r})"

    def __reduce__(self) -> tuple[type[Headers], tuple[tuple[tuple[str, str], ...]]]:
        return (Headers, (tuple(self._map.items()),))


Headers.__module__ = _PUBLIC_MODULE


def _attempts(retried: int) -> str:
    return f" (after {retried + 1} attempts)" if retried else ""


class HttpError(AgentError):
    """Base of the errors :func:`~agentkit_core.http.send` raises (besides a cancellation)."""

    __module__ = _PUBLIC_MODULE


class ProviderError(HttpError):
    """The provider answered with an error status (after any retries).

    ``status`` is the HTTP status; ``error_type`` the provider's own name for
    the error (Anthropic's ``error.type``, OpenAI's ``error.type`` or
    ``code``, Gemini's ``error.status``), ``""`` when it gave none;
    ``message`` its message (or the status's reason); ``request_id`` the
    request id it sent back (a header or the body), ``""`` when none;
    ``body`` the raw body, at most :data:`BODY_KEPT` bytes of it;
    ``headers`` the answer's :class:`Headers` (``retry-after``, the
    rate-limit ones); ``retried`` how many times the request was retried
    before this answer (``str()`` then says how many attempts were made).
    """

    __module__ = _PUBLIC_MODULE

    def __init__(
        self,
        status: int,
        error_type: str,
        message: str,
        request_id: str = "",
        body: bytes = b"",
        headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = (),
        retried: int = 0,
    ) -> None:
        body = bytes(body[:BODY_KEPT])
        kept = headers if isinstance(headers, Headers) else Headers(headers)
        super().__init__(status, error_type, message, request_id, body, kept, retried)
        self.status = status
        self.error_type = error_type
        self.message = message
        self.request_id = request_id
        self.body = body
        self.headers = kept
        self.retried = retried

    def __str__(self) -> str:
        kind = f" {self.error_type}" if self.error_type else ""
        rid = f" (request id {self.request_id})" if self.request_id else ""
        return f"HTTP {self.status}{kind}: {self.message}{rid}{_attempts(self.retried)}"


class TransportError(HttpError):
    """No usable answer came: a connection failed or broke, a TLS check failed, or a timeout passed.

    ``timed_out`` is true for a timeout (connecting, or no byte for the
    idle timeout while waiting for or reading the answer).  ``retried``
    says how many times the request was retried before this (``str()``
    then says how many attempts were made).  ``retryable`` is false for a
    failure that cannot go away by trying again (a certificate that does not
    verify, a URL or header that cannot be sent, a redirect loop):
    ``send()`` never retries those.
    """

    __module__ = _PUBLIC_MODULE

    def __init__(self, message: str, timed_out: bool = False, retried: int = 0, retryable: bool = True) -> None:
        super().__init__(message, timed_out, retried, retryable)
        self.message = message
        self.timed_out = timed_out
        self.retried = retried
        self.retryable = retryable

    def __str__(self) -> str:
        return f"{self.message}{_attempts(self.retried)}"
