"""``turn``: send a transcript to a provider, stream the answer, append it to the transcript.

``python -m agentkit_core turn --provider anthropic --model M transcript.jsonl``
(or ``agentkit-core turn ...``, the console script) does one turn with the
provider's ``complete`` (``--base-url``, ``--tools FILE``, ToolSpec objects, MCP tools or native ones; the portable
settings as ``--max-tokens``, ``--temperature``,
``--top-p``, ``--stop``, ``--seed``, ``--reasoning-effort``,
``--reasoning-budget``, ``--output-schema FILE``, ``--[no-]parallel-tool-calls``;
native fields as ``--set name=value``, the value read as JSON when it is
JSON), prints the answer's text as it arrives on standard output and each
tool call it makes (name, arguments and id) on standard error, all escaped as
every command escapes text from data.  The answer item is appended to the
file (JSON Lines); the command runs no tool, so calls the answer makes stay
unanswered for the caller to answer.  A transcript that ends with unanswered
calls is refused (exit status 2, naming them), since the API would refuse it:
answer them (a TOOL item of results) or close them with ``close_unanswered``.
A request the provider module refuses to build (a setting its API has no
field for, Anthropic without ``--max-tokens``) is a usage error too.

Carrying a conversation on from the shell: ``--result CALL_ID=TEXT``
(repeatable; ``--error-result`` for a failed call) answers the transcript's
unanswered calls with one TOOL item, and ``--say TEXT`` adds a USER message
(``--say -`` reads it from standard input, to its end; with ``--say`` the
file may not exist yet: the conversation starts there); they are added before
the request is built and appended to the file with the answer, so a call
that fails before the answer streams leaves the file as it was and the same
command can be run again.

``--tools FILE`` is a JSON list (or an MCP ``tools/list`` result); each entry
is recognised by its shape (see :func:`_tool`): an MCP tool (``inputSchema``),
a :class:`~agentkit_core.ToolSpec` in its wire form (``name`` and
``input_schema``, no ``type``; ``description``, ``annotations`` or any of the
five hints, and ``metadata`` may be left out), else a native tool of the
provider, sent as it is.

* Ctrl-C interrupts the read at once: the turn is closed as ``CANCELLED``
  (the text that arrived is kept, a call whose arguments were cut off is
  not), appended with an error result for every call left unanswered, so the
  next request is one the API accepts; exit status 130, no traceback.
* A call that fails before the answer streams (an error status after the
  retries, no connection) appends nothing: the provider's message goes to
  standard error, exit status 1.  A stream that breaks midway is closed as
  ``ERROR`` (so is one that ends before the provider's final event) and
  appended as a cancel is; exit status 1.
* The key comes from the provider's usual environment variable
  (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ``GEMINI_API_KEY`` or
  ``GOOGLE_API_KEY``); with ``--base-url`` it may be absent (a local server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .._registry import ENDPOINTS, Endpoint, endpoint, provider_info
from ..finish import FinishReason
from ..item import Item
from .common import PROG, CliError, err, escape

__all__ = ("add_parser", "run")

#: provider name -> the environment variables its key may be in, in order (the registry's rows: wires and presets).
KEYS = {row.name: row.key_variables for row in ENDPOINTS}
CANCELLED_RESULT = "the turn was cancelled before this call ran"
#: The flags of the portable settings (ModelSettings fields) beside ``--set``; ``--output-schema`` reads a file.
_SETTING_FLAGS = ("max_tokens", "temperature", "top_p", "stop", "seed", "reasoning_effort", "reasoning_budget",
                  "parallel_tool_calls")


def add_parser(commands: Any) -> None:
    """Add ``turn`` to the command line's subparsers."""

    turn = commands.add_parser("turn", help="send a transcript to a provider, stream the answer, append it to the file")
    turn.add_argument("--provider", required=True, type=_name_of, choices=list(KEYS), metavar="PROVIDER",
                      help=f"the API or server: {', '.join(KEYS)}")
    turn.add_argument("--model", required=True, help="the model name")
    turn.add_argument("--base-url", help="another endpoint than the provider's (a gateway, a local server)")
    turn.add_argument("--tools", metavar="FILE", help="a JSON list of tools: ToolSpec objects (optional fields may be left out), "
                      "MCP tools (or a tools/list result) or the provider's native tools")
    turn.add_argument("--say", metavar="TEXT", help="add a user message before sending ('-': read it from standard input)")
    turn.add_argument("--result", action="append", default=[], metavar="CALL_ID=TEXT",
                      help="answer the unanswered tool call CALL_ID with TEXT before sending; repeatable")
    turn.add_argument("--error-result", action="append", default=[], metavar="CALL_ID=TEXT",
                      help="answer the call CALL_ID as failed, TEXT saying why; repeatable")
    turn.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                      help="a native body field, VALUE read as JSON if it is (max_tokens=1024); repeatable")
    turn.add_argument("--max-tokens", type=int, help="the longest answer, in tokens (the Anthropic API requires it)")
    turn.add_argument("--temperature", type=float, help="sampling temperature, 0 to 2")
    turn.add_argument("--top-p", type=float, help="nucleus sampling, 0 to 1")
    turn.add_argument("--stop", action="append", metavar="TEXT", help="a stop sequence; repeatable")
    turn.add_argument("--seed", type=int, help="a sampling seed, where the API takes one")
    turn.add_argument("--reasoning-effort", metavar="LEVEL", help="an effort level the API knows (low, medium, high, ...)")
    turn.add_argument("--reasoning-budget", type=int, metavar="TOKENS", help="a thinking budget in tokens, where the API takes one")
    turn.add_argument("--output-schema", metavar="FILE", help="a JSON Schema file the answer must follow")
    turn.add_argument("--parallel-tool-calls", action=argparse.BooleanOptionalAction, default=None,
                      help="whether the model may call several tools at once")
    turn.add_argument("--timeout", type=float, default=600.0, help="seconds without a byte before giving up (600)")
    turn.add_argument("--retries", type=int, default=2, help="retries of a failed connection or a retryable status (2)")
    turn.add_argument("file", metavar="FILE", help="the transcript, JSON Lines of items; the answer is appended")
    turn.set_defaults(run=run)


