"""The command line's vocabulary, written once: its name, its one usage error, how it prints.

Every command (:mod:`.commands`, :mod:`.convert`, :mod:`.demo`, :mod:`.turn`)
names the program :data:`PROG`, raises :class:`CliError` for bad usage
(reported by :func:`.commands.main` as one line, exit status 2), and writes
through :func:`out` and :func:`err`, which escape what a terminal could act
on by :func:`escape`'s one rule.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

__all__ = ("PROG", "CliError", "Parser", "escape", "width", "out", "out_json", "err", "plural")

#: The package's name, dots and all, under whatever name it is imported (``vendor.agentkit_core``): what every
#: message, ``--version`` and ``python -m PROG`` say.
PROG = __name__.rsplit(".", 2)[0]


class CliError(Exception):
    """A usage error: reported as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see {self.prog} --help)")


# -- printing -------------------------------------------------------------------------

_REPR_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape(text: str, json_text: bool = False) -> str:
    """``text`` safe for a terminal: every character that is not printable is escaped.

    Not printable (``str.isprintable``): control characters, format characters
    such as the bidi overrides U+202A..U+202E and U+2066..U+2069, line and
    paragraph separators, surrogates, unassigned code points.  They are
    written as Python writes them in a ``repr`` (``\\x1b``, ``\\u202e``), or with
    ``json_text`` as JSON escapes (``\\u001b``), leaving JSON's own newlines.
    """
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c.isprintable():
            out.append(c)
            continue
        code = ord(c)
        if json_text:
            if c == "\n":
                out.append(c)
            elif code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(_REPR_ESCAPES.get(c) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"))
    return "".join(out)


def width(text: str) -> int:
    """How many terminal columns ``text`` (already escaped) takes: wide East Asian characters two, marks none."""
    if text.isascii():
        return len(text)
    from unicodedata import category, east_asian_width

    return sum(2 if east_asian_width(c) in "WF" else 0 if category(c) in ("Mn", "Me") else 1 for c in text)


def out(text: str) -> None:
    sys.stdout.write(escape(text) + "\n")


def out_json(value: object, **options: Any) -> None:
    """Print ``value`` as JSON (``json.dumps`` options), written piece by piece as it is encoded."""
    write = sys.stdout.write
    for chunk in json.JSONEncoder(ensure_ascii=False, **options).iterencode(value):
        write(escape(chunk, json_text=True))
    write("\n")


def err(text: str) -> None:
    sys.stderr.write(escape(text) + "\n")


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
