"""A fake stateful provider ("fakestate") and its adapter.

The provider keeps each conversation on its side, as the OpenAI Responses API
does with ``previous_response_id``: a request names the response it continues
and carries only what is new since.  Its native JSON, invented for this example:

* request: ``{"previous_response_id": "resp_2" | None, "instructions": "...",
  "input": [<input item>...]}``, input items being
  ``{"type": "message", "role": "user" | "assistant", "text": "..."}`` and
  ``{"type": "tool_output", "call_id": "...", "output": "..."}``;
* response: ``{"id": "resp_3", "conversation_id": "conv_1", "status":
  "completed" | "incomplete", "output": [<output item>...], "usage":
  {"input_tokens": 40, "output_tokens": 7}}``, output items being
  ``{"type": "message", "text": "..."}`` and ``{"type": "tool_call", "call_id",
  "name", "arguments": "<JSON text>"}``;
* stream events: ``response.started`` (``id``, ``conversation_id``);
  ``text.delta`` (``index``, ``text``); ``tool_call.started`` (``index``,
  ``call_id``, ``name``); ``tool_call.delta`` (``index``, ``arguments``);
  ``output.done`` (``index``, ``item``); ``response.done`` (``response``).

Where the server's ids live.  The adapter records them in namespaced metadata
on the ASSISTANT item it produces: ``fakestate.response_id`` and
``fakestate.conversation_id`` (the response id is also ``Item.id``).  Metadata
is part of the item's JSON, so a transcript saved and loaded again
(``Item.from_dict(json.loads(json.dumps(item.to_dict())))``) still holds them;
:func:`request_from_items` finds the last item carrying a response id and sends
only the items after it, with ``previous_response_id``.  A transcript with no
such item (the first turn, or one the server never saw) is sent whole.
Instructions (SYSTEM and DEVELOPER text) are sent every turn: like the real
APIs, the server does not carry them over.

==========================  ======================================================
native                      neutral
==========================  ======================================================
output ``message``          ``TextPart``
output ``tool_call``        ``ToolCallPart(ToolCallId(call_id), name, json.loads(arguments))``
``tool_output`` input       a TOOL item's ``ToolResultPart`` (``TextOutput`` text,
                            ``StructuredOutput`` as JSON text)
``status``                  ``completed`` -> ``COMPLETED`` (``TOOL_CALL`` when the output
                            has a tool call); ``incomplete`` -> ``MAX_TOKENS``; raw value
                            in ``fakestate.status``
``usage``                   ``TokenUsage(input_tokens, output_tokens)``
==========================  ======================================================
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, Mapping, Sequence

from agentkit_core import (
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    Item,
    ItemKind,
    MessageId,
    MetadataMap,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    SetMetadata,
    StructuredOutput,
    TextOutput,
    TextPart,
    TokenUsage,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

__all__ = (
    "FakeStatefulProvider",
    "RESPONSE_ID",
    "CONVERSATION_ID",
    "items_from_response",
    "stream_decoder",
    "StatefulStreamDecoder",
    "request_from_items",
)

Json = dict[str, Any]
NS = "fakestate."
RESPONSE_ID = NS + "response_id"
CONVERSATION_ID = NS + "conversation_id"


# -- the provider (what would be a server) -------------------------------------------------


class FakeStatefulProvider:
    """Keeps every conversation; asks for the weather tool when the user asks about the weather."""

    def __init__(self) -> None:
        self._history: dict[str, tuple[str, list[Json]]] = {}  # response id -> (conversation, items so far)
        self.requests: list[Json] = []  # what it was sent, for tests to inspect

    def respond(self, request: Mapping[str, Any]) -> Json:
        self.requests.append(json.loads(json.dumps(request)))
        previous = request.get("previous_response_id")
        history: list[Json]
        if previous is None:
            conversation, history = f"conv_{len(self._history) + 1}", []
        elif previous in self._history:
            conversation, history = self._history[previous]
        else:
            raise LookupError(f"unknown previous_response_id {previous!r}")
        history = history + list(request.get("input") or [])
        last = history[-1] if history else {}
        output: list[Json]
        if last.get("type") == "tool_output":
            output = [{"type": "message", "text": f"The tool says: {last['output']}"}]
        elif m := re.search(r"weather in (\w+)", str(last.get("text", ""))):
            output = [
                {"type": "message", "text": "Let me check."},
                {"type": "tool_call", "call_id": f"call_{len(history)}", "name": "get_weather",
                 "arguments": json.dumps({"city": m.group(1)})},
            ]
        else:
            output = [{"type": "message", "text": f"I remember {len(history)} items."}]
        rid = f"resp_{len(self._history) + 1}"
        self._history[rid] = (conversation, history + output)
        return {
            "id": rid,
            "conversation_id": conversation,
            "status": "completed",
            "output": output,
            "usage": {"input_tokens": 10 * len(history), "output_tokens": 5 * len(output)},
        }

    def stream(self, request: Mapping[str, Any]) -> Iterator[Json]:
        response = self.respond(request)
        yield {"type": "response.started", "id": response["id"], "conversation_id": response["conversation_id"]}
        for index, item in enumerate(response["output"]):
            if item["type"] == "message":
                for i in range(0, len(item["text"]), 6):
                    yield {"type": "text.delta", "index": index, "text": item["text"][i : i + 6]}
            else:
                yield {"type": "tool_call.started", "index": index, "call_id": item["call_id"], "name": item["name"]}
                for i in range(0, len(item["arguments"]), 4):
                    yield {"type": "tool_call.delta", "index": index, "arguments": item["arguments"][i : i + 4]}
            yield {"type": "output.done", "index": index, "item": item}
        yield {"type": "response.done", "response": response}


# -- the adapter -------------------------------------------------------------------------


def _part(output: Mapping[str, Any]) -> Part:
    if output.get("type") == "tool_call":
        try:
            args = json.loads(output.get("arguments") or "{}")
        except ValueError as exc:  # keep the text, as the fold does, rather than fail the turn
            return ToolCallPart(ToolCallId(output["call_id"]), output["name"], None,
                                metadata={"agentkit.input_json": output.get("arguments"), "agentkit.input_error": str(exc)})
        return ToolCallPart(ToolCallId(output["call_id"]), output["name"], args)
    return TextPart(str(output.get("text", "")))


def _item(response: Mapping[str, Any], parts: Sequence[Part]) -> Item:
    status = response.get("status")
    finish = None
    if status == "completed":
        finish = FinishReason.TOOL_CALL if any(isinstance(p, ToolCallPart) for p in parts) else FinishReason.COMPLETED
    elif status == "incomplete":
        finish = FinishReason.MAX_TOKENS
    elif isinstance(status, str):
        finish = FinishReason.other(status)
    usage = response.get("usage")
    md = {RESPONSE_ID: response.get("id"), CONVERSATION_ID: response.get("conversation_id"), NS + "status": status}
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(response["id"]) if isinstance(response.get("id"), str) else None,
        metadata={k: v for k, v in md.items() if v is not None},
        usage=Usage(TokenUsage(usage["input_tokens"], usage["output_tokens"])) if isinstance(usage, dict) else None,
        finish_reason=finish,
    )


def items_from_response(response: Json, /) -> list[Item]:
    """A response as one ASSISTANT item carrying the server's ids in ``fakestate.*`` metadata."""
    return [_item(response, [_part(o) for o in response.get("output") or ()])]


