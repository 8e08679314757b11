"""The OpenAI Responses request's fast path (providers/openai_responses/_fast.py) writes what its general path writes.

The fast path regroups parts as the general path does and takes what a request's and a response's items carry: message
parts with their item's ``openai.*`` fields and their entry's ``openai.part.*`` fields, reasoning this API owns with its
item's id and status and its entry's type, calls with their item's id and status.  Seeded random items of those shapes
and their near misses (another owner, odd values, the markers of odd reasoning entries, custom calls and parts) are
folded three ways, the fast path in one pass, item by item and the general path alone, and compared as text (so the
order of the keys counts), errors included.
"""

from __future__ import annotations

import glob
import json
import os
import random
import unittest
from typing import Any

from agentkit_core import (
    ArtifactId,
    CustomPart,
    FilePart,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    NormalizeError,
    ReasoningPart,
    StructuredPart,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)
from agentkit_core.providers import openai_responses
from agentkit_core.providers._common import reuse
from tests.capability import needs_fast_paths

Build = openai_responses._request.Build
Slow = type("Slow", (Build,), {"fast": False, "__slots__": ()})
OneByOne = type("OneByOne", (Build,), {"add_all": None, "__slots__": ()})  # fresh() falls back to add, item by item
PAYLOADS = os.path.join(os.path.dirname(__file__), "payloads", "openai_responses")

ITEM_MD: tuple[dict[str, Any], ...] = (
    {}, {}, {}, {}, {"openai.id": "resp_1", "openai.model": "gpt"}, {"agentkit.note": 1},
    {"openai.request_field": "instructions"}, {"openai.request_field": "input"}, {"openai.request_field": "other"},
)
FOREIGN: tuple[dict[str, Any], ...] = ({}, {}, {}, {"agentkit.note": "n"}, {"anthropic.cache_control": {"type": "ephemeral"}},
                                       {"openai.chat.type": "text"})
IDS = ("msg_1", "msg_1", "msg_2")
MESSAGE_MD = FOREIGN + (
    {"openai.part.type": "input_text"}, {"openai.part.type": "output_text"}, {"openai.part.type": "refusal"},
    {"openai.id": "msg_1"}, {"openai.id": "msg_2", "openai.status": "completed"},
    {"openai.id": "msg_1", "openai.status": "completed", "openai.type": "message", "openai.part.type": "output_text",
     "openai.part.annotations": [], "openai.part.logprobs": [{"t": 1}]},
    {"openai.id": "msg_1", "openai.phase": "final_answer", "openai.part.type": "output_text"},
    {"openai.role": "developer"}, {"openai.role": "assistant", "openai.id": "msg_1"}, {"openai.role": {"odd": 1}},
    {"openai.id": 5}, {"openai.id": None}, {"openai.part.x.y": 1}, {"openai.part.type": 3}, {"agentkit.provider": "openai"},
    {"openai.part.detail": "low", "openai.part.type": "input_image"}, {"openai.part.detail": {"x": [1]}}, {"openai.part.detail": None}, {"openai.part.detail": ""},
    {"openai.part.detail": "high"}, {"openai.part.type": "input_file"}, {"openai.part.type": "input_file", "agentkit.provider": "gemini"},
)
REASONING_MD: tuple[dict[str, Any], ...] = (
    {}, {"agentkit.note": "n"}, {"anthropic.signature": "s"}, {"agentkit.provider": "anthropic"},
    {"agentkit.provider": "openai"}, {"openai.id": "rs_1"}, {"openai.status": "incomplete"},
    {"agentkit.provider": "openai", "openai.id": "rs_1", "openai.part.type": "summary_text"},
    {"agentkit.provider": "openai", "openai.id": "rs_1", "openai.part.type": "summary_text"},
    {"agentkit.provider": "openai", "openai.id": "rs_1", "openai.part.type": "reasoning_text"},
    {"agentkit.provider": "openai", "openai.id": "rs_2"}, {"agentkit.provider": "openai", "openai.id": "rs_1", "openai.status": "incomplete"},
    {"agentkit.provider": "openai", "openai.part.type": "other_text"}, {"agentkit.provider": "anthropic", "openai.id": "rs_1"},
    {"agentkit.provider": "openai", "openai.entry.of": "content"}, {"agentkit.provider": "openai", "openai.entry.raw": {"x": 1}},
    {"agentkit.provider": "openai", "openai.entry.no_summary": True}, {"agentkit.provider": "openai", "openai.part.type": 3},
    {"agentkit.provider": "openai", "openai.id": 7}, {"agentkit.provider": "openai", "openai.status": ["x"]},
    {"agentkit.provider": "openai", "openai.part.extra": 1}, {"agentkit.provider": "openai", "openai.summary": []},
    {"openai.chat.reasoning_field": "reasoning"}, {"agentkit.provider": "openai", "agentkit.note": 1, "openai.id": "rs_1"},
)
CALL_MD: tuple[dict[str, Any], ...] = FOREIGN + (
    {"openai.id": "fc_1"}, {"openai.id": "fc_1", "openai.status": "completed"}, {"openai.status": "in_progress"},
    {"openai.id": "fc_1", "agentkit.input_json": "{cut"}, {"agentkit.input_json": 5}, {"openai.type": "custom_tool_call"},
    {"openai.type": "custom_tool_call", "openai.id": "ctc_1"}, {"openai.type": "function_call"}, {"openai.arguments": "{ }"},
    {"openai.id": 3}, {"openai.call_id": "other"}, {"gemini.thought_signature": "c2ln", "agentkit.provider": "gemini"},
    {"openai.id": "fc_1", "agentkit.note": 1},
)
RESULT_MD: tuple[dict[str, Any], ...] = FOREIGN + (
    {"agentkit.tool_name": "read"}, {"agentkit.tool_name": "read", "agentkit.invented_id": True},
    {"openai.type": "custom_tool_call_output"}, {"openai.type": "function_call_output"}, {"openai.id": "fco_1"},
    {"openai.status": "completed"}, {"agentkit.provider": "openai"},
)
DATAS = (InlineBytes(b"\x00data"), InlineText("cG5n"), InlineText("plain text"), Uri("https://example.com/x"),
         Uri("data:application/pdf;base64,JVBE"), Handle(ArtifactId("file-1")))
