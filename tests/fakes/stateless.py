"""A fake stateless, text-only provider ("faketext") and its adapter.

The provider is sent the whole conversation every turn and answers in text;
it keeps nothing between requests.  Its native JSON, invented for this example:

* request: ``{"system": "...", "messages": [{"role": "user" | "assistant", "text": "..."}],
  "max_words": 50}``;
* response: ``{"id": "ft-1", "model": "faketext-1", "text": "...", "stop": "end" | "limit",
  "usage": {"prompt_words": 9, "reply_words": 4}}``;
* stream events: ``{"event": "open", "id", "model"}``, then ``{"event": "text",
  "text": "..."}`` fragments, then ``{"event": "close", "stop", "usage"}``.

The adapter is three module functions, so the module satisfies
:class:`agentkit_core.ProviderAdapter`:

=====================  ==========================================================
native                 neutral
=====================  ==========================================================
``text``               one ``TextPart`` in an ASSISTANT item
``id``                 ``Item.id``
``model``, ``stop``    item metadata ``faketext.model``, ``faketext.stop`` (raw)
``stop``               ``"end"`` -> ``COMPLETED``, ``"limit"`` -> ``MAX_TOKENS``,
                       anything else -> ``FinishReason.other(stop)``
``usage``              ``TokenUsage(prompt_words, reply_words)`` (a word is a token here)
=====================  ==========================================================

Requests: SYSTEM and DEVELOPER text becomes ``system``; USER, CONTEXT and
NOTIFICATION items are user messages, ASSISTANT items assistant messages.
Anything but text (a tool call, an image...) raises
:class:`~agentkit_core.NormalizeError`: the provider cannot take it.
"""

from __future__ import annotations

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
    NormalizeError,
    Part,
    PartId,
    PartKind,
    TextPart,
    TokenUsage,
    Usage,
)

__all__ = ("FakeTextProvider", "items_from_response", "stream_decoder", "TextStreamDecoder", "request_from_items")

Json = dict[str, Any]
NS = "faketext."
_FINISH = {"end": FinishReason.COMPLETED, "limit": FinishReason.MAX_TOKENS}
_ROLES = {
    ItemKind.USER: "user",
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
    ItemKind.ASSISTANT: "assistant",
}


# -- the provider (what would be a server) -------------------------------------------------


class FakeTextProvider:
    """Answers every request by echoing the last user message; stateless."""

    model = "faketext-1"

    def __init__(self) -> None:
        self._served = 0

    def respond(self, request: Mapping[str, Any]) -> Json:
        """A non-streaming response."""
        self._served += 1
        messages = request.get("messages") or []
        last = next((m["text"] for m in reversed(messages) if m.get("role") == "user"), "")
        words = f"You said: {last}".split(" ")
        limit = request.get("max_words", 50)
        stop = "limit" if len(words) > limit else "end"
        prompt = sum(len(str(m.get("text", "")).split()) for m in messages) + len(str(request.get("system", "")).split())
        text = " ".join(words[:limit])
        return {
            "id": f"ft-{self._served}",
            "model": self.model,
            "text": text,
            "stop": stop,
            "usage": {"prompt_words": prompt, "reply_words": len(text.split())},
        }

    def stream(self, request: Mapping[str, Any]) -> Iterator[Json]:
        """The same answer as a stream of events, the text in fragments of five characters."""
        response = self.respond(request)
        yield {"event": "open", "id": response["id"], "model": response["model"]}
        text = response["text"]
        for i in range(0, len(text), 5):
            yield {"event": "text", "text": text[i : i + 5]}
        yield {"event": "close", "stop": response["stop"], "usage": response["usage"]}


# -- the adapter -------------------------------------------------------------------------


def _item(native: Mapping[str, Any], parts: Sequence[Part]) -> Item:
    usage = native.get("usage")
    stop = native.get("stop")
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(native["id"]) if isinstance(native.get("id"), str) else None,
        metadata={NS + k: native[k] for k in ("model", "stop") if k in native},
        usage=Usage(TokenUsage(usage["prompt_words"], usage["reply_words"])) if isinstance(usage, dict) else None,
        finish_reason=None if not isinstance(stop, str) else _FINISH.get(stop) or FinishReason.other(stop),
    )


def items_from_response(response: Json, /) -> list[Item]:
    """A response as one ASSISTANT item."""
    return [_item(response, (TextPart(response.get("text") or ""),))]


class TextStreamDecoder:
    """One stream: events -> deltas; :meth:`finish` builds the item from the folded parts."""

    TEXT = PartId("text")

    def __init__(self) -> None:
        self._native: Json = {}
        self._text: list[str] = []

    def feed(self, event: Json, /) -> list[Delta]:
        kind = event.get("event")
        if kind == "open":
            self._native.update(id=event.get("id"), model=event.get("model"))
            return [BeginPart(self.TEXT, PartKind.TEXT)]
        if kind == "text":
            self._text.append(event["text"])
            return [AppendText(self.TEXT, event["text"])]
        if kind == "close":
            self._native.update(stop=event.get("stop"), usage=event.get("usage"))
            return [CommitPart(TextPart("".join(self._text)), part_id=self.TEXT)]
        return []  # an event this adapter does not know: nothing to fold

    def finish(self, parts: Sequence[Part], /) -> Item:
        return _item(self._native, parts)


def stream_decoder() -> TextStreamDecoder:
    """A decoder for one stream."""
    return TextStreamDecoder()


def request_from_items(items: Sequence[Item], /) -> Json:
    """The transcript fields of a request: ``system`` and ``messages``."""
    system: list[str] = []
    messages: list[Json] = []
    for i, item in enumerate(items):
        for j, part in enumerate(item.parts):
            if not isinstance(part, TextPart):
                raise NormalizeError(f"faketext takes text only, not a {type(part).__name__}", f"items[{i}].parts[{j}]")
        text = item.text_content("\n")
        if item.kind in (ItemKind.SYSTEM, ItemKind.DEVELOPER):
            system.append(text)
        elif item.kind in _ROLES:
            messages.append({"role": _ROLES[item.kind], "text": text})
        else:
            raise NormalizeError(f"faketext has no {item.kind.value} messages", f"items[{i}]")
    body: Json = {"messages": messages}
    if system:
        body["system"] = "\n\n".join(system)
    return body
