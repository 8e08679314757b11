"""The command line: ``python -m agentkit_core demo|validate|stats|fold``.

Only ``__main__`` imports this module; importing the package never does.

Input files hold a JSON array of values or JSON Lines (one value a line); the
first non-whitespace character decides (``[`` is an array).  ``-`` reads
standard input.  JSON Lines are read as a stream, so memory stays flat however
long the file.  Blank lines are skipped.

Exit codes: 0 everything is good; 1 some item or delta is bad (each reported
as ``file:line: path: message``, or ``file:line: message`` when the fault is
the whole value); 2 bad arguments or an unreadable file (one line on stderr);
130 interrupted; 141 the reader of standard output went away.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from typing import IO, Any, Callable, Iterable, Iterator, NoReturn, Sequence

from ._codec import reject_constant
from .content import PartKind
from .delta import Delta
from .error import NormalizeError, ProtocolError
from .fold import FoldState, fold
from .item import Item, ItemKind
from .usage import TokenUsage

__all__ = ("main",)

_PROG = __name__.rpartition(".")[0] or "agentkit_core"
_WS = re.compile(r"[ \t\n\r]*")
_BOM = b"\xef\xbb\xbf"

#: (line, value, None) for a JSON value read; (line, None, message) for one that could not be read.
Record = tuple[int, Any, "str | None"]


class CliError(Exception):
    """A usage error or an unreadable file: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see {self.prog} --help)")


# -- reading ------------------------------------------------------------------------


def _decoder() -> json.JSONDecoder:
    return json.JSONDecoder(parse_constant=reject_constant)


def _json_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg}: column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply to read"
    return f"invalid JSON: {exc}"


class Source:
    """One input file (or standard input), opened in binary mode."""

    def __init__(self, path: str) -> None:
        self.path = path
        if path == "-":
            self.name = "<stdin>"
            self.stream: IO[bytes] = sys.stdin.buffer
            return
        self.name = path
        try:
            self.stream = open(path, "rb")  # noqa: SIM115 (closed by close())
        except OSError as exc:
            raise CliError(f"cannot read {path!r}: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self.path != "-":
            self.stream.close()

    def records(self, progress: bool = False) -> Iterator[Record]:
        """Every JSON value of the file, with the line it starts on."""
        try:
            yield from self._records(progress)
        except OSError as exc:
            raise CliError(f"cannot read {self.name!r}: {exc.strerror or exc}") from None

    def _records(self, progress: bool) -> Iterator[Record]:
        head: list[bytes] = []
        for raw in self.stream:
            if not head and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            head.append(raw)
            if raw.strip():
                break
        if b"".join(head).lstrip()[:1] == b"[":
            yield from _array_records(b"".join(head) + self.stream.read())
            return
        lines: Iterable[bytes] = _chain(head, self.stream)
        if progress:
            lines = _progress(lines, self.name, self.stream)
        yield from _line_records(lines)


def _chain(head: list[bytes], rest: Iterable[bytes]) -> Iterator[bytes]:
    yield from head
    yield from rest


def _line_records(lines: Iterable[bytes]) -> Iterator[Record]:
    decode = _decoder().decode
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield lineno, None, f"invalid UTF-8 at byte {exc.start + 1} of the line"
            continue
        try:
            value = decode(text.rstrip("\r\n"))
        except (ValueError, RecursionError) as exc:
            yield lineno, None, _json_problem(exc)
        else:
            yield lineno, value, None


def _array_records(data: bytes) -> Iterator[Record]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield data.count(b"\n", 0, exc.start) + 1, None, "invalid UTF-8"
        return
    raw_decode = _decoder().raw_decode
    end = len(text)
    counted, line = 0, 1

    def line_at(pos: int) -> int:
        nonlocal counted, line
        line += text.count("\n", counted, pos)
        counted = pos
        return line

    i = _skip(text, _skip(text, 0) + 1)  # past the "["
    if i < end and text[i] == "]":
        i = _skip(text, i + 1)
        if i < end:
            yield line_at(i), None, "invalid JSON: extra data after the array"
        return
    while True:
        try:
            value, after = raw_decode(text, i)
        except json.JSONDecodeError as exc:
            yield exc.lineno, None, _json_problem(exc)
            return
        except (ValueError, RecursionError) as exc:
            yield line_at(i), None, _json_problem(exc)
            return
        yield line_at(i), value, None
        i = _skip(text, after)
        if i < end and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < end and text[i] == "]":
            i = _skip(text, i + 1)
            if i < end:
                yield line_at(i), None, "invalid JSON: extra data after the array"
            return
        problem = "the array is not closed" if i >= end else "expected ',' or ']' after an array element"
        yield line_at(i), None, f"invalid JSON: {problem}"
        return


def _skip(text: str, i: int) -> int:
    """The index of the first non-whitespace character at or after ``i``."""
    m = _WS.match(text, i)
    return i if m is None else m.end()


def _progress(lines: Iterable[bytes], name: str, stream: IO[bytes]) -> Iterator[bytes]:
    """Pass ``lines`` through, drawing a progress line on stderr every half second after the first."""
    try:
        size = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        size = 0
    start = shown = time.monotonic()
    drawn = False
    for n, raw in enumerate(lines, 1):
        yield raw
        if n & 0xFFF == 0:
            now = time.monotonic()
            if now - start >= 1.0 and now - shown >= 0.5:
                shown, drawn = now, True
                where = f" ({100 * stream.tell() // size}%)" if size else ""
                sys.stderr.write(f"\r\x1b[K{name}: line {n:,}{where}")
                sys.stderr.flush()
    if drawn:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


#: What :func:`_items` yields for a value that is JSON but not an item, and for text that is not JSON.
BAD_ITEM = "bad item"
BAD_JSON = "bad JSON"


def _items(paths: Sequence[str], report: Callable[[str], None], progress: bool) -> Iterator[Item | str]:
    """Decode every item of ``paths``: an :class:`Item`, or after reporting a problem, ``BAD_ITEM``/``BAD_JSON``."""
    for path in paths:
        source = Source(path)
        try:
            for line, value, problem in source.records(progress):
                if problem is None:
                    try:
                        yield Item.from_dict(value)
                        continue
                    except NormalizeError as exc:
                        report(f"{source.name}:{line}: {exc}")
                        yield BAD_ITEM
                        continue
                report(f"{source.name}:{line}: {problem}")
                yield BAD_JSON
        finally:
            source.close()


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


# -- commands -----------------------------------------------------------------------


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _out_over_progress(text: str) -> None:
    """Print a line to stdout after clearing a progress line on the terminal, so they do not share a row."""
    sys.stderr.write("\r\x1b[K")
    sys.stderr.flush()
    _out(text)
    sys.stdout.flush()


def cmd_validate(args: argparse.Namespace) -> int:
    """Check every item of every file; report each problem."""
    read = good = problems = 0
    progress = sys.stderr.isatty()
    for item in _items(args.files, _out_over_progress if progress else _out, progress):
        if isinstance(item, Item):
            read, good = read + 1, good + 1
        else:
            read, problems = read + (item is BAD_ITEM), problems + 1
    files = _plural(len(args.files), "file")
    if problems:
        _out(f"{_plural(problems, 'problem')} in {files} ({_plural(read, 'item')} read, {good:,} good)")
        return 1
    _out(f"ok: {_plural(good, 'item')} in {files}")
    return 0


_TOKEN_NAMES = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("reasoning", "reasoning_tokens"),
    ("cached", "cached_input_tokens"),
    ("cache-write", "cache_write_input_tokens"),
)


