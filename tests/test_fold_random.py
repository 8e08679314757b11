"""Seeded random tests of the fold against a naive model of the rules.

The model below is written from the rules in the issue, as plainly as
possible (lists of chunks, a copy of everything at every step), and shares no
code with the fold.  Generated streams check that ``fold_all`` equals folding
one delta at a time and equals the model; random branching checks purity;
fuzzed deltas check that every misuse raises ``ProtocolError`` and nothing
else.  Every generator is a seeded ``random.Random``, so a failure replays.
"""

from __future__ import annotations

import json
import random
import unittest
from typing import Any, Callable

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
    MediaPart,
    MetadataMap,
    Modality,
    Part,
    PartId,
    PartKind,
    ProtocolError,
    ReasoningPart,
    ReplaceStructured,
    SetMetadata,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    fold,
    fold_all,
)
from tests.forge import forged, lenient

K = PartKind
KINDS = tuple(PartKind)
INPUT_JSON = "agentkit.input_json"
IDS = tuple(f"p{i}" for i in range(6))
TEXT_KINDS = (K.TEXT, K.REASONING, K.TOOL_CALL, K.MEDIA, K.FILE, K.CUSTOM)
BYTES_KINDS = (K.MEDIA, K.FILE, K.REASONING, K.CUSTOM)
REPLACE_KINDS = (K.STRUCTURED, K.TOOL_CALL, K.CUSTOM)
ONE_DATA = (K.MEDIA, K.FILE, K.CUSTOM)
_UNSET = object()


class Refused(Exception):
    """The model's verdict: the rules refuse this delta here."""


# -- the model ---------------------------------------------------------------------------------
# A model state is a list of slots, in begin order.  A slot is either ("done", part) or
# ("open", Open).  apply() never changes its input: it returns a new list.


class Open:
    __slots__ = ("pid", "kind", "text", "raw", "value", "md")

    def __init__(self, pid: str, kind: PartKind) -> None:
        self.pid, self.kind = pid, kind
        self.text: list[str] | None = None
        self.raw: list[bytes] | None = None
        self.value: Any = _UNSET
        self.md: dict[str, Any] = {}

    def copy(self) -> Open:
        new = Open(self.pid, self.kind)
        new.text = None if self.text is None else list(self.text)
        new.raw = None if self.raw is None else list(self.raw)
        new.value, new.md = self.value, dict(self.md)
        return new

    def render(self) -> Part:
        kind, md = self.kind, dict(self.md)
        text = None if self.text is None else "".join(self.text)
        raw = None if self.raw is None else b"".join(self.raw)
        value = None if self.value is _UNSET else self.value
        data = InlineText(text) if text is not None else None if raw is None else InlineBytes(raw)
        if kind is K.TEXT:
            return TextPart(text or "", metadata=md)
        if kind is K.REASONING:
            return ReasoningPart(text, data=None if raw is None else InlineBytes(raw), metadata=md)
        if kind is K.TOOL_CALL:
            if text is not None:
                md[INPUT_JSON] = text
            return ToolCallPart(ToolCallId(""), "", value, metadata=md)
        if kind is K.STRUCTURED:
            return StructuredPart(value, metadata=md)
        if kind is K.MEDIA:
            return MediaPart(Modality.BINARY, "application/octet-stream", data or InlineBytes(b""), metadata=md)
        if kind is K.FILE:
            return FilePart(data or InlineBytes(b""), metadata=md)
        if kind is K.CUSTOM:
            return CustomPart("", data=data, value=value, metadata=md)
        return ToolResultPart(ToolCallId(""), TextOutput(""), metadata=md)


Model = list


def good_pid(pid: object) -> str:
    if type(pid) is not PartId or type(pid.value) is not str:
        raise Refused("bad part id")
    return pid.value


def find_open(model: Model, pid: str) -> int:
    for i, (tag, slot) in enumerate(model):
        if tag == "open" and slot.pid == pid:
            return i
    raise Refused("not open")