INPUTS: tuple[Any, ...] = ({}, {"path": "a.py"}, None, [1], "text", {"n": {"x": [1.5]}})


def random_entry(rng: random.Random) -> Any:
    """A message part: a text, media, a file or a structure, with a request's or a response's fields, or near misses."""
    pick, md = rng.random(), dict(rng.choice(MESSAGE_MD))
    if rng.random() < 0.3 and "openai.id" not in md:
        md["openai.id"] = rng.choice(IDS)
    if pick < 0.5:
        return TextPart(rng.choice(["text", "", "é\u2028"]), metadata=md)
    if pick < 0.7:
        return MediaPart(Modality.IMAGE, rng.choice(["image/png", "image/jpeg"]), rng.choice(DATAS), metadata=md)
    if pick < 0.8:
        data = rng.choice(DATAS[:4])
        return MediaPart(rng.choice([Modality.AUDIO, Modality.VIDEO]), rng.choice(["audio/wav", "audio/mpeg", "audio/x-odd", "video/mp4"]),
                         data, metadata=md)
    if pick < 0.95:
        return FilePart(rng.choice(DATAS), name=rng.choice([None, "a.pdf"]),
                        mime_type=rng.choice([None, "application/pdf", "text/plain"]), metadata=md)
    return StructuredPart(rng.choice([{"a": 1}, [1, 2], "s"]), metadata=md)


