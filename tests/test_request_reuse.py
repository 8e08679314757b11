"""What ``http_request`` keeps between builds (providers/_common/reuse.py) is invisible, bounded and safe across threads.

Every body built while builds are kept is compared, byte for byte, with the body
of a fresh build (``reuse.disabled()``): over the recorded requests and answers
of ``tests/payloads`` grown item by item, and over seeded random transcripts
that grow, branch, are compacted and hold what each provider merges (Gemini's
consecutive calls and results, Chat's media of tool results, Anthropic's
system items and a final empty assistant message).
"""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import threading
import unittest
from typing import Any

from agentkit_core import (
    ArtifactId,
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
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)
from agentkit_core.providers import openai_chat
from agentkit_core.providers._common import reuse
from tests import recorded
from tests.capability import needs_fast_paths, needs_processes, needs_threads
from tests.test_packaging import ROOT

PROVIDERS = recorded.PROVIDERS  # one per registry row
SETTINGS: dict[str, dict[str, Any]] = {"anthropic": {"max_tokens": 64}}


def body(module: Any, name: str, items: list[Item], **kw: Any) -> bytes:
    return module.http_request(items, model="test-model", api_key="sk-test", **SETTINGS.get(name, {}), **kw).body  # type: ignore[no-any-return]


def fresh_body(module: Any, name: str, items: list[Item], **kw: Any) -> bytes | str:
    """The body with nothing kept, or the error a fresh build raises."""
    with reuse.disabled():
        try:
            return body(module, name, items, **kw)
        except NormalizeError as exc:
            return f"NormalizeError {exc}"


def kept_body(module: Any, name: str, items: list[Item], **kw: Any) -> bytes | str:
    try:
        return body(module, name, items, **kw)
    except NormalizeError as exc:
        return f"NormalizeError {exc}"


def recorded_transcripts(name: str) -> list[list[Item]]:
    module = PROVIDERS[name]
    out = [module.items_from_request(recorded.load(name, f)) for f in recorded.names(name, ".request.json")]
    answers = [item for f in recorded.names(name, ".response.json") for item in module.items_from_response(recorded.load(name, f))]
    out.append(answers)
    out.append([item for transcript in out for item in transcript])  # all of them, one after another
    return out


_PROVIDER_MD = {
    "anthropic": {"agentkit.provider": "anthropic"},
    "gemini": {"agentkit.provider": "gemini", "gemini.thoughtSignature": "c2ln"},
    "openai_chat": {"agentkit.provider": "openai", "openai.chat.reasoning_field": "reasoning_content"},
    "openai_responses": {"agentkit.provider": "openai"},
    "bedrock": {"agentkit.provider": "bedrock"},
}


def random_transcript(rng: random.Random, length: int) -> list[Item]:
    """Items of every kind, among them what providers merge or hold for the next item."""
    items: list[Item] = []
    calls: list[ToolCallId] = []
    image = bytes(range(64))
    for n in range(length):
        roll = rng.random()
        if roll < 0.08:
            items.append(Item(rng.choice([ItemKind.SYSTEM, ItemKind.DEVELOPER]), [TextPart(f"rule {n}")]))
        elif roll < 0.3:
            parts: list[Any] = [TextPart(f"question {n} " + "é" * rng.randrange(3))]
            if rng.random() < 0.2:
                parts.append(MediaPart(Modality.IMAGE, "image/png", InlineBytes(image)))
            items.append(Item(ItemKind.USER, parts))
        elif roll < 0.6:
            parts = []
            if rng.random() < 0.3:
                md = _PROVIDER_MD[rng.choice(list(_PROVIDER_MD))]
                parts.append(ReasoningPart(f"thinking {n}", data=InlineText("sig"), metadata=md))
            if rng.random() < 0.6:
                parts.append(TextPart(f"answer {n}"))
            for k in range(rng.choice([0, 1, 1, 2])):
                call = ToolCallId(f"call_{n}_{k}")
                calls.append(call)
                md = {"gemini.thoughtSignature": "c2ln"} if rng.random() < 0.2 else {}
                parts.append(ToolCallPart(call, "read_file", {"path": f"f{n}.py", "n": k}, metadata=md))
            items.append(Item(ItemKind.ASSISTANT, parts))
        elif calls:
            call = calls.pop(rng.randrange(len(calls)))
            roll = rng.random()
            if roll < 0.2:
                output = ToolOutput.parts([TextPart("see the image"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(image))])
            elif roll < 0.3:
                output = ToolOutput.structured({"ok": True, "lines": [1, 2]})
            else:
                output = ToolOutput.text(f"result of {call.value}")
            items.append(Item(ItemKind.TOOL, [ToolResultPart(call, output, metadata={"agentkit.tool_name": "read_file"})]))
        else:
            items.append(Item(ItemKind.USER, [TextPart(f"more {n}")]))
    if rng.random() < 0.3:
        items.append(Item(ItemKind.ASSISTANT, []))  # a prefill: Anthropic sends it only while it is last
    if rng.random() < 0.1:
        items.append(Item(ItemKind.USER, [MediaPart(Modality.VIDEO, "video/mp4", Uri("https://example.com/v.mp4"))]))  # some refuse it
    if rng.random() < 0.1:
        items.append(Item(ItemKind.USER, [FilePart(Uri("https://example.com/a.pdf"), mime_type="application/pdf", name="a")]))
    return items


