"""``python -m agentkit_core convert``, in process: every recorded provider file becomes valid items.

For every file under ``tests/payloads/<provider>/``: ``validate`` says in one
line what it is and suggests ``convert --from <provider>``; that command
writes JSON Lines that ``validate`` accepts, the very items the projection's
own functions give; and another provider's ``--from`` gets one line naming
the right one.  The kind of file (request, response, stream of JSON Lines,
raw event stream) is told by content: the same bytes under another name
convert the same.
"""

from __future__ import annotations

import io
import json
import os
import sys
import unittest
from typing import Any

import agentkit_core as ak
from agentkit_core import _cli
from agentkit_core.providers import PROVIDERS as ROWS, openai_chat
from tests import recorded
from tests.test_cli_reading import run
from tests.test_transcript import Files

PAYLOADS = recorded.ROOT
PROG = ak.__name__
PROVIDERS = recorded.PROVIDERS
#: Each provider module's ``--from`` spelling, as the registry gives it.
FLAG = {row.module: row.cli for row in ROWS}


def recorded_files() -> list[tuple[str, str]]:
    """(provider, path) of every recorded file the command line reads: JSON and JSON Lines (not a README, nor a
    binary ``.eventstream``, whose events are beside it as ``.stream.jsonl``)."""
    return [
        (provider, os.path.join(PAYLOADS, provider, name))
        for provider in sorted(PROVIDERS)
        for name in sorted(os.listdir(os.path.join(PAYLOADS, provider)))
        if not name.endswith((".md", ".eventstream"))
    ]


def expected_items(provider: str, path: str) -> list[ak.Item]:
    """What the projection's own functions give for a recorded file, judged by its name."""
    return recorded.items(provider, os.path.basename(path))


def converted(result: tuple[int, str, str]) -> list[tuple[Any, ...]]:
    """The items a successful run wrote, as :func:`shape` sees them."""
    status, out, err = result
    if (status, err) != (0, ""):
        raise AssertionError(result)
    return [shape(ak.Item.from_json(line)) for line in out.splitlines()]


def shape(item: ak.Item) -> tuple[Any, ...]:
    """An item without the ids an adapter invents afresh each time (Gemini calls without ids)."""
    return (item.kind, item.id, [type(p).__name__ for p in item.parts], item.text_content(), item.usage, item.finish_reason)


