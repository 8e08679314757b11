"""Write the interop fixtures in ``tests/interop/`` with the real libraries (mcp, pydantic-ai-slim, langchain-core).

    /work/venv/bin/python tools/interop_fixtures.py

Each fixture is what the library itself dumps (``model_dump(by_alias=True,
exclude_none=True, mode="json")`` for MCP, ``ModelMessagesTypeAdapter.dump_python(mode="json")``
for pydantic-ai, ``messages_to_dict`` for LangChain) of objects built with the
library's own types, so the plain suite checks the mappings on exactly the
shapes the libraries give, with no library installed.  Run it again after a
library changes its shapes, and review the diff.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import warnings

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "interop")
T0 = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
PNG = b"\x89PNG\r\n\x1a\n"


def mcp_fixtures() -> dict[str, object]:
    import mcp.types as t

    tools = t.ListToolsResult(tools=[
        t.Tool(name="get_weather", title="Weather", description="The weather in a city.",
               input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
               output_schema={"type": "object", "properties": {"celsius": {"type": "number"}}},
               annotations=t.ToolAnnotations(title="Weather now", read_only_hint=True, open_world_hint=True),
               icons=[t.Icon(src="https://example.com/sun.png", mime_type="image/png", sizes=["48x48"])],
               _meta={"example.com/owner": "weather-team"}),
        t.Tool(name="delete_file", description="Delete a file.",
               input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
               annotations=t.ToolAnnotations(destructive_hint=True, idempotent_hint=True)),
        t.Tool(name="append_note", input_schema={"type": "object"},
               annotations=t.ToolAnnotations(read_only_hint=False, destructive_hint=False)),
        t.Tool(name="ping", input_schema={"type": "object"}, execution=t.ToolExecution(task_support="optional")),
    ])
    dump = lambda v: v.model_dump(by_alias=True, exclude_none=True, mode="json")  # noqa: E731
    results = {
        "text": t.CallToolResult(content=[t.TextContent(text="It is 21 degrees.")]),
        "structured": t.CallToolResult(content=[t.TextContent(text=json.dumps({"celsius": 21}))],
                                       structured_content={"celsius": 21}),
        "structured_pretty": t.CallToolResult(content=[t.TextContent(text=json.dumps({"celsius": 21}, indent=2))],
                                              structured_content={"celsius": 21}),
        "mixed": t.CallToolResult(
            content=[
                t.TextContent(text="Here:", annotations=t.Annotations(audience=["user"], priority=0.5)),
                t.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
                t.AudioContent(data="UklGRg==", mime_type="audio/wav", _meta={"example.com/seconds": 1}),
                t.ResourceLink(uri="file:///tmp/report.pdf", name="report.pdf", title="Report", description="The report",
                               mime_type="application/pdf", size=1024),
                t.EmbeddedResource(resource=t.TextResourceContents(uri="file:///tmp/notes.md", mime_type="text/markdown",
                                                                   text="# Notes")),
                t.EmbeddedResource(resource=t.BlobResourceContents(uri="file:///tmp/a.bin", blob="AAEC",
                                                                   mime_type="application/octet-stream")),
            ],
            _meta={"example.com/trace": "abc"},
        ),
        "error": t.CallToolResult(content=[t.TextContent(text="No such city.")], is_error=True),
    }
    return {"tools_list": dump(tools), "results": {k: dump(v) for k, v in results.items()}}


def pydantic_ai_fixture() -> list[object]:
    from pydantic_ai import messages as m
    from pydantic_ai.usage import RequestUsage

    history = [
        m.ModelRequest(parts=[
            m.SystemPromptPart(content="Be brief.", timestamp=T0),
            m.UserPromptPart(content="What is the weather in Paris?", timestamp=T0),
        ], instructions="Answer in English."),
        m.ModelResponse(parts=[
            m.ThinkingPart(content="The user wants the weather.", signature="c2lnbmF0dXJl", provider_name="anthropic"),
            m.TextPart(content="Let me look."),
            m.ToolCallPart(tool_name="get_weather", args={"city": "Paris"}, tool_call_id="call_1"),
            m.ToolCallPart(tool_name="get_time", args='{"zone": "CET"}', tool_call_id="call_2"),
        ], usage=RequestUsage(input_tokens=50, output_tokens=20, cache_read_tokens=10, output_reasoning_tokens=5),
            model_name="claude-sonnet-4-5", timestamp=T0, provider_name="anthropic", provider_response_id="msg_1",
            finish_reason="tool_call"),
        m.ModelRequest(parts=[
            m.ToolReturnPart(tool_name="get_weather", content={"celsius": 21}, tool_call_id="call_1", timestamp=T0),
            m.ToolReturnPart(tool_name="get_time", content="unknown zone", tool_call_id="call_2", timestamp=T0,
                             outcome="failed"),
        ]),
        m.ModelResponse(parts=[m.ToolCallPart(tool_name="get_time", args='{"zone": ', tool_call_id="call_3")],
                        model_name="claude-sonnet-4-5", timestamp=T0, finish_reason="tool_call"),
        m.ModelRequest(parts=[m.RetryPromptPart(content="invalid JSON", tool_name="get_time", tool_call_id="call_3",
                                                timestamp=T0)]),
        m.ModelResponse(parts=[m.TextPart(content="It is 21 degrees in Paris.")], model_name="claude-sonnet-4-5",
                        timestamp=T0, finish_reason="stop", usage=RequestUsage(input_tokens=80, output_tokens=9)),
        m.ModelRequest(parts=[m.UserPromptPart(content=[
            "And these?",
            m.ImageUrl(url="https://example.com/a.png"),
            m.AudioUrl(url="https://example.com/a.mp3"),
            m.VideoUrl(url="https://example.com/a.mp4"),
            m.DocumentUrl(url="https://example.com/a.pdf"),
            m.BinaryContent(data=PNG, media_type="image/png"),
            m.BinaryContent(data=b"%PDF-1.7", media_type="application/pdf"),
        ], timestamp=T0)]),
        m.ModelResponse(parts=[m.TextPart(content="A sun, a song, a clip and a page.")], timestamp=T0,
                        finish_reason="length"),
        m.ModelRequest(parts=[m.RetryPromptPart(content="Please answer in one word.", tool_name=None, timestamp=T0)]),
        m.ModelResponse(parts=[m.TextPart(content="Sunny.")], timestamp=T0),
    ]
    return m.ModelMessagesTypeAdapter.dump_python(history, mode="json")


def langchain_fixture() -> list[object]:
    from langchain_core import messages as m

    history = [
        m.SystemMessage("Be brief."),
        m.SystemMessage("Use metric units.", additional_kwargs={"__openai_role__": "developer"}),
        m.HumanMessage(content=[
            {"type": "text", "text": "What is this?"},
            {"type": "image", "url": "https://example.com/a.png"},
            {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
            {"type": "file", "url": "https://example.com/a.pdf", "mime_type": "application/pdf"},
            {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"},
            {"type": "text-plain", "text": "notes", "mime_type": "text/plain"},
        ], name="ada", id="human-1"),
        m.AIMessage(
            content=[{"type": "reasoning", "reasoning": "A picture.", "extras": {"signature": "c2ln"}},
                     {"type": "text", "text": "Let me check.", "annotations": []}],
            tool_calls=[{"name": "lookup", "args": {"q": "picture"}, "id": "call_1"}],
            invalid_tool_calls=[{"name": "lookup", "args": "{oops", "id": "call_2", "error": "bad JSON"}],
            usage_metadata={"input_tokens": 50, "output_tokens": 20, "total_tokens": 70,
                            "input_token_details": {"cache_read": 10}, "output_token_details": {"reasoning": 5}},
            response_metadata={"model_name": "gpt-5", "finish_reason": "tool_calls"},
            id="ai-1",
        ),
        m.ToolMessage("A sunset.", tool_call_id="call_1", name="lookup", artifact={"raw": [1, 2]}),
        m.ToolMessage("bad JSON", tool_call_id="call_2", status="error"),
        m.AIMessage(content=[{"type": "thinking", "thinking": "Done.", "signature": "c2ln"}, "A sunset."],
                    response_metadata={"stop_reason": "end_turn"}),
        m.ChatMessage(content="Looks right.", role="critic"),
        m.FunctionMessage(content="42", name="answer"),
        m.AIMessage("Bye."),
    ]
    return m.messages_to_dict(history)


def main() -> int:
    warnings.simplefilter("ignore")
    os.makedirs(OUT, exist_ok=True)
    for name, make in (("mcp.json", mcp_fixtures), ("pydantic_ai.json", pydantic_ai_fixture),
                       ("langchain.json", langchain_fixture)):
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            json.dump(make(), f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("wrote", os.path.join("tests", "interop", name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