def image_result(call: str) -> Item:
    """A tool result holding an image (Chat sends it in a user message after the tool messages)."""
    output = ToolOutput.parts([TextPart("look"), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"png" + call.encode()))])
    return Item(ItemKind.TOOL, [ToolResultPart(ToolCallId(call), output, metadata={"agentkit.tool_name": "read_file"})])


class SameBytesTest(unittest.TestCase):
    def setUp(self) -> None:
        reuse.clear()

    def grow(self, name: str, items: list[Item], step: int = 1) -> None:
        module = PROVIDERS[name]
        for k in range(0, len(items) + 1, step):
            prefix = items[:k]
            self.assertEqual(kept_body(module, name, prefix), fresh_body(module, name, prefix), f"{name}: the first {k} items")

    def test_recorded_traffic_grown_item_by_item(self) -> None:
        for name in PROVIDERS:
            for n, transcript in enumerate(recorded_transcripts(name)):
                with self.subTest(provider=name, transcript=n):
                    self.grow(name, transcript)

    def test_random_transcripts_grown_branched_and_compacted(self) -> None:
        rng = random.Random(27)
        for round_ in range(12):
            items = random_transcript(rng, rng.randrange(5, 40))
            for name, module in PROVIDERS.items():
                with self.subTest(provider=name, round=round_):
                    self.grow(name, items)
                    # a branch: the same beginning, another continuation
                    cut = rng.randrange(len(items))
                    other = items[:cut] + random_transcript(rng, 6)
                    self.assertEqual(kept_body(module, name, other), fresh_body(module, name, other))
                    self.assertEqual(kept_body(module, name, items), fresh_body(module, name, items))
                    # a compaction: the first item kept, a summary, the last few
                    compacted = items[:1] + [Item(ItemKind.USER, [TextPart("summary")])] + items[-3:]
                    self.assertEqual(kept_body(module, name, compacted), fresh_body(module, name, compacted))
                    self.assertEqual(kept_body(module, name, tuple(items)), fresh_body(module, name, items))
                    self.assertEqual(kept_body(module, name, iter(items)), fresh_body(module, name, items))

    def test_what_is_kept_is_never_changed_by_a_build_resumed_from_it(self) -> None:
        # Two threads may resume from the same kept build at once; here the second resumes from the
        # kept build the first one started from (put back by hand), so a change made to it would show.
        rng = random.Random(41)
        for round_ in range(6):
            items = random_transcript(rng, 30)
            for name, module in PROVIDERS.items():
                kept = module._request.KEPT
                for cut in range(1, len(items)):
                    with self.subTest(provider=name, round=round_, cut=cut):
                        reuse.clear()
                        kept_body(module, name, items[:cut])
                        before = list(kept._slots)
                        a = items[:cut] + [image_result("a")] + random_transcript(rng, 3)
                        b = items[:cut] + [image_result("b")] + random_transcript(rng, 3)
                        self.assertEqual(kept_body(module, name, a), fresh_body(module, name, a))
                        kept._slots[:] = before
                        self.assertEqual(kept_body(module, name, b), fresh_body(module, name, b))

    def test_settings_and_tools_do_not_leak_between_builds(self) -> None:
        items = random_transcript(random.Random(3), 20)
        for name, module in PROVIDERS.items():
            with self.subTest(provider=name):
                self.assertEqual(kept_body(module, name, items), fresh_body(module, name, items))
                kw = {"temperature": 0.5, "stream": True}
                self.assertEqual(kept_body(module, name, items, **kw), fresh_body(module, name, items, **kw))

    def test_an_item_that_is_not_an_item_raises_as_a_fresh_build_does(self) -> None:
        items = random_transcript(random.Random(5), 10)
        for name, module in PROVIDERS.items():
            with self.subTest(provider=name):
                kept_body(module, name, items)
                with self.assertRaises(NormalizeError) as kept:
                    body(module, name, items + ["not an item"])  # type: ignore[list-item]
                with reuse.disabled(), self.assertRaises(NormalizeError) as fresh:
                    body(module, name, items + ["not an item"])  # type: ignore[list-item]
                self.assertEqual(str(kept.exception), str(fresh.exception))


