"""The command line reads what people have, in process: ``_cli.commands.main([...])`` with the standard streams redirected."""

from __future__ import annotations

import io
import json
import os
import random
import sys
import tracemalloc
import unittest
import unittest.mock
from typing import Any

import agentkit_core as ak
from agentkit_core._cli import commands
from agentkit_core._detect import sniff as sniff_provider
from tests.test_transcript import Files, mangled

HERE = os.path.dirname(os.path.abspath(__file__))
PAYLOADS = os.path.join(HERE, "payloads")
PROG = ak.__name__
DEEP = 100_000


def run(*args: str, stdin: bytes | Any = b"") -> tuple[int, str, str]:
    """``python -m agentkit_core ARGS`` in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8") if isinstance(stdin, bytes) else stdin
    sys.stdout, sys.stderr = out, err
    try:
        status = commands.main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return status, out.getvalue(), err.getvalue()


def turn() -> list[ak.Item]:
    call = ak.ToolCallPart(ak.ToolCallId("call-1"), "get_weather", {"city": "Paris"})
    return [
        ak.Item.text(ak.ItemKind.USER, "What's the weather in Paris?"),
        ak.Item(ak.ItemKind.ASSISTANT, [ak.TextPart("Let me look."), call], usage=ak.Usage(ak.TokenUsage(1200, 34))),
        ak.Item(ak.ItemKind.TOOL, [ak.ToolResultPart(ak.ToolCallId("call-1"), ak.ToolOutput.text("sunny"))]),
    ]


def payload(provider: str, name: str) -> str:
    return os.path.join(PAYLOADS, provider, name)


class TestOneDocument(Files):
    def test_a_pretty_printed_item_is_one_item(self) -> None:
        item = turn()[1]
        path = self.write("item.json", json.dumps(item.to_dict(), indent=2))
        self.assertEqual(run("validate", path), (0, "ok: 1 item in 1 file\n", ""))
        status, out, err = run("stats", "--json", path)
        self.assertEqual((status, err, json.loads(out)["items"], json.loads(out)["tool_calls_by_name"]), (0, "", 1, {"get_weather": 1}))

    def test_a_pretty_printed_array_and_json_lines_and_stdin(self) -> None:
        items = turn()
        array = self.write("t.json", json.dumps([i.to_dict() for i in items], indent=2))
        lines = self.write("t.jsonl", "\r\n".join(i.to_json() for i in items) + "\r\n")
        self.assertEqual(run("validate", array, lines), (0, "ok: 6 items in 2 files\n", ""))
        self.assertEqual(run("validate", "-", stdin=json.dumps(items[0].to_dict(), indent=1).encode()), (0, "ok: 1 item in 1 file\n", ""))

    def test_a_pretty_printed_bad_item_is_one_problem(self) -> None:
        wire = turn()[1].to_dict()
        wire["parts"][1]["ToolCall"]["name"] = None
        path = self.write("item.json", json.dumps(wire, indent=2))
        self.assertEqual(
            run("validate", path),
            (1, "1 problem in 1 file (1 item read, 0 good)\n", f"{path}:1: parts[1].ToolCall.name: invalid type: null, expected a string\n"),
        )

    def test_fold_reads_a_pretty_printed_array_of_deltas(self) -> None:
        deltas = [ak.BeginPart(ak.PartId("a"), ak.PartKind.TEXT), ak.AppendText(ak.PartId("a"), "hi"), ak.CommitPart(ak.TextPart("hi"))]
        path = self.write("d.json", json.dumps([d.to_dict() for d in deltas], indent=2))
        self.assertEqual(run("fold", "--compact", path), (0, '[{"Text":{"text":"hi","metadata":{}}}]\n', ""))
        wire = [d.to_dict() for d in deltas]
        wire[1]["AppendText"]["chunk"] = 5
        text = json.dumps(wire, indent=2)
        path = self.write("bad.json", text)
        line = text.count("\n", 0, text.index('{\n    "AppendText"')) + 1
        self.assertEqual(run("fold", path), (1, "", f"{path}:{line}: [1].AppendText.chunk: invalid type: integer `5`, expected a string\n"))


class TestNotATranscript(Files):
    def assert_one_line(self, args: tuple[str, ...], line: str, status: int = 1) -> None:
        got_status, out, err = run(*args)
        self.assertEqual((got_status, err), (status, line + "\n"))
        if args[0] == "validate":
            self.assertEqual(out, f"1 problem in {len(args) - 1} file{'s' if len(args) > 2 else ''} (0 items read, 0 good)\n")

    def test_provider_bodies_point_at_convert(self) -> None:
        cases = [
            ("anthropic", "messages.refusal.response.json", "an Anthropic Messages response"),
            ("anthropic", "messages.image_and_documents.request.json", "an Anthropic Messages request"),
            ("anthropic", "messages.pdf_base64.request.json", "an Anthropic Messages request"),
            ("anthropic", "messages.refusal.stream.jsonl", "JSON Lines of Anthropic Messages stream events"),
            ("anthropic", "messages.refusal.sse.txt", "server-sent events (text/event-stream) of Anthropic Messages stream events"),
            ("openai_chat", "chat.tool_calls.response.json", "an OpenAI Chat Completions response"),
            ("openai_chat", "chat.tool_call_stream.request.json", "an OpenAI Chat Completions request"),
            ("openai_chat", "chat.tool_call.stream.jsonl", "JSON Lines of OpenAI Chat Completions stream chunks"),
            ("openai_responses", "responses.reasoning_function_call.response.json", "an OpenAI Responses response"),
            ("openai_responses", "responses.multimodal_input.request.json", "an OpenAI Responses request"),
            ("openai_responses", "responses.function_call.stream.jsonl", "JSON Lines of OpenAI Responses stream events"),
            ("gemini", "generate_content.code_execution.request.json", "a Gemini request"),
            ("gemini", "generate_content.parallel_function_calls.response.json", "a Gemini response"),
            ("gemini", "stream_generate_content.thinking_text.sse.txt", "server-sent events (text/event-stream) of Gemini responses"),
        ]
        for provider, name, what in cases:
            path = payload(provider, name)
            hint = f"; convert it with python -m {PROG} convert --from {provider.replace('_', '-')} {path}"
            for command in ("validate", "stats"):
                with self.subTest(name, command=command):
                    self.assert_one_line((command, path), f"{path}: not a transcript: {what}{hint}")
            if name.endswith(".jsonl"):
                with self.subTest(name, command="fold"):
                    self.assert_one_line(("fold", path), f"{path}: not deltas: {what}{hint}")

    def test_binary_empty_and_other_json(self) -> None:
        rng = random.Random(11)
        elf = b"\x7fELF\x02\x01\x01\x00" + bytes(rng.randrange(256) for _ in range(20000))
        cases = {
            "ls": (elf, "binary data"),
            "png": (b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(3000)), "binary data"),
            "empty": (b"", "the file is empty"),
            "blank": (b"\n  \r\n\n", "the file is empty"),
            "number": (b"42\n", "a JSON number"),
            "object": (b'{\n  "name": "x",\n  "version": 1\n}\n', "a JSON object with keys 'name', 'version'"),
            "deltas": (b'{"BeginPart":{"part_id":"a","kind":"Text"}}\n{"CommitPart":{"part":{"Text":{"text":"","metadata":{}}}}}\n',
                       "JSON Lines whose first line is an agentkit delta"),
            "messages": (b'[{"role": "system", "content": "Be brief."}]', "a JSON array whose first element is a chat message (role and content)"),
        }
        for name, (data, what) in cases.items():
            path = self.write(name, data)
            with self.subTest(name):
                self.assert_one_line(("validate", path), f"{path}: not a transcript: {what}")
        path = self.write("items.jsonl", "\n".join(i.to_json() for i in turn()))
        self.assert_one_line(("fold", path), f"{path}: not deltas: JSON Lines whose first line is an agentkit item")
        self.assert_one_line(("fold", self.write("ls", elf)), f"{self.dir}/ls: not deltas: binary data")
        path = self.write("arrays.jsonl", "[1]\n[2]\n")
        self.assert_one_line(("fold", path), f"{path}: not deltas: JSON Lines whose first line is a JSON array")
        path = self.write("nested.json", "[[], []]")
        self.assert_one_line(("fold", path), f"{path}: not deltas: a JSON array whose first element is an empty JSON array")
        if os.path.exists("/bin/ls"):
            self.assert_one_line(("validate", "/bin/ls"), "/bin/ls: not a transcript: binary data")

    def test_an_empty_delta_stream_folds_to_no_parts(self) -> None:
        self.assertEqual(run("fold", self.write("d.jsonl", "")), (0, "[]\n", ""))


class TestProblems(Files):
    def test_twenty_problems_a_file_then_a_count(self) -> None:
        wire = turn()[0].to_dict()
        bad = []
        for n in range(33):
            wire["parts"][0]["Text"]["text"] = n
            bad.append(json.dumps(wire))
        first = self.write("first.jsonl", "\n".join(bad))
        second = self.write("second.jsonl", "\n".join(bad[:21] + [turn()[0].to_json()]))
        status, out, err = run("validate", first, second)
        self.assertEqual((status, out), (1, "54 problems in 2 files (55 items read, 1 good)\n"))
        lines = err.splitlines()
        expected = [f"{first}:{n + 1}: parts[0].Text.text: invalid type: integer `{n}`, expected a string" for n in range(20)]
        expected.append(f"{first}: 13 more problems not shown")
        expected += [f"{second}:{n + 1}: parts[0].Text.text: invalid type: integer `{n}`, expected a string" for n in range(20)]
        expected.append(f"{second}: 1 more problem not shown")
        self.assertEqual(lines, expected)
        status, out, err = run("stats", "--json", first)
        self.assertEqual((status, json.loads(out)["problems"], len(err.splitlines())), (1, 33, 21))

    def test_invalid_json_in_a_document_is_one_problem_and_the_next_file_is_read(self) -> None:
        good = self.write("good.json", json.dumps(turn()[0].to_dict(), indent=2))
        broken = self.write("broken.json", json.dumps(turn()[0].to_dict(), indent=2)[:-40])
        status, out, err = run("validate", broken, good)
        self.assertEqual((status, out), (1, "1 problem in 2 files (1 item read, 1 good)\n"))
        self.assertRegex(err, rf"^{broken}:\d+: invalid JSON: [^\n]*\n$")

    def test_a_missing_or_unreadable_file_does_not_stop_the_others(self) -> None:
        good = self.write("good.jsonl", "\n".join(i.to_json() for i in turn()))
        missing = os.path.join(self.dir, "missing.jsonl")
        bad = self.write("bad.jsonl", "{}\n" + turn()[0].to_json() + "\n[]\n")
        status, out, err = run("validate", missing, good, self.dir, bad)
        self.assertEqual((status, out), (2, "3 problems in 4 files (3 items read, 3 good)\n"))
        self.assertEqual(
            err.splitlines(),
            [
                f"{missing}: cannot read: No such file or directory",
                f"{self.dir}: cannot read: Is a directory",
                f"{bad}: not a transcript: JSON Lines whose first line is an empty JSON object",
            ],
        )
        status, out, err = run("stats", "--json", good, missing)
        self.assertEqual((status, json.loads(out)["items"], err), (2, 3, f"{missing}: cannot read: No such file or directory\n"))
        self.assertEqual(run("fold", missing), (2, "", f"{missing}: cannot read: No such file or directory\n"))

    def test_problems_go_to_stderr_and_results_to_stdout_for_every_command(self) -> None:
        wire = turn()[0].to_dict()
        wire["kind"] = "user"
        path = self.write("t.jsonl", json.dumps(wire) + "\n" + turn()[1].to_json())
        problem = f"{path}:1: kind: unknown variant 'user' of ItemKind, expected one of System, Developer, User, Assistant, Tool, Context, Notification\n"
        status, out, err = run("validate", path)
        self.assertEqual((status, out, err), (1, "1 problem in 1 file (2 items read, 1 good)\n", problem))
        status, out, err = run("stats", path)
        self.assertEqual((status, err), (1, problem))
        self.assertIn(["problems", "1"], [line.split() for line in out.splitlines()])
        status, out, err = run("stats", "--json", path)
        self.assertEqual((status, err, json.loads(out)["problems"]), (1, problem, 1))
        deltas = self.write("d.jsonl", '{"BeginPart":{"part_id":"a","kind":"Text"}}\n{"AppendText":{"part_id":"b","chunk":"x"}}\n')
        self.assertEqual(run("fold", deltas), (1, "", f"{deltas}:2: AppendText to part 'b', which is not open (open parts: 'a')\n"))


class FailsAfter(io.RawIOBase):
    """A stream that gives ``data`` and then fails as a disk can (EIO)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self.data:
            raise OSError(5, "Input/output error")
        n = min(len(buffer), len(self.data))
        buffer[:n], self.data = self.data[:n], self.data[n:]
        return n


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class TestReadFailures(Files):
    def test_a_read_that_fails_midway_is_one_line_and_status_2(self) -> None:
        lines = ("\n".join(i.to_json() for i in turn()) + "\n") * 100  # past the first 8 KiB
        status, out, err = run("validate", "-", stdin=io.BufferedReader(FailsAfter(lines.encode()), 4096))
        self.assertEqual((status, err.splitlines()[-1]), (2, "<stdin>: cannot read: Input/output error"))
        self.assertRegex(out, r"^1 problem in 1 file \(\d[\d,]* items read, \d[\d,]* good\)\n$")
        deltas = '{"BeginPart":{"part_id":"a","kind":"Text"}}\n' + '{"AppendText":{"part_id":"a","chunk":"x"}}\n' * 400
        status, out, err = run("fold", "-", stdin=io.BufferedReader(FailsAfter(deltas.encode()), 4096))
        self.assertEqual((status, out, err), (2, "", "<stdin>: cannot read: Input/output error\n"))

    def test_a_usage_error_is_one_line(self) -> None:
        status, out, err = run("validate")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"{PROG}: error: the following arguments are required: FILE (see python -m {PROG} validate --help)\n")


