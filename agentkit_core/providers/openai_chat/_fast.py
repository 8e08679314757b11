"""Private to :mod:`.openai_chat`: the request's fast path, for items that carry nothing (no metadata on them or
their parts) and hold texts, calls and text results, the common case; what :mod:`._request` writes for them.

``tests/test_request_reuse.py`` compares it with the general path over seeded random items.
"""

from __future__ import annotations

from typing import Any

from ... import TOOL_NAME_KEY, Item, ItemKind, ReasoningPart, StructuredOutput, TextOutput, TextPart, ToolCallPart, ToolResultPart
from .._common import JsonDict, bare, dumps
from .._common.reuse import by_kind
from ._response import KIND_ROLES

_ASSISTANT = ItemKind.ASSISTANT
#: What a result may carry and still take the fast path: its tool's name matters only to a legacy call's.
_RESULT_KEYS = frozenset((TOOL_NAME_KEY,))
_ROLES = by_kind(KIND_ROLES)


def add_bare(build: Any, item: Item) -> bool:
    """Fold ``item`` into ``build`` (a :class:`._request.Build`) as the general path would, if it carries nothing; ``False`` (nothing done) otherwise."""
    texts: list[str] = []
    calls: list[ToolCallPart] = []
    results: list[JsonDict] = []
    assistant = item.kind is _ASSISTANT
    for part in item.parts:
        kind = type(part)
        if not bare(part.metadata) and not (kind is ToolResultPart and part.metadata.keys() <= _RESULT_KEYS):
            return False
        if kind is TextPart:
            texts.append(part.text)
        elif kind is ToolCallPart and assistant:
            calls.append(part)  # type: ignore[arg-type]
        elif kind is ReasoningPart and assistant:
            continue  # reasoning that says no field of its own is not sent
        elif kind is ToolResultPart and not assistant:
            output, call_id = part.output, part.call_id.value  # type: ignore[attr-defined]
            call = build.calls.get(call_id)
            if call is not None and not bare(call.metadata):
                return False  # a legacy function call's result, perhaps
            if type(output) is TextOutput:
                content: str = output.text
            elif type(output) is StructuredOutput:
                content = dumps(output.value)
            else:
                return False
            results.append({"role": "tool", "tool_call_id": call_id, "content": content})
        else:
            return False
    if results:
        if texts:
            return False
        build.messages.extend(results)
        return True
    if not texts and not calls:
        return True  # nothing to send: the general path sends no message either
    msg: JsonDict = {"role": "assistant" if assistant else _ROLES[id(item.kind)]}
    if texts:
        msg["content"] = texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]
    else:
        msg["content"] = None
    if calls:
        for call in calls:
            build.calls[call.id.value] = call
        msg["tool_calls"] = [
            {"id": c.id.value, "type": "function", "function": {"name": c.name, "arguments": dumps(c.input)}} for c in calls
        ]
    build._send(msg)
    return True
