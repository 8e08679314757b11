"""An HTTP/1.1 response reader with no I/O: bytes in, head / data / end events out.

The shape is h11's readers: :class:`ResponseParser` holds a receive buffer;
:meth:`~ResponseParser.feed` appends what the socket gave,
:meth:`~ResponseParser.feed_eof` says the connection ended, and
:meth:`~ResponseParser.next_event` returns the next event (a :class:`Head`,
a piece of the body as ``bytes``, or :data:`END`) or ``None`` when it needs
more bytes.  The socket exchange is only the loop around ``recv``, so the
tests feed bytes, not servers, and the verdict on an answer never depends on
how TCP split it: every limit is counted on the buffered bytes, not per read.

What RFC 9112 says a client must refuse is refused, as a
:class:`~agentkit_core.http.TransportError`: ``Content-Length`` values that
differ or are no decimal number, ``Content-Length`` beside
``Transfer-Encoding``, a transfer-coding list that does not end in a single
``chunked`` or names a coding this package does not decode, a head larger
than :data:`HEAD_LIMIT` in all, malformed chunk sizes and endless trailers.
Chunk extensions (``5;name=value``) are accepted and ignored.  A transfer
coding before ``chunked`` (``gzip, chunked``) is reported in
:attr:`ResponseParser.transfer_codings` for the exchange to decode; the
parser itself only unframes.
"""

from __future__ import annotations

import re
from typing import Union

from ._errors import TransportError

__all__ = ("ResponseParser", "Head", "END", "End", "Event", "HEAD_LIMIT", "DECODABLE", "ACCEPT_ENCODING")

#: The largest head (status line and headers, or the trailers) accepted, in bytes, however it arrives.
HEAD_LIMIT = 64 * 1024
_CHUNK_LINE_LIMIT = 4 * 1024  # a chunk-size line with its extensions
#: The codings this package decodes (as transfer codings before ``chunked``, or as content codings).
DECODABLE = frozenset(("gzip", "x-gzip", "deflate"))
#: What a request offers (``Accept-Encoding``) when it names nothing itself: the codings of :data:`DECODABLE`.
ACCEPT_ENCODING = "gzip, deflate"

_BLANK_LINE = re.compile(rb"\n\r?\n")
_STATUS = re.compile(rb"HTTP/([0-9])\.([0-9]) ([0-9]{3})(?: (.*))?")
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_LENGTH = re.compile(r"[0-9]{1,18}")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\x00]*)?")
_NO_LIMIT = 1 << 62
_INTERIM_LIMIT = 32  # 1xx heads before the answer: a server that sends them forever is refused


class Head:
    """The status line and headers: ``status``, ``reason``, ``version`` (``"1.1"``), ``headers`` as (name, value) pairs."""

    __slots__ = ("status", "reason", "version", "headers")

    def __init__(self, status: int, reason: str, version: str, headers: list[tuple[str, str]]) -> None:
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers

    def __repr__(self) -> str:
        return f"Head({self.status}, {self.reason!r}, version={self.version!r}, headers=<{len(self.headers)}>)"


