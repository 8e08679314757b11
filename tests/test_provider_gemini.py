"""The Gemini projection on recorded generateContent traffic (tests/payloads/gemini) and documented shapes.

Over every recorded file: responses decode; the stream and its raw SSE body
fold, closing every part, to the item of the non-streaming response holding
the same content; requests round-trip exactly; the follow-up request is
rebuilt from the conversation so far; usage and finish reasons map (also
live while streaming).  Hand-written payloads shaped like the API reference
cover what the recordings do not show, and seeded mutations of every file
prove that bad input gives only ``NormalizeError``.
"""

from __future__ import annotations

import base64
import copy
import inspect
import json
import random
import unittest
from functools import partial
from typing import Any, Callable

from agentkit_core import (
    FINISH_REASON_KEY,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    AppendText,
    ArtifactId,
    BeginPart,
    CommitPart,
    CustomPart,
    FilePart,
    FilesOutput,
    FinishReason,
    FoldState,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    Modality,
    NormalizeError,
    PartId,
    PartKind,
    PartsOutput,
    ReasoningPart,
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
from agentkit_core.providers import gemini
from tests import recorded
from tests.mutation import mutate, mutate_stream, outcome
from tests.recorded import stored

JsonDict = dict[str, Any]

THINKING = "stream_generate_content.thinking_text"
PARALLEL = "generate_content.parallel_function_calls"
CODE = "generate_content.code_execution"
CALL3 = "stream_generate_content.call_gemini_3"
CALL2 = "generate_content.call_gemini_2_0"
SIG = "thoughtSignature"


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mN4ESv/HwAF+QJkshCkKQAAAABJRU5ErkJggg=="
PCM = "AAAAAgAEAAIAAAD+APwA/gAAAAEAAAD/"  # raw L16, as Gemini TTS answers

#: Part shapes of the API reference the recordings do not show.
DOCUMENTED_RESPONSE: JsonDict = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"inlineData": {"mimeType": "image/png", "data": PNG}, "thought": True},
                    {"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000", "data": PCM}},
                    {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0=", "displayName": "q3.pdf"}},
                    {
                        "fileData": {"mimeType": "video/mp4", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"},
                        "videoMetadata": {"startOffset": "1s", "endOffset": "5s", "fps": 2},
                    },
                    {"fileData": {"fileUri": "gs://bucket/notes"}},
                    {"functionCall": {"id": "fc-9", "name": "lookup", "args": {"q": "x"}}},
                    {"functionCall": {"name": "ping"}},
                ],
            },
            "finishReason": "STOP",
        }
    ]
}

#: A Gemini 3 function response with a JSON object and media at once, python-genai's snake_case inside.
MEDIA_RESULT_REQUEST: JsonDict = {
    "contents": [
        {"role": "model", "parts": [{"functionCall": {"id": "fc-1", "name": "render", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "fc-1",
                        "name": "render",
                        "response": {"status": "ok"},
                        "parts": [
                            {"inline_data": {"mime_type": "image/png", "data": PNG.replace("+", "-").replace("/", "_")}},  # URL-safe, as python-genai sends
                            {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/r.pdf"}},
                        ],
                    }
                }
            ],
        },
    ]
}

#: Every consumed field spelled in snake_case somewhere, and a content without role.
SNAKE_CASE_REQUEST: JsonDict = {
    "system_instruction": {"parts": [{"text": "be brief"}]},
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "look"},
                {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}},
                {"file_data": {"file_uri": "https://x/y.mp4", "mimeType": "video/mp4"}, "video_metadata": {"fps": 1}},
                {"file_data": {"file_uri": "gs://b/notes.txt", "mime_type": "text/plain", "display_name": "notes"}},
            ],
        },
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}, "thought_signature": "c2ln"}]},
        {"parts": [{"function_response": {"name": "f", "response": {"error": "boom"}}}]},
    ],
}


load = partial(recorded.load, "gemini")
load_events = partial(recorded.load_events, "gemini")
files = partial(recorded.names, "gemini")


def transcript(request: JsonDict) -> JsonDict:
    """The fields of a request body that hold its transcript."""
    return {k: v for k, v in request.items() if k in ("contents", "systemInstruction", "system_instruction")}


def signature_bytes(value: Any) -> Any:
    """``value`` with every ``thoughtSignature`` string replaced by the bytes it encodes, whichever alphabet.

    python-genai re-sends URL-safe base64 what the API sent as standard base64.
    """
    if isinstance(value, list):
        return [signature_bytes(v) for v in value]
    if isinstance(value, dict):
        out = {k: signature_bytes(v) for k, v in value.items()}
        if isinstance(value.get(SIG), str):
            out[SIG] = base64.urlsafe_b64decode(value[SIG].replace("+", "-").replace("/", "_"))
        return out
    return value


def replayed(content: JsonDict) -> JsonDict:
    """A model content from a response as a client sends it back: its first call signed, with the placeholder if
    unsigned, and without empty parts.

    pydantic-ai's Gemini clients do so (Google documents the placeholder for calls that carry no signature).
    """
    content = copy.deepcopy(content)
    if isinstance(content.get("parts"), list):
        content["parts"] = [p for p in content["parts"] if p != {}]  # an empty part is no part
    call = next((p for p in content.get("parts") or () if "functionCall" in p or "function_call" in p), None)
    if call is not None and SIG not in call and "thought_signature" not in call:
        call[SIG] = gemini.SKIP_SIGNATURE
    return content


def ids(prefix: str = "id") -> Callable[[], str]:
    """A deterministic ``new_call_id``: ``id-1``, ``id-2``..."""
    n = iter(range(1, 10**6))
    return lambda: f"{prefix}-{next(n)}"


def response_from_chunks(events: list[JsonDict]) -> JsonDict:
    """The non-streaming response holding what ``events`` streamed.

    Response and candidate fields: the last value sent.  Content parts: a text
    chunk continues the previous text part of the same ``thought`` flag unless
    it carries a signature with text of its own; every other part stands alone.
    """
    response: JsonDict = {}
    candidates: dict[int, JsonDict] = {}
    for event in events:
        response.update((k, copy.deepcopy(v)) for k, v in event.items() if k != "candidates")
        for native in event.get("candidates", ()):
            candidate = candidates.setdefault(native.get("index", 0), {})
            for key, value in native.items():
                if key != "content":
                    candidate[key] = copy.deepcopy(value)
                    continue
                content = candidate.setdefault("content", {})
                content.update((k, copy.deepcopy(v)) for k, v in value.items() if k != "parts")
                parts = content.setdefault("parts", []) if "parts" in value else []
                for part in value.get("parts", ()):
                    call = part.get("functionCall")
                    if isinstance(call, dict) and "name" not in call:  # a fragment of a call's arguments (Vertex)
                        fragment_into(parts[-1]["functionCall"], call)
                        continue
                    if isinstance(call, dict) and call.get("willContinue"):  # a call whose arguments follow
                        part = copy.deepcopy(part)
                        del part["functionCall"]["willContinue"]
                        part["functionCall"]["args"] = {}
                    last = parts[-1] if parts else None
                    same = last is not None and "text" in part and "text" in last and bool(part.get("thought")) == bool(last.get("thought"))
                    if same and (SIG not in part or (SIG not in last and part["text"] == "")):
                        last["text"] += part["text"]
                        last.update((k, v) for k, v in part.items() if k != "text")
                    elif part != {"text": ""}:
                        parts.append(copy.deepcopy(part))
    response["candidates"] = [candidates[i] for i in sorted(candidates)]
    return response


def fragment_into(call: JsonDict, fragment: JsonDict) -> None:
    """Put a ``partialArgs`` fragment's values into ``call["args"]``: ``$.a[0].b`` paths, strings sent in pieces joined."""
    for piece in fragment.get("partialArgs", ()):
        steps = [int(s) if s.isdigit() else s for s in piece["jsonPath"][2:].replace("[", ".").replace("]", "").split(".")]
        kind = next(k for k in piece if k.endswith("Value"))
        holder = call["args"]
        for step, after in zip(steps, steps[1:]):
            if isinstance(step, int):
                holder += [None] * (step + 1 - len(holder))
                holder[step] = holder[step] if holder[step] is not None else ([] if isinstance(after, int) else {})
                holder = holder[step]
            else:
                holder = holder.setdefault(step, [] if isinstance(after, int) else {})
        last = steps[-1]
        if isinstance(holder, list):
            holder += [None] * (last + 1 - len(holder))
            old = holder[last]
        else:
            old = holder.get(last)
        value = None if kind == "nullValue" else piece[kind]
        holder[last] = old + value if kind == "stringValue" and isinstance(old, str) else value


def chunks_of(response: JsonDict, size: int = 9) -> list[JsonDict]:
    """A stream for ``response``: its text parts in ``size``-character chunks, other parts whole, usage on every chunk."""
    envelope = {k: v for k, v in response.items() if k != "candidates"}
    events: list[JsonDict] = []
    for candidate in response["candidates"]:
        head = {k: v for k, v in candidate.items() if k not in ("content", "finishReason")}
        content = candidate.get("content", {})
        role = {k: v for k, v in content.items() if k != "parts"}
        pieces: list[JsonDict] = []
        for part in content.get("parts", []):
            if isinstance(part.get("text"), str) and len(part["text"]) > size:
                text = part["text"]
                pieces.append({**part, "text": text[:size]})
                pieces += [{k: v for k, v in part.items() if k not in ("text", SIG)} | {"text": text[i : i + size]} for i in range(size, len(text), size)]
            else:
                pieces.append(part)
        for n, piece in enumerate(pieces or [None]):
            native: JsonDict = {**head, "content": copy.deepcopy(role) if piece is None else {**role, "parts": [copy.deepcopy(piece)]}}
            if n == len(pieces or [None]) - 1 and "finishReason" in candidate:
                native["finishReason"] = candidate["finishReason"]
            events.append({**copy.deepcopy(envelope), "candidates": [native]})
    return events


def fold_events(events: list[JsonDict], decoder: gemini.GeminiStreamDecoder) -> FoldState:
    state = FoldState()
    for event in events:
        state = fold_all(state, decoder.feed(event))
    return state


