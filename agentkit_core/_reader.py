"""The one reader of JSON files, under :mod:`.transcript` and the command line.

A file is read as what people have, decided from its first lines:

* JSON Lines (one value a line, LF or CRLF, blank lines skipped) when its
  first non-blank line is a JSON value by itself, or its second is and the
  first is not a lone ``[`` or ``{``; read as a stream, one line at a time, so
  memory stays flat however long the file;
* otherwise one JSON document, read whole: a JSON array gives its elements, any
  other value gives itself, and several values one after another (what
  ``jq`` prints) give each of them;
* a single line holding a JSON array is that array's elements.

A UTF-8 byte order mark is skipped.  Three kinds of file are no JSON at all and
are said so as a whole: an empty one, binary data (a NUL byte, or mostly
bytes that are not text, in the first 8 KiB), and server-sent events.

The last line of JSON Lines, when the file does not end in a newline and the
line is not a whole JSON value, is *torn*: a write was cut short there.  Its
record says so (:attr:`Record.torn`), for the caller to drop rather than
refuse; a single line alone in a file is taken for such a line unless it opens
an array.

Nesting is bounded before any text reaches the JSON parser: each line, or the
whole document once, is scanned by :func:`.jsontext.check_depth`.  Every
problem is a :class:`NormalizeError` whose ``location`` is ``name:line``.
"""

from __future__ import annotations

import json
import os
import re
from typing import IO, Any, Callable, Iterable, Iterator, NamedTuple, Union

from ._detect import sniff
from ._error_text import an, noun, plural, wrong_type
from .error import NormalizeError
from .jsontext import check_depth, raw_decode

#: What a path-or-file argument may be: a ``str`` or ``os.PathLike`` path, or a file open in binary
#: or text mode (:mod:`.transcript` publishes it as ``PathOrFile``).
PathOrFile = Union[str, "os.PathLike[str]", IO[bytes], IO[str]]

__all__ = ("EMPTY", "BINARY", "EVENTS", "LINES", "ARRAY", "VALUES", "Record", "Looks", "Reading", "open_input")

# The shapes of a file.
EMPTY = "empty"  # nothing but white space
BINARY = "binary"  # not text
EVENTS = "events"  # server-sent events (text/event-stream)
LINES = "lines"  # JSON Lines
ARRAY = "array"  # one JSON array: its elements are the records
VALUES = "values"  # one JSON value, or several one after another

_HEAD = 8192  # bytes looked at to tell text from binary data
# A text stream decodes ahead of the lines it gives, so it cannot say which line holds the bad byte.
_UNDECODABLE = "invalid UTF-8 at or after this line (open the file in binary mode to find it): "
_WS = re.compile(r"[ \t\n\r]*")
_SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":")
_SSE_FIELDS_B = tuple(f.encode() for f in _SSE_FIELDS)
_OPENERS = ("[", "{", b"[", b"{")


class Record(NamedTuple):
    """One value of a file, or the problem that stopped it being read."""

    line: int
    """The line (from 1) the value starts on, or the problem is on."""
    element: int | None
    """The value's position in a JSON array; ``None`` for JSON Lines and documents."""
    value: object
    """The parsed JSON value (``None`` when :attr:`problem` is set)."""
    problem: NormalizeError | None
    """Why the value could not be read (invalid JSON or UTF-8, nested too deeply), with its location."""
    torn: int = 0
    """For the last line of JSON Lines when the file does not end in a newline and that line is no whole
    JSON value (a write cut short): its size in bytes; else 0.  Such a record has a :attr:`problem`."""


class Looks(NamedTuple):
    """What a file is, when it is not what the reader was asked for."""

    what: str
    """A noun phrase: ``"binary data"``, ``"an Anthropic Messages response"``."""
    provider: str | None
    """The provider module that reads it (``"anthropic"``...), when it is a provider body."""


