"""The value types: construction, factories, builders, equality, hashing, pickling, errors."""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import pickle
import unittest

import agentkit_core as ak
from agentkit_core import (
    AgentError,
    ArtifactId,
    CostUsage,
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    FinishReason,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    MetadataMap,
    Modality,
    NormalizeError,
    Part,
    PartKind,
    PartsOutput,
    ProtocolError,
    ReasoningPart,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    Timestamp,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
    Usage,
)

ID_TYPES = (
    ak.SessionId,
    ak.TurnId,
    ak.MessageId,
    ak.ToolCallId,
    ak.ToolResultId,
    ak.TaskId,
    ak.ProviderMessageId,
    ak.ArtifactId,
    ak.PartId,
    ak.ApprovalId,
)


def every_part() -> list[Part]:
    return [
        TextPart("hi", metadata={"openai.x": 1}),
        MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG")),
        FilePart(Uri("file:///tmp/a.txt"), name="a.txt", mime_type="text/plain"),
        StructuredPart({"a": [1, 2]}, schema={"type": "object"}),
        ReasoningPart("because", data=InlineText("sig"), redacted=True),
        ToolCallPart(ToolCallId("call-1"), "fs_read_file", {"path": "CHANGELOG.md"}),
        ToolResultPart(ToolCallId("call-1"), TextOutput("ok"), is_error=True),
        CustomPart("vendor.thing", data=Handle(ArtifactId("art-1")), value=[None]),
    ]


class Ids(unittest.TestCase):
    def test_str_is_the_string_and_repr_names_the_type(self) -> None:
        for cls in ID_TYPES:
            with self.subTest(cls=cls.__name__):
                x = cls("abc")
                self.assertEqual(str(x), "abc")
                self.assertEqual(f"{x}", "abc")
                self.assertEqual(repr(x), f"{cls.__name__}('abc')")
                self.assertEqual(x.to_dict(), "abc")
                self.assertEqual(cls.from_dict("abc"), x)

    def test_ids_of_different_types_never_compare_equal(self) -> None:
        for a in ID_TYPES:
            for b in ID_TYPES:
                with self.subTest(a=a.__name__, b=b.__name__):
                    self.assertEqual(a("x") == b("x"), a is b)
            self.assertNotEqual(a("x"), "x")

    def test_hashable_orderable_frozen_slotted(self) -> None:
        ids = [ToolCallId("b"), ToolCallId("a"), ToolCallId("c")]
        self.assertEqual(sorted(ids), [ToolCallId("a"), ToolCallId("b"), ToolCallId("c")])
        self.assertEqual(len({ToolCallId("a"), ToolCallId("a"), MessageId("a")}), 2)
        with self.assertRaises(TypeError):
            ToolCallId("a") < MessageId("b")  # type: ignore[operator]  # noqa: B015 - the comparison must raise
        with self.assertRaises(dataclasses.FrozenInstanceError):
            ToolCallId("a").value = "b"  # type: ignore[misc]
        with self.assertRaises(dataclasses.FrozenInstanceError):
            ToolCallId("a").extra = 1  # type: ignore[attr-defined]

    def test_id_decoder_refuses_non_strings(self) -> None:
        for bad in (1, None, ["x"], {"x": 1}, "\ud800"):
            with self.subTest(bad=bad), self.assertRaises(NormalizeError):
                ToolCallId.from_dict(bad)

    def test_timestamp(self) -> None:
        now = Timestamp.now()
        self.assertIsInstance(now, int)
        self.assertGreater(now, 1_700_000_000_000)
        self.assertEqual(Timestamp.from_dict(5).to_dict(), 5)
        self.assertEqual(repr(Timestamp(5)), "Timestamp(5)")
        for bad in (-1, 1.0, True, "5", 2**64):
            with self.subTest(bad=bad), self.assertRaises(NormalizeError):
                Timestamp.from_dict(bad)


