"""``send()``: one request, retried as the official SDKs retry, cancellable at every step.

The checkpoint's callback is the exchange's ``abort()`` for as long as the
exchange lives: registered before it connects, removed when the response
closes.  An interrupt therefore ends a blocked connect, handshake or read at
once, and whatever the blocked call then returns or raises (an error, or
what looks like the end of the body), the caller gets
:class:`~agentkit_core.TurnCancelledError`.  A wait between retries is
:meth:`~agentkit_core.TurnCancellation.wait`, which an interrupt ends at
once too.  Retries happen only inside ``send()``, before the response is
handed out: never once a caller has seen a byte of it.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from ..cancellation import CancellationController, CancellationHandle, TurnCancellation
from ..error import NormalizeError, TurnCancelledError
from ..jsontext import JsonValue, parse_json
from ._errors import BODY_KEPT, ProviderError, TransportError, lower_headers
from ._redirect import check_hop, next_request
from ._request import Request, redact, redact_url
from ._retry import retry_delay, should_retry
from ._transport import AsyncExchange, Exchange, Transport

__all__ = (
    "send",
    "Response",
    "checkpoint_of",
    "is_eventstream",
    "check_arguments",
    "next_delay",
    "step_failure",
    "provider_error",
    "media_type",
    "streamed",
    "is_json",
    "not_a_stream",
    "not_streamed",
    "DEFAULT_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
)

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__

#: Seconds without a byte of the answer before giving up (the SDKs' default).
DEFAULT_TIMEOUT = 600.0
#: Seconds to connect (and finish the TLS handshake).
DEFAULT_CONNECT_TIMEOUT = 10.0
#: How many retries by default (the SDKs': two, so three tries in all).
DEFAULT_RETRIES = 2
_CHUNK = 64 * 1024
_ERROR_READ = 1024 * 1024  # read at most this much of an error answer
_REDIRECT_READ = 64 * 1024  # and of a redirect's body
_MESSAGE = 300  # the longest readable message made of a body that is not a provider's error
_EXCERPT = 120  # the longest excerpt of an answer that should have been an event stream
_EXCERPT_READ = 16 * 1024  # and how much of it is read to find one


def checkpoint_of(cancel: object) -> TurnCancellation:
    """The checkpoint ``cancel`` stands for: itself, a fresh one of a handle or controller, or one nothing cancels."""
    if cancel is None:
        return TurnCancellation()
    if isinstance(cancel, TurnCancellation):
        return cancel
    if isinstance(cancel, CancellationHandle):
        return cancel.checkpoint()
    if isinstance(cancel, CancellationController):
        return cancel.handle().checkpoint()
    raise TypeError(f"cancel: expected a TurnCancellation, CancellationHandle or CancellationController, found {type(cancel).__name__}")


def _default_transport() -> Transport:
    import sys

    if sys.platform == "emscripten":  # a browser or Node: fetch (synchronous only where run_sync works)
        from ._fetch import FetchTransport

        return FetchTransport()
    if sys.platform == "wasi":
        raise TransportError(
            "this interpreter runs in WebAssembly, which has no network sockets: give send() a transport "
            "(see agentkit_core.http.Transport; in a browser, one calling fetch)"
        )
    try:
        from ._sockets import shared_transport
    except ImportError as exc:  # no socket module at all
        raise TransportError(f"this interpreter has no sockets ({exc}): pass send() a transport") from None
    return shared_transport()  # one pool and one SSL context for every send() given no transport


def send(
    request: Request,
    *,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    transport: Transport | None = None,
) -> Response:
    """Send ``request`` and return the answer's :class:`Response` once its status and headers are in.

    ``cancel`` is a checkpoint (or a handle or controller, whose current
    checkpoint is taken): interrupting it ends a blocked connect, read or
    wait between retries at once, and the caller gets
    :class:`~agentkit_core.TurnCancelledError`, also from a ``Response``
    being read.  ``timeout`` is the idle timeout: the longest wait for any
    byte of the answer; ``connect_timeout`` the longest to connect.
    ``retries`` bounds the retries of a failed connection or a retryable
    status (408, 409, 429, 5xx; see :mod:`._retry`).  An error status raises
    :class:`ProviderError`; a transport failure :class:`TransportError`.
    ``transport`` replaces the default :class:`SocketTransport`.
    """
    check_arguments("send", request, timeout, connect_timeout, retries)
    checkpoint = checkpoint_of(cancel)
    transport = _default_transport() if transport is None else transport
    retried = 0
    current = request
    seen: list[tuple[str, str]] = [(request.method, request.url)]
    error: ProviderError | TransportError
    while True:
        checkpoint.raise_if_cancelled()
        sent = current.signed()  # signed afresh on every attempt (Request.auth)
        exchange = transport.exchange(sent, connect_timeout=connect_timeout, read_timeout=timeout)
        response = Response(sent, exchange, checkpoint, len(seen) - 1)
        try:
            response._start()
        except TransportError as exc:
            error, headers = exc, {}
        else:
            if response.status < 400:
                try:
                    following = next_request(current, response.status, response.headers)
                except TransportError:  # a Location that cannot be followed: the error, its connection closed
                    response.close()
                    raise
                if following is None:
                    return response
                _drain(response)
                check_hop(seen, following)
                seen.append((following.method, following.url))
                current = following
                continue
            try:
                body = response._read_bounded(_ERROR_READ)
            except TransportError:
                body = b""
            finally:
                response.close()
            error, headers = provider_error(response.status, response.headers, body, sent), response.headers
        delay = next_delay(sent, error, headers, retried, retries)
        if checkpoint.wait(delay):
            raise TurnCancelledError(checkpoint.generation)
        retried += 1


def _drain(response: Response) -> None:
    """Read a redirect's body (bounded) and close it, so that its connection can serve the next hop."""
    try:
        response._read_bounded(_REDIRECT_READ)
    except TransportError:
        pass
    finally:
        response.close()


