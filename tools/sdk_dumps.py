"""Regenerate ``tests/sdk_payloads/``: recorded provider bodies as the official SDKs hold and dump them.

    python tools/sdk_dumps.py          # needs anthropic, openai and google-genai installed

For a few recordings of ``tests/payloads/`` per provider, builds the SDK's
own object from the body the way the SDK's client does (``construct_type``
for the ``anthropic`` and ``openai`` SDKs; google-genai's response converter
and ``_from_response``), then writes, per recording, every dump a user is
likely to hold: ``model_dump()`` with and without ``mode="json"``,
``exclude_none``, ``by_alias``, the ``exclude_unset`` dump the package asks an
object for, and ``to_dict()`` / ``to_json_dict()``.  Values JSON cannot hold
(``bytes`` and ``datetime`` of a Python-mode dump) are tagged
``{"$bytes": <base64>}`` and ``{"$datetime": <ISO text>}``.  The tests read
these files only, with stand-in objects replaying the recorded calls; they
never need an SDK.  Without the SDKs this prints what is missing and exits 0.
"""

from __future__ import annotations

import base64
import datetime
import enum
import json
import os
import sys
import warnings
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAYLOADS = os.path.join(ROOT, "tests", "payloads")
OUT = os.path.join(ROOT, "tests", "sdk_payloads")

#: Recordings dumped, per provider.
CHOSEN = {
    "anthropic": (
        "messages.citations.response.json",
        "messages.thinking_text_tool_use.response.json",
        "messages.text_tool_use.stream.jsonl",
        "messages.refusal.stream.jsonl",
        "messages.thinking_server_tool.stream.jsonl",
    ),
    "openai_chat": ("chat.tool_calls.response.json", "chat.audio_output.response.json", "chat.tool_call.stream.jsonl"),
    "openai_responses": ("responses.reasoning_function_call.response.json", "responses.function_call.stream.jsonl"),
    "gemini": (
        "generate_content.call_gemini_2_0.response.json",
        "generate_content.code_execution.response.json",
        "stream_generate_content.call_gemini_3.stream.jsonl",
    ),
}

#: The ``model_dump`` keyword arguments recorded, besides ``to_dict()`` / ``to_json_dict()``.
DUMPS: tuple[dict[str, Any], ...] = (
    {},
    {"mode": "json"},
    {"exclude_none": True},
    {"mode": "json", "exclude_none": True},
    {"by_alias": True},
    {"mode": "json", "by_alias": True},
    {"mode": "json", "by_alias": True, "exclude_none": True},
    {"exclude_unset": True, "by_alias": True, "mode": "json"},
)


def _builders() -> dict[str, Callable[[str, Any], Any]] | None:
    try:
        from anthropic._models import construct_type as anthropic_construct
        from anthropic.types import Message, RawMessageStreamEvent
        from google.genai import models as genai_models, types as genai_types
        from openai._models import construct_type as openai_construct
        from openai.types.chat import ChatCompletion, ChatCompletionChunk
        from openai.types.responses import Response, ResponseStreamEvent
    except ImportError as exc:
        print(f"sdk_dumps: skipped, an SDK is missing ({exc.name}); pip install anthropic openai google-genai")
        return None

    def gemini(kind: str, body: Any) -> Any:
        converted = genai_models._GenerateContentResponse_from_mldev(body)
        return genai_types.GenerateContentResponse._from_response(response=converted, kwargs={})

    return {
        "anthropic": lambda kind, body: anthropic_construct(type_=Message if kind == "response" else RawMessageStreamEvent, value=body),
        "openai_chat": lambda kind, body: openai_construct(type_=ChatCompletion if kind == "response" else ChatCompletionChunk, value=body),
        "openai_responses": lambda kind, body: openai_construct(type_=Response if kind == "response" else ResponseStreamEvent, value=body),
        "gemini": gemini,
    }


def tagged(value: Any) -> Any:
    """A Python-mode dump as JSON: bytes and datetimes tagged, enums as their values."""
    if isinstance(value, dict):
        return {k: tagged(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tagged(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, enum.Enum):
        return value.value
    return value


def calls(obj: Any) -> list[dict[str, Any]]:
    """Every recorded call on one SDK object and what it returned."""
    out = [{"call": "model_dump", "kwargs": kwargs, "value": tagged(obj.model_dump(**kwargs))} for kwargs in DUMPS]
    for name in ("to_dict", "to_json_dict"):
        if callable(getattr(obj, name, None)):
            out.append({"call": name, "kwargs": {}, "value": tagged(getattr(obj, name)())})
    return out


def main() -> int:
    builders = _builders()
    if builders is None:
        return 0
    warnings.simplefilter("ignore")  # pydantic warns on the unknown block types the recordings hold
    import anthropic
    import google.genai
    import openai

    versions = f"anthropic {anthropic.__version__}, openai {openai.__version__}, google-genai {google.genai.__version__}"
    for provider, names in CHOSEN.items():
        os.makedirs(os.path.join(OUT, provider), exist_ok=True)
        for name in names:
            with open(os.path.join(PAYLOADS, provider, name), encoding="utf-8") as f:
                if name.endswith(".jsonl"):
                    objects = [builders[provider]("event", json.loads(line)) for line in f if line.strip()]
                    recorded: Any = [calls(o) for o in objects]
                else:
                    recorded = calls(builders[provider]("response", json.load(f)))
            doc = {"source": f"{provider}/{name}", "sdks": versions, "calls": recorded}
            target = os.path.join(OUT, provider, name.rsplit(".", 2)[0] + (".stream.json" if name.endswith(".jsonl") else ".response.json"))
            with open(target, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
                f.write("\n")
            print(f"wrote {os.path.relpath(target, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
