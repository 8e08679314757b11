"""Unit tests of the fold: every rule, commit matching, placeholders, finalize and purity.

The expected values here are written from the rules in the issue and the
fold module's docstring, never copied from the fold's output.
"""

from __future__ import annotations

import copy
import json
import unittest

from agentkit_core import (
    AppendBytes,
    AppendText,
    BeginPart,
    CommitPart,
    CustomPart,
    Delta,
    FilePart,
    FoldState,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    Part,
    PartId,
    PartKind,
    ProtocolError,
    ReasoningPart,
    ReplaceStructured,
    SetMetadata,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    fold,
    fold_all,
)
from tests.forge import forged

K = PartKind
INPUT_JSON = "agentkit.input_json"
INPUT_ERROR = "agentkit.input_error"


def begin(pid: str, kind: PartKind) -> BeginPart:
    return BeginPart(PartId(pid), kind)


def text(pid: str, chunk: str) -> AppendText:
    return AppendText(PartId(pid), chunk)


def data(pid: str, chunk: bytes) -> AppendBytes:
    return AppendBytes(PartId(pid), chunk)


def replace(pid: str, value: object) -> ReplaceStructured:
    return ReplaceStructured(PartId(pid), value)  # type: ignore[arg-type]


def meta(pid: str, **kv: object) -> SetMetadata:
    return SetMetadata(PartId(pid), kv)  # type: ignore[arg-type]


def commit(part: Part, pid: str | None = None) -> CommitPart:
    return CommitPart(part, part_id=None if pid is None else PartId(pid))


def wire(parts: tuple[Part, ...]) -> str:
    """A state's parts as one JSON string: compares values, field order and types at once."""
    return json.dumps([p.to_dict() for p in parts], ensure_ascii=False)


def picture(state: FoldState) -> tuple[str, str, tuple[PartId, ...]]:
    """Everything observable about a state."""
    return wire(state.parts), wire(state.snapshot()), state.open_ids


#: What an open part of each kind shows before anything arrived (the documented placeholders).
EMPTY = {
    K.TEXT: TextPart(""),
    K.MEDIA: MediaPart(Modality.BINARY, "application/octet-stream", InlineBytes(b"")),
    K.FILE: FilePart(InlineBytes(b"")),
    K.STRUCTURED: StructuredPart(None),
    K.REASONING: ReasoningPart(None),
    K.TOOL_CALL: ToolCallPart(ToolCallId(""), "", None),
    K.TOOL_RESULT: ToolResultPart(ToolCallId(""), TextOutput("")),
    K.CUSTOM: CustomPart(""),
}

#: One committed part of each kind.
SAMPLE = {
    K.TEXT: TextPart("done"),
    K.MEDIA: MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF")),
    K.FILE: FilePart(InlineText("a,b\n"), name="t.csv", mime_type="text/csv"),
    K.STRUCTURED: StructuredPart({"ok": True}),
    K.REASONING: ReasoningPart("thought", redacted=False),
    K.TOOL_CALL: ToolCallPart(ToolCallId("call_1"), "search", {"q": "x"}),
    K.TOOL_RESULT: ToolResultPart(ToolCallId("call_1"), TextOutput("found")),
    K.CUSTOM: CustomPart("vendor.thing", value=[1, 2]),
}


def opened(*pairs: tuple[str, PartKind]) -> FoldState:
    return fold_all((), [begin(pid, kind) for pid, kind in pairs])


class BeginTest(unittest.TestCase):
    def test_begin_opens_a_placeholder_at_the_next_position(self) -> None:
        first = TextPart("before")
        state = fold([first], begin("p", K.TEXT))
        self.assertEqual(state.parts, (first,))
        self.assertEqual(state.snapshot(), (first, TextPart("")))
        self.assertEqual(state.open_ids, (PartId("p"),))
        self.assertTrue(state.is_open)

    def test_each_kind_opens_with_its_documented_placeholder(self) -> None:
        for kind in K:
            with self.subTest(kind=kind):
                state = fold((), begin("p", kind))
                self.assertEqual(state.parts, ())
                self.assertEqual(wire(state.snapshot()), wire((EMPTY[kind],)))

    def test_opening_an_open_id_is_refused(self) -> None:
        state = opened(("p", K.TOOL_CALL))
        with self.assertRaises(ProtocolError) as cm:
            fold(state, begin("p", K.TEXT))
        message = str(cm.exception)
        for needle in ("BeginPart", "'p'", "ToolCall part"):
            self.assertIn(needle, message)

    def test_an_id_can_be_opened_again_once_committed(self) -> None:
        state = fold_all((), [begin("p", K.TEXT), commit(TextPart("a"), "p"), begin("p", K.TEXT), text("p", "b")])
        self.assertEqual(state.parts, (TextPart("a"),))
        self.assertEqual(state.snapshot(), (TextPart("a"), TextPart("b")))

    def test_a_kind_that_is_not_a_part_kind_is_refused(self) -> None:
        with self.assertRaises(ProtocolError) as cm:
            fold((), forged(BeginPart, part_id=PartId("p"), kind="Text"))
        self.assertIn("'p'", str(cm.exception))
        self.assertIn("BeginPart", str(cm.exception))


