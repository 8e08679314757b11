"""``complete`` and ``acomplete``: one whole turn per call, for all four providers, against the suite's loopback server.

Each recorded stream is played by the server; the item ``complete`` returns
must be the one ``items_from_stream`` makes of the same events, ``on_text``
must see the visible text and ``on_delta`` every delta.  A stream cut short,
one the network breaks and one cancelled must come back closed, keeping what
arrived; an error answer must raise.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import unittest
from types import ModuleType
from typing import Any

from agentkit_core import (
    STREAM_CUT_KEY,
    AppendText,
    BeginPart,
    CancellationController,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    ItemKind,
    ModelSettings,
    PartKind,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    close_unanswered,
    fold_all,
    unanswered_calls,
)
from agentkit_core._registry import PROVIDERS
from agentkit_core.http import ProviderError, TransportError
from agentkit_core.providers import STREAM_FORMATS, anthropic, gemini, openai_chat, openai_responses
from agentkit_core.providers._common.complete import ENDED_EARLY
from tests import recorded
from tests.capability import can_run_asyncio, can_serve_loopback, can_start_thread
from tests.loopback import LONGEST, Loopback, Reply, json_reply, sse_reply, stream_reply
from tests.test_http import KEY, plain

MODULES: dict[str, ModuleType] = dict(recorded.PROVIDERS)  # one per registry row
#: provider -> its recorded streams: tool calls, text, reasoning.
STREAMS: dict[str, tuple[str, ...]] = {
    "anthropic": ("messages.text_tool_use.sse.txt", "messages.thinking_text.sse.txt", "messages.redacted_thinking.sse.txt"),
    "openai_chat": ("chat.tool_call.sse.txt", "chat.text_content.sse.txt", "chat.parallel_tool_calls.sse.txt",
                    "chat.openrouter_reasoning_details.sse.txt"),
    "openai_responses": ("responses.function_call.sse.txt", "responses.reasoning_summary.sse.txt"),
    "gemini": ("stream_generate_content.call_gemini_3.sse.txt", "stream_generate_content.thinking_text.sse.txt"),
    "bedrock": ("converse_stream.tool_use_turn1.eventstream", "converse_stream.thinking.eventstream",
                "converse_stream.redacted_thinking.eventstream"),
}
#: provider -> a recorded non-streaming answer.
RESPONSES = {
    "anthropic": "messages.thinking_text_tool_use.response.json",
    "openai_chat": "chat.tool_calls.response.json",
    "openai_responses": "responses.reasoning_function_call.response.json",
    "gemini": "generate_content.parallel_function_calls.response.json",
    "bedrock": "converse.tool_with_thinking_turn1.response.json",
}
ASK = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
#: complete() reads a key from the environment when given none and refuses to send without one (tests/test_by_name.py
#: tests that): the turns here run with a key in each provider's first variable, and no base URL variable.
_KEYS: Any = None


def setUpModule() -> None:
    import os
    from unittest import mock

    global _KEYS
    env = {k: v for k, v in os.environ.items() if not k.endswith("_BASE_URL")}
    _KEYS = mock.patch.dict(os.environ, {**env, **{row.key_variables[0]: KEY for row in PROVIDERS}}, clear=True)
    _KEYS.start()


def tearDownModule() -> None:
    if _KEYS is not None:
        _KEYS.stop()
LIMIT = ModelSettings(max_tokens=256)


def comparable(item: Item) -> Any:
    """``item``'s wire form with invented call ids (Gemini's, made afresh by each decoder) blanked."""

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            out = {k: walk(x) for k, x in v.items()}
            if isinstance(out.get("metadata"), dict) and out["metadata"].get("agentkit.invented_id") is True:
                out["id"] = "invented"
            if "call_id" in out and isinstance(out["call_id"], str) and out["call_id"].startswith("call_"):
                out["call_id"] = "invented"
            return out
        return [walk(x) for x in v] if isinstance(v, list) else v

    return walk(item.to_dict())


def expected_of(name: str, stream: str) -> Item:
    module = MODULES[name]
    return module.items_from_stream(recorded.events(name, recorded.raw(name, stream)))[0]  # type: ignore[no-any-return]


def reply(provider: str, body: bytes, **kw: Any) -> Reply:
    """A streamed reply of ``body`` in ``provider``'s stream format (its registry row's)."""
    return stream_reply(recorded.STREAM_FORMATS[provider], body, **kw)


def first_text(provider: str, stream: str) -> bytes:
    """A recorded stream's events up to and with the first that gives answer text (found by decoding them)."""
    module = MODULES[provider]
    events = recorded.frames(provider, recorded.raw(provider, stream))
    decoder, texts = module.stream_decoder(), set()
    for n, raw in enumerate(events):
        for event in recorded.events(provider, raw):
            for delta in decoder.feed(event):
                if isinstance(delta, BeginPart) and delta.kind is PartKind.TEXT:
                    texts.add(delta.part_id.value)
                if isinstance(delta, AppendText) and delta.part_id.value in texts:
                    return b"".join(events[: n + 1])
    raise AssertionError(f"{stream} holds no answer text")