SIGNED_CALLS: tuple[dict[str, Any], ...] = (
    {"gemini.thought_signature": "sig-a"},
    {"agentkit.provider": "gemini", "gemini.thought_signature": "sig-b"},
    {"agentkit.provider": "gemini", "gemini.thought_signature": "sig-c", "agentkit.invented_id": True},
    {"agentkit.provider": "gemini"},
    {"agentkit.invented_id": True},
    {"agentkit.provider": "openai_chat", "gemini.thought_signature": "sig-d"},
    {"gemini.thought_signature": 5},
)
BARE_MEDIA = (
    MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"png")),
    MediaPart(Modality.IMAGE, "image/jpeg", Uri("https://example.com/a.jpg")),
    MediaPart(Modality.IMAGE, "image/png", InlineText("cG5n")),
    MediaPart(Modality.IMAGE, "image/png", Handle(ArtifactId("img-1"))),
    MediaPart(Modality.AUDIO, "audio/wav", InlineBytes(b"RIFF")),
    MediaPart(Modality.AUDIO, "audio/mpeg", InlineText("UklGRg==")),
    MediaPart(Modality.AUDIO, "audio/x-odd", InlineBytes(b"odd")),
    MediaPart(Modality.AUDIO, "application/octet-stream", InlineBytes(b"raw")),
    MediaPart(Modality.AUDIO, "audio/wav", Uri("https://example.com/a.wav")),
    MediaPart(Modality.VIDEO, "video/mp4", InlineBytes(b"mp4")),
)


