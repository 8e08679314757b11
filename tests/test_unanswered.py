"""Calls and their results in a transcript: Item.tool_calls, unanswered_calls, ToolResultPart.failure, close_unanswered."""

from __future__ import annotations

import unittest
from typing import Any, Callable

from agentkit_core import (
    INVENTED_ID_KEY,
    TOOL_NAME_KEY,
    AppendText,
    BeginPart,
    Item,
    ItemKind,
    NormalizeError,
    PartId,
    PartKind,
    SetMetadata,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    close_unanswered,
    fold_all,
    unanswered_calls,
)
from tests import recorded


def call(id: str, name: str = "get_weather", input: Any = None, **metadata: Any) -> ToolCallPart:
    return ToolCallPart(ToolCallId(id), name, {"city": "Paris"} if input is None else input, metadata=metadata)


def result(id: str) -> ToolResultPart:
    return ToolResultPart(ToolCallId(id), TextOutput("sunny"))


def cancelled_call() -> ToolCallPart:
    """A call cut off mid-arguments, as the fold's ``finalize()`` leaves it: no input."""
    p = PartId("p")
    state = fold_all((), [
        BeginPart(p, PartKind.TOOL_CALL),
        SetMetadata(p, {"agentkit.tool_call_id": "call_cut", TOOL_NAME_KEY: "get_weather"}),
        AppendText(p, '{"locati'),
    ])
    (part,) = state.finalize()
    if not isinstance(part, ToolCallPart):
        raise AssertionError(f"not a tool call: {part!r}")
    return part


class ToolCalls(unittest.TestCase):
    def test_the_calls_an_item_holds_in_order(self) -> None:
        a, b = call("a"), call("b", "now")
        item = Item(ItemKind.ASSISTANT, [TextPart("let me look"), a, TextPart("and"), b])
        self.assertEqual(item.tool_calls(), (a, b))
        self.assertEqual(Item.text(ItemKind.USER, "hi").tool_calls(), ())
        self.assertEqual(Item(ItemKind.TOOL, [result("a")]).tool_calls(), ())


class Unanswered(unittest.TestCase):
    def test_calls_without_a_later_result(self) -> None:
        a, b, c = call("a"), call("b"), call("c")
        transcript = [
            Item.text(ItemKind.USER, "weather?"),
            Item(ItemKind.ASSISTANT, [a, b]),
            Item(ItemKind.TOOL, [result("b")]),
            Item(ItemKind.ASSISTANT, [c]),
        ]
        self.assertEqual(unanswered_calls(transcript), [a, c])
        self.assertEqual(unanswered_calls(iter(transcript)), [a, c])  # any iterable
        self.assertEqual(unanswered_calls(transcript + [Item(ItemKind.TOOL, [result("a"), result("c")])]), [])
        self.assertEqual(unanswered_calls([]), [])

    def test_a_result_answers_an_earlier_call_once(self) -> None:
        early = Item(ItemKind.TOOL, [result("a")])
        a = call("a")
        self.assertEqual(unanswered_calls([early, Item(ItemKind.ASSISTANT, [a])]), [a])  # before the call: no answer
        self.assertEqual(unanswered_calls([Item(ItemKind.ASSISTANT, [a, result("a")])]), [])  # later in the same item
        again = call("a", "now")
        self.assertEqual(unanswered_calls([Item(ItemKind.ASSISTANT, [a, again]), Item(ItemKind.TOOL, [result("a")])]), [again])

    def test_items_only(self) -> None:
        with self.assertRaises(TypeError) as caught:
            unanswered_calls([Item.text(ItemKind.USER, "x"), "hi"])  # type: ignore[list-item]
        self.assertIn("items[1]", str(caught.exception))


class Failure(unittest.TestCase):
    def test_an_error_result_naming_the_tool(self) -> None:
        part = ToolResultPart.failure(call("c1"), "cancelled by the user")
        self.assertEqual(part, ToolResultPart(ToolCallId("c1"), TextOutput("cancelled by the user"), is_error=True,
                                              metadata={TOOL_NAME_KEY: "get_weather"}))
        invented = ToolResultPart.failure(call("c2", **{INVENTED_ID_KEY: True}), "x")
        self.assertEqual(dict(invented.metadata), {TOOL_NAME_KEY: "get_weather", INVENTED_ID_KEY: True})
        self.assertEqual(ToolResultPart.failure(cancelled_call(), "x").call_id, ToolCallId("call_cut"))

    def test_refusals(self) -> None:
        with self.assertRaisesRegex(TypeError, r"ToolResultPart\.failure\.call"):
            ToolResultPart.failure("c1", "x")  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, r"TextOutput\.text"):
            ToolResultPart.failure(call("c1"), None)  # type: ignore[arg-type]
        with self.assertRaisesRegex(NormalizeError, r"TextOutput\.text"):
            ToolResultPart.failure(call("c1"), "\ud800")


# -- what each API requires of a request -----------------------------------------------------