#: provider -> a recorded stream with answer text, to cut or cancel after its first text.
TEXT_STREAMS = {"anthropic": "messages.text_tool_use.sse.txt", "openai_chat": "chat.text_content.sse.txt",
                "openai_responses": "responses.reasoning_summary.sse.txt", "gemini": "stream_generate_content.thinking_text.sse.txt",
                "bedrock": "converse_stream.text.eventstream"}


def visible(item: Item) -> str:
    return "".join(p.text for p in item.parts if type(p) is TextPart)


class Stalling:
    """A one-connection server on 127.0.0.1: answers with ``body`` as an open stream of ``provider``'s format (its
    row's), then waits for the client to close its end (``closed`` is set when it does: ``recv`` gives EOF or a
    reset).  Bounded by ``LONGEST``."""

    def __init__(self, provider: str, body: bytes, reset_when: threading.Event | None = None) -> None:
        self.body = body
        self.content_type = STREAM_FORMATS[recorded.STREAM_FORMATS[provider]].encode()
        self.reset_when = reset_when  # once set, the connection is reset (an RST) instead of waited on
        self.closed = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(LONGEST)
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.listener.getsockname()[1]

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(LONGEST)
            try:
                seen = b""
                while b"\r\n\r\n" not in seen:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    seen += chunk
                head, _, body = seen.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    body += chunk
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: " + self.content_type + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + b"%x\r\n%s\r\n" % (len(self.body), self.body))
                if self.reset_when is not None:
                    self.reset_when.wait(LONGEST)
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if conn.recv(1) == b"":  # nothing more is sent: only the client's close ends this wait
                    self.closed.set()
            except ConnectionError:
                self.closed.set()
            except OSError:
                pass

    def __enter__(self) -> Stalling:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.listener.close()
        self.thread.join(LONGEST)


class Loop(unittest.TestCase):
    def setUp(self) -> None:
        if not can_serve_loopback():
            self.skipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")