def bare_transcript(rng: random.Random, length: int) -> list[Item]:
    """Items that carry no metadata (what the encoders' fast paths take), with their edge cases, and a few that do."""
    items: list[Item] = []
    calls: list[ToolCallId] = []
    inputs: list[Any] = [{"path": "a.py"}, {}, None, [1, 2], "free text", {"nested": {"x": [1.5, None]}}]
    for n in range(length):
        roll = rng.random()
        kind = rng.choice(list(ItemKind))
        parts: list[Any] = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            pick = rng.random()
            if pick < 0.35:
                parts.append(TextPart(rng.choice([f"text {n}", " ", "", "é\u2028\"q\""])))
            elif pick < 0.55 and kind is ItemKind.ASSISTANT:
                call = ToolCallId(f"call_{n}_{len(parts)}")
                calls.append(call)
                legacy = {"openai.chat.legacy_function_call": True} if rng.random() < 0.1 else {}
                if rng.random() < 0.3:  # what a Gemini answer's call carries, and near misses
                    legacy = dict(rng.choice(SIGNED_CALLS))
                parts.append(ToolCallPart(call, "read_file", rng.choice(inputs), metadata=legacy))
            elif pick < 0.75 and calls:
                call = calls.pop(rng.randrange(len(calls))) if rng.random() < 0.8 else ToolCallId("unknown")
                output = rng.choice([ToolOutput.text(f"out {n}"), ToolOutput.text(""), ToolOutput.structured({"ok": 1}),
                                     ToolOutput.structured([1, "x"]), ToolOutput.parts([TextPart("p")])])
                named = {"agentkit.tool_name": rng.choice(["read_file", "other"])} if rng.random() < 0.4 else {}
                if rng.random() < 0.15:
                    named["agentkit.invented_id"] = True
                if rng.random() < 0.1:
                    named["openai.chat.legacy_function_call"] = True
                parts.append(ToolResultPart(call, output, is_error=rng.random() < 0.2, metadata=named))
            elif pick < 0.8:
                parts.append(ReasoningPart(f"thinking {n}"))
            elif pick < 0.85:  # reasoning its owner names (all an Anthropic thinking block carries), and near misses
                data = rng.choice([None, InlineText("sig"), InlineBytes(b"sig"), Uri("https://example.com/r")])
                owner = {"agentkit.provider": rng.choice(["anthropic", "anthropic", "gemini", "openai"])}
                if rng.random() < 0.2:
                    owner["anthropic.type"] = "thinking"
                parts.append(ReasoningPart(rng.choice([f"thinking {n}", None]), data=data, redacted=rng.random() < 0.3, metadata=owner))
            elif pick < 0.9:
                parts.append(TextPart("marked", metadata={"openai.chat.type": "text"}))
            else:  # media every encoder writes, and some one refuses (video, audio by URL, an image held by a handle)
                parts.append(rng.choice(BARE_MEDIA))
        md: dict[str, Any] = {"openai.chat.name": "x"} if roll < 0.05 else {}
        if 0.05 <= roll < 0.3:  # a Gemini request's content, its role carried
            md = {"gemini.content.role": rng.choice(["user", "model", "function"])}
        if 0.3 <= roll < 0.35:  # and a field beside it, which the content carries too
            md = {"gemini.content.role": "user", "gemini.content.extra": 1}
        items.append(Item(kind, parts, metadata=md))
    return items


