"""Undoing ``gzip`` and ``deflate`` codings a read at a time, never more than the read asked for.

:class:`Decompressor` undoes one coding; :class:`Decoding` chains them in
the reverse of the order the server applied them (a transfer coding before
``chunked``, then the content codings).  Each call returns at most ``limit``
bytes however far the compressed bytes expand (what is left of the input
waits for the next call), so a small compressed bomb never fills memory.

``deflate`` is meant to be the zlib format (RFC 9110 8.4.1.2), but some
servers send raw deflate; as urllib3 does, the zlib reading is tried first
and the raw one if the first bytes are no zlib header.  ``gzip`` bodies may
hold several members, read one after the other.  A body that ends before its
compressed stream does, or that does not inflate, is a
:class:`~agentkit_core.http.TransportError`.
"""

from __future__ import annotations

import zlib
from typing import Callable, Sequence

from ._errors import TransportError
from ._parser import DECODABLE

__all__ = ("Decompressor", "Decoding", "content_codings")


def content_codings(value: str) -> tuple[str, ...] | None:
    """The codings of a ``Content-Encoding`` value this package undoes, ``None`` if one of them it cannot.

    ``identity`` is dropped; a coding not decoded here (``br``, ``zstd``)
    makes the body pass through as it came, the header telling the caller.
    """
    codings = tuple(c for c in (p.strip().lower() for p in value.split(",")) if c and c != "identity")
    return codings if all(c in DECODABLE for c in codings) else None


class Decompressor:
    """One ``gzip`` (``x-gzip``) or ``deflate`` coding undone, at most ``limit`` bytes out a call."""

    __slots__ = ("coding", "_inflater", "_tail", "_given", "_decided", "_ended", "_fed")

    def __init__(self, coding: str) -> None:
        if coding not in DECODABLE:
            raise ValueError(f"Decompressor.coding: {coding!r} is not gzip, x-gzip or deflate")
        self.coding = coding
        self._inflater = zlib.decompressobj(31 if coding != "deflate" else 15)
        self._tail = b""  # input the last call left for the next one
        self._given = b""  # deflate: the first bytes, kept until the zlib header is known good
        self._decided = coding != "deflate"
        self._ended = False  # the compressed stream (its last member) is complete
        self._fed = False  # any input came at all

    @property
    def pending(self) -> bool:
        """Whether input is waiting: call :meth:`decompress` with ``b""`` before giving more."""
        return bool(self._tail)

    def decompress(self, data: bytes, limit: int) -> bytes:
        """Inflate what is waiting and ``data``; at most ``limit`` bytes out."""
        if self._tail:
            data, self._tail = self._tail + data, b""
        if not data:
            return b""
        self._fed = True
        if self._ended:
            if self.coding == "deflate" or not data.strip(b"\0"):
                return b""  # bytes after a deflate stream, or zero padding after gzip: ignored, as urllib3 does
            self._inflater, self._ended = zlib.decompressobj(31), False  # the next gzip member
        if not self._decided:
            self._given += data
        try:
            out = self._inflater.decompress(data, limit)
        except zlib.error as exc:
            if self._decided:
                raise TransportError(f"the answer's {self.coding} body does not inflate: {exc}") from None
            self._inflater, self._decided = zlib.decompressobj(-15), True  # raw deflate, from the start
            data, self._given = self._given, b""
            try:
                out = self._inflater.decompress(data, limit)
            except zlib.error as exc:
                raise TransportError(f"the answer's deflate body does not inflate: {exc}") from None
        if not self._decided and len(self._given) >= 2:
            self._decided, self._given = True, b""
        inflater = self._inflater
        if inflater.eof:
            self._ended = True
            self._tail = inflater.unused_data
        else:
            self._tail = inflater.unconsumed_tail
        return out

    def finish(self) -> None:
        """Say the input ended; :class:`TransportError` if the compressed stream had not (an empty body is fine)."""
        if self._fed and not self._ended:
            raise TransportError(f"the answer's {self.coding} body ends in the middle of its compressed stream")


class Decoding:
    """The codings the server applied, undone in reverse order, one bounded read at a time."""

    __slots__ = ("_stages",)

    def __init__(self, codings: Sequence[str]) -> None:
        self._stages = [Decompressor(c) for c in reversed(codings)]

    def read(self, limit: int, pull: Callable[[int], bytes]) -> bytes:
        """At most ``limit`` decoded bytes, pulling raw ones with ``pull(n)`` (``b""`` at their end); ``b""`` at the end."""
        return self._out(len(self._stages) - 1, limit, pull)

    def _out(self, level: int, limit: int, pull: Callable[[int], bytes]) -> bytes:
        stage = self._stages[level]
        while True:
            if stage.pending:
                out = stage.decompress(b"", limit)
            else:
                given = pull(limit) if level == 0 else self._out(level - 1, limit, pull)
                if not given:
                    stage.finish()
                    return b""
                out = stage.decompress(given, limit)
            if out:
                return out