def check_arguments(caller: str, request: object, timeout: object, connect_timeout: object, retries: object) -> None:
    """The checks of :func:`send`'s (and ``asend``'s) arguments: ``TypeError`` or ``ValueError`` naming the one that is wrong."""
    if not isinstance(request, Request):
        raise TypeError(f"{caller}: request: expected a Request, found {type(request).__name__}")
    if type(retries) is not int:
        raise TypeError(f"retries: expected an integer, found {type(retries).__name__}")
    if retries < 0:
        raise ValueError(f"retries: expected a count of 0 or more, found {retries}")
    for name, seconds in (("timeout", timeout), ("connect_timeout", connect_timeout)):
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError(f"{name}: expected seconds (a number), found {type(seconds).__name__}")
        if not seconds > 0:
            raise ValueError(f"{name}: expected seconds above 0, found {seconds!r}")


def next_delay(
    request: Request, error: ProviderError | TransportError, headers: Mapping[str, str], retried: int, retries: int
) -> float:
    """The decision after a failed try: the seconds to wait before the next (logged), or ``error`` raised as final.

    A transport failure is worth another try unless it cannot go away
    (``retryable`` false), an error answer when :func:`._retry.should_retry`
    says so; none is once ``retries`` were made.  The final error says how
    many retries were made and shows none of ``request``'s credentials.
    Shared by :func:`send` and ``asend``, which differ only in how they wait.
    """
    again = error.retryable if isinstance(error, TransportError) else should_retry(error.status, headers)
    if not again or retried >= retries:
        if isinstance(error, TransportError):
            raise TransportError(redact(error.message, request.secrets()), error.timed_out, retried, error.retryable) from None
        secrets = request.secrets()  # again here, for a caller that built the error without the request
        message, body = redact(error.message, secrets), _redact_bytes(error.body, secrets)
        raise ProviderError(error.status, error.error_type, message, error.request_id, body, error.headers, retried) from None
    delay = retry_delay(headers, retried)
    _log_retry(request, error, delay, retried, retries)
    return delay


def step_failure(exc: BaseException, checkpoint: TurnCancellation, request: Request) -> BaseException:
    """What a failed exchange step (``start`` or ``read``) raises: a cancellation once cancelled, else a TransportError."""
    if checkpoint.is_cancelled():
        return TurnCancelledError(checkpoint.generation)
    if isinstance(exc, TransportError):
        return exc
    # A ValueError (a UnicodeError among them) says the request cannot be sent as it is: trying again cannot help.
    message = redact(f"{redact_url(request.url)}: {type(exc).__name__}: {exc}", request.secrets())
    return TransportError(message, retryable=not isinstance(exc, ValueError))


