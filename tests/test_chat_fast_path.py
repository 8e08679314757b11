"""OpenAI Chat's request fast path (providers/openai_chat/_fast.py) writes what its general path writes.

The fast path takes values that carry none of Chat's own ``openai.chat.*`` keys, and a few that carry the markers
a request's message leaves (``no_content``, a call's ``no_arguments`` and ``no_type``, an answer's audio by id, an
image's ``detail``); every other part of a user's message goes through the general path's entry.  Seeded random
items of those shapes and their near misses are folded both ways, fresh and item by item, and compared as text
(so the order of the keys counts), errors included.
"""

from __future__ import annotations

import json
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
from agentkit_core.providers import openai_chat
from agentkit_core.providers._common import reuse
from tests.capability import needs_fast_paths

Build = openai_chat._request.Build
Slow = type("Slow", (Build,), {"fast": False, "__slots__": ()})
OneByOne = type("OneByOne", (Build,), {"add_all": None, "__slots__": ()})  # fresh() falls back to add, item by item

ITEM_MD: tuple[dict[str, Any], ...] = (
    {}, {}, {}, {"openai.chat.no_content": True}, {"openai.chat.no_content": True}, {"openai.chat.no_content": False},
    {"openai.id": "chatcmpl-1", "openai.model": "gpt"},  # an answer's own fields: not Chat's message fields
    {"agentkit.note": "x", "openai.chat.no_content": True},
    {"openai.chat.name": "bob"}, {"openai.chat.content": None}, {"openai.chat.content": []}, {"openai.chat.echo": True},
    {"openai.chat.role": "critic"}, {"openai.chat.no_content": True, "openai.chat.name": "x"},
)
FOREIGN = ({}, {}, {"agentkit.note": "n"}, {"anthropic.cache_control": {"type": "ephemeral"}})
TEXT_MD = FOREIGN + ({"openai.chat.type": "text"}, {"openai.chat.refusal": True}, {"openai.chat.extra": 1})
CALL_MD = FOREIGN + (
    {"openai.chat.no_arguments": True}, {"openai.chat.no_type": True}, {"openai.chat.no_arguments": True, "openai.chat.no_type": True},
    {"openai.chat.no_arguments": False}, {"agentkit.input_json": "{\"a\": 1}"}, {"openai.chat.legacy_function_call": True},
    {"openai.chat.arguments": "{\"a\":1}"}, {"openai.chat.arguments": None}, {"openai.chat.type": "custom"},
    {"openai.chat.function.strict": True}, {"gemini.thought_signature": "c2ln", "agentkit.provider": "gemini"},
)
RESULT_MD = FOREIGN + ({"agentkit.tool_name": "read"}, {"agentkit.invented_id": True}, {"openai.chat.legacy_function_call": True},
                       {"openai.chat.legacy_function_call": False, "agentkit.tool_name": "read"})
IMAGE_MD = FOREIGN + ({"openai.chat.image_url.detail": "low"}, {"openai.chat.image_url.detail": "auto", "agentkit.x": 1},
                      {"openai.chat.image_url.detail": "high", "openai.chat.extra": 2}, {"openai.chat.image_url.deep.x": 1},
                      {"openai.chat.image_url.list": [1, {"a": 2}]}, {"openai.chat.in_tool": True})
AUDIO_MD = FOREIGN + ({"openai.chat.audio.id": "audio_1"}, {"openai.chat.audio.id": "audio_2", "openai.chat.audio.expires_at": 5,
                      "openai.chat.audio.data": "UklG"}, {"openai.chat.input_audio.format": "flac"}, {"openai.chat.extra": 1})
FILE_MD = FOREIGN + ({"openai.chat.bare_base64": True}, {"openai.chat.file.extra": 1}, {"openai.chat.in_tool": True})
DATAS = (InlineBytes(b"\x00data"), InlineText("cG5n"), InlineText("plain text"), Uri("https://example.com/x"),
         Uri("data:application/pdf;base64,JVBE"), Handle(ArtifactId("file-1")))
INPUTS: tuple[Any, ...] = ({}, {"path": "a.py"}, None, [1], "text", {"n": {"x": [1.5]}})


