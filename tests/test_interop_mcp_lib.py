"""agentkit_core.interop.mcp against the ``mcp`` SDK, where it is installed (no dependency: skips otherwise).

Tools and results built with the SDK's own types convert to specs and outputs
and back; what comes back validates as the SDK's types (and as the wire
models of the current revision and the one before) and equals what went in.
"""

from __future__ import annotations

import unittest
from typing import Any

from agentkit_core import FilePart, PartsOutput, ToolAnnotations, ToolSpec
from agentkit_core.interop import mcp
from tests.capability import needs_library

try:
    import mcp.types as t
except ImportError:  # pragma: no cover - depends on the environment
    t = None


def dump(value: Any) -> Any:
    return value.model_dump(by_alias=True, exclude_none=True, mode="json")


@needs_library("mcp", "mcp.types")
class WithTheSdk(unittest.TestCase):
    def tools(self) -> Any:
        return t.ListToolsResult(tools=[
            t.Tool(name="get_weather", title="Weather", description="The weather.",
                   input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
                   output_schema={"type": "object"}, icons=[t.Icon(src="https://example.com/a.png")],
                   annotations=t.ToolAnnotations(read_only_hint=True, open_world_hint=False), _meta={"example.com/k": 1}),
            t.Tool(name="rm", input_schema={"type": "object"}, annotations=t.ToolAnnotations(destructive_hint=True)),
            t.Tool(name="plain", input_schema={"type": "object"}),
        ])

    def test_tools_round_trip_through_the_sdk(self) -> None:
        listing = self.tools()
        specs = mcp.specs_from_tools(listing)
        self.assertEqual(specs, mcp.specs_from_tools(listing.tools))  # the result or its list, objects or dumps
        self.assertEqual(specs, mcp.specs_from_tools(dump(listing)))
        self.assertEqual(specs[0].annotations, ToolAnnotations(read_only_hint=True))
        back = [t.Tool.model_validate(d) for d in mcp.tools_from_specs(specs)]
        self.assertEqual(back, listing.tools)

    def test_specs_validate_as_each_revision_s_wire_model(self) -> None:
        from mcp_types import _v2025_11_25 as previous, _v2026_07_28 as current

        specs = [*mcp.specs_from_tools(self.tools()),
                 ToolSpec("mine", "Mine.", {"type": "object"}, annotations=ToolAnnotations(needs_approval_hint=True),
                          metadata={"team": "ops"})]
        for tool in mcp.tools_from_specs(specs):
            with self.subTest(tool["name"]):
                for revision in (current, previous):
                    self.assertEqual(revision.Tool.model_validate(tool).name, tool["name"])
        self.assertEqual(mcp.specs_from_tools(mcp.tools_from_specs(specs))[3], specs[3].with_metadata(
            {**specs[3].metadata, "mcp.annotations": {"destructiveHint": False}}))

    def test_results_round_trip_through_the_sdk(self) -> None:
        results = [
            t.CallToolResult(content=[t.TextContent(text="21 degrees")]),
            t.CallToolResult(content=[t.TextContent(text='{"c": 21}')], structured_content={"c": 21}),
            t.CallToolResult(content=[
                t.TextContent(text="see", annotations=t.Annotations(priority=1.0)),
                t.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
                t.AudioContent(data="UklGRg==", mime_type="audio/wav"),
                t.ResourceLink(uri="file:///r.pdf", name="r.pdf", mime_type="application/pdf", size=10),
                t.EmbeddedResource(resource=t.TextResourceContents(uri="file:///n.md", text="# n", mime_type="text/markdown")),
                t.EmbeddedResource(resource=t.BlobResourceContents(uri="file:///b", blob="AAEC")),
            ], structured_content={"ok": True}, _meta={"example.com/t": "x"}, is_error=True),
        ]
        from mcp_types import _v2026_07_28 as current

        for n, result in enumerate(results):
            with self.subTest(n):
                output, is_error = mcp.output_from_result(result)
                self.assertEqual(is_error, result.is_error)
                self.assertEqual(mcp.output_from_result(dump(result)), (output, is_error))
                written = mcp.result_from_output(output, is_error=is_error)
                self.assertEqual(t.CallToolResult.model_validate(written), result)
                current.CallToolResult.model_validate(written)
        output, _ = mcp.output_from_result(results[2])
        self.assertIsInstance(output, PartsOutput)
        self.assertEqual(sum(isinstance(p, FilePart) for p in output.parts), 3)  # type: ignore[union-attr]


if __name__ == "__main__":
    unittest.main()