class Enums(unittest.TestCase):
    def test_values_are_the_wire_names_in_declared_order(self) -> None:
        self.assertEqual(
            [k.value for k in ItemKind],
            ["System", "Developer", "User", "Assistant", "Tool", "Context", "Notification"],
        )
        self.assertEqual(
            [k.value for k in PartKind],
            ["Text", "Media", "File", "Structured", "Reasoning", "ToolCall", "ToolResult", "Custom"],
        )
        self.assertEqual([m.value for m in Modality], ["Audio", "Image", "Video", "Binary"])
        self.assertEqual(sorted([ItemKind.TOOL, ItemKind.SYSTEM, ItemKind.USER]), [ItemKind.SYSTEM, ItemKind.USER, ItemKind.TOOL])
        self.assertTrue(ItemKind.SYSTEM < ItemKind.NOTIFICATION)
        self.assertTrue(ItemKind.TOOL >= ItemKind.TOOL)
        with self.assertRaises(TypeError):
            ItemKind.SYSTEM < PartKind.TEXT  # type: ignore[operator]  # noqa: B015 - the comparison must raise

    def test_codec(self) -> None:
        self.assertIs(ItemKind.from_dict("User"), ItemKind.USER)
        self.assertIs(ItemKind.from_dict({"User": None}), ItemKind.USER)  # serde accepts this form
        self.assertEqual(PartKind.TOOL_CALL.to_dict(), "ToolCall")
        for bad in ("user", "USER", {"User": 1}, {"User": None, "x": None}, 1, None, ["User"], {"Nope": None}):
            with self.subTest(bad=bad), self.assertRaises(NormalizeError):
                ItemKind.from_dict(bad)


class Finish(unittest.TestCase):
    def test_constants_and_other(self) -> None:
        self.assertEqual(FinishReason.COMPLETED, FinishReason.from_dict("Completed"))
        self.assertEqual(FinishReason.other("content_filter"), FinishReason.other("content_filter"))
        self.assertNotEqual(FinishReason.other("stop"), FinishReason.COMPLETED)
        self.assertEqual(FinishReason.other("x").to_dict(), {"Other": "x"})
        self.assertEqual(FinishReason.MAX_TOKENS.to_dict(), "MaxTokens")
        self.assertEqual(repr(FinishReason.TOOL_CALL), "FinishReason.TOOL_CALL")
        self.assertEqual(repr(FinishReason.other("x")), "FinishReason.other('x')")
        self.assertTrue(FinishReason.other("x").is_other)
        self.assertEqual(len({FinishReason.ERROR, FinishReason.from_dict("Error")}), 1)

    def test_match_with_value_patterns(self) -> None:
        def name(reason: FinishReason) -> str:
            match reason:
                case FinishReason.COMPLETED:
                    return "done"
                case FinishReason(kind="Other", detail=raw):
                    return f"other:{raw}"
                case _:
                    return "else"

        self.assertEqual(name(FinishReason.from_dict("Completed")), "done")
        self.assertEqual(name(FinishReason.from_dict({"Other": "pause_turn"})), "other:pause_turn")
        self.assertEqual(name(FinishReason.BLOCKED), "else")

    def test_constructor_checks_its_arguments(self) -> None:
        with self.assertRaises(ValueError):
            FinishReason("Done")
        with self.assertRaises(TypeError):
            FinishReason("Other")
        with self.assertRaises(TypeError):
            FinishReason("Completed", "x")

    def test_decoder_refusals(self) -> None:
        for bad in ("Other", {"Other": None}, {"Other": 1}, {"Completed": 1}, "completed", 0, [], {"A": 1, "B": 2}):
            with self.subTest(bad=bad), self.assertRaises(NormalizeError):
                FinishReason.from_dict(bad)