class Reading:
    """One input being read: its name, its shape, and its records (a single pass).

    Made by :func:`open_input`; use it as a context manager, which closes the
    file if the reading opened it.
    """

    def __init__(self, stream: IO[Any], name: str, owned: bool) -> None:
        self.stream = stream
        self.name = name
        self._owned = owned
        self._binary_what = ""
        self._event: object = None
        self._records: Iterator[Record] = iter(())
        self.first: Record | None = None
        self.shape = self._start()

    def __enter__(self) -> Reading:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file if this reading opened it."""
        if self._owned:
            self.stream.close()

    def records(self) -> Iterator[Record]:
        """Every value of the file in order (once: the file is read as they are taken)."""
        return self._records

    def where(self, record: Record) -> str:
        """``name:line`` of ``record``."""
        return f"{self.name}:{record.line}"

    def located(self, exc: NormalizeError, record: Record) -> NormalizeError:
        """``exc``, raised decoding ``record``'s value, with the array index in its path and the record's location."""
        if record.element is not None:
            exc = exc.under(f"[{record.element}]")
        return NormalizeError(exc.message, exc.path, self.where(record))

    def looks(self, accepts: Callable[[object], bool]) -> Looks | None:
        """What the file is when it is plainly not what the caller reads; else ``None``.

        ``accepts`` judges the first value.  Binary data, server-sent events and
        a provider body are never taken; an empty file, or one whose first
        value could not be read, is (its records say the rest).
        """
        if self.shape == BINARY:
            return Looks(self._binary_what, None)
        if self.shape == EVENTS:
            found = sniff(self._event)
            if found is None:
                return Looks("server-sent events (text/event-stream)", None)
            return Looks(f"server-sent events (text/event-stream) of {plural(found.what)}", found.module)
        first = self.first
        if first is None or first.problem is not None:
            return None
        found = sniff(first.value)
        if found is None and accepts(first.value):
            return None
        if found is not None:
            what = an(found.what) if self.shape == VALUES else plural(found.what)
        else:
            what = an(noun(first.value))
        if self.shape == ARRAY:
            what = f"a JSON array of {what}" if found else f"a JSON array whose first element is {what}"
        elif self.shape == LINES:
            what = f"JSON Lines of {what}" if found else f"JSON Lines whose first line is {what}"
        return Looks(what, None if found is None else found.module)

    # -- deciding the shape ------------------------------------------------------------

    def _start(self) -> str:
        try:
            # read1: what one read gives (a pipe's first line), not a wait for _HEAD bytes or EOF
            read = getattr(self.stream, "read1", None) or self.stream.read
            chunk = read(_HEAD)
        except UnicodeDecodeError:  # a text stream over bytes that are not UTF-8
            self._binary_what = "text that is not UTF-8"
            return BINARY
        is_bytes = isinstance(chunk, (bytes, bytearray))
        if is_bytes:
            chunk = bytes(chunk)
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            self._binary_what = _binary(chunk)
        else:
            if chunk.startswith("\ufeff"):
                chunk = chunk[1:]
            self._binary_what = "binary data" if "\x00" in chunk else ""
        if self._binary_what:
            return BINARY
        head: list[Any] = []
        lines = _lines(chunk, self.stream, is_bytes)
        first = _next_text(lines, head)
        if first is None:
            return EMPTY
        n1, line1 = first
        if line1.lstrip().startswith(_SSE_FIELDS_B if is_bytes else _SSE_FIELDS):
            self._event = _first_event(line1, lines)
            return EVENTS
        record1 = self._line(n1, line1)
        second = _next_text(lines, head)
        if second is None and record1.problem is None:  # one line, one value
            if type(record1.value) is list:
                return self._start_records(ARRAY, self._array((n1, v) for v in record1.value))
            return self._start_records(VALUES, iter([record1]))
        if second is None and record1.torn and not line1.lstrip(_BLANK[is_bytes]).startswith(b"[" if is_bytes else "["):
            return self._start_records(LINES, iter([record1]))  # one line, cut short: not an array's
        record2 = None if second is None else self._line(*second)
        opens_a_document = line1.strip(_BLANK[is_bytes]) in _OPENERS  # "[" alone: an array, one element a line
        if record2 is not None and (record1.problem is None or (record2.problem is None and not opens_a_document)):
            return self._start_records(LINES, _chain((record1, record2), self._json_lines(lines, record2.line)))
        # Neither the first line nor the second is a value by itself: one document, read whole.
        try:
            head.extend(lines)
        except UnicodeDecodeError as exc:  # a text stream over bytes that are not UTF-8
            return self._start_records(VALUES, iter([self._problem(len(head) + 1, _UNDECODABLE + exc.reason)]))
        return self._start_document(b"".join(head) if is_bytes else "".join(head), n1)

    def _start_records(self, shape: str, records: Iterator[Record]) -> str:
        self.first = next(records, None)
        self._records = records if self.first is None else _chain((self.first,), records)
        return shape

    def _start_document(self, data: bytes | str, line: int) -> str:
        if isinstance(data, bytes):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                at = data.count(b"\n", 0, exc.start) + 1
                byte = exc.start - data.rfind(b"\n", 0, exc.start)
                return self._start_records(VALUES, iter([self._problem(at, f"invalid UTF-8 at byte {byte} of the line")]))
        else:
            text = data
        text = text.rstrip(" \t\r\n")  # so that a document cut short is reported on its last line
        try:
            check_depth(text)
        except NormalizeError as exc:
            return self._start_records(VALUES, iter([self._problem(line, exc.message)]))
        if text[_skip(text, 0)] == "[":
            return self._start_records(ARRAY, self._array(_elements(text)))
        return self._start_records(VALUES, self._values(text))

    # -- records ---------------------------------------------------------------------------

    def _problem(self, line: int, message: str) -> Record:
        return Record(line, None, None, NormalizeError(message, "", f"{self.name}:{line}"))

    def _line(self, n: int, raw: bytes | str) -> Record:
        """The record of line ``n`` of JSON Lines."""
        if isinstance(raw, bytes):
            try:
                text = raw.rstrip(b"\r\n").decode("utf-8")
            except UnicodeDecodeError as exc:
                return self._torn(raw, self._problem(n, f"invalid UTF-8 at byte {exc.start + 1} of the line"))
        else:
            text = raw.rstrip("\r\n")
        try:
            check_depth(text)
            value, end = raw_decode(text, _skip(text, 0))
            end = _skip(text, end)
            if end != len(text):
                raise json.JSONDecodeError("Extra data", text, end)
        except NormalizeError as exc:
            return self._torn(raw, self._problem(n, exc.message))
        except (ValueError, RecursionError) as exc:
            return self._torn(raw, self._problem(n, _json_problem(exc)))
        return Record(n, None, value, None)

    @staticmethod
    def _torn(raw: bytes | str, record: Record) -> Record:
        """``record`` of a line that is no JSON value, marked torn if it is the last and has no newline."""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogatepass")
        return record if raw.endswith(b"\n") else record._replace(torn=len(raw))

    def _json_lines(self, lines: Iterator[Any], n: int) -> Iterator[Record]:
        """The records of the lines after line ``n`` of JSON Lines."""
        try:
            for n, raw in enumerate(lines, n + 1):  # noqa: B020 - n counts on from the line before
                if raw.strip(_BLANK[isinstance(raw, bytes)]):
                    yield self._line(n, raw)
        except UnicodeDecodeError as exc:  # a text stream over bytes that are not UTF-8: it cannot go on
            yield self._problem(n + 1, _UNDECODABLE + exc.reason)

    def _array(self, elements: Iterable[tuple[int, Any]]) -> Iterator[Record]:
        index = 0
        try:
            for line, value in elements:
                yield Record(line, index, value, None)
                index += 1
        except _Bad as bad:
            yield self._problem(bad.line, bad.message)

    def _values(self, text: str) -> Iterator[Record]:
        """Each of one or more JSON values, one after another, of a document."""
        lines = _LineCounter(text)
        i = _skip(text, 0)
        while i < len(text):
            try:
                value, end = raw_decode(text, i)
            except (ValueError, RecursionError) as exc:
                yield self._problem(_error_line(exc, lines, i), _json_problem(exc))
                return
            yield Record(lines.at(i), None, value, None)
            i = _skip(text, end)


class _Bad(Exception):
    """A JSON problem inside an array, at a line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(line, message)
        self.line = line
        self.message = message