class AllowedCombinationTest(unittest.TestCase):
    """Each allowed delta x kind, with the open part it shows in ``snapshot()``."""

    def check(self, kind: PartKind, deltas: list[Delta], expected: Part) -> None:
        state = fold_all((), [begin("p", kind), *deltas])
        self.assertEqual(state.parts, ())
        self.assertEqual(state.open_ids, (PartId("p"),))
        self.assertEqual(wire(state.snapshot()), wire((expected,)))

    def test_append_text(self) -> None:
        ab = [text("p", "a"), text("p", "b")]
        cases = {
            K.TEXT: TextPart("ab"),
            K.REASONING: ReasoningPart("ab"),
            K.TOOL_CALL: ToolCallPart(ToolCallId(""), "", None, metadata={INPUT_JSON: "ab"}),
            K.MEDIA: MediaPart(Modality.BINARY, "application/octet-stream", InlineText("ab")),
            K.FILE: FilePart(InlineText("ab")),
            K.CUSTOM: CustomPart("", data=InlineText("ab")),
        }
        for kind, expected in cases.items():
            with self.subTest(kind=kind):
                self.check(kind, ab, expected)

    def test_append_text_of_an_empty_chunk_still_counts_as_text(self) -> None:
        self.check(K.FILE, [text("p", "")], FilePart(InlineText("")))
        self.check(K.REASONING, [text("p", "")], ReasoningPart(""))

    def test_append_bytes(self) -> None:
        chunks = [data("p", b"\x00\xff"), data("p", b"\x10")]
        raw = InlineBytes(b"\x00\xff\x10")
        cases = {
            K.MEDIA: MediaPart(Modality.BINARY, "application/octet-stream", raw),
            K.FILE: FilePart(raw),
            K.REASONING: ReasoningPart(None, data=raw),
            K.CUSTOM: CustomPart("", data=raw),
        }
        for kind, expected in cases.items():
            with self.subTest(kind=kind):
                self.check(kind, chunks, expected)

    def test_append_bytes_accepts_bytearray_and_memoryview_and_copies_them(self) -> None:
        buf = bytearray(b"ab")
        view = memoryview(b"cd")
        state = fold_all((), [begin("p", K.MEDIA), AppendBytes(PartId("p"), buf), AppendBytes(PartId("p"), view)])  # type: ignore[arg-type]
        buf[0] = ord("X")
        (part,) = state.snapshot()
        self.assertIsInstance(part, MediaPart)
        self.assertEqual(part.data, InlineBytes(b"abcd"))
        self.assertIs(type(part.data.value), bytes)

    def test_reasoning_takes_a_summary_and_data_at_once(self) -> None:
        deltas = [text("p", "sum"), data("p", b"\x01"), text("p", "mary"), data("p", b"\x02")]
        self.check(K.REASONING, deltas, ReasoningPart("summary", data=InlineBytes(b"\x01\x02")))

    def test_replace_structured(self) -> None:
        cases = {
            K.STRUCTURED: StructuredPart({"b": 2}),
            K.TOOL_CALL: ToolCallPart(ToolCallId(""), "", {"b": 2}),
            K.CUSTOM: CustomPart("", value={"b": 2}),
        }
        for kind, expected in cases.items():
            with self.subTest(kind=kind):
                self.check(kind, [replace("p", {"a": 1}), replace("p", {"b": 2})], expected)

    def test_replace_structured_with_null_sets_null(self) -> None:
        self.check(K.STRUCTURED, [replace("p", [1]), replace("p", None)], StructuredPart(None))

    def test_custom_part_holds_text_data_and_a_value_together(self) -> None:
        deltas = [text("p", "x"), replace("p", 7), text("p", "y")]
        self.check(K.CUSTOM, deltas, CustomPart("", data=InlineText("xy"), value=7))

    def test_replace_structured_drops_tool_argument_text_appended_before(self) -> None:
        self.check(K.TOOL_CALL, [text("p", '{"a"'), replace("p", {"b": 1})], ToolCallPart(ToolCallId(""), "", {"b": 1}))

    def test_set_metadata_on_every_kind(self) -> None:
        for kind in K:
            with self.subTest(kind=kind):
                self.check(kind, [meta("p", x=1)], EMPTY[kind].with_metadata({"x": 1}))

    def test_set_metadata_merges_and_later_keys_win(self) -> None:
        deltas = [meta("p", a=1, b=1), text("p", "t"), meta("p", b=2, c=[3]), SetMetadata(PartId("p"), {})]
        self.check(K.TEXT, deltas, TextPart("t", metadata={"a": 1, "b": 2, "c": [3]}))

    def test_tool_call_argument_text_sits_beside_its_own_metadata(self) -> None:
        deltas = [meta("p", **{"openai.index": 0}), text("p", '{"q":'), text("p", ' "x"}')]
        expected = ToolCallPart(ToolCallId(""), "", None, metadata={"openai.index": 0, INPUT_JSON: '{"q": "x"}'})
        self.check(K.TOOL_CALL, deltas, expected)

    def test_snapshot_does_not_parse_argument_text_while_open(self) -> None:
        # Even complete, valid JSON stays text until the part is committed or finalized.
        self.check(K.TOOL_CALL, [text("p", "{}")], ToolCallPart(ToolCallId(""), "", None, metadata={INPUT_JSON: "{}"}))


#: The combinations the rules refuse, written out by hand (not derived from the fold's tables).
REFUSED = {
    "AppendText": (K.STRUCTURED, K.TOOL_RESULT),
    "AppendBytes": (K.TEXT, K.STRUCTURED, K.TOOL_CALL, K.TOOL_RESULT),
    "ReplaceStructured": (K.TEXT, K.MEDIA, K.FILE, K.REASONING, K.TOOL_RESULT),
}
MAKERS = {
    "AppendText": lambda pid: text(pid, "x"),
    "AppendBytes": lambda pid: data(pid, b"x"),
    "ReplaceStructured": lambda pid: replace(pid, {"x": 1}),
}


