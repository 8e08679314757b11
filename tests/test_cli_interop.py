"""``convert --from/--to mcp-tools|pydantic-ai|langchain`` and ``turn --tools`` with MCP tools, in process."""

from __future__ import annotations

import json
import os
import tempfile
import unittest

import agentkit_core as ak
from agentkit_core.interop import langchain, mcp, pydantic_ai
from tests.interop_fixtures import HERE, load
from tests.test_cli_reading import run

PYDANTIC_AI = os.path.join(HERE, "pydantic_ai.json")
LANGCHAIN = os.path.join(HERE, "langchain.json")


class Convert(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def file(self, name: str, value: object) -> str:
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(value if isinstance(value, str) else json.dumps(value))
        return path

    def test_histories_to_items(self) -> None:
        for flag, path, module in (("pydantic-ai", PYDANTIC_AI, pydantic_ai), ("langchain", LANGCHAIN, langchain)):
            with self.subTest(flag):
                status, out, err = run("convert", "--from", flag, path)
                self.assertEqual((status, err), (0, ""))
                items = [ak.Item.from_json(line) for line in out.splitlines()]
                self.assertEqual(items, module.items_from_messages(load(os.path.basename(path))))

    def test_one_library_to_another(self) -> None:
        status, out, err = run("convert", "--from", "pydantic-ai", "--to", "langchain", PYDANTIC_AI)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out), langchain.messages_from_items(pydantic_ai.items_from_messages(load("pydantic_ai.json"))))

    def test_a_transcript_to_a_library(self) -> None:
        items = langchain.items_from_messages(load("langchain.json"))
        transcript = self.file("t.jsonl", "".join(i.to_json() + "\n" for i in items))
        status, out, err = run("convert", "--to", "langchain", transcript)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out), load("langchain.json"))

    def test_mcp_tools_both_ways(self) -> None:
        listing = self.file("tools.json", load("mcp.json")["tools_list"])
        status, out, err = run("convert", "--from", "mcp-tools", listing)
        self.assertEqual((status, err), (0, ""))
        specs = [ak.ToolSpec.from_json(line) for line in out.splitlines()]
        self.assertEqual(specs, mcp.specs_from_tools(load("mcp.json")["tools_list"]))
        status, out, err = run("convert", "--to", "mcp-tools", self.file("specs.jsonl", out))
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out), load("mcp.json")["tools_list"]["tools"])

    def test_another_library_s_file_is_named(self) -> None:
        status, out, err = run("convert", "--from", "langchain", PYDANTIC_AI)
        self.assertEqual((status, out), (1, ""))
        self.assertIn("found a pydantic-ai message", err)
        status, out, err = run("convert", "--from", "mcp-tools", "--to", "langchain", PYDANTIC_AI)
        self.assertEqual((status, out), (1, ""))
        self.assertIn("tools convert to agentkit or mcp-tools", err)

    def test_a_file_that_is_not_items_is_named_with_the_flag_that_reads_it(self) -> None:
        chat = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]}
        cases = [
            (("--to", "langchain"), LANGCHAIN, "[0]: expected an agentkit item, found a LangChain message dict (--from langchain)"),
            (("--to", "langchain"), PYDANTIC_AI, "[0]: expected an agentkit item, found a pydantic-ai message (--from pydantic-ai)"),
            (("--to", "pydantic-ai"), self.file("chat.json", chat),
             "[0]: expected an agentkit item, found an OpenAI Chat Completions request (--from openai-chat)"),
            (("--to", "mcp-tools"), self.file("tools.json", load("mcp.json")["tools_list"]["tools"]),
             "[0]: expected a tool spec, found an MCP tool (--from mcp-tools)"),
            (("--to", "langchain"), self.file("item.json", {"kind": "User", "parts": []}), "[0].metadata: missing field"),
        ]
        for flags, path, words in cases:
            with self.subTest(words):
                status, out, err = run("convert", *flags, path)
                self.assertEqual(status, 1)
                self.assertEqual(err.strip(), f"{path}: {words}")

    def test_a_file_with_no_json_in_it_is_refused_saying_what_it_is(self) -> None:
        binary = os.path.join(self.dir.name, "b.bin")
        with open(binary, "wb") as f:
            f.write(b"\x00\x01\x02\x03 not text")
        events = self.file("s.txt", 'event: message_start\ndata: {"type": "message_start"}\n\n')
        empty = self.file("e.json", "")
        cases = [
            (("--from", "langchain"), binary, "not LangChain messages: binary data"),
            (("--from", "pydantic-ai"), events, "not a pydantic-ai message history: server-sent events (text/event-stream)"),
            (("--from", "mcp-tools"), empty, "not MCP tools: the file is empty"),
            (("--to", "langchain"), binary, "not a transcript: binary data"),
            (("--to", "mcp-tools"), empty, "not tool specs: the file is empty"),
        ]
        for flags, path, words in cases:
            with self.subTest(flags=flags, path=path):
                status, out, err = run("convert", *flags, path)
                self.assertEqual(status, 1)  # was 0, with nothing said
                self.assertEqual(err.strip().split(" of ")[0], f"{path}: {words}")


class TurnTools(unittest.TestCase):
    def test_an_mcp_tool_list_is_read_as_mcp(self) -> None:
        from agentkit_core._cli.turn import _tools

        with tempfile.TemporaryDirectory() as folder:
            for name, value in (("listing.json", load("mcp.json")["tools_list"]), ("tools.json", load("mcp.json")["tools_list"]["tools"])):
                path = os.path.join(folder, name)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(value, f)
                with self.subTest(name):
                    tools = _tools(path)
                    self.assertEqual(tools, mcp.specs_from_tools(load("mcp.json")["tools_list"]))
                    from agentkit_core.providers import anthropic

                    sent = anthropic.request_from_items([], tools=tools)["tools"]
                    self.assertEqual(sent[0]["input_schema"]["required"], ["city"])
                    self.assertNotIn("inputSchema", sent[0])


if __name__ == "__main__":
    unittest.main()