def model_apply(model: Model, delta: object) -> Model:
    """The rules, as the issue states them."""
    t = type(delta)
    if t not in (BeginPart, AppendText, AppendBytes, ReplaceStructured, SetMetadata, CommitPart):
        raise Refused("not a delta")
    new = list(model)
    if t is CommitPart:
        part = delta.part  # type: ignore[attr-defined]
        if not isinstance(part, Part):
            raise Refused("not a part")
        if delta.part_id is not None:  # type: ignore[attr-defined]
            i = find_open(model, good_pid(delta.part_id))  # type: ignore[attr-defined]
            if model[i][1].kind is not part.part_kind:
                raise Refused("kind mismatch")
        else:
            for i, (tag, slot) in enumerate(model):  # noqa: B007 - i is read after the loop
                if tag == "open" and slot.kind is part.part_kind:
                    break
            else:
                return new + [("done", part)]
        new[i] = ("done", part)
        return new
    pid = good_pid(delta.part_id)  # type: ignore[attr-defined]
    if t is BeginPart:
        if any(tag == "open" and slot.pid == pid for tag, slot in model):
            raise Refused("already open")
        if not isinstance(delta.kind, PartKind):  # type: ignore[attr-defined]
            raise Refused("bad kind")
        return new + [("open", Open(pid, delta.kind))]  # type: ignore[attr-defined]
    i = find_open(model, pid)
    slot = model[i][1].copy()
    kind = slot.kind
    if t is AppendText:
        if kind not in TEXT_KINDS or (kind in ONE_DATA and slot.raw is not None):
            raise Refused("no text here")
        if kind is K.TOOL_CALL and slot.value is not _UNSET:
            raise Refused("input already replaced")
        if type(delta.chunk) is not str:  # type: ignore[attr-defined]
            raise Refused("chunk not str")
        slot.text = (slot.text or []) + [delta.chunk]  # type: ignore[attr-defined]
    elif t is AppendBytes:
        if kind not in BYTES_KINDS or (kind in ONE_DATA and slot.text is not None):
            raise Refused("no bytes here")
        if not isinstance(delta.chunk, (bytes, bytearray, memoryview)):  # type: ignore[attr-defined]
            raise Refused("chunk not bytes")
        slot.raw = (slot.raw or []) + [bytes(delta.chunk)]  # type: ignore[attr-defined]
    elif t is ReplaceStructured:
        if kind not in REPLACE_KINDS:
            raise Refused("no value here")
        slot.value = delta.value  # type: ignore[attr-defined]
        if kind is K.TOOL_CALL:
            slot.text = None
    else:
        slot.md.update(delta.metadata)  # type: ignore[attr-defined]
    new[i] = ("open", slot)
    return new


def model_picture(model: Model) -> tuple[str, str, tuple[PartId, ...]]:
    parts = tuple(s for tag, s in model if tag == "done")
    snap = tuple(s if tag == "done" else s.render() for tag, s in model)
    return wire(parts), wire(snap), tuple(PartId(s.pid) for tag, s in model if tag == "open")


def wire(parts: tuple[Part, ...]) -> str:
    return json.dumps([p.to_dict() for p in parts], ensure_ascii=False)


def picture(state: FoldState) -> tuple[str, str, tuple[PartId, ...]]:
    return wire(state.parts), wire(state.snapshot()), state.open_ids


# -- generators ----------------------------------------------------------------------------------

ALPHABET = 'ab {}[]",:0é🎉\n\\'


def gen_text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6)))


def gen_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 5)))