class CompleteTest(Loop):
    def test_every_recorded_stream_gives_the_item_items_from_stream_gives(self) -> None:
        for name, streams in STREAMS.items():
            module = MODULES[name]
            for stream in streams:
                with self.subTest(name, stream=stream), Loopback([reply(name, recorded.raw(name, stream), pieces=7)]) as server:
                    texts: list[str] = []
                    deltas: list[Delta] = []
                    log: list[object] = []  # deltas and text chunks, in the order the callbacks got them
                    answer = module.complete(ASK, model="m-1", api_key=KEY, base_url=server.url(), settings=LIMIT,
                                             on_text=lambda c: (texts.append(c), log.append(c)),
                                             on_delta=lambda d: (deltas.append(d), log.append(d)), transport=plain())
                    expected = expected_of(name, stream)
                    self.assertEqual(comparable(answer), comparable(expected))
                    self.assertEqual("".join(texts), visible(expected))
                    self.assertTrue(texts or not visible(expected))
                    decoder = module.stream_decoder()
                    fresh = [d for e in recorded.events(name, recorded.raw(name, stream)) for d in decoder.feed(e)]
                    self.assertEqual([type(d) for d in deltas], [type(d) for d in fresh])  # every delta, in order
                    self.assert_each_chunk_follows_its_delta(log)
                    folded = Item(ItemKind.ASSISTANT, fold_all(FoldState(), deltas).parts)
                    self.assertEqual(comparable(folded)["parts"], comparable(answer.with_parts(folded.parts))["parts"])
                    self.assertNotIn(STREAM_CUT_KEY, answer.metadata)
                    received = server.requests[0]
                    self.assertIn(KEY, json.dumps(received.headers))
                    self.assertNotIn("settings", json.loads(received.body))

    def assert_each_chunk_follows_its_delta(self, log: list[object]) -> None:
        """Each text chunk is handed over as the delta carrying it is (not gathered for later), in order."""
        for n, entry in enumerate(log):
            if isinstance(entry, str):
                before = log[n - 1] if n else None
                if isinstance(before, AppendText):
                    self.assertEqual(before.chunk, entry)
                else:
                    self.assertIsInstance(before, CommitPart)
                    self.assertIsInstance(before.part, TextPart)  # type: ignore[union-attr]
                    self.assertTrue(before.part.text.endswith(entry))  # type: ignore[union-attr]

    def test_on_text_is_the_answer_not_the_reasoning(self) -> None:
        with Loopback([sse_reply(recorded.raw("anthropic", "messages.thinking_text.sse.txt"))]) as server:
            texts: list[str] = []
            answer = anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, on_text=texts.append, transport=plain())
        reasoning = [p for p in answer.parts if isinstance(p, ReasoningPart)]
        self.assertTrue(reasoning and texts)
        self.assertEqual("".join(texts), answer.text_content())
        self.assertNotIn(reasoning[0].summary, "".join(texts))

    def test_a_whole_body_when_not_streaming(self) -> None:
        for name, response in RESPONSES.items():
            module = MODULES[name]
            body = recorded.raw(name, response)
            with self.subTest(name), Loopback([json_reply(200, body)]) as server:
                texts: list[str] = []
                answer = module.complete(ASK, model="m-1", base_url=server.url(), stream=False, settings=LIMIT,
                                         on_text=texts.append, transport=plain())
                expected = module.items_from_response(json.loads(body))[0]
                self.assertEqual(comparable(answer), comparable(expected))
                self.assertEqual("".join(texts), visible(expected))
                self.assertNotIn("stream", json.loads(server.requests[0].body))

    def test_a_stream_that_ends_early_keeps_what_arrived(self) -> None:
        """The newcomer's finding: a server closing after two text deltas must not give an item with no text."""
        for name, stream in (("anthropic", "messages.thinking_text.sse.txt"), ("openai_chat", "chat.text_content.sse.txt"),
                             ("openai_responses", "responses.reasoning_summary.sse.txt"),
                             ("gemini", "stream_generate_content.thinking_text.sse.txt"),
                             ("bedrock", "converse_stream.thinking.eventstream")):
            module = MODULES[name]
            events = recorded.frames(name, recorded.raw(name, stream))
            cut = b"".join(events[: len(events) * 2 // 3])
            with self.subTest(name), Loopback([reply(name, cut)]) as server:
                texts: list[str] = []
                answer = module.complete(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_text=texts.append,
                                         transport=plain())
            self.assertIs(answer.finish_reason, FinishReason.ERROR)
            self.assertEqual(answer.metadata[STREAM_CUT_KEY]["error"], ENDED_EARLY)  # type: ignore[index]
            self.assertTrue(answer.parts)
            self.assertEqual("".join(texts), visible(answer))
            self.assertEqual(comparable(answer.with_metadata({k: v for k, v in answer.metadata.items() if k != STREAM_CUT_KEY})),
                             comparable(module.items_from_stream(recorded.events(name, cut))[0].with_metadata(
                                 {k: v for k, v in module.items_from_stream(recorded.events(name, cut))[0].metadata.items()
                                  if k != STREAM_CUT_KEY})))

    def test_a_stream_the_network_breaks_is_closed_as_error(self) -> None:
        raw = recorded.raw("anthropic", "messages.text_tool_use.sse.txt")
        with Loopback([sse_reply(raw[: len(raw) // 2], pieces=3, reset=True)]) as server:
            answer = anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, transport=plain(), retries=0)
        self.assertIs(answer.finish_reason, FinishReason.ERROR)
        cut = answer.metadata[STREAM_CUT_KEY]
        self.assertIsInstance(cut, dict)
        self.assertNotEqual(cut["error"], ENDED_EARLY)  # type: ignore[index]
        self.assertTrue(answer.text_content())
        for name, stream in TEXT_STREAMS.items():  # every provider: the text that came before the reset is kept
            texts: list[str] = []
            shown = threading.Event()  # the reset comes once the text is in: a reset may discard what was not yet read

            def on_text(chunk: str) -> None:
                texts.append(chunk)
                shown.set()

            with self.subTest(name), Stalling(name, first_text(name, stream), reset_when=shown) as server:
                answer = MODULES[name].complete(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_text=on_text,
                                                transport=plain(), retries=0)
                self.assertIs(answer.finish_reason, FinishReason.ERROR)
                self.assertNotEqual(answer.metadata[STREAM_CUT_KEY]["error"], ENDED_EARLY)  # type: ignore[index]
                self.assertTrue(texts)
                self.assertEqual(visible(answer), "".join(texts))

    def test_a_cancelled_turn_comes_back_closed_with_what_arrived(self) -> None:
        if not can_start_thread():
            self.skipTest("needs threads: the interrupt comes from another one")
        arrived = threading.Event()
        controller = CancellationController()

        def on_text(chunk: str) -> None:
            arrived.set()
            threading.Timer(0.05, controller.interrupt).start()

        with Loopback([sse_reply(first_text("anthropic", "messages.text_tool_use.sse.txt"), stall=True)]) as server:  # text, then nothing
            answer = anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, on_text=on_text,
                                        cancel=controller, transport=plain())
        self.assertTrue(arrived.is_set())
        self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
        self.assertEqual(answer.text_content(), expected_of("anthropic", "messages.text_tool_use.sse.txt").text_content()[: len(answer.text_content())])
        self.assertTrue(answer.text_content())
        self.assertFalse(answer.tool_calls())

    def test_every_provider_returns_a_cancelled_turn_with_its_text(self) -> None:
        if not can_start_thread():
            self.skipTest("needs threads: the interrupt comes from another one")
        for name, stream in TEXT_STREAMS.items():
            controller = CancellationController()
            texts: list[str] = []

            def on_text(chunk: str) -> None:
                if not texts:
                    threading.Timer(0.05, controller.interrupt).start()
                texts.append(chunk)

            with self.subTest(name), Loopback([reply(name, first_text(name, stream), stall=True)]) as server:
                answer = MODULES[name].complete(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_text=on_text,
                                                cancel=controller, transport=plain())
                self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
                self.assertTrue(texts)
                self.assertEqual(visible(answer), "".join(texts))
                self.assertTrue(visible(expected_of(name, stream)).startswith(visible(answer)))

    def test_an_interrupt_closes_the_connection_the_server_sees_it(self) -> None:
        if not can_start_thread():
            self.skipTest("needs threads: the interrupt comes from another one")
        for name, stream in TEXT_STREAMS.items():
            controller = CancellationController()
            with self.subTest(name), Stalling(name, first_text(name, stream)) as server:
                answer = MODULES[name].complete(ASK, model="m-1", base_url=server.url(), settings=LIMIT, cancel=controller,
                                                on_text=lambda chunk: threading.Timer(0.01, controller.interrupt).start(),
                                                transport=plain())
                self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
                self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")

    def test_a_call_cut_by_cancel_is_dropped_as_close_drops_it(self) -> None:
        if not can_start_thread():
            self.skipTest("needs threads: the interrupt comes from another one")
        raw = recorded.raw("anthropic", "messages.text_tool_use.sse.txt")
        events = [e + b"\n\n" for e in raw.split(b"\n\n") if e.strip()]
        opened = next(n for n, e in enumerate(events) if b'"tool_use"' in e)
        controller = CancellationController()
        threading.Timer(0.3, controller.interrupt).start()
        with Loopback([sse_reply(b"".join(events[: opened + 2]), stall=True)]) as server:
            answer = anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, cancel=controller, transport=plain())
        self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
        self.assertFalse(answer.tool_calls())
        self.assertEqual([c["name"] for c in answer.metadata[STREAM_CUT_KEY]["dropped_calls"]], ["get_weather"])  # type: ignore[index]

    def test_every_provider_drops_a_call_cut_by_cancel(self) -> None:
        """A call begun but not finished when the interrupt comes is dropped, named under ``dropped_calls``."""
        if not can_start_thread():
            self.skipTest("needs threads: the interrupt comes from another one")
        calls = {"anthropic": "messages.text_tool_use.sse.txt", "openai_chat": "chat.tool_call.sse.txt",
                 "openai_responses": "responses.function_call.sse.txt",
                 "bedrock": "converse_stream.tool_use_turn1.eventstream"}  # Gemini sends each call whole: none is ever cut
        for name, stream in calls.items():
            module = MODULES[name]
            events = recorded.frames(name, recorded.raw(name, stream))
            decoder = module.stream_decoder()
            begun = next(n for n, raw in enumerate(events) for e in recorded.events(name, raw) for d in decoder.feed(e)
                         if isinstance(d, BeginPart) and d.kind is PartKind.TOOL_CALL)
            controller = CancellationController()

            def on_delta(delta: Delta) -> None:
                if isinstance(delta, BeginPart) and delta.kind is PartKind.TOOL_CALL:
                    threading.Timer(0.05, controller.interrupt).start()

            with self.subTest(name), Loopback([reply(name, b"".join(events[: begun + 1]), stall=True)]) as server:
                answer = module.complete(ASK, model="m-1", base_url=server.url(), settings=LIMIT, on_delta=on_delta,
                                         cancel=controller, transport=plain())
                self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
                self.assertFalse(answer.tool_calls())
                self.assertEqual(len(answer.metadata[STREAM_CUT_KEY]["dropped_calls"]), 1)  # type: ignore[index]

    def test_an_error_answer_raises(self) -> None:
        error = b'{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}'
        with Loopback([json_reply(400, error)]) as server:
            with self.assertRaises(ProviderError) as caught:
                anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, transport=plain())
        self.assertEqual(caught.exception.status, 400)
        echoed = b'{"type":"error","error":{"type":"authentication_error","message":"Incorrect API key provided: %s"}}' % KEY.encode()
        for name, module in MODULES.items():  # the newcomer's finding: an echoed key was shown
            with self.subTest(name), Loopback([json_reply(401, echoed)]) as server:
                with self.assertRaises(ProviderError) as caught:
                    module.complete(ASK, model="m-1", api_key=KEY, base_url=server.url(), settings=LIMIT, transport=plain())
                error = caught.exception
                self.assertNotIn(KEY, str(error) + repr(error) + error.message + error.body.decode("latin-1"))
                self.assertIn("***", error.message)

    def test_retries_and_headers_reach_the_wire(self) -> None:
        busy = json_reply(503, b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', [("retry-after-ms", "1")])
        stream = sse_reply(recorded.raw("anthropic", "messages.thinking_text.sse.txt"))
        with Loopback([busy, stream]) as server:
            answer = anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, retries=1, transport=plain(),
                                        headers={"anthropic-beta": "b-1"})
            self.assertIs(answer.finish_reason, FinishReason.COMPLETED)
            self.assertEqual(len(server.requests), 2)
            self.assertEqual(server.requests[1].headers.get("anthropic-beta"), "b-1")
        with Loopback([busy]) as server:
            with self.assertRaises(ProviderError):
                anthropic.complete(ASK, model="m", base_url=server.url(), settings=LIMIT, retries=0, transport=plain())
            self.assertEqual(len(server.requests), 1)

    def test_no_answer_at_all_raises(self) -> None:
        with Loopback([json_reply(200, b"{}")]) as server:
            url = server.url()
        with self.assertRaises(TransportError):
            anthropic.complete(ASK, model="m", base_url=url, settings=LIMIT, transport=plain(), retries=0)

    def test_the_readmes_loop_keeps_a_valid_transcript_when_a_stream_is_cut(self) -> None:
        """The agent loop of docs/turns.md, its first answer cut mid-call: it stops, and what it appended is a valid next request."""
        raw = recorded.raw("openai_chat", "chat.parallel_tool_calls.sse.txt")
        events = [e + b"\n\n" for e in raw.split(b"\n\n") if e.strip()]
        calls = [n for n, e in enumerate(events) if b'"id":"call_' in e.replace(b" ", b"")]
        cut = b"".join(events[: calls[1] + 1])  # the first call whole, the second begun
        with Loopback([sse_reply(cut)]) as server:
            transcript = list(ASK)
            for _ in range(5):
                answer = openai_chat.complete(transcript, model="m", base_url=server.url(), transport=plain())
                transcript.append(answer)
                if answer.finish_reason in (FinishReason.CANCELLED, FinishReason.ERROR):
                    closing = close_unanswered(transcript, "the turn was cut short")
                    transcript += [closing] if closing else []
                    break
                if not answer.tool_calls():
                    break
        self.assertIs(transcript[1].finish_reason, FinishReason.ERROR)
        self.assertEqual(len(transcript[1].tool_calls()), 1)
        self.assertEqual(len(transcript[1].metadata[STREAM_CUT_KEY]["dropped_calls"]), 1)  # type: ignore[index]
        self.assertEqual(unanswered_calls(transcript), [])
        openai_chat.request_from_items(transcript)  # the next request builds

    def test_a_long_stream_folded_in_segments_gives_the_same_item(self) -> None:
        """Hundreds of Gemini calls, each whole in its chunk: the turn's fold starts afresh between them, losing none."""
        chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"i": n}}}]},
                                   "index": 0}]} for n in range(700)]
        chunks.append({"candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP",
                                       "index": 0}], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 700}})
        raw = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
        with Loopback([sse_reply(raw, pieces=9)]) as server:
            answer = gemini.complete(ASK, model="m-1", base_url=server.url(), transport=plain())
        self.assertEqual(len(answer.tool_calls()), 700)
        self.assertEqual([c.input for c in answer.tool_calls()][-1], {"i": 699})
        self.assertEqual(comparable(answer), comparable(gemini.items_from_stream(gemini.events_from_sse(raw))[0]))

    def test_tool_calls_come_back_as_parts(self) -> None:
        with Loopback([sse_reply(recorded.raw("openai_chat", "chat.parallel_tool_calls.sse.txt"))]) as server:
            answer = openai_chat.complete(ASK, model="m", base_url=server.url(), transport=plain())
        self.assertGreaterEqual(len([p for p in answer.parts if isinstance(p, ToolCallPart)]), 2)
        self.assertIs(answer.finish_reason, FinishReason.TOOL_CALL)

    def test_one_signature_every_provider_writes_and_keeps(self) -> None:
        """complete and acomplete are plain definitions in each provider folder, one signature everywhere (as
        http_request's), named as the package's; a call outside it is refused as Python refuses it."""
        import inspect

        first = inspect.signature(anthropic.complete)
        for name, module in MODULES.items():
            with self.subTest(name):
                for function in (module.complete, module.acomplete):
                    self.assertEqual(str(inspect.signature(function)), str(first))
                    self.assertEqual((function.__module__, function.__qualname__), (module.__name__, function.__name__))
                    self.assertIs(getattr(module, function.__name__), function)
                    self.assertEqual(inspect.getsourcefile(function).replace("\\", "/").rsplit("/", 2)[-2:],  # type: ignore[union-attr]
                                     [name, "_complete.py"])  # "go to definition" finds it in the provider's folder
                self.assertTrue(inspect.iscoroutinefunction(module.acomplete))
                if module.complete.__doc__ is not None:  # not under -OO
                    self.assertIn(next(r.display for r in PROVIDERS if r.module == name), module.complete.__doc__)
                for args, kw, said in ((), {"model": "m"}, "'items'"), ((ASK, ASK), {"model": "m"}, "positional"), \
                                      ((ASK,), {}, "'model'"), ((ASK,), {"items": ASK, "model": "m"}, "multiple values"):
                    with self.assertRaises(TypeError) as caught:
                        module.complete(*args, **kw)
                    self.assertIn(said, str(caught.exception))
        with Loopback([sse_reply(recorded.raw("openai_chat", "chat.text_content.sse.txt"))]) as server:
            answer = openai_chat.complete(items=ASK, model="m", base_url=server.url(), transport=plain())  # items by name too
        self.assertEqual(comparable(answer), comparable(expected_of("openai_chat", "chat.text_content.sse.txt")))
        self.assertTrue(json.loads(server.requests[0].body)["stream"])  # complete streams unless told not to

    def test_callbacks_are_checked(self) -> None:
        with self.assertRaises(TypeError):
            anthropic.complete(ASK, model="m", settings=LIMIT, on_text="print")  # type: ignore[arg-type]


