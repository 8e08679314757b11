"""The design's API stability bar, as tests.

1. a fake stateless provider and a fake stateful provider map into the types cleanly;
2. a voice-only provider maps audio in and out, streamed as bytes;
3. shell and filesystem tool results fit without awkward escaping;
4. one reporter renders every stream -- the four shipped projections' recorded
   streams and the fakes' -- with no provider-specific branching;
5. compaction summarises a long transcript from nothing but what the items hold.

Plus the projection protocols: ``Item`` is an ``ItemView`` and every adapter
module (shipped and fake) has the ``ProviderAdapter`` callables.
"""

from __future__ import annotations

import base64
import inspect
import json
import unittest
from types import ModuleType
from typing import Any, Iterable, Sequence

from agentkit_core import (
    AppendBytes,
    BeginPart,
    CommitPart,
    CustomPart,
    FilePart,
    FinishReason,
    FoldState,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    ItemView,
    MediaPart,
    Modality,
    NormalizeError,
    Part,
    PartKind,
    PartsOutput,
    ProviderAdapter,
    ReasoningPart,
    SetMetadata,
    StreamDecoder,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Uri,
    Usage,
    fold,
)
from tests import recorded
from tests.fakes import compaction, reporter, stateful, stateless, tools, voice
from tests.recorded import stored

REFERENCE = recorded.PROVIDERS
FAKES = {"stateless": stateless, "stateful": stateful, "voice": voice}


def run_stream(adapter: Any, events: Iterable[Any], rep: reporter.Reporter | None = None) -> tuple[Item, FoldState, list[str]]:
    """Feed, fold and report every delta; the finished item, the last state, the frames shown while a part was open."""
    decoder = adapter.stream_decoder()
    state, open_frames = FoldState(), []
    rep = rep or reporter.Reporter()
    for event in events:
        for delta in decoder.feed(event):
            state = fold(state, delta)
            frame = rep.show(state.snapshot())
            if state.is_open:
                open_frames.append(frame)
    return decoder.finish(state.finalize()), state, open_frames


# -- the projection protocols -------------------------------------------------------------


def _protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(getattr(protocol, name))
        for name in dir(protocol)
        if not name.startswith("_") and callable(getattr(protocol, name))
    }