class TestMangled(Files):
    def test_every_command_reports_mangled_files_without_an_internal_error(self) -> None:
        for n, data in enumerate(mangled(random.Random(7), 300)):
            path = self.write("m.json", data)
            for command in ("validate", "stats", "fold"):
                with self.subTest(n=n, command=command, data=data[:80]):
                    status, _, err = run(command, path)
                    self.assertIn(status, (0, 1))
                    self.assertNotIn("internal error", err)
                    self.assertTrue(all(line.startswith(path) for line in err.splitlines()), err)


class TestEscaping(Files):
    NAMES = ["evil\x1b[2J\nname", "\u202eabc\u2066", "\u5929\u6c17", "\U0001f389party", "get_weather"]

    def items(self) -> list[ak.Item]:
        calls = [ak.ToolCallPart(ak.ToolCallId(f"c{n}"), name, {}) for n, name in enumerate(self.NAMES)]
        usage = ak.Usage(ak.TokenUsage(1, 2), cost=ak.CostUsage(0.5, "\x9bEUR"))
        return [ak.Item(ak.ItemKind.ASSISTANT, calls + calls[:1], usage=usage)]

    def test_stats_escapes_names_and_keeps_the_columns_aligned(self) -> None:
        path = self.write("t.jsonl", "\n".join(i.to_json() for i in self.items()))
        status, out, err = run("stats", path)
        self.assertEqual((status, err), (0, ""))
        rows = [  # (label as shown, the columns it takes, value)
            ("items", 5, "1"), ("  Assistant", 11, "1"), ("parts", 5, "6"), ("  ToolCall", 10, "6"), ("tool calls", 10, "6"),
            ("  evil\\x1b[2J\\nname", 19, "2"), ("  get_weather", 13, "1"), ("  \\u202eabc\\u2066", 17, "1"),
            ("  \u5929\u6c17", 6, "1"),  # two wide characters: four columns
            ("  \U0001f389party", 9, "1"),  # the emoji takes two
            ("tokens", 6, ""), ("  input", 7, "1"), ("  output", 8, "2"),
            ("  reasoning", 11, "0"), ("  cached", 8, "0"), ("  cache-write", 13, "0"), ("cost", 4, ""),
            ("  \\x9bEUR", 9, "0.500000"),
        ]
        self.assertEqual(out.splitlines(), [(label + " " * (19 - columns) + "  " + value.rjust(8)).rstrip() for label, columns, value in rows])

    def test_stats_json_escapes_and_stays_valid_json(self) -> None:
        path = self.write("t.jsonl", "\n".join(i.to_json() for i in self.items()))
        status, out, err = run("stats", "--json", path)
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.isprintable() or set(out) - set(filter(str.isprintable, out)) == {"\n"}, out)
        self.assertIn('"evil\\u001b[2J\\nname": 2', out)
        self.assertIn('"\\u202eabc\\u2066": 1', out)
        self.assertIn('"\u5929\u6c17": 1', out)  # printable text stays as it is
        self.assertEqual(sorted(json.loads(out)["tool_calls_by_name"]), sorted(self.NAMES))
        self.assertEqual(json.loads(out)["cost"], {"\x9bEUR": 0.5})

    def test_validate_and_fold_escape_what_comes_from_data(self) -> None:
        name = self.write("bad\x1b]0;pwned\x07.jsonl", '{"kind": "\u202euser", "parts": [], "metadata": {}}\n{}\n')
        status, _, err = run("validate", name)
        shown = name.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
        self.assertEqual(status, 1)
        self.assertTrue(err.startswith(f"{shown}:1: kind: unknown variant '\\u202euser' of ItemKind"), err)
        self.assertTrue(err.isascii() and "\x1b" not in err and "\x07" not in err)
        deltas = self.write("d.jsonl", '{"BeginPart":{"part_id":"a","kind":"Text"}}\n{"AppendText":{"part_id":"a","chunk":"\\u001b[2J\u202e\U000e0001"}}\n'
                            '{"CommitPart":{"part":{"Text":{"text":"\\u001b[2J\u202e\U000e0001","metadata":{}}}}}\n')
        status, out, err = run("fold", "--compact", deltas)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, '[{"Text":{"text":"\\u001b[2J\\u202e\\udb40\\udc01","metadata":{}}}]\n')
        self.assertEqual(json.loads(out)[0]["Text"]["text"], "\x1b[2J\u202e\U000e0001")
        status, out, _ = run("fold", deltas)
        self.assertEqual(json.loads(out)[0]["Text"]["text"], "\x1b[2J\u202e\U000e0001")
        self.assertNotIn("\u202e", out)


