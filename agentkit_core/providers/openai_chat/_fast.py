"""Private to :mod:`.openai_chat`: the request's fast path, for items that carry nothing (no metadata on them or
their parts) and hold texts, calls and text results, the common case; what :mod:`._request` writes for them.

``tests/test_request_reuse.py`` compares it with the general path over seeded random items.
"""

from __future__ import annotations

from typing import Any

from ... import (
    TOOL_NAME_KEY, InlineBytes, InlineText, Item, ItemKind, JsonValue, MediaPart, Modality, ReasoningPart, StructuredOutput, TextOutput,
    TextPart, ToolCallPart, ToolResultPart, Uri,
)
from .._common import JsonDict, bare, data_url, dumps, inline_base64
from .._common.reuse import by_kind
from ._response import KIND_ROLES, audio_format

_ASSISTANT = ItemKind.ASSISTANT
#: What a result may carry and still take the fast path: its tool's name matters only to a legacy call's.
_RESULT_KEYS = frozenset((TOOL_NAME_KEY,))
_ROLES = by_kind(KIND_ROLES)
_IMAGE, _AUDIO = Modality.IMAGE, Modality.AUDIO


def _media(part: MediaPart) -> JsonValue:
    """The content entry of a media part that carries nothing, as ``_request._media_entry`` writes it; ``None`` for what it refuses."""
    data = part.data
    if part.modality is _IMAGE:
        if type(data) is Uri:
            return {"type": "image_url", "image_url": {"url": data.value}}
        if type(data) is InlineBytes or type(data) is InlineText:
            return {"type": "image_url", "image_url": {"url": data_url(part.mime_type, inline_base64(part) or "")}}
    elif part.modality is _AUDIO and (type(data) is InlineBytes or type(data) is InlineText):
        audio: JsonDict = {"data": inline_base64(part)}
        fmt = audio_format(part.mime_type)
        if fmt is not None:
            audio["format"] = fmt
        return {"type": "input_audio", "input_audio": audio}
    return None


def add_bare(build: Any, item: Item) -> bool:  # noqa: C901 - one pass over the parts, as the general path's
    """Fold ``item`` into ``build`` (a :class:`._request.Build`) as the general path would, if it carries nothing; ``False`` (nothing done) otherwise."""
    texts: list[str] = []
    media: list[tuple[int, JsonValue]] = []  # (where among the texts, entry)
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
        elif kind is MediaPart and not assistant:
            entry = _media(part)  # type: ignore[arg-type]
            if entry is None:
                return False  # the general path raises what is wrong
            media.append((len(texts), entry))
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
        if texts or media:
            return False
        build.messages.extend(results)
        return True
    if not texts and not calls and not media:
        return True  # nothing to send: the general path sends no message either
    msg: JsonDict = {"role": "assistant" if assistant else _ROLES[id(item.kind)]}
    if media:
        entries: list[JsonValue] = [{"type": "text", "text": t} for t in texts]
        for at, entry in reversed(media):
            entries.insert(at, entry)
        msg["content"] = entries
    elif texts:
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