def _positional(sig: inspect.Signature) -> int:
    """How many positional arguments a protocol method takes, ``self`` not counted."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for name, p in sig.parameters.items() if p.kind in kinds and name != "self")


class ProjectionTest(unittest.TestCase):
    def test_item_is_an_item_view(self) -> None:
        item = Item.text(ItemKind.USER, "hi")
        self.assertIsInstance(item, ItemView)
        self.assertIsInstance(stored(item), ItemView)
        self.assertNotIsInstance(TextPart("hi"), ItemView)  # no kind, no parts

    def test_protocol_members(self) -> None:
        # If the protocols grow, the structural checks below must learn the new member.
        self.assertEqual(set(_protocol_methods(ProviderAdapter)), {"items_from_response", "request_from_items", "stream_decoder"})
        self.assertEqual(set(_protocol_methods(StreamDecoder)), {"feed", "finish"})

    def assert_conforms(self, obj: object, protocol: type) -> None:
        for name, sig in _protocol_methods(protocol).items():
            member = getattr(obj, name, None)
            self.assertTrue(callable(member), f"{obj!r} has no callable {name}")
            n = _positional(sig)
            try:  # it accepts the protocol's positional arguments, and needs no others
                inspect.signature(member).bind(*[None] * n)  # type: ignore[arg-type]
            except TypeError as exc:
                self.fail(f"{name}{inspect.signature(member)} cannot be called as {name}{sig}: {exc}")

    def test_every_adapter_module_satisfies_provider_adapter(self) -> None:
        for name, module in {**REFERENCE, **FAKES}.items():
            with self.subTest(name):
                self.assertIsInstance(module, ModuleType)
                self.assert_conforms(module, ProviderAdapter)
                self.assert_conforms(module.stream_decoder(), StreamDecoder)

    def test_a_non_conforming_module_is_caught(self) -> None:
        broken = ModuleType("broken")
        broken.items_from_response = lambda: []  # type: ignore[attr-defined]
        with self.assertRaises(AssertionError):
            self.assert_conforms(broken, ProviderAdapter)


# -- 1. stateless and stateful providers -----------------------------------------------------


class StatelessProviderTest(unittest.TestCase):
    transcript = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "hello there")]

    def test_a_turn_maps_cleanly(self) -> None:
        request = stateless.request_from_items(self.transcript)
        self.assertEqual(request, {"system": "Be brief.", "messages": [{"role": "user", "text": "hello there"}]})
        [item] = stateless.items_from_response(stateless.FakeTextProvider().respond(request))
        self.assertEqual(item.kind, ItemKind.ASSISTANT)
        self.assertEqual(item.parts, (TextPart("You said: hello there"),))
        self.assertEqual((item.finish_reason, item.usage), (FinishReason.COMPLETED, Usage(TokenUsage(4, 4))))
        self.assertEqual(item.metadata, {"faketext.model": "faketext-1", "faketext.stop": "end"})
        self.assertEqual(stored(item), item)

    def test_the_stream_gives_the_same_item(self) -> None:
        request = stateless.request_from_items(self.transcript)
        expected = stateless.items_from_response(stateless.FakeTextProvider().respond(request))[0]
        item, _, frames = run_stream(stateless, stateless.FakeTextProvider().stream(request))
        self.assertEqual(item, expected)
        self.assertEqual(frames[1:3], ["You s", "You said: "])

    def test_next_turn_sends_the_whole_transcript(self) -> None:
        provider = stateless.FakeTextProvider()
        transcript = list(self.transcript)
        transcript += stateless.items_from_response(provider.respond(stateless.request_from_items(transcript)))
        transcript.append(Item.text(ItemKind.USER, "and again, at length"))
        request = {**stateless.request_from_items(transcript), "max_words": 3}
        self.assertEqual([m["role"] for m in request["messages"]], ["user", "assistant", "user"])
        [item] = stateless.items_from_response(provider.respond(request))
        self.assertEqual((item.text_content(), item.finish_reason), ("You said: and", FinishReason.MAX_TOKENS))

    def test_what_a_text_provider_cannot_take_is_refused(self) -> None:
        image = Item(ItemKind.USER, (MediaPart(Modality.IMAGE, "image/png", Uri("https://example.com/a.png")),))
        with self.assertRaises(NormalizeError) as caught:
            stateless.request_from_items([image])
        self.assertEqual(caught.exception.path, "items[0].parts[0]")


class StatefulProviderTest(unittest.TestCase):
    def test_ids_are_kept_and_only_new_items_are_sent(self) -> None:
        server = stateful.FakeStatefulProvider()
        transcript = [Item.text(ItemKind.SYSTEM, "Be brief."), Item.text(ItemKind.USER, "hello")]

        # Turn 1: nothing was sent before, so everything goes.
        request = stateful.request_from_items(transcript)
        self.assertEqual(request, {"previous_response_id": None, "instructions": "Be brief.",
                                   "input": [{"type": "message", "role": "user", "text": "hello"}]})
        [first] = stateful.items_from_response(server.respond(request))
        self.assertEqual(first.metadata[stateful.RESPONSE_ID], "resp_1")
        self.assertEqual(first.metadata[stateful.CONVERSATION_ID], "conv_1")
        self.assertEqual(first.text_content(), "I remember 1 items.")
        transcript.append(first)

        # Turn 2, streamed: only the new user item goes, with the previous id.
        transcript.append(Item.text(ItemKind.USER, "what is the weather in Paris?"))
        request = stateful.request_from_items(transcript)
        self.assertEqual(request["previous_response_id"], "resp_1")
        self.assertEqual(request["input"], [{"type": "message", "role": "user", "text": "what is the weather in Paris?"}])
        second, _, frames = run_stream(stateful, server.stream(request))
        self.assertIn('Let me check.\ncalling get_weather({"ci)', frames)  # named while its arguments stream
        call = second.parts[-1]
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual((call.name, call.input, second.finish_reason), ("get_weather", {"city": "Paris"}, FinishReason.TOOL_CALL))
        self.assertEqual(second.metadata[stateful.RESPONSE_ID], "resp_2")
        transcript.append(second)

        # The transcript is saved and loaded: the ids are in its JSON, so the next request finds them.
        saved = json.dumps([item.to_dict() for item in transcript])
        loaded = [Item.from_dict(d) for d in json.loads(saved)]
        self.assertEqual(loaded, transcript)
        loaded.append(Item(ItemKind.TOOL, (ToolResultPart(call.id, TextOutput("18 C and sunny")),)))
        request = stateful.request_from_items(loaded)
        self.assertEqual(request["previous_response_id"], "resp_2")
        self.assertEqual(request["input"], [{"type": "tool_output", "call_id": call.id.value, "output": "18 C and sunny"}])
        [third] = stateful.items_from_response(server.respond(request))  # the server knows resp_2
        self.assertEqual(third.text_content(), "The tool says: 18 C and sunny")
        self.assertEqual(third.metadata[stateful.CONVERSATION_ID], "conv_1")
        self.assertEqual([len(r["input"]) for r in server.requests], [1, 1, 1])

    def test_stream_and_response_agree(self) -> None:
        request = stateful.request_from_items([Item.text(ItemKind.USER, "weather in Oslo")])
        expected = stateful.items_from_response(stateful.FakeStatefulProvider().respond(request))[0]
        streamed, _, _ = run_stream(stateful, stateful.FakeStatefulProvider().stream(request))
        self.assertEqual(streamed, expected)

    def test_a_transcript_the_server_never_saw_is_sent_whole(self) -> None:
        foreign = [Item.text(ItemKind.USER, "hi"), Item.text(ItemKind.ASSISTANT, "hello"), Item.text(ItemKind.USER, "bye")]
        request = stateful.request_from_items(foreign)
        self.assertIsNone(request["previous_response_id"])
        self.assertEqual([i["role"] for i in request["input"]], ["user", "assistant", "user"])


# -- 2. a voice-only provider ------------------------------------------------------------


class VoiceProviderTest(unittest.TestCase):
    clip = voice.wav(voice.sine_pcm16(440.0, 100, 16000), 16000)

    def user_turn(self) -> Item:
        return Item(ItemKind.USER, (MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(self.clip)),))

    def test_audio_in(self) -> None:
        self.assertEqual(self.clip[:4] + self.clip[8:12], b"RIFFWAVE")
        request = voice.request_from_items([Item.text(ItemKind.SYSTEM, "Speak slowly."), self.user_turn()])
        self.assertEqual(request["instructions"], "Speak slowly.")
        [turn] = request["turns"]
        self.assertEqual((turn["role"], turn["format"]), ("user", "wav"))
        self.assertEqual(base64.b64decode(turn["audio"]), self.clip)

    def test_audio_out_streams_as_bytes(self) -> None:
        request = voice.request_from_items([self.user_turn()])
        decoder, state = voice.stream_decoder(), FoldState()
        deltas = [d for e in voice.FakeVoiceProvider().stream(request) for d in decoder.feed(e)]
        self.assertEqual(deltas[0], BeginPart(voice.VoiceStreamDecoder.AUDIO, PartKind.MEDIA))
        self.assertIsInstance(deltas[1], SetMetadata)
        self.assertEqual([type(d) for d in deltas[2:-1]], [AppendBytes] * 5)  # 50 ms in 10 ms chunks
        self.assertIsInstance(deltas[-1], CommitPart)
        sizes = []
        state = fold(state, deltas[0])
        self.assertEqual(state.snapshot(), (MediaPart(Modality.BINARY, "application/octet-stream", InlineBytes(b"")),))
        for delta in deltas[1:-1]:  # from the header on, the open part is audio
            state = fold(state, delta)
            [playing] = state.snapshot()
            self.assertIsInstance(playing, MediaPart)
            self.assertIsInstance(playing.data, InlineBytes)
            self.assertEqual((playing.modality, playing.mime_type), (Modality.AUDIO, "audio/pcm;rate=24000"))
            sizes.append(len(playing.data.value))
        self.assertEqual(sizes, [0, 480, 960, 1440, 1920, 2400])
        item = decoder.finish(fold(state, deltas[-1]).parts)
        expected = voice.items_from_response(voice.FakeVoiceProvider().respond(request))[0]
        self.assertEqual(item, expected)
        [audio] = item.parts
        self.assertEqual(audio, MediaPart(Modality.AUDIO, "audio/pcm;rate=24000", InlineBytes(voice.sine_pcm16(440.0, 50, 24000))))
        self.assertEqual((item.finish_reason, item.usage), (FinishReason.COMPLETED, Usage(TokenUsage(5, 2))))
        self.assertEqual(stored(item), item)

    def test_the_next_turn_sends_both_voices_back(self) -> None:
        transcript = [self.user_turn()]
        transcript += voice.items_from_response(voice.FakeVoiceProvider().respond(voice.request_from_items(transcript)))
        transcript.append(self.user_turn())
        request = voice.request_from_items([stored(i) for i in transcript])
        self.assertEqual([(t["role"], t["format"]) for t in request["turns"]], [("user", "wav"), ("assistant", "pcm16"), ("user", "wav")])

    def test_text_is_refused(self) -> None:
        with self.assertRaises(NormalizeError):
            voice.request_from_items([Item.text(ItemKind.USER, "hi")])


# -- 3. shell and filesystem tool results --------------------------------------------------

#: Everything that tempts a format into escaping of its own.
NASTY = 'say "hi" \\ C:\\path\\n\nline two\ttab\r\nNUL:\x00 \x1b[31mred\x1b[0m \U0001F980 \U0001F469\u200d\U0001F4BB \u2028'


def strings(value: Any) -> list[str]:
    """Every string in a request body, and in any JSON text among them (how providers carry structured results)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if isinstance(value, str):
        try:
            inner = json.loads(value)
        except ValueError:
            return [value]
        return [value, *strings(inner)] if isinstance(inner, (dict, list)) else [value]
    return []