class Construction(unittest.TestCase):
    def test_reference_constructor_order(self) -> None:
        self.assertEqual(TokenUsage(1200, 350).input_tokens, 1200)
        self.assertEqual(Usage(TokenUsage(1, 2)).tokens, TokenUsage(1, 2))
        self.assertEqual(CostUsage(0.0042, "USD").currency, "USD")
        call = ToolCallPart(ToolCallId("call-1"), "fs_read_file", {"path": "CHANGELOG.md"})
        self.assertEqual((call.id, call.name, call.input), (ToolCallId("call-1"), "fs_read_file", {"path": "CHANGELOG.md"}))
        item = Item(ItemKind.TOOL, [call])
        self.assertEqual(item.parts, (call,))
        self.assertIsInstance(item.parts, tuple)

    def test_fields_named_like_base_factories_are_required(self) -> None:
        # A dataclass field named like an inherited classmethod silently takes it as default
        # unless declared with field(): these must all demand their argument.
        for cls in (TextPart, TextOutput, PartsOutput, FilesOutput):
            with self.subTest(cls=cls.__name__), self.assertRaises(TypeError):
                cls()  # type: ignore[call-arg]
        self.assertEqual(TextPart("x").text, "x")
        self.assertEqual(TextOutput("x").text, "x")
        self.assertIsInstance(Part.text("x"), TextPart)
        self.assertIsInstance(ToolOutput.text("x"), TextOutput)
        self.assertIsInstance(ToolOutput.parts([]), PartsOutput)
        self.assertIsInstance(ToolOutput.files([]), FilesOutput)

    def test_factories(self) -> None:
        self.assertEqual(Part.text("hi"), TextPart("hi"))
        self.assertEqual(Part.media(Modality.AUDIO, "audio/wav", DataRef.inline_bytes(b"x")), MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"x")))
        self.assertEqual(Part.file(DataRef.uri("u")), FilePart(Uri("u")))
        self.assertEqual(Part.structured([1]), StructuredPart([1]))
        self.assertEqual(Part.reasoning("r"), ReasoningPart("r"))
        self.assertEqual(ReasoningPart.from_summary("r"), ReasoningPart("r"))
        self.assertEqual(ReasoningPart.redacted_summary("r"), ReasoningPart("r", redacted=True))
        self.assertEqual(DataRef.inline_text("t"), InlineText("t"))
        self.assertEqual(DataRef.inline_bytes(bytearray(b"ab")), InlineBytes(b"ab"))
        self.assertEqual(DataRef.handle("art"), Handle(ArtifactId("art")))
        self.assertEqual(FilePart.named("n", Uri("u")), FilePart(Uri("u"), name="n"))
        self.assertEqual(ToolOutput.structured({"a": 1}), StructuredOutput({"a": 1}))
        ok = ToolResultPart.success(ToolCallId("c"), TextOutput("x"))
        err = ToolResultPart.error(ToolCallId("c"), TextOutput("x"))
        self.assertFalse(ok.is_error)
        self.assertTrue(err.is_error)
        self.assertEqual(ok.with_is_error(True), err)
        self.assertEqual(Item.text(ItemKind.USER, "hi"), Item(ItemKind.USER, [TextPart("hi")]))
        self.assertEqual(Item.notification("n").kind, ItemKind.NOTIFICATION)
        self.assertEqual(CustomPart("k").with_value(1).with_data(Uri("u")), CustomPart("k", data=Uri("u"), value=1))

    def test_builders_return_new_values(self) -> None:
        item = Item(ItemKind.ASSISTANT)
        built = (
            item.with_id(MessageId("m"))
            .push_part(TextPart("a"))
            .push_part(TextPart("b"))
            .with_usage(Usage(TokenUsage(1, 2)))
            .with_finish_reason(FinishReason.COMPLETED)
            .with_created_at(5)
            .with_metadata({"agentkit.turn": 1})
        )
        self.assertEqual(item, Item(ItemKind.ASSISTANT))
        self.assertEqual(built.parts, (TextPart("a"), TextPart("b")))
        self.assertEqual(built.created_at, Timestamp(5))
        self.assertIsInstance(built.created_at, Timestamp)
        self.assertEqual(built.metadata, {"agentkit.turn": 1})
        self.assertEqual(built.text_content(), "ab")
        tokens = TokenUsage(1, 2).with_reasoning_tokens(3).with_cached_input_tokens(4).with_cache_write_input_tokens(5)
        self.assertEqual(tokens.to_dict(), {"input_tokens": 1, "output_tokens": 2, "reasoning_tokens": 3, "cached_input_tokens": 4, "cache_write_input_tokens": 5})
        self.assertEqual(CostUsage(1.0, "USD").with_provider_amount("1.00").provider_amount, "1.00")
        file = FilePart(Uri("u")).with_name("n").with_mime_type("text/plain")
        self.assertEqual((file.name, file.mime_type), ("n", "text/plain"))
        self.assertEqual(StructuredPart(1).with_schema({"type": "integer"}).schema, {"type": "integer"})
        reasoning = ReasoningPart().with_data(InlineText("d")).with_redacted(True)
        self.assertEqual((reasoning.data, reasoning.redacted), (InlineText("d"), True))
        for part in every_part():
            with self.subTest(part=type(part).__name__):
                tagged = part.with_metadata({"x.y": [1]})
                self.assertIsInstance(tagged.metadata, MetadataMap)
                self.assertEqual(tagged.metadata, {"x.y": [1]})
                self.assertIsNot(tagged, part)
        self.assertEqual(Usage().with_metadata({"a": 1}).metadata, {"a": 1})

    def test_values_are_frozen_and_slotted(self) -> None:
        for value in every_part() + [Item(ItemKind.USER), Usage(), TokenUsage(1, 2), CostUsage(1.0, "USD"), InlineText("x")]:
            with self.subTest(type=type(value).__name__):
                self.assertFalse(hasattr(value, "__dict__"))
                field = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
                with self.assertRaises(dataclasses.FrozenInstanceError):
                    setattr(value, field, None)

    def test_part_kind_and_match(self) -> None:
        kinds = [p.part_kind for p in every_part()]
        self.assertEqual(kinds, list(PartKind))
        for part in every_part():
            self.assertIsInstance(part, Part)
            match part:
                case TextPart(text=text):
                    self.assertEqual(text, "hi")
                case ToolCallPart(id=call_id, name=name):
                    self.assertEqual((call_id, name), (ToolCallId("call-1"), "fs_read_file"))
                case ToolResultPart(call_id=call_id, output=TextOutput(text=out)):
                    self.assertEqual(out, "ok")
                case _:
                    pass


