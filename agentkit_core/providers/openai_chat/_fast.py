"""Private to :mod:`.openai_chat`: the request's fast path, what :class:`._request.Build` writes for the common shapes.

Measured gain: a fresh ``http_request`` of 1,500 items (``tools/bench.py --only requests``) takes 4.3 ms
with it and 13.6 ms without (``AGENTKIT_CORE_FAST_PATHS=0``): 3.2x.

The rule is what the general path reads: it reads only Chat's own ``openai.chat.*`` keys of an item or a part
(and, of a call, ``agentkit.input_json``), so a value that carries none of them (nothing at all, or only another
provider's or the toolkit's keys) is written as one that carries nothing.  The fast path takes items that carry none
but ``openai.chat.no_content`` (a request's message without ``content``), holding texts and reasoning that carry none,
calls that carry none but the markers of how a request spelled them (``no_arguments``, ``no_type``), results given as
text or a structure (any metadata but the legacy function-call marker), an answer's audio sent back by its id, and
content parts of any other kind in a user's (or developer's...) message, each written by the general path's own
``content_entry``.  Anything else goes through the general path (:meth:`._request.Build.add_general`), which the fast
path agrees with byte for byte: ``tests/test_request_reuse.py`` and ``tests/test_chat_fast_path.py`` compare the two
over seeded random items.
"""

from __future__ import annotations

from typing import Any, Sequence

from ... import (
    EMPTY_METADATA,
    INPUT_JSON_KEY,
    FilePart,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    Modality,
    NormalizeError,
    ReasoningPart,
    StructuredOutput,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Uri,
)
from .._common import JsonDict, data_url, dumps, holds_text, inline_base64, metadata_to_fields
from .._common.reuse import by_kind
from ._keys import AUDIO, CHAT, LEGACY_KEY, NO_ARGUMENTS_KEY, NO_CONTENT_KEY, NO_TYPE_KEY
from ._response import AUDIO_RESPONSE_ONLY, KIND_ROLES, OCTETS, audio_format

_ASSISTANT = ItemKind.ASSISTANT
_ROLES = by_kind(KIND_ROLES)
_IMAGE, _AUDIO = Modality.IMAGE, Modality.AUDIO
#: Chat's keys a call may carry and still take the fast path: how a request spelled it.
_CALL_MARKERS = frozenset((NO_ARGUMENTS_KEY, NO_TYPE_KEY))
_AUDIO_ID = AUDIO + "id"
_IMAGE_URL = CHAT + "image_url."


def _foreign(md: Any) -> bool:
    """Whether metadata carries none of Chat's own keys (nothing at all, mostly): the general path reads none of it."""
    return md is EMPTY_METADATA or not md or not any(k.startswith(CHAT) for k in md)


def _call_free(md: Any) -> bool:
    """Whether a call's metadata says nothing the general path writes but the markers of :data:`_CALL_MARKERS`."""
    if md is EMPTY_METADATA or not md:
        return True
    return INPUT_JSON_KEY not in md and all(k in _CALL_MARKERS or not k.startswith(CHAT) for k in md)


def _media(part: MediaPart, md: Any) -> JsonValue:
    """The content entry of a media part that carries none of Chat's keys, or an image only fields of its ``image_url``
    (``detail``), as ``_request._media_entry`` writes it; ``None`` for what it refuses or any other."""
    data = part.data
    foreign = _foreign(md)
    if part.modality is _IMAGE:
        if not foreign and not all(k.startswith(_IMAGE_URL) or not k.startswith(CHAT) for k in md):
            return None
        image: JsonDict = {} if foreign else metadata_to_fields(md, _IMAGE_URL)
        if type(data) is Uri:
            image["url"] = data.value
        elif type(data) is InlineBytes or type(data) is InlineText:
            image["url"] = data_url(part.mime_type, inline_base64(part) or "")
        else:
            return None
        return {"type": "image_url", "image_url": image}
    if part.modality is _AUDIO and foreign and (type(data) is InlineBytes or type(data) is InlineText):
        audio: JsonDict = {"data": inline_base64(part)}
        fmt = audio_format(part.mime_type)
        if fmt is not None:
            audio["format"] = fmt
        return {"type": "input_audio", "input_audio": audio}
    return None


def _file(part: FilePart) -> JsonValue:
    """The content entry of a file that carries nothing, as ``_request._file_entry`` writes it; ``None`` for a file by URL (or any other)."""
    data = part.data
    file: JsonDict = {} if part.name is None else {"filename": part.name}
    if type(data) is Handle:
        file["file_id"] = data.value.value
    elif type(data) is Uri:
        if not data.value.startswith("data:"):
            return None  # the general path raises what is wrong
        file["file_data"] = data.value
    elif type(data) is InlineBytes or type(data) is InlineText:
        text = inline_base64(part) or ""
        file["file_data"] = data_url(part.mime_type or ("text/plain" if holds_text(part) else OCTETS), text)
    else:
        return None
    return {"type": "file", "file": file}


