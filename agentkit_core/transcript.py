"""Transcripts in and out of files: :func:`load_items`, :func:`iter_items`, :func:`dump_items`, :func:`append_items`.

They read the shapes people have: JSON Lines (LF or CRLF line ends, blank
lines skipped, a UTF-8 byte order mark tolerated), a JSON array compact or
pretty-printed, a single item pretty-printed or not.  JSON Lines stream: one
line at a time.  They write JSON Lines, one item a line in the reference's
compact form, UTF-8, LF: :func:`dump_items` replaces a file atomically,
:func:`append_items` adds lines under a lock.  A crash costs at most the
write under way (docs/sessions.md): the last line of JSON Lines that has no
final newline and is not a whole JSON value is a write cut short, which the
readers drop with a warning and the next append removes.

A problem raises :class:`NormalizeError` whose ``location`` names the file and
the line (``turn.jsonl:3``), whose ``path`` names the field, from the item's
root or, in an array, from the array's (``[2].parts[0].Text.text``), and whose
``message`` says what is wrong.  A file that is plainly not a transcript (binary
data, a provider's request or response, a JSON value that is no item) raises
one error saying what it looks like.  Files that cannot be opened raise
``OSError`` as ``open()`` does.
"""

from __future__ import annotations

import io
import os

from .error import NormalizeError
from .item import Item

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import IO, Any, Callable, Iterable, Iterator

    from ._reader import PathOrFile as PathOrFile, Reading, Record

__all__ = ("load_items", "iter_items", "dump_items", "append_items", "PathOrFile")

#: What a path-or-file argument may be: a ``str`` or ``os.PathLike`` path, or a file open in binary or text mode.
if not TYPE_CHECKING:  # the reader's alias, spelled without importing the reader, which loads on first use
    PathOrFile = str | os.PathLike[str] | io.IOBase

_PACKAGE = __name__.rpartition(".")[0] or "agentkit_core"


def iter_items(path_or_file: PathOrFile) -> Iterator[Item]:
    """Read a transcript, one :class:`Item` at a time.

    ``path_or_file`` is a ``str`` or ``os.PathLike`` path, or a file open in
    binary or text mode (it is left open).  JSON Lines are read as a stream,
    so memory stays flat however long the file.  Raises
    :class:`NormalizeError` at the first problem, naming where it is.

    A torn last line of JSON Lines (the file does not end in a newline and
    its last line is not a whole JSON value: a write cut short, never
    acknowledged) is dropped with a ``UserWarning`` naming the line and its
    size.  A last line without a newline that is a whole JSON value is read
    as any other line.  A JSON array or document cut short raises.
    """
    from ._reader import open_input  # the reader loads on first use, not with the package

    with open_input(path_or_file) as reading:
        refusal = not_a_transcript(reading)
        if refusal is not None:
            raise refusal
        for record, result in results(reading):
            if isinstance(result, NormalizeError):
                if record.torn:
                    _warn_torn(reading, record)
                    continue
                raise result
            yield result


def _warn_torn(reading: Reading, record: Record) -> None:
    import warnings

    warnings.warn(
        f"{reading.where(record)}: dropped a torn last line ({record.torn:,} bytes, no final newline, "
        "not a whole JSON value): a write was cut short",
        stacklevel=3,
    )


def load_items(path_or_file: PathOrFile) -> list[Item]:
    """Read a whole transcript into a list; see :func:`iter_items`."""
    return list(iter_items(path_or_file))


def dump_items(items: Iterable[Item], path_or_file: PathOrFile) -> None:
    """Write ``items`` as JSON Lines: one item a line, in the reference's compact form, UTF-8, LF.

    A path is created or replaced atomically: the lines go to a temporary file
    in the same folder (``.<name>.<random>.tmp``), which is flushed,
    synced with ``os.fsync`` and renamed over the path, and the folder is
    synced where the system allows.  Killed at any moment, the path
    holds the old transcript whole or the new one whole; a temporary left by
    a killed save is never read and the next save deletes it.  A new file gets
    the mode ``open()`` would give it, a replaced one keeps its mode; a
    symbolic link is followed.

    A file open in binary mode gets UTF-8 bytes; one open in text mode gets
    ``str`` lines ending in ``"\\n"`` (open it with ``newline=""`` where the
    platform would translate that).  Writing to an open file is not atomic and
    not synced: that is the caller's file.  Raises ``TypeError``, naming its
    position, for anything that is not an :class:`Item`: a path is then left
    as it was; an open file has the lines before it.
    """
    if isinstance(path_or_file, (str, os.PathLike)):
        from ._durable import replace  # loaded on first use, not with the package

        replace(path_or_file, lambda f: _write(items, f, binary=True))
    elif hasattr(path_or_file, "write"):
        _write(items, path_or_file, binary=not _is_text(path_or_file))
    else:
        from ._error_text import wrong_type  # the error path only

        raise wrong_type("dump_items", "a path or a file open for writing", path_or_file)