def every_value() -> list[object]:
    """One value of every public value class (and an enum member, a finish reason constant)."""
    pid = ak.PartId("p")
    return every_part() + [
        Item(ItemKind.ASSISTANT, every_part(), id=MessageId("m"), usage=Usage(TokenUsage(1, 2)), finish_reason=FinishReason.COMPLETED, created_at=Timestamp(3)),
        Usage(TokenUsage(1, 2), cost=CostUsage(1.0, "USD")),
        TokenUsage(1, 2),
        CostUsage(1.0, "USD"),
        FinishReason.other("x"),
        FinishReason.COMPLETED,
        InlineText("x"),
        InlineBytes(b"x"),
        Uri("u"),
        Handle(ArtifactId("a")),
        TextOutput("t"),
        StructuredOutput({"a": 1}),
        PartsOutput([TextPart("x")]),
        FilesOutput([FilePart(Uri("u"))]),
        ak.BeginPart(pid, PartKind.TEXT),
        ak.AppendText(pid, "x"),
        ak.AppendBytes(pid, b"x"),
        ak.ReplaceStructured(pid, [1]),
        ak.SetMetadata(pid, {"a": 1}),
        ak.CommitPart(TextPart("x"), part_id=pid),
        MetadataMap({"a": 1}),
        Timestamp(5),
        *(cls("x") for cls in ID_TYPES),
    ]