class RefusedCombinationTest(unittest.TestCase):
    def assert_refused(self, state: FoldState, delta: object, *needles: str) -> ProtocolError:
        before = picture(state)
        with self.assertRaises(ProtocolError) as cm:
            fold(state, delta)  # type: ignore[arg-type]
        for needle in needles:
            self.assertIn(needle, str(cm.exception))
        self.assertEqual(picture(state), before)
        return cm.exception

    def test_every_refused_combination_names_delta_part_and_kind(self) -> None:
        for name, kinds in REFUSED.items():
            for kind in kinds:
                with self.subTest(delta=name, kind=kind):
                    state = opened(("part-7", kind))
                    self.assert_refused(state, MAKERS[name]("part-7"), name, "'part-7'", f"{kind.value} part")

    def test_exactly_the_other_combinations_are_allowed(self) -> None:
        for name, refused in REFUSED.items():
            for kind in K:
                if kind in refused:
                    continue
                with self.subTest(delta=name, kind=kind):
                    state = fold(opened(("p", kind)), MAKERS[name]("p"))
                    self.assertEqual(state.open_ids, (PartId("p"),))

    def test_media_file_and_custom_hold_text_or_bytes_not_both(self) -> None:
        for kind in (K.MEDIA, K.FILE, K.CUSTOM):
            with self.subTest(kind=kind, first="text"):
                state = fold_all((), [begin("m", kind), text("m", "aGk=")])
                self.assert_refused(state, data("m", b"hi"), "AppendBytes", "'m'", f"{kind.value} part", "inline text")
            with self.subTest(kind=kind, first="bytes"):
                state = fold_all((), [begin("m", kind), data("m", b"hi")])
                self.assert_refused(state, text("m", "aGk="), "AppendText", "'m'", f"{kind.value} part", "inline bytes")

    def test_argument_text_after_replace_structured_is_refused(self) -> None:
        state = fold_all((), [begin("t", K.TOOL_CALL), replace("t", {"a": 1})])
        self.assert_refused(state, text("t", "{"), "AppendText", "'t'", "ToolCall part", "ReplaceStructured")

    def test_deltas_for_an_id_that_is_not_open_are_refused(self) -> None:
        never = fold((), begin("other", K.TEXT))
        closed = fold_all((), [begin("p", K.TEXT), commit(TextPart("x"), "p")])
        deltas = {
            "AppendText": text("p", "x"),
            "AppendBytes": data("p", b"x"),
            "ReplaceStructured": replace("p", 1),
            "SetMetadata": meta("p", a=1),
            "CommitPart": commit(TextPart("x"), "p"),
        }
        for state in (FoldState(), never, closed):
            for name, delta in deltas.items():
                with self.subTest(state=state, delta=name):
                    self.assert_refused(state, delta, name, "'p'", "not open")

    def test_a_chunk_of_the_wrong_type_is_refused(self) -> None:
        cases = [
            (K.TEXT, forged(AppendText, part_id=PartId("p"), chunk=b"x"), "AppendText"),
            (K.TEXT, forged(AppendText, part_id=PartId("p"), chunk=5), "AppendText"),
            (K.MEDIA, forged(AppendBytes, part_id=PartId("p"), chunk="x"), "AppendBytes"),
            (K.REASONING, forged(AppendBytes, part_id=PartId("p"), chunk=[1, 2]), "AppendBytes"),
        ]
        for kind, delta, name in cases:
            with self.subTest(kind=kind, delta=delta):
                self.assert_refused(opened(("p", kind)), delta, name, "'p'")

    def test_a_chunk_of_the_wrong_type_error_names_the_part_kind(self) -> None:
        # The issue: "Errors name the delta, the part id and what the part was."
        cases = [
            (K.TEXT, forged(AppendText, part_id=PartId("p"), chunk=b"x")),
            (K.MEDIA, forged(AppendBytes, part_id=PartId("p"), chunk="x")),
        ]
        for kind, delta in cases:
            with self.subTest(kind=kind):
                self.assert_refused(opened(("p", kind)), delta, f"{kind.value} part")

    def test_things_that_are_not_deltas_are_refused(self) -> None:
        state = opened(("p", K.TEXT))
        for thing in (None, 5, "AppendText", {"AppendText": {"part_id": "p", "chunk": "x"}}, TextPart("x"), forged(Delta)):
            with self.subTest(thing=thing):
                self.assert_refused(state, thing, type(thing).__name__)

    def test_part_ids_that_are_not_part_ids_are_refused(self) -> None:
        state = opened(("p", K.TEXT))
        for bad in (None, 5, b"p", ToolCallId("p"), ["p"]):
            for delta in (
                forged(AppendText, part_id=bad, chunk="x"),
                forged(BeginPart, part_id=bad, kind=K.TEXT),
                forged(CommitPart, part=TextPart("x"), part_id=bad),
            ):
                if bad is None and isinstance(delta, CommitPart):
                    continue  # a CommitPart without part_id is the reference's own shape
                with self.subTest(delta=delta):
                    self.assert_refused(state, delta, type(delta).__name__)

    def test_a_part_id_holding_an_unhashable_value_is_a_protocol_error(self) -> None:
        # PartId(["p"]) is a PartId wrapping a non-string: misuse, so ProtocolError, not TypeError.
        unhashable = forged(PartId, value=["p"])
        for delta in (forged(BeginPart, part_id=unhashable, kind=K.TEXT), forged(AppendText, part_id=unhashable, chunk="x")):
            with self.subTest(delta=delta):
                self.assert_refused(opened(("p", K.TEXT)), delta, type(delta).__name__)

    def test_commit_carrying_something_that_is_not_a_part_is_refused(self) -> None:
        state = opened(("p", K.TEXT))
        self.assert_refused(state, forged(CommitPart, part="hello", part_id=None), "CommitPart", "str")
        self.assert_refused(state, forged(CommitPart, part={"Text": {"text": "x", "metadata": {}}}, part_id=PartId("p")), "CommitPart")


