"""Seeded random values of every type survive ``from_dict(json.loads(json.dumps(to_dict())))``."""

from __future__ import annotations

import json
import random
import unittest
from typing import Callable

import agentkit_core as ak
from agentkit_core import (
    AppendBytes,
    AppendText,
    BeginPart,
    CommitPart,
    CostUsage,
    CustomPart,
    FilePart,
    FilesOutput,
    FinishReason,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    MessageId,
    Modality,
    Part,
    PartId,
    PartKind,
    PartsOutput,
    ReasoningPart,
    ReplaceStructured,
    SetMetadata,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    Timestamp,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    Usage,
)

ALPHABET = "ab \n\t\"\\/é日本🎉\x00\x1f\x7f<>&"


class Gen:
    """Random values of every agentkit_core type, reproducible from a seed."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def text(self, n: int = 8) -> str:
        return "".join(self.r.choice(ALPHABET) for _ in range(self.r.randint(0, n)))

    def maybe(self, make: Callable[[], object]) -> object:
        return make() if self.r.random() < 0.5 else None

    def json(self, depth: int = 0) -> JsonValue:
        r = self.r
        roll = r.random() if depth < 4 else r.random() * 0.6
        if roll < 0.1:
            return None
        if roll < 0.2:
            return r.random() < 0.5
        if roll < 0.35:
            return r.randint(-(2**63), 2**64 - 1)
        if roll < 0.45:
            return r.choice([0.5, -7.25, 1.2011999999999998, 3.0, 123456.789])
        if roll < 0.6:
            return self.text()
        if roll < 0.8:
            return [self.json(depth + 1) for _ in range(r.randint(0, 3))]
        return {self.text(5): self.json(depth + 1) for _ in range(r.randint(0, 3))}

    def metadata(self) -> dict[str, JsonValue]:
        return {self.r.choice(["openai.", "anthropic.", "agentkit."]) + self.text(5): self.json() for _ in range(self.r.randint(0, 3))}

    def data_ref(self) -> ak.DataRef:
        return self.r.choice(
            [
                lambda: InlineText(self.text()),
                lambda: InlineBytes(bytes(self.r.randrange(256) for _ in range(self.r.randint(0, 6)))),
                lambda: Uri("https://example.com/" + self.text(4)),
                lambda: Handle(ak.ArtifactId("art-" + self.text(3))),
            ]
        )()

    def tool_output(self, depth: int) -> ak.ToolOutput:
        choices: list[Callable[[], ak.ToolOutput]] = [
            lambda: TextOutput(self.text()),
            lambda: StructuredOutput(self.json()),
            lambda: FilesOutput(tuple(self.file() for _ in range(self.r.randint(0, 2)))),
        ]
        if depth < 3:
            choices.append(lambda: PartsOutput(tuple(self.part(depth + 1) for _ in range(self.r.randint(0, 2)))))
        return self.r.choice(choices)()

    def file(self) -> FilePart:
        return FilePart(self.data_ref(), name=self.maybe(self.text), mime_type=self.maybe(lambda: "application/pdf"), metadata=self.metadata())  # type: ignore[arg-type]

    def part(self, depth: int = 0) -> Part:
        r = self.r
        kind = r.choice(list(PartKind))
        md = self.metadata()
        if kind is PartKind.TEXT:
            return TextPart(self.text(), metadata=md)
        if kind is PartKind.MEDIA:
            return MediaPart(r.choice(list(Modality)), "image/png", self.data_ref(), metadata=md)
        if kind is PartKind.FILE:
            return self.file()
        if kind is PartKind.STRUCTURED:
            return StructuredPart(self.json(), schema=self.maybe(lambda: {"type": "object"}), metadata=md)
        if kind is PartKind.REASONING:
            return ReasoningPart(self.maybe(self.text), data=self.maybe(self.data_ref), redacted=r.random() < 0.5, metadata=md)  # type: ignore[arg-type]
        if kind is PartKind.TOOL_CALL:
            return ToolCallPart(ToolCallId("call-" + self.text(3)), self.text(), self.json(), metadata=md)
        if kind is PartKind.TOOL_RESULT:
            return ToolResultPart(ToolCallId("call-" + self.text(3)), self.tool_output(depth), is_error=r.random() < 0.5, metadata=md)
        value = self.json()
        return CustomPart("vendor." + self.text(), data=self.maybe(self.data_ref), value=value, metadata=md)  # type: ignore[arg-type]

    def tokens(self) -> TokenUsage:
        n = lambda: self.r.randint(0, 2**64 - 1)  # noqa: E731
        return TokenUsage(n(), n(), reasoning_tokens=self.maybe(n), cached_input_tokens=self.maybe(n), cache_write_input_tokens=self.maybe(n))  # type: ignore[arg-type]

    def usage(self) -> Usage:
        cost = self.maybe(lambda: CostUsage(self.r.choice([0.0, 1.5, 4.335, 7.0]), "USD", provider_amount=self.maybe(self.text)))  # type: ignore[arg-type]
        return Usage(self.maybe(self.tokens), cost=cost, metadata=self.metadata())  # type: ignore[arg-type]

    def finish(self) -> FinishReason:
        if self.r.random() < 0.3:
            return FinishReason.other(self.text())
        return self.r.choice([FinishReason.COMPLETED, FinishReason.TOOL_CALL, FinishReason.MAX_TOKENS, FinishReason.CANCELLED, FinishReason.BLOCKED, FinishReason.ERROR])

    def item(self) -> Item:
        return Item(
            self.r.choice(list(ItemKind)),
            [self.part() for _ in range(self.r.randint(0, 4))],
            id=self.maybe(lambda: MessageId("msg-" + self.text(3))),  # type: ignore[arg-type]
            metadata=self.metadata(),
            usage=self.maybe(self.usage),  # type: ignore[arg-type]
            finish_reason=self.maybe(self.finish),  # type: ignore[arg-type]
            created_at=self.maybe(lambda: Timestamp(self.r.randint(0, 2**64 - 1))),  # type: ignore[arg-type]
        )

    def delta(self) -> ak.Delta:
        pid = PartId("part-" + self.text(2))
        return self.r.choice(
            [
                lambda: BeginPart(pid, self.r.choice(list(PartKind))),
                lambda: AppendText(pid, self.text()),
                lambda: AppendBytes(pid, bytes(self.r.randrange(256) for _ in range(4))),
                lambda: ReplaceStructured(pid, self.json()),
                lambda: SetMetadata(pid, self.metadata()),  # type: ignore[arg-type]
                lambda: CommitPart(self.part(), part_id=self.maybe(lambda: pid)),  # type: ignore[arg-type]
            ]
        )()


class RoundTrip(unittest.TestCase):
    def check(self, cls: type, make: Callable[[], object], count: int) -> None:
        for i in range(count):
            value = make()
            with self.subTest(type=cls.__name__, case=i):
                wire = json.dumps(value.to_dict())  # type: ignore[attr-defined]
                back = cls.from_dict(json.loads(wire))  # type: ignore[attr-defined]
                self.assertEqual(back, value)
                self.assertEqual(json.dumps(back.to_dict()), wire)

    def test_items(self) -> None:
        self.check(Item, Gen(1).item, 1500)

    def test_parts(self) -> None:
        self.check(Part, Gen(2).part, 1500)

    def test_deltas(self) -> None:
        self.check(ak.Delta, Gen(3).delta, 1500)

    def test_usage_and_finish(self) -> None:
        g = Gen(4)
        self.check(Usage, g.usage, 500)
        self.check(TokenUsage, g.tokens, 500)
        self.check(FinishReason, g.finish, 300)

    def test_data_refs_and_outputs(self) -> None:
        g = Gen(5)
        self.check(ak.DataRef, g.data_ref, 300)
        self.check(ak.ToolOutput, lambda: g.tool_output(0), 500)


if __name__ == "__main__":
    unittest.main()