class NamesDoNotTrap(unittest.TestCase):
    def test_factories_work_on_the_class_and_refuse_instances(self) -> None:
        factories = {
            Part: ("text", "media", "file", "structured", "reasoning"),
            DataRef: ("inline_text", "inline_bytes", "uri", "handle"),
            ToolOutput: ("text", "structured", "parts", "files"),
            Item: ("text", "notification"),
            FinishReason: ("other",),
            FilePart: ("named",),
            ReasoningPart: ("from_summary", "redacted_summary"),
            ToolResultPart: ("success", "error"),
        }
        for cls, names in factories.items():
            for name in names:
                with self.subTest(factory=f"{cls.__name__}.{name}"):
                    self.assertTrue(callable(getattr(cls, name)))
        self.assertEqual(ToolOutput.structured({"a": 1}), StructuredOutput({"a": 1}))
        self.assertEqual(Item.text(ItemKind.USER, "hi").parts, (TextPart("hi"),))
        self.assertEqual(FinishReason.other("x").detail, "x")
        for value in every_value():
            for cls, names in factories.items():
                if not isinstance(value, cls):
                    continue
                for name in names:
                    field_names = {f.name for f in dataclasses.fields(value)}  # type: ignore[arg-type]
                    with self.subTest(value=type(value).__name__, name=name):
                        if name in field_names:  # TextPart.text, PartsOutput.parts: the field, not the factory
                            self.assertFalse(callable(getattr(value, name)))
                            continue
                        with self.assertRaises(AttributeError) as cm:
                            getattr(value, name)
                        self.assertIn(name, str(cm.exception))
                        self.assertIn(f"{cls.__name__}.{name}", str(cm.exception))
                        self.assertFalse(hasattr(value, name))
        self.assertEqual(TextPart("x").text, "x")
        self.assertEqual(TextOutput("y").text, "y")
        self.assertEqual(ToolOutput.parts([TextPart("x")]).parts, (TextPart("x"),))

    def test_factories_are_not_reachable_from_subclasses(self) -> None:
        # ToolCallPart.text("hi") made a TextPart: a variant offers its own factories, not its base's.
        for base, names in ((Part, ("text", "media", "file", "structured", "reasoning")), (DataRef, ("inline_text", "uri")), (ToolOutput, ("structured", "files"))):
            for variant in base.__subclasses__():
                for name in names:
                    if any(f.name == name for f in dataclasses.fields(variant)):
                        continue  # TextPart.text is the field
                    with self.subTest(variant=variant.__name__, name=name):
                        with self.assertRaises(AttributeError) as cm:
                            getattr(variant, name)
                        self.assertIn(f"{base.__name__}.{name} is a factory", str(cm.exception))
                        self.assertFalse(hasattr(variant, name))
        self.assertEqual(FilePart.named("a.txt", ak.InlineText("x")).name, "a.txt")  # its own factories stay

    def test_base_classes_make_no_values(self) -> None:
        for base in (Part, DataRef, ToolOutput, ak.Delta):
            with self.subTest(base=base.__name__), self.assertRaisesRegex(TypeError, base.__name__):
                base()

    def test_str_and_format_of_every_enum_give_the_wire_name(self) -> None:
        enums = [obj for obj in vars(ak).values() if isinstance(obj, type) and issubclass(obj, enum.Enum)]
        self.assertEqual({e.__name__ for e in enums}, {"ItemKind", "PartKind", "Modality"})
        for cls in enums:
            for member in cls:  # type: ignore[var-annotated]
                with self.subTest(member=member):
                    self.assertEqual(str(member), member.value)
                    self.assertEqual(f"{member}", member.value)
                    self.assertEqual(f"{member:>12}", member.value.rjust(12))
                    self.assertEqual("%s" % member, member.value)
                    self.assertEqual(member.to_dict(), member.value)
                    self.assertTrue(repr(member).startswith(f"<{cls.__name__}."))
        self.assertEqual(str(ItemKind.USER), "User")

    def test_assigning_or_deleting_any_attribute_raises_frozen_instance_error(self) -> None:
        for value in every_value():
            cls = type(value).__name__
            names = ["foo", "__dict__", "_depth"]
            if dataclasses.is_dataclass(value):
                names += [f.name for f in dataclasses.fields(value)]
            for name in names:
                with self.subTest(value=cls, name=name):
                    with self.assertRaises(dataclasses.FrozenInstanceError) as cm:
                        setattr(value, name, 1)
                    self.assertIn(f"{cls}.{name}", str(cm.exception))
                    with self.assertRaises(dataclasses.FrozenInstanceError) as cm:
                        delattr(value, name)
                    self.assertIn(f"{cls}.{name}", str(cm.exception))
        item = Item(ItemKind.USER)
        with self.assertRaisesRegex(dataclasses.FrozenInstanceError, r"cannot assign to Item\.foo"):
            item.foo = 1  # type: ignore[attr-defined]

    def test_decoded_values_are_frozen_the_same(self) -> None:
        for value in every_value():
            if isinstance(value, (MetadataMap, Timestamp)) or not hasattr(value, "to_dict"):
                continue
            decode = next((c.from_dict for c in (Part, DataRef, ToolOutput, ak.Delta) if isinstance(value, c)), type(value).from_dict)  # type: ignore[attr-defined]
            with self.subTest(value=type(value).__name__):
                back = decode(value.to_dict())  # type: ignore[attr-defined]
                self.assertEqual(back, value)
                self.assertIs(type(back), type(value))
                with self.assertRaises(dataclasses.FrozenInstanceError):
                    back.foo = 1