class ResponseTests(unittest.TestCase):
    def test_every_response_decodes(self) -> None:
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                [item] = gemini.items_from_response(response)
                [candidate] = response["candidates"]
                self.assertIs(item.kind, ItemKind.ASSISTANT)
                self.assertEqual(item.id, MessageId(response["responseId"]))
                self.assertEqual(item.metadata["gemini.modelVersion"], response["modelVersion"])
                self.assertEqual(item.metadata[FINISH_REASON_KEY], candidate["finishReason"])
                self.assertEqual(item.usage.metadata["gemini.usage"], response["usageMetadata"])
                self.assertEqual(len(item.parts), len([p for p in candidate["content"].get("parts", ()) if p != {}]))
                self.assertEqual(stored(item), item)

    def test_assistant_turn_echoes_back_as_it_came(self) -> None:
        responses = {name: load(name) for name in files(".response.json")}
        responses[THINKING] = response_from_chunks(load_events(THINKING + ".stream.jsonl"))
        for name, response in responses.items():
            with self.subTest(name):
                content = response["candidates"][0]["content"]
                item = gemini.items_from_response(response)[0]  # invented ids, never sent
                again = replayed(content)
                expected = [again] if again.get("parts") else []  # a turn without parts is not sent
                self.assertEqual(gemini.request_from_items([item]), {"contents": expected})
                self.assertEqual(gemini.request_from_items([stored(item)]), {"contents": expected})

    def test_an_unsigned_call_goes_back_with_the_placeholder_as_clients_send_it(self) -> None:
        """Gemini 2.0 answers with a call that has no signature; the follow-up signs it with the documented placeholder.

        Recorded: pydantic/pydantic-ai, tests/models/cassettes/test_gemini/test_gemini_tool_output.yaml
        (gemini-2.0-flash), interactions 0 and 1.  A request that held such a call sends it back unsigned.
        """
        followup = load(CALL2 + "_turn2.request.json")
        [assistant] = gemini.items_from_response(load(CALL2 + ".response.json"))
        [result] = gemini.items_from_request(followup)[2:]
        rebuilt = gemini.request_from_items(gemini.items_from_request(load(CALL2 + ".request.json")) + [assistant, result])
        self.assertEqual(rebuilt, transcript(followup))
        self.assertEqual(rebuilt["contents"][1]["parts"][0][SIG], gemini.SKIP_SIGNATURE)
        unsigned = copy.deepcopy(followup)
        del unsigned["contents"][1]["parts"][0][SIG]
        self.assertEqual(gemini.request_from_items(gemini.items_from_request(unsigned)), transcript(unsigned))
        two = {"contents": [{"role": "model", "parts": [{"text": "x"}, *[{"functionCall": {"name": n, "args": {}}} for n in "fg"]]}]}
        [both] = gemini.items_from_response({"candidates": [{"content": two["contents"][0]}]})
        sent = gemini.request_from_items([both])["contents"][0]["parts"]
        self.assertEqual([SIG in p for p in sent], [False, True, False])  # the first call of the step only

    def test_thought_signature_stays_on_the_first_of_parallel_calls(self) -> None:
        response = load(PARALLEL + ".response.json")
        item = gemini.items_from_response(response)[0]
        calls = [p for p in item.parts if isinstance(p, ToolCallPart)]
        self.assertEqual(len(calls), 3)
        signature = response["candidates"][0]["content"]["parts"][0][SIG]
        self.assertEqual(calls[0].metadata["gemini.thought_signature"], signature)
        self.assertEqual(calls[0].metadata[PROVIDER_KEY], "gemini")
        for call in calls[1:]:
            self.assertNotIn("gemini.thought_signature", call.metadata)
            self.assertNotIn(PROVIDER_KEY, call.metadata)
        self.assertEqual(item.metadata["gemini.finishMessage"], "Model generated function call(s).")
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "STOP")

    def test_calls_without_id_get_invented_ids_that_are_marked(self) -> None:
        response = load(PARALLEL + ".response.json")
        calls = [p for p in gemini.items_from_response(response)[0].parts if isinstance(p, ToolCallPart)]
        self.assertEqual(len({c.id for c in calls}), 3)
        for call in calls:
            self.assertTrue(call.id.value)
            self.assertIs(call.metadata[INVENTED_ID_KEY], True)
            self.assertEqual((call.name, call.input), ("generate_topic", {}))
        again = [p for p in gemini.items_from_response(response)[0].parts if isinstance(p, ToolCallPart)]
        self.assertFalse({c.id for c in calls} & {c.id for c in again})  # unique across decodes too

    def test_new_call_id_names_each_id_less_call_once(self) -> None:
        response = load(PARALLEL + ".response.json")
        given: list[str] = []

        def new_call_id() -> str:
            given.append(f"mine-{len(given)}")
            return given[-1]

        calls = [p for p in gemini.items_from_response(response, new_call_id=new_call_id)[0].parts]
        self.assertEqual(given, ["mine-0", "mine-1", "mine-2"])
        self.assertEqual([c.id for c in calls], [ToolCallId(i) for i in given])
        self.assertFalse(any(INVENTED_ID_KEY in c.metadata for c in calls))
        # An id the server sent is kept and asks nothing of new_call_id.
        native = copy.deepcopy(response)
        native["candidates"][0]["content"]["parts"][0]["functionCall"]["id"] = "srv-1"
        given.clear()
        calls = gemini.items_from_response(native, new_call_id=new_call_id)[0].parts
        self.assertEqual([c.id.value for c in calls], ["srv-1", "mine-0", "mine-1"])
        with self.assertRaises(NormalizeError):
            gemini.items_from_response(response, new_call_id=lambda: 7)  # type: ignore[arg-type, return-value]

    def test_code_execution_is_server_side_and_kept_verbatim(self) -> None:
        response = load(CODE + ".response.json")
        item = gemini.items_from_response(response)[0]
        natives = response["candidates"][0]["content"]["parts"]
        self.assertFalse(any(isinstance(p, (ToolCallPart, ToolResultPart)) for p in item.parts))
        kinds = [p.kind if isinstance(p, CustomPart) else type(p).__name__ for p in item.parts]
        self.assertEqual(kinds, ["gemini.executableCode", "gemini.codeExecutionResult"] * 2 + ["TextPart"])
        for part, native in zip(item.parts[:4], natives):
            self.assertEqual(part.value, {k: v for k, v in native.items() if k != SIG})
            self.assertEqual(part.metadata.get("gemini.thought_signature"), native.get(SIG))
        self.assertEqual(item.parts[4].metadata["gemini.thought_signature"], natives[4][SIG])
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)

    def test_usage_counts_tool_use_prompts_as_input_and_thoughts_as_output(self) -> None:
        item = gemini.items_from_response(load(CODE + ".response.json"))[0]
        tokens = item.usage.tokens
        self.assertEqual((tokens.input_tokens, tokens.output_tokens), (257 + 1732, 170 + 773))
        self.assertEqual((tokens.reasoning_tokens, tokens.cached_input_tokens, tokens.cache_write_input_tokens), (773, None, None))
        for name in files(".response.json"):
            with self.subTest(name):
                response = load(name)
                usage = gemini.items_from_response(response)[0].usage
                self.assertEqual(usage.tokens.total_tokens, response["usageMetadata"]["totalTokenCount"])
        cached = gemini.usage_from_native(
            {"promptTokenCount": 1200, "cachedContentTokenCount": 1000, "candidatesTokenCount": 40, "totalTokenCount": 1240}
        )
        self.assertEqual((cached.tokens.input_tokens, cached.tokens.cached_input_tokens, cached.tokens.reasoning_tokens), (1200, 1000, None))
        self.assertIsNone(gemini.usage_from_native({"trafficType": "ON_DEMAND"}).tokens)

    def test_safety_block_keeps_its_ratings(self) -> None:
        response = load("generate_content.safety_block.response.json")
        item = gemini.items_from_response(response)[0]
        self.assertEqual(item.parts, ())
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)
        self.assertEqual(item.metadata["gemini.safetyRatings"], response["candidates"][0]["safetyRatings"])
        self.assertEqual(item.usage.tokens.input_tokens, 14)

    def test_prompt_blocked_before_generation_gives_one_blocked_item(self) -> None:
        feedback = {"blockReason": "PROHIBITED_CONTENT", "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH"}]}
        response = {
            "promptFeedback": feedback,
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "r-1",
        }
        for decoded in (gemini.items_from_response(response), gemini.items_from_stream([response])):
            [item] = decoded
            self.assertEqual((item.kind, item.parts, item.finish_reason), (ItemKind.ASSISTANT, (), FinishReason.BLOCKED))
            self.assertEqual(item.metadata[FINISH_REASON_KEY], "PROHIBITED_CONTENT")
            self.assertEqual(item.metadata["gemini.promptFeedback"], feedback)
            self.assertEqual(item.usage.tokens.input_tokens, 9)
            self.assertEqual(item.id, MessageId("r-1"))
        decoder = gemini.stream_decoder()
        decoder.feed(response)
        self.assertEqual(decoder.finish_reason, FinishReason.BLOCKED)
        # No candidates and no block: still one item, with no finish reason.
        [empty] = gemini.items_from_response({"modelVersion": "m"})
        self.assertEqual((empty.parts, empty.finish_reason), ((), None))

    def test_every_finish_reason_maps_and_stays_raw(self) -> None:
        expected = {
            "STOP": FinishReason.COMPLETED,
            "MAX_TOKENS": FinishReason.MAX_TOKENS,
            "SAFETY": FinishReason.BLOCKED,
            "RECITATION": FinishReason.BLOCKED,
            "BLOCKLIST": FinishReason.BLOCKED,
            "PROHIBITED_CONTENT": FinishReason.BLOCKED,
            "SPII": FinishReason.BLOCKED,
            "IMAGE_SAFETY": FinishReason.BLOCKED,
            "IMAGE_PROHIBITED_CONTENT": FinishReason.BLOCKED,
            "IMAGE_RECITATION": FinishReason.BLOCKED,
            "MODEL_ARMOR": FinishReason.BLOCKED,
            "MALFORMED_FUNCTION_CALL": FinishReason.ERROR,
            "UNEXPECTED_TOOL_CALL": FinishReason.ERROR,
            "TOO_MANY_TOOL_CALLS": FinishReason.ERROR,
            # Newer than the SDK enum recorded in enums.json: a replay that left out a required signature, a broken answer.
            "MISSING_THOUGHT_SIGNATURE": FinishReason.ERROR,
            "MALFORMED_RESPONSE": FinishReason.ERROR,
            "LANGUAGE": FinishReason.other("LANGUAGE"),
            "OTHER": FinishReason.other("OTHER"),
            "NO_IMAGE": FinishReason.other("NO_IMAGE"),
            "IMAGE_OTHER": FinishReason.other("IMAGE_OTHER"),
            "FINISH_REASON_UNSPECIFIED": FinishReason.other("FINISH_REASON_UNSPECIFIED"),
            "A_REASON_FROM_THE_FUTURE": FinishReason.other("A_REASON_FROM_THE_FUTURE"),
        }
        enums = recorded.load("gemini", "../enums.json")["gemini"]
        self.assertLessEqual(set(enums["finishReason"]) | set(enums["finishReason_observed_not_in_sdk_enum"]), set(expected))
        base = load("generate_content.safety_block.response.json")
        for raw, reason in expected.items():
            with self.subTest(raw):
                response = copy.deepcopy(base)
                response["candidates"][0]["finishReason"] = raw
                item = gemini.items_from_response(response)[0]
                self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (reason, raw))
                self.assertEqual(gemini.finish_reason(raw), reason)
        calls = gemini.items_from_response(load(PARALLEL + ".response.json"))[0]
        self.assertEqual(calls.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(gemini.finish_reason(calls.metadata[FINISH_REASON_KEY]), FinishReason.COMPLETED)  # STOP alone
        cut = copy.deepcopy(load(PARALLEL + ".response.json"))
        cut["candidates"][0]["finishReason"] = "MAX_TOKENS"
        self.assertEqual(gemini.items_from_response(cut)[0].finish_reason, FinishReason.MAX_TOKENS)  # calls cut short
        self.assertIsNone(gemini.finish_reason(None))
        for reason in enums["promptFeedback.blockReason"]:
            with self.subTest(block=reason):
                [item] = gemini.items_from_response({"promptFeedback": {"blockReason": reason}})
                self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.BLOCKED, reason))

    def test_several_candidates_give_one_item_each_in_index_order(self) -> None:
        response = {
            "candidates": [
                {"index": 1, "content": {"role": "model", "parts": [{"text": "B"}]}, "finishReason": "MAX_TOKENS"},
                {
                    "index": 0,
                    "content": {"role": "model", "parts": [{"text": "A"}]},
                    "finishReason": "STOP",
                    "avgLogprobs": -0.5,
                    "logprobsResult": {"topCandidates": [], "chosenCandidates": [{"token": "A", "logProbability": -0.5}]},
                    "citationMetadata": {"citationSources": [{"startIndex": 0, "endIndex": 1, "uri": "https://example.com"}]},
                },
            ],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7},
            "responseId": "r-2",
        }
        first, second = gemini.items_from_response(response)
        self.assertEqual((first.text_content(), second.text_content()), ("A", "B"))
        self.assertEqual((first.finish_reason, second.finish_reason), (FinishReason.COMPLETED, FinishReason.MAX_TOKENS))
        self.assertEqual((first.id, second.id), (MessageId("r-2"), MessageId("r-2")))
        self.assertEqual(first.usage.tokens.total_tokens, 7)
        self.assertIsNone(second.usage)  # the usage covers every candidate: counted once
        self.assertEqual((first.metadata["gemini.index"], first.metadata["gemini.avgLogprobs"]), (0, -0.5))
        native = response["candidates"][1]
        for field in ("logprobsResult", "citationMetadata"):
            self.assertEqual(first.metadata["gemini." + field], native[field])

    def test_create_time_in_milliseconds_and_kept_raw(self) -> None:
        cases = {
            "2025-06-01T12:00:00.123456Z": 1748779200123,
            "2025-06-01T12:00:00Z": 1748779200000,
            "2025-06-01T14:00:00.5+02:00": 1748779200500,
            "2025-06-01T12:00:00.123456789Z": 1748779200123,
            "1970-01-01T00:00:00Z": 0,
            "yesterday": None,
            "2025-13-01T12:00:00Z": None,
            "1969-12-31T23:59:59Z": None,
        }
        for raw, millis in cases.items():
            with self.subTest(raw):
                item = gemini.items_from_response({"createTime": raw, "candidates": [{"content": {"parts": [{"text": "x"}]}}]})[0]
                self.assertEqual(item.created_at, millis)
                self.assertEqual(item.metadata["gemini.createTime"], raw)

    def test_unknown_fields_and_parts_survive(self) -> None:
        parts = [
            {"text": "see", "partMetadata": {"source": "a.txt"}, "sparkle": 3},
            {"hologram": {"frames": [1, 2]}},
            {"toolCall": {"id": "t1", "toolType": "GOOGLE_SEARCH", "args": {"q": "x"}}, SIG: "c2ln"},
            {"toolResponse": {"id": "t1", "toolType": "GOOGLE_SEARCH", "response": {"hits": 2}}},
            {"text": "two fields", "functionCall": {"name": "f", "args": {}}},
            {"text": 7},
            {"inlineData": {"mimeType": "image/png", "data": "not base64!"}},
        ]
        response = {
            "candidates": [{"content": {"role": "model", "parts": parts, "future": 1}, "finishReason": "STOP", "groundingMetadata": {"webSearchQueries": ["q"]}}],
            "modelStatus": {"stage": "PREVIEW"},
        }
        item = gemini.items_from_response(copy.deepcopy(response))[0]
        text, hologram, tool_call, tool_response, two, bad_text, bad_data = item.parts
        self.assertEqual(text, TextPart("see", metadata={"gemini.partMetadata": {"source": "a.txt"}, "gemini.sparkle": 3}))
        self.assertEqual(hologram, CustomPart("gemini.hologram", value=parts[1]))
        self.assertEqual(tool_call, CustomPart("gemini.toolCall", value={"toolCall": parts[2]["toolCall"]}, metadata={"gemini.thought_signature": "c2ln", PROVIDER_KEY: "gemini"}))
        self.assertEqual(tool_response.kind, "gemini.toolResponse")
        self.assertEqual([two.kind, bad_text.kind, bad_data.kind], ["gemini.text", "gemini.text", "gemini.inlineData"])
        self.assertEqual(item.metadata["gemini.groundingMetadata"], {"webSearchQueries": ["q"]})
        self.assertEqual(item.metadata["gemini.modelStatus"], {"stage": "PREVIEW"})
        self.assertEqual(item.metadata["gemini.content.future"], 1)
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)  # a call inside a custom part is not one to run
        self.assertEqual(gemini.request_from_items([item]), {"contents": [replayed(response["candidates"][0]["content"])]})

    def test_documented_part_shapes(self) -> None:
        png, pcm = base64.b64decode(PNG), base64.b64decode(PCM)
        response = DOCUMENTED_RESPONSE
        parts = response["candidates"][0]["content"]["parts"]
        item = gemini.items_from_response(copy.deepcopy(response))[0]
        image, audio, pdf, video, notes, call, ping = item.parts
        self.assertEqual(image, MediaPart(Modality.IMAGE, "image/png", InlineBytes(png), metadata={"gemini.thought": True}))
        self.assertEqual(audio, MediaPart(Modality.AUDIO, "audio/L16;codec=pcm;rate=24000", InlineBytes(pcm)))
        self.assertEqual(pdf, FilePart(InlineBytes(b"%PDF-"), name="q3.pdf", mime_type="application/pdf"))
        self.assertEqual(video, MediaPart(Modality.VIDEO, "video/mp4", Uri(parts[3]["fileData"]["fileUri"]), metadata={"gemini.videoMetadata": parts[3]["videoMetadata"]}))
        self.assertEqual(notes, FilePart(Uri("gs://bucket/notes")))
        self.assertEqual(call, ToolCallPart(ToolCallId("fc-9"), "lookup", {"q": "x"}))
        self.assertEqual((ping.input, ping.metadata["gemini.omitted"]), ({}, ["functionCall.args"]))
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        self.assertEqual(gemini.request_from_items([item]), {"contents": [replayed(response["candidates"][0]["content"])]})


