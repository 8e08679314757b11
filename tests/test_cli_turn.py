"""``python -m agentkit_core turn``: against the loopback server, in a child process (Ctrl-C included)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from agentkit_core import (
    FinishReason,
    Item,
    ItemKind,
    TextOutput,
    TextPart,
    ToolAnnotations,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    dump_items,
    load_items,
    unanswered_calls,
)
from agentkit_core.providers import anthropic
from tests import recorded
from tests.capability import can_serve_loopback, can_spawn_process
from tests.loopback import Loopback, eventstream_reply, json_reply, sse_reply
from tests.test_http import KEY

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STREAM = recorded.raw("anthropic", "messages.text_tool_use.sse.txt")


class TurnCommandTest(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        if not can_spawn_process():
            self.skipTest("needs processes: this interpreter cannot spawn one")
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "transcript.jsonl")
        self.start = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
        dump_items(self.start, self.path)
        self.env = dict(os.environ, ANTHROPIC_API_KEY=KEY, PYTHONPATH=ROOT, NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")

    def command(self, server: Loopback, *extra: str) -> list[str]:
        return [sys.executable, "-m", "agentkit_core", "turn", "--provider", "anthropic", "--model", "m-1",
                "--base-url", server.url(), "--set", "max_tokens=256", *extra, self.path]

    def test_a_bedrock_turn_signed_with_aws_credentials(self) -> None:
        env = {k: v for k, v in self.env.items() if not k.startswith("AWS_")}
        env.update(AWS_ACCESS_KEY_ID="AKIDCLITEST", AWS_SECRET_ACCESS_KEY="cli-secret-0123456789", AWS_REGION="us-west-2",
                   AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_CONFIG_FILE=os.devnull)
        raw = recorded.raw("bedrock", "converse_stream.text.eventstream")
        with Loopback([eventstream_reply(raw)]) as server:
            command = [sys.executable, "-m", "agentkit_core", "turn", "--provider", "bedrock", "--model", "us.amazon.nova-micro-v1:0",
                       "--base-url", server.url(), self.path]
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            received = server.requests[0]
            self.assertEqual(received.path, "/model/us.amazon.nova-micro-v1%3A0/converse-stream")
            self.assertIn("Credential=AKIDCLITEST/", received.headers["authorization"])
            self.assertIn("/us-west-2/bedrock/aws4_request", received.headers["authorization"])
        self.assertEqual(load_items(self.path), self.start + recorded.items("bedrock", "converse_stream.text.eventstream"))
        self.assertNotIn("cli-secret", done.stderr + done.stdout)
        del env["AWS_ACCESS_KEY_ID"]
        refused = subprocess.run(command[:-3] + [self.path], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("AWS_BEARER_TOKEN_BEDROCK to the API key, or AWS credentials", refused.stderr)

    def test_a_turn_is_streamed_and_appended(self) -> None:
        tools = os.path.join(os.path.dirname(self.path), "tools.json")
        spec = ToolSpec("get_weather", "The weather now", {"type": "object", "properties": {"location": {"type": "string"}}})
        native = {"type": "web_search_20250305", "name": "web_search", "max_uses": 1}
        with open(tools, "w", encoding="utf-8") as f:
            json.dump([spec.to_dict(), native], f)
        with Loopback([sse_reply(STREAM, 0.01)]) as server:
            done = subprocess.run(self.command(server, "--set", "temperature=0.5", "--tools", tools), capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout, "I'll check the current weather in Paris for you.\n")
            received = server.requests[0]
            self.assertEqual((received.path, received.headers["x-api-key"]), ("/v1/messages", KEY))
            body = json.loads(received.body)
            self.assertEqual(body["temperature"], 0.5)
            self.assertEqual(body["tools"], anthropic.request_from_items([], tools=[spec, native])["tools"])
            self.assertEqual(body["tools"][1], native)
        items = load_items(self.path)
        self.assertEqual(items, self.start + recorded.items("anthropic", "messages.text_tool_use.stream.jsonl"))

    def test_ctrl_c_closes_the_turn_and_appends_it(self) -> None:
        with Loopback([sse_reply(STREAM, 30.0, pieces=0)]) as server:
            child = subprocess.Popen(self.command(server), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
            try:
                deadline = time.monotonic() + 60
                while len(server.requests) < 1 and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(0.5)  # the first event is in; the next is 30 s away
                try:
                    child.send_signal(signal.SIGINT)
                except ValueError:
                    self.skipTest("needs signals: cannot send SIGINT to a child process here")
                out, err = child.communicate(timeout=20)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.communicate()
        self.assertEqual(child.returncode, 130, err)
        self.assertNotIn(b"Traceback", err)
        self.assertIn(b"interrupted", err)
        items = load_items(self.path)
        self.assertEqual(items[: len(self.start)], self.start)
        closed = items[len(self.start)]
        self.assertIs(closed.kind, ItemKind.ASSISTANT)
        self.assertEqual(closed.finish_reason, FinishReason.CANCELLED)
        self.assertFalse([p for p in closed.parts if isinstance(p, ToolCallPart)])
        self.assertEqual(unanswered_calls(items), [])

    def test_a_failed_call_appends_nothing(self) -> None:
        body = b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
        with Loopback([json_reply(401, body)]) as server:
            done = subprocess.run(self.command(server), capture_output=True, text=True, env=self.env, timeout=120)
        self.assertEqual(done.returncode, 1)
        self.assertIn("HTTP 401 authentication_error: invalid x-api-key", done.stderr)
        self.assertNotIn(KEY, done.stderr + done.stdout)
        self.assertNotIn("Traceback", done.stderr)
        self.assertEqual(load_items(self.path), self.start)

    def test_a_stream_broken_midway_is_closed_as_an_error(self) -> None:
        with Loopback([sse_reply(STREAM, 0.0, pieces=3, reset=True)]) as server:
            done = subprocess.run(self.command(server), capture_output=True, text=True, env=self.env, timeout=120)
        self.assertEqual(done.returncode, 1, done.stderr)
        items = load_items(self.path)
        closed = items[len(self.start)]
        self.assertEqual(closed.finish_reason, FinishReason.ERROR)
        self.assertTrue(any(isinstance(p, TextPart) for p in closed.parts))
        self.assertEqual(unanswered_calls(items), [])  # every call the closed turn kept is answered
        self.assertEqual(len(items), len(self.start) + (2 if closed.tool_calls() else 1))

    def test_each_tool_call_is_shown_and_a_transcript_ending_with_one_is_refused(self) -> None:
        """The newcomer's finding: ``turn`` printed only the text, and run again sent the unanswered ``tool_use``."""
        with Loopback([sse_reply(STREAM)]) as server:
            done = subprocess.run(self.command(server), capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn('tool call get_weather({"location":"Paris"}) id=toolu_', done.stderr)
            self.assertNotIn("tool call", done.stdout)
            again = subprocess.run(self.command(server), capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(again.returncode, 2, again.stderr)
            self.assertIn("unanswered tool call: get_weather (toolu_", again.stderr)
            self.assertIn("close_unanswered", again.stderr)
            self.assertEqual(len(server.requests), 1)  # the second run sent nothing

    def test_portable_settings_as_flags(self) -> None:
        schema = os.path.join(os.path.dirname(self.path), "schema.json")
        with open(schema, "w", encoding="utf-8") as f:
            json.dump({"type": "object"}, f)
        tools = os.path.join(os.path.dirname(self.path), "tools.json")
        with open(tools, "w", encoding="utf-8") as f:
            json.dump([ToolSpec("get_weather", "The weather now", {"type": "object"}).to_dict()], f)
        with Loopback([sse_reply(recorded.raw("anthropic", "messages.thinking_text.sse.txt"))]) as server:
            base = [sys.executable, "-m", "agentkit_core", "turn", "--provider", "anthropic", "--model", "m-1", "--base-url", server.url()]
            done = subprocess.run([*base, "--max-tokens", "3000", "--temperature", "1", "--stop", "END", "--stop", "FIN",
                                   "--reasoning-budget", "1024", "--output-schema", schema, "--no-parallel-tool-calls", "--tools", tools,
                                   self.path],
                                  capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            body = json.loads(server.requests[0].body)
            self.assertEqual((body["max_tokens"], body["temperature"], body["stop_sequences"]), (3000, 1, ["END", "FIN"]))  # as thinking takes them
            self.assertEqual(body["thinking"], {"type": "enabled", "budget_tokens": 1024})
            self.assertEqual(body["output_config"], {"format": {"type": "json_schema", "schema": {"type": "object"}}})
            self.assertEqual(body["tool_choice"], {"type": "auto", "disable_parallel_tool_use": True})
            for flags, said in ((["--seed", "3", "--max-tokens", "5"], "seed"), (["--temperature", "3", "--max-tokens", "5"], "temperature"),
                                ([], "max_tokens"), (["--max-tokens", "5", "--set", "system=x"], "system"),
                                (["--max-tokens", "5", "--set", "max_tokens=6"], "max_tokens")):
                with self.subTest(flags=flags):
                    refused = subprocess.run([*base, *flags, self.path], capture_output=True, text=True, env=self.env, timeout=120)
                    self.assertEqual(refused.returncode, 2, refused.stderr)
                    self.assertIn(said, refused.stderr)
                    self.assertNotIn("Traceback", refused.stderr)
            self.assertEqual(len(server.requests), 1)

    def test_the_other_settings_flags_on_an_api_that_takes_them(self) -> None:
        tools = os.path.join(os.path.dirname(self.path), "tools.json")
        with open(tools, "w", encoding="utf-8") as f:
            json.dump([ToolSpec("get_weather", "The weather now", {"type": "object"}).to_dict()], f)
        with Loopback([sse_reply(recorded.raw("openai_chat", "chat.text_content.sse.txt"))]) as server:
            done = subprocess.run([sys.executable, "-m", "agentkit_core", "turn", "--provider", "openai_chat", "--model", "m-1",
                                   "--base-url", server.url(), "--top-p", "0.5", "--seed", "11", "--reasoning-effort", "low",
                                   "--parallel-tool-calls", "--max-tokens", "99", "--tools", tools, self.path],
                                  capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            body = json.loads(server.requests[0].body)
        self.assertEqual({k: body[k] for k in ("top_p", "seed", "reasoning_effort", "parallel_tool_calls", "max_completion_tokens")},
                         {"top_p": 0.5, "seed": 11, "reasoning_effort": "low", "parallel_tool_calls": True, "max_completion_tokens": 99})

    def test_a_preset_by_name_reads_its_own_variables(self) -> None:
        # --provider takes every registry name (a preset too), in either spelling; the key and base URL its own.
        with Loopback([sse_reply(recorded.raw("openai_chat", "chat.text_content.sse.txt"))]) as server:
            env = dict(self.env, GROQ_API_KEY=KEY, GROQ_BASE_URL=server.url("/openai/v1"), OPENAI_API_KEY="sk-not-groq")
            done = subprocess.run([sys.executable, "-m", "agentkit_core", "turn", "--provider", "groq", "--model",
                                   "llama-3.3-70b-versatile", "--max-tokens", "99", self.path],
                                  capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
        received = server.requests[0]
        self.assertEqual(received.path, "/openai/v1/chat/completions")
        self.assertEqual({k.lower(): v for k, v in received.headers.items()}["authorization"], "Bearer " + KEY)
        help_text = subprocess.run([sys.executable, "-m", "agentkit_core", "turn", "--help"], capture_output=True,
                                   text=True, env=self.env, timeout=120).stdout
        self.assertIn("openai-chat", help_text)
        self.assertIn("groq", help_text)
        self.assertNotIn("openai_chat", help_text)
        refused = subprocess.run([sys.executable, "-m", "agentkit_core", "turn", "--provider", "groq", "--model", "m",
                                  self.path], capture_output=True, text=True,
                                 env={k: v for k, v in self.env.items() if k != "GROQ_API_KEY"}, timeout=120)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("GROQ_API_KEY", refused.stderr)

    def test_the_key_and_the_arguments(self) -> None:
        env = {k: v for k, v in self.env.items() if k != "ANTHROPIC_API_KEY"}
        cases = [
            (["--provider", "anthropic", "--model", "m", self.path], env, "ANTHROPIC_API_KEY"),
            (["--provider", "gemini", "--model", "m", self.path], {k: v for k, v in env.items() if "GOOGLE" not in k and "GEMINI" not in k}, "GEMINI_API_KEY or GOOGLE_API_KEY"),
            (["--provider", "anthropic", "--model", "m", "--set", "oops", self.path], self.env, "NAME=VALUE"),
            (["--provider", "anthropic", "--model", "m", "--tools", self.path + ".missing", self.path], self.env, "--tools"),
        ]
        for args, environment, said in cases:
            with self.subTest(args=args):
                done = subprocess.run([sys.executable, "-m", "agentkit_core", "turn", *args], capture_output=True, text=True, env=environment, timeout=120)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn(said, done.stderr)
        self.assertEqual(load_items(self.path), self.start)



class CarryingOnTest(unittest.TestCase):
    """``turn --say`` / ``--result`` carry a conversation on from the shell; ``--tools`` takes specs with fields left out.

    In this interpreter (``tests/cli_in_process.py``): no process is needed for what these check.
    """

    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.path = os.path.join(folder.name, "transcript.jsonl")
        self.start = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
        dump_items(self.start, self.path)

    def turn(self, server: Loopback, *extra: str, stdin: bytes = b"") -> tuple[int, str, str]:
        from tests.cli_in_process import run_cli

        return run_cli("turn", "--provider", "anthropic", "--model", "m-1", "--base-url", server.url(), "--max-tokens", "256",
                       *extra, self.path, stdin=stdin)

    def test_a_conversation_carried_on(self) -> None:
        text = recorded.raw("anthropic", "messages.thinking_text.sse.txt")
        with Loopback([sse_reply(STREAM), sse_reply(text), sse_reply(text), sse_reply(text)]) as server:
            status, _, err = self.turn(server)
            self.assertEqual(status, 0, err)
            first = load_items(self.path)
            call = first[-1].tool_calls()[0]
            status, out, err = self.turn(server, "--result", f"{call.id.value}=Sunny, 18 C", "--say", "And tomorrow?")
            self.assertEqual(status, 0, err)
            self.assertTrue(out)
            sent = json.loads(server.requests[1].body)["messages"]
            self.assertEqual([m["role"] for m in sent[-2:]], ["user", "user"])  # the results, then the message
            self.assertEqual(sent[-2]["content"][0]["type"], "tool_result")
            self.assertEqual(sent[-1]["content"], [{"type": "text", "text": "And tomorrow?"}])
            items = load_items(self.path)
            self.assertEqual(items[: len(first)], first)
            result, said, answer = items[len(first):]
            self.assertEqual(result.kind, ItemKind.TOOL)
            part = result.parts[0]
            self.assertIsInstance(part, ToolResultPart)
            self.assertEqual((part.call_id, part.output, part.is_error), (call.id, TextOutput("Sunny, 18 C"), False))
            self.assertEqual((said.kind, said.text_content()), (ItemKind.USER, "And tomorrow?"))
            self.assertIs(answer.kind, ItemKind.ASSISTANT)
            # A conversation started by --say, in a file that does not exist yet.
            fresh = os.path.join(self.folder, "new.jsonl")
            self.path, path = fresh, self.path
            status, _, err = self.turn(server, "--say", "Hi")
            self.assertEqual(status, 0, err)
            self.assertEqual([item.kind for item in load_items(fresh)], [ItemKind.USER, ItemKind.ASSISTANT])
            self.path = path
            # The message from standard input, with --say -.
            status, _, err = self.turn(server, "--say", "-", stdin="Merci \u00e0 vous\n".encode())
            self.assertEqual(status, 0, err)
            self.assertEqual(load_items(self.path)[-2].text_content(), "Merci \u00e0 vous\n")

    def test_an_error_result_and_the_refusals(self) -> None:
        with Loopback([sse_reply(STREAM), json_reply(401, b'{"type":"error","error":{"type":"authentication_error","message":"no"}}')]) as server:
            self.assertEqual(self.turn(server)[0], 0)
            before = load_items(self.path)
            call_id = before[-1].tool_calls()[0].id.value
            for extra, words in (
                (["--result", "toolu_nope=x"], "toolu_nope: no unanswered call has this id (unanswered: get_weather"),
                (["--result", "no-equals-sign"], "expected CALL_ID=TEXT"),
                (["--result", f"{call_id}=a", "--error-result", f"{call_id}=b"], "answered twice"),
                (["--say", "hi"], "unanswered tool call"),
                (["--result", f"{call_id}=a", "--say", "-"], "standard input held no message"),
            ):
                with self.subTest(extra=extra):
                    status, _, err = self.turn(server, *extra)
                    self.assertEqual(status, 2, err)
                    self.assertIn(words, err)
            self.assertEqual(len(server.requests), 1)  # none of those was sent
            status, _, err = self.turn(server, "--error-result", f"{call_id}=the service is down", "--say", "hi")
            self.assertEqual(status, 1, err)  # the call failed before an answer streamed: nothing appended
            self.assertEqual(load_items(self.path), before)
            sent = json.loads(server.requests[1].body)["messages"][-2]["content"]
            self.assertEqual((sent[0]["type"], sent[0].get("is_error")), ("tool_result", True))

    def test_the_answer_starts_a_line_of_its_own(self) -> None:
        """A last line without its newline, whole or torn, is not run into by the appended items."""
        import warnings

        line = self.start[0].to_json()
        for name, tail in (("whole", line), ("torn", line + '\n{"kind": "User", "par')):
            with self.subTest(name):
                with open(self.path, "w", encoding="utf-8", newline="") as f:
                    f.write(tail)
                with Loopback([sse_reply(STREAM)]) as server, warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the torn line is dropped by the read and cut by the append
                    status, _, err = self.turn(server)
                self.assertEqual(status, 0, err)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    items = load_items(self.path)
                self.assertEqual(items, self.start + recorded.items("anthropic", "messages.text_tool_use.stream.jsonl"))

    def test_tools_with_optional_fields_left_out(self) -> None:
        tools = os.path.join(self.folder, "tools.json")
        schema = {"type": "object", "properties": {"location": {"type": "string"}}}
        native = {"type": "web_search_20250305", "name": "web_search", "max_uses": 1}
        with open(tools, "w", encoding="utf-8") as f:
            json.dump([{"name": "get_weather", "input_schema": schema}, {"name": "read", "input_schema": {}, "annotations": {"read_only_hint": True}},
                       native], f)
        with Loopback([sse_reply(STREAM)]) as server:
            status, _, err = self.turn(server, "--tools", tools)
            self.assertEqual(status, 0, err)
            body = json.loads(server.requests[0].body)
        specs = [ToolSpec("get_weather", "", schema), ToolSpec("read", "", {}, annotations=ToolAnnotations(read_only_hint=True))]
        self.assertEqual(body["tools"], anthropic.request_from_items([], tools=[*specs, native])["tools"])
        dump_items(self.start, self.path)
        with open(tools, "w", encoding="utf-8") as f:
            json.dump([{"name": "bad", "input_schema": {}, "annotations": {"read_only_hint": "yes"}}], f)
        with Loopback([]) as server:
            status, _, err = self.turn(server, "--tools", tools)
        self.assertEqual(status, 2)
        self.assertIn("[0]", err)
        self.assertIn("read_only_hint", err)


class ConsoleScriptTest(unittest.TestCase):
    def test_the_entry_point_resolves(self) -> None:
        """``[project.scripts]`` names ``agentkit-core``, and what it names is the command line's ``main``."""
        import importlib

        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
        scripts = dict(line.replace(" ", "").replace('"', "").split("=", 1) for line in section.strip().splitlines() if "=" in line)
        self.assertEqual(list(scripts), ["agentkit-core"])
        module, _, name = scripts["agentkit-core"].partition(":")
        main = getattr(importlib.import_module(module), name)
        from agentkit_core._cli import main as cli_main

        self.assertIs(main, cli_main)


if __name__ == "__main__":
    unittest.main()