class Accumulation(unittest.TestCase):
    def test_token_usage_adds(self) -> None:
        a = TokenUsage(10, 5, reasoning_tokens=2)
        b = TokenUsage(1, 1, cached_input_tokens=3)
        total = a + b
        self.assertEqual(total, TokenUsage(11, 6, reasoning_tokens=2, cached_input_tokens=3))
        self.assertIsNone(total.cache_write_input_tokens)
        self.assertEqual(sum([a, b]), total)
        self.assertEqual(a.total_tokens, 15)

    def test_every_breakdown_adds_and_none_means_not_reported(self) -> None:
        for name in ("reasoning_tokens", "cached_input_tokens", "cache_write_input_tokens"):
            with self.subTest(name):
                reported, silent = TokenUsage(10, 5, **{name: 4}), TokenUsage(1, 1)
                self.assertEqual(getattr(reported + TokenUsage(2, 2, **{name: 3}), name), 7)
                self.assertEqual(getattr(reported + silent, name), 4)
                self.assertEqual(getattr(silent + reported, name), 4)
                self.assertIsNone(getattr(silent + silent, name))
                self.assertEqual(getattr(sum([reported, silent, reported]), name), 8)
                usage = sum([Usage(reported), Usage(silent)], Usage())
                self.assertEqual(getattr(usage.tokens, name), 4)

    def test_usage_adds_and_sums(self) -> None:
        u1 = Usage(TokenUsage(1, 2), cost=CostUsage(0.5, "USD", provider_amount="0.5"), metadata={"a": 1, "b": 1})
        u2 = Usage(TokenUsage(3, 4), cost=CostUsage(0.25, "USD"), metadata={"b": 2})
        u3 = Usage()
        total = sum([u1, u2, u3], Usage())
        self.assertEqual(total.tokens, TokenUsage(4, 6))
        self.assertEqual(total.cost, CostUsage(0.75, "USD"))
        self.assertEqual(total.metadata, {"a": 1, "b": 2})
        self.assertEqual(Usage() + Usage(), Usage())
        self.assertEqual(sum([u1, u2]), u1 + u2)

    def test_currency_mismatch_is_a_clear_error(self) -> None:
        with self.assertRaisesRegex(ValueError, "'USD' and 'EUR'"):
            Usage(cost=CostUsage(1.0, "USD")) + Usage(cost=CostUsage(1.0, "EUR"))

    def test_adding_other_types_is_a_type_error(self) -> None:
        with self.assertRaises(TypeError):
            TokenUsage(1, 1) + 1  # type: ignore[operator]
        with self.assertRaises(TypeError):
            Usage() + TokenUsage(1, 1)  # type: ignore[operator]