def _settings(pairs: list[str]) -> dict[str, object]:
    settings: dict[str, object] = {}
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
    if isinstance(declared, dict) and isinstance(declared.get("tools"), list):  # an MCP tools/list result
        declared = declared["tools"]
    if not isinstance(declared, list):
        raise CliError(f"--tools {path}: expected a JSON list of tools")
    return [_tool(entry, path, n) for n, entry in enumerate(declared)]


#: The optional fields of a ToolSpec's wire form, and what a missing one is.
_SPEC_DEFAULTS: dict[str, object] = {"description": "", "metadata": {}}
_HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "needs_approval_hint", "supports_streaming_hint")


def _tool(entry: object, path: str, n: int) -> object:
    """One ``--tools`` entry, recognised by its shape.

    * an MCP tool: ``name`` and ``inputSchema``, no ``type`` (read by
      :mod:`agentkit_core.interop.mcp`);
    * a ToolSpec's wire form: ``name`` and ``input_schema``, no ``type`` (a
      native tool's tag); the optional fields (``description``, ``annotations``
      or any of its hints, ``metadata``, ``output_schema``) may be left out;
    * anything else is a native tool of the provider, sent as it is (the
      provider module refuses what its API cannot take).
    """
    if isinstance(entry, dict) and "inputSchema" in entry and "type" not in entry:  # MCP's: never a native tool
        from ..interop.mcp import specs_from_tools

        try:
            return specs_from_tools([entry])[0]
        except ValueError as exc:
            raise CliError(f"--tools {path}: [{n}]: {exc}") from None
    if isinstance(entry, dict) and "input_schema" in entry and "type" not in entry:
        from ..toolspec import ToolSpec

        given = {**_SPEC_DEFAULTS, **entry}
        hints = given.get("annotations", {})
        if isinstance(hints, dict):
            given["annotations"] = {**{h: False for h in _HINTS}, **hints}
        try:
            return ToolSpec.from_dict(given)
        except ValueError as exc:
            raise CliError(f"--tools {path}: [{n}]: {exc}") from None
    return entry


