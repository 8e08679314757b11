"""Check the Vertex AI requests against google-genai (``vertexai=True``) and the anthropic SDK's ``AnthropicVertex`` (offline).

    /work/venv/bin/python tools/compare_vertex.py   # needs google-genai, anthropic and httpx

Each SDK sends the same calls (a system prompt, a user turn, a tool, settings;
streamed and not; in a regional location, ``global`` and a multi-region) to
a stand-in transport that records the request and answers a canned body; the
package builds its request for the same call by name
(``agentkit_core.providers.http_request(model="vertex:<model>"...)``) and
the two URLs and JSON bodies must be equal, and the token sent as
``Authorization: Bearer``.  google-genai is asked for API version ``v1``
(its default on Vertex is ``v1beta1``) and given the system prompt as a ``Content`` (a string
becomes one with ``role: user``, which Vertex ignores there); its snake-case
``parameters_json_schema`` is read as ``parametersJsonSchema`` (proto3 JSON takes both); ``AnthropicVertex`` is given
``anthropic_version: vertex-2023-10-16`` (Vertex's documented value; the SDK
installed may default to another).  Without the SDKs it says what is missing and exits 0.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TOKEN = "ya29.compare-token"
PROJECT = "proj-1"
GEMINI_ANSWER = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
CLAUDE_ANSWER = {"id": "m", "type": "message", "role": "assistant", "model": "x", "content": [{"type": "text", "text": "hi"}],
                 "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}
LOCATIONS = ("us-central1", "global", "us", "europe-west4")


def main() -> int:
    try:
        import httpx
        import httpx2
        from anthropic import AnthropicVertex
        from google import genai
        from google.auth import credentials as google_credentials
        from google.genai import types
    except ImportError as exc:
        print(f"skipped: google-genai, anthropic and httpx are needed ({exc})")
        return 0
    from agentkit_core import Item, ItemKind, ModelSettings, ToolSpec
    from agentkit_core.providers import http_request

    class Token(google_credentials.Credentials):  # type: ignore[misc]
        def refresh(self, request: Any) -> None:
            self.token = TOKEN

        @property
        def expired(self) -> bool:
            return False

        @property
        def valid(self) -> bool:
            return True

    seen: list[tuple[str, str, dict[str, str], Any]] = []

    def recorder(answer: dict[str, Any], module: Any) -> Any:
        def handle(request: Any) -> Any:
            seen.append((request.method, str(request.url), dict(request.headers), json.loads(request.content)))
            if request.url.path.endswith(("streamGenerateContent", "streamRawPredict")):
                data = b"data: " + json.dumps(answer).encode() + b"\n\n" if "Generate" in request.url.path else _claude_stream()
                return module.Response(200, content=data, headers={"content-type": "text/event-stream"})
            return module.Response(200, json=answer)

        return handle

    items = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "What is the weather in Paris?")]
    tool = ToolSpec("get_weather", "The weather in a city.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    checked = 0
    for location in LOCATIONS:
        credentials = Token()
        credentials.token = TOKEN
        client = genai.Client(vertexai=True, project=PROJECT, location=location, credentials=credentials,
                              http_options=types.HttpOptions(api_version="v1", httpx_client=httpx.Client(transport=httpx.MockTransport(recorder(GEMINI_ANSWER, httpx)))))
        config = types.GenerateContentConfig(
            system_instruction=types.Content(parts=[types.Part(text="Be brief.")]), max_output_tokens=100, temperature=0.5,
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="get_weather", description="The weather in a city.",
                                                                               parameters_json_schema=tool.input_schema)])],
        )
        for stream in (False, True):
            seen.clear()
            if stream:
                list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="What is the weather in Paris?", config=config))
            else:
                client.models.generate_content(model="gemini-2.5-flash", contents="What is the weather in Paris?", config=config)
            ours = http_request(items, model="vertex:gemini-2.5-flash", api_key=TOKEN, project=PROJECT, location=location, stream=stream,
                                tools=[tool], settings=ModelSettings(max_tokens=100, temperature=0.5))
            checked += _same(f"vertex {location} stream={stream}", ours, seen[-1])

        claude = AnthropicVertex(region=location, project_id=PROJECT, access_token=TOKEN,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(recorder(CLAUDE_ANSWER, httpx2))))
        for stream in (False, True):
            seen.clear()
            arguments: dict[str, Any] = dict(
                model="claude-sonnet-4-5@20250929", max_tokens=100, stop_sequences=["END"], system=[{"type": "text", "text": "Be brief."}],
                messages=[{"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]}],
                tools=[{"name": "get_weather", "description": "The weather in a city.", "input_schema": tool.input_schema}],
                extra_body={"anthropic_version": "vertex-2023-10-16"},
            )
            if stream:
                with claude.messages.stream(**arguments) as events:
                    for _ in events:
                        pass
            else:
                claude.messages.create(**arguments)
            ours = http_request(items, model="vertex-anthropic:claude-sonnet-4-5@20250929", api_key=TOKEN, project=PROJECT, location=location,
                                stream=stream, tools=[tool], settings=ModelSettings(max_tokens=100, stop=("END",)))
            checked += _same(f"vertex-anthropic {location} stream={stream}", ours, seen[-1])
    print(f"ok: {checked} requests equal to the SDKs' (URL, JSON body, Bearer token)")
    return 0


def _claude_stream() -> bytes:
    events = [
        ("message_start", {"type": "message_start", "message": {**CLAUDE_ANSWER, "content": [], "stop_reason": None}}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def _camel(value: Any) -> Any:
    """google-genai on Vertex writes ``parameters_json_schema`` in snake case; Vertex's JSON reader takes either
    spelling (proto3 JSON): compared as the package writes it, ``parametersJsonSchema``."""
    if isinstance(value, list):
        return [_camel(v) for v in value]
    if isinstance(value, dict):
        return {("parametersJsonSchema" if k == "parameters_json_schema" else k): _camel(v) for k, v in value.items()}
    return value


def _same(what: str, ours: Any, theirs: tuple[str, str, dict[str, str], Any]) -> int:
    method, url, headers, body = theirs
    problems = []
    if (ours.method, ours.url) != (method, url):
        problems.append(f"URL: ours {ours.url}\n   theirs {url}")
    if json.loads(ours.body) != _camel(body):
        problems.append(f"body: ours {json.loads(ours.body)}\n    theirs {body}")
    if ours.header("authorization") != headers.get("authorization") != None:  # noqa: E711
        problems.append("the Bearer token differs")
    if problems:
        raise SystemExit(f"{what}: differs from the SDK's\n" + "\n".join(problems))
    return 1


if __name__ == "__main__":
    sys.exit(main())