def random_part(rng: random.Random, kind: ItemKind, n: int, calls: list[ToolCallId]) -> Any:  # noqa: C901 - one choice each
    pick = rng.random()
    if pick < 0.25:
        return TextPart(rng.choice([f"text {n}", "", "é\u2028"]), metadata=rng.choice(TEXT_MD))
    if pick < 0.4 and (kind is ItemKind.ASSISTANT or rng.random() < 0.1):
        call = ToolCallId(f"call_{n}_{rng.randrange(99)}")
        calls.append(call)
        return ToolCallPart(call, "read", rng.choice(INPUTS), metadata=rng.choice(CALL_MD))
    if pick < 0.55 and calls:
        call = calls.pop(rng.randrange(len(calls))) if rng.random() < 0.8 else ToolCallId("unknown")
        output = rng.choice([ToolOutput.text("ok"), ToolOutput.text(""), ToolOutput.structured({"k": 1}),
                             ToolOutput.parts([TextPart("p"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"i"))])])
        return ToolResultPart(call, output, is_error=rng.random() < 0.2, metadata=rng.choice(RESULT_MD))
    if pick < 0.65:
        return MediaPart(Modality.IMAGE, rng.choice(["image/png", "image/jpeg"]), rng.choice(DATAS), metadata=rng.choice(IMAGE_MD))
    if pick < 0.75:
        data = rng.choice(DATAS[:4])
        return MediaPart(Modality.AUDIO, rng.choice(["audio/wav", "audio/mpeg", "audio/x-odd"]), data, metadata=rng.choice(AUDIO_MD))
    if pick < 0.85:
        return FilePart(rng.choice(DATAS), name=rng.choice([None, "a.pdf"]), mime_type=rng.choice([None, "application/pdf", "text/plain"]),
                        metadata=rng.choice(FILE_MD))
    if pick < 0.9:
        return ReasoningPart(rng.choice(["thinking", None]), metadata=rng.choice(FOREIGN + ({"openai.chat.reasoning_field": "reasoning"},)))
    if pick < 0.95:
        return StructuredPart(rng.choice([{"a": 1}, [1, 2], "s"]))
    return rng.choice([MediaPart(Modality.VIDEO, "video/mp4", InlineBytes(b"v")), CustomPart("openai.chat.x", value={"type": "x"})])


def random_items(rng: random.Random, length: int) -> list[Item]:
    items: list[Item] = []
    calls: list[ToolCallId] = []
    kinds = [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.ASSISTANT, ItemKind.TOOL, ItemKind.TOOL] + list(ItemKind)
    for n in range(length):
        kind = rng.choice(kinds)
        parts = [random_part(rng, kind, n, calls) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
        items.append(Item(kind, parts, metadata=rng.choice(ITEM_MD)))
    return items


def outcome(build: Any, items: list[Item]) -> str:
    try:
        return json.dumps(reuse.fresh(build(), items))
    except NormalizeError as exc:
        return f"NormalizeError {exc}"


class ChatFastPathTest(unittest.TestCase):
    def test_the_fast_path_writes_what_the_general_path_writes(self) -> None:
        rng = random.Random(2727)
        for round_ in range(1500):
            items = random_items(rng, rng.randrange(1, 8))
            with self.subTest(round=round_):
                slow = outcome(Slow, items)
                self.assertEqual(outcome(Build, items), slow)
                self.assertEqual(outcome(OneByOne, items), slow)

    @needs_fast_paths

    def test_the_recorded_shapes_take_the_fast_path(self) -> None:
        """A request's message without content, a call sent without arguments, an image's detail, a file: no general path."""
        calls: list[str] = []

        class Watched(Build):  # type: ignore[misc,valid-type]
            __slots__ = ()

            def add_general(self, n: int, item: Item) -> None:
                calls.append(f"items[{n}]")
                super().add_general(n, item)

        call = ToolCallId("call_1")
        items = [
            Item(ItemKind.USER, [TextPart("look"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"png"),
                                                               metadata={"openai.chat.image_url.detail": "low"}),
                                 FilePart(InlineBytes(b"%PDF"), name="a.pdf", mime_type="application/pdf"),
                                 FilePart(Handle(ArtifactId("file-1")))]),
            Item(ItemKind.ASSISTANT, [MediaPart(Modality.AUDIO, "audio/wav", Uri("https://example.com/a"),
                                                metadata={"openai.chat.audio.id": "audio_1"})], metadata={"openai.chat.no_content": True}),
            Item(ItemKind.ASSISTANT, [ToolCallPart(call, "get", {}, metadata={"openai.chat.no_arguments": True})],
                 metadata={"openai.chat.no_content": True}),
            Item(ItemKind.TOOL, [ToolResultPart(call, ToolOutput.text("ok"), metadata={"agentkit.tool_name": "get"})]),
        ]
        self.assertEqual(outcome(Watched, items), outcome(Slow, items))
        self.assertEqual(calls, [])


if __name__ == "__main__":
    unittest.main()