class AsyncCompleteTest(Loop):
    def setUp(self) -> None:
        super().setUp()
        if not can_run_asyncio():
            self.skipTest("needs asyncio.run(): this interpreter cannot run a loop to completion")

    def test_every_provider_streams_the_same_item(self) -> None:
        for name, streams in STREAMS.items():
            module = MODULES[name]
            with self.subTest(name), Loopback([reply(name, recorded.raw(name, streams[0]), pieces=5)]) as server:
                texts: list[str] = []
                answer = asyncio.run(module.acomplete(ASK, model="m-1", base_url=server.url(), settings=LIMIT,
                                                      on_text=texts.append, transport=plain()))
                self.assertEqual(comparable(answer), comparable(expected_of(name, streams[0])))
                self.assertEqual("".join(texts), visible(answer))

    def test_not_streaming_and_cut(self) -> None:
        body = recorded.raw("openai_responses", RESPONSES["openai_responses"])
        with Loopback([json_reply(200, body)]) as server:
            answer = asyncio.run(openai_responses.acomplete(ASK, model="m", base_url=server.url(), stream=False, transport=plain()))
        self.assertEqual(answer, openai_responses.items_from_response(json.loads(body))[0])
        raw = recorded.raw("anthropic", "messages.thinking_text.sse.txt")
        with Loopback([sse_reply(raw[: len(raw) // 2], pieces=3)]) as server:
            cut = asyncio.run(anthropic.acomplete(ASK, model="m", base_url=server.url(), settings=LIMIT, transport=plain()))
        self.assertIs(cut.finish_reason, FinishReason.ERROR)
        self.assertEqual(cut.metadata[STREAM_CUT_KEY]["error"], ENDED_EARLY)  # type: ignore[index]

    def test_an_interrupt_returns_the_turn_cancelled(self) -> None:
        for name, stream in TEXT_STREAMS.items():
            controller = CancellationController()

            async def turn(url: str) -> Item:
                def on_text(chunk: str) -> None:
                    asyncio.get_running_loop().call_later(0.05, controller.interrupt)

                return await MODULES[name].acomplete(ASK, model="m-1", base_url=url, settings=LIMIT, on_text=on_text,  # type: ignore[no-any-return]
                                                     cancel=controller, transport=plain())

            with self.subTest(name), Loopback([reply(name, first_text(name, stream), stall=True)]) as server:
                answer = asyncio.run(turn(server.url()))
                self.assertIs(answer.finish_reason, FinishReason.CANCELLED)
                self.assertTrue(visible(answer))

    def test_cancelling_the_task_propagates(self) -> None:
        async def main() -> str:
            started = asyncio.Event()
            task = asyncio.ensure_future(anthropic.acomplete(ASK, model="m", base_url=server.url(), settings=LIMIT,
                                                             on_text=lambda chunk: started.set(), transport=plain()))
            await asyncio.wait_for(started.wait(), 10)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                return "cancelled"
            return "finished"

        with Loopback([sse_reply(first_text("anthropic", "messages.text_tool_use.sse.txt"), stall=True)]) as server:
            self.assertEqual(asyncio.run(main()), "cancelled")

    def test_cancelling_the_task_closes_the_connection_the_server_sees_it(self) -> None:
        """The read is aborted, not left behind: every provider's server sees the client close once the task is cancelled."""
        for name, stream in TEXT_STREAMS.items():
            async def main(url: str) -> str:
                started = asyncio.Event()
                task = asyncio.ensure_future(MODULES[name].acomplete(ASK, model="m-1", base_url=url, settings=LIMIT,
                                                                     on_text=lambda chunk: started.set(), transport=plain()))
                await asyncio.wait_for(started.wait(), LONGEST)
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    return "cancelled"
                return "finished"

            with self.subTest(name), Stalling(name, first_text(name, stream)) as server:
                self.assertEqual(asyncio.run(main(server.url())), "cancelled")
                self.assertTrue(server.closed.wait(LONGEST), "the server never saw the connection closed")


if __name__ == "__main__":
    unittest.main()