def _log_retry(request: Request, error: Exception, delay: float, retried: int, retries: int) -> None:
    """One INFO line on the ``agentkit_core.http`` logger: what failed, the wait and the attempt (no key, no body)."""
    import logging

    logger = logging.getLogger(_PUBLIC_MODULE)
    if logger.isEnabledFor(logging.INFO):
        what = f"HTTP {error.status}" if isinstance(error, ProviderError) else str(error)
        if isinstance(error, ProviderError) and error.error_type:
            what += f" {error.error_type}"
        logger.info(
            "%s %s: %s; attempt %d of %d in %.2f s",
            request.method,
            redact_url(request.url),
            redact(what, request.secrets()),
            retried + 2,
            retries + 1,
            delay,
        )


class _Answer:
    """What :class:`Response` and :class:`~agentkit_core.http.AsyncResponse` share: the fields, ``url``, ``request_id``, ``close``."""

    __slots__ = ("request", "status", "headers", "hops", "_exchange", "_checkpoint", "_closed", "_done")
    _NAME = "Response"  # what the repr calls it

    def __init__(self, request: Request, exchange: Exchange | AsyncExchange, checkpoint: TurnCancellation, hops: int = 0) -> None:
        #: The request this answers: after redirects, the last one sent.
        self.request = request
        #: How many redirects were followed to get here.
        self.hops = hops
        #: The HTTP status; 0 until the answer's head is in.
        self.status = 0
        #: The headers, names in lower case (repeated ones joined with ``", "``).
        self.headers: dict[str, str] = {}
        self._exchange = exchange
        self._checkpoint = checkpoint
        self._closed: bool | None = None  # None: not started
        self._done = False

    @property
    def url(self) -> str:
        """The URL that gave this answer (where the redirects, if any, ended)."""
        return self.request.url

    @property
    def media_type(self) -> str:
        """The answer's media type: its ``content-type`` in lower case without parameters (``"text/event-stream"``),
        ``""`` when it has none."""
        return media_type(self.headers)

    @property
    def request_id(self) -> str:
        """The request id the provider sent back in a header, ``""`` if none."""
        return _request_id(self.headers, None)

    def _opened(self) -> None:
        """Mark the exchange open and make its ``abort()`` the checkpoint's callback (called at once if already cancelled)."""
        self._closed = False
        self._checkpoint.add_callback(self._exchange.abort)

    def _readable(self) -> None:
        """Raise :class:`TransportError` if the body can no longer be read (closed before its end)."""
        if self._closed is not False and not self._done:
            raise TransportError("the response is closed")

    def close(self) -> None:
        """Close the connection (never blocks); reading afterwards raises :class:`TransportError`."""
        if self._closed is False:
            self._closed = True
            self._checkpoint.remove_callback(self._exchange.abort)
            self._exchange.close()

    def __repr__(self) -> str:
        hops = f", hops={self.hops}" if self.hops else ""
        return f"{self._NAME}(status={self.status}, url={redact_url(self.request.url)!r}{hops})"


