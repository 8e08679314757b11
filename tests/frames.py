"""AWS event stream frames built for the tests (the encoder the package does not need).

Written from AWS's event stream encoding: a prelude (total length, headers
length, its CRC32), the headers, the payload, the message CRC32, every
integer big-endian.  A header value is given as ``(type, value)`` to pick its
type, or as a plain ``str`` (type 7), ``bytes`` (6), ``bool`` (0 or 1) or
``int`` (type 4).
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any, Mapping

_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}


def header(name: str, value: object) -> bytes:
    """One encoded header."""
    if isinstance(value, tuple):
        kind, value = value
    elif isinstance(value, bool):
        kind = 0 if value else 1
    elif isinstance(value, int):
        kind = 4
    elif isinstance(value, bytes):
        kind = 6
    else:
        kind = 7
    raw = name.encode("utf-8")
    out = bytes([len(raw)]) + raw + bytes([kind])
    if kind in (0, 1):
        return out
    if kind in _FIXED:
        return out + struct.pack(_FIXED[kind], value)
    if kind == 9:
        return out + bytes(value)
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return out + struct.pack(">H", len(data)) + data


def frame(headers: Mapping[str, object] = {}, payload: bytes = b"") -> bytes:
    """One whole message: prelude, headers, payload and both CRCs."""
    encoded = b"".join(header(k, v) for k, v in headers.items())
    total = 16 + len(encoded) + len(payload)
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(event_type: str, payload: Any) -> bytes:
    """An ``event`` message as AWS services send JSON events."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, json.dumps(payload, separators=(",", ":")).encode())


def exception(exception_type: str, message: str) -> bytes:
    """An ``exception`` message, its payload ``{"message": ...}``."""
    headers = {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode())


def events(*pairs: tuple[str, Any]) -> bytes:
    """A body of ``event`` messages, one a ``(event_type, payload)`` pair."""
    return b"".join(event(name, payload) for name, payload in pairs)