class StreamTests(unittest.TestCase):
    def test_stream_folds_to_the_response_holding_the_same_content(self) -> None:
        for name in files(".stream.jsonl"):
            with self.subTest(name):
                events = load_events(name)
                expected = gemini.items_from_response(response_from_chunks(events), new_call_id=ids())
                decoder = gemini.stream_decoder(new_call_id=ids())
                state = fold_events(events, decoder)
                self.assertFalse(state.is_open)  # the chunk with a finishReason committed everything
                self.assertEqual([decoder.finish(state.parts)], expected)
                self.assertEqual(gemini.items_from_stream(events, new_call_id=ids()), expected)
                self.assertEqual(json.dumps(expected[0].to_dict()), json.dumps(gemini.items_from_stream(events, new_call_id=ids())[0].to_dict()))

    def test_raw_sse_body_is_the_jsonl_events(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                raw = recorded.raw("gemini", name)
                events = load_events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertEqual(list(gemini.events_from_sse(raw)), events)
                self.assertEqual(list(gemini.events_from_sse(raw.decode("utf-8"))), events)
                self.assertEqual(list(gemini.events_from_sse(raw[i : i + 100] for i in range(0, len(raw), 100))), events)
                self.assertEqual(gemini.items_from_stream(gemini.events_from_sse(raw), new_call_id=ids()), gemini.items_from_stream(events, new_call_id=ids()))

    def test_a_lone_cr_ends_an_sse_line(self) -> None:
        for name in files(".sse.txt"):
            with self.subTest(name):
                body = recorded.with_lone_cr(recorded.raw("gemini", name))
                events = load_events(name.replace(".sse.txt", ".stream.jsonl"))
                self.assertNotIn(b"\n", body)
                self.assertEqual(list(gemini.events_from_sse(body)), events)
                self.assertEqual(list(gemini.events_from_sse(body.decode("utf-8"))), events)
                self.assertEqual(list(gemini.events_from_sse(recorded.after_each_cr(body))), events)

    def test_thinking_stream_parts_and_signature(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")
        [item] = gemini.items_from_stream(events)
        reasoning, answer = item.parts
        thoughts = [e["candidates"][0]["content"]["parts"][0] for e in events[:4]]
        self.assertEqual(reasoning, ReasoningPart("".join(t["text"] for t in thoughts), metadata={"gemini.thought": True}))
        signature = events[4]["candidates"][0]["content"]["parts"][0][SIG]
        self.assertEqual(answer.metadata, {"gemini.thought_signature": signature, PROVIDER_KEY: "gemini"})
        self.assertTrue(answer.text.startswith("This is a great question!"))
        self.assertTrue(answer.text.endswith("Always assume a driver might not see you."))
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        deltas = [d for e in events for d in gemini.stream_decoder().feed(e)][:3]
        first = PartId("part-0-0")
        self.assertEqual(deltas, [BeginPart(first, PartKind.REASONING), SetMetadata(first, {"gemini.thought": True}), AppendText(first, thoughts[0]["text"])])
        all_deltas = []
        decoder = gemini.stream_decoder()
        for event in events:
            all_deltas += decoder.feed(event)
        second = PartId("part-0-1")
        at = all_deltas.index(BeginPart(second, PartKind.TEXT))
        self.assertEqual(all_deltas[at - 1], CommitPart(reasoning, part_id=first))
        self.assertEqual(all_deltas[at + 1], SetMetadata(second, {"gemini.thought_signature": signature, PROVIDER_KEY: "gemini"}))
        self.assertEqual(all_deltas[-1], CommitPart(answer, part_id=second))

    def test_snapshots_grow_by_appending_and_nothing_stays_open(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")
        [final] = gemini.items_from_stream(events)
        decoder, state = gemini.stream_decoder(), FoldState()
        snapshots = 0
        for n, event in enumerate(events):
            for delta in decoder.feed(event):
                state = fold(state, delta)
                for part, done in zip(state.snapshot(), final.parts):
                    text = (part.summary if isinstance(part, ReasoningPart) else part.text) or ""
                    whole = (done.summary if isinstance(done, ReasoningPart) else done.text) or ""
                    self.assertTrue(whole.startswith(text))
                    snapshots += 1
            self.assertEqual(state.is_open, n < len(events) - 1)
        self.assertGreater(snapshots, len(events))

    def test_live_usage_and_finish_reason(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")
        events[7]["usageMetadata"]["promptTokenCount"] = 36  # the prompt count may change mid-stream
        decoder = gemini.stream_decoder()
        self.assertIsNone(decoder.usage)
        self.assertIsNone(decoder.finish_reason)
        for n, event in enumerate(events):
            decoder.feed(event)
            native = event["usageMetadata"]
            self.assertEqual(decoder.usage.metadata["gemini.usage"], native)
            self.assertEqual(decoder.usage.tokens.input_tokens, native["promptTokenCount"])
            self.assertEqual(decoder.usage.tokens.output_tokens, native.get("candidatesTokenCount", 0) + native["thoughtsTokenCount"])
            self.assertEqual(decoder.usage.tokens.reasoning_tokens, native["thoughtsTokenCount"])
            self.assertEqual(decoder.usage.tokens.total_tokens, native["totalTokenCount"] - 34 + native["promptTokenCount"])
            self.assertEqual(decoder.finish_reason, FinishReason.COMPLETED if n == len(events) - 1 else None)
        [item] = gemini.items_from_stream(events)
        self.assertEqual(item.usage.tokens.total_tokens, 1290)

    def test_synthetic_streams_of_every_response_agree(self) -> None:
        responses = {name: load(name) for name in files(".response.json")}
        responses["documented"] = DOCUMENTED_RESPONSE
        for name, response in responses.items():
            for size in (1, 4, 50):
                with self.subTest(name, size=size):
                    events = chunks_of(response, size)
                    self.assertEqual(response_from_chunks(events)["candidates"], response["candidates"])  # the generator is faithful
                    self.assertEqual(gemini.items_from_stream(events, new_call_id=ids()), gemini.items_from_response(response, new_call_id=ids()))

    def test_text_cut_anywhere_and_raw_bytes_cut_anywhere_fold_alike(self) -> None:
        # Thoughts and a signed answer with multi-byte characters, quotes, backslashes and a surrogate pair,
        # a call, and text after it: each text part cut at every character, and the raw SSE body at every byte.
        thought = {"text": 'Pesé "both" \\ cities\n', "thought": True}
        answer = {"text": "Naïve 日本 😀!", SIG: "c2lnbmF0dXJl"}
        response = {
            "candidates": [{"content": {"role": "model", "parts": [thought, answer, {"functionCall": {"name": "f", "args": {"q": "ü"}}}, {"text": "ok 😀"}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7},
            "responseId": "r",
        }
        expected = gemini.items_from_response(response, new_call_id=ids())
        parts = response["candidates"][0]["content"]["parts"]
        for j in (0, 1, 3):
            text = parts[j]["text"]
            for cut in range(1, len(text)):
                pieces = [{**parts[j], "text": text[:cut]}, {k: v for k, v in parts[j].items() if k != SIG} | {"text": text[cut:]}]
                stream = [{"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}], "responseId": "r"} for p in parts[:j] + pieces + parts[j + 1 :]]
                stream[-1] |= {"usageMetadata": response["usageMetadata"]}
                stream[-1]["candidates"][0]["finishReason"] = "STOP"
                with self.subTest(part=j, cut=cut):
                    self.assertEqual(gemini.items_from_stream(stream, new_call_id=ids()), expected)
        for ascii_only in (False, True):  # raw UTF-8 bytes, then \u escapes (a surrogate pair for the emoji)
            events = chunks_of(response, 50)
            raw = "".join(f"data: {json.dumps(e, ensure_ascii=ascii_only)}\r\n\r\n" for e in events).encode("utf-8")
            self.assertEqual(gemini.items_from_stream(gemini.events_from_sse(raw), new_call_id=ids()), expected)
            for cut in range(len(raw) + 1):
                with self.subTest(ascii_only=ascii_only, byte=cut):
                    self.assertEqual(list(gemini.events_from_sse([raw[:cut], raw[cut:]])), events)

    def test_media_arrives_whole_and_shows_its_header(self) -> None:
        decoder = gemini.stream_decoder()
        deltas = [d for e in chunks_of(DOCUMENTED_RESPONSE) for d in decoder.feed(e)]
        pid = PartId("part-0-0")
        self.assertEqual(deltas[:2], [BeginPart(pid, PartKind.MEDIA), SetMetadata(pid, {"agentkit.modality": "Image", "agentkit.mime_type": "image/png"})])
        self.assertEqual(deltas[2].part.data, InlineBytes(base64.b64decode(PNG)))

    def test_calls_arrive_whole_and_name_themselves(self) -> None:
        events = chunks_of(load(PARALLEL + ".response.json"))
        decoder, given = gemini.stream_decoder(new_call_id=ids("s")), []
        for event in events:
            given += decoder.feed(event)
        pid = PartId("part-0-0")
        self.assertEqual(given[:2], [BeginPart(pid, PartKind.TOOL_CALL), SetMetadata(pid, {"agentkit.tool_call_id": "s-1", "agentkit.tool_name": "generate_topic"})])
        self.assertIsInstance(given[2], CommitPart)
        self.assertEqual(decoder.finish_reason, FinishReason.TOOL_CALL)

    def test_a_signature_in_an_empty_last_chunk_joins_the_open_text(self) -> None:
        # Gemini 3 may send the signature of a streamed answer in a final chunk with empty text.
        texts = [{"text": "Hello"}, {"text": " world"}, {"text": "", SIG: "c2ln"}]
        events = [{"candidates": [{"content": {"role": "model", "parts": [t]}, "index": 0}]} for t in texts]
        events[-1]["candidates"][0]["finishReason"] = "STOP"
        [item] = gemini.items_from_stream(events)
        self.assertEqual(item.parts, (TextPart("Hello world", metadata={"gemini.thought_signature": "c2ln", PROVIDER_KEY: "gemini"}),))
        whole = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello world", SIG: "c2ln"}]}, "index": 0, "finishReason": "STOP"}]}
        self.assertEqual([item], gemini.items_from_response(whole))
        # A signature that comes with text of its own, after text, starts a new part.
        events[-1]["candidates"][0]["content"]["parts"] = [{"text": "!", SIG: "c2ln"}]
        self.assertEqual([p.text for p in gemini.items_from_stream(events)[0].parts], ["Hello world", "!"])

    def test_stream_cut_short_closes_what_arrived(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")[:7]
        decoder = gemini.stream_decoder()
        state = fold_events(events, decoder)
        self.assertTrue(state.is_open)
        self.assertIsNone(decoder.finish_reason)
        [item] = gemini.items_from_stream(events)
        self.assertEqual([type(p) for p in item.parts], [ReasoningPart, TextPart])
        self.assertEqual(item.finish_reason, FinishReason.ERROR)  # no finishReason came: not a finished turn
        self.assertEqual(item.metadata["agentkit.stream_cut"], {"dropped_calls": []})
        self.assertNotIn(FINISH_REASON_KEY, item.metadata)

    def test_error_event_ends_the_turn_with_error(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")[:6]
        error = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
        decoder = gemini.stream_decoder()
        state = fold_events(events + [{"error": error}], decoder)
        self.assertFalse(state.is_open)
        item = decoder.finish(state.parts)
        self.assertEqual((item.finish_reason, item.metadata["gemini.error"]), (FinishReason.ERROR, error))
        self.assertEqual(len(item.parts), 2)

    def test_an_error_body_ends_the_turn_with_error_as_its_stream_does(self) -> None:
        """An HTTP 400 body of ``generateContent``: one item, ``ERROR``, the error kept.

        Recorded: pydantic/pydantic-ai, tests/models/cassettes/test_gemini/
        test_image_as_binary_content_tool_response.yaml (gemini-3-pro-preview), interaction 0 response (kept here:
        the tests over every recorded response expect candidates).
        """
        message = "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools.function_declarations[0].parameters': Cannot find field."
        violation = {"description": message, "field": "tools.function_declarations[0].parameters"}
        details = [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [violation]}]
        body = {"error": {"code": 400, "details": details, "message": message, "status": "INVALID_ARGUMENT"}}
        [item] = gemini.items_from_response(body)
        self.assertEqual((item.finish_reason, item.metadata[FINISH_REASON_KEY]), (FinishReason.ERROR, "error"))
        self.assertEqual((item.parts, item.metadata["gemini.error"]), ((), body["error"]))
        self.assertEqual(gemini.items_from_stream([body]), [item])
        with self.assertRaises(NormalizeError) as caught:
            gemini.items_from_response({"error": "overloaded"})
        self.assertIn("error", str(caught.exception))

    def test_several_candidates_stream_into_one_item_each(self) -> None:
        def chunk(index: int, text: str, finish: str | None = None) -> JsonDict:
            candidate: JsonDict = {"index": index, "content": {"role": "model", "parts": [{"text": text}]}}
            if finish:
                candidate["finishReason"] = finish
            return {"candidates": [candidate], "responseId": "r"}

        events = [chunk(0, "Hel"), chunk(1, "Bon"), chunk(1, "jour", "STOP"), chunk(0, "lo", "MAX_TOKENS")]
        first, second = gemini.items_from_stream(events)
        self.assertEqual((first.text_content(), second.text_content()), ("Hello", "Bonjour"))
        self.assertEqual((first.finish_reason, second.finish_reason), (FinishReason.MAX_TOKENS, FinishReason.COMPLETED))
        self.assertEqual([first, second], gemini.items_from_response(response_from_chunks(events)))

    def test_a_gemini_3_call_stream_replays_as_the_client_sends_it(self) -> None:
        # Gemini 3 streams thoughts, then the signed calls (no ids) in one chunk, then a finish chunk of its own,
        # as raw SSE with CRLF; the follow-up carries the model content as it came (less the finish chunk's empty
        # text, which no client sends back) and results named by their calls.
        request = {"systemInstruction": {"parts": [{"text": "Be brief."}]}, "contents": [{"role": "user", "parts": [{"text": "Weather in Paris and Oslo?"}]}]}
        thought = {"text": "**Checking both cities**", "thought": True}
        calls = [{"functionCall": {"name": "weather", "args": {"city": c}}} for c in ("Paris", "Oslo")]
        calls[0][SIG] = "Q2lR/+sig=="
        envelope = {"modelVersion": "gemini-3-pro-preview", "responseId": "r-1"}
        finishes = {
            "empty text": {"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"},
            "no content": {"finishReason": "STOP"},
            "no parts": {"content": {"role": "model"}, "finishReason": "STOP"},
        }
        for name, finish in finishes.items():
            with self.subTest(name):
                chunks = [
                    {"candidates": [{"content": {"role": "model", "parts": [thought]}, "index": 0}], **envelope},
                    {"candidates": [{"content": {"role": "model", "parts": calls}, "index": 0}], **envelope},
                    {"candidates": [{**finish, "index": 0}], "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 20, "thoughtsTokenCount": 50, "totalTokenCount": 100}, **envelope},
                ]
                sse = "".join(f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in chunks)
                decoder = gemini.stream_decoder()
                state = FoldState()
                for event in gemini.events_from_sse(sse):
                    state = fold_all(state, decoder.feed(event))
                self.assertFalse(state.is_open)
                assistant = decoder.finish(state.parts)
                self.assertEqual((assistant.finish_reason, decoder.finish_reason), (FinishReason.TOOL_CALL, FinishReason.TOOL_CALL))
                self.assertEqual(assistant.usage.tokens.total_tokens, 100)
                same = gemini.items_from_stream(gemini.events_from_sse(sse), new_call_id=ids())
                self.assertEqual(same, gemini.items_from_response(response_from_chunks(chunks), new_call_id=ids()))
                results = [ToolResultPart(p.id, StructuredOutput({"celsius": n})) for n, p in enumerate(assistant.parts[1:3])]
                followup = gemini.request_from_items(gemini.items_from_request(request) + [assistant, Item(ItemKind.TOOL, results)])
                model_parts = [thought, *calls]  # the empty finish text is no part: clients send the turn without it
                self.assertEqual(followup, {
                    "systemInstruction": request["systemInstruction"],
                    "contents": [
                        request["contents"][0],
                        {"role": "model", "parts": model_parts},
                        {"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"celsius": n}}} for n in (0, 1)]},
                    ],
                })


    def test_a_recorded_gemini_3_call_stream_ends_without_an_empty_text_part(self) -> None:
        """The signed call, then a finish chunk holding only ``{"text": ""}``: one part, and the client's follow-up.

        Recorded: pydantic/pydantic-ai, tests/models/cassettes/test_google/
        test_google_streaming_tool_call_thought_signature.yaml (gemini-3-pro-preview), interactions 0 and 1.
        """
        followup = load(CALL3 + "_turn2.request.json")
        model, tool = followup["contents"][1:3]
        [assistant] = gemini.items_from_stream(gemini.events_from_sse(recorded.raw("gemini", CALL3 + ".sse.txt")), new_call_id=lambda: model["parts"][0]["functionCall"]["id"])
        [call] = assistant.parts
        self.assertIsInstance(call, ToolCallPart)
        self.assertEqual(assistant.finish_reason, FinishReason.TOOL_CALL)
        [result] = gemini.items_from_request(followup)[2:]
        rebuilt = gemini.request_from_items(gemini.items_from_request(load(CALL3 + ".request.json")) + [assistant, result])
        self.assertEqual(signature_bytes(rebuilt), signature_bytes(transcript(followup)))
        self.assertEqual(ToolCallId(tool["parts"][0]["functionResponse"]["id"]), call.id)

    def test_an_empty_part_of_an_answer_is_no_part(self) -> None:
        """An image model's answer holding ``{}`` between its text and its image: two parts, and a follow-up without it.

        Recorded: FirebaseExtended/vertexai-sdk-test-data, mock-responses/vertexai/unary-success-empty-part.json
        (gemini-2.5-flash-image-preview on Vertex AI).
        """
        body = load("generate_content.image_empty_part.response.json")
        text, empty, image = body["candidates"][0]["content"]["parts"]
        self.assertEqual(empty, {})
        [item] = gemini.items_from_response(body)
        self.assertEqual([type(p) for p in item.parts], [TextPart, MediaPart])
        chunks = [{**body, "candidates": [{"content": {"role": "model", "parts": [p]}}]} for p in (text, empty)]
        chunks.append({**body, "candidates": [{"content": {"role": "model", "parts": [image]}, "finishReason": "STOP"}]})
        self.assertEqual(gemini.items_from_stream(chunks), [item])
        user = {"role": "user", "parts": [{"text": "Draw a pig"}]}
        followup = gemini.request_from_items(gemini.items_from_request({"contents": [user]}) + [item])
        self.assertEqual(followup["contents"][1], {"role": "model", "parts": [text, image]})
        request = {"contents": [user, {"role": "model", "parts": [text, empty, image]}]}
        self.assertEqual(gemini.request_from_items(gemini.items_from_request(request)), request)  # a request keeps it

    def test_call_arguments_streamed_in_fragments_make_one_call(self) -> None:
        """Vertex AI's ``partialArgs``: the named call, then fragments by JSON path (strings in pieces), then the end.

        Recorded: vercel/ai, packages/google/src/__fixtures__/
        google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt (gemini-3-flash-preview on
        Vertex AI; six of its chunks left out, the ones for ``itemid`` and the second description).
        """
        events = load_events("stream_generate_content.vertex_partial_args.stream.jsonl")
        start = events[0]["candidates"][0]["content"]["parts"][0]
        decoder = gemini.stream_decoder(new_call_id=lambda: "call-1")
        deltas = [d for e in events for d in decoder.feed(e)]
        state = FoldState()
        for delta in deltas:
            state = fold(state, delta)
        self.assertFalse(state.is_open)
        args = {"operations": [{"action": "add", "description": "Fresh red apple", "price": 0.5}, {"action": "add", "price": 0.3}]}
        call = ToolCallPart(ToolCallId("call-1"), "writeItems", args, metadata={"gemini.thought_signature": start[SIG], PROVIDER_KEY: "gemini"})
        self.assertEqual(deltas[0], BeginPart(PartId("part-0-0"), PartKind.TOOL_CALL))
        self.assertEqual([d for d in deltas if isinstance(d, CommitPart)], [CommitPart(call, part_id=PartId("part-0-0"))])
        item = decoder.finish(state.parts)
        self.assertEqual((item.parts, item.finish_reason), ((call,), FinishReason.TOOL_CALL))
        whole = {**events[-1], "candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "writeItems", "args": args}, SIG: start[SIG]}]}, "finishReason": "STOP"}]}
        self.assertEqual(gemini.items_from_response(whole, new_call_id=lambda: "call-1"), [item])
        sent = gemini.request_from_items([item])["contents"][0]["parts"]
        self.assertEqual(sent, [{"functionCall": {"id": "call-1", "name": "writeItems", "args": args}, SIG: start[SIG]}])
        # Chunks holding only ``willContinue`` go on; a string continued into the next fragment is joined.
        pieces = [
            {"functionCall": {"name": "cook", "willContinue": True}},
            {"functionCall": {"partialArgs": [{"jsonPath": "$.recipe['the name']", "stringValue": "Las", "willContinue": True}], "willContinue": True}},
            {"functionCall": {"willContinue": True}},
            {"functionCall": {"partialArgs": [{"jsonPath": "$.recipe['the name']", "stringValue": "agna"}], "willContinue": True}},
            {"functionCall": {"partialArgs": [{"jsonPath": "$.ok", "boolValue": True}, {"jsonPath": "$.none", "nullValue": "NULL_VALUE"}]}},
        ]
        chunks = [{"candidates": [{"content": {"role": "model", "parts": [p]}}]} for p in pieces]
        [cooked] = gemini.items_from_stream([*chunks, {"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}]}])
        self.assertEqual(cooked.parts[0].input, {"recipe": {"the name": "Lasagna"}, "ok": True, "none": None})
        self.assertEqual(cooked.parts[1], TextPart("Done."))
        bad = {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "operations", "stringValue": "x"}]}}]}}]}
        decoder = gemini.stream_decoder()
        decoder.feed(chunks[0])
        with self.assertRaises(NormalizeError) as raised:
            decoder.feed(bad)
        self.assertIn("candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath", str(raised.exception))

    def test_fragments_that_would_build_too_much_are_refused_first(self) -> None:
        """A fragment's path and value may not nest past what arguments hold, nor index a list past 9,999."""
        start = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]}
        deep_value: Any = 0
        for _ in range(60):
            deep_value = [deep_value]
        fragments = {
            "a path too deep": {"jsonPath": "$" + ".a" * 123, "numberValue": 1},
            "a value too deep below its path": {"jsonPath": "$" + ".a" * 64, "listValue": deep_value},
            "an index of millions": {"jsonPath": "$.a[123456789]", "numberValue": 1},
        }
        for what, fragment in fragments.items():
            with self.subTest(what):
                decoder = gemini.stream_decoder(new_call_id=lambda: "c")
                began = decoder.feed(start)
                chunk = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [fragment]}}]}}]}
                with self.assertRaises(NormalizeError) as raised:
                    decoder.feed(chunk)
                self.assertIn("functionCall.partialArgs[0]", raised.exception.path or str(raised.exception))
                end = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.ok", "boolValue": True}]}}]}, "finishReason": "STOP"}]}
                state = fold_all(FoldState(), [*began, *decoder.feed(end)])  # the refused chunk changed nothing
                self.assertEqual([p.input for p in decoder.finish(state.parts).parts], [{"ok": True}])

    def test_parallel_calls_streamed_in_fragments_each_end_with_an_empty_call(self) -> None:
        """Three calls sent in fragments, each ended by ``{"functionCall": {}}``, after a whole call without arguments.

        Recorded: vercel/ai, packages/google/src/__fixtures__/google-stream-no-args-tool-call.chunks.txt
        (gemini-3-flash-preview on Vertex AI).
        """
        events = load_events("stream_generate_content.vertex_partial_args_parallel.stream.jsonl")
        [item] = gemini.items_from_stream(events, new_call_id=ids())
        self.assertEqual([(p.name, p.input) for p in item.parts[1:]], [("read_theme", {}), *[("read_screen", {"id": x}) for x in "ABC"]])
        self.assertEqual(item.finish_reason, FinishReason.TOOL_CALL)
        sent = gemini.request_from_items([item])["contents"][0]["parts"][1:]
        self.assertEqual([p["functionCall"].get("args") for p in sent], [None, {"id": "A"}, {"id": "B"}, {"id": "C"}])  # as each came
        self.assertEqual([SIG in p for p in sent], [True, False, False, False])

    def test_a_prompt_blocked_chunk_ends_a_stream_that_had_begun(self) -> None:
        """Text chunks, then a chunk holding only ``promptFeedback.blockReason``: the text is committed, BLOCKED.

        Recorded: FirebaseExtended/vertexai-sdk-test-data (the Firebase SDKs' shared fixtures),
        mock-responses/googleai/streaming-failure-prompt-blocked-safety.txt (its second text chunk and two safety
        ratings left out).  Kept here, not under tests/payloads: its last chunk has no ``usageMetadata``, which the
        CLI's body sniffer needs to tell a Gemini chunk holding only ``promptFeedback``.
        """
        raw = (
            'data: {"candidates": [{"content": {"parts": [{"text": "text1"}],"role": "model"}}],"usageMetadata": '
            '{"promptTokenCount": 7,"totalTokenCount": 7,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 7}]},'
            '"modelVersion": "gemini-2.0-flash"}\n\n'
            'data: {"candidates": [{"content": {"parts": [{"text": "text2"}],"role": "model"}}],"usageMetadata": '
            '{"promptTokenCount": 7,"totalTokenCount": 7,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 7}]},'
            '"modelVersion": "gemini-2.0-flash"}\n\n'
            'data: {"promptFeedback": {"blockReason": "SAFETY","safetyRatings": [{"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT",'
            '"probability": "NEGLIGIBLE"},{"category": "HARM_CATEGORY_HATE_SPEECH","probability": "HIGH"}]}}\n'
        )
        decoder = gemini.stream_decoder()
        state = fold_events(list(gemini.events_from_sse(raw)), decoder)
        self.assertFalse(state.is_open)
        item = decoder.finish(state.parts)
        self.assertEqual(item.parts, (TextPart("text1text2"),))
        self.assertEqual((item.finish_reason, decoder.finish_reason), (FinishReason.BLOCKED, FinishReason.BLOCKED))
        self.assertEqual(item.metadata[FINISH_REASON_KEY], "SAFETY")
        # The response holding the same content says the same.
        [whole] = gemini.items_from_response({"candidates": [{"content": {"parts": [{"text": "text1text2"}], "role": "model"}}], "promptFeedback": {"blockReason": "OTHER"}})
        self.assertEqual((whole.finish_reason, whole.metadata[FINISH_REASON_KEY]), (FinishReason.BLOCKED, "OTHER"))
        [finished] = gemini.items_from_response({"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"}], "promptFeedback": {"blockReason": "OTHER"}})
        self.assertEqual(finished.finish_reason, FinishReason.COMPLETED)  # a candidate's own reason wins

    def test_an_empty_text_chunk_alone_opens_no_part(self) -> None:
        chunks = [
            {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "index": 0}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}, "index": 0}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}]},
        ]
        [item] = gemini.items_from_stream(chunks)
        self.assertEqual(item.parts, (TextPart("Hi"),))
        [signed] = gemini.items_from_stream([{"candidates": [{"content": {"parts": [{"text": "", SIG: "c2ln"}]}, "finishReason": "STOP"}]}])
        self.assertEqual(signed.parts[0].metadata["gemini.thought_signature"], "c2ln")  # a signature is kept, text or not