class Response(_Answer):
    """The answer to a sent request: status and headers, then the body, read once.

    A context manager: leaving the ``with`` block closes the connection.
    Read the body as ``read()`` (all of it), ``json()``, ``chunks()``,
    ``lines()`` (text lines without their ends) or ``events()`` (the JSON
    object of each server-sent event, as a provider's ``events_from_sse``
    gives them).  If the checkpoint is interrupted while the body is read,
    the read raises :class:`~agentkit_core.TurnCancelledError`; a broken or
    stalled connection raises :class:`TransportError`.
    """

    __slots__ = ()
    _exchange: Exchange

    def _start(self) -> None:
        self._opened()
        status, headers = self._call(self._exchange.start)
        self.status, self.headers = status, lower_headers(headers)

    def _call(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` on the exchange, with its failures and an abort turned into the package's errors."""
        checkpoint = self._checkpoint
        if checkpoint.is_cancelled():
            self.close()
            raise TurnCancelledError(checkpoint.generation)
        try:
            result = fn(*args)
        except (OSError, TransportError, ValueError) as exc:
            self.close()
            failure = step_failure(exc, checkpoint, self.request)
            if failure is exc:
                raise
            raise failure from None
        except BaseException:
            self.close()
            raise
        if checkpoint.is_cancelled():  # the abort may look like the body's end
            self.close()
            raise TurnCancelledError(checkpoint.generation)
        return result

    def _read_bounded(self, limit: int) -> bytes:
        data = bytearray()
        for chunk in self.chunks():
            data += chunk[: limit - len(data)]
            if len(data) >= limit:
                break
        return bytes(data)

    def chunks(self, size: int = _CHUNK) -> Iterator[bytes]:
        """The body in pieces as they arrive, each at most ``size`` bytes."""
        self._readable()
        while not self._done:
            chunk: bytes = self._call(self._exchange.read, size)
            if not chunk:
                self._done = True
                self.close()
                return
            yield chunk

    def read(self) -> bytes:
        """The whole body."""
        return b"".join(self.chunks())

    def json(self) -> JsonValue:
        """The body parsed as JSON (nesting bounded); :class:`~agentkit_core.NormalizeError` if it is not JSON."""
        return parse_json(self.read())

    def lines(self) -> Iterator[str]:
        """The body's text lines (UTF-8) without their ends, as they arrive; CRLF, LF and CR end lines."""
        from ._sse import lines_of

        return lines_of(self.chunks())

    def events(self) -> Iterator[dict[str, JsonValue]]:
        """The JSON object of each event, as it arrives, read as the answer's ``content-type`` says.

        Server-sent events (``data: [DONE]`` ends them), or, for
        ``application/vnd.amazon.eventstream``, AWS's binary event stream as
        ``{event_type: payload}`` (an exception message in it raises
        :class:`ProviderError`; see :func:`._eventstream.events_from_eventstream`).
        An answer that says it is neither is refused before its body is read as
        events: a JSON answer (a server that did not stream) raises
        :class:`~agentkit_core.NormalizeError` and stays readable (``json()``),
        any other type (a captive portal's HTML page) :class:`ProviderError`
        naming the type with a short excerpt of the body, read and closed.
        """
        return self._events()

    def _events(self) -> Iterator[dict[str, JsonValue]]:
        if is_eventstream(self.headers):
            from ._eventstream import events_from_eventstream

            yield from events_from_eventstream(self.chunks())
            return
        from ._sse import events_from_sse

        media = media_type(self.headers)
        if not streamed(media):
            if not is_json(media):
                try:
                    excerpt = self._read_bounded(_EXCERPT_READ)
                finally:
                    self.close()  # the rest of the page is never read
                raise not_a_stream(self, excerpt)
            raise not_streamed(media)
        yield from events_from_sse(self.chunks())

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


Response.__module__ = _PUBLIC_MODULE


def media_type(headers: Mapping[str, str]) -> str:
    """An answer's media type (``content-type`` in lower case, without parameters); ``""`` when it has none."""
    return headers.get("content-type", "").partition(";")[0].strip().lower()


def is_eventstream(headers: Mapping[str, str]) -> bool:
    """Whether an answer's headers (names in lower case) say its body is an AWS event stream."""
    return media_type(headers) == "application/vnd.amazon.eventstream"


def streamed(media: str) -> bool:
    """Whether an answer of type ``media`` may be read as server-sent events: ``text/event-stream``, or no type said."""
    return media in ("text/event-stream", "")


def is_json(media: str) -> bool:
    """Whether ``media`` is JSON (``application/json`` or a ``+json`` type)."""
    return media == "application/json" or media.endswith("+json")


def not_streamed(media: str) -> NormalizeError:
    """The error of reading a JSON answer (``media``) as events: the server did not stream, the body is still there."""
    return NormalizeError(f"the answer is {media}, not an event stream: the server did not stream (read it whole with json())")


def not_a_stream(response: _Answer, body: bytes) -> ProviderError:
    """The :class:`ProviderError` of a successful answer that is neither an event stream nor JSON (a captive portal's
    or a misrouted gateway's page): its type and a short excerpt of ``body`` (an HTML page's title or text), escaped."""
    media = media_type(response.headers) or "no content type"
    text = body.decode("utf-8", "replace")
    if "html" in media or text.lstrip()[:64].lower().startswith(("<!doctype", "<html")):
        text = _html_text(text)
    said = redact(" ".join(text.split()), response.request.secrets())
    said = said if len(said) <= _EXCERPT else said[: _EXCERPT - 3].rstrip() + "..."
    excerpt = f": {said!r}" if said else " with an empty body"
    message = f"the answer is {media}, neither an event stream nor JSON{excerpt}"
    return ProviderError(response.status, "", message, _request_id(response.headers, None),
                         _redact_bytes(body, response.request.secrets()), response.headers)


def _request_id(headers: Mapping[str, str], error: Mapping[str, Any] | None) -> str:
    for name in ("request-id", "x-request-id", "x-goog-request-id", "cf-ray"):
        if headers.get(name):
            return headers[name]
    found = (error or {}).get("request_id")
    return found if isinstance(found, str) else ""


def provider_error(status: int, headers: Mapping[str, str], body: bytes, request: Request | None = None) -> ProviderError:
    """The :class:`ProviderError` for an error answer, with a message a person can read.

    The provider's own type, message and request id when the body is a
    provider's error; otherwise the status's reason and, for an HTML page,
    its title (or its text without tags), or the start of a text body: one
    line of at most a few hundred characters.  Every credential ``request``
    carries is replaced by ``***`` in the message and the kept body.
    """
    secrets = request.secrets() if request is not None else ()
    body = _redact_bytes(body, secrets)
    try:
        parsed: Any = parse_json(body)
    except Exception:  # noqa: BLE001 - not JSON: the text itself is the message
        parsed = None
    if isinstance(parsed, list) and parsed:  # Gemini's streaming errors come in a list
        parsed = parsed[0]
    outer = parsed if isinstance(parsed, dict) else {}
    inner = outer.get("error")
    error = inner if isinstance(inner, dict) else outer
    kind = next((error[k] for k in ("type", "status", "code") if isinstance(error.get(k), (str, int)) and not isinstance(error.get(k), bool)), "")
    message = error.get("message")
    if not isinstance(message, str) or not message.strip():
        found = inner if isinstance(inner, str) else error.get("detail")  # {"error": "..."}, {"detail": "..."}
        message = _clip(found) if isinstance(found, str) and found.strip() else _readable(status, headers, body)
    message = redact(" ".join(message.split()), secrets)
    return ProviderError(status, str(kind), message, _request_id(headers, outer), body[:BODY_KEPT], headers)


def _redact_bytes(body: bytes, secrets: Sequence[str]) -> bytes:
    """``body`` with each of ``secrets`` (as UTF-8) replaced by ``***``."""
    for secret in sorted(secrets, key=len, reverse=True):
        body = body.replace(secret.encode("utf-8", "replace"), b"***")
    return body


def _readable(status: int, headers: Mapping[str, str], body: bytes) -> str:
    """The status's reason, then what the body says in a line: an HTML page's title or text, or the text itself."""
    from http import HTTPStatus

    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = f"HTTP {status}"
    text = body.decode("utf-8", "replace")
    head = text.lstrip()[:64].lower()
    if ("html" in headers.get("content-type", "").lower() or head.startswith(("<!doctype", "<html"))):
        text = _html_text(text)
    said = " ".join(text.split())
    if said.startswith(f"{status} "):  # a status line (nginx's titles): its reason is the server's own words
        said, reason = "", said[len(str(status)) :].lstrip(" :-") or reason
    elif said.lower().startswith(reason.lower()):
        said = said[len(reason) :].lstrip(" :-")
    return _clip(f"{reason}: {said}" if said else reason)


def _clip(line: str) -> str:
    """``line`` cut to :data:`_MESSAGE` characters, ``...`` saying where."""
    return line if len(line) <= _MESSAGE else line[: _MESSAGE - 3].rstrip() + "..."


def _html_text(page: str) -> str:
    """An HTML page's title, else its text without tags, scripts and styles, entities decoded."""
    import html
    import re

    title = re.search(r"<title[^>]*>(.*?)</title", page, re.I | re.S)
    if title and title.group(1).strip():
        return html.unescape(title.group(1))
    page = re.sub(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", " ", page, flags=re.I | re.S)
    return html.unescape(re.sub(r"<[^>]*>", " ", page))
