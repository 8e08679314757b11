"""``turn``: send a transcript to a provider, stream the answer, append it to the transcript.

``python -m agentkit_core turn --provider anthropic --model M transcript.jsonl``
builds the request with the provider's ``http_request`` (``--base-url``,
``--tools FILE``, native settings as ``--set name=value``, the value read as
JSON when it is JSON), sends it with :func:`agentkit_core.http.send` and
prints the answer's text as it arrives, escaped as every command escapes
text from data.  The answer item is appended to the file (JSON Lines); the
command runs no tool, so calls the answer makes stay unanswered for the
caller to answer.

* Ctrl-C interrupts the read at once: the turn is closed as ``CANCELLED``
  (the text that arrived is kept, a call whose arguments were cut off is
  not), appended with an error result for every call left unanswered, so the
  next request is one the API accepts; exit status 130, no traceback.
* A call that fails before the answer streams (an error status after the
  retries, no connection) appends nothing: the provider's message goes to
  standard error, exit status 1.  A stream that breaks midway is closed as
  ``ERROR`` and appended as a cancel is; exit status 1.
* The key comes from the provider's usual environment variable
  (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ``GEMINI_API_KEY`` or
  ``GOOGLE_API_KEY``); with ``--base-url`` it may be absent (a local server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

from ..finish import FinishReason
from ..item import Item
from ..providers._registry import PROVIDERS
from .common import PROG, CliError, err, escape

__all__ = ("add_parser", "run")

#: provider -> the environment variables its key may be in, in order (the registry's rows).
KEYS = {row.module: row.key_variables for row in PROVIDERS}
_MODULES = {row.cli: row.module for row in PROVIDERS}  # a CLI spelling (openai-chat) for its module
CANCELLED_RESULT = "the turn was cancelled before this call ran"


def add_parser(commands: Any) -> None:
    """Add ``turn`` to the command line's subparsers."""
    turn = commands.add_parser("turn", help="send a transcript to a provider, stream the answer, append it to the file")
    turn.add_argument("--provider", required=True, type=lambda s: _MODULES.get(s, s), choices=list(KEYS), metavar="PROVIDER",
                      help=f"the API: {', '.join(KEYS)}")
    turn.add_argument("--model", required=True, help="the model name")
    turn.add_argument("--base-url", help="another endpoint than the provider's (a gateway, a local server)")
    turn.add_argument("--tools", metavar="FILE", help="a JSON list of tools: ToolSpec objects or the provider's native tools")
    turn.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                      help="a native body field, VALUE read as JSON if it is (max_tokens=1024); repeatable")
    turn.add_argument("--timeout", type=float, default=600.0, help="seconds without a byte before giving up (600)")
    turn.add_argument("--retries", type=int, default=2, help="retries of a failed connection or a retryable status (2)")
    turn.add_argument("file", metavar="FILE", help="the transcript, JSON Lines of items; the answer is appended")
    turn.set_defaults(run=run)


def _settings(pairs: list[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        if not eq or not name:
            raise CliError(f"--set {pair!r}: expected NAME=VALUE")
        try:
            settings[name] = json.loads(text)
        except ValueError:
            settings[name] = text
    return settings


def _tools(path: str | None) -> list[Any]:
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            declared = json.load(f)
    except (OSError, ValueError) as exc:
        raise CliError(f"--tools {path}: {exc}") from None
    if not isinstance(declared, list):
        raise CliError(f"--tools {path}: expected a JSON list of tools")
    return [_tool(entry, path, n) for n, entry in enumerate(declared)]


def _tool(entry: Any, path: str, n: int) -> Any:
    """A ToolSpec for an entry in its wire form (``name`` and ``input_schema``, no ``type``); a native tool as it is."""
    if isinstance(entry, dict) and "input_schema" in entry and "type" not in entry:
        from ..toolspec import ToolSpec

        try:
            return ToolSpec.from_dict(entry)
        except ValueError as exc:
            raise CliError(f"--tools {path}: [{n}]: {exc}") from None
    return entry


def _key(provider: str, base_url: str | None) -> str | None:
    for name in KEYS[provider]:
        if os.environ.get(name):
            return os.environ[name]
    if base_url is None:
        raise CliError(f"set {' or '.join(KEYS[provider])} to the API key (or give --base-url for a server that needs none)")
    return None


def _transcript(path: str) -> list[Item]:
    from ..error import NormalizeError
    from ..transcript import load_items

    try:
        with open(path, "rb") as f:
            if f.read(64).lstrip()[:1] == b"[":
                raise CliError(f"{path}: turn appends to JSON Lines, not to a JSON array")
        return load_items(path)
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
    except NormalizeError as exc:
        raise CliError(f"{path}: {exc}") from None


class _Printer:
    """Writes the text of the snapshot as it grows, escaped; a newline at the end."""

    def __init__(self, escape: Callable[[str], str]) -> None:
        self.shown = ""
        self.escape = escape

    def update(self, parts: Any) -> None:
        from ..content import TextPart

        text = "".join(p.text for p in parts if isinstance(p, TextPart))
        if text.startswith(self.shown) and len(text) > len(self.shown):
            sys.stdout.write("\n".join(self.escape(line) for line in text[len(self.shown) :].split("\n")))
            sys.stdout.flush()
            self.shown = text

    def end(self) -> None:
        if self.shown:
            sys.stdout.write("\n")
            sys.stdout.flush()


def _closing(items: list[Item], closed: Item) -> list[Item]:
    """``closed`` and, when it left calls unanswered, the item answering each with an error."""
    from ..item import close_unanswered

    answers: Item | None = close_unanswered([*items, closed], message=CANCELLED_RESULT)
    return [closed] if answers is None else [closed, answers]


def run(args: argparse.Namespace) -> int:
    """Send, stream, append; the exit status.  :class:`CliError` for bad usage."""
    import importlib
    import signal
    import threading

    from ..cancellation import CancellationController
    from ..error import TurnCancelledError
    from ..fold import FoldState, fold
    from ..http import ProviderError, TransportError, send
    from ..transcript import dump_items

    module: Any = importlib.import_module(f"..providers.{args.provider}", __package__)
    items = _transcript(args.file)
    request = module.http_request(items, model=args.model, api_key=_key(args.provider, args.base_url), base_url=args.base_url,
                                  stream=True, tools=_tools(args.tools), **_settings(args.settings))
    controller = CancellationController()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt()) if main_thread else None
    decoder, state, printer = module.stream_decoder(), FoldState(), _Printer(escape)
    began, status = False, 0
    try:
        with send(request, cancel=controller, timeout=args.timeout, retries=args.retries) as response:
            began = True
            for event in response.events():
                for delta in decoder.feed(event):
                    state = fold(state, delta)
                printer.update(state.snapshot())
        answer = [decoder.finish_all(state.finalize())[0]]
    except TurnCancelledError:
        answer, status = _closing(items, decoder.close(state, FinishReason.CANCELLED)), 130
    except (ProviderError, TransportError) as exc:
        printer.end()
        err(f"{PROG}: {args.provider}: {exc}")
        if not began:
            return 1
        answer, status = _closing(items, decoder.close(state, FinishReason.ERROR)), 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    printer.end()
    with open(args.file, "ab") as f:
        dump_items(answer, f)
    if status == 130:
        err(f"{PROG}: interrupted: the turn was closed as cancelled and appended")
    return status