def fold(build: Any, items: Sequence[Item], start: int) -> None:
    """``build.add(n, item)`` (``build`` a :class:`._request.Build`) for each of ``items`` (``n`` counting from ``start``),
    in one pass: an item of a common shape (the module docstring) is written here, any other by ``build.add_general``."""
    general = build.add_general
    for n, item in enumerate(items, start):
        md = item.metadata
        if md is EMPTY_METADATA or not md:
            if not add_bare(build, item, False):
                general(n, item)
            continue
        own = [k for k in md if k.startswith(CHAT)]
        if not own:
            done = add_bare(build, item, False)
        elif own == [NO_CONTENT_KEY]:
            done = add_bare(build, item, md[NO_CONTENT_KEY] is True)
        else:
            done = False
        if not done:
            general(n, item)


def add_bare(build: Any, item: Item, no_content: bool) -> bool:  # noqa: C901 - one pass over the parts, as the general path's
    """Fold ``item`` into ``build`` as the general path would, if it is of a common shape; ``False`` (nothing done) otherwise.

    ``no_content``: the item says its message had no ``content`` field (``openai.chat.no_content``).
    """
    texts: list[str] = []
    media: list[tuple[int, JsonValue]] = []  # (where among the texts, entry)
    calls: list[ToolCallPart] = []
    results: list[JsonDict] = []
    assistant = item.kind is _ASSISTANT
    audio: JsonDict | None = None
    others = False  # a part besides the results (a result beside other parts goes the general way)
    for part in item.parts:
        kind, md = type(part), part.metadata
        if kind is TextPart:
            if not _foreign(md):
                return False
            texts.append(part.text)
            others = True
        elif kind is ToolResultPart and not assistant:
            if md is not EMPTY_METADATA and md.get(LEGACY_KEY) is True:
                return False
            output, call_id = part.output, part.call_id.value  # type: ignore[attr-defined]
            call = build.calls.get(call_id)
            if call is not None and call.metadata.get(LEGACY_KEY) is True:
                return False  # a legacy function call's result
            if type(output) is TextOutput:  # output_text(output), inlined: the fast path makes no call it can spare
                content: str = output.text
            elif type(output) is StructuredOutput:
                content = dumps(output.value)
            else:
                return False
            results.append({"role": "tool", "tool_call_id": call_id} if no_content and content == "" else
                           {"role": "tool", "tool_call_id": call_id, "content": content})
        elif assistant:
            others = True
            if kind is ToolCallPart:
                if not _call_free(md):
                    return False
                calls.append(part)  # type: ignore[arg-type]
            elif kind is ReasoningPart:
                if not _foreign(md):
                    return False  # reasoning that says no field of its own is not sent
            elif kind is MediaPart:
                if part.modality is _AUDIO and _AUDIO_ID in md:  # type: ignore[attr-defined]
                    audio = metadata_to_fields(md, AUDIO, AUDIO_RESPONSE_ONLY)  # an answer's audio, sent back by its id
                # any other media of an answer is not sent
            else:
                return False
        elif kind is ToolCallPart:
            return False  # the general path knows a user's call (a result may name it), though it sends none
        else:
            others = True
            if kind is MediaPart:
                entry = _media(part, md)  # type: ignore[arg-type]
                if entry is None and _foreign(md):
                    return False  # the general path raises what is wrong
            elif kind is FilePart and (md is EMPTY_METADATA or not md):
                entry = _file(part)  # type: ignore[arg-type]
                if entry is None:
                    return False
            else:
                entry = None
            if entry is None:
                try:
                    entry = build.entry(part)  # a file, a structure, media with Chat's fields: the general path's entry
                except NormalizeError:
                    return False
                if entry is None:
                    continue  # dropped, as the general path drops it
            media.append((len(texts), entry))
    if results:
        if others:
            return False
        build.messages.extend(results)
        return True
    msg: JsonDict = {"role": "assistant" if assistant else _ROLES[id(item.kind)]}
    if media:
        entries: list[JsonValue] = [{"type": "text", "text": t} for t in texts]
        for at, entry in reversed(media):
            entries.insert(at, entry)
        msg["content"] = entries
    elif texts:
        msg["content"] = texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]
    elif calls and not no_content:
        msg["content"] = None
    if audio is not None:
        msg["audio"] = audio
    if calls:
        for call in calls:
            build.calls[call.id.value] = call
        msg["tool_calls"] = [_call(c) for c in calls]
    if len(msg) > 1 or no_content:
        build._send(msg)
    return True  # else nothing to send: the general path sends no message either


def _call(part: ToolCallPart) -> JsonDict:
    """A call that carries nothing but :data:`_CALL_MARKERS`, as ``_request._tool_call`` writes it."""
    md = part.metadata
    if md is EMPTY_METADATA or not md:
        return {"id": part.id.value, "type": "function", "function": {"name": part.name, "arguments": dumps(part.input)}}
    function: JsonDict = {"name": part.name}
    if not (md.get(NO_ARGUMENTS_KEY) is True and part.input == {}):
        function["arguments"] = dumps(part.input)
    if md.get(NO_TYPE_KEY) is True:
        return {"id": part.id.value, "function": function}
    return {"id": part.id.value, "type": "function", "function": function}