class FastPathTest(unittest.TestCase):
    """Items that carry nothing take a fast path in each provider's fold; it writes what the general path writes."""

    def test_the_fast_path_writes_what_the_general_path_writes(self) -> None:
        rng = random.Random(2027)
        for name, module in PROVIDERS.items():
            build = module._request.Build
            slow = type("Slow", (build,), {"fast": False, "__slots__": ()})
            for round_ in range(300):
                items = bare_transcript(rng, rng.randrange(1, 12))
                with self.subTest(provider=name, round=round_):
                    self.assertEqual(self.outcome(build, items), self.outcome(slow, items))

    def test_gemini_signed_calls_on_the_fast_path_as_on_the_general_one(self) -> None:
        """Each signed call (and near miss) in consecutive model items (merged only when no part is Gemini's), answered later."""
        from agentkit_core.providers import gemini

        build = gemini._request.Build
        slow = type("Slow", (build,), {"fast": False, "__slots__": ()})
        for md in SIGNED_CALLS:
            items = [Item(ItemKind.USER, [TextPart("go")])]
            for n in range(2):
                items.append(Item(ItemKind.ASSISTANT, [ToolCallPart(ToolCallId(f"c{n}"), "read", {"n": n}, metadata=md)]))
            items += [Item(ItemKind.TOOL, [ToolResultPart(ToolCallId(f"c{n}"), ToolOutput.text("ok"))]) for n in range(2)]
            with self.subTest(md=md):
                self.assertEqual(self.outcome(build, items), self.outcome(slow, items))

    def test_gemini_fresh_fold_item_by_item_and_at_once_write_the_same(self) -> None:
        """Gemini's fresh build folds the transcript in one pass (``add_all``), a kept build item by item (``add``); the
        fast path signs a model content's first call as it makes it, the general path once the content is done."""
        from agentkit_core.providers import gemini

        build = gemini._request.Build
        one_by_one = type("OneByOne", (build,), {"add_all": None, "__slots__": ()})  # fresh() falls back to add
        slow = type("Slow", (build,), {"fast": False, "__slots__": ()})
        rng = random.Random(2028)
        for round_ in range(300):
            items = bare_transcript(rng, rng.randrange(1, 12))
            if round_ % 2:  # the session's shape: a question, a text and a call (signed or not), its result
                for n in range(rng.randrange(1, 4)):
                    call = ToolCallId(f"turn_{n}")
                    md = dict(rng.choice(SIGNED_CALLS)) if rng.random() < 0.3 else {}
                    items += [Item(ItemKind.USER, [TextPart(f"q {n}")]),
                              Item(ItemKind.ASSISTANT, [TextPart("a"), ToolCallPart(call, "read", {"n": n, "l": [n]}, metadata=md)]),
                              Item(ItemKind.TOOL, [ToolResultPart(call, rng.choice([ToolOutput.text("r"), ToolOutput.structured({"k": n})]))])]
            with self.subTest(round=round_):
                at_once = self.outcome(build, items)
                self.assertEqual(at_once, self.outcome(one_by_one, items))
                self.assertEqual(at_once, self.outcome(slow, items))

    def test_owned_reasoning_on_the_fast_path_as_on_the_general_one(self) -> None:
        """Reasoning that names its owner (all an Anthropic thinking block carries) takes the fast paths: every owner,
        data, redaction and summary, alone and beside a text and a call, in each kind of item, is written alike."""
        datas = [None, InlineText("sig"), InlineBytes(b"sig"), Uri("https://example.com/r")]
        for name, module in PROVIDERS.items():
            build = module._request.Build
            slow = type("Slow", (build,), {"fast": False, "__slots__": ()})
            for owner in ("anthropic", "gemini", "openai"):
                for data in datas:
                    for redacted in (False, True):
                        for summary in ("thinking", None):
                            part = ReasoningPart(summary, data=data, redacted=redacted, metadata={"agentkit.provider": owner})
                            for kind in ItemKind:
                                for parts in ([part], [part, TextPart("t"), ToolCallPart(ToolCallId("c"), "f", {"a": 1})]):
                                    items = [Item(kind, parts)]
                                    with self.subTest(provider=name, owner=owner, data=data, redacted=redacted, summary=summary, kind=kind):
                                        self.assertEqual(self.outcome(build, items), self.outcome(slow, items))

    def test_chat_tool_calls_decode_on_the_fast_path_as_on_the_general_one(self) -> None:
        from agentkit_core.providers.openai_chat._response import _tool_call_part

        class Native(dict):  # type: ignore[type-arg]  # not exactly a dict: the general path takes it
            pass

        rng = random.Random(7)
        texts = ['{"a":1}', '{"a": 1}', "{}", "", "  ", '{"x":"\\u00e9"}', '{"n":1e5}', "[1,2]", "not json", '{"a":1.0}']
        for n in range(300):
            function: dict[str, Any] = {"name": rng.choice(["read", "", None]), "arguments": rng.choice(texts + [None])}
            if rng.random() < 0.1:
                function["strict"] = True
            call: dict[str, Any] = {"id": rng.choice([f"call_{n}", None, ""]), "type": rng.choice(["function", "function", "custom"]),
                                    "function": function}
            if rng.random() < 0.1:
                call["index"] = 0
            if rng.random() < 0.1:
                call["extra"] = {"k": 1}
            with self.subTest(call=call):
                self.assertEqual(self.decoded(_tool_call_part, call), self.decoded(_tool_call_part, Native(call)))

    @staticmethod
    def decoded(decode: Any, call: Any) -> Any:
        try:
            part = decode(call, False)
        except (NormalizeError, TypeError, ValueError) as exc:
            return f"{type(exc).__name__} {exc}"
        data = part.to_dict()
        if isinstance(part, ToolCallPart) and part.metadata.get("agentkit.invented_id") is True:
            data["ToolCall"]["id"] = "invented"  # each decode invents its own
        return json.dumps(data)

    @staticmethod
    def outcome(build: Any, items: list[Item]) -> Any:
        try:
            return json.dumps(reuse.fresh(build(), items))  # text, so the order of the keys counts too
        except NormalizeError as exc:
            return f"NormalizeError {exc}"