def anthropic_answered(body: dict[str, Any]) -> bool:
    """Every ``tool_use`` is answered by a ``tool_result`` in the very next (user) message."""
    messages = body["messages"]
    for n, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(message["content"], list) else []
        if uses:
            after = messages[n + 1] if n + 1 < len(messages) else {"content": []}
            answered = {b["tool_use_id"] for b in after["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}
            if after.get("role") != "user" or not set(uses) <= answered:
                return False
    return True


def chat_answered(body: dict[str, Any]) -> bool:
    """Every tool call of an assistant message is answered by a ``tool`` message right after it
    (a legacy ``function_call`` by a ``function`` message of its name)."""
    messages = body["messages"]
    for n, message in enumerate(messages):
        legacy = message.get("function_call")
        if legacy is not None:
            after = messages[n + 1] if n + 1 < len(messages) else {}
            if (after.get("role"), after.get("name")) != ("function", legacy["name"]):
                return False
        ids = [c["id"] for c in message.get("tool_calls") or ()]
        following = []
        for later in messages[n + 1 :]:
            if later["role"] != "tool":
                break
            following.append(later["tool_call_id"])
        if not set(ids) <= set(following):
            return False
    return True


def responses_answered(body: dict[str, Any]) -> bool:
    """Every ``function_call`` / ``custom_tool_call`` has an output with its ``call_id`` after it."""
    entries = body["input"] if isinstance(body["input"], list) else []
    for n, entry in enumerate(entries):
        if entry.get("type") in ("function_call", "custom_tool_call"):
            outputs = {e.get("call_id") for e in entries[n + 1 :] if str(e.get("type", "")).endswith("_call_output")}
            if entry["call_id"] not in outputs:
                return False
    return True


def gemini_answered(body: dict[str, Any]) -> bool:
    """Every ``functionCall`` of a model content is answered, by name, in the very next content."""
    contents = body["contents"]
    for n, content in enumerate(contents):
        names = [p["functionCall"]["name"] for p in content["parts"] if "functionCall" in p]
        if names:
            after = contents[n + 1]["parts"] if n + 1 < len(contents) else []
            answered = [p["functionResponse"]["name"] for p in after if "functionResponse" in p]
            if sorted(names) != sorted(answered):
                return False
    return True


def bedrock_answered(body: dict[str, Any]) -> bool:
    """Every ``toolUse`` is answered by a ``toolResult`` of its id in the very next (user) message."""
    messages = body["messages"]
    for n, message in enumerate(messages):
        uses = [b["toolUse"]["toolUseId"] for b in message["content"] if "toolUse" in b]
        if uses:
            after = messages[n + 1] if n + 1 < len(messages) else {"role": "user", "content": []}
            answered = {b["toolResult"]["toolUseId"] for b in after["content"] if "toolResult" in b}
            if after.get("role") != "user" or not set(uses) <= answered:
                return False
    return True


ANSWERED: dict[str, Callable[[dict[str, Any]], bool]] = {
    "anthropic": anthropic_answered,
    "openai_chat": chat_answered,
    "openai_responses": responses_answered,
    "gemini": gemini_answered,
    "bedrock": bedrock_answered,
}


def recorded_turns() -> list[tuple[str, list[Item]]]:
    """Every recorded answer that calls tools, decoded by its provider, after a user's question."""
    turns = []
    for name in recorded.PROVIDERS:
        for suffix in (".response.json", ".stream.jsonl"):
            for file in recorded.names(name, suffix):
                items = recorded.items(name, file)
                if any(i.tool_calls() for i in items):
                    turns.append((f"{name}/{file}", [Item.text(ItemKind.USER, "Go on."), *items]))
    return turns


class ClosingATurn(unittest.TestCase):
    def test_closed_transcripts_are_requests_every_api_accepts(self) -> None:
        turns = recorded_turns()
        self.assertEqual({t.split("/")[0] for t, _ in turns}, set(recorded.PROVIDERS))
        cut = Item(ItemKind.ASSISTANT, [TextPart("Let me check."), cancelled_call()])
        turns.append(("a cancelled call", [Item.text(ItemKind.USER, "Weather in Paris?"), cut]))
        sent = 0
        for label, transcript in turns:
            closed = close_unanswered(transcript, "cancelled")
            self.assertIsNotNone(closed)
            self.assertEqual(closed.kind, ItemKind.TOOL)
            self.assertEqual([p.call_id for p in closed.parts], [c.id for c in unanswered_calls(transcript)])  # type: ignore[attr-defined]
            self.assertTrue(all(p.is_error for p in closed.parts))  # type: ignore[attr-defined]
            whole = [*transcript, closed]
            self.assertEqual(unanswered_calls(whole), [])
            self.assertIsNone(close_unanswered(whole))
            for name, module in recorded.PROVIDERS.items():
                with self.subTest(label, to=name):
                    try:
                        module.request_from_items(transcript)
                    except NormalizeError:  # content this API cannot take at all (a free-text custom call to Anthropic)
                        continue
                    self.assertFalse(ANSWERED[name](module.request_from_items(transcript)), "the open turn already passes")
                    self.assertTrue(ANSWERED[name](module.request_from_items(whole)))
                    sent += 1
        self.assertGreaterEqual(sent, 4 * len(turns) - 4)

    def test_the_cancelled_call_goes_with_its_error(self) -> None:
        cut = cancelled_call()
        self.assertIsNone(cut.input)
        closed = close_unanswered([Item(ItemKind.ASSISTANT, [cut])], "cancelled")
        self.assertIsNotNone(closed)
        body = recorded.PROVIDERS["anthropic"].request_from_items([Item(ItemKind.ASSISTANT, [cut]), closed])
        self.assertEqual(body["messages"][0]["content"][0]["input"], {})
        self.assertEqual(body["messages"][1]["content"][0]["is_error"], True)
        body = recorded.PROVIDERS["gemini"].request_from_items([Item(ItemKind.ASSISTANT, [cut]), closed])
        self.assertEqual(body["contents"][1]["parts"][0]["functionResponse"]["name"], "get_weather")


if __name__ == "__main__":
    unittest.main()