class CommitTest(unittest.TestCase):
    def test_commit_is_authoritative(self) -> None:
        state = fold_all((), [begin("p", K.TEXT), text("p", "draft"), meta("p", a=1), commit(TextPart("final"), "p")])
        self.assertEqual(state.parts, (TextPart("final"),))
        self.assertEqual(state.snapshot(), state.parts)
        self.assertFalse(state.is_open)

    def test_commit_by_part_id_closes_that_part_in_its_position(self) -> None:
        state = fold_all((), [begin("a", K.TEXT), begin("b", K.TEXT), begin("c", K.TEXT), commit(TextPart("B"), "b")])
        self.assertEqual(state.parts, (TextPart("B"),))
        self.assertEqual(state.snapshot(), (TextPart(""), TextPart("B"), TextPart("")))
        self.assertEqual(state.open_ids, (PartId("a"), PartId("c")))

    def test_commit_by_part_id_of_another_kind_is_refused(self) -> None:
        state = fold_all((), [begin("p", K.TOOL_CALL), text("p", "{}")])
        before = picture(state)
        with self.assertRaises(ProtocolError) as cm:
            fold(state, commit(TextPart("x"), "p"))
        for needle in ("CommitPart", "'p'", "Text part", "ToolCall part"):
            self.assertIn(needle, str(cm.exception))
        self.assertEqual(picture(state), before)

    def test_commit_without_part_id_closes_the_earliest_open_part_of_its_kind(self) -> None:
        state = opened(("r", K.REASONING), ("a", K.TEXT), ("b", K.TEXT))
        state = fold(state, commit(TextPart("A")))
        self.assertEqual(state.open_ids, (PartId("r"), PartId("b")))
        self.assertEqual(state.snapshot(), (ReasoningPart(None), TextPart("A"), TextPart("")))
        state = fold(state, commit(TextPart("B")))
        self.assertEqual(state.open_ids, (PartId("r"),))
        self.assertEqual(state.parts, (TextPart("A"), TextPart("B")))

    def test_commit_without_part_id_and_none_open_of_its_kind_is_appended(self) -> None:
        state = fold_all((), [begin("r", K.REASONING), begin("a", K.TEXT), commit(SAMPLE[K.TOOL_CALL])])
        self.assertEqual(state.open_ids, (PartId("r"), PartId("a")))
        self.assertEqual(state.parts, (SAMPLE[K.TOOL_CALL],))
        self.assertEqual(state.snapshot(), (ReasoningPart(None), TextPart(""), SAMPLE[K.TOOL_CALL]))
        # Once the earlier parts commit, the appended one stays after them.
        state = fold_all(state, [commit(TextPart("t")), commit(ReasoningPart("r"))])
        self.assertEqual(state.parts, (ReasoningPart("r"), TextPart("t"), SAMPLE[K.TOOL_CALL]))
        self.assertFalse(state.is_open)

    def test_buffered_response_is_just_commits(self) -> None:
        parts = [SAMPLE[k] for k in K]
        state = fold_all((), [commit(p) for p in parts])
        self.assertEqual(state.parts, tuple(parts))
        self.assertEqual(state.snapshot(), tuple(parts))
        self.assertEqual(state.open_ids, ())

    def test_every_kind_can_be_committed_over_its_open_part(self) -> None:
        for kind in K:
            for pid in (None, "p"):
                with self.subTest(kind=kind, part_id=pid):
                    state = fold_all((), [begin("p", kind), meta("p", x=1), commit(SAMPLE[kind], pid)])
                    self.assertEqual(state.parts, (SAMPLE[kind],))
                    self.assertFalse(state.is_open)

    def test_parts_keep_the_order_they_began_in(self) -> None:
        deltas: list[Delta] = [
            begin("a", K.REASONING),
            begin("b", K.TEXT),
            begin("c", K.TOOL_CALL),
            begin("d", K.TEXT),
            text("d", "D"),
            commit(TextPart("D"), "d"),
            commit(SAMPLE[K.TOOL_CALL], "c"),
            commit(TextPart("B")),  # earliest open Text is now b
            commit(ReasoningPart("A"), "a"),
        ]
        states = [FoldState()]
        for d in deltas:
            states.append(fold(states[-1], d))
        self.assertEqual(states[6].parts, (TextPart("D"),))
        self.assertEqual(states[7].parts, (SAMPLE[K.TOOL_CALL], TextPart("D")))
        self.assertEqual(states[7].snapshot(), (ReasoningPart(None), TextPart(""), SAMPLE[K.TOOL_CALL], TextPart("D")))
        self.assertEqual(states[-1].parts, (ReasoningPart("A"), TextPart("B"), SAMPLE[K.TOOL_CALL], TextPart("D")))
        self.assertEqual(fold_all((), deltas), states[-1])

    def test_folding_onto_committed_parts_keeps_them_first(self) -> None:
        history = [TextPart("one"), SAMPLE[K.TOOL_RESULT]]
        for state in (history, tuple(history), iter(history), FoldState(history)):
            with self.subTest(state=type(state).__name__):
                after = fold_all(state, [begin("p", K.TEXT), text("p", "x"), commit(TextPart("x"))])
                self.assertEqual(after.parts, (TextPart("one"), SAMPLE[K.TOOL_RESULT], TextPart("x")))

    def test_fold_on_an_empty_tuple(self) -> None:
        state = fold((), commit(TextPart("x")))
        self.assertEqual(state.parts, (TextPart("x"),))
        self.assertEqual(FoldState().parts, ())
        self.assertEqual(FoldState().snapshot(), ())
        self.assertFalse(FoldState().is_open)

    def test_a_state_that_is_not_parts_is_refused(self) -> None:
        for bad in (None, 5, "text", b"text", [TextPart("a"), "b"], [{"Text": {"text": "a", "metadata": {}}}]):
            with self.subTest(state=bad):
                with self.assertRaises(ProtocolError):
                    fold(bad, commit(TextPart("x")))  # type: ignore[arg-type]
                with self.assertRaises(ProtocolError):
                    fold_all(bad, [])  # type: ignore[arg-type]