class _LineCounter:
    """Line numbers of positions in ``text``, asked for in increasing order, so each newline is counted once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.counted = 0
        self.line = 1

    def at(self, pos: int) -> int:
        self.line += self.text.count("\n", self.counted, pos)
        self.counted = pos
        return self.line


def _elements(text: str) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of the JSON array ``text`` holds; raises :class:`_Bad` at a fault."""
    lines = _LineCounter(text)
    end = len(text)
    i = _skip(text, _skip(text, 0) + 1)  # past the "["
    if i < end and text[i] == "]":
        i = _skip(text, i + 1)
        if i < end:
            raise _Bad(lines.at(i), "invalid JSON: extra data after the array")
        return
    while True:
        try:
            value, after = raw_decode(text, i)
        except (ValueError, RecursionError) as exc:
            raise _Bad(_error_line(exc, lines, i), _json_problem(exc)) from None
        yield lines.at(i), value
        i = _skip(text, after)
        if i < end and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < end and text[i] == "]":
            i = _skip(text, i + 1)
            if i < end:
                raise _Bad(lines.at(i), "invalid JSON: extra data after the array")
            return
        problem = "the array is not closed" if i >= end else "expected ',' or ']' after an array element"
        raise _Bad(lines.at(i), f"invalid JSON: {problem}")


