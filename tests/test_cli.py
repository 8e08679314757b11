"""``python -m agentkit_core``: every command, its exit codes and exact lines.

The commands run in this interpreter through the entry point
(tests/cli_in_process.py), so they are tested wherever the suite runs, Pyodide
included; :class:`TestProcess` runs the real ``python -m agentkit_core`` for
what only a process shows: ``-m``, the exit status through ``sys.exit``,
Ctrl-C, a broken pipe, a fresh interpreter, peak memory.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import agentkit_core as ak
from tests.capability import needs_module, needs_named_pipes, needs_processes, needs_signals
from tests.cli_in_process import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs the CLI and reports the child's own peak RSS on stderr, last line.
_MEASURED = """
import resource, runpy, sys
sys.argv = ["agentkit_core"] + sys.argv[1:]
try:
    runpy.run_module("agentkit_core", run_name="__main__", alter_sys=True)
finally:
    sys.stderr.write("maxrss=%d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def cli(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run the command line on ``ARGS`` in this interpreter: (status, stdout, stderr)."""
    return run_cli(*args, stdin=stdin)


def cli_process(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run ``python -m agentkit_core ARGS`` from the repository root: (status, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "agentkit_core", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120
    )
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Files:
    """A temporary directory to write input files into."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def write(self, name: str, text: str | bytes) -> str:
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        return path


def demo_items() -> list[str]:
    status, out, err = cli("demo", "--quiet")
    if (status, err) != (0, ""):
        raise AssertionError((status, err))
    return out.splitlines()


class TestDemo(unittest.TestCase):
    def test_plain_output_then_the_transcript(self) -> None:
        status, out, err = cli("demo")
        self.assertEqual((status, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], " 1 BeginPart    reasoning opens a Reasoning part")
        self.assertIn("AppendBytes  image     + 32 bytes", out)
        self.assertIn("CommitPart             ToolCall   get_weather", out)
        items = [ak.Item.from_dict(json.loads(line)) for line in lines[-3:]]
        self.assertEqual([i.kind for i in items], [ak.ItemKind.USER, ak.ItemKind.ASSISTANT, ak.ItemKind.TOOL])
        assistant = items[1]
        self.assertEqual(assistant.finish_reason, ak.FinishReason.TOOL_CALL)
        self.assertEqual([p.part_kind.value for p in assistant.parts], ["Reasoning", "Text", "ToolCall", "Media"])
        call = assistant.parts[2]
        self.assertIsInstance(call, ak.ToolCallPart)
        self.assertEqual(call.input, {"city": "Paris", "unit": "celsius"})
        media = assistant.parts[3]
        self.assertIsInstance(media, ak.MediaPart)
        self.assertIsInstance(media.data, ak.InlineBytes)
        self.assertEqual((media.modality, media.mime_type), (ak.Modality.IMAGE, "image/png"))
        self.assertTrue(media.data.value.startswith(b"\x89PNG\r\n\x1a\n"))
        for line, item in zip(lines[-3:], items):  # the reference's compact wire format, byte for byte
            self.assertEqual(line, compact(item.to_dict()))

    def test_quiet_is_json_lines_that_validate(self) -> None:
        lines = demo_items()
        self.assertEqual(len(lines), 3)
        status, out, err = cli("validate", "-", stdin=("\n".join(lines) + "\n").encode())
        self.assertEqual((status, out, err), (0, "ok: 3 items in 1 file\n", ""))

    def test_deltas_fold_into_the_assistant_parts(self) -> None:
        status, deltas, _ = cli("demo", "--deltas")
        self.assertEqual(status, 0)
        self.assertTrue(all(ak.Delta.from_dict(json.loads(line)) for line in deltas.splitlines()))
        status, out, err = cli("fold", "-", stdin=deltas.encode())
        self.assertEqual((status, err), (0, ""))
        assistant = json.loads(demo_items()[1])
        self.assertEqual(json.loads(out), assistant["parts"])
        status, out, _ = cli("fold", "--compact", "-", stdin=deltas.encode())
        self.assertEqual(out, compact(assistant["parts"]) + "\n")

    def test_live_rendering_on_a_terminal(self) -> None:
        from agentkit_core._cli import demo

        class Tty(io.StringIO):
            def isatty(self) -> bool:
                return True

        out = Tty()
        self.assertEqual(demo.run(out, live=True, delay=False, quiet=False, deltas=False), 0)
        text = out.getvalue()
        self.assertIn("\x1b[2F\x1b[J", text)  # redrawn in place
        self.assertIn("ToolCall   get_weather (streaming) {\"city\": \"Par", text)  # the growing snapshot
        self.assertIn("Media      Image image/png, 32 bytes", text)  # header keys, before the commit
        self.assertIn("delta 25/25", text)


class TestValidate(Files, unittest.TestCase):
    def test_good_json_lines_and_array(self) -> None:
        lines = demo_items()
        jsonl = self.write("t.jsonl", "\n".join(lines) + "\n\n")
        array = self.write("t.json", "[\n" + ",\n".join(lines) + "\n]\n")
        self.assertEqual(cli("validate", jsonl, array), (0, "ok: 6 items in 2 files\n", ""))

    def test_empty_inputs(self) -> None:
        for text in ("[]", " [ ]\n"):
            with self.subTest(text=text):
                self.assertEqual(cli("validate", self.write("e.jsonl", text)), (0, "ok: 0 items in 1 file\n", ""))
        for text in ("", "\n \n"):  # an empty file is no transcript
            with self.subTest(text=text):
                path = self.write("e.jsonl", text)
                self.assertEqual(
                    cli("validate", path),
                    (1, "1 problem in 1 file (0 items read, 0 good)\n", f"{path}: not a transcript: the file is empty\n"),
                )

    def test_bad_items_are_reported_with_file_line_and_path(self) -> None:
        good = demo_items()[0]
        bad = json.loads(good)
        bad["parts"][0]["Text"]["text"] = 5
        result = json.loads(demo_items()[2])
        result["parts"][0]["ToolResult"]["output"] = {"Parts": [{"Text": {"text": "\ud800", "metadata": {}}}]}
        body = "\n".join([good, "", compact(bad), json.dumps(result), '{"kind": "user", "parts": [], "metadata": {}}', "5"])
        path = self.write("bad.jsonl", body + "\n")
        status, out, err = cli("validate", path)
        self.assertEqual((status, out), (1, "4 problems in 1 file (5 items read, 1 good)\n"))
        self.assertEqual(
            err.splitlines(),
            [
                f"{path}:3: parts[0].Text.text: invalid type: integer `5`, expected a string",
                f"{path}:4: parts[0].ToolResult.output.Parts[0].Text.text: invalid Unicode: the string holds a lone surrogate",
                f"{path}:5: kind: unknown variant 'user' of ItemKind, expected one of "
                "System, Developer, User, Assistant, Tool, Context, Notification",
                f"{path}:6: invalid type: integer `5`, expected struct Item",
            ],
        )

    def test_bad_item_in_an_array_names_the_line_it_starts_on(self) -> None:
        items = [json.loads(line) for line in demo_items()]
        items[2]["created_at"] = -1
        text = "[\n" + ",\n".join(json.dumps(i, indent=1) for i in items) + "\n]\n"
        start = text[: text.index('"id": "msg-3"')].rindex("{")
        line = text.count("\n", 0, start) + 1
        path = self.write("a.json", text)
        status, out, err = cli("validate", path)
        self.assertEqual((status, out), (1, "1 problem in 1 file (3 items read, 2 good)\n"))
        self.assertEqual(err.splitlines(), [f"{path}:{line}: [2].created_at: invalid value: integer `-1`, expected u64"])

    def test_bad_json(self) -> None:
        good = demo_items()[0]
        cases = {
            good + "\n" + good[:60] + "\n": ["2: invalid JSON: Unterminated string starting at: column 54"],
            '{"x": NaN}\n': ["1: invalid JSON: NaN is not a JSON number (NaN and infinities are refused)"],
            '{"a": 1,\n': ["1: invalid JSON: Expecting property name enclosed in double quotes: column 9"],
            "[\n" + good + ",\n" + good: ["3: invalid JSON: the array is not closed"],
            "[\n" + good + ",\n]": ["3: invalid JSON: Expecting value: column 1"],
            "[" + good + "] x": ["1: invalid JSON: extra data after the array"],
            "[" + good + " " + good + "]": ["1: invalid JSON: expected ',' or ']' after an array element"],
            "[" * 100000: ["1: recursion limit exceeded: containers nest deeper than 127 levels"],
        }
        for text, expected in cases.items():
            with self.subTest(text=text[:80]):
                status, out, err = cli("validate", "-", stdin=text.encode())
                self.assertEqual((status, len(out.splitlines())), (1, 1))
                self.assertEqual(err.splitlines(), ["<stdin>:" + e for e in expected])
        status, _, err = cli("validate", "-", stdin=b'{"a": "\xff"}\n')
        self.assertEqual((status, err.splitlines()[0]), (1, "<stdin>:1: invalid UTF-8 at byte 8 of the line"))

    def test_truncated_file(self) -> None:
        text = "\n".join(demo_items()) + "\n"
        path = self.write("cut.jsonl", text[: len(text) - 100])
        status, out, err = cli("validate", path)
        self.assertEqual(status, 1)
        self.assertRegex(err, rf"^{path}:3: invalid JSON: [^\n]*\n$")
        self.assertEqual(out, "1 problem in 1 file (2 items read, 2 good)\n")

    def test_a_byte_order_mark_is_skipped(self) -> None:
        path = self.write("bom.jsonl", b"\xef\xbb\xbf" + demo_items()[0].encode() + b"\n")
        self.assertEqual(cli("validate", path)[0], 0)

    @needs_processes
    @needs_module("resource")
    def test_huge_json_lines_are_streamed_in_flat_memory(self) -> None:
        lines = demo_items()
        item = json.loads(lines[1])

        def generate(name: str, n: int) -> str:
            path = os.path.join(self.dir, name)
            with open(path, "w", encoding="utf-8") as f:
                for i in range(n):
                    item["id"] = f"msg-{i}"
                    f.write(compact(item) + "\n")
            return path

        def peak(path: str) -> tuple[int, str]:
            proc = subprocess.run(
                [sys.executable, "-c", _MEASURED, "validate", path], capture_output=True, cwd=ROOT, timeout=120
            )
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return int(proc.stderr.decode().rsplit("maxrss=", 1)[1]), proc.stdout.decode()

        small, out = peak(generate("small.jsonl", 500))
        self.assertEqual(out, "ok: 500 items in 1 file\n")
        big_path = generate("big.jsonl", 40000)
        self.assertGreater(os.path.getsize(big_path), 30_000_000)
        big, out = peak(big_path)
        self.assertEqual(out, "ok: 40,000 items in 1 file\n")
        self.assertLess(big / small, 1.5, f"peak RSS {big} vs {small}: the file was not streamed")


class TestStats(Files, unittest.TestCase):
    def test_table(self) -> None:
        path = self.write("t.jsonl", "\n".join(demo_items()))
        status, out, err = cli("stats", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(
            out.splitlines(),
            [
                "items                 3",
                "  User                1",
                "  Assistant           1",
                "  Tool                1",
                "parts                 6",
                "  Text                2",
                "  Media               1",
                "  Reasoning           1",
                "  ToolCall            1",
                "  ToolResult          1",
                "tool calls            1",
                "  get_weather         1",
                "tokens",
                "  input           1,250",
                "  output             96",
                "  reasoning          24",
                "  cached          1,024",
                "  cache-write         0",
                "cost",
                "  USD          0.001930",
            ],
        )

    def test_json_totals_and_costs_per_currency(self) -> None:
        lines = demo_items()
        euro = json.loads(lines[1])
        euro["usage"]["cost"] = {"amount": 2, "currency": "EUR", "provider_amount": "2.00"}
        euro["usage"]["tokens"] = {"input_tokens": 10, "output_tokens": 5, "reasoning_tokens": None,
                                   "cached_input_tokens": None, "cache_write_input_tokens": 7}
        path = self.write("t.jsonl", "\n".join(lines + [compact(euro), lines[1]]))
        status, out, err = cli("stats", "--json", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(
            json.loads(out),
            {
                "items": 5,
                "problems": 0,
                "items_by_kind": {"System": 0, "Developer": 0, "User": 1, "Assistant": 3, "Tool": 1, "Context": 0,
                                  "Notification": 0},
                "parts_by_type": {"Text": 4, "Media": 3, "File": 0, "Structured": 0, "Reasoning": 3, "ToolCall": 3,
                                  "ToolResult": 1, "Custom": 0},
                "tool_calls_by_name": {"get_weather": 3},
                "tokens": {"input_tokens": 2510, "output_tokens": 197, "reasoning_tokens": 48,
                           "cached_input_tokens": 2048, "cache_write_input_tokens": 7},
                "cost": {"EUR": 2.0, "USD": 0.00386},
            },
        )

    def test_bad_items_go_to_stderr_and_exit_1(self) -> None:
        path = self.write("t.jsonl", demo_items()[0] + "\n{}\n")
        status, out, err = cli("stats", "--json", path)
        self.assertEqual(status, 1)
        self.assertEqual(err, f"{path}:2: kind: missing field\n")
        self.assertEqual((json.loads(out)["items"], json.loads(out)["problems"]), (1, 1))


class TestFold(Files, unittest.TestCase):
    def test_protocol_error_names_the_line(self) -> None:
        text = "\n".join([
            '{"BeginPart":{"part_id":"a","kind":"Text"}}',
            '{"AppendText":{"part_id":"a","chunk":"hi"}}',
            '{"AppendText":{"part_id":"b","chunk":"x"}}',
        ])
        path = self.write("d.jsonl", text)
        self.assertEqual(cli("fold", path), (1, "", f"{path}:3: AppendText to part 'b', which is not open (open parts: 'a')\n"))

    def test_bad_delta_names_the_line_and_path(self) -> None:
        text = '{"BeginPart":{"part_id":"a","kind":"Text"}}\n{"AppendText":{"part_id":"a","chunk":5}}\n'
        self.assertEqual(
            cli("fold", "-", stdin=text.encode()),
            (1, "", "<stdin>:2: AppendText.chunk: invalid type: integer `5`, expected a string\n"),
        )
        self.assertEqual(cli("fold", "-", stdin=b"{"), (1, "", "<stdin>:1: invalid JSON: Expecting property name enclosed in double quotes: column 2\n"))

    def test_open_parts_at_the_end(self) -> None:
        text = '{"BeginPart":{"part_id":"a","kind":"ToolCall"}}\n{"AppendText":{"part_id":"a","chunk":"{\\"q\\": 1}"}}\n'
        status, out, err = cli("fold", "--compact", "-", stdin=text.encode())
        self.assertEqual(status, 1)
        self.assertEqual(err, "<stdin>: the deltas end with 1 part still open ('a'); printed as they stand\n")
        self.assertEqual(out, '[{"ToolCall":{"id":"","name":"","input":{"q":1},"metadata":{}}}]\n')

    def test_empty(self) -> None:
        self.assertEqual(cli("fold", "-"), (0, "[]\n", ""))


class TestErrors(Files, unittest.TestCase):
    def test_usage_and_file_errors_are_one_line_and_exit_2(self) -> None:
        missing = os.path.join(self.dir, "missing.jsonl")
        cases = {
            (): "the following arguments are required: COMMAND (see python -m agentkit_core --help)",
            ("validate",): "the following arguments are required: FILE (see python -m agentkit_core validate --help)",
            ("frobnicate",): "argument COMMAND: invalid choice: 'frobnicate' (choose from 'demo', 'validate', 'stats', "
            "'fold') (see python -m agentkit_core --help)",
            ("fold", "a", "b"): "unrecognized arguments: b (see python -m agentkit_core --help)",
        }
        for args, line in {  # an unreadable file is one line; the run goes on and ends with status 2
            ("validate", missing): f"{missing}: cannot read: No such file or directory",
            ("fold", self.dir): f"{self.dir}: cannot read: Is a directory",
        }.items():
            with self.subTest(args=args):
                status, out, err = cli(*args)
                self.assertEqual((status, err), (2, line + "\n"))
        for args, message in cases.items():
            with self.subTest(args=args):
                status, out, err = cli(*args)
                self.assertEqual(status, 2)
                self.assertEqual(out, "")
                if args and args[0] == "frobnicate":  # argparse's wording of choices differs across versions
                    self.assertRegex(err, r"^agentkit_core: error: argument COMMAND: invalid choice: .*\n$")
                    continue
                self.assertEqual(err, f"agentkit_core: error: {message}\n")

    @needs_processes
    def test_broken_pipe_is_quiet(self) -> None:
        path = self.write("many.jsonl", '{"CommitPart":{"part":{"Text":{"text":"x","metadata":{}}}}}\n' * 20000)
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentkit_core", "fold", path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        )
        self.assertIsNotNone(proc.stdout)
        self.assertIsNotNone(proc.stderr)
        proc.stdout.read(100)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
        self.assertEqual((proc.wait(timeout=60), err), (141, b""))

    def test_interrupt_and_internal_errors_print_no_traceback(self) -> None:
        from agentkit_core._cli import commands

        def interrupted(args: object) -> int:
            raise KeyboardInterrupt

        def broken(args: object) -> int:
            raise ZeroDivisionError("boom")

        original = commands.cmd_validate
        try:
            for replacement, status, message in ((interrupted, 130, "\n"), (broken, 70, "internal error: ZeroDivisionError: boom")):
                commands.cmd_validate = replacement
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(commands.main(["validate", "x"]), status)
                self.assertIn(message, err.getvalue())
                self.assertNotIn("Traceback", err.getvalue())
        finally:
            commands.cmd_validate = original

    def test_one_vocabulary_and_every_command_listed(self) -> None:
        import ast
        import inspect
        import pkgutil

        from agentkit_core import _cli
        from agentkit_core._cli import commands, common, convert, turn
        from agentkit_core._registry import ENDPOINTS, PROVIDERS

        parser = commands.build_parser()
        names = next(a for a in parser._actions if a.dest == "command").choices
        self.assertEqual(sorted(names), ["convert", "demo", "fold", "stats", "turn", "validate"])
        # The docstrings are read from the source, so the check holds under -OO too (which drops __doc__).
        package_doc, commands_doc = (ast.get_docstring(ast.parse(inspect.getsource(m))) or "" for m in (_cli, commands))
        for name in (m.name for m in pkgutil.iter_modules(_cli.__path__)):  # the package's map names every module
            self.assertIn(f":mod:`.{name}`", package_doc)
        self.assertIn("|".join(["demo", "validate", "stats", "fold", "convert", "turn"]), commands_doc.splitlines()[0])
        for module in (commands, turn):  # one usage error, one program name, one way to print a problem
            self.assertIs(module.CliError, common.CliError)
        for module in (commands, convert, turn):
            self.assertFalse({"_PROG", "_err", "_Parser"} & set(vars(module)), module.__name__)
        self.assertEqual(convert.FLAGS, {row.module: row.cli for row in PROVIDERS})  # spellings from the registry
        self.assertEqual(turn.KEYS, {row.name: row.key_variables for row in ENDPOINTS})  # every name, the registry's spelling

    @needs_processes
    def test_importing_the_package_does_not_import_the_cli(self) -> None:
        code = "import sys, agentkit_core; print(sorted(m for m in sys.modules if m.startswith('agentkit_core._cli')))"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(proc.stdout, "[]\n")


class TestProcess(Files, unittest.TestCase):
    """The real ``python -m agentkit_core``: what the in-process runs stand for."""

    @needs_processes
    def test_the_module_runs_and_exits_with_the_status_main_returns(self) -> None:
        good = "\n".join(demo_items()) + "\n"
        bad = demo_items()[0] + "\n{}\n"
        runs = [
            (("demo", "--quiet"), b""),
            (("demo", "--deltas"), b""),
            (("validate", "-"), good.encode()),
            (("validate", "-"), bad.encode()),
            (("stats", "--json", "-"), bad.encode()),
            (("fold", "-"), b'{"BeginPart":{"part_id":"a","kind":"Text"}}\n'),
            (("validate", os.path.join(self.dir, "missing.jsonl")), b""),
            (("frobnicate",), b""),
        ]
        statuses = set()
        for args, stdin in runs:
            with self.subTest(args=args):
                in_process = cli(*args, stdin=stdin)
                self.assertEqual(cli_process(*args, stdin=stdin), in_process)
                statuses.add(in_process[0])
        self.assertEqual(statuses, {0, 1, 2})  # each exit status went through sys.exit

    @needs_processes
    @needs_named_pipes
    @needs_signals("SIGINT")
    def test_ctrl_c_prints_no_traceback_and_exits_130(self) -> None:
        fifo = os.path.join(self.dir, "slow.jsonl")
        os.mkfifo(fifo)
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentkit_core", "validate", fifo],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
            # A shell runs background jobs with Ctrl-C ignored, and a child inherits that.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            writer = _open_when_read(fifo, proc)  # the command is inside main(), reading
            try:
                os.write(writer, (demo_items()[0] + "\n").encode())
                proc.send_signal(signal.SIGINT)
                out, err = proc.communicate(timeout=60)
            finally:
                os.close(writer)
        finally:
            if proc.poll() is None:  # pragma: no cover - only when the test already failed
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(out, b"")
        self.assertNotIn(b"Traceback", err)
        self.assertLessEqual(err.count(b"\n"), 1, err)


def _open_when_read(fifo: str, proc: subprocess.Popen[bytes]) -> int:
    """Open ``fifo`` for writing once ``proc`` has opened it for reading; fail if it never does."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader yet
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the command never opened its input") from None
            time.sleep(0.01)


if __name__ == "__main__":
    unittest.main()