class AdapterShapeTest(unittest.TestCase):
    """The shapes the reference's own adapters emit."""

    def test_openai_compatible_shape(self) -> None:
        # part-{choice}-reasoning / -content / -tool-{index}; arguments as raw JSON fragments;
        # every part committed (without part_id) when the response finishes.
        deltas: list[Delta] = [
            begin("part-0-reasoning", K.REASONING),
            text("part-0-reasoning", "The user wants "),
            begin("part-0-content", K.TEXT),
            text("part-0-content", "Let me "),
            text("part-0-reasoning", "the weather."),
            begin("part-0-tool-0", K.TOOL_CALL),
            text("part-0-tool-0", '{"city":'),
            text("part-0-content", "check."),
            text("part-0-tool-0", ' "Paris"}'),
        ]
        mid = fold_all((), deltas)
        self.assertEqual(
            mid.snapshot(),
            (
                ReasoningPart("The user wants the weather."),
                TextPart("Let me check."),
                ToolCallPart(ToolCallId(""), "", None, metadata={INPUT_JSON: '{"city": "Paris"}'}),
            ),
        )
        call = ToolCallPart(ToolCallId("call_abc"), "get_weather", {"city": "Paris"})
        end = fold_all(
            mid,
            [commit(ReasoningPart("The user wants the weather.")), commit(TextPart("Let me check.")), commit(call)],
        )
        self.assertEqual(end.parts, (ReasoningPart("The user wants the weather."), TextPart("Let me check."), call))
        self.assertFalse(end.is_open)

    def test_openai_compatible_shape_with_two_tool_calls(self) -> None:
        c0 = ToolCallPart(ToolCallId("call_0"), "a", {"x": 1})
        c1 = ToolCallPart(ToolCallId("call_1"), "b", {"y": 2})
        deltas: list[Delta] = [
            begin("part-0-content", K.TEXT),
            begin("part-0-tool-0", K.TOOL_CALL),
            begin("part-0-tool-1", K.TOOL_CALL),
            text("part-0-tool-1", '{"y"'),
            text("part-0-tool-0", '{"x"'),
            text("part-0-tool-0", ": 1}"),
            text("part-0-tool-1", ": 2}"),
            commit(TextPart("")),
            commit(c0),
            commit(c1),
        ]
        self.assertEqual(fold_all((), deltas).parts, (TextPart(""), c0, c1))

    def test_anthropic_shape(self) -> None:
        # part-{index} per content block, each committed when it stops; some with no appends.
        redacted = ReasoningPart(None, data=InlineText("EqkECkYIBxgC"), redacted=True)
        thinking = ReasoningPart("Let me think.", metadata={"anthropic.signature": "sig=="})
        call = ToolCallPart(ToolCallId("toolu_01"), "get_time", {})
        deltas: list[Delta] = [
            begin("part-0", K.REASONING),
            commit(redacted),
            begin("part-1", K.REASONING),
            text("part-1", "Let me "),
            text("part-1", "think."),
            meta("part-1", **{"anthropic.signature": "sig=="}),
            commit(thinking),
            begin("part-2", K.TEXT),
            text("part-2", "Hi"),
            commit(TextPart("Hi")),
            begin("part-3", K.TOOL_CALL),
            commit(call),
        ]
        states = [FoldState()]
        for d in deltas:
            states.append(fold(states[-1], d))
        self.assertEqual(states[2].parts, (redacted,))
        self.assertEqual(states[6].snapshot(), (redacted, ReasoningPart("Let me think.", metadata={"anthropic.signature": "sig=="})))
        self.assertEqual(states[11].snapshot(), (redacted, thinking, TextPart("Hi"), EMPTY[K.TOOL_CALL]))
        self.assertEqual(states[-1].parts, (redacted, thinking, TextPart("Hi"), call))
        self.assertEqual(fold_all((), deltas), states[-1])


class PlaceholderTest(unittest.TestCase):
    def test_open_tool_call_has_no_id_name_or_input_yet(self) -> None:
        state = fold_all((), [begin("t", K.TOOL_CALL), text("t", '{"a": ')])
        (part,) = state.snapshot()
        self.assertIsInstance(part, ToolCallPart)
        self.assertEqual((part.id, part.name, part.input), (ToolCallId(""), "", None))
        self.assertEqual(part.metadata[INPUT_JSON], '{"a": ')

    def test_open_media_is_binary_octet_stream_until_committed(self) -> None:
        state = fold_all((), [begin("m", K.MEDIA), data("m", b"RI"), data("m", b"FF")])
        self.assertEqual(state.snapshot(), (MediaPart(Modality.BINARY, "application/octet-stream", InlineBytes(b"RIFF")),))
        real = MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF"))
        self.assertEqual(fold(state, commit(real)).snapshot(), (real,))

    def test_open_file_has_no_name_or_mime_type(self) -> None:
        state = fold_all((), [begin("f", K.FILE), text("f", "a,b")])
        self.assertEqual(state.snapshot(), (FilePart(InlineText("a,b"), name=None, mime_type=None),))

    def test_open_custom_part_has_empty_kind(self) -> None:
        state = fold_all((), [begin("c", K.CUSTOM), replace("c", {"v": 1})])
        self.assertEqual(state.snapshot(), (CustomPart("", data=None, value={"v": 1}),))

    def test_snapshot_renders_each_open_part_from_what_has_arrived_so_far(self) -> None:
        state = fold((), begin("p", K.TEXT))
        seen = []
        for chunk in ("a", "b", "c"):
            state = fold(state, text("p", chunk))
            seen.append(state.snapshot())
        self.assertEqual(seen, [(TextPart("a"),), (TextPart("ab"),), (TextPart("abc"),)])

    def test_snapshot_without_open_parts_is_parts(self) -> None:
        state = fold_all((), [commit(TextPart("a")), commit(TextPart("b"))])
        self.assertEqual(state.snapshot(), state.parts)