class TestFlags(Files):
    def test_version(self) -> None:
        self.assertEqual(run("--version"), (0, f"{PROG} {ak.__version__}\n", ""))

    def test_help_returns(self) -> None:
        status, out, err = run("--help")
        self.assertEqual((status, err), (0, ""))
        self.assertIn("problems to stderr", " ".join(out.split()))

    def test_progress_on_a_terminal_is_cleared_before_problems_and_at_the_end(self) -> None:
        wire = turn()[0].to_dict()
        wire["kind"] = "user"
        path = self.write("long.jsonl", (turn()[0].to_json() + "\n") * 8192 + json.dumps(wire) + "\n")
        clock = iter(range(0, 10**6))

        class Clock:  # a second passes between every two looks at the clock
            @staticmethod
            def monotonic() -> float:
                return float(next(clock))

        out, err = io.StringIO(), Terminal()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            with unittest.mock.patch.object(commands, "time", Clock):
                status = commands.main(["validate", path])
        finally:
            sys.stdout, sys.stderr = saved
        self.assertEqual((status, out.getvalue()), (1, "1 problem in 1 file (8,193 items read, 8,192 good)\n"))
        shown = err.getvalue()
        self.assertRegex(shown, rf"^\r\x1b\[K{path}: line 4,096 \((4[0-9])%\)\r\x1b\[K{path}: line 8,192 \((9[0-9])%\)")
        self.assertTrue(shown.endswith(f"\r\x1b[K{path}:8193: kind: unknown variant 'user' of ItemKind, expected one of "
                                                    "System, Developer, User, Assistant, Tool, Context, Notification\n\r\x1b[K"), shown[-300:])

    def test_interrupted_on_a_terminal_clears_the_line_first(self) -> None:
        err = Terminal()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = io.StringIO(), err
        try:
            with unittest.mock.patch.object(commands, "cmd_stats", side_effect=KeyboardInterrupt):
                status = commands.main(["stats", "x"])
        finally:
            sys.stdout, sys.stderr = saved
        self.assertEqual((status, err.getvalue()), (130, f"\r\x1b[K{PROG}: interrupted\n"))

    def test_interrupted_is_one_line_and_130(self) -> None:
        class Interrupted(io.RawIOBase):
            def readable(self) -> bool:
                return True

            def readinto(self, buffer: Any) -> int:
                raise KeyboardInterrupt

        for command in ("validate", "stats", "fold"):
            with self.subTest(command=command):
                status, out, err = run(command, "-", stdin=io.BufferedReader(Interrupted()))
                self.assertEqual((status, out, err), (130, "", f"{PROG}: interrupted\n"))