class ToolResultTest(unittest.TestCase):
    call = ToolCallId("call-1")

    def wire(self, result: ToolResultPart) -> Any:
        """The result's output as any JSON reader sees it, and the result after the round trip."""
        item = Item(ItemKind.TOOL, (result,))
        text = json.dumps(item.to_dict(), ensure_ascii=False)
        self.assertEqual(stored(item), item)
        return json.loads(text)["parts"][0]["ToolResult"]

    def test_shell_result_is_plain_json(self) -> None:
        out = tools.ShellOutput(NASTY.encode(), b"warning: " + NASTY.encode(), 0)
        result = tools.shell_result(self.call, "printf ...", out)
        self.assertIsInstance(result.output, StructuredOutput)
        self.assertFalse(result.is_error)
        native = self.wire(result)
        # A plain JSON reader gets the exact text back: no escaping of ours to undo.
        self.assertEqual(native["output"]["Structured"], {"command": "printf ...", "exit_code": 0, "stdout": NASTY, "stderr": "warning: " + NASTY})
        self.assertEqual(tools.shell_output(ToolResultPart.from_dict(result.to_dict())), out)  # type: ignore[arg-type]

    def test_failed_command(self) -> None:
        result = tools.shell_result(self.call, "false", tools.ShellOutput(b"", b"boom\n", 1))
        self.assertTrue(result.is_error)
        self.assertEqual(self.wire(result)["is_error"], True)

    def test_output_that_is_not_utf8_keeps_its_bytes(self) -> None:
        raw = b"\xff\xfe\x80 latin-1: caf\xe9 " + NASTY.encode()
        out = tools.ShellOutput(raw, b"", 2)
        result = tools.shell_result(self.call, "cat blob", out)
        self.assertIsInstance(result.output, PartsOutput)
        summary, exact = result.output.parts
        self.assertIsInstance(summary, StructuredPart)
        self.assertIsInstance(summary.value, dict)
        self.assertEqual(summary.value["stdout"], raw.decode("utf-8", "replace"))  # readable for the model
        self.assertEqual(exact, FilePart(InlineBytes(raw), name="stdout", mime_type="application/octet-stream"))
        native = self.wire(result)
        self.assertEqual(bytes(native["output"]["Parts"][1]["File"]["data"]["InlineBytes"]), raw)
        back = ToolResultPart.from_dict(result.to_dict())
        self.assertIsInstance(back, ToolResultPart)
        self.assertEqual(tools.shell_output(back), out)

    def test_text_file(self) -> None:
        result = tools.text_file_result(self.call, "notes/ünïcode \"quoted\".txt", NASTY)
        native = self.wire(result)
        [f] = native["output"]["Files"]
        self.assertEqual((f["name"], f["mime_type"], f["data"]), ('notes/ünïcode "quoted".txt', "text/plain", {"InlineText": NASTY}))

    def test_binary_file(self) -> None:
        blob = bytes(range(256)) + b"\x00\xff" * 3
        result = tools.binary_file_result(self.call, "bin/blob", blob)
        [f] = self.wire(result)["output"]["Files"]
        self.assertEqual(bytes(f["data"]["InlineBytes"]), blob)

    def test_directory_listing(self) -> None:
        entries = [
            tools.DirEntry("src", "dir"),
            tools.DirEntry("README.md", "file", 1204),
            tools.DirEntry("caf\udce9.txt", "file", 3),  # os.listdir's name for the non-UTF-8 b"caf\xe9.txt"
            tools.DirEntry(b"\xff.bin", "file", 0),
            tools.DirEntry("\U0001F980 \"q\" \\", "symlink"),
        ]
        native = self.wire(tools.directory_result(self.call, "/repo", entries))
        listing = native["output"]["Structured"]
        self.assertEqual(listing["path"], "/repo")
        by_name = {e["name"]: e for e in listing["entries"]}
        self.assertEqual(by_name["README.md"], {"name": "README.md", "type": "file", "size": 1204})
        self.assertEqual(bytes(by_name["caf\ufffd.txt"]["name_bytes"]), b"caf\xe9.txt")
        self.assertEqual(bytes(by_name["\ufffd.bin"]["name_bytes"]), b"\xff.bin")
        self.assertIn("\U0001F980 \"q\" \\", by_name)

    def test_every_reference_adapter_can_send_them(self) -> None:
        results = [
            tools.shell_result(self.call, "ls", tools.ShellOutput(NASTY.encode(), b"", 0)),
            tools.text_file_result(self.call, "a.txt", NASTY),
            tools.directory_result(self.call, ".", [tools.DirEntry("a.txt", "file", 1)]),
            tools.not_found_result(self.call, "nope.txt"),
        ]
        call = Item(ItemKind.ASSISTANT, (ToolCallPart(self.call, "fs", {"path": "a.txt"}),))
        for name, adapter in REFERENCE.items():
            for result in results:
                with self.subTest(name, output=type(result.output).__name__):
                    body = adapter.request_from_items([Item.text(ItemKind.USER, "go"), call, Item(ItemKind.TOOL, (result,))])
                    sent = strings(body)
                    self.assertTrue(any(NASTY in s or "nope.txt" in s or "a.txt" in s for s in sent), sent)
                    if result is results[0]:
                        self.assertIn(NASTY, sent)  # exact, once the provider's own JSON text is read


