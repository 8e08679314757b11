"""The errors of sending: a provider's error answer, and a transport that failed.

A cancelled send raises the package's :class:`~agentkit_core.TurnCancelledError`
(the exception a cancelled checkpoint raises everywhere), never an error of
this module and never a quiet end of the body.  Both errors here pickle
intact and report ``agentkit_core.http`` as their module.  Neither ever holds
an API key: messages name the URL with its credentials hidden.
"""

from __future__ import annotations

from ..error import AgentError

__all__ = ("HttpError", "ProviderError", "TransportError", "BODY_KEPT")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__

#: How much of an error answer's body :class:`ProviderError` keeps, in bytes.
BODY_KEPT = 64 * 1024


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
    ``body`` the raw body, at most :data:`BODY_KEPT` bytes of it.
    """

    __module__ = _PUBLIC_MODULE

    def __init__(self, status: int, error_type: str, message: str, request_id: str = "", body: bytes = b"") -> None:
        body = bytes(body[:BODY_KEPT])
        super().__init__(status, error_type, message, request_id, body)
        self.status = status
        self.error_type = error_type
        self.message = message
        self.request_id = request_id
        self.body = body

    def __str__(self) -> str:
        kind = f" {self.error_type}" if self.error_type else ""
        rid = f" (request id {self.request_id})" if self.request_id else ""
        return f"HTTP {self.status}{kind}: {self.message}{rid}"


class TransportError(HttpError):
    """No usable answer came: a connection failed or broke, a TLS check failed, or a timeout passed.

    ``timed_out`` is true for a timeout (connecting, or no byte for the
    idle timeout while waiting for or reading the answer).  ``retried``
    says how many times the request was retried before this.
    """

    __module__ = _PUBLIC_MODULE

    def __init__(self, message: str, timed_out: bool = False, retried: int = 0) -> None:
        super().__init__(message, timed_out, retried)
        self.message = message
        self.timed_out = timed_out
        self.retried = retried

    def __str__(self) -> str:
        return self.message
