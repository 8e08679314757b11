"""``Item.to_json`` writes an item's fields straight to text (``_line.py``): the same bytes as ``to_dict`` through ``json``."""

from __future__ import annotations

import json
import random
import unittest

from agentkit_core import (
    FilesOutput,
    FinishReason,
    InlineText,
    Item,
    ItemKind,
    MessageId,
    PartKind,
    PartsOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolResultPart,
    Usage,
)
from tests.test_fold_random import gen_json, gen_metadata, gen_part, gen_text


def through_to_dict(item: Item) -> str:
    return json.dumps(item.to_dict(), separators=(",", ":"), ensure_ascii=False)


def random_item(rng: random.Random) -> Item:
    parts = [gen_part(rng, rng.choice(tuple(PartKind))) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.2:  # the outputs written through their own to_dict
        output = rng.choice([PartsOutput([TextPart(gen_text(rng))]), FilesOutput([])])
        parts.append(ToolResultPart(ToolCallId("call_9"), output, is_error=rng.random() < 0.5))
    finish = rng.choice([None, FinishReason.COMPLETED, FinishReason.TOOL_CALL, FinishReason.other(gen_text(rng))])
    usage = rng.choice([None, Usage(TokenUsage(3, 4)), Usage(TokenUsage(1, 2, reasoning_tokens=3, cache_write_input_tokens=5), metadata=gen_metadata(rng))])
    return Item(
        rng.choice(tuple(ItemKind)),
        parts,
        id=rng.choice([None, MessageId(gen_text(rng) or "m")]),
        metadata=gen_metadata(rng),
        usage=usage,
        finish_reason=finish,
        created_at=rng.choice([None, 0, 1784000000000, 2**64 - 1]),
    )


class ItemJsonTest(unittest.TestCase):
    def test_to_json_writes_what_to_dict_gives_json_on_seeded_random_items(self) -> None:
        rng = random.Random(4242)
        for round_ in range(3000):
            item = random_item(rng)
            with self.subTest(round=round_):
                self.assertEqual(item.to_json(), through_to_dict(item))

    def test_text_no_encoder_expects_is_written_as_json_writes_it(self) -> None:
        odd = "\x00\x1f\"\\/\u2028\u2029\u00e9\U0001f389\x7f"
        item = Item(ItemKind.USER, [TextPart(odd, metadata={odd: [odd, {odd: 1.5e300}]})], id=MessageId(odd),
                    metadata={"k": gen_json(random.Random(1))}, finish_reason=FinishReason.other(odd))
        self.assertEqual(item.to_json(), through_to_dict(item))
        self.assertEqual(Item.from_json(item.to_json()), item)

    def test_an_inline_text_reasoning_part_and_a_large_input_round_trip(self) -> None:
        from agentkit_core import ReasoningPart, ToolCallPart

        item = Item(ItemKind.ASSISTANT, [ReasoningPart("why", data=InlineText("sig")),
                                         ToolCallPart(ToolCallId("c"), "f", {"a": [list(range(50))] * 3})])
        self.assertEqual(item.to_json(), through_to_dict(item))


if __name__ == "__main__":
    unittest.main()
