"""RS256 on the standard library: an RSA private key read from PEM, and RSASSA-PKCS1-v1_5 with SHA-256.

The key is PKCS #8 (``-----BEGIN PRIVATE KEY-----``, what a Google service
account's JSON key holds) or PKCS #1 (``-----BEGIN RSA PRIVATE KEY-----``):
base64 of DER, read by the small reader here (RFC 8017 appendix A.1.2,
RFC 5208).  Signing is RFC 8017's section 8.2.1: the SHA-256 digest behind
its DigestInfo prefix, padded with ``0xff`` bytes to the modulus' length,
raised to the private exponent by the Chinese remainder theorem, with
blinding (a fresh random ``r`` coprime to ``n``: ``s = (m * r^e)^d * r^-1 mod n``,
so the time taken does not follow the message), and checked with the public
exponent before it is returned (a fault in the arithmetic never hands out a
signature that leaks a factor).  PKCS #1 v1.5 is deterministic: the same key
and message give the same bytes as any other implementation (tools/ checks
them against google-auth's).

Neither the key nor a part of it is ever shown: the ``repr`` gives the size
only, and an error names what is wrong with the key, never its text.
"""

from __future__ import annotations

__all__ = ("RsaKey", "sign_rs256")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__

#: The DER of DigestInfo ``{sha256, NULL}`` before the 32-byte digest (RFC 8017, section 9.2, note 1).
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
#: ``rsaEncryption``'s object identifier (1.2.840.113549.1.1.1) as DER content bytes.
_RSA_ENCRYPTION = bytes.fromhex("2a864886f70d010101")
_SEQUENCE, _INTEGER, _OCTETS, _OID, _NULL = 0x30, 0x02, 0x04, 0x06, 0x05


def _bad(why: str) -> ValueError:
    return ValueError(f"private key: {why} (the key is not shown)")


class _Der:
    """A reader of the DER values of one buffer, in order (definite lengths only, as DER has)."""

    __slots__ = ("data", "at", "end")

    def __init__(self, data: bytes, at: int = 0, end: int | None = None) -> None:
        self.data, self.at, self.end = data, at, len(data) if end is None else end

    def take(self, tag: int) -> _Der:
        """The next value, which must be tagged ``tag``, as a reader of its content."""
        if self.at + 2 > self.end:
            raise _bad("the DER ends inside a value")
        found, size = self.data[self.at], self.data[self.at + 1]
        if found != tag:
            raise _bad(f"expected DER tag 0x{tag:02x}, found 0x{found:02x}")
        at = self.at + 2
        if size & 0x80:
            count = size & 0x7F
            if not 1 <= count <= 4 or at + count > self.end:
                raise _bad("a DER length that is not one")
            size = int.from_bytes(self.data[at : at + count], "big")
            at += count
        if at + size > self.end:
            raise _bad("a DER value longer than what holds it")
        self.at = at + size
        return _Der(self.data, at, at + size)

    def integer(self) -> int:
        """The next value, a non-negative INTEGER."""
        value = self.take(_INTEGER)
        content = value.data[value.at : value.end]
        if not content or content[0] & 0x80:
            raise _bad("an RSA key field that is not a positive integer")
        return int.from_bytes(content, "big")

    def content(self) -> bytes:
        return self.data[self.at : self.end]