class FinalizeTest(unittest.TestCase):
    def finalized_call(self, *chunks: str) -> ToolCallPart:
        state = fold_all((), [begin("t", K.TOOL_CALL), *[text("t", c) for c in chunks]])
        before = picture(state)
        (part,) = state.finalize()
        self.assertEqual(picture(state), before)  # finalize closes nothing
        self.assertIsInstance(part, ToolCallPart)
        return part

    def test_argument_fragments_are_parsed_once_joined(self) -> None:
        part = self.finalized_call('{"city"', ': "Par', 'is", "n": [1, 2.5, true, null]}')
        self.assertEqual(part.input, {"city": "Paris", "n": [1, 2.5, True, None]})
        self.assertNotIn(INPUT_JSON, part.metadata)
        self.assertNotIn(INPUT_ERROR, part.metadata)

    def test_malformed_argument_text_is_kept_not_raised(self) -> None:
        for chunks in (['{"city": "Par'], ["{", "}}"], ["not json"], ["NaN"], ["[Infinity]"], ["[" * 100_000]):
            with self.subTest(text="".join(chunks)[:20]):
                part = self.finalized_call(*chunks)
                self.assertIsNone(part.input)
                self.assertEqual(part.metadata[INPUT_JSON], "".join(chunks))
                self.assertIsInstance(part.metadata[INPUT_ERROR], str)
                self.assertTrue(part.metadata[INPUT_ERROR])
                json.dumps(part.to_dict(), allow_nan=False)  # still a valid wire value

    def test_malformed_argument_text_keeps_the_calls_own_metadata(self) -> None:
        state = fold_all((), [begin("t", K.TOOL_CALL), meta("t", **{"openai.index": 2}), text("t", "{")])
        (part,) = state.finalize()
        self.assertEqual(set(part.metadata), {"openai.index", INPUT_JSON, INPUT_ERROR})

    def test_empty_argument_text_is_an_empty_object(self) -> None:
        self.assertEqual(self.finalized_call("").input, {})
        self.assertEqual(self.finalized_call(" ", "\n").input, {})

    def test_json_the_wire_cannot_carry_is_kept_as_malformed(self) -> None:
        # The reference (serde_json) refuses these, and so does this package's own codec; a
        # finalized tool call must stay a valid wire value, with the text kept in metadata.
        for raw in ('{"a": 1e999}', '"\\ud800"', "[" * 200 + "]" * 200):
            with self.subTest(text=raw[:20]):
                part = self.finalized_call(raw)
                self.assertIsNone(part.input)
                self.assertEqual(part.metadata[INPUT_JSON], raw)
                self.assertIn(INPUT_ERROR, part.metadata)
                encoded = json.dumps(part.to_dict(), allow_nan=False)
                self.assertEqual(Part.from_dict(json.loads(encoded)), part)

    def test_a_finalized_call_always_fits_in_an_item(self) -> None:
        for levels in (122, 123, 124, 125):
            raw = "[" * levels + "]" * levels
            with self.subTest(levels=levels):
                part = self.finalized_call(raw)
                item = Item(ItemKind.ASSISTANT, [part])  # refused if the input nested too deep for an item
                self.assertEqual(Item.from_dict(json.loads(json.dumps(item.to_dict()))), item)
                self.assertEqual(part.input is None, levels > 123)

    def test_a_replaced_input_is_kept(self) -> None:
        state = fold_all((), [begin("t", K.TOOL_CALL), text("t", "{"), replace("t", [1])])
        self.assertEqual(state.finalize(), (ToolCallPart(ToolCallId(""), "", [1]),))

    def test_other_parts_finalize_as_their_snapshot(self) -> None:
        state = fold_all(
            [TextPart("old")],
            [begin("a", K.TEXT), text("a", "x"), begin("m", K.MEDIA), data("m", b"1"), commit(TextPart("late"))],
        )
        self.assertEqual(state.finalize(), state.snapshot())
        done = fold_all((), [commit(TextPart("a"))])
        self.assertEqual(done.finalize(), done.parts)