def collect_stats(items: Iterable[Item | str]) -> dict[str, Any]:
    """The ``stats --json`` object of ``items`` (a string is a problem already reported)."""
    kinds = {k.value: 0 for k in ItemKind}
    parts = {k.value: 0 for k in PartKind}
    tools: dict[str, int] = {}
    tokens = TokenUsage(0, 0, reasoning_tokens=0, cached_input_tokens=0, cache_write_input_tokens=0)
    cost: dict[str, float] = {}
    good = problems = 0
    for item in items:
        if not isinstance(item, Item):
            problems += 1
            continue
        good += 1
        kinds[item.kind.value] += 1
        for part in item.parts:
            parts[part.part_kind.value] += 1
            if part.part_kind is PartKind.TOOL_CALL:
                name = part.name  # type: ignore[attr-defined]
                tools[name] = tools.get(name, 0) + 1
        usage = item.usage
        if usage is not None:
            if usage.tokens is not None:
                tokens = tokens + usage.tokens
            if usage.cost is not None:
                cost[usage.cost.currency] = cost.get(usage.cost.currency, 0.0) + usage.cost.amount
    return {
        "items": good,
        "problems": problems,
        "items_by_kind": kinds,
        "parts_by_type": parts,
        "tool_calls_by_name": dict(sorted(tools.items())),
        "tokens": {key: getattr(tokens, key) for _, key in _TOKEN_NAMES},
        "cost": dict(sorted(cost.items())),
    }