class EveryRecordingTest(Files):
    def test_validate_points_at_convert_and_convert_gives_valid_items(self) -> None:
        files = recorded_files()
        self.assertGreaterEqual(len(files), 80)
        for provider, path in files:
            with self.subTest(path=os.path.relpath(path, PAYLOADS)):
                status, out, err = run("validate", path)
                self.assertEqual(status, 1)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(f"; convert it with python -m {PROG} convert --from {FLAG[provider]} {path}\n", err)

                status, out, err = run("convert", "--from", FLAG[provider], path)
                self.assertEqual((status, err), (0, ""))
                lines = out.splitlines()
                self.assertTrue(lines)
                converted = [ak.Item.from_json(line) for line in lines]
                self.assertEqual([line for line in lines], [item.to_json() for item in converted])  # compact reference form
                self.assertEqual([shape(i) for i in converted], [shape(i) for i in expected_items(provider, path)])
                written = self.write("items.jsonl", out)
                self.assertEqual(run("validate", written), (0, f"ok: {len(lines):,} item{'s' if len(lines) > 1 else ''} in 1 file\n", ""))

    def test_the_kind_of_file_is_told_by_content_not_name(self) -> None:
        for provider, path in recorded_files():
            with self.subTest(path=os.path.relpath(path, PAYLOADS)):
                with open(path, "rb") as f:
                    data = f.read()
                renamed = self.write("traffic.dat", data)
                expected = converted(run("convert", "--from", FLAG[provider], path))
                self.assertEqual(converted(run("convert", "--from", FLAG[provider], renamed)), expected)
                self.assertEqual(converted(run("convert", "--from", FLAG[provider], "-", stdin=data)), expected)

    def test_another_providers_flag_gets_one_line_naming_the_right_one(self) -> None:
        for provider, path in recorded_files():
            for other in PROVIDERS:
                if other == provider:
                    continue
                with self.subTest(path=os.path.relpath(path, PAYLOADS), wrong=other):
                    status, out, err = run("convert", "--from", FLAG[other], path)
                    if path.endswith(".request.json") and {provider, other} == {"anthropic", "openai_chat"}:
                        # Both APIs send "messages": the projection decides, and may take it.
                        self.assertIn(status, (0, 1))
                        self.assertLessEqual(len(err.splitlines()), 1)
                        continue
                    self.assertEqual((status, out), (1, ""))
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertTrue(err.startswith(f"{path}: "), err)
                    self.assertTrue(err.endswith(f"; convert it with --from {FLAG[provider]}\n"), err)
                    self.assertNotIn("Traceback", err)

    def test_several_files_in_one_run(self) -> None:
        chat = os.path.join(PAYLOADS, "openai_chat", "chat.tool_calls.response.json")
        stream = os.path.join(PAYLOADS, "openai_chat", "chat.tool_call.stream.jsonl")
        status, out, err = run("convert", "--from", "openai-chat", chat, stream)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(len(out.splitlines()), len(expected_items("openai_chat", chat)) + len(expected_items("openai_chat", stream)))


    def test_a_seed_makes_invented_ids_reproducible(self) -> None:
        """Gemini sends calls without ids; with --seed the ids drawn for them are the same run after run."""
        call, answer = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}, {"functionResponse": {"name": "weather", "response": {"c": 18}}}
        contents = [{"role": "user", "parts": [{"text": "Weather?"}]}, {"role": "model", "parts": [call, call]}, {"role": "user", "parts": [answer, answer]}]
        request = self.write("request.json", json.dumps({"contents": contents}))
        response = os.path.join(PAYLOADS, "gemini", "generate_content.parallel_function_calls.response.json")
        runs = [run("convert", "--from", "gemini", "--seed", seed, request, response) for seed in ("s", "s", "t")]
        for status, _, err in runs:
            self.assertEqual((status, err), (0, ""))
        self.assertEqual(runs[0][1], runs[1][1])
        self.assertNotEqual(runs[0][1], runs[2][1])
        self.assertNotEqual(runs[0][1], run("convert", "--from", "gemini", request, response)[1])  # drawn afresh without
        items = [ak.Item.from_json(line) for line in runs[0][1].splitlines()]
        self.assertEqual([shape(i) for i in items[3:]], [shape(i) for i in expected_items("gemini", response)])
        calls = [p for i in items for p in i.parts if isinstance(p, ak.ToolCallPart)]
        results = [p for i in items for p in i.parts if isinstance(p, ak.ToolResultPart)]
        self.assertTrue(calls and results and all(c.metadata.get(ak.INVENTED_ID_KEY) is True for c in calls))
        self.assertLessEqual({r.call_id for r in results}, {c.id for c in calls})  # results still answer their calls
        self.assertEqual(len({c.id for c in calls}), len(calls))

    def test_json_lines_of_bodies_convert_one_after_another(self) -> None:
        names = ("chat.tool_result_followup.request.json", "chat.multimodal_input.request.json")
        bodies = [recorded.load("openai_chat", n) for n in names]
        path = self.write("requests.jsonl", "".join(json.dumps(b) + "\n" for b in bodies))
        expected = [shape(i) for b in bodies for i in openai_chat.items_from_request(b)]
        self.assertEqual(converted(run("convert", "--from", "openai-chat", path)), expected)
        array = self.write("requests.json", json.dumps(bodies, indent=2))
        self.assertEqual(converted(run("convert", "--from", "openai-chat", array)), expected)