class PurityTest(unittest.TestCase):
    STREAM: list[Delta] = [
        begin("r", K.REASONING),
        text("r", "think"),
        data("r", b"\x01"),
        begin("t", K.TOOL_CALL),
        meta("t", nested={"k": [1, 2]}),
        text("t", '{"a":'),
        begin("s", K.STRUCTURED),
        replace("s", {"deep": {"list": [1, {"x": 2}]}}),
        text("r", "ing"),
        commit(StructuredPart({"deep": 1}), "s"),
        text("t", " 1}"),
        commit(ReasoningPart("thinking", metadata={"m": {"n": 1}})),
        commit(ToolCallPart(ToolCallId("c"), "f", {"a": 1})),
        begin("x", K.TEXT),
        text("x", "tail"),
    ]

    def test_fold_never_mutates_deltas(self) -> None:
        before = [copy.deepcopy(d.to_dict()) for d in self.STREAM]
        states = [FoldState()]
        for d in self.STREAM:
            states.append(fold(states[-1], d))
            states[-1].snapshot()
            states[-1].finalize()
        fold_all((), self.STREAM).snapshot()
        self.assertEqual([d.to_dict() for d in self.STREAM], before)

    def test_fold_never_mutates_the_initial_parts_list(self) -> None:
        history = [TextPart("a"), SAMPLE[K.CUSTOM]]
        alias = history
        state = fold_all(history, self.STREAM)
        fold(history, commit(TextPart("b")))
        self.assertIs(alias, history)
        self.assertEqual(history, [TextPart("a"), SAMPLE[K.CUSTOM]])
        history.append(TextPart("later"))
        history[0] = TextPart("changed")
        self.assertEqual(state.parts[:2], (TextPart("a"), SAMPLE[K.CUSTOM]))
        self.assertEqual(len(state.parts), 5)  # 2 given + 3 committed; x is still open

    def test_every_earlier_state_renders_the_same_after_later_folds(self) -> None:
        states = [FoldState()]
        pictures = [picture(states[0])]
        for d in self.STREAM:
            states.append(fold(states[-1], d))
            pictures.append(picture(states[-1]))
        # Fold more onto the last state, onto every earlier one, and in one pass from the start.
        fold_all(states[-1], [text("x", "more"), commit(TextPart("end"))]).snapshot()
        for i, state in enumerate(states):
            try:
                fold(state, commit(TextPart("branch"))).snapshot()
                fold_all(state, [begin("zz", K.TEXT), text("zz", "q")]).snapshot()
            except ProtocolError:  # pragma: no cover - both deltas fit every state
                self.fail(f"state {i} refused a delta that fits it")
        fold_all((), self.STREAM).snapshot()
        self.assertEqual([picture(s) for s in states], pictures)

    def test_two_deltas_onto_one_state_give_independent_results(self) -> None:
        base = fold_all((), [begin("p", K.TEXT), text("p", "ab"), begin("b", K.MEDIA), data("b", b"1")])
        a = fold(base, text("p", "X"))
        b = fold(base, text("p", "Y"))
        ab = fold(base, data("b", b"2"))
        self.assertEqual(a.snapshot()[0], TextPart("abX"))
        self.assertEqual(b.snapshot()[0], TextPart("abY"))
        self.assertEqual(ab.snapshot()[0], TextPart("ab"))
        self.assertEqual(base.snapshot()[0], TextPart("ab"))
        self.assertEqual(a.snapshot()[1].data, InlineBytes(b"1"))  # type: ignore[attr-defined]
        self.assertEqual(ab.snapshot()[1].data, InlineBytes(b"12"))  # type: ignore[attr-defined]

    def test_long_branches_and_branches_of_branches(self) -> None:
        base = fold_all([TextPart("h")], [begin("p", K.TEXT), text("p", "0"), begin("d", K.FILE), data("d", b"0")])
        left = fold_all(base, [x for i in range(50) for x in (text("p", "L"), data("d", b"L"))])
        right = fold_all(base, [x for i in range(50) for x in (text("p", "R"), data("d", b"R"))])
        left_left = fold_all(left, [text("p", "x")] * 10 + [commit(TextPart("LL"))])
        left_right = fold_all(left, [text("p", "y")] * 10 + [commit(FilePart(InlineText("LR")))])
        self.assertEqual(base.snapshot(), (TextPart("h"), TextPart("0"), FilePart(InlineBytes(b"0"))))
        self.assertEqual(left.snapshot(), (TextPart("h"), TextPart("0" + "L" * 50), FilePart(InlineBytes(b"0" + b"L" * 50))))
        self.assertEqual(right.snapshot(), (TextPart("h"), TextPart("0" + "R" * 50), FilePart(InlineBytes(b"0" + b"R" * 50))))
        self.assertEqual(left_left.parts, (TextPart("h"), TextPart("LL")))
        self.assertEqual(left_left.snapshot()[2], FilePart(InlineBytes(b"0" + b"L" * 50)))
        self.assertEqual(left_right.parts, (TextPart("h"), FilePart(InlineText("LR"))))
        self.assertEqual(left_right.snapshot()[1], TextPart("0" + "L" * 50 + "y" * 10))
        # The branches did not disturb what they branched from.
        self.assertEqual(left.snapshot()[1], TextPart("0" + "L" * 50))
        self.assertEqual(base.snapshot()[1], TextPart("0"))

    def test_interleaved_folding_of_two_branches(self) -> None:
        base = fold_all((), [begin("p", K.TEXT), text("p", "s"), begin("q", K.REASONING)])
        a, b = base, base
        for i in range(30):
            a = fold(a, text("p", "a"))
            b = fold(b, text("p", "b"))
            if i % 7 == 3:
                a = fold(a, data("q", bytes([i])))
                b = fold(b, text("q", str(i)))
            # A snapshot between steps must not pin either branch's view of the other.
            a.snapshot(), b.snapshot()
        self.assertEqual(a.snapshot()[0], TextPart("s" + "a" * 30))
        self.assertEqual(b.snapshot()[0], TextPart("s" + "b" * 30))
        self.assertEqual(a.snapshot()[1], ReasoningPart(None, data=InlineBytes(bytes([3, 10, 17, 24]))))
        self.assertEqual(b.snapshot()[1], ReasoningPart("3101724"))
        a = fold(a, commit(TextPart("A")))
        b = fold(b, commit(ReasoningPart("B")))
        self.assertEqual(a.parts, (TextPart("A"),))
        self.assertEqual(b.parts, (ReasoningPart("B"),))
        self.assertEqual(base.snapshot(), (TextPart("s"), ReasoningPart(None)))

    def test_branching_on_committed_parts(self) -> None:
        base = fold_all((), [commit(TextPart("1"))])
        a = fold(base, commit(TextPart("a")))
        b = fold(base, commit(TextPart("b")))
        a2 = fold(a, commit(TextPart("a2")))
        self.assertEqual(a.parts, (TextPart("1"), TextPart("a")))
        self.assertEqual(b.parts, (TextPart("1"), TextPart("b")))
        self.assertEqual(a2.parts, (TextPart("1"), TextPart("a"), TextPart("a2")))
        self.assertEqual(base.parts, (TextPart("1"),))

    def test_state_is_unchanged_after_a_protocol_error(self) -> None:
        base = fold_all((), [begin("p", K.TEXT), text("p", "ab"), begin("m", K.MEDIA), data("m", b"1")])
        before = picture(base)
        bad_streams: list[list[object]] = [
            [text("p", "c"), data("m", b"2"), commit(TextPart("x"), "p"), replace("p", 1)],
            [text("p", "c"), begin("m", K.TEXT)],
            [commit(TextPart("x")), commit(MediaPart(Modality.AUDIO, "a", InlineBytes(b""))), text("p", "late")],
            [begin("n", K.TEXT), text("n", "x"), 42],
        ]
        for stream in bad_streams:
            with self.subTest(stream=stream):
                with self.assertRaises(ProtocolError):
                    fold_all(base, stream)  # type: ignore[arg-type]
                with self.assertRaises(ProtocolError):
                    state = base
                    for d in stream:
                        state = fold(state, d)  # type: ignore[arg-type]
                self.assertEqual(picture(base), before)
        # And it folds on as if nothing happened.
        after = fold_all(base, [text("p", "c"), data("m", b"2")])
        self.assertEqual(after.snapshot(), (TextPart("abc"), MediaPart(Modality.BINARY, "application/octet-stream", InlineBytes(b"12"))))

    def test_fold_all_error_names_the_delta_index(self) -> None:
        stream = [begin("p", K.TEXT), text("p", "a"), data("p", b"x"), text("p", "b")]
        with self.assertRaises(ProtocolError) as cm:
            fold_all((), stream)
        message = str(cm.exception)
        self.assertTrue(message.startswith("delta #2: "), message)
        for needle in ("AppendBytes", "'p'", "Text part"):
            self.assertIn(needle, message)
        with self.assertRaises(ProtocolError) as cm:
            fold_all((), [text("q", "x")])
        self.assertTrue(str(cm.exception).startswith("delta #0: "))

    def test_fold_all_equals_folding_one_at_a_time(self) -> None:
        state = FoldState()
        for d in self.STREAM:
            state = fold(state, d)
        whole = fold_all((), iter(self.STREAM))
        self.assertEqual(picture(whole), picture(state))
        self.assertEqual(whole, state)
        half = fold_all(fold_all((), self.STREAM[:7]), self.STREAM[7:])
        self.assertEqual(picture(half), picture(state))

    def test_fold_all_of_nothing_is_the_same_state(self) -> None:
        base = fold_all([TextPart("x")], [begin("p", K.TEXT)])
        self.assertEqual(picture(fold_all(base, [])), picture(base))