# -- 4. one reporter for every stream ------------------------------------------------------


def recorded_streams() -> list[tuple[str, ModuleType, list[Any]]]:
    found = []
    for provider, adapter in REFERENCE.items():
        for name in recorded.names(provider, ".stream.jsonl"):
            found.append((f"{provider}/{name}", adapter, recorded.load_events(provider, name)))
    return found


class ReporterTest(unittest.TestCase):
    def assert_shows(self, final: Item, rendered: str) -> None:
        for part in final.parts:
            if isinstance(part, TextPart):
                self.assertIn(part.text, rendered)
            elif isinstance(part, ToolCallPart):
                self.assertIn(f"calling {part.name}(", rendered)
            elif isinstance(part, CustomPart):
                self.assertIn(f"[{part.kind}", rendered)
            elif isinstance(part, ReasoningPart) and part.summary:
                self.assertIn(part.summary, rendered)

    def test_every_recorded_stream(self) -> None:
        streams = recorded_streams()
        self.assertGreaterEqual(len(streams), 20)
        rep = reporter.Reporter()  # one reporter, every provider
        for name, adapter, events in streams:
            with self.subTest(name):
                shown = len(rep.frames)
                final, state, open_frames = run_stream(adapter, events, rep)
                self.assertGreater(len(rep.frames), shown)
                rendered = reporter.render_item(final)
                self.assert_shows(final, rendered)
                # While a call's arguments streamed, the reporter already named it.
                for part in final.parts:
                    if isinstance(part, ToolCallPart):
                        self.assertTrue(any(f"calling {part.name}(" in f for f in open_frames), part.name)

    def test_the_fakes_streams(self) -> None:
        cases: list[tuple[ModuleType, Iterable[Any]]] = [
            (stateless, stateless.FakeTextProvider().stream({"messages": [{"role": "user", "text": "hi"}]})),
            (stateful, stateful.FakeStatefulProvider().stream({"input": [{"type": "message", "role": "user", "text": "weather in Rome"}]})),
            (voice, voice.FakeVoiceProvider().stream({"turns": []})),
        ]
        for adapter, events in cases:
            with self.subTest(adapter.__name__):
                final, _, open_frames = run_stream(adapter, events)
                rendered = reporter.render_item(final)
                self.assert_shows(final, rendered)
                self.assertTrue(open_frames)
        self.assertIn("[audio audio/pcm;rate=24000, 2400 bytes]", rendered)
        self.assertIn("[audio audio/pcm;rate=24000, 960 bytes]", open_frames)

    def test_every_kind_of_part_and_output(self) -> None:
        call = ToolCallId("c1")
        parts: list[Part] = [
            TextPart("hello"),
            ReasoningPart("pondering"),
            ReasoningPart(None, data=InlineText("opaque"), redacted=True),
            ToolCallPart(call, "fs_read_file", {"path": "a.txt"}),
            ToolCallPart(call, "broken", None, metadata={"agentkit.input_json": "{", "agentkit.input_error": "bad"}),
            tools.shell_result(call, "false", tools.ShellOutput(b"out", b"\xff", 1)),
            tools.text_file_result(call, "a.txt", "line 1\n"),
            tools.binary_file_result(call, "b.bin", b"\x00\x01"),
            tools.directory_result(call, ".", [tools.DirEntry("a.txt", "file", 7)]),
            ToolResultPart(call, TextOutput("plain")),
            MediaPart(Modality.IMAGE, "image/png", Uri("https://example.com/i.png")),
            FilePart(InlineText("x"), name="x.csv"),
            StructuredPart({"k": [1, 2]}),
            CustomPart("vendor.thing", value={"a": 1}),
        ]
        text = reporter.render(parts)
        for expected in ("hello", "(thinking) pondering", "(reasoning, redacted)", 'calling fs_read_file({"path": "a.txt"})',
                         "calling broken({) (arguments are not valid JSON)", "failed [c1]:", "[file stderr (application/octet-stream), 1 bytes]",
                         "[file a.txt (text/plain), 7 characters inline]\nline 1", "[file b.bin (application/octet-stream), 2 bytes]",
                         '"entries": [{"name": "a.txt"', "result [c1]: plain", "[image image/png, https://example.com/i.png]",
                         "[file x.csv (unknown type), 1 characters inline]", '{"k": [1, 2]}', "[vendor.thing]"):
            self.assertIn(expected, text)

    def test_the_reporter_knows_no_provider(self) -> None:
        source = inspect.getsource(reporter).lower()
        for word in ("openai", "anthropic", "gemini", "fakestate", "faketext", "fakevoice", "namespace("):
            self.assertNotIn(word, source)