class Metadata(unittest.TestCase):
    def test_read_only_sorted_mapping(self) -> None:
        m = MetadataMap({"b": 1, "a": {"z": 1, "y": 2}})
        self.assertEqual(list(m), ["a", "b"])
        self.assertEqual(m, {"a": {"z": 1, "y": 2}, "b": 1})
        self.assertEqual(len(m), 2)
        self.assertIn("a", m)
        with self.assertRaises(TypeError):
            m["c"] = 1  # type: ignore[index]
        with self.assertRaises(TypeError):
            hash(m)
        self.assertEqual(json.dumps(m.to_dict()), '{"a": {"z": 1, "y": 2}, "b": 1}')  # nested order kept

    def test_merged_without_namespace(self) -> None:
        m = MetadataMap({"openai.id": "x", "openai.n": 1, "anthropic.sig": "s"})
        self.assertEqual(m.merged({"openai.id": "y", "a": 1}), {"openai.id": "y", "openai.n": 1, "anthropic.sig": "s", "a": 1})
        self.assertEqual(list(m.merged({"a": 1})), ["a", "anthropic.sig", "openai.id", "openai.n"])
        self.assertEqual(m.without("openai.id", "nope"), {"openai.n": 1, "anthropic.sig": "s"})
        self.assertIs(m.without("nope"), m)
        self.assertEqual(m.namespace("openai"), {"id": "x", "n": 1})
        self.assertEqual(m, {"openai.id": "x", "openai.n": 1, "anthropic.sig": "s"})

    def test_constructors_accept_plain_dicts(self) -> None:
        part = TextPart("x", metadata={"b": 1, "a": 2})
        self.assertIsInstance(part.metadata, MetadataMap)
        self.assertEqual(list(part.to_dict()["Text"]["metadata"]), ["a", "b"])
        self.assertIs(TextPart("y").metadata, ak.EMPTY_METADATA)


class Hashing(unittest.TestCase):
    def test_scalar_values_hash_and_payload_values_do_not(self) -> None:
        hashable = [ToolCallId("a"), ItemKind.USER, FinishReason.other("x"), Timestamp(1), TokenUsage(1, 2), CostUsage(1.0, "USD"), InlineBytes(b"x"), Uri("u"), TextOutput("t")]
        for value in hashable:
            with self.subTest(value=value):
                self.assertEqual(hash(value), hash(copy.copy(value)))
        for value in every_part() + [Item(ItemKind.USER), Usage(), StructuredOutput({})]:
            with self.subTest(value=type(value).__name__), self.assertRaises(TypeError):
                hash(value)


class Pickling(unittest.TestCase):
    def test_values_pickle(self) -> None:
        values: list[object] = every_part() + [
            Item(ItemKind.ASSISTANT, every_part(), id=MessageId("m"), usage=Usage(TokenUsage(1, 2)), finish_reason=FinishReason.other("x"), created_at=Timestamp(3)),
            MetadataMap({"a": [1]}),
            FinishReason.COMPLETED,
            ItemKind.USER,
            PartsOutput((TextPart("x"),)),
        ]
        for value in values:
            with self.subTest(type=type(value).__name__):
                for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
                    self.assertEqual(pickle.loads(pickle.dumps(value, protocol)), value)

    def test_errors_pickle_intact(self) -> None:
        errors = [
            NormalizeError("invalid type", "parts[2].Text.text"),
            NormalizeError("root problem"),
            ProtocolError("AppendText to part 'p'"),
            AgentError("x"),
        ]
        for err in errors:
            with self.subTest(err=err):
                back = pickle.loads(pickle.dumps(err))
                self.assertIs(type(back), type(err))
                self.assertEqual(str(back), str(err))
                self.assertEqual(back.args, err.args)
        back = pickle.loads(pickle.dumps(errors[0]))
        self.assertEqual((back.message, back.path), ("invalid type", "parts[2].Text.text"))

    def test_error_hierarchy_and_module(self) -> None:
        self.assertTrue(issubclass(NormalizeError, AgentError))
        self.assertTrue(issubclass(NormalizeError, ValueError))
        self.assertTrue(issubclass(ProtocolError, AgentError))
        for cls in (AgentError, NormalizeError, ProtocolError):
            self.assertEqual(cls.__module__, "agentkit_core")


if __name__ == "__main__":
    unittest.main()