class RsaKey:
    """An RSA private key (its CRT form), made by :meth:`from_pem`; the ``repr`` shows its size only."""

    __slots__ = ("n", "e", "_d", "_p", "_q", "_dp", "_dq", "_qinv")

    def __init__(self, n: int, e: int, d: int, p: int, q: int, dp: int, dq: int, qinv: int) -> None:
        if p * q != n or n.bit_length() < 1024 or not 1 < e < n or (qinv * q) % p != 1:
            raise _bad("its numbers are not those of one RSA key of 1024 bits or more")
        self.n, self.e = n, e
        self._d, self._p, self._q, self._dp, self._dq, self._qinv = d, p, q, dp, dq, qinv

    @classmethod
    def from_pem(cls, text: str) -> RsaKey:
        """The key of a PEM text: ``BEGIN PRIVATE KEY`` (PKCS #8, RSA) or ``BEGIN RSA PRIVATE KEY`` (PKCS #1)."""
        import base64
        import binascii

        if not isinstance(text, str):
            raise TypeError(f"private key: expected PEM text (a string), found {type(text).__name__}")
        for label in ("PRIVATE KEY", "RSA PRIVATE KEY"):
            head, tail = f"-----BEGIN {label}-----", f"-----END {label}-----"
            start = text.find(head)
            stop = text.find(tail, start + len(head)) if start >= 0 else -1
            if stop >= 0:
                break
        else:
            raise _bad("expected PEM text with BEGIN PRIVATE KEY or BEGIN RSA PRIVATE KEY")
        try:
            der = base64.b64decode("".join(text[start + len(head) : stop].split()), validate=True)
        except (binascii.Error, ValueError):
            raise _bad("the PEM body is not base64") from None
        return cls._from_pkcs8(der) if label == "PRIVATE KEY" else cls._from_pkcs1(der)

    @classmethod
    def _from_pkcs8(cls, der: bytes) -> RsaKey:
        outer = _Der(der).take(_SEQUENCE)
        outer.integer()  # version 0 (1 with a public key beside, RFC 5958): either carries the same key
        algorithm = outer.take(_SEQUENCE)
        if algorithm.take(_OID).content() != _RSA_ENCRYPTION:
            raise _bad("a PKCS #8 key of another algorithm than RSA")
        return cls._from_pkcs1(outer.take(_OCTETS).content())

    @classmethod
    def _from_pkcs1(cls, der: bytes) -> RsaKey:
        fields = _Der(der).take(_SEQUENCE)
        if fields.integer() != 0:
            raise _bad("an RSA key of several primes, which RS256 signers do not use")
        n, e, d, p, q, dp, dq, qinv = (fields.integer() for _ in range(8))
        return cls(n, e, d, p, q, dp, dq, qinv)

    @property
    def size(self) -> int:
        """The modulus' length in bytes (the signature's)."""
        return (self.n.bit_length() + 7) // 8

    def sign(self, message: bytes) -> bytes:
        """The RS256 signature of ``message`` (RSASSA-PKCS1-v1_5 with SHA-256), made with blinding."""
        return sign_rs256(self, message)

    def __repr__(self) -> str:
        return f"RsaKey(<{self.n.bit_length()}-bit private key, not shown>)"

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("an RsaKey is not pickled: it holds a private key")


RsaKey.__module__ = _PUBLIC_MODULE


def _encoded(message: bytes, size: int) -> int:
    """EMSA-PKCS1-v1_5 of ``message`` with SHA-256, ``size`` bytes long, as an integer (RFC 8017, 9.2)."""
    import hashlib

    t = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    if size < len(t) + 11:
        raise _bad("too short a modulus for a SHA-256 signature")
    return int.from_bytes(b"\x00\x01" + b"\xff" * (size - len(t) - 3) + b"\x00" + t, "big")


def sign_rs256(key: RsaKey, message: bytes) -> bytes:
    """``key``'s RSASSA-PKCS1-v1_5 SHA-256 signature of ``message``: blinded, by CRT, checked with ``e``."""
    import math
    import secrets

    n, e = key.n, key.e
    m = _encoded(bytes(message), key.size)
    while True:
        r = secrets.randbelow(n - 3) + 2
        if math.gcd(r, n) == 1:
            break
    blinded = m * pow(r, e, n) % n
    m1, m2 = pow(blinded, key._dp, key._p), pow(blinded, key._dq, key._q)
    h = key._qinv * (m1 - m2) % key._p
    s = (m2 + h * key._q) * pow(r, -1, n) % n
    if pow(s, e, n) != m:
        raise ArithmeticError("RS256: the signature made does not verify; none is returned")
    return s.to_bytes(key.size, "big")