# -- 5. compaction ---------------------------------------------------------------------------


def long_transcript(turns: int = 6) -> list[Item]:
    items = [Item.text(ItemKind.SYSTEM, "You are a coding agent."), Item.text(ItemKind.CONTEXT, "Repo: agentkit.")]
    for n in range(turns):
        call = ToolCallId(f"call-{n}")
        path = f"src/m{n}.py"
        items += [
            Item.text(ItemKind.USER, f"Please fix module {n}."),
            Item(ItemKind.ASSISTANT, (TextPart("Reading it."), ToolCallPart(call, "fs_read_file", {"path": path})),
                 usage=Usage(TokenUsage(100 + n, 10)), finish_reason=FinishReason.TOOL_CALL),
            Item(ItemKind.TOOL, (tools.text_file_result(call, path, f"x = {n}\n") if n % 3 else tools.not_found_result(call, path),)),
            Item.text(ItemKind.ASSISTANT, f"Fixed module {n}.").with_usage(Usage(TokenUsage(200, 20))),
        ]
    return items


def total(items: Sequence[Item]) -> Usage:
    return sum((i.usage for i in items if i.usage is not None), Usage())


class CompactionTest(unittest.TestCase):
    def assert_pairs_whole(self, items: Sequence[Item]) -> None:
        calls = [p.id for i in items for p in i.parts if isinstance(p, ToolCallPart)]
        results = [p.call_id for i in items for p in i.parts if isinstance(p, ToolResultPart)]
        self.assertEqual(sorted(c.value for c in calls), sorted(r.value for r in results))

    def test_summarises_the_middle(self) -> None:
        items = long_transcript()
        out = compaction.compact(items, keep_last=2)
        self.assertEqual(len(out), 2 + 1 + 8)
        self.assertEqual(out[:2], items[:2])  # instructions and context kept
        self.assertEqual(out[3:], items[-8:])  # the last two turns, untouched
        summary = out[2]
        self.assertEqual(summary.kind, ItemKind.CONTEXT)
        text = summary.text_content()
        self.assertIn("Summary of 16 earlier items (4 turns).", text)
        self.assertIn("last: 'Please fix module 3.'", text)
        self.assertIn("Tools called: fs_read_file x4 (2 failed).", text)
        self.assertIn("Files touched: src/m0.py, src/m1.py, src/m2.py, src/m3.py.", text)
        self.assertIn("The assistant last said: 'Fixed module 3.'", text)
        self.assertEqual(summary.metadata[compaction.COMPACTION_KEY],
                         {"items": 16, "turns": 4, "tool_calls": {"fs_read_file": 4}, "failed_tool_calls": 2,
                          "files": ["src/m0.py", "src/m1.py", "src/m2.py", "src/m3.py"]})
        self.assertEqual(total(out), total(items))  # accounting survives compaction
        self.assert_pairs_whole(out)

    def test_needs_nothing_but_the_items(self) -> None:
        items = long_transcript()
        loaded = [stored(i) for i in items]  # what a transcript store gives back
        self.assertEqual(compaction.compact(loaded, keep_last=2), compaction.compact(items, keep_last=2))
        self.assertEqual([stored(i) for i in compaction.compact(items)], compaction.compact(items))

    def test_never_splits_a_call_from_its_result(self) -> None:
        call = ToolCallId("slow")
        items = [
            Item.text(ItemKind.USER, "run the tests"),
            Item(ItemKind.ASSISTANT, (ToolCallPart(call, "shell", {"command": "make test"}),)),
            Item.text(ItemKind.USER, "also, hurry"),  # the user spoke while the tool ran
            Item(ItemKind.TOOL, (tools.shell_result(call, "make test", tools.ShellOutput(b"ok\n", b"", 0)),)),
            Item.text(ItemKind.ASSISTANT, "All green."),
        ]
        out = compaction.compact(items, keep_last=1)
        self.assert_pairs_whole(out)
        self.assertEqual(out[1:], items[1:])  # the boundary moved back to the call
        self.assertEqual(out[0].metadata[compaction.COMPACTION_KEY]["turns"], 1)  # type: ignore[index]

    def test_short_transcripts_and_repeated_compaction(self) -> None:
        items = long_transcript(2)
        self.assertEqual(compaction.compact(items, keep_last=2), items)
        once = compaction.compact(long_transcript(), keep_last=2)
        twice = compaction.compact(once + long_transcript(3)[2:], keep_last=1)
        self.assertIn(once[2], twice)  # an earlier summary is context now: kept as it is
        self.assert_pairs_whole(twice)

    def test_every_reference_adapter_can_send_the_result(self) -> None:
        out = compaction.compact(long_transcript(), keep_last=1)
        for name, adapter in REFERENCE.items():
            with self.subTest(name):
                body = json.dumps(adapter.request_from_items(out))
                self.assertIn("Summary of 20 earlier items", body)
                self.assertNotIn("agentkit.compaction", body)  # metadata of ours is not sent