class TestNestingBounded(Files):
    MESSAGE = "recursion limit exceeded: containers nest deeper than 127 levels"

    def test_every_command_refuses_deep_text_in_one_line(self) -> None:
        good = turn()[0].to_json()
        deep = "[" * DEEP + "]" * DEEP
        deep_item = good.replace('"metadata":{}', '"metadata":{"x":' + deep + "}", 1)
        delta = '{"BeginPart":{"part_id":"a","kind":"Text"}}'
        deep_delta = '{"ReplaceStructured":{"part_id":"a","value":' + deep + "}}"
        cases = [
            (("validate",), good + "\n" + deep_item + "\n", 2),
            (("validate",), "[\n" + good + ",\n" + deep_item + "\n]\n", 1),
            (("validate",), "{\n" + deep, 1),
            (("validate",), "[" * DEEP, 1),
            (("stats", "--json"), deep_item + "\n" + good + "\n", 1),
            (("fold",), delta + "\n" + deep_delta + "\n", 2),
            (("fold",), "[\n" + delta + ",\n" + deep_delta + "\n]", 1),
        ]
        for args, text, line in cases:
            with self.subTest(args=args, text=text[:30]):
                path = self.write("deep.json", text)
                status, _, err = run(*args, path)
                self.assertEqual((status, err), (1, f"{path}:{line}: {self.MESSAGE}\n"))