class LayeredTest(unittest.TestCase):
    def test_copies_see_what_was_set_before_them_and_never_what_was_set_after(self) -> None:
        rng = random.Random(3)
        maps = [(reuse.Layered(), {})]  # (the layered map, a plain dict kept alike)
        for step in range(2000):
            layered, plain = maps[rng.randrange(len(maps))]
            if rng.random() < 0.2:
                maps.append((layered.copy(), dict(plain)))
            key, value = f"k{rng.randrange(300)}", step
            layered[key] = value
            plain[key] = value
            if rng.random() < 0.3:
                pairs = [(f"k{rng.randrange(300)}", -step), (f"k{rng.randrange(300)}", -step - 1)]
                layered.update(pairs)
                plain.update(pairs)
        for layered, plain in maps:
            self.assertEqual({k: layered.get(k) for k in (f"k{i}" for i in range(300))}, {f"k{i}": plain.get(f"k{i}") for i in range(300)})
        self.assertTrue(any(len(layered.base) > 0 for layered, _ in maps), "no copy merged its additions (the test would not cover it)")


class BoundedTest(unittest.TestCase):
    def setUp(self) -> None:
        reuse.clear()

    def kept_items(self, module: Any) -> list[Item]:
        return [item for cp in module._request.KEPT._slots for item in cp.items]

    def test_a_compacted_transcript_replaces_the_one_it_rewrote(self) -> None:
        for name, module in PROVIDERS.items():
            with self.subTest(provider=name):
                items = random_transcript(random.Random(11), 30)
                for k in range(1, len(items) + 1):
                    kept_body(module, name, items[:k])
                compacted = items[:1] + [Item(ItemKind.USER, [TextPart("summary")])]
                body(module, name, compacted)
                held = self.kept_items(module)
                self.assertFalse(any(item is old for item in held for old in items[1:]), "the old transcript is still held")

    @needs_fast_paths

    def test_at_most_slots_builds_are_kept(self) -> None:
        for name, module in PROVIDERS.items():
            with self.subTest(provider=name):
                first = [Item(ItemKind.USER, [TextPart("the first session")])]
                body(module, name, first)
                for n in range(reuse.SLOTS):
                    body(module, name, [Item(ItemKind.USER, [TextPart(f"session {n}")])])
                self.assertEqual(len(module._request.KEPT._slots), reuse.SLOTS)
                self.assertFalse(any(item is first[0] for item in self.kept_items(module)))

    @needs_fast_paths

    def test_nothing_is_kept_when_disabled_and_clear_forgets(self) -> None:
        items = [Item(ItemKind.USER, [TextPart("hello")])]
        with reuse.disabled():
            body(openai_chat, "openai_chat", items)
        self.assertEqual(openai_chat._request.KEPT._slots, [])
        body(openai_chat, "openai_chat", items)
        self.assertEqual(len(openai_chat._request.KEPT._slots), 1)
        reuse.clear()
        gc.collect()
        self.assertEqual(openai_chat._request.KEPT._slots, [])


class ThreadsTest(unittest.TestCase):
    @needs_threads
    def test_sessions_built_at_once_in_threads_get_their_own_bytes(self) -> None:
        reuse.clear()
        rng = random.Random(9)
        shared = random_transcript(rng, 8)  # every session starts alike, so they meet in the same slots
        sessions = [shared + random_transcript(rng, 25) for _ in range(6)]
        expected = {name: [[fresh_body(module, name, s[:k]) for k in range(len(s) + 1)] for s in sessions]
                    for name, module in PROVIDERS.items()}
        failures: list[str] = []

        def run(index: int) -> None:
            session = sessions[index]
            for name, module in PROVIDERS.items():
                for k in range(len(session) + 1):
                    if kept_body(module, name, session[:k]) != expected[name][index][k]:
                        failures.append(f"{name}: session {index}, {k} items")

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(sessions))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertFalse(any(t.is_alive() for t in threads), "a thread did not finish")
        self.assertEqual(failures, [])


class ImportTest(unittest.TestCase):
    @needs_processes
    def test_the_providers_load_no_threading(self) -> None:
        """The kept builds' lock is ``_thread``'s: importing every provider loads no ``threading`` (about 1 ms)."""
        code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
                "from agentkit_core.providers import anthropic, gemini, openai_chat, openai_responses\n"
                "from agentkit_core.providers._common import reuse\n"
                "print('threading' in sys.modules, type(reuse.BuildCache(list)._lock).__name__)")
        result = subprocess.run([sys.executable, "-I", "-S", "-c", code, ROOT], capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["False", type(threading.Lock()).__name__])


if __name__ == "__main__":
    unittest.main()
