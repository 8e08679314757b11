"""The command line: ``python -m agentkit_core demo|validate|stats|fold|convert|turn``.

Only ``__main__`` imports this package; importing ``agentkit_core`` never does.

Files are read by :mod:`.transcript`'s reader, so the command line reads what
:func:`~.transcript.load_items` reads: JSON Lines (streamed, so memory stays
flat however long the file), a JSON array, or one JSON document, pretty-printed
or not.  ``-`` reads standard input.  A file that is plainly not what the
command reads (empty, binary, a provider's body, JSON that is no item or delta)
gets one line saying what it looks like; a provider's body gets the
``convert`` command that reads it (:mod:`.convert`).

Results go to standard output; problems go to standard error, one line each,
as ``file:line: path: message`` (``file:line: message`` when the fault is the
whole value); after 20 in one file the rest are counted, not shown.  Every
character from data that a terminal could act on (control and format
characters, bidi overrides included) is printed escaped, by one rule: as
Python writes it in a ``repr`` in text, as ``\\uXXXX`` in JSON.

Exit codes: 0 everything is good; 1 some item or delta is bad, or a file is no
transcript; 2 bad arguments, or a file that cannot be read (reported in one
line; the other files are still read); 70 an internal error; 130 interrupted;
141 the reader of standard output went away.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from typing import IO, Any, Iterable, Iterator, Sequence

from .. import __version__
from .._reader import EMPTY, LINES, Reading, open_input
from ..content import PartKind
from ..delta import Delta
from ..error import NormalizeError, ProtocolError
from ..fold import FoldState, fold
from ..item import Item, ItemKind
from ..transcript import looks_like_item, results
from ..usage import TokenUsage
from .common import PROG, CliError, Parser, err, escape, out, out_json, plural, width

__all__ = ("main",)

_SHOWN = 20  # problems shown per file; the rest are counted


class _Problems:
    """Reports problems on stderr: 20 a file, then a count of the rest; remembers unreadable files."""

    def __init__(self, progress: bool = False) -> None:
        self.total = 0
        self.unreadable = False
        self.progress = progress
        self._in_file = 0

    def report(self, line: str) -> None:
        self.total += 1
        self._in_file += 1
        if self._in_file <= _SHOWN:
            if self.progress:
                sys.stderr.write("\r\x1b[K")  # clear a progress line first
            err(line)

    def end_file(self, name: str) -> None:
        hidden, self._in_file = self._in_file - _SHOWN, 0
        if hidden > 0:
            err(f"{name}: {plural(hidden, 'more problem')} not shown")

    def cannot_read(self, name: str, exc: OSError) -> None:
        self.unreadable = True
        self.report(f"{name}: cannot read: {exc.strerror or exc}")

    def status(self) -> int:
        return 2 if self.unreadable else 1 if self.total else 0


# -- reading --------------------------------------------------------------------------


def _open(path: str, problems: _Problems) -> Reading | None:
    """Start reading ``path`` (``-``: stdin); ``None`` after reporting a file that cannot be read."""
    try:
        if path == "-":
            stdin: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin)
            return Reading(stdin, "<stdin>", owned=False)
        return open_input(path)
    except OSError as exc:
        problems.cannot_read(path, exc)
        return None


def _convert_hint(provider: str | None, path: str) -> str:
    if provider is None:
        return ""
    from .convert import flag

    return f"; convert it with python -m {PROG} convert --from {flag(provider)} {shlex.quote(path)}"


def _items(paths: Sequence[str], problems: _Problems) -> Iterator[tuple[bool, Item | None]]:
    """(parsed, item) for every value of ``paths``: the item, or ``None`` once its problem is reported.

    ``parsed`` says the value was JSON (a file that is no transcript yields one ``(False, None)``).
    """
    for path in paths:
        reading = _open(path, problems)
        if reading is None:
            continue
        with reading:
            try:
                if reading.shape == EMPTY:
                    problems.report(f"{reading.name}: not a transcript: the file is empty")
                    yield False, None
                    continue
                looks = reading.looks(looks_like_item)
                if looks is not None:
                    problems.report(f"{reading.name}: not a transcript: {looks.what}{_convert_hint(looks.provider, path)}")
                    yield False, None
                    continue
                found: Iterable[Any] = results(reading)
                if problems.progress and reading.shape == LINES:
                    found = _progress(found, reading.name, reading.stream)
                for record, result in found:
                    if isinstance(result, NormalizeError):
                        problems.report(str(result))
                        yield record.problem is None, None
                    else:
                        yield True, result
            except OSError as exc:
                problems.cannot_read(reading.name, exc)
            finally:
                problems.end_file(reading.name)


def _progress(found: Iterable[Any], name: str, stream: IO[Any]) -> Iterator[Any]:
    """Pass ``found`` through, drawing a progress line on stderr every half second after the first."""
    try:
        size = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        size = 0
    start = shown = time.monotonic()
    drawn = False
    for n, x in enumerate(found, 1):
        yield x
        if n & 0xFFF == 0:
            now = time.monotonic()
            if now - start >= 1.0 and now - shown >= 0.5:
                shown, drawn = now, True
                where = f" ({100 * stream.tell() // size}%)" if size else ""
                sys.stderr.write(f"\r\x1b[K{escape(name)}: line {n:,}{where}")
                sys.stderr.flush()
    if drawn:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


# -- commands -----------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    """Check every item of every file; report each problem."""
    problems = _Problems(progress=sys.stderr.isatty())
    read = good = 0
    for parsed, item in _items(args.files, problems):
        read += parsed
        good += item is not None
    files = plural(len(args.files), "file")
    if problems.total:
        out(f"{plural(problems.total, 'problem')} in {files} ({plural(read, 'item')} read, {good:,} good)")
    else:
        out(f"ok: {plural(good, 'item')} in {files}")
    return problems.status()


_TOKEN_NAMES = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("reasoning", "reasoning_tokens"),
    ("cached", "cached_input_tokens"),
    ("cache-write", "cache_write_input_tokens"),
)


def collect_stats(items: Iterable[Item | None], problems: int = 0) -> dict[str, Any]:
    """The ``stats --json`` object of ``items`` (``None`` stands for a problem already reported)."""
    kinds = {k.value: 0 for k in ItemKind}
    parts = {k.value: 0 for k in PartKind}
    tools: dict[str, int] = {}
    tokens = TokenUsage(0, 0, reasoning_tokens=0, cached_input_tokens=0, cache_write_input_tokens=0)
    cost: dict[str, float] = {}
    good = 0
    for item in items:
        if item is None:
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


def render_stats(stats: dict[str, Any]) -> list[str]:
    """The ``stats`` table: one aligned row per count, grouped; names from data escaped."""
    rows: list[tuple[str, str]] = [("items", f"{stats['items']:,}")]
    rows += [(f"  {k}", f"{n:,}") for k, n in stats["items_by_kind"].items() if n]
    rows.append(("parts", f"{sum(stats['parts_by_type'].values()):,}"))
    rows += [(f"  {k}", f"{n:,}") for k, n in stats["parts_by_type"].items() if n]
    tools = stats["tool_calls_by_name"]
    rows.append(("tool calls", f"{sum(tools.values()):,}"))
    rows += [(f"  {escape(k)}", f"{n:,}") for k, n in sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))]
    rows.append(("tokens", ""))
    rows += [(f"  {label}", f"{stats['tokens'][key]:,}") for label, key in _TOKEN_NAMES]
    rows.append(("cost", "" if stats["cost"] else "none"))
    rows += [(f"  {escape(cur)}", f"{amount:.6f}") for cur, amount in stats["cost"].items()]
    if stats["problems"]:
        rows.append(("problems", f"{stats['problems']:,}"))
    left = max(width(r[0]) for r in rows)
    right = max(len(r[1]) for r in rows)
    return [f"{label}{' ' * (left - width(label))}  {value:>{right}}".rstrip() for label, value in rows]


def cmd_stats(args: argparse.Namespace) -> int:
    """Summarize every item of every file."""
    problems = _Problems(progress=sys.stderr.isatty())
    stats = collect_stats(item for _, item in _items(args.files, problems))
    stats["problems"] = problems.total
    if args.json:
        out_json(stats)
    else:
        for line in render_stats(stats):
            out(line)
    return problems.status()


def _looks_like_delta(value: object) -> bool:
    return type(value) is dict and len(value) == 1


def cmd_fold(args: argparse.Namespace) -> int:
    """Fold a file of deltas and print the parts."""
    problems = _Problems()
    reading = _open(args.file, problems)
    if reading is None:
        return problems.status()
    state = FoldState()
    with reading:
        try:
            looks = None if reading.shape == EMPTY else reading.looks(_looks_like_delta)
            if looks is not None:
                problems.report(f"{reading.name}: not deltas: {looks.what}{_convert_hint(looks.provider, args.file)}")
                return problems.status()
            for record in reading.records():
                if record.problem is not None:
                    problems.report(str(record.problem))
                    return problems.status()
                try:
                    state = fold(state, Delta.from_dict(record.value))
                except NormalizeError as exc:
                    problems.report(str(reading.located(exc, record)))
                    return problems.status()
                except ProtocolError as exc:
                    problems.report(f"{reading.where(record)}: {exc}")
                    return problems.status()
        except OSError as exc:
            problems.cannot_read(reading.name, exc)
            return problems.status()
    status = 0
    if state.is_open:
        ids = ", ".join(repr(i.value) for i in state.open_ids)
        err(f"{reading.name}: the deltas end with {plural(len(state.open_ids), 'part')} still open ({ids}); "
             "printed as they stand")
        status = 1
    parts = [p.to_dict() for p in state.finalize()]
    if args.compact:
        out_json(parts, separators=(",", ":"))
    else:
        out_json(parts, indent=2)
    return status


def cmd_convert(args: argparse.Namespace) -> int:
    """Write the items of provider requests, responses and streams as JSON Lines."""
    from . import convert

    problems = _Problems()

    def open_path(path: str) -> IO[bytes]:
        return convert.stdin_bytes() if path == "-" else open(path, "rb")  # noqa: SIM115 - closed by run

    terminal = sys.stdout.isatty()

    def write(line: str) -> None:  # the reference's compact form, escaped only for a terminal
        sys.stdout.write((escape(line, json_text=True) if terminal else line) + "\n")

    from . import interop

    if args.provider is None and args.to == "agentkit":
        raise CliError("convert: give --from SOURCE (what the files hold), or --to TARGET for a transcript (see "
                       f"python -m {PROG} convert --help)")
    (interop if interop.handles(args) else convert).run(args, open_path, problems.report, problems.cannot_read, write)
    return problems.status()


def cmd_demo(args: argparse.Namespace) -> int:
    """Play the scripted assistant turn (see :mod:`.demo`)."""
    from . import demo

    return demo.run(sys.stdout, live=sys.stdout.isatty(), delay=not args.fast, quiet=args.quiet, deltas=args.deltas)


# -- the parser ---------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m agentkit_core`` argument parser."""
    parser = Parser(
        prog=f"python -m {PROG}",
        description="Check, summarize and fold agentkit transcripts, convert provider traffic to them; "
        "`demo` shows the package at work.",
        epilog="Results go to stdout, problems to stderr.  Exit status: 0 ok, 1 bad items or deltas or a file "
        "that is not a transcript, 2 bad arguments or a file that cannot be read, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    demo = commands.add_parser("demo", help="stream a scripted assistant turn through fold, then print the transcript")
    demo.add_argument("--fast", action="store_true", help="no pause between deltas")
    demo.add_argument("-q", "--quiet", action="store_true", help="print only the transcript (JSON Lines)")
    demo.add_argument("--deltas", action="store_true", help="print only the scripted deltas (JSON Lines)")
    demo.set_defaults(run=cmd_demo)
    files = "JSON Lines, a JSON array or a JSON document of items; - reads stdin"
    validate = commands.add_parser("validate", help="check that files hold valid items")
    validate.add_argument("files", nargs="+", metavar="FILE", help=files)
    validate.set_defaults(run=cmd_validate)
    stats = commands.add_parser("stats", help="count items, parts, tool calls, tokens and cost")
    stats.add_argument("files", nargs="+", metavar="FILE", help=files)
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(run=cmd_stats)
    fold_ = commands.add_parser("fold", help="fold JSON Lines of deltas into parts")
    fold_.add_argument("file", metavar="FILE", help="JSON Lines, a JSON array or a JSON document of deltas; - reads stdin")
    fold_.add_argument("--compact", action="store_true", help="print the parts on one line")
    fold_.set_defaults(run=cmd_fold)
    from .convert import FLAGS
    from .interop import LIBRARIES, TARGETS

    convert = commands.add_parser("convert", help="turn provider traffic and other libraries' histories and tools into "
                                  "items (JSON Lines), and items into other libraries' shapes")
    convert.add_argument(
        "--from",
        dest="provider",
        metavar="SOURCE",
        type=lambda s: FLAGS.get(s, s),  # a module name (openai_chat) for its spelling
        choices=[*FLAGS.values(), *LIBRARIES],
        help=f"what the files hold: an API's traffic ({', '.join(FLAGS.values())}; openai_chat... too) or "
        f"{', '.join(LIBRARIES)}; without it, agentkit items (or tool specs, for --to mcp-tools)",
    )
    convert.add_argument("--to", default="agentkit", choices=TARGETS, metavar="TARGET",
                         help=f"what to write: {', '.join(TARGETS)} (default agentkit: JSON Lines of items or tool specs; "
                         "the others: one JSON document)")
    convert.add_argument("--seed", metavar="TEXT", help="draw the ids the projection invents (Gemini calls "
                         "without ids) from TEXT, so the same files give the same output")
    convert.add_argument("files", nargs="+", metavar="FILE", help="a request or response body, JSON Lines of stream events, "
                         "or a raw text/event-stream body, told apart by content; - reads stdin")
    convert.set_defaults(run=cmd_convert)
    from .turn import add_parser

    add_parser(commands)
    return parser


def _utf8(stream: object) -> None:
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
    except SystemExit as exc:  # --help and --version print, then exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except CliError as exc:
        err(f"{PROG}: error: {exc}")
        return 2
    except KeyboardInterrupt:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")  # over a progress line
        err(f"{PROG}: interrupted")
        return 130
    except BrokenPipeError:
        try:  # keep the interpreter's final flush quiet too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # pragma: no cover
            pass
        return 141
    except Exception as exc:  # noqa: BLE001 - the promise is: no tracebacks for users
        err(f"{PROG}: internal error: {type(exc).__name__}: {exc} (please report this bug)")
        return 70