class TestStreaming(Files):
    def test_validate_streams_json_lines_in_constant_memory(self) -> None:
        item = ak.Item(ak.ItemKind.USER, [ak.TextPart("y" * 2000)])
        path = os.path.join(self.dir, "big.jsonl")
        ak.dump_items((item.with_id(ak.MessageId(f"m{n}")) for n in range(2000)), path)
        size = os.path.getsize(path)
        tracemalloc.start()
        try:
            result = run("validate", path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual(result, (0, "ok: 2,000 items in 1 file\n", ""))
        self.assertLess(peak, size // 10, f"peak {peak:,} bytes for a {size:,}-byte file: it was not streamed")


class TestSniff(unittest.TestCase):
    """The detection ``convert`` reuses: every recorded provider body is recognised, and no agentkit value is."""

    def test_every_recorded_body_names_its_module(self) -> None:
        for provider in sorted(os.listdir(PAYLOADS)):
            folder = os.path.join(PAYLOADS, provider)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    if name.endswith(".jsonl"):
                        values = [json.loads(line) for line in f if line.strip()]
                    elif name.endswith(".json"):
                        values = [json.load(f)]
                    else:
                        continue
                for n, value in enumerate(values):
                    with self.subTest(path=f"{provider}/{name}", value=n):
                        found = sniff_provider(value)
                        self.assertIsNotNone(found)
                        self.assertIsNotNone(found)
                        self.assertEqual(found.module, provider)

    def test_a_gemini_chunk_holding_only_a_block_is_gemini(self) -> None:
        """A stream blocked after it began ends with a chunk of ``promptFeedback`` alone (no usage)."""
        found = sniff_provider({"promptFeedback": {"blockReason": "SAFETY"}})
        self.assertEqual(found and found.module, "gemini")
        self.assertIsNone(sniff_provider({"promptFeedback": "SAFETY"}))

    def test_agentkit_values_are_no_provider_body(self) -> None:
        with open(os.path.join(HERE, "vectors", "reference-wire.tsv"), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                with self.subTest(line=n):
                    self.assertIsNone(sniff_provider(json.loads(line.split("\t", 1)[1])))


if __name__ == "__main__":
    unittest.main()