def _error_line(exc: BaseException, lines: _LineCounter, pos: int) -> int:
    return exc.lineno if isinstance(exc, json.JSONDecodeError) else lines.at(pos)


def _json_problem(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg}: column {exc.colno}"
    if isinstance(exc, RecursionError):  # pragma: no cover - nesting is bounded before parsing
        return "invalid JSON: nested too deeply to read"
    return f"invalid JSON: {exc}"


def _skip(text: str, i: int) -> int:
    """The index of the first non-whitespace character at or after ``i``."""
    m = _WS.match(text, i)
    return i if m is None else m.end()


_BLANK = {True: b" \t\r\n", False: " \t\r\n"}


def _binary(chunk: bytes) -> str:
    """What the first bytes of a file say it is, if not text: ``""`` for text."""
    if chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text (transcripts are UTF-8)"
    if b"\x00" in chunk:
        return "binary data"
    text = chunk.decode("utf-8", "replace")
    bad = text.count("\ufffd") + sum(1 for c in text if c < " " and c not in "\t\n\r\f")
    return "binary data" if bad > 3 and bad * 10 > len(text) else ""


def _lines(chunk: Any, stream: IO[Any], is_bytes: bool) -> Iterator[Any]:
    """The lines of the file: those of the first ``chunk`` already read, then the rest of ``stream``."""
    newline: object = b"\n" if is_bytes else "\n"
    pieces = chunk.split(newline)
    for piece in pieces[:-1]:
        yield piece + newline
    if pieces[-1]:
        yield pieces[-1] + stream.readline()
    yield from stream


def _next_text(lines: Iterator[Any], head: list[Any]) -> tuple[int, Any] | None:
    """The next line that is not blank, with its number; every line read is kept in ``head``."""
    for raw in lines:
        head.append(raw)
        if raw.strip(_BLANK[isinstance(raw, bytes)]):
            return len(head), raw
    return None


def _first_event(line: object, lines: Iterator[Any]) -> Any:
    """The JSON of the first ``data:`` field of server-sent events (within 100 lines), or ``None``."""
    for _, raw in zip(range(100), _chain((line,), lines)):
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if text.startswith("data:"):
            try:
                check_depth(text)
                return raw_decode(text, _skip(text, 5))[0]
            except (ValueError, RecursionError):
                continue
    return None


def _chain(head: Iterable[object], rest: Iterable[object]) -> Iterator[Any]:
    yield from head
    yield from rest


def open_input(path_or_file: PathOrFile) -> Reading:
    """Start reading a path (opened in binary mode, closed by the reading) or an open file (left open).

    Raises ``OSError`` when the path cannot be opened or read.
    """
    if not isinstance(path_or_file, (str, os.PathLike)):
        if not hasattr(path_or_file, "read"):
            raise wrong_type("path_or_file", "a path or a file open for reading", path_or_file)
        name = getattr(path_or_file, "name", None)
        return Reading(path_or_file, name if isinstance(name, str) else "<stream>", owned=False)
    name = os.fsdecode(path_or_file)
    stream = open(path_or_file, "rb")  # noqa: SIM115 - closed by the reading
    try:
        return Reading(stream, name, owned=True)
    except BaseException:
        stream.close()
        raise