class SpellingAndArgumentsTest(Files):
    def test_both_spellings_of_a_provider(self) -> None:
        path = os.path.join(PAYLOADS, "openai_responses", "responses.function_call.sse.txt")
        self.assertEqual(run("convert", "--from", "openai_responses", path), run("convert", "--from", "openai-responses", path))
        self.assertEqual(run("convert", "--from", "openai_responses", path)[0], 0)

    def test_bad_arguments_exit_2_with_one_line(self) -> None:
        path = os.path.join(PAYLOADS, "gemini", "generate_content.code_execution.response.json")
        for args in (("convert", path), ("convert", "--from", "mistral", path), ("convert", "--from", "gemini")):
            with self.subTest(args=args):
                status, out, err = run(*args)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertTrue(err.startswith(f"{PROG}: error: "), err)

    def test_a_file_that_cannot_be_read_exits_2_and_the_others_still_convert(self) -> None:
        good = os.path.join(PAYLOADS, "gemini", "generate_content.code_execution.response.json")
        missing = os.path.join(self.dir, "missing.json")
        status, out, err = run("convert", "--from", "gemini", missing, good)
        self.assertEqual(status, 2)
        self.assertEqual(err, f"{missing}: cannot read: No such file or directory\n")
        self.assertEqual(len(out.splitlines()), 1)


class BadDataTest(Files):
    def assert_one_line(self, data: bytes | str, provider: str, line: str) -> None:
        path = self.write("bad.json", data)
        status, out, err = run("convert", "--from", provider, path)
        self.assertEqual((status, out, err), (1, "", line.replace("PATH", path) + "\n"))

    def test_what_is_no_provider_traffic(self) -> None:
        self.assert_one_line(b"", "anthropic", "PATH: not Anthropic Messages traffic: the file is empty")
        self.assert_one_line(b"\x00\x01\x02" * 100, "gemini", "PATH: not Gemini traffic: binary data")
        self.assert_one_line('{"messages": [', "anthropic", "PATH:1: invalid JSON: Expecting value: column 15")

    def test_a_body_the_projection_refuses_names_the_field(self) -> None:
        self.assert_one_line(json.dumps({"contents": [{"role": "user", "parts": ["hi"]}]}), "gemini",
                             "PATH:1: contents[0].parts[0]: expected an object, found 'hi'")
        self.assert_one_line(json.dumps({"messages": [{"role": "user", "content": "a"}, {"role": "tool", "content": "x"}]}),
                             "openai-chat", "PATH:1: messages[1].tool_call_id: expected a string, found nothing")

    def test_a_stream_event_the_decoder_refuses_names_its_line(self) -> None:
        path = os.path.join(PAYLOADS, "openai_chat", "chat.text_content.stream.jsonl")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        event = json.loads(lines[2])
        event["choices"][0]["delta"]["content"] = 5
        lines[2] = json.dumps(event)
        self.assert_one_line("\n".join(lines) + "\n", "openai-chat", "PATH:3: choices[0].delta.content: expected a string or an array, found 5")

    def test_a_raw_event_stream_with_a_bad_event(self) -> None:
        self.assert_one_line('data: {"type": "message_start", "message": {"id": 5}}\n\n', "anthropic",
                             "PATH: event 1: message.id: expected a string, found 5")
        self.assert_one_line("data: {not json}\n\n", "anthropic",
                             "PATH: event 1: invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2")

    def test_text_from_data_is_escaped_for_a_terminal_only(self) -> None:
        body = {"id": "x", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "red \x1b[31m\u202e"}}]}
        path = self.write("esc.json", json.dumps(body, ensure_ascii=False))
        status, piped, err = run("convert", "--from", "openai-chat", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(piped, openai_chat.items_from_response(body)[0].to_json() + "\n")  # a file gets the reference's bytes
        self.assertIn("\u202e", piped)

        class Terminal(io.StringIO):
            def isatty(self) -> bool:
                return True

        saved, sys.stdout = sys.stdout, Terminal()
        try:
            self.assertEqual(_cli.main(["convert", "--from", "openai-chat", path]), 0)
            shown = sys.stdout.getvalue()
        finally:
            sys.stdout = saved
        self.assertNotIn("\x1b", shown)
        self.assertNotIn("\u202e", shown)
        self.assertEqual(ak.Item.from_json(shown), ak.Item.from_json(piped))  # still the same JSON


if __name__ == "__main__":
    unittest.main()