class RequestTests(unittest.TestCase):
    def test_every_request_round_trips_exactly(self) -> None:
        for name in files(".request.json"):
            with self.subTest(name):
                request = load(name)
                items = gemini.items_from_request(request)
                self.assertEqual(gemini.request_from_items(items), transcript(request))
                self.assertEqual(gemini.request_from_items([stored(i) for i in items]), transcript(request))

    def test_request_items(self) -> None:
        request = load(PARALLEL + "_turn2.request.json")
        system, user, model, tool = gemini.items_from_request(request)
        self.assertEqual([i.kind for i in (system, user, model, tool)], [ItemKind.SYSTEM, ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL])
        self.assertEqual(system.text_content(), "Tell three jokes. Generate topics with the generate_topic tool.")
        signature = request["contents"][1]["parts"][0][SIG]
        self.assertEqual(model.parts[0].metadata["gemini.thought_signature"], signature)  # the exact string, URL-safe as sent
        self.assertEqual([p.call_id for p in tool.parts], [p.id for p in model.parts])
        self.assertEqual(tool.parts[1].output, StructuredOutput({"return_value": "penguins"}))
        self.assertEqual(tool.parts[1].metadata, {TOOL_NAME_KEY: "generate_topic"})

    def test_followup_replays_the_parallel_calls(self) -> None:
        followup = load(PARALLEL + "_turn2.request.json")
        sent = [p["functionCall"]["id"] for p in followup["contents"][1]["parts"]]
        answers = [p["functionResponse"]["response"] for p in followup["contents"][2]["parts"]]
        response = load(PARALLEL + ".response.json")
        streamed = chunks_of(response)
        for source in ("response", "stream"):
            with self.subTest(source):
                new_call_id = iter(sent).__next__
                if source == "response":
                    [assistant] = gemini.items_from_response(response, new_call_id=new_call_id)
                else:
                    [assistant] = gemini.items_from_stream(streamed, new_call_id=new_call_id)
                items = gemini.items_from_request(load(PARALLEL + ".request.json"))
                results = [ToolResultPart(call.id, StructuredOutput(answer)) for call, answer in zip(assistant.parts, answers)]
                rebuilt = gemini.request_from_items(items + [assistant, Item(ItemKind.TOOL, results)])
                self.assertEqual(signature_bytes(rebuilt), signature_bytes(transcript(followup)))
                self.assertEqual(rebuilt["contents"][1]["parts"][0][SIG], response["candidates"][0]["content"]["parts"][0][SIG])

    def test_followup_with_invented_ids_sends_no_ids(self) -> None:
        followup = transcript(load(PARALLEL + "_turn2.request.json"))
        for content in followup["contents"]:
            for part in content["parts"]:
                for field in ("functionCall", "functionResponse"):
                    part.get(field, {}).pop("id", None)
        [assistant] = gemini.items_from_response(load(PARALLEL + ".response.json"))
        answers = ["cars", "penguins", "cars"]
        results = [ToolResultPart(call.id, StructuredOutput({"return_value": a})) for call, a in zip(assistant.parts, answers)]
        items = gemini.items_from_request(load(PARALLEL + ".request.json")) + [assistant, Item(ItemKind.TOOL, results)]
        self.assertEqual(signature_bytes(gemini.request_from_items(items)), signature_bytes(followup))

    def test_id_less_results_answer_calls_by_name_and_order(self) -> None:
        def call(name: str) -> JsonDict:
            return {"functionCall": {"name": name, "args": {"n": 1}}}

        def result(name: str, value: str) -> JsonDict:
            return {"functionResponse": {"name": name, "response": {"result": value}}}

        request = {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [call("a"), call("b"), call("a")]},
                {"role": "user", "parts": [result("a", "a1"), result("b", "b1"), result("a", "a2"), {"text": "and now?"}]},
                {"role": "model", "parts": [call("b")]},
                {"role": "function", "parts": [result("b", "b2")]},
            ]
        }
        items = gemini.items_from_request(copy.deepcopy(request))
        self.assertEqual([i.kind for i in items], [ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL, ItemKind.ASSISTANT, ItemKind.TOOL])
        calls = [p for i in items for p in i.parts if isinstance(p, ToolCallPart)]
        results = [p for i in items for p in i.parts if isinstance(p, ToolResultPart)]
        self.assertEqual([r.call_id for r in results], [calls[0].id, calls[1].id, calls[2].id, calls[3].id])
        self.assertEqual(len({c.id for c in calls}), 4)
        self.assertTrue(all(p.metadata[INVENTED_ID_KEY] is True for p in calls + results))
        self.assertEqual(items[2].parts[3], TextPart("and now?"))  # text sent with the results stays in place
        self.assertEqual(gemini.request_from_items(items), request)

    def test_function_response_with_media_parts(self) -> None:
        request = MEDIA_RESULT_REQUEST
        png = request["contents"][1]["parts"][0]["functionResponse"]["parts"][0]["inline_data"]["data"]
        [_, tool] = gemini.items_from_request(copy.deepcopy(request))
        [part] = tool.parts
        self.assertFalse(part.is_error)
        image, pdf = part.output.parts[1:]
        self.assertEqual(part.output.parts[0], StructuredPart({"status": "ok"}))
        self.assertEqual((image.modality, image.data), (Modality.IMAGE, InlineBytes(base64.urlsafe_b64decode(png))))
        self.assertEqual(image.metadata, {"gemini.snake_case": ["inlineData", "inlineData.mimeType"], "gemini.base64": "urlsafe"})
        self.assertEqual(pdf, FilePart(Uri("gs://b/r.pdf"), mime_type="application/pdf"))
        self.assertEqual(gemini.request_from_items([_, tool]), request)

    def test_snake_case_spellings_round_trip(self) -> None:
        request = SNAKE_CASE_REQUEST
        items = gemini.items_from_request(copy.deepcopy(request))
        self.assertEqual(items[1].parts[1].mime_type, "image/png")
        self.assertEqual(items[2].parts[0].metadata["gemini.thought_signature"], "c2ln")
        self.assertTrue(items[3].parts[0].is_error)
        self.assertEqual(items[3].metadata["gemini.omitted"], ["role"])
        self.assertEqual(gemini.request_from_items(items), request)

    def test_a_neutral_transcript_encodes(self) -> None:
        call = ToolCallPart(ToolCallId("call-1"), "ls", {"path": "."})
        other = ToolCallPart(ToolCallId("call-2"), "cat", {"path": "a.txt"})
        items = [
            Item.text(ItemKind.SYSTEM, "Answer in French."),
            Item.text(ItemKind.DEVELOPER, "Be brief."),
            Item.text(ItemKind.USER, "List the files."),
            Item(ItemKind.ASSISTANT, [TextPart("Sure."), call, other]),
            Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("a.txt")), ToolResultPart.error(other.id, TextOutput("denied"))]),
            Item(ItemKind.USER, [StructuredPart({"k": 1}), MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG"))]),
        ]
        self.assertEqual(
            gemini.request_from_items(items),
            {
                "systemInstruction": {"parts": [{"text": "Answer in French."}, {"text": "Be brief."}]},
                "contents": [
                    {"role": "user", "parts": [{"text": "List the files."}]},
                    {
                        "role": "model",
                        "parts": [
                            {"text": "Sure."},
                            {"functionCall": {"id": "call-1", "name": "ls", "args": {"path": "."}}, SIG: gemini.SKIP_SIGNATURE},
                            {"functionCall": {"id": "call-2", "name": "cat", "args": {"path": "a.txt"}}},
                        ],
                    },
                    {
                        "role": "user",
                        "parts": [
                            {"functionResponse": {"id": "call-1", "name": "ls", "response": {"output": "a.txt"}}},
                            {"functionResponse": {"id": "call-2", "name": "cat", "response": {"error": "denied"}}},
                        ],
                    },
                    {"role": "user", "parts": [{"text": '{"k":1}'}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}]},
                ],
            },
        )
        self.assertEqual(gemini.request_from_items([Item.text(ItemKind.USER, "hi")]), {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})

    def test_a_turn_held_in_several_items_goes_as_one_content(self) -> None:
        # Gemini refuses a turn whose results are not all in the content after its calls; Chat sends one tool
        # message per result, the Responses API one item per call, and loops often one item per result.
        paris, oslo = (ToolCallPart(ToolCallId(f"call_{c}"), "weather", {"city": c}, metadata={"openai.id": f"fc_{c}"}) for c in ("paris", "oslo"))
        results = [Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput(w))]) for call, w in ((paris, "sun"), (oslo, "rain"))]
        encrypted = ReasoningPart(None, data=InlineText("enc"), metadata={PROVIDER_KEY: "openai"})
        calls = [{"functionCall": {"name": "weather", "args": {"city": c}, "id": f"call_{c}"}} for c in ("paris", "oslo")]
        calls[0][SIG] = gemini.SKIP_SIGNATURE  # the first call of the step, once
        answers = [{"functionResponse": {"name": "weather", "response": {"output": w}, "id": f"call_{c}"}} for c, w in (("paris", "sun"), ("oslo", "rain"))]
        shapes = {
            "chat: one message per result": [Item(ItemKind.ASSISTANT, [paris, oslo]), *results],
            "responses: one item per call": [Item(ItemKind.ASSISTANT, [encrypted]), Item(ItemKind.ASSISTANT, [paris]), Item(ItemKind.ASSISTANT, [oslo]), *results],
            "a system item in between": [Item(ItemKind.ASSISTANT, [paris, oslo]), results[0], Item.text(ItemKind.DEVELOPER, "be brief"), results[1]],
        }
        for label, turn in shapes.items():
            with self.subTest(label):
                body = gemini.request_from_items([Item.text(ItemKind.USER, "Weather?"), *turn, Item.text(ItemKind.USER, "thanks")])
                self.assertEqual(body["contents"][1:], [
                    {"role": "model", "parts": calls},
                    {"role": "user", "parts": answers},
                    {"role": "user", "parts": [{"text": "thanks"}]},  # a new message stays a content of its own
                ])
        # Gemini's own calls, answered one item per result by the loop: the results go together, without invented ids.
        [assistant] = gemini.items_from_response(load(PARALLEL + ".response.json"))
        tool_items = [Item(ItemKind.TOOL, [ToolResultPart(call.id, StructuredOutput({"n": n}))]) for n, call in enumerate(assistant.parts)]
        contents = gemini.request_from_items([assistant, *tool_items])["contents"]
        self.assertEqual(contents[0], load(PARALLEL + ".response.json")["candidates"][0]["content"])
        self.assertEqual(contents[1:], [{"role": "user", "parts": [{"functionResponse": {"name": "generate_topic", "response": {"n": n}}} for n in range(3)]}])
        # Contents a Gemini request holds stay as they were sent, split or not.
        request = {"contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "f", "args": {"a": 1}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"a": 0}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"a": 1}}}]},
            {"role": "model", "parts": [{"text": "one"}]},
            {"role": "model", "parts": [{"text": "two"}]},
        ]}
        self.assertEqual(gemini.request_from_items(gemini.items_from_request(copy.deepcopy(request))), request)

    def test_a_long_conversation_from_every_kind_of_source_is_a_valid_request(self) -> None:
        # Turns as other providers' transcripts hold them, and Gemini's own, mixed over a dozen items.
        def calls(*names: str, source: str = "x") -> list[ToolCallPart]:
            return [ToolCallPart(ToolCallId(f"{source}_{n}"), name, {"n": n}) for n, name in enumerate(names)]

        def answer(call: ToolCallPart, **kwargs: Any) -> Item:
            return Item(ItemKind.TOOL, [ToolResultPart(call.id, TextOutput("done"), **kwargs)])

        png = MediaPart(Modality.IMAGE, "image/png", InlineBytes(base64.b64decode(PNG)))
        claude = calls("search", "fetch", source="toolu")
        chat = calls("lookup", "lookup", "clock", source="call")
        [topics] = gemini.items_from_response(load(PARALLEL + ".response.json"))
        [thinking] = gemini.items_from_stream(load_events(THINKING + ".stream.jsonl"))
        items = [
            Item(ItemKind.USER, [TextPart("Find the doc and check it."), png]),
            Item(ItemKind.ASSISTANT, [ReasoningPart("plan", data=InlineText("anthropic-signature-0123456789"), metadata={PROVIDER_KEY: "anthropic"}), TextPart("Searching."), *claude]),
            Item(ItemKind.TOOL, [ToolResultPart(claude[0].id, PartsOutput([TextPart("found"), png])), ToolResultPart(claude[1].id, TextOutput("404"), is_error=True)]),
            Item(ItemKind.ASSISTANT, [], finish_reason=FinishReason.ERROR),  # an errored turn: nothing to send
            Item.text(ItemKind.USER, "Try again, and look up the others."),
            Item.text(ItemKind.DEVELOPER, "Prefer primary sources."),
            Item(ItemKind.ASSISTANT, [ReasoningPart(None, data=InlineText("openai-encrypted-0123456789"), metadata={PROVIDER_KEY: "openai"})]),
            *(Item(ItemKind.ASSISTANT, [call]) for call in chat),
            *(answer(call) for call in chat),
            Item.text(ItemKind.USER, "Now three topics."),
            topics,
            *(answer(call) for call in topics.parts),
            Item.text(ItemKind.USER, "Any safety advice?"),
            thinking,
            Item.text(ItemKind.USER, "Thanks."),
        ]
        body = gemini.request_from_items(items)
        self.assertEqual(body["systemInstruction"], {"parts": [{"text": "Prefer primary sources."}]})
        contents = body["contents"]
        text = json.dumps(body)
        for secret in ("anthropic-signature", "openai-encrypted"):
            self.assertNotIn(secret, text)
        for n, content in enumerate(contents):
            with self.subTest(content=n):
                self.assertIn(content["role"], ("user", "model"))
                self.assertTrue(content["parts"])
                sent = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
                if content["role"] == "model" and sent:
                    self.assertIn(SIG, next(p for p in content["parts"] if "functionCall" in p))  # every step's first call
                    answers = [p["functionResponse"] for p in contents[n + 1]["parts"] if "functionResponse" in p]
                    self.assertEqual([a["name"] for a in answers], [c["name"] for c in sent])  # all answered, next content
                    self.assertEqual([a.get("id") for a in answers], [c.get("id") for c in sent])
        self.assertEqual(contents[-2]["parts"][1][SIG], thinking.parts[1].metadata["gemini.thought_signature"])
        self.assertEqual(len(contents), 12)

    def test_a_result_needs_the_name_of_its_function(self) -> None:
        orphan = Item(ItemKind.TOOL, [ToolResultPart(ToolCallId("nowhere"), TextOutput("x"))])
        with self.assertRaises(NormalizeError):
            gemini.request_from_items([orphan])
        named = orphan.with_parts([orphan.parts[0].with_metadata({TOOL_NAME_KEY: "f"})])
        self.assertEqual(gemini.request_from_items([named])["contents"][0]["parts"][0]["functionResponse"]["name"], "f")

    def test_a_transcript_mixing_providers(self) -> None:
        anthropic_call = ToolCallPart(ToolCallId("toolu_1"), "get_weather", {"city": "Paris"})
        openai_call = ToolCallPart(ToolCallId("call_9"), "get_time", {}, metadata={"openai.id": "fc_1"})
        [gemini_turn] = gemini.items_from_response(load(CODE + ".response.json"))
        items = [
            Item.text(ItemKind.USER, "Weather?"),
            Item(
                ItemKind.ASSISTANT,
                [
                    ReasoningPart("Let me think.", data=InlineText("sig-anthropic"), metadata={PROVIDER_KEY: "anthropic"}),
                    TextPart("Checking."),
                    anthropic_call,
                    CustomPart("anthropic.server_tool_use", value={"type": "server_tool_use", "id": "srvtoolu_1"}),
                ],
                metadata={"anthropic.model": "claude"},
            ),
            Item(ItemKind.TOOL, [ToolResultPart(anthropic_call.id, TextOutput("sunny"))]),
            Item(ItemKind.ASSISTANT, [ReasoningPart(None, data=InlineText("enc"), metadata={PROVIDER_KEY: "openai", "openai.id": "rs_1"}), openai_call]),
            Item(ItemKind.TOOL, [ToolResultPart(openai_call.id, StructuredOutput({"time": "noon"}))]),
            Item(ItemKind.ASSISTANT, [ReasoningPart("neutral thoughts")]),  # all dropped: the turn is left out
            gemini_turn,
        ]
        contents = gemini.request_from_items(items)["contents"]
        self.assertEqual([c["role"] for c in contents], ["user", "model", "user", "model", "user", "model"])
        self.assertEqual(
            contents[1]["parts"],
            [{"text": "Checking."}, {"functionCall": {"id": "toolu_1", "name": "get_weather", "args": {"city": "Paris"}}, SIG: gemini.SKIP_SIGNATURE}],
        )
        self.assertEqual(contents[2]["parts"], [{"functionResponse": {"id": "toolu_1", "name": "get_weather", "response": {"output": "sunny"}}}])
        self.assertEqual(contents[3]["parts"], [{"functionCall": {"id": "call_9", "name": "get_time", "args": {}}, SIG: gemini.SKIP_SIGNATURE}])
        self.assertEqual(contents[5], load(CODE + ".response.json")["candidates"][0]["content"])  # Gemini's own signatures kept
        # A signature another provider claims is not sent, even under Gemini's key.
        claimed = TextPart("x", metadata={"gemini.thought_signature": "c2ln", PROVIDER_KEY: "anthropic"})
        self.assertEqual(gemini.request_from_items([Item(ItemKind.ASSISTANT, [claimed])])["contents"][0]["parts"], [{"text": "x"}])

    def test_other_tool_outputs(self) -> None:
        call = ToolCallPart(ToolCallId("c"), "shot", {})
        png = MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG"))
        outputs = {
            "parts": (PartsOutput([TextPart("done: "), TextPart("see image"), png]), {"output": "done: see image"}),
            "a file only": (PartsOutput([FilePart(Uri("gs://b/x.pdf"), mime_type="application/pdf")]), {}),
            "list": (StructuredOutput([1, 2]), {"output": [1, 2]}),
        }
        for label, (output, response) in outputs.items():
            with self.subTest(label):
                item = Item(ItemKind.TOOL, [ToolResultPart(call.id, output)])
                [part] = gemini.request_from_items([Item(ItemKind.ASSISTANT, [call]), item])["contents"][1]["parts"]
                self.assertEqual(part["functionResponse"]["response"], response)
        files_output = FilesOutput([FilePart(InlineText("hello"), name="a.txt", mime_type="text/plain")])
        [part] = gemini.request_from_items([Item(ItemKind.ASSISTANT, [call]), Item(ItemKind.TOOL, [ToolResultPart(call.id, files_output)])])["contents"][1]["parts"]
        self.assertEqual(part["functionResponse"]["parts"], [{"inlineData": {"mimeType": "text/plain", "data": "aGVsbG8=", "displayName": "a.txt"}}])
        with self.assertRaises(NormalizeError):
            bad = PartsOutput([StructuredPart({"a": 1}), TextPart("loose text")])
            gemini.request_from_items([Item(ItemKind.ASSISTANT, [call]), Item(ItemKind.TOOL, [ToolResultPart(call.id, bad)])])

    def test_content_gemini_cannot_take_is_refused(self) -> None:
        for part in (FilePart(Handle(ArtifactId("art-1")), mime_type="application/pdf"), MediaPart(Modality.IMAGE, "image/png", Handle(ArtifactId("a")))):
            with self.subTest(part=type(part).__name__):
                with self.assertRaises(NormalizeError):
                    gemini.request_from_items([Item(ItemKind.USER, [part])])