def gen_json(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 2 or r < 0.5:
        return rng.choice([None, True, False, 0, -7, 2**40, 1.5, "", "x", "naïve"])
    if r < 0.75:
        return [gen_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice("abcd"): gen_json(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def gen_metadata(rng: random.Random) -> dict[str, Any]:
    return {rng.choice(("a", "b", "openai.x", "anthropic.y")): gen_json(rng) for _ in range(rng.randint(0, 3))}


def gen_part(rng: random.Random, kind: PartKind) -> Part:
    md = gen_metadata(rng)
    if kind is K.TEXT:
        return TextPart(gen_text(rng), metadata=md)
    if kind is K.MEDIA:
        data = rng.choice([InlineBytes(gen_bytes(rng)), InlineText(gen_text(rng)), Uri("https://x/y.png")])
        return MediaPart(rng.choice(tuple(Modality)), "audio/wav", data, metadata=md)
    if kind is K.FILE:
        return FilePart(InlineText(gen_text(rng)), name=rng.choice([None, "a.txt"]), mime_type=None, metadata=md)
    if kind is K.STRUCTURED:
        return StructuredPart(gen_json(rng), schema=rng.choice([None, {"type": "object"}]), metadata=md)
    if kind is K.REASONING:
        return ReasoningPart(rng.choice([None, gen_text(rng)]), data=rng.choice([None, InlineBytes(gen_bytes(rng))]), redacted=rng.random() < 0.3, metadata=md)
    if kind is K.TOOL_CALL:
        return ToolCallPart(ToolCallId(f"call_{rng.randrange(99)}"), rng.choice(["f", "get_weather"]), gen_json(rng), metadata=md)
    if kind is K.TOOL_RESULT:
        output = rng.choice([TextOutput(gen_text(rng)), StructuredOutput(gen_json(rng))])
        return ToolResultPart(ToolCallId("call_1"), output, is_error=rng.random() < 0.2, metadata=md)
    return CustomPart(rng.choice(["vendor.a", ""]), data=rng.choice([None, InlineText("d")]), value=gen_json(rng), metadata=md)


def gen_valid_delta(rng: random.Random, model: Model) -> Delta:
    """One delta the rules accept in ``model``."""
    opened = [s for tag, s in model if tag == "open"]
    free = [p for p in IDS if not any(s.pid == p for s in opened)]
    r = rng.random()
    if free and (not opened or r < 0.2):
        return BeginPart(PartId(rng.choice(free)), rng.choice(KINDS))
    if not opened or r < 0.25:
        return CommitPart(gen_part(rng, rng.choice(KINDS)))  # buffered, or closes the earliest of its kind
    slot = rng.choice(opened)
    pid, kind = PartId(slot.pid), slot.kind
    options: list[Callable[[], Delta]] = [lambda: SetMetadata(pid, gen_metadata(rng))]
    if kind in TEXT_KINDS and not (kind in ONE_DATA and slot.raw is not None) and not (kind is K.TOOL_CALL and slot.value is not _UNSET):
        options += [lambda: AppendText(pid, gen_text(rng))] * 4
    if kind in BYTES_KINDS and not (kind in ONE_DATA and slot.text is not None):
        options += [lambda: AppendBytes(pid, gen_bytes(rng))] * 3
    if kind in REPLACE_KINDS:
        options += [lambda: ReplaceStructured(pid, gen_json(rng))] * 2
    if rng.random() < 0.15:
        return CommitPart(gen_part(rng, kind), part_id=rng.choice([pid, None]))
    return rng.choice(options)()


def gen_valid_stream(rng: random.Random, max_len: int = 40) -> tuple[list[Delta], list[Model]]:
    """A valid stream and the model after each delta (models[0] is empty)."""
    models: list[Model] = [[]]
    deltas: list[Delta] = []
    for _ in range(rng.randint(0, max_len)):
        delta = gen_valid_delta(rng, models[-1])
        deltas.append(delta)
        models.append(model_apply(models[-1], delta))
    return deltas, models


BAD_IDS: tuple[object, ...] = (None, 5, 1.5, b"p0", ToolCallId("p0"), ["p0"], ("p0",))


def gen_any_delta(rng: random.Random, model: Model) -> object:
    """Anything a careless caller might fold: valid or not; the model judges."""
    r = rng.random()
    if r < 0.3:
        return gen_valid_delta(rng, model)
    if r < 0.35:
        return rng.choice([None, 0, "AppendText", b"", {"BeginPart": {"part_id": "p0", "kind": "Text"}}, TextPart("x"), forged(Delta), object()])
    pid: object = PartId(rng.choice(IDS)) if rng.random() < 0.9 else rng.choice(BAD_IDS)
    chunk_text: object = gen_text(rng) if rng.random() < 0.85 else rng.choice([b"x", 3, None, ["a"]])
    chunk_bytes: object = gen_bytes(rng) if rng.random() < 0.85 else rng.choice(["x", 3, None, [1, 2]])
    makers: list[Callable[[], object]] = [
        lambda: lenient(BeginPart, part_id=pid, kind=rng.choice(KINDS) if rng.random() < 0.9 else rng.choice(["Text", 0, None])),
        lambda: lenient(AppendText, part_id=pid, chunk=chunk_text),
        lambda: lenient(AppendBytes, part_id=pid, chunk=chunk_bytes),
        lambda: lenient(ReplaceStructured, part_id=pid, value=gen_json(rng)),
        lambda: lenient(SetMetadata, part_id=pid, metadata=gen_metadata(rng)),
        lambda: lenient(CommitPart, part=gen_part(rng, rng.choice(KINDS)), part_id=pid),
        lambda: forged(CommitPart, part=rng.choice(["text", None, {"Text": {"text": "", "metadata": {}}}]), part_id=None),
    ]
    return rng.choice(makers)()


def judge(model: Model, delta: object) -> Model | None:
    try:
        return model_apply(model, delta)
    except Refused:
        return None


# -- the tests -----------------------------------------------------------------------------------


class StreamTest(unittest.TestCase):
    def test_fold_all_equals_stepwise_fold_and_the_model(self) -> None:
        rng = random.Random(20240601)
        lengths = 0
        for n in range(2000):
            deltas, models = gen_valid_stream(rng)
            lengths += len(deltas)
            state = FoldState()
            for i, delta in enumerate(deltas):
                state = fold(state, delta)
                if i % 9 == 8:
                    self.assertEqual(picture(state), model_picture(models[i + 1]), f"stream {n}, after delta #{i}")
            expected = model_picture(models[-1])
            self.assertEqual(picture(state), expected, f"stream {n}")
            whole = fold_all((), deltas)
            self.assertEqual(picture(whole), expected, f"stream {n}")
            cut = rng.randint(0, len(deltas))
            self.assertEqual(picture(fold_all(fold_all((), deltas[:cut]), deltas[cut:])), expected, f"stream {n}")
        self.assertGreater(lengths, 2000 * 15)  # the streams are not trivially short

    def test_streams_starting_from_committed_parts(self) -> None:
        rng = random.Random(7)
        for n in range(300):
            history = [gen_part(rng, rng.choice(KINDS)) for _ in range(rng.randint(0, 4))]
            deltas, models = gen_valid_stream(rng, 20)
            expected = [("done", p) for p in history] + models[-1]
            given = list(history)
            state = fold_all(given, deltas)
            self.assertEqual(picture(state), model_picture(expected), f"stream {n}")
            self.assertEqual(given, history)

    def test_deltas_round_trip_through_the_wire_format(self) -> None:
        rng = random.Random(99)
        seen = set()
        for _ in range(400):
            for delta in gen_valid_stream(rng)[0]:
                line = json.dumps(delta.to_dict(), ensure_ascii=False)
                back = Delta.from_dict(json.loads(line))
                self.assertEqual(back, delta, line)
                self.assertIs(type(back), type(delta))
                self.assertEqual(json.dumps(back.to_dict(), ensure_ascii=False), line)
                seen.add((type(delta).__name__, getattr(delta, "part_id", None) is not None))
        self.assertEqual(len(seen), 7)  # every variant, and CommitPart with and without part_id


class BranchingTest(unittest.TestCase):
    def test_purity_under_random_branching(self) -> None:
        rng = random.Random(31337)
        for tree in range(100):
            nodes: list[tuple[FoldState, Model, tuple[str, str, tuple[PartId, ...]]]] = [(FoldState(), [], model_picture([]))]
            for _ in range(60):
                state, model, _ = rng.choice(nodes) if rng.random() < 0.6 else nodes[-1]
                if rng.random() < 0.7:
                    delta = gen_valid_delta(rng, model)
                    new_state, new_model = fold(state, delta), model_apply(model, delta)
                else:
                    batch, new_model = [], model
                    for _ in range(rng.randint(1, 8)):
                        batch.append(gen_valid_delta(rng, new_model))
                        new_model = model_apply(new_model, batch[-1])
                    new_state = fold_all(state, batch)
                expected = model_picture(new_model)
                if rng.random() < 0.5:  # render some states now, others only at the end
                    self.assertEqual(picture(new_state), expected, f"tree {tree}")
                nodes.append((new_state, new_model, expected))
            for i, (state, _, expected) in enumerate(nodes):
                self.assertEqual(picture(state), expected, f"tree {tree}, node {i}")


class MisuseTest(unittest.TestCase):
    def test_every_delta_either_folds_as_the_rules_say_or_raises_protocol_error(self) -> None:
        rng = random.Random(4242)
        refused = accepted = 0
        for _ in range(600):
            deltas, models = gen_valid_stream(rng, 25)
            k = rng.randint(0, len(deltas))
            state, model = fold_all((), deltas[:k]), models[k]
            before = picture(state)
            for _ in range(8):
                delta = gen_any_delta(rng, model)
                verdict = judge(model, delta)
                try:
                    after = fold(state, delta)  # type: ignore[arg-type]
                except ProtocolError as exc:
                    self.assertIsNone(verdict, f"refused a valid {delta!r}: {exc}")
                    self.assertTrue(str(exc))
                    refused += 1
                else:
                    self.assertIsNotNone(verdict, f"accepted {delta!r} against {model_picture(model)[1]}")
                    self.assertIsNotNone(verdict)
                    self.assertEqual(picture(after), model_picture(verdict))
                    accepted += 1
                self.assertEqual(picture(state), before)
        self.assertGreater(refused, 1500)
        self.assertGreater(accepted, 1500)

    def test_the_hot_paths_flag_is_the_append_text_rule(self) -> None:
        # fold and fold_all take AppendText on log.takes_text alone; the rules keep it equal to the rule.
        from agentkit_core._fold_rules import text_refusal

        rng = random.Random(777)
        seen = {True: 0, False: 0}
        for _ in range(300):
            deltas, models = gen_valid_stream(rng, 25)
            k = rng.randint(0, len(deltas))
            states = [fold_all((), deltas[:k])]
            model = models[k]
            for _ in range(10):
                base = rng.choice(states)  # an older state: the fold copies it into a new branch
                try:
                    states.append(fold(base, gen_any_delta(rng, model)))  # type: ignore[arg-type]
                except ProtocolError:
                    continue
            for state in states:
                branch = state._branch
                if branch.tip != state._version:
                    continue  # open_parts describe the newest version only
                for log in branch.open_parts.values():
                    self.assertEqual(log.takes_text, text_refusal(log) is None, log.describe())
                    seen[log.takes_text] += 1
        self.assertGreater(min(seen.values()), 100)  # parts that take text and parts that do not

    def test_an_invalid_delta_in_fold_all_is_reported_by_index_and_changes_nothing(self) -> None:
        rng = random.Random(555)
        checked = 0
        for _ in range(500):
            deltas, models = gen_valid_stream(rng, 20)
            start_at = rng.randint(0, len(deltas))
            start = fold_all((), deltas[:start_at])
            before = picture(start)
            bad = gen_any_delta(rng, models[-1])
            if judge(models[-1], bad) is not None:
                continue
            tail = [gen_valid_delta(rng, models[-1]) for _ in range(rng.randint(0, 3))]
            stream = deltas[start_at:] + [bad] + tail
            with self.assertRaises(ProtocolError) as cm:
                fold_all(start, stream)  # type: ignore[list-item]
            self.assertTrue(str(cm.exception).startswith(f"delta #{len(deltas) - start_at}: "), str(cm.exception))
            self.assertEqual(picture(start), before)
            self.assertEqual(picture(fold_all(start, deltas[start_at:])), model_picture(models[-1]))
            checked += 1
        self.assertGreater(checked, 200)

    def test_plain_string_part_ids_never_raise_anything_but_protocol_error(self) -> None:
        # Whether a bare str is accepted as a part id is the fold's choice; crashing is not.
        rng = random.Random(8)
        for _ in range(300):
            deltas, _ = gen_valid_stream(rng, 15)
            state = fold_all((), deltas)
            pid = rng.choice(IDS)
            for delta in (
                forged(BeginPart, part_id=pid, kind=K.TEXT),
                forged(AppendText, part_id=pid, chunk="x"),
                forged(AppendBytes, part_id=pid, chunk=b"x"),
                forged(SetMetadata, part_id=pid, metadata=MetadataMap({"a": 1})),
                forged(CommitPart, part=TextPart("x"), part_id=pid),
            ):
                try:
                    fold(state, delta)
                except ProtocolError:
                    pass

    def test_things_that_are_not_states_raise_protocol_error(self) -> None:
        rng = random.Random(9)
        junk: list[object] = [None, 0, 1.5, "parts", b"parts", object(), [None], [TextPart("a"), 3], ({"Text": {}},)]
        for _ in range(50):
            state = rng.choice(junk)
            with self.assertRaises(ProtocolError):
                fold(state, CommitPart(TextPart("x")))  # type: ignore[arg-type]
            with self.assertRaises(ProtocolError):
                fold_all(state, [CommitPart(TextPart("x"))])  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
