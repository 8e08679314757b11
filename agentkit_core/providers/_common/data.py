"""Inline data: canonical base64, base64 ``data:`` URLs, and what a media or file part's inline data holds.

A decoder keeps base64 as bytes only when it is canonical (:func:`b64decode`),
so the encoder writes back the very string it read; :func:`inline_base64` is
the one rule every encoder follows for ``InlineText``.
"""

from __future__ import annotations

import binascii

from ... import FilePart, InlineBytes, InlineText, MediaPart

#: OpenAI's ``input_audio`` formats (Chat Completions and Responses) -> the MIME type of their data.
INPUT_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}

def b64encode(data: bytes, *, urlsafe: bool = False) -> str:
    """``data`` as base64 text, standard (``+/``) or URL-safe (``-_``), padded."""
    if not urlsafe:
        return binascii.b2a_base64(data, newline=False).decode("ascii")  # base64.b64encode's own call, without its import and wrapper
    import base64

    return base64.urlsafe_b64encode(data).decode("ascii")


def b64decode(text: object, *, urlsafe: bool = False) -> bytes | None:
    """The bytes ``text`` encodes if it is canonical base64 of that alphabet, else ``None``.

    Canonical means it re-encodes to exactly ``text``, so a projection that
    decodes it and encodes it again writes back the very string it read.
    """
    if not isinstance(text, str) or not text.isascii():
        return None
    import base64

    try:
        data = base64.urlsafe_b64decode(text) if urlsafe else base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if b64encode(data, urlsafe=urlsafe) == text else None


def data_url(mime: str, base64_text: str) -> str:
    """The base64 ``data:`` URL of ``base64_text`` with media type ``mime``."""
    return f"data:{mime};base64,{base64_text}"


def parse_data_url(url: str, *, exact: bool = True) -> tuple[str, str] | None:
    """``(media type, base64 text)`` of a base64 ``data:`` URL; ``None`` for any other URL.

    ``exact`` (for a decoder that must write back what it read): only a URL
    that :func:`data_url` gives back unchanged, ``data:<type>;base64,<data>``
    with a media type.
    Otherwise (for an encoder taking what comes) the scheme and ``;base64``
    in any case, parameters before it (dropped) and an empty media type too.
    """
    if url[:5].lower() != "data:":
        return None
    head, comma, data = url[5:].partition(",")
    if not comma or not head.lower().endswith(";base64"):
        return None
    mime = head.split(";")[0]
    if exact and (not mime or data_url(mime, data) != url):
        return None
    return mime, data


def holds_text(part: MediaPart | FilePart) -> bool:
    """Whether ``part``'s ``InlineText`` is its content rather than base64: a file of a ``text/*`` or no MIME type."""
    return isinstance(part, FilePart) and isinstance(part.data, InlineText) and (part.mime_type or "text/").startswith("text/")


def inline_base64(part: MediaPart | FilePart) -> str | None:
    """A media or file part's inline data as base64 text; ``None`` for a URI or an artifact handle.

    The one rule every encoder follows for ``InlineText``: media hold base64
    text (what a decoder keeps when the base64 is not canonical), and so does
    a file of a MIME type other than ``text/*``; a file of a ``text/*`` or no
    MIME type holds its content (:func:`holds_text`), sent as UTF-8.
    """
    data = part.data
    if isinstance(data, InlineBytes):
        return b64encode(data.value)
    if not isinstance(data, InlineText):
        return None
    return b64encode(data.value.encode("utf-8")) if holds_text(part) else data.value