def render_stats(stats: dict[str, Any]) -> str:
    """The ``stats`` table: one aligned row per count, grouped."""
    rows: list[tuple[str, str]] = [("items", f"{stats['items']:,}")]
    rows += [(f"  {k}", f"{n:,}") for k, n in stats["items_by_kind"].items() if n]
    rows.append(("parts", f"{sum(stats['parts_by_type'].values()):,}"))
    rows += [(f"  {k}", f"{n:,}") for k, n in stats["parts_by_type"].items() if n]
    tools = stats["tool_calls_by_name"]
    rows.append(("tool calls", f"{sum(tools.values()):,}"))
    rows += [(f"  {k}", f"{n:,}") for k, n in sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))]
    rows.append(("tokens", ""))
    rows += [(f"  {label}", f"{stats['tokens'][key]:,}") for label, key in _TOKEN_NAMES]
    rows.append(("cost", "" if stats["cost"] else "none"))
    rows += [(f"  {cur}", f"{amount:.6f}") for cur, amount in stats["cost"].items()]
    if stats["problems"]:
        rows.append(("problems", f"{stats['problems']:,}"))
    left = max(len(r[0]) for r in rows)
    right = max(len(r[1]) for r in rows)
    return "\n".join(f"{label:<{left}}  {value:>{right}}".rstrip() for label, value in rows)


def cmd_stats(args: argparse.Namespace) -> int:
    """Summarize every item of every file."""
    stats = collect_stats(_items(args.files, _err, sys.stderr.isatty()))
    if args.json:
        _out(json.dumps(stats, ensure_ascii=False))
    else:
        _out(render_stats(stats))
    return 1 if stats["problems"] else 0


def cmd_fold(args: argparse.Namespace) -> int:
    """Fold a file of deltas and print the parts."""
    source = Source(args.file)
    state = FoldState()
    try:
        for line, value, problem in source.records():
            if problem is None:
                try:
                    state = fold(state, Delta.from_dict(value))
                    continue
                except (NormalizeError, ProtocolError) as exc:
                    problem = str(exc)
            _err(f"{source.name}:{line}: {problem}")
            return 1
    finally:
        source.close()
    status = 0
    if state.is_open:
        ids = ", ".join(repr(i.value) for i in state.open_ids)
        _err(f"{source.name}: the deltas end with {_plural(len(state.open_ids), 'part')} still open ({ids}); "
             "printed as they stand")
        status = 1
    parts = [p.to_dict() for p in state.finalize()]
    if args.compact:
        _out(json.dumps(parts, ensure_ascii=False, separators=(",", ":")))
    else:
        _out(json.dumps(parts, ensure_ascii=False, indent=2))
    return status


def cmd_demo(args: argparse.Namespace) -> int:
    """Play the scripted assistant turn (see :mod:`._cli_demo`)."""
    from . import _cli_demo

    return _cli_demo.run(sys.stdout, live=sys.stdout.isatty(), delay=not args.fast, quiet=args.quiet, deltas=args.deltas)


# -- the parser ---------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m agentkit_core`` argument parser."""
    parser = _Parser(
        prog=f"python -m {_PROG}",
        description="Check, summarize and fold agentkit transcripts; `demo` shows the package at work.",
        epilog="Exit status: 0 ok, 1 bad items or deltas, 2 bad arguments or unreadable files.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    demo = commands.add_parser("demo", help="stream a scripted assistant turn through fold, then print the transcript")
    demo.add_argument("--fast", action="store_true", help="no pause between deltas")
    demo.add_argument("-q", "--quiet", action="store_true", help="print only the transcript (JSON Lines)")
    demo.add_argument("--deltas", action="store_true", help="print only the scripted deltas (JSON Lines)")
    demo.set_defaults(run=cmd_demo)
    files = "JSON array or JSON Lines of items; - reads stdin"
    validate = commands.add_parser("validate", help="check that files hold valid items")
    validate.add_argument("files", nargs="+", metavar="FILE", help=files)
    validate.set_defaults(run=cmd_validate)
    stats = commands.add_parser("stats", help="count items, parts, tool calls, tokens and cost")
    stats.add_argument("files", nargs="+", metavar="FILE", help=files)
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(run=cmd_stats)
    fold_ = commands.add_parser("fold", help="fold JSON Lines of deltas into parts")
    fold_.add_argument("file", metavar="FILE", help="JSON Lines (or a JSON array) of deltas; - reads stdin")
    fold_.add_argument("--compact", action="store_true", help="print the parts on one line")
    fold_.set_defaults(run=cmd_fold)
    return parser


def _utf8(stream: Any) -> None:
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(encoding="utf-8", errors="backslashreplace")
        except (ValueError, OSError):  # pragma: no cover - a stream already written in another encoding
            pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status.  Nothing reaches the user as a traceback."""
    _utf8(sys.stdout)
    _utf8(sys.stderr)
    try:
        args = build_parser().parse_args(argv)
        status: int = args.run(args)
        sys.stdout.flush()
        return status
    except CliError as exc:
        _err(f"{_PROG}: error: {exc}")
        return 2
    except KeyboardInterrupt:
        _err("")
        return 130
    except BrokenPipeError:
        try:  # keep the interpreter's final flush quiet too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # pragma: no cover
            pass
        return 141
    except Exception as exc:  # noqa: BLE001 - the promise is: no tracebacks for users
        _err(f"{_PROG}: internal error: {type(exc).__name__}: {exc} (please report this bug)")
        return 70