class HeaderKeyTest(unittest.TestCase):
    """Open parts show their header from agentkit.* metadata keys; commits are unaffected."""

    def test_tool_call_header_shows_while_open_and_leaves_metadata(self) -> None:
        from agentkit_core import PartId as P

        state = fold_all(
            (),
            [
                BeginPart(P("t"), PartKind.TOOL_CALL),
                SetMetadata(P("t"), {"agentkit.tool_call_id": "call_1", "agentkit.tool_name": "get_weather", "openai.index": 0}),
                AppendText(P("t"), '{"city": "Par'),
            ],
        )
        (part,) = state.snapshot()
        self.assertEqual((part.id, part.name), (ToolCallId("call_1"), "get_weather"))
        self.assertEqual(dict(part.metadata), {"agentkit.input_json": '{"city": "Par', "openai.index": 0})
        committed = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Paris"})
        self.assertEqual(fold(state, CommitPart(committed, part_id=P("t"))).parts, (committed,))

    def test_media_file_custom_and_result_headers(self) -> None:
        from agentkit_core import PartId as P

        deltas = [
            BeginPart(P("m"), PartKind.MEDIA),
            SetMetadata(P("m"), {"agentkit.modality": "Audio", "agentkit.mime_type": "audio/wav"}),
            BeginPart(P("f"), PartKind.FILE),
            SetMetadata(P("f"), {"agentkit.file_name": "a.txt", "agentkit.mime_type": "text/plain"}),
            BeginPart(P("c"), PartKind.CUSTOM),
            SetMetadata(P("c"), {"agentkit.custom_kind": "vendor.thing"}),
            BeginPart(P("r"), PartKind.TOOL_RESULT),
            SetMetadata(P("r"), {"agentkit.tool_call_id": "call_9"}),
        ]
        media, file, custom, result = fold_all((), deltas).snapshot()
        self.assertEqual((media.modality, media.mime_type), (Modality.AUDIO, "audio/wav"))
        self.assertEqual((file.name, file.mime_type), ("a.txt", "text/plain"))
        self.assertEqual(custom.kind, "vendor.thing")
        self.assertEqual(result.call_id, ToolCallId("call_9"))
        for part in (media, file, custom, result):
            self.assertEqual(dict(part.metadata), {})

    def test_an_open_tool_result_keeps_the_tool_name_it_answers(self) -> None:
        from agentkit_core import PartId as P

        name = {"agentkit.tool_name": "get_weather"}
        state = fold_all((), [BeginPart(P("r"), PartKind.TOOL_RESULT), SetMetadata(P("r"), {"agentkit.tool_call_id": "call_9", **name})])
        (result,) = state.snapshot()
        self.assertEqual((result.call_id, dict(result.metadata)), (ToolCallId("call_9"), name))
        committed = ToolResultPart(ToolCallId("call_9"), TextOutput("sunny"), metadata=name)
        self.assertEqual(fold(state, CommitPart(committed, part_id=P("r"))).parts, (committed,))

    def test_bad_header_values_fall_back_to_placeholders(self) -> None:
        from agentkit_core import PartId as P

        state = fold_all(
            (),
            [
                BeginPart(P("m"), PartKind.MEDIA),
                SetMetadata(P("m"), {"agentkit.modality": "Smell", "agentkit.mime_type": 7}),
            ],
        )
        (media,) = state.snapshot()
        self.assertEqual((media.modality, media.mime_type), (Modality.BINARY, "application/octet-stream"))


class PartIdSubclassTest(unittest.TestCase):
    def test_a_part_id_subclass_addresses_the_part_of_its_string(self) -> None:
        class VendorId(PartId):
            pass

        deltas: list[Delta] = [
            begin("p", K.TEXT),
            AppendText(VendorId("p"), "a"),
            AppendText(VendorId("p"), "b"),
            text("p", "c"),
            AppendText(VendorId("p"), "d"),
        ]
        whole = fold_all((), deltas)
        self.assertEqual(whole.snapshot(), (TextPart("abcd"),))
        self.assertEqual(whole.open_ids, (PartId("p"),))
        state = FoldState()
        for delta in deltas:
            state = fold(state, delta)
        self.assertEqual(picture(state), picture(whole))
        closed = fold_all(whole, [CommitPart(TextPart("done"), part_id=VendorId("p"))])
        self.assertEqual(closed.parts, (TextPart("done"),))


class FoldStateTest(unittest.TestCase):
    def test_equality_compares_snapshot_and_open_ids(self) -> None:
        open_empty = fold((), begin("p", K.TEXT))
        committed_empty = fold((), commit(TextPart("")))
        self.assertEqual(open_empty.snapshot(), committed_empty.snapshot())
        self.assertNotEqual(open_empty, committed_empty)
        self.assertEqual(open_empty, fold((), begin("p", K.TEXT)))
        self.assertNotEqual(open_empty, fold((), begin("q", K.TEXT)))
        self.assertNotEqual(FoldState(), ())
        with self.assertRaises(TypeError):
            hash(FoldState())

    def test_repr_names_counts_and_open_ids(self) -> None:
        state = fold_all((), [commit(TextPart("a")), begin("p-1", K.TEXT)])
        self.assertEqual(repr(state), "<FoldState: 1 committed parts, open: ['p-1']>")


if __name__ == "__main__":
    unittest.main()