def _said(text: str | None) -> list[Item]:
    """The USER item of ``--say`` (``-``: standard input, read to its end), or none."""
    if text is None:
        return []
    if text == "-":
        text = sys.stdin.read()
        if not text.strip():
            raise CliError("--say -: standard input held no message")
    from ..item import ItemKind

    return [Item.text(ItemKind.USER, text)]


def _results(items: list[Item], answers: list[str], failures: list[str]) -> list[Item]:
    """The TOOL item of ``--result`` and ``--error-result`` answers, each naming a call the transcript left unanswered."""
    if not answers and not failures:
        return []
    from ..item import ItemKind, unanswered_calls
    from ..tool import TextOutput, ToolResultPart

    open_calls = {call.id.value: call for call in unanswered_calls(items)}
    parts: list[Any] = []
    seen: set[str] = set()
    for flag, given, failed in (("--result", answers, False), ("--error-result", failures, True)):
        for pair in given:
            call_id, eq, text = pair.partition("=")
            if not eq or not call_id:
                raise CliError(f"{flag} {escape(pair[:60])}: expected CALL_ID=TEXT")
            if call_id not in open_calls:
                waiting = ", ".join(f"{c.name} ({i})" for i, c in open_calls.items()) or "none"
                raise CliError(f"{flag} {escape(call_id[:60])}: no unanswered call has this id (unanswered: {escape(waiting)})")
            if call_id in seen:
                raise CliError(f"{flag} {escape(call_id[:60])}: this call is answered twice")
            seen.add(call_id)
            parts.append(ToolResultPart(open_calls[call_id].id, TextOutput(text), is_error=failed))
    return [Item(ItemKind.TOOL, parts)]


#: What else stands in for a key, by a row's ``signed_by``, as the error says it.
_OR_SIGNED = {"aws": ", or AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials)"}


def _name_of(spelling: str) -> str:
    """The registry's name of a ``--provider`` value, in either spelling (``openai-chat``, ``openai_chat``)."""
    try:
        return endpoint(spelling).name
    except ValueError:
        return spelling  # argparse's choices then name the known ones


def _key(row: Endpoint, base_url: str | None) -> str | None:
    if row.auth == "google_vertex":
        return None  # Vertex AI: complete() finds the credential as Application Default Credentials do (no key variable)
    for name in row.key_variables:
        if os.environ.get(name):
            return os.environ[name]
    signed_by = provider_info(row.wire).signed_by
    if row.auth != "wire" or not row.key_required and not signed_by:
        return None  # a local server needs none; Azure's credential and endpoint are read by complete()
    if signed_by == "aws":
        from ..auth.aws import credentials_from_environment

        if credentials_from_environment() is not None:
            return None  # the request is signed with them instead (Signature Version 4)
    if base_url is None:
        signed = _OR_SIGNED.get(signed_by, "")
        raise CliError(f"set {' or '.join(row.key_variables)} to the API key{signed} (or give --base-url for a server that needs none)")
    return None


def _transcript(path: str, new_ok: bool = False) -> list[Item]:
    """The transcript in ``path``; with ``new_ok`` (``--say``), an empty one when there is no such file yet."""
    from ..error import NormalizeError
    from ..transcript import load_items

    if new_ok and not os.path.exists(path):
        return []
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
    """Writes the answer's text as it arrives, escaped line by line; a newline at the end."""

    def __init__(self) -> None:
        self.shown = False

    def text(self, chunk: str) -> None:
        sys.stdout.write("\n".join(escape(line) for line in chunk.split("\n")))
        sys.stdout.flush()
        self.shown = True

    def end(self) -> None:
        if self.shown:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.shown = False