class End:
    """The body's end (the only instance is :data:`END`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "END"


#: The event that says the body is complete.
END = End()
Event = Union[Head, bytes, End]

# states of the reader
_HEAD, _LENGTH_BODY, _CHUNK_SIZE_LINE, _CHUNK_DATA, _CHUNK_END, _TRAILERS, _UNTIL_EOF, _DONE = range(8)


class ResponseParser:
    """Reads one response to a ``method`` request; see the module docstring.

    After :data:`END`, :attr:`keep_alive` says whether the connection may
    carry another request (HTTP/1.1, no ``Connection: close``, a body framed
    by length or chunks, nothing left over).  :attr:`received` counts the
    bytes fed, so a caller can tell "closed before any answer" from "closed
    in the middle of one".
    """

    __slots__ = (
        "method", "head_limit", "received", "keep_alive", "transfer_codings", "head",
        "_buffer", "_eof", "_state", "_left", "_scan", "_persistent", "_interim",
    )

    def __init__(self, method: str = "GET", *, head_limit: int = HEAD_LIMIT) -> None:
        self.method = method
        self.head_limit = head_limit
        self.received = 0
        self.keep_alive = False
        #: The transfer codings applied before ``chunked``, in the order the server applied them.
        self.transfer_codings: tuple[str, ...] = ()
        #: The final (non-1xx) head, once read.
        self.head: Head | None = None
        self._buffer = bytearray()
        self._eof = False
        self._state = _HEAD
        self._left = 0  # bytes left of a length-framed body or of the current chunk
        self._scan = 0  # where the search for the head's end resumes
        self._persistent = False
        self._interim = 0  # interim (1xx) heads skipped

    @property
    def done(self) -> bool:
        """Whether :data:`END` was returned."""
        return self._state == _DONE

    def feed(self, data: bytes) -> None:
        """Append bytes that came off the connection."""
        if data:
            if self._eof:
                raise TransportError("bytes after the end of the connection")
            self.received += len(data)
            self._buffer += data

    def feed_eof(self) -> None:
        """Say the connection ended (no more bytes will come)."""
        self._eof = True

    def leftover(self) -> bytes:
        """The bytes buffered past the end of the answer (a CONNECT tunnel's first bytes, or junk)."""
        return bytes(self._buffer)

    def next_event(self, limit: int = _NO_LIMIT) -> Event | None:
        """The next event, at most ``limit`` bytes if it is data; ``None`` if more bytes must be fed first."""
        state = self._state
        if state == _HEAD:
            return self._read_head()
        if state == _LENGTH_BODY:
            if self._left == 0:
                return self._finish()
            data = self._take(min(limit, self._left))
            if data is None:
                return self._need("the connection closed in the middle of the answer's body")
            self._left -= len(data)
            return data
        if state == _UNTIL_EOF:
            data = self._take(limit)
            if data is None:
                return self._finish() if self._eof else None
            return data
        if state == _DONE:
            return END
        return self._read_chunked(limit)

    # -- the head ------------------------------------------------------------------------

    def _read_head(self) -> Event | None:
        while True:
            buffer = self._buffer
            found = _BLANK_LINE.search(buffer, self._scan)
            if found is None:
                if len(buffer) > self.head_limit:
                    raise TransportError(f"the answer's head is too large (over {self.head_limit} bytes)")
                self._scan = max(0, len(buffer) - 2)
                if self._eof:
                    if self.received == 0:
                        raise TransportError("the connection closed before any answer came")
                    raise TransportError("the connection closed in the middle of the answer's head")
                return None
            end = found.end()
            if end > self.head_limit:
                raise TransportError(f"the answer's head is too large (over {self.head_limit} bytes)")
            raw = bytes(buffer[:end])
            del buffer[:end]
            self._scan = 0
            head = _parse_head(raw)
            if 100 <= head.status < 200 and head.status != 101:
                self._interim += 1
                if self._interim > _INTERIM_LIMIT:
                    raise TransportError(f"the answer sent more than {_INTERIM_LIMIT} interim (1xx) heads")
                continue  # an interim answer (100 Continue, 103 Early Hints): the real one follows
            self.head = head
            self._frame(head)
            return head

    def _frame(self, head: Head) -> None:
        """Choose how the body is delimited (RFC 9112 section 6.3)."""
        codings: list[str] = []
        lengths: list[str] = []
        close = head.version != "1.1"
        for name, value in head.headers:
            lower = name.lower()
            if lower == "transfer-encoding":
                codings += [c.strip().lower() for c in value.split(",") if c.strip()]
            elif lower == "content-length":
                lengths += [v.strip() for v in value.split(",")]
            elif lower == "connection" and any(t.strip().lower() == "close" for t in value.split(",")):
                close = True
        self._persistent = not close
        status = head.status
        if self.method == "HEAD" or status in (204, 304) or (self.method == "CONNECT" and 200 <= status < 300):
            self._state = _DONE
            self.keep_alive = self._persistent and self.method != "CONNECT"
            return
        if status == 101:
            self._persistent = False
            self._state = _UNTIL_EOF
            return
        if codings:
            if lengths:
                raise TransportError("the answer has both Content-Length and Transfer-Encoding (refused: RFC 9112 6.3)")
            if codings[-1] != "chunked" or codings.count("chunked") != 1:
                raise TransportError(f"the answer's Transfer-Encoding {', '.join(codings)!r} does not end in chunked")
            unknown = [c for c in codings[:-1] if c not in DECODABLE]
            if unknown:
                raise TransportError(f"the answer's transfer coding {unknown[0]!r} is not one this client decodes")
            self.transfer_codings = tuple(codings[:-1])
            self._state = _CHUNK_SIZE_LINE
            return
        if lengths:
            if any(not _LENGTH.fullmatch(v) for v in lengths):
                raise TransportError(f"the answer's Content-Length is no length: {', '.join(lengths)[:40]!r}")
            if len(set(map(int, lengths))) != 1:
                raise TransportError(f"the answer has conflicting Content-Length values: {', '.join(lengths)[:40]!r}")
            self._left = int(lengths[0])
            self._state = _LENGTH_BODY
            return
        self._persistent = False  # delimited by the connection's end
        self._state = _UNTIL_EOF

    # -- chunks --------------------------------------------------------------------------

    def _read_chunked(self, limit: int) -> Event | None:
        buffer = self._buffer
        while True:
            state = self._state
            if state == _CHUNK_SIZE_LINE:
                end = buffer.find(b"\n")
                if end < 0 or end > _CHUNK_LINE_LIMIT:
                    if len(buffer) > _CHUNK_LINE_LIMIT:
                        raise TransportError("a chunk-size line of the answer is too long")
                    return self._need("the connection closed in the middle of the answer's body")
                line = bytes(buffer[:end]).removesuffix(b"\r")
                found = _CHUNK_SIZE.fullmatch(line)
                if found is None:
                    raise TransportError(f"a bad chunk size in the answer: {line[:20]!r}")
                del buffer[: end + 1]
                self._left = int(found.group(1), 16)
                self._state = _CHUNK_DATA if self._left else _TRAILERS
            elif state == _CHUNK_DATA:
                data = self._take(min(limit, self._left))
                if data is None:
                    return self._need("the connection closed in the middle of the answer's body")
                self._left -= len(data)
                if self._left == 0:
                    self._state = _CHUNK_END
                return data
            elif state == _CHUNK_END:
                if buffer[:2] == b"\r\n":
                    del buffer[:2]
                elif buffer[:1] == b"\n":
                    del buffer[:1]
                elif not buffer or buffer == b"\r":
                    return self._need("the connection closed in the middle of the answer's body")
                else:
                    raise TransportError("a chunk of the answer is longer than its size says")
                self._state = _CHUNK_SIZE_LINE
            else:  # _TRAILERS: field lines up to a blank line, all of it bounded
                if buffer[:2] == b"\r\n" or buffer[:1] == b"\n":
                    del buffer[: 2 if buffer[:1] == b"\r" else 1]
                    return self._finish()
                found = _BLANK_LINE.search(buffer)
                if found is None:
                    if len(buffer) > self.head_limit:
                        raise TransportError("the answer's trailers are too large")
                    return self._need("the connection closed in the middle of the answer's trailers")
                if found.end() > self.head_limit:
                    raise TransportError("the answer's trailers are too large")
                del buffer[: found.end()]
                return self._finish()

    # -- helpers -------------------------------------------------------------------------

    def _take(self, size: int) -> bytes | None:
        buffer = self._buffer
        if not buffer:
            return None
        if len(buffer) <= size:
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[:size])
            del buffer[:size]
        return data

    def _need(self, broken: str) -> Event | None:
        if self._eof:
            raise TransportError(broken)
        return None

    def _finish(self) -> End:
        self._state = _DONE
        self.keep_alive = self._persistent and not self._buffer and not self._eof
        return END


def _parse_head(raw: bytes) -> Head:
    lines = raw.split(b"\n")
    status_line = lines[0].removesuffix(b"\r")
    found = _STATUS.fullmatch(status_line)
    if found is None:
        raise TransportError(f"not an HTTP answer: {status_line[:80].decode('latin-1')!r}")
    major, minor, code, reason = found.groups()
    if major != b"1":
        raise TransportError(f"not an HTTP/1 answer: {status_line[:80].decode('latin-1')!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        line = line.removesuffix(b"\r")
        if not line:
            continue
        if b"\r" in line or b"\x00" in line:
            raise TransportError("a control character in a header line of the answer")
        if line[:1] in (b" ", b"\t"):  # an obsolete folded line continues the one before
            if not headers:
                raise TransportError("the answer's head opens with a folded line")
            folded, before = headers[-1]
            headers[-1] = (folded, f"{before} {line.strip().decode('latin-1')}")
            continue
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            raise TransportError(f"a malformed header line in the answer: {line[:40].decode('latin-1')!r}")
        headers.append((name.decode("ascii"), value.strip(b" \t").decode("latin-1")))
    return Head(int(code), (reason or b"").decode("latin-1"), f"{major.decode()}.{minor.decode()}", headers)
