"""Values are valid when made: every public constructor, factory and builder, fed seeded random arguments.

Good arguments construct a value whose ``to_dict()`` never raises, is plain
JSON data (exact built-in types, no NaN, valid Unicode) and decodes with
``from_dict`` to an equal value.  Bad arguments (one at a time, the others
good) raise exactly ``TypeError`` or ``NormalizeError`` (the package's
``ValueError``) whose message names the class and the field.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
import random
import unittest
from collections import OrderedDict
from typing import Any, Callable, NamedTuple

import agentkit_core as ak
from agentkit_core import NormalizeError, _check
from tests.forge import forged

LIMIT = 127  # the nesting from_dict reads, counted from the root of the value it decodes


class StrSub(str):
    """A str subclass: accepted, stored as a plain str."""


class IntSub(int):
    """An int subclass: accepted where an int is, stored as a plain int."""


class FloatSub(float):
    """A float subclass."""


class DictSub(dict):  # type: ignore[type-arg]
    """A dict subclass inside JSON data: copied into a plain dict."""


class Opaque:
    """Not data at all."""


def nesting(v: object) -> int:
    """How deep containers nest in plain JSON data: 0 for a scalar, 1 for ``[]``."""
    if isinstance(v, dict):
        return 1 + max(map(nesting, v.values()), default=0)
    if isinstance(v, list):
        return 1 + max(map(nesting, v), default=0)
    return 0


def chain(depth: int, leaf: object = 1) -> object:
    """JSON data nesting exactly ``depth`` containers deep."""
    v = leaf
    for i in range(depth):
        v = {"k": v} if i % 2 else [v]
    return v


# -- good arguments ------------------------------------------------------------------


def g_text(rng: random.Random) -> str:
    return rng.choice(["", "hi", "naïve café", "日本語 🎉", "x" * 300, "\u202etxt", "a\x00b", StrSub("sub")])


def g_count(rng: random.Random) -> int:
    return rng.choice([0, 1, 1200, 2**32, 2**64 - 1, IntSub(7), ak.Timestamp(5)])


def g_amount(rng: random.Random) -> float:
    return rng.choice([0.0, 0.0042, -1.5, 1e308, 3, 2**70, FloatSub(2.5), -0.0])


def g_json(rng: random.Random, depth: int = 3) -> Any:
    r = rng.random()
    if depth <= 0 or r < 0.45:
        return rng.choice([None, True, False, 0, -7, 2**70, 1.5, -0.0, "", "naïve", "🎉", StrSub("s"), IntSub(3)])
    n = rng.randint(0, 3)
    if r < 0.7:
        return [g_json(rng, depth - 1) for _ in range(n)]
    d = {g_text(rng): g_json(rng, depth - 1) for _ in range(n)}
    return DictSub(d) if rng.random() < 0.1 else d


def g_metadata(rng: random.Random) -> Any:
    data = {rng.choice(["openai.id", "anthropic.sig", "a", "ключ", StrSub("sub.k")]): g_json(rng, 2) for _ in range(rng.randint(0, 3))}
    return rng.choice([data, ak.MetadataMap(data), OrderedDict(data), None, {}])


def g_data_ref(rng: random.Random) -> ak.DataRef:
    return rng.choice([
        ak.InlineText(g_text(rng)),
        ak.InlineBytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 6)))),
        ak.Uri("https://example.com/a.png"),
        ak.Handle(ak.ArtifactId(g_text(rng))),
    ])


def g_part(rng: random.Random, depth: int = 2) -> ak.Part:
    kind = rng.randrange(8)
    md = g_metadata(rng)
    if kind == 0:
        return ak.TextPart(g_text(rng), metadata=md)
    if kind == 1:
        return ak.MediaPart(rng.choice(list(ak.Modality)), "image/png", g_data_ref(rng), metadata=md)
    if kind == 2:
        return ak.FilePart(g_data_ref(rng), name=rng.choice([None, "a.txt"]), mime_type=rng.choice([None, "text/plain"]), metadata=md)
    if kind == 3:
        return ak.StructuredPart(g_json(rng), schema=rng.choice([None, {"type": "object"}]), metadata=md)
    if kind == 4:
        return ak.ReasoningPart(rng.choice([None, g_text(rng)]), data=rng.choice([None, g_data_ref(rng)]), redacted=rng.random() < 0.5, metadata=md)
    if kind == 5:
        return ak.ToolCallPart(ak.ToolCallId(g_text(rng)), g_text(rng), g_json(rng), metadata=md)
    if kind == 6:
        return ak.ToolResultPart(ak.ToolCallId("c"), g_output(rng, depth - 1), is_error=rng.random() < 0.5, metadata=md)
    return ak.CustomPart(g_text(rng), data=rng.choice([None, g_data_ref(rng)]), value=g_json(rng), metadata=md)


def g_file(rng: random.Random) -> ak.FilePart:
    return ak.FilePart(g_data_ref(rng), name=rng.choice([None, "f.bin"]), metadata=g_metadata(rng))


def g_output(rng: random.Random, depth: int = 1) -> ak.ToolOutput:
    r = rng.randrange(4)
    if r == 0:
        return ak.TextOutput(g_text(rng))
    if r == 1:
        return ak.StructuredOutput(g_json(rng))
    if r == 2:
        return ak.PartsOutput([g_part(rng, depth) for _ in range(rng.randint(0, 2 if depth > 0 else 0))])
    return ak.FilesOutput([g_file(rng) for _ in range(rng.randint(0, 2))])


def g_parts(rng: random.Random) -> Any:
    parts = [g_part(rng) for _ in range(rng.randint(0, 3))]
    return rng.choice([parts, tuple(parts), iter(parts)])


def g_tokens(rng: random.Random) -> ak.TokenUsage:
    return ak.TokenUsage(rng.randrange(10**6), rng.randrange(10**6), reasoning_tokens=rng.choice([None, 5]))


def g_usage(rng: random.Random) -> ak.Usage:
    cost = rng.choice([None, ak.CostUsage(0.5, "USD")])
    return ak.Usage(rng.choice([None, g_tokens(rng)]), cost=cost, metadata=g_metadata(rng))


def g_finish(rng: random.Random) -> ak.FinishReason:
    return rng.choice([ak.FinishReason.COMPLETED, ak.FinishReason.TOOL_CALL, ak.FinishReason.other(g_text(rng))])


def optional(gen: Callable[[random.Random], Any]) -> Callable[[random.Random], Any]:
    return lambda rng: None if rng.random() < 0.3 else gen(rng)


GOOD: dict[str, Callable[[random.Random], Any]] = {
    "text": g_text,
    "opt_text": optional(g_text),
    "count": g_count,
    "half_count": lambda rng: rng.choice([0, 1, 2**63 - 1, IntSub(5)]),  # two of them add up to a count
    "half_amount": lambda rng: rng.choice([0.0, 0.25, -3, 1e307, FloatSub(0.5)]),
    "opt_count": optional(g_count),
    "amount": g_amount,
    "bool": lambda rng: rng.random() < 0.5,
    "opt_bool": lambda rng: rng.choice([None, True, False]),
    "opt_json_object": lambda rng: rng.choice([None, {}, {"type": "object", "properties": {"a": {"type": "string"}}}]),
    "tool_call": lambda rng: ak.ToolCallPart(ak.ToolCallId(g_text(rng)), g_text(rng), g_json(rng)),
    "annotations": lambda rng: ak.ToolAnnotations(read_only_hint=rng.random() < 0.5),
    "json": g_json,
    "metadata": g_metadata,
    "map": g_metadata,
    "bytes": lambda rng: rng.choice([b"", b"\x00\xff", bytearray(b"ab"), memoryview(b"xyz")]),
    "data_ref": g_data_ref,
    "opt_data_ref": optional(g_data_ref),
    "modality": lambda rng: rng.choice(list(ak.Modality)),
    "part_kind": lambda rng: rng.choice(list(ak.PartKind)),
    "item_kind": lambda rng: rng.choice(list(ak.ItemKind)),
    "tool_call_id": lambda rng: ak.ToolCallId(g_text(rng)),
    "opt_message_id": optional(lambda rng: ak.MessageId(g_text(rng))),
    "part_id": lambda rng: ak.PartId(g_text(rng)),
    "opt_part_id": optional(lambda rng: ak.PartId(g_text(rng))),
    "artifact_id": lambda rng: ak.ArtifactId(g_text(rng)),
    "artifact_or_text": lambda rng: rng.choice([ak.ArtifactId("a"), g_text(rng)]),
    "part": g_part,
    "parts": g_parts,
    "files": lambda rng: [g_file(rng) for _ in range(rng.randint(0, 2))],
    "output": g_output,
    "opt_usage": optional(g_usage),
    "opt_tokens": optional(g_tokens),
    "opt_cost": optional(lambda rng: ak.CostUsage(g_amount(rng), "USD")),
    "opt_finish": optional(g_finish),
    "opt_timestamp": optional(lambda rng: rng.choice([ak.Timestamp(1_784_000_000_000), 0, 2**64 - 1, IntSub(9)])),
    "finish_kind": lambda rng: rng.choice(["Completed", "ToolCall", "MaxTokens", "Cancelled", "Blocked", "Error"]),
}


# -- bad arguments: what the wire cannot carry ---------------------------------------------


def deep_part(depth: int) -> ak.ToolCallPart:
    """A tool call whose wire form nests ``depth`` levels (its input sits two levels down)."""
    return ak.ToolCallPart(ak.ToolCallId("c"), "n", chain(depth - 2))


BAD_JSON: list[Callable[[], Any]] = [
    lambda: float("nan"), lambda: float("inf"), lambda: {"a": [1, float("-inf")]}, lambda: (1, 2), lambda: {1, 2},
    lambda: b"x", lambda: Opaque(), lambda: {1: "x"}, lambda: {None: 1}, lambda: {"\ud800": 1}, lambda: ["a\udfffb"],
    lambda: {"a": {"b": (1,)}}, lambda: 1 + 2j, lambda: chain(LIMIT), lambda: ak.TextPart("x"), lambda: ak.MetadataMap(),
]
BAD_TEXT: list[Callable[[], Any]] = [lambda: 5, lambda: b"x", lambda: ["x"], lambda: "\ud800", lambda: "a\udfffb", lambda: StrSub("\udc00"), lambda: ak.ToolCallId("x")]
BAD_COUNT: list[Callable[[], Any]] = [lambda: -1, lambda: 2**64, lambda: 1.5, lambda: 1.0, lambda: True, lambda: "1", lambda: float("nan"), lambda: [1]]
BAD_METADATA: list[Callable[[], Any]] = [
    lambda: [("a", 1)], lambda: "a", lambda: 5, lambda: {1: 1}, lambda: {("a",): 1}, lambda: {"a": float("nan")},
    lambda: {"a": (1,)}, lambda: {"\ud800": 1}, lambda: {"a": "\ud800"}, lambda: {"a": chain(LIMIT - 1)},
]
BAD_PARTS: list[Callable[[], Any]] = [
    lambda: ["hi"], lambda: [ak.TextPart("x"), None], lambda: "hi", lambda: 5, lambda: {"Text": {}},
    lambda: [{"Text": {"text": "x", "metadata": {}}}], lambda: [ak.InlineText("x")], lambda: [deep_part(LIMIT - 1)],
]
BAD_ID = [lambda: "c", lambda: 5, lambda: None, lambda: ak.MessageId("c"), lambda: b"c"]

BAD: dict[str, list[Callable[[], Any]]] = {
    "text": BAD_TEXT + [lambda: None],
    "opt_text": BAD_TEXT,
    "count": BAD_COUNT + [lambda: None],
    "half_count": BAD_COUNT + [lambda: None],
    "half_amount": [lambda: "1", lambda: float("nan"), lambda: True, lambda: None],
    "opt_count": BAD_COUNT,
    "amount": [lambda: "1", lambda: float("nan"), lambda: float("inf"), lambda: -float("inf"), lambda: True, lambda: None, lambda: 10**400, lambda: [1.0]],
    "bool": [lambda: 0, lambda: 1, lambda: "true", lambda: None],
    "opt_bool": [lambda: 0, lambda: 1, lambda: "true"],
    "opt_json_object": [lambda: [1], lambda: "{}", lambda: {"a": float("nan")}, lambda: {1: "x"}, lambda: {"a": (1,)}],
    "tool_call": [lambda: "c", lambda: None, lambda: ak.TextPart("x"), lambda: ak.ToolResultPart(ak.ToolCallId("c"), ak.TextOutput("x"))],
    "annotations": [lambda: None, lambda: {"read_only_hint": True}, lambda: True],
    "json": BAD_JSON,
    "metadata": BAD_METADATA,  # inside a value: two levels below its root at least
    "map": BAD_METADATA[:-1] + [lambda: {"a": chain(LIMIT)}],  # a map on its own
    "bytes": [lambda: "x", lambda: [1, 2], lambda: 5, lambda: None],
    "data_ref": [lambda: "u", lambda: None, lambda: {"Uri": "u"}, lambda: ak.TextPart("x")],
    "opt_data_ref": [lambda: "u", lambda: {"Uri": "u"}, lambda: b"x"],
    "modality": [lambda: "Image", lambda: "image", lambda: ak.PartKind.TEXT, lambda: None, lambda: 1],
    "part_kind": [lambda: "Text", lambda: ak.Modality.IMAGE, lambda: None, lambda: 0],
    "item_kind": [lambda: "User", lambda: "user", lambda: ak.PartKind.TEXT, lambda: None, lambda: 2],
    "tool_call_id": BAD_ID,
    "opt_message_id": [lambda: "m", lambda: ak.ToolCallId("m"), lambda: 5],
    "part_id": BAD_ID,
    "opt_part_id": [lambda: "p", lambda: ak.ToolCallId("p"), lambda: 5],
    "artifact_id": [lambda: "a", lambda: None, lambda: 5],
    "artifact_or_text": [lambda: 5, lambda: None, lambda: "\ud800", lambda: ak.ToolCallId("a")],
    "part": [lambda: "x", lambda: None, lambda: {"Text": {}}, lambda: ak.InlineText("x"), lambda: deep_part(LIMIT - 1)],
    "parts": BAD_PARTS,
    "files": [lambda: [ak.TextPart("x")], lambda: "f", lambda: 3, lambda: [None]],
    "output": [lambda: "ok", lambda: None, lambda: {"Text": "ok"}, lambda: ak.TextPart("x"), lambda: ak.PartsOutput([deep_part(LIMIT - 3)])],
    "opt_usage": [lambda: ak.TokenUsage(1, 2), lambda: {"tokens": None}, lambda: 5],
    "opt_tokens": [lambda: ak.Usage(), lambda: {"input_tokens": 1}, lambda: 5],
    "opt_cost": [lambda: 0.5, lambda: ak.Usage(), lambda: "USD"],
    "opt_finish": [lambda: "Completed", lambda: ak.ItemKind.USER, lambda: 1],
    "opt_timestamp": [lambda: -1, lambda: 1.5, lambda: True, lambda: "5", lambda: 2**64],
    "finish_kind": [lambda: "Done", lambda: "completed", lambda: 5, lambda: None, lambda: "Other"],
}


# -- what is made, and how ------------------------------------------------------------------


class Param(NamedTuple):
    name: str
    kind: str
    where: tuple[str, ...]  # an error about this argument names one of these ("Class.field")
    keyword: bool = False


def p(name: str, kind: str, where: str | tuple[str, ...], keyword: bool = False) -> Param:
    return Param(name, kind, (where,) if isinstance(where, str) else where, keyword)


class Spec(NamedTuple):
    name: str
    make: Callable[[random.Random, dict[str, Any]], Any]
    params: tuple[Param, ...]


def call(fn: Callable[..., Any], params: tuple[Param, ...]) -> Callable[[random.Random, dict[str, Any]], Any]:
    """``fn`` called with the arguments, positional or keyword as the params say."""

    def make(rng: random.Random, args: dict[str, Any]) -> Any:
        return fn(*(args[x.name] for x in params if not x.keyword), **{x.name: args[x.name] for x in params if x.keyword})

    return make


def constructor(name: str, fn: Callable[..., Any], *params: Param) -> Spec:
    return Spec(name, call(fn, params), params)


def builder(name: str, base: Callable[[random.Random], Any], method: str, *params: Param) -> Spec:
    """``base(rng).method(arg)``: a builder called on a random value."""
    return Spec(name, lambda rng, args: getattr(base(rng), method)(*(args[x.name] for x in params)), params)


def tokens_sum(rng: random.Random, args: dict[str, Any]) -> Any:
    return ak.TokenUsage(args["a"], args["b"]) + ak.TokenUsage(args["c"], args["d"])


def costs_sum(rng: random.Random, args: dict[str, Any]) -> Any:
    return sum([ak.CostUsage(args["a"], "USD"), ak.CostUsage(args["b"], "USD")], ak.CostUsage(0, "USD"))


MD = ("metadata",)
ID_TYPES = (ak.SessionId, ak.TurnId, ak.MessageId, ak.ToolCallId, ak.ToolResultId, ak.TaskId, ak.ProviderMessageId, ak.ArtifactId, ak.PartId, ak.ApprovalId)

SPECS: list[Spec] = [
    *(constructor(cls.__name__, cls, p("value", "text", f"{cls.__name__}.value")) for cls in ID_TYPES),
    constructor("Timestamp", ak.Timestamp, p("value", "count", "Timestamp")),
    constructor("InlineText", ak.InlineText, p("value", "text", "InlineText.value")),
    constructor("InlineBytes", ak.InlineBytes, p("value", "bytes", "InlineBytes.value")),
    constructor("Uri", ak.Uri, p("value", "text", "Uri.value")),
    constructor("Handle", ak.Handle, p("value", "artifact_id", "Handle.value")),
    constructor("DataRef.inline_text", ak.DataRef.inline_text, p("text", "text", "InlineText.value")),
    constructor("DataRef.inline_bytes", ak.DataRef.inline_bytes, p("data", "bytes", "InlineBytes.value")),
    constructor("DataRef.uri", ak.DataRef.uri, p("uri", "text", "Uri.value")),
    constructor("DataRef.handle", ak.DataRef.handle, p("artifact_id", "artifact_or_text", ("Handle.value", "ArtifactId.value"))),
    constructor("TextPart", ak.TextPart, p("text", "text", "TextPart.text"), p("metadata", "metadata", "TextPart.metadata", True)),
    constructor(
        "MediaPart", ak.MediaPart, p("modality", "modality", "MediaPart.modality"), p("mime_type", "text", "MediaPart.mime_type"),
        p("data", "data_ref", "MediaPart.data"), p("metadata", "metadata", "MediaPart.metadata", True),
    ),
    constructor(
        "FilePart", ak.FilePart, p("data", "data_ref", "FilePart.data"), p("name", "opt_text", "FilePart.name", True),
        p("mime_type", "opt_text", "FilePart.mime_type", True), p("metadata", "metadata", "FilePart.metadata", True),
    ),
    constructor(
        "StructuredPart", ak.StructuredPart, p("value", "json", "StructuredPart.value"), p("schema", "json", "StructuredPart.schema", True),
        p("metadata", "metadata", "StructuredPart.metadata", True),
    ),
    constructor(
        "ReasoningPart", ak.ReasoningPart, p("summary", "opt_text", "ReasoningPart.summary"), p("data", "opt_data_ref", "ReasoningPart.data", True),
        p("redacted", "bool", "ReasoningPart.redacted", True), p("metadata", "metadata", "ReasoningPart.metadata", True),
    ),
    constructor(
        "ToolCallPart", ak.ToolCallPart, p("id", "tool_call_id", "ToolCallPart.id"), p("name", "text", "ToolCallPart.name"),
        p("input", "json", "ToolCallPart.input"), p("metadata", "metadata", "ToolCallPart.metadata", True),
    ),
    constructor(
        "ToolResultPart", ak.ToolResultPart, p("call_id", "tool_call_id", "ToolResultPart.call_id"), p("output", "output", "ToolResultPart.output"),
        p("is_error", "bool", "ToolResultPart.is_error", True), p("metadata", "metadata", "ToolResultPart.metadata", True),
    ),
    constructor(
        "CustomPart", ak.CustomPart, p("kind", "text", "CustomPart.kind"), p("data", "opt_data_ref", "CustomPart.data", True),
        p("value", "json", "CustomPart.value", True), p("metadata", "metadata", "CustomPart.metadata", True),
    ),
    constructor("Part.text", ak.Part.text, p("text", "text", "TextPart.text")),
    constructor("Part.media", ak.Part.media, p("modality", "modality", "MediaPart.modality"), p("mime_type", "text", "MediaPart.mime_type"), p("data", "data_ref", "MediaPart.data")),
    constructor("Part.file", ak.Part.file, p("data", "data_ref", "FilePart.data")),
    constructor("Part.structured", ak.Part.structured, p("value", "json", "StructuredPart.value")),
    constructor("Part.reasoning", ak.Part.reasoning, p("summary", "opt_text", "ReasoningPart.summary")),
    constructor("FilePart.named", ak.FilePart.named, p("name", "opt_text", "FilePart.name"), p("data", "data_ref", "FilePart.data")),
    constructor("ReasoningPart.from_summary", ak.ReasoningPart.from_summary, p("text", "opt_text", "ReasoningPart.summary")),
    constructor("ReasoningPart.redacted_summary", ak.ReasoningPart.redacted_summary, p("text", "opt_text", "ReasoningPart.summary")),
    constructor("ToolResultPart.success", ak.ToolResultPart.success, p("call_id", "tool_call_id", "ToolResultPart.call_id"), p("output", "output", "ToolResultPart.output")),
    constructor("ToolResultPart.failure", ak.ToolResultPart.failure, p("call", "tool_call", "ToolResultPart.failure.call"), p("message", "text", "TextOutput.text")),
    constructor("ToolResultPart.error", ak.ToolResultPart.error, p("call_id", "tool_call_id", "ToolResultPart.call_id"), p("output", "output", "ToolResultPart.output")),
    *(builder(f"{t}.with_metadata", lambda rng, t=t: forged_free_part(rng, t), "with_metadata", p("metadata", "metadata", f"{t}.metadata"))
      for t in ("TextPart", "MediaPart", "FilePart", "StructuredPart", "ReasoningPart", "ToolCallPart", "ToolResultPart", "CustomPart")),
    builder("FilePart.with_name", g_file, "with_name", p("name", "opt_text", "FilePart.name")),
    builder("FilePart.with_mime_type", g_file, "with_mime_type", p("mime_type", "opt_text", "FilePart.mime_type")),
    builder("StructuredPart.with_schema", lambda rng: ak.StructuredPart(g_json(rng)), "with_schema", p("schema", "json", "StructuredPart.schema")),
    builder("ReasoningPart.with_data", lambda rng: ak.ReasoningPart("r"), "with_data", p("data", "opt_data_ref", "ReasoningPart.data")),
    builder("ReasoningPart.with_redacted", lambda rng: ak.ReasoningPart("r"), "with_redacted", p("redacted", "bool", "ReasoningPart.redacted")),
    builder("CustomPart.with_data", lambda rng: ak.CustomPart("k"), "with_data", p("data", "opt_data_ref", "CustomPart.data")),
    builder("CustomPart.with_value", lambda rng: ak.CustomPart("k"), "with_value", p("value", "json", "CustomPart.value")),
    builder("ToolResultPart.with_is_error", lambda rng: ak.ToolResultPart(ak.ToolCallId("c"), g_output(rng)), "with_is_error", p("is_error", "bool", "ToolResultPart.is_error")),
    constructor("TextOutput", ak.TextOutput, p("text", "text", "TextOutput.text")),
    constructor("StructuredOutput", ak.StructuredOutput, p("value", "json", "StructuredOutput.value")),
    constructor("PartsOutput", ak.PartsOutput, p("parts", "parts", "PartsOutput.parts")),
    constructor("FilesOutput", ak.FilesOutput, p("files", "files", "FilesOutput.files")),
    constructor("ToolOutput.text", ak.ToolOutput.text, p("text", "text", "TextOutput.text")),
    constructor("ToolOutput.structured", ak.ToolOutput.structured, p("value", "json", "StructuredOutput.value")),
    constructor("ToolOutput.parts", ak.ToolOutput.parts, p("parts", "parts", "PartsOutput.parts")),
    constructor("ToolOutput.files", ak.ToolOutput.files, p("files", "files", "FilesOutput.files")),
    constructor(
        "Item", ak.Item, p("kind", "item_kind", "Item.kind"), p("parts", "parts", "Item.parts"), p("id", "opt_message_id", "Item.id", True),
        p("metadata", "metadata", "Item.metadata", True), p("usage", "opt_usage", "Item.usage", True),
        p("finish_reason", "opt_finish", "Item.finish_reason", True), p("created_at", "opt_timestamp", "Item.created_at", True),
    ),
    constructor("Item.text", ak.Item.text, p("kind", "item_kind", "Item.kind"), p("text", "text", "TextPart.text")),
    constructor("Item.notification", ak.Item.notification, p("text", "text", "TextPart.text")),
    builder("Item.with_id", lambda rng: ak.Item(ak.ItemKind.USER), "with_id", p("id", "opt_message_id", "Item.id")),
    builder("Item.with_metadata", lambda rng: ak.Item(ak.ItemKind.USER), "with_metadata", p("metadata", "metadata", "Item.metadata")),
    builder("Item.push_part", lambda rng: ak.Item(ak.ItemKind.USER, [g_part(rng)]), "push_part", p("part", "part", "Item.parts")),
    builder("Item.with_parts", lambda rng: ak.Item(ak.ItemKind.USER), "with_parts", p("parts", "parts", "Item.parts")),
    builder("Item.with_usage", lambda rng: ak.Item(ak.ItemKind.ASSISTANT), "with_usage", p("usage", "opt_usage", "Item.usage")),
    builder("Item.with_finish_reason", lambda rng: ak.Item(ak.ItemKind.ASSISTANT), "with_finish_reason", p("finish_reason", "opt_finish", "Item.finish_reason")),
    builder("Item.with_created_at", lambda rng: ak.Item(ak.ItemKind.ASSISTANT), "with_created_at", p("created_at", "opt_timestamp", "Item.created_at")),
    constructor(
        "TokenUsage", ak.TokenUsage, p("input_tokens", "count", "TokenUsage.input_tokens"), p("output_tokens", "count", "TokenUsage.output_tokens"),
        p("reasoning_tokens", "opt_count", "TokenUsage.reasoning_tokens", True), p("cached_input_tokens", "opt_count", "TokenUsage.cached_input_tokens", True),
        p("cache_write_input_tokens", "opt_count", "TokenUsage.cache_write_input_tokens", True),
    ),
    builder("TokenUsage.with_reasoning_tokens", g_tokens, "with_reasoning_tokens", p("n", "opt_count", "TokenUsage.reasoning_tokens")),
    builder("TokenUsage.with_cached_input_tokens", g_tokens, "with_cached_input_tokens", p("n", "opt_count", "TokenUsage.cached_input_tokens")),
    builder("TokenUsage.with_cache_write_input_tokens", g_tokens, "with_cache_write_input_tokens", p("n", "opt_count", "TokenUsage.cache_write_input_tokens")),
    Spec("TokenUsage.__add__", tokens_sum, (p("a", "half_count", "TokenUsage.input_tokens"), p("b", "half_count", "TokenUsage.output_tokens"), p("c", "half_count", "TokenUsage.input_tokens"), p("d", "half_count", "TokenUsage.output_tokens"))),
    Spec("CostUsage.__add__", costs_sum, (p("a", "half_amount", "CostUsage.amount"), p("b", "half_amount", "CostUsage.amount"))),
    constructor("CostUsage", ak.CostUsage, p("amount", "amount", "CostUsage.amount"), p("currency", "text", "CostUsage.currency"), p("provider_amount", "opt_text", "CostUsage.provider_amount", True)),
    builder("CostUsage.with_provider_amount", lambda rng: ak.CostUsage(1.0, "USD"), "with_provider_amount", p("amount", "opt_text", "CostUsage.provider_amount")),
    constructor("Usage", ak.Usage, p("tokens", "opt_tokens", "Usage.tokens"), p("cost", "opt_cost", "Usage.cost", True), p("metadata", "metadata", "Usage.metadata", True)),
    builder("Usage.with_cost", g_usage, "with_cost", p("cost", "opt_cost", "Usage.cost")),
    builder("Usage.with_metadata", g_usage, "with_metadata", p("metadata", "metadata", "Usage.metadata")),
    Spec("Usage.__add__", lambda rng, args: g_usage(rng) + ak.Usage(metadata=args["metadata"]), (p("metadata", "metadata", "Usage.metadata"),)),
    constructor("FinishReason", ak.FinishReason, p("kind", "finish_kind", ("FinishReason.kind", "FinishReason.detail"))),
    constructor("FinishReason.other", ak.FinishReason.other, p("text", "text", "FinishReason.detail")),
    constructor("BeginPart", ak.BeginPart, p("part_id", "part_id", "BeginPart.part_id"), p("kind", "part_kind", "BeginPart.kind")),
    constructor("AppendText", ak.AppendText, p("part_id", "part_id", "AppendText.part_id"), p("chunk", "text", "AppendText.chunk")),
    constructor("AppendBytes", ak.AppendBytes, p("part_id", "part_id", "AppendBytes.part_id"), p("chunk", "bytes", "AppendBytes.chunk")),
    constructor("ReplaceStructured", ak.ReplaceStructured, p("part_id", "part_id", "ReplaceStructured.part_id"), p("value", "json", "ReplaceStructured.value")),
    constructor("SetMetadata", ak.SetMetadata, p("part_id", "part_id", "SetMetadata.part_id"), p("metadata", "metadata", "SetMetadata.metadata")),
    constructor("CommitPart", ak.CommitPart, p("part", "part", "CommitPart.part"), p("part_id", "opt_part_id", "CommitPart.part_id", True)),
    constructor("MetadataMap", ak.MetadataMap, p("data", "map", "MetadataMap")),
    constructor(
        "ToolAnnotations", ak.ToolAnnotations,
        *(p(f"{h}_hint", "bool", f"ToolAnnotations.{h}_hint", True) for h in ("read_only", "destructive", "idempotent", "needs_approval", "supports_streaming")),
    ),
    constructor(
        "ToolSpec", ak.ToolSpec, p("name", "text", "ToolSpec.name"), p("description", "text", "ToolSpec.description"),
        p("input_schema", "json", "ToolSpec.input_schema"), p("output_schema", "json", "ToolSpec.output_schema", True),
        p("annotations", "annotations", "ToolSpec.annotations", True), p("metadata", "metadata", "ToolSpec.metadata", True),
    ),
    builder("ToolSpec.with_output_schema", lambda rng: ak.ToolSpec("t"), "with_output_schema", p("schema", "json", "ToolSpec.output_schema")),
    builder("ToolSpec.with_annotations", lambda rng: ak.ToolSpec("t"), "with_annotations", p("annotations", "annotations", "ToolSpec.annotations")),
    builder("ToolSpec.with_metadata", lambda rng: ak.ToolSpec("t"), "with_metadata", p("metadata", "metadata", "ToolSpec.metadata")),
    constructor("ToolChoice.auto", ak.ToolChoice.auto, p("parallel", "opt_bool", "ToolChoice.parallel", True)),
    constructor("ToolChoice.none", ak.ToolChoice.none),
    constructor("ToolChoice.required", ak.ToolChoice.required, p("parallel", "opt_bool", "ToolChoice.parallel", True)),
    constructor("ToolChoice.tool", ak.ToolChoice.tool, p("name", "text", "ToolChoice.name"), p("parallel", "opt_bool", "ToolChoice.parallel", True)),
    constructor("ModelSettings", ak.ModelSettings, p("parallel_tool_calls", "opt_bool", "ModelSettings.parallel_tool_calls", True),
                p("output_schema", "opt_json_object", "ModelSettings.output_schema", True)),
    Spec("ToolChoice", lambda rng, args: ak.ToolChoice("tool", args["name"], metadata=args["metadata"]),
         (p("name", "text", "ToolChoice.name"), p("metadata", "metadata", "ToolChoice.metadata"))),
    builder("ToolChoice.with_parallel", lambda rng: ak.ToolChoice.required(), "with_parallel", p("parallel", "opt_bool", "ToolChoice.parallel")),
    builder("MetadataMap.merged", lambda rng: ak.MetadataMap({"a": 1, "z": [2]}), "merged", p("other", "map", "MetadataMap.merged")),
]


def forged_free_part(rng: random.Random, type_name: str) -> ak.Part:
    """A random, validly built part of the variant ``type_name``."""
    while True:
        part = g_part(rng)
        if type(part).__name__ == type_name:
            return part


# -- what every made value must satisfy ----------------------------------------------------

_PLAIN = (dict, list, str, int, float, bool, type(None))


def plain(v: object) -> bool:
    """Exact built-in JSON types all the way down, finite floats, string keys."""
    if type(v) not in _PLAIN or (type(v) is float and not math.isfinite(v)):  # type: ignore[arg-type]
        return False
    if type(v) is dict:
        return all(type(k) is str and plain(x) for k, x in v.items())
    if type(v) is list:
        return all(map(plain, v))
    return True


def decoder(value: object) -> Callable[[Any], Any]:
    for cls in (ak.Part, ak.DataRef, ak.ToolOutput, ak.Delta):
        if isinstance(value, cls):
            return cls.from_dict
    return type(value).from_dict  # type: ignore[attr-defined,no-any-return]


class ValuesAreValidWhenMade(unittest.TestCase):
    def check_made(self, value: Any, label: str) -> None:
        wire = value.to_dict()
        self.assertTrue(plain(wire), f"{label}: to_dict() is not plain JSON data: {wire!r:.200}")
        json.dumps(wire, allow_nan=False, ensure_ascii=False).encode("utf-8")  # valid Unicode, no NaN
        self.assertLessEqual(nesting(wire), LIMIT, label)
        back = decoder(value)(wire)
        self.assertEqual(back, value, label)
        self.assertEqual(back.to_dict(), wire, label)
        if isinstance(value, ak.FilePart):
            self.assertEqual(ak.FilePart.from_bare_dict(value.to_bare_dict()), value)
        if isinstance(value, ak.Part):
            self.assertEqual(ak.Item.from_dict(ak.Item(ak.ItemKind.TOOL, [value]).to_dict()).parts, (value,), label)
        if isinstance(value, (ak.Part, ak.ToolOutput, ak.MetadataMap)):  # the depth kept for containers is exact
            self.assertEqual(_check.depth(value), nesting(wire), label)
            self.assertEqual(_check.depth(back), nesting(wire), f"{label}, measured after decoding")

    def test_good_arguments_construct_and_round_trip(self) -> None:
        rng = random.Random(20250611)
        made = 0
        for spec in SPECS:
            for trial in range(40):
                args = {x.name: GOOD[x.kind](rng) for x in spec.params}
                with self.subTest(spec=spec.name, trial=trial):
                    self.check_made(spec.make(rng, args), spec.name)
                    made += 1
        self.assertEqual(made, 40 * len(SPECS))

    def test_bad_arguments_raise_type_or_value_errors_naming_class_and_field(self) -> None:
        rng = random.Random(11)
        refused = 0
        for spec in SPECS:
            for x in spec.params:
                for bad in BAD[x.kind]:
                    args = {y.name: GOOD[y.kind](rng) for y in spec.params}
                    args[x.name] = bad()
                    with self.subTest(spec=spec.name, param=x.name, bad=repr(args[x.name])[:60]):
                        with self.assertRaises((TypeError, ValueError)) as cm:
                            spec.make(rng, args)
                        exc = cm.exception
                        self.assertIn(type(exc), (TypeError, NormalizeError), repr(exc))
                        self.assertTrue(any(w in str(exc) for w in x.where), f"{exc} names none of {x.where}")
                        refused += 1
        self.assertGreater(refused, 800)

    def test_every_public_value_class_and_factory_is_covered(self) -> None:
        names = {s.name.split(".")[0] for s in SPECS}
        for name in ak.__all__:
            obj = getattr(ak, name)
            if isinstance(obj, type) and (dataclasses.is_dataclass(obj) or obj in ID_TYPES or obj in (ak.Timestamp, ak.MetadataMap)):
                with self.subTest(name=name):
                    self.assertIn(name, names)
        covered = {s.name for s in SPECS}
        for base in (ak.Part, ak.DataRef, ak.ToolOutput, ak.Delta, ak.Item, ak.FinishReason, ak.FilePart, ak.ReasoningPart, ak.ToolResultPart):
            for attr, raw in vars(base).items():
                if type(raw).__name__ == "factory":
                    with self.subTest(factory=f"{base.__name__}.{attr}"):
                        self.assertIn(f"{base.__name__}.{attr}", covered)


class Sums(unittest.TestCase):
    def test_a_sum_the_wire_cannot_carry_is_refused(self) -> None:
        big = ak.TokenUsage(2**63, 2**63, reasoning_tokens=2**63)
        with self.assertRaisesRegex(NormalizeError, r"TokenUsage\.input_tokens"):
            big + big
        with self.assertRaisesRegex(NormalizeError, r"CostUsage\.amount"):
            ak.CostUsage(1e308, "USD") + ak.CostUsage(1e308, "USD")
        with self.assertRaisesRegex(NormalizeError, r"TokenUsage\.input_tokens"):
            ak.Usage(big) + ak.Usage(big)
        self.assertEqual((big + ak.TokenUsage(1, 1)).input_tokens, 2**63 + 1)


class Depth(unittest.TestCase):
    """A value is made only if its wire form nests no deeper than from_dict reads."""

    def attempt(self, make: Callable[[], Any], would: Callable[[], Any], label: str) -> None:
        expected = nesting(would().to_dict()) <= LIMIT
        try:
            value = make()
        except NormalizeError as exc:
            self.assertFalse(expected, f"{label}: refused a value that decodes: {exc}")
            self.assertIn("recursion limit exceeded", str(exc))
        else:
            self.assertTrue(expected, f"{label}: made a value from_dict cannot read")
            self.assertEqual(decoder(value)(value.to_dict()), value, label)

    def test_boundaries_of_every_container(self) -> None:
        rng = random.Random(7)
        EMPTY = ak.EMPTY_METADATA
        cases: list[tuple[str, Callable[[int], Any], Callable[[int], Any]]] = [
            ("ToolCallPart.input", lambda d: deep_part(d), lambda d: forged(ak.ToolCallPart, id=ak.ToolCallId("c"), name="n", input=chain(d - 2), metadata=EMPTY)),
            ("TextPart.metadata", lambda d: ak.TextPart("x", metadata={"k": chain(d - 3)}), lambda d: forged(ak.TextPart, text="x", metadata=forged(ak.MetadataMap, _data={"k": chain(d - 3)}))),
            ("Item.parts", lambda d: ak.Item(ak.ItemKind.TOOL, [ak.TextPart("a"), deep_part(d - 2)]),
             lambda d: forged(ak.Item, kind=ak.ItemKind.TOOL, parts=(forged(ak.ToolCallPart, id=ak.ToolCallId("c"), name="n", input=chain(d - 4), metadata=EMPTY),), id=None, metadata=EMPTY, usage=None, finish_reason=None, created_at=None)),
            ("Item.metadata", lambda d: ak.Item(ak.ItemKind.TOOL, metadata={"k": chain(d - 2)}), lambda d: forged(ak.Item, kind=ak.ItemKind.TOOL, parts=(), id=None, metadata=forged(ak.MetadataMap, _data={"k": chain(d - 2)}), usage=None, finish_reason=None, created_at=None)),
            ("Item.usage", lambda d: ak.Item(ak.ItemKind.TOOL, usage=ak.Usage(metadata={"k": chain(d - 3)})),
             lambda d: forged(ak.Item, kind=ak.ItemKind.TOOL, parts=(), id=None, metadata=EMPTY, usage=forged(ak.Usage, tokens=None, cost=None, metadata=forged(ak.MetadataMap, _data={"k": chain(d - 3)})), finish_reason=None, created_at=None)),
            ("PartsOutput.parts", lambda d: ak.PartsOutput([deep_part(d - 2)]), lambda d: forged(ak.PartsOutput, parts=(forged(ak.ToolCallPart, id=ak.ToolCallId("c"), name="n", input=chain(d - 4), metadata=EMPTY),))),
            ("FilesOutput.files", lambda d: ak.FilesOutput([ak.FilePart(ak.Uri("u"), metadata={"k": chain(d - 4)})]),
             lambda d: forged(ak.FilesOutput, files=(forged(ak.FilePart, data=ak.Uri("u"), name=None, mime_type=None, metadata=forged(ak.MetadataMap, _data={"k": chain(d - 4)})),))),
            ("ToolResultPart.output", lambda d: ak.ToolResultPart(ak.ToolCallId("c"), ak.StructuredOutput(chain(d - 3))),
             lambda d: forged(ak.ToolResultPart, call_id=ak.ToolCallId("c"), output=forged(ak.StructuredOutput, value=chain(d - 3)), is_error=False, metadata=EMPTY)),
            ("CommitPart.part", lambda d: ak.CommitPart(deep_part(d - 2)), lambda d: forged(ak.CommitPart, part=forged(ak.ToolCallPart, id=ak.ToolCallId("c"), name="n", input=chain(d - 4), metadata=EMPTY), part_id=None)),
            ("ReplaceStructured.value", lambda d: ak.ReplaceStructured(ak.PartId("p"), chain(d - 2)), lambda d: forged(ak.ReplaceStructured, part_id=ak.PartId("p"), value=chain(d - 2))),
            ("SetMetadata.metadata", lambda d: ak.SetMetadata(ak.PartId("p"), {"k": chain(d - 3)}), lambda d: forged(ak.SetMetadata, part_id=ak.PartId("p"), metadata=forged(ak.MetadataMap, _data={"k": chain(d - 3)}))),
            ("MetadataMap", lambda d: ak.MetadataMap({"k": chain(d - 1)}), lambda d: forged(ak.MetadataMap, _data={"k": chain(d - 1)})),
        ]
        for label, make, would in cases:
            for d in sorted({LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 2, *(rng.randint(110, 140) for _ in range(4))}):
                with self.subTest(container=label, depth=d):
                    self.attempt(lambda: make(d), lambda: would(d), f"{label} at {d}")

    def test_nested_tool_results_are_bounded_however_they_are_built(self) -> None:
        # Each ToolResultPart(PartsOutput([...])) adds four levels; bottom-up checks stop the tower in time.
        part: ak.Part = ak.TextPart("leaf")
        levels = 0
        with self.assertRaisesRegex(NormalizeError, "recursion limit exceeded"):
            while True:
                part = ak.ToolResultPart(ak.ToolCallId("c"), ak.PartsOutput([part]))
                levels += 1
        self.assertEqual(nesting(part.to_dict()), 3 + 4 * levels)  # a text part nests 3; each result adds 4
        self.assertEqual(ak.Part.from_dict(part.to_dict()), part)
        with self.assertRaises(NormalizeError):
            ak.Item(ak.ItemKind.TOOL, [part])  # the tallest part fits alone, not inside an item
        self.assertEqual(ak.Item.from_dict(ak.Item(ak.ItemKind.TOOL, [part.output.parts[0]]).to_dict()).parts[0], part.output.parts[0])  # type: ignore[attr-defined]

    def test_decoded_parts_are_measured_before_they_go_into_an_item(self) -> None:
        # A part decoded on its own may sit two levels too deep for an item: its depth is measured, not assumed.
        wire = deep_part(LIMIT).to_dict()
        decoded = ak.Part.from_dict(wire)
        with self.assertRaisesRegex(NormalizeError, r"Item\.parts\[1\]"):
            ak.Item(ak.ItemKind.TOOL, [ak.TextPart("x"), decoded])
        shallower = ak.Part.from_dict(deep_part(LIMIT - 2).to_dict())
        item = ak.Item(ak.ItemKind.TOOL, [shallower])
        self.assertEqual(ak.Item.from_dict(item.to_dict()), item)
        for value in (pickle.loads(pickle.dumps(shallower)), copy.copy(shallower), copy.deepcopy(shallower)):
            self.assertEqual(ak.Item(ak.ItemKind.TOOL, [value]).parts, (shallower,))


class Copies(unittest.TestCase):
    def test_a_value_owns_its_payloads(self) -> None:
        rng = random.Random(3)
        for _ in range(50):
            payload = {"a": [1, {"b": "c"}], "d": DictSub(e=[2])}
            meta = {"k": [1, 2], "j": {"x": None}}
            values = [
                ak.ToolCallPart(ak.ToolCallId("c"), "n", payload, metadata=meta),
                ak.StructuredPart(payload, schema=payload, metadata=meta),
                ak.CustomPart("k", value=payload, metadata=meta),
                ak.StructuredOutput(payload),
                ak.ReplaceStructured(ak.PartId("p"), payload),
                ak.SetMetadata(ak.PartId("p"), meta),
                ak.MetadataMap(meta),
                ak.Item(ak.ItemKind.USER, metadata=meta),
            ]
            before = [v.to_dict() for v in values]
            rng.choice([lambda: payload["a"].append(float("nan")), lambda: payload["d"]["e"].append((1,)), lambda: meta["k"].append({1: 2}), lambda: meta.clear()])()
            self.assertEqual([v.to_dict() for v in values], before)

    def test_subclasses_of_builtins_are_stored_as_builtins(self) -> None:
        part = ak.ToolCallPart(ak.ToolCallId(StrSub("c")), StrSub("n"), {StrSub("k"): [IntSub(1), FloatSub(1.5), StrSub("s")]}, metadata={StrSub("m"): IntSub(2)})
        self.assertIs(type(part.id.value), str)
        self.assertIs(type(part.name), str)
        key, (i, f, s) = next(iter(part.input.items()))  # type: ignore[union-attr,misc]
        self.assertEqual([type(key), type(i), type(f), type(s)], [str, int, float, str])
        self.assertEqual([type(k) for k in part.metadata] + [type(v) for v in part.metadata.values()], [str, int])
        self.assertIs(type(ak.TokenUsage(IntSub(3), 4).input_tokens), int)
        self.assertIs(type(ak.CostUsage(IntSub(3), "USD").amount), float)
        self.assertIs(type(ak.Timestamp(IntSub(3)) + 0), int)
        self.assertIs(type(ak.Item(ak.ItemKind.USER, created_at=IntSub(3)).created_at), ak.Timestamp)


if __name__ == "__main__":
    unittest.main()