def _model_settings(args: argparse.Namespace) -> object:
    """The portable settings the flags give (``--max-tokens``...), or ``None``; :class:`CliError` for a bad one."""
    from ..settings import ModelSettings

    given: dict[str, Any] = {name: getattr(args, name) for name in _SETTING_FLAGS if getattr(args, name) is not None}
    if args.output_schema is not None:
        try:
            with open(args.output_schema, encoding="utf-8") as f:
                given["output_schema"] = json.load(f)
        except (OSError, ValueError) as exc:
            raise CliError(f"--output-schema {args.output_schema}: {exc}") from None
    try:
        return ModelSettings(**given) if given else None
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None


def _refuse_unanswered(items: list[Item], path: str) -> None:
    """:class:`CliError` when ``items`` end with calls no result answers: the API would refuse the request."""
    from ..item import unanswered_calls

    calls = unanswered_calls(items)
    if calls:
        named = ", ".join(f"{call.name} ({call.id.value})" for call in calls[:5]) + (", ..." if len(calls) > 5 else "")
        raise CliError(
            f"{path}: the transcript ends with {len(calls)} unanswered tool call{'s' if len(calls) != 1 else ''}: {named}; "
            "answer each with --result CALL_ID=TEXT (or append a TOOL item with a ToolResultPart answering each), or close them with "
            "agentkit_core.close_unanswered(items) (an error result each), then run turn again"
        )


def _show_calls(answer: Item) -> None:
    """Each tool call the answer makes, on standard error: its name and arguments (escaped)."""
    from ..providers._common import dumps

    for call in answer.tool_calls():
        arguments = call.input if isinstance(call.input, str) else dumps(call.input)
        err(f"{PROG}: tool call {call.name}({arguments}) id={call.id.value}")


def _closing(items: list[Item], closed: Item) -> list[Item]:
    """``closed`` and, when it left calls unanswered, the item answering each with an error."""
    from ..item import close_unanswered

    answers: Item | None = close_unanswered([*items, closed], message=CANCELLED_RESULT)
    return [closed] if answers is None else [closed, answers]


def run(args: argparse.Namespace) -> int:
    """Send, stream, append; the exit status.  :class:`CliError` for bad usage."""
    import signal
    import threading

    from ..cancellation import CancellationController
    from ..error import NormalizeError
    from ..http import ProviderError, TransportError
    from ..keys import STREAM_CUT_KEY
    from ..providers import complete
    from ..providers._by_name import turn_request
    from ..transcript import append_items

    row = endpoint(args.provider)
    items = _transcript(args.file, new_ok=args.say is not None)
    added = _results(items, args.result, args.error_result) + _said(args.say)
    items = [*items, *added]
    _refuse_unanswered(items, args.file)
    turn = dict(model=f"{row.name}:{args.model}", api_key=_key(row, args.base_url), base_url=args.base_url, stream=True,
                tools=_tools(args.tools), settings=_model_settings(args), **_settings(args.settings))
    try:
        turn_request(items, **turn)  # what the request would be: refused here, as usage, before anything is sent
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc) if not isinstance(exc, NormalizeError) else f"{args.file}: {exc}") from None
    controller = CancellationController()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt()) if main_thread else None
    printer = _Printer()
    from ..auth import CredentialsError

    try:
        closed = complete(items, **turn, on_text=printer.text, cancel=controller, timeout=args.timeout, retries=args.retries)
    except (ProviderError, TransportError, CredentialsError) as exc:  # no answer began: nothing to append
        printer.end()
        err(f"{PROG}: {args.provider}: {exc}")
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    printer.end()
    status = 0
    answer = [closed]
    if closed.finish_reason in (FinishReason.CANCELLED, FinishReason.ERROR):
        answer = _closing(items, closed)
        status = 130 if closed.finish_reason is FinishReason.CANCELLED else 1
    _show_calls(closed)
    append_items([*added, *answer], args.file)  # after a newline the file lacked, or in place of a torn last line
    cut = closed.metadata.get(STREAM_CUT_KEY)
    if status == 130:
        err(f"{PROG}: interrupted: the turn was closed as cancelled and appended")
    elif status == 1:
        why = cut.get("error") if isinstance(cut, dict) else None
        err(f"{PROG}: {args.provider}: {why or 'the provider reported an error'}; the turn was closed as an error and appended")
    return status