def random_part(rng: random.Random, kind: ItemKind, n: int, calls: list[ToolCallId]) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return random_entry(rng)
    if pick < 0.55:
        data = rng.choice([None, None, InlineText("gAAAA-enc"), InlineBytes(b"enc"), Uri("https://example.com/r")])
        return ReasoningPart(rng.choice(["a summary", None, ""]), data=data, metadata=rng.choice(REASONING_MD))
    if pick < 0.7 and (kind is ItemKind.ASSISTANT or rng.random() < 0.2):
        call = ToolCallId(f"call_{n}_{rng.randrange(99)}")
        calls.append(call)
        return ToolCallPart(call, "read", rng.choice(INPUTS), metadata=rng.choice(CALL_MD))
    if pick < 0.85 and calls:
        call = calls.pop(rng.randrange(len(calls))) if rng.random() < 0.8 else ToolCallId("unknown")
        output = rng.choice([ToolOutput.text("ok"), ToolOutput.text(""), ToolOutput.structured({"k": 1}),
                             ToolOutput.parts([TextPart("p"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"i"),
                                                                        metadata={"openai.part.detail": "auto"})]),
                             ToolOutput.files([FilePart(InlineBytes(b"%PDF"), mime_type="application/pdf")])])
        return ToolResultPart(call, output, is_error=rng.random() < 0.2, metadata=rng.choice(RESULT_MD))
    if pick < 0.95:
        return random_entry(rng)
    return rng.choice([CustomPart("openai.web_search_call", value={"type": "web_search_call", "id": "ws_1"}),
                       CustomPart("openai.item_reference", value=None), CustomPart("anthropic.x", value={"type": "x"}),
                       CustomPart("openai.x", value={"type": "x"}, metadata={"openai.part.type": "x"})])


def random_items(rng: random.Random, length: int) -> list[Item]:
    items: list[Item] = []
    calls: list[ToolCallId] = []
    kinds = [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.ASSISTANT, ItemKind.TOOL] + list(ItemKind)
    for n in range(length):
        kind = rng.choice(kinds)
        parts = [random_part(rng, kind, n, calls) for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))]
        items.append(Item(kind, parts, metadata=rng.choice(ITEM_MD)))
    return items


def outcome(build: Any, items: list[Item]) -> str:
    try:
        return json.dumps(reuse.fresh(build(), items))
    except NormalizeError as exc:
        return f"NormalizeError {exc}"


def watched() -> tuple[type, list[int]]:
    """A build that notes the index of each item its fast path hands to the general path."""
    calls: list[int] = []

    class Watched(Build):  # type: ignore[misc,valid-type]
        __slots__ = ()

        def add_general(self, n: int, item: Item) -> None:
            calls.append(n)
            super().add_general(n, item)

    return Watched, calls


class ResponsesFastPathTest(unittest.TestCase):
    def test_the_fast_path_writes_what_the_general_path_writes(self) -> None:
        rng = random.Random(2727)
        for round_ in range(1500):
            items = random_items(rng, rng.randrange(1, 8))
            with self.subTest(round=round_):
                slow = outcome(Slow, items)
                self.assertEqual(outcome(Build, items), slow)
                self.assertEqual(outcome(OneByOne, items), slow)

    def test_the_public_function_writes_what_the_general_path_writes(self) -> None:
        rng = random.Random(2728)
        for round_ in range(200):
            items = random_items(rng, rng.randrange(0, 6))
            with self.subTest(round=round_):
                self.assertEqual(json.dumps(openai_responses.request_from_items(items)), outcome(Slow, items))

    @needs_fast_paths

    def test_the_recorded_requests_take_the_fast_path(self) -> None:
        """Every item of the recorded requests but the one holding ``instructions`` (a field of the body, not an input item)."""
        paths = sorted(glob.glob(os.path.join(PAYLOADS, "*.request.json")))
        self.assertGreater(len(paths), 3)
        for path in paths:
            with open(path, encoding="utf-8") as f:
                items = openai_responses.items_from_request(json.load(f))
            build, calls = watched()
            with self.subTest(path=os.path.basename(path)):
                self.assertEqual(outcome(build, items), outcome(Slow, items))
                self.assertEqual(calls, [n for n, item in enumerate(items) if "openai.request_field" in item.metadata])

    @needs_fast_paths

    def test_the_recorded_answers_take_the_fast_path(self) -> None:
        """A response's reasoning (its encrypted content, summaries, status), messages (id, status, phase, annotations)
        and calls (id, status), sent back: no general path (custom tool calls and hosted tools' items aside)."""
        names = ("function_call_output", "incomplete_max_output_tokens", "prompt_cache_hit", "reasoning_function_call")
        for name in names:
            with open(os.path.join(PAYLOADS, f"responses.{name}.response.json"), encoding="utf-8") as f:
                answer = openai_responses.items_from_response(json.load(f))
            items = [Item(ItemKind.USER, [TextPart("go")]), *answer]
            build, calls = watched()
            with self.subTest(name=name):
                self.assertEqual(outcome(build, items), outcome(Slow, items))
                self.assertEqual(calls, [])


if __name__ == "__main__":
    unittest.main()