# -- bad input ----------------------------------------------------------------------------

class BadInputTests(unittest.TestCase):
    """Whatever comes in, out comes items or ``NormalizeError``, never another exception."""

    def test_mutated_responses_and_requests(self) -> None:
        """Also: what decodes goes back as it came (a content without parts is never sent)."""
        rng = random.Random(20250601)
        seeds = [(name, load(name)) for name in files(".json")]
        seeds += [("documented.response.json", DOCUMENTED_RESPONSE), ("media.request.json", MEDIA_RESULT_REQUEST), ("snake.request.json", SNAKE_CASE_REQUEST)]
        for name, original in seeds:
            for n in range(250):
                body = original
                for _ in range(rng.randint(1, 3)):
                    body = mutate(body, rng)

                def run() -> None:
                    if name.endswith(".request.json"):
                        items = gemini.items_from_request(body)
                        sent = {k: v for k, v in transcript(body).items() if isinstance(v, dict) and v.get("parts")}
                        sent["contents"] = [c for c in body.get("contents") or () if c.get("parts")]
                        self.assertEqual(gemini.request_from_items(items), sent, f"{name} mutation {n}")
                    else:
                        items = gemini.items_from_response(body)
                        by_index = sorted(body.get("candidates") or (), key=lambda c: c.get("index", 0))
                        for item, candidate in zip(items, by_index):
                            content = candidate.get("content") or {}
                            again = replayed({"role": "model", **content})
                            echoed = [again] if again.get("parts") else []
                            self.assertEqual(gemini.request_from_items([item])["contents"], echoed, f"{name} mutation {n}")
                    for item in items:
                        self.assertEqual(stored(item), item)

                with self.subTest(name, mutation=n):
                    outcome(self, run)

    def test_mutated_streams(self) -> None:
        rng = random.Random(7)
        responses = [load(n) for n in files(".response.json")] + [DOCUMENTED_RESPONSE]
        streams = [load_events(n) for n in files(".stream.jsonl")] + [chunks_of(r, 11) for r in responses]
        for s, original in enumerate(streams):
            for n in range(150):
                events = mutate_stream(original, rng)

                def run() -> None:
                    decoder, state = gemini.stream_decoder(), FoldState()
                    for event in events:
                        for delta in decoder.feed(event):
                            state = fold(state, delta)
                        state.snapshot()
                    items = decoder.finish_all(state.finalize())
                    gemini.request_from_items(items)

                with self.subTest(stream=s, mutation=n):
                    outcome(self, run)

    def test_every_reference_item_and_part_encodes_or_is_refused(self) -> None:
        """The reference's wire vectors: odd metadata (``gemini.`` keys included), every part and output shape."""
        seen = 0
        for n, items in recorded.reference_transcripts(ItemKind):
            seen += 1
            with self.subTest(line=n, kind=items[0].kind.value):
                outcome(self, lambda: gemini.request_from_items(items))
        self.assertGreater(seen, 1000)

    def test_refusals_name_the_item_and_part(self) -> None:
        handle = MediaPart(Modality.IMAGE, "image/png", Handle(ArtifactId("a")))
        with self.assertRaises(NormalizeError) as caught:
            gemini.request_from_items([Item.text(ItemKind.USER, "hi"), Item(ItemKind.USER, [TextPart("see"), handle])])
        self.assertEqual(caught.exception.path, "items[1].parts[1]")

    def test_metadata_never_overwrites_what_the_part_says(self) -> None:
        part = TextPart("real", metadata={"gemini.text": "forged", "gemini.partMetadata": {"k": 1}})
        call = ToolCallPart(ToolCallId("c"), "f", {"a": 1}, metadata={"gemini.functionCall.name": "g", "gemini.functionCall.args": {}})
        contents = gemini.request_from_items([Item(ItemKind.ASSISTANT, [part, call], metadata={"gemini.content.role": "model"})])["contents"]
        signed = {"functionCall": {"id": "c", "name": "f", "args": {"a": 1}}, SIG: gemini.SKIP_SIGNATURE}
        self.assertEqual(contents[0]["parts"], [{"text": "real", "partMetadata": {"k": 1}}, signed])

    def test_what_is_not_an_object_is_refused(self) -> None:
        for bad in (None, [], "x", 3):
            with self.subTest(bad=bad):
                for decode in (gemini.items_from_response, gemini.items_from_request, gemini.stream_decoder().feed):
                    with self.assertRaises(NormalizeError):
                        decode(bad)  # type: ignore[arg-type]
        with self.assertRaises(NormalizeError) as caught:
            gemini.items_from_request({"contents": [{"role": "user", "parts": ["hi"]}]})
        self.assertEqual(caught.exception.path, "contents[0].parts[0]")
        with self.assertRaises(NormalizeError) as caught:
            gemini.items_from_response({"candidates": [{"index": "0"}]})
        self.assertEqual(caught.exception.path, "candidates[0].index")

    def test_a_refused_chunk_leaves_the_decoder_as_it_was(self) -> None:
        events = load_events(THINKING + ".stream.jsonl")
        decoder = gemini.stream_decoder()
        state = fold_events(events[:3], decoder)
        bad = copy.deepcopy(events[3])
        bad["candidates"].append({"index": 1, "finishReason": ["OTHER"]})  # (an integer is Vertex's enum encoding: read)
        with self.assertRaises(NormalizeError):
            decoder.feed(bad)
        state = fold_all(state, [d for e in events[3:] for d in decoder.feed(e)])
        self.assertEqual([decoder.finish(state.parts)], gemini.items_from_stream(events))

    def test_a_chunk_refused_for_its_call_ids_leaves_the_decoder_as_it_was(self) -> None:
        # new_call_id answers while the chunk's parts decode: an answer that is no id refuses the chunk whole.
        events = [{"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]} for parts in (
            [{"text": "Let me look."}],
            [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "g", "args": {}}}],
            [{"text": ""}],
        )]
        events[-1]["candidates"][0]["finishReason"] = "STOP"
        answers = iter(["a", 5, "b", "c"])
        decoder = gemini.stream_decoder(new_call_id=lambda: next(answers))  # type: ignore[arg-type]
        state = fold_events(events[:1], decoder)
        with self.assertRaises(NormalizeError):
            decoder.feed(events[1])
        state = fold_all(state, [d for e in events[1:] for d in decoder.feed(e)])
        self.assertFalse(state.is_open)
        expected = gemini.items_from_stream(events, new_call_id=iter(["b", "c"]).__next__)
        self.assertEqual([decoder.finish(state.parts)], expected)
        self.assertEqual(expected[0].parts[0], TextPart("Let me look."))


class ShapeTests(unittest.TestCase):
    def test_module_is_a_provider_adapter(self) -> None:
        from agentkit_core import ProviderAdapter

        def accepts(adapter: ProviderAdapter[Any, Any]) -> bool:
            return callable(adapter.items_from_response) and callable(adapter.stream_decoder)

        self.assertTrue(accepts(gemini))
        for name in ("items_from_response", "items_from_request", "request_from_items", "stream_decoder", "items_from_stream", "events_from_sse"):
            self.assertTrue(callable(getattr(gemini, name)), name)
        for name in ("items_from_response", "stream_decoder", "items_from_stream"):
            self.assertIn("new_call_id", inspect.signature(getattr(gemini, name)).parameters)
        self.assertIsInstance(gemini.stream_decoder().finish(()), Item)



if __name__ == "__main__":
    unittest.main()