def append_items(items: Iterable[Item], path: str | os.PathLike[str], *, sync: bool = True) -> None:
    """Append ``items`` to the JSON Lines file at ``path`` (created if missing): one item a line, as :func:`dump_items` writes.

    The lines go in one ``os.write`` under an exclusive lock (``fcntl.flock``;
    ``msvcrt.locking`` on Windows; none where the platform has neither, such
    as Pyodide), so appenders in several processes never interleave or tear
    each other's lines.  Returns once the bytes are written and, with
    ``sync`` (the default), synced with ``os.fsync``: an item whose append returned
    survives a crash (with ``sync=False``, a crash of the process; not a power
    cut).  If the file ends in a torn line (no final newline, not a whole JSON
    value: an append cut short), that line was never acknowledged: it is cut
    off first, with a ``UserWarning`` naming it.  A crash during a call can
    leave some of its items and, at the end, a torn line the readers drop.

    Raises ``TypeError``, naming its position, for anything that is not an
    :class:`Item` (nothing is written), and :class:`NormalizeError` for a file
    holding a JSON array, which lines cannot extend.
    """
    if not isinstance(path, (str, os.PathLike)):
        from ._error_text import wrong_type

        raise wrong_type("append_items", "a path", path)
    lines = []
    for n, item in enumerate(items):
        if not isinstance(item, Item):
            from ._error_text import wrong_type

            raise wrong_type(f"append_items: items[{n}]", "an Item", item)
        lines.append(item.to_json())
    data = ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
    (_append or _load_append())(path, data, sync)


#: :func:`._durable.append`, loaded on the first append (a relative import at every call costs a microsecond).
_append: Callable[[str | os.PathLike[str], bytes, bool], None] | None = None


def _load_append() -> Callable[[str | os.PathLike[str], bytes, bool], None]:
    global _append
    from ._durable import append

    _append = append
    return append


def _write(items: Iterable[Item], f: IO[Any], binary: bool) -> None:
    write = f.write
    for n, item in enumerate(items):
        if not isinstance(item, Item):
            from ._error_text import wrong_type

            raise wrong_type(f"dump_items: items[{n}]", "an Item", item)
        line = item.to_json() + "\n"
        write(line.encode("utf-8") if binary else line)


def _is_text(f: object) -> bool:
    if isinstance(f, io.TextIOBase):
        return True
    if isinstance(f, (io.BufferedIOBase, io.RawIOBase)):
        return False
    mode = getattr(f, "mode", None)
    return not (isinstance(mode, str) and "b" in mode)


# -- shared with the command line -------------------------------------------------------


def looks_like_item(value: object) -> bool:
    """Whether a parsed JSON value could be meant as an item (a struct written as an object or a list)."""
    return type(value) is list or (type(value) is dict and ("kind" in value or "parts" in value))


def not_a_transcript(reading: Reading) -> NormalizeError | None:
    """The error for a file that is plainly not a transcript (an empty one is: it holds no items)."""
    from ._reader import EMPTY

    if reading.shape == EMPTY:
        return None
    looks = reading.looks(looks_like_item)
    if looks is None:
        return None
    hint = "" if looks.provider is None else f"; read it with {_PACKAGE}.providers.{looks.provider}"
    return NormalizeError(f"not a transcript: {looks.what}{hint}", "", reading.name)


def results(reading: Reading) -> Iterator[tuple[Record, Item | NormalizeError]]:
    """Each record of ``reading`` with its item, or the located error that stopped it being one."""
    decode = Item.from_dict
    for record in reading.records():
        if record.problem is not None:
            yield record, record.problem
            continue
        try:
            item = decode(record.value)
        except NormalizeError as exc:
            yield record, reading.located(exc, record)
            continue
        yield record, item


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