class StatefulStreamDecoder:
    """One stream: events -> deltas; :meth:`finish` builds the item, ids included."""

    def __init__(self) -> None:
        self._response: Json = {}
        self._open: set[int] = set()

    def feed(self, event: Json, /) -> list[Delta]:
        kind, index = event.get("type"), event.get("index")
        pid = PartId(f"out-{index}")
        if kind == "response.started":
            self._response = {"id": event.get("id"), "conversation_id": event.get("conversation_id")}
            return []
        if kind == "text.delta":
            deltas: list[Delta] = [] if index in self._open else [BeginPart(pid, PartKind.TEXT)]
            self._open.add(index)  # type: ignore[arg-type]
            return deltas + [AppendText(pid, event["text"])]
        if kind == "tool_call.started":
            self._open.add(index)  # type: ignore[arg-type]
            # The fold's header keys: the snapshot names the call while its arguments stream.
            header = {"agentkit.tool_call_id": event["call_id"], "agentkit.tool_name": event["name"]}
            return [BeginPart(pid, PartKind.TOOL_CALL), SetMetadata(pid, MetadataMap(header))]
        if kind == "tool_call.delta":
            return [AppendText(pid, event["arguments"])]
        if kind == "output.done":
            part = _part(event["item"])
            if index in self._open:
                self._open.discard(index)
                return [CommitPart(part, part_id=pid)]
            return [CommitPart(part)]  # arrived whole
        if kind == "response.done":
            self._response = dict(event["response"])
        return []

    def finish(self, parts: Sequence[Part], /) -> Item:
        return _item(self._response, parts)


def stream_decoder() -> StatefulStreamDecoder:
    """A decoder for one stream."""
    return StatefulStreamDecoder()


def _input(item: Item, where: str) -> list[Json]:
    out: list[Json] = []
    for j, part in enumerate(item.parts):
        if isinstance(part, TextPart):
            role = "assistant" if item.kind is ItemKind.ASSISTANT else "user"
            out.append({"type": "message", "role": role, "text": part.text})
        elif isinstance(part, ToolResultPart) and isinstance(part.output, (TextOutput, StructuredOutput)):
            text = part.output.text if isinstance(part.output, TextOutput) else json.dumps(part.output.value)
            out.append({"type": "tool_output", "call_id": part.call_id.value, "output": text})
        elif isinstance(part, ToolCallPart):
            continue  # the server holds its own calls; a foreign call has no place in its history
        else:
            raise NormalizeError(f"fakestate cannot take a {type(part).__name__}", f"{where}.parts[{j}]")
    return out


def request_from_items(items: Sequence[Item], /) -> Json:
    """Only what the server has not seen: the items after the last response it gave, and its id."""
    start, previous = 0, None
    for i in range(len(items) - 1, -1, -1):
        rid = items[i].metadata.get(RESPONSE_ID)
        if isinstance(rid, str):
            start, previous = i + 1, rid
            break
    instructions = [it.text_content("\n") for it in items if it.kind in (ItemKind.SYSTEM, ItemKind.DEVELOPER)]
    body: Json = {"previous_response_id": previous, "input": []}
    for i in range(start, len(items)):
        if items[i].kind not in (ItemKind.SYSTEM, ItemKind.DEVELOPER):
            body["input"] += _input(items[i], f"items[{i}]")
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    return body
