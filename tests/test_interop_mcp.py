"""agentkit_core.interop.mcp on the MCP SDK's dumps (``tests/interop/mcp.json``), with no library installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unittest

from agentkit_core import (
    CustomPart,
    FilePart,
    InlineBytes,
    InlineText,
    MediaPart,
    Modality,
    NormalizeError,
    PartsOutput,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolAnnotations,
    ToolOutput,
    ToolSpec,
    Uri,
)
from agentkit_core.interop import mcp
from tests.capability import needs_processes
from tests.interop_fixtures import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Tools(unittest.TestCase):
    def setUp(self) -> None:
        self.listing = load("mcp.json")["tools_list"]

    def test_a_listing_and_its_tools_list_read_alike(self) -> None:
        self.assertEqual(mcp.specs_from_tools(self.listing), mcp.specs_from_tools(self.listing["tools"]))

    def test_fields_and_hints(self) -> None:
        weather, delete, append, ping = mcp.specs_from_tools(self.listing)
        self.assertEqual((weather.name, weather.description), ("get_weather", "The weather in a city."))
        self.assertEqual(weather.input_schema["required"], ["city"])  # type: ignore[index]
        self.assertEqual(weather.output_schema, {"type": "object", "properties": {"celsius": {"type": "number"}}})
        self.assertEqual(weather.annotations, ToolAnnotations(read_only_hint=True))
        self.assertEqual(weather.metadata["mcp.title"], "Weather")
        self.assertEqual(weather.metadata["mcp.annotations"], {"title": "Weather now", "readOnlyHint": True, "openWorldHint": True})
        self.assertEqual(weather.metadata["mcp._meta"], {"example.com/owner": "weather-team"})
        self.assertEqual(weather.metadata["mcp.icons"][0]["src"], "https://example.com/sun.png")  # type: ignore[index]
        self.assertEqual(delete.annotations, ToolAnnotations(destructive_hint=True, idempotent_hint=True))
        self.assertEqual(append.annotations, ToolAnnotations())  # destructiveHint false said so
        self.assertEqual(ping.annotations, ToolAnnotations(destructive_hint=True))  # MCP's default: may destroy
        self.assertEqual(ping.metadata["mcp.execution"], {"taskSupport": "optional"})  # 2025-11-25's field, carried
        self.assertEqual(ping.description, "")

    def test_round_trip_is_exact(self) -> None:
        self.assertEqual(mcp.tools_from_specs(mcp.specs_from_tools(self.listing)), self.listing["tools"])

    def test_specs_of_this_package(self) -> None:
        spec = ToolSpec("rm", "Remove.", {"type": "object"}, annotations=ToolAnnotations(needs_approval_hint=True),
                        metadata={"team": "ops"})
        (tool,) = mcp.tools_from_specs([spec])
        self.assertEqual(tool, {"name": "rm", "description": "Remove.", "inputSchema": {"type": "object"},
                                "annotations": {"destructiveHint": False},
                                "_meta": {"agentkit/needs_approval_hint": True, "agentkit/metadata": {"team": "ops"}}})
        (again,) = mcp.specs_from_tools([tool])
        self.assertEqual(again.with_metadata(again.metadata.without("mcp.annotations")), spec)  # the native object kept
        (bare,) = mcp.tools_from_specs([ToolSpec("t")])
        self.assertEqual(bare["inputSchema"], {"type": "object", "properties": {}})

    def test_what_is_not_a_tool_list_is_named(self) -> None:
        cases = {
            "OpenAI Chat Completions request": {"model": "m", "messages": [], "tools": []},
            "JSON object with key 'name'": {"name": "x"},
        }
        for looks, value in cases.items():
            with self.subTest(looks):
                with self.assertRaises(NormalizeError) as caught:
                    mcp.specs_from_tools(value)
                self.assertIn(looks, str(caught.exception))
        with self.assertRaises(NormalizeError) as caught:
            mcp.specs_from_tools([{"name": "x", "input_schema": {}}])
        self.assertEqual(caught.exception.path, "[0]")
        self.assertIn("an MCP tool", caught.exception.message)
        with self.assertRaises(NormalizeError) as caught:
            mcp.specs_from_tools({"tools": [{"name": "x", "inputSchema": {}}, {"name": 5, "inputSchema": {}}]})
        self.assertEqual(caught.exception.path, "tools[1].name")
        with self.assertRaises(NormalizeError) as caught:
            mcp.specs_from_tools([{"name": "x"}])
        self.assertEqual((caught.exception.path, caught.exception.message), ("[0].inputSchema", "missing field"))
        with self.assertRaises(TypeError):
            mcp.tools_from_specs([{"name": "x"}])  # type: ignore[list-item]


class Results(unittest.TestCase):
    def setUp(self) -> None:
        self.results = load("mcp.json")["results"]

    def test_text(self) -> None:
        self.assertEqual(mcp.output_from_result(self.results["text"]), (TextOutput("It is 21 degrees."), False))
        self.assertEqual(mcp.output_from_result(self.results["error"]), (TextOutput("No such city."), True))

    def test_structured(self) -> None:
        self.assertEqual(mcp.output_from_result(self.results["structured"]), (StructuredOutput({"celsius": 21}), False))
        output, _ = mcp.output_from_result(self.results["structured_pretty"])  # other text beside it: both kept
        self.assertEqual(output, PartsOutput([TextPart(json.dumps({"celsius": 21}, indent=2)),
                                              StructuredPart({"celsius": 21}, metadata={"mcp.structuredContent": True})]))

    def test_every_block(self) -> None:
        output, is_error = mcp.output_from_result(self.results["mixed"])
        self.assertFalse(is_error)
        self.assertIsInstance(output, PartsOutput)
        text, image, audio, link, notes, blob, rest = output.parts
        self.assertEqual(text, TextPart("Here:", metadata={"mcp.annotations": {"audience": ["user"], "priority": 0.5}}))
        self.assertEqual(image, MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG\r\n\x1a\n")))
        self.assertEqual(audio, MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF"),
                                          metadata={"mcp._meta": {"example.com/seconds": 1}}))
        self.assertEqual(link, FilePart(Uri("file:///tmp/report.pdf"), name="report.pdf", mime_type="application/pdf",
                                        metadata={"mcp.type": "resource_link", "mcp.title": "Report",
                                                  "mcp.description": "The report", "mcp.size": 1024}))
        self.assertEqual(notes, FilePart(InlineText("# Notes"), mime_type="text/markdown", metadata={"mcp.uri": "file:///tmp/notes.md"}))
        self.assertEqual(blob.data, InlineBytes(b"\x00\x01\x02"))  # type: ignore[union-attr]
        self.assertEqual(rest, CustomPart("mcp.result", value={"_meta": {"example.com/trace": "abc"}}))

    def test_round_trip_is_exact(self) -> None:
        for name, result in self.results.items():
            with self.subTest(name):
                output, is_error = mcp.output_from_result(result)
                self.assertEqual(mcp.result_from_output(output, is_error=is_error), result)

    def test_outputs_of_this_package(self) -> None:
        self.assertEqual(mcp.result_from_output(ToolOutput.structured([1, 2])),
                         {"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": [1, 2], "isError": False,
                          "resultType": "complete"})
        written = mcp.result_from_output(PartsOutput([StructuredPart({"a": 1}), FilePart(InlineBytes(b"x"), name="a b.txt"),
                                                      MediaPart(Modality.IMAGE, "image/png", Uri("https://x/y.png"))]))
        self.assertEqual(written["content"], [
            {"type": "text", "text": '{"a": 1}'},
            {"type": "resource", "resource": {"uri": "file:///a%20b.txt", "blob": "eA=="}},
            {"type": "resource_link", "uri": "https://x/y.png", "name": "y.png", "mimeType": "image/png"},
        ])
        self.assertEqual(written["structuredContent"], {"a": 1})
        self.assertEqual(mcp.result_from_output(TextOutput("no"), is_error=True)["isError"], True)

    def test_what_mcp_cannot_hold_is_refused_by_path(self) -> None:
        from agentkit_core import ReasoningPart

        for output, path in (
            (PartsOutput([TextPart("a"), ReasoningPart("why")]), "parts[1]"),
            (PartsOutput([MediaPart(Modality.VIDEO, "video/mp4", InlineBytes(b"v"))]), "parts[0].modality"),
            (PartsOutput([CustomPart("anthropic.x", value={})]), "parts[0]"),
        ):
            with self.subTest(path):
                with self.assertRaises(NormalizeError) as caught:
                    mcp.result_from_output(output)
                self.assertEqual(caught.exception.path, path)

    def test_bad_results(self) -> None:
        for value, path in (
            ({"content": [{"type": "image", "data": "%%", "mimeType": "image/png"}]}, "content[0].data"),
            ({"content": [{"text": "x"}]}, "content[0].type"),
            ({"content": [{"type": {"k": "text"}, "text": "x"}]}, "content[0].type"),  # unhashable: no TypeError
            ({"content": [{"type": ["image"], "text": "x"}]}, "content[0].type"),
            ({"content": "x"}, "content"),
            ({"content": [], "isError": "yes"}, "isError"),
            ({"content": [{"type": "resource", "resource": {"uri": "u"}}]}, "content[0].resource"),
        ):
            with self.subTest(path):
                with self.assertRaises(NormalizeError) as caught:
                    mcp.output_from_result(value)
                self.assertEqual(caught.exception.path, path)
        with self.assertRaises(NormalizeError) as caught:
            mcp.output_from_result({"type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": None})
        self.assertIn("Anthropic", str(caught.exception))

    def test_a_block_of_a_later_revision_is_carried(self) -> None:
        block = {"type": "hologram", "data": "x"}
        output, _ = mcp.output_from_result({"content": [block]})
        self.assertEqual(output, PartsOutput([CustomPart("mcp.hologram", value=block)]))
        self.assertEqual(mcp.result_from_output(output)["content"], [block])


class SdkObjects(unittest.TestCase):
    def test_objects_read_by_model_dump(self) -> None:
        class Dumps:
            def __init__(self, d: dict) -> None:
                self.d = d

            def model_dump(self, **kw: object) -> dict:
                self.kw = kw
                return self.d

        listing = Dumps(load("mcp.json")["tools_list"])
        self.assertEqual(len(mcp.specs_from_tools(listing)), 4)
        self.assertEqual(listing.kw, {"by_alias": True, "exclude_none": True, "mode": "json"})
        self.assertEqual(mcp.output_from_result(Dumps({"content": [{"type": "text", "text": "a"}]}))[0], TextOutput("a"))


class Isolation(unittest.TestCase):
    @needs_processes
    def test_loaded_only_when_imported(self) -> None:
        script = (
            "import sys, agentkit_core\n"
            "if any(m.startswith('agentkit_core.interop') for m in sys.modules): raise AssertionError('loaded by the package')\n"
            "from agentkit_core.interop import langchain, mcp, pydantic_ai\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic', 'pydantic_ai', 'langchain_core')))\n"
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)


if __name__ == "__main__":
    unittest.main()
