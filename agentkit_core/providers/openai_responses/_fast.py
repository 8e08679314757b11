"""Private to :mod:`.openai_responses`: the request's fast path, what :class:`._request.Build` writes for the common shapes.

Measured gain: a fresh ``http_request`` of 1,500 items (``tools/bench.py --only requests``) takes 3.0 ms
with it and 5.3 ms without (``AGENTKIT_CORE_FAST_PATHS=0``): 1.8x.

The rule is what the general path (``_request.native_items``) reads: the Responses API's own ``openai.*`` keys (not
Chat's ``openai.chat.*``), a reasoning part's ``agentkit.provider`` and a call's ``agentkit.input_json``; any other
key (another provider's, the toolkit's ``agentkit.tool_name``) is never read, so a value carrying only such keys is
written as one that carries nothing.  The fast path regroups the parts as the general path does (consecutive message
parts, or reasoning parts, with the same ``openai.id`` make one native item) and writes:

* messages of any parts but custom ones: the first part's ``openai.<field>`` as the item's fields; entries of a text,
  an image or a file that carry only their ``openai.part.type`` (and an image its ``detail``) here, any other entry by
  the general path's own ``_entry``;
* reasoning this API owns that carries its item's ``id`` and ``status`` and its entry's ``type`` (what a response
  and a request's reasoning item give), its encrypted content; reasoning of another provider is dropped;
* calls that carry their item's ``id`` and ``status`` (and ``agentkit.input_json``), results that carry no field of
  the API (their contents' entries as a message's, their text or structure by the general path's ``_output_native``).

Anything else (an item holding the request's ``instructions`` or string ``input``, custom parts, custom tool calls,
the markers of odd reasoning entries) goes through the general path (:meth:`._request.Build.add_general`), which the
fast path agrees with byte for byte: ``tests/test_responses_fast_path.py`` compares the two over seeded random items.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ... import (
    EMPTY_METADATA,
    INPUT_JSON_KEY,
    PROVIDER_KEY,
    FilePart,
    FilesOutput,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    JsonValue,
    MediaPart,
    Modality,
    PartsOutput,
    ReasoningPart,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Uri,
)
from .._common import JsonDict, data_url, dumps, in_namespace, inline_base64, metadata_to_fields, owned
from .._common.reuse import by_kind
from ._keys import NS, PART_NS, PROVIDER, REQUEST_FIELD
from ._response import KIND_ROLES

_ROLES = by_kind(KIND_ROLES)
_ID, _STATUS, _PART_TYPE = NS + "id", NS + "status", PART_NS + "type"
#: The keys of a reasoning part the fast path writes: its owner, its item's id and status, its entry's type.
_REASONING = frozenset((PROVIDER_KEY, _ID, _STATUS, _PART_TYPE))
#: The keys of a call the fast path writes: its item's id and status, the raw text of arguments that were no JSON.
_CALL = frozenset((_ID, _STATUS, INPUT_JSON_KEY))
_NOTHING: frozenset[str] = frozenset()
#: The keys of a content entry the fast path writes: its type, and an image's detail.
_DETAIL = PART_NS + "detail"
_TYPED, _IMAGE_KEYS = frozenset((_PART_TYPE,)), frozenset((_PART_TYPE, _DETAIL))
_IMAGE = Modality.IMAGE
#: The toolkit's keys the general path reads somewhere (never foreign).
_READ = frozenset((PROVIDER_KEY, INPUT_JSON_KEY))
_MESSAGE, _THOUGHT = 1, 2  # the open group's kind


def _known(md: Any, known: frozenset[str]) -> bool:
    """Whether every key of ``md`` is in ``known`` or is one the general path never reads (not the API's own)."""
    keys = md.keys()
    if keys <= known:
        return True
    for key in keys - known:
        if key in _READ or in_namespace(key, NS):
            return False
    return True


def _fields(md: Any) -> JsonDict | None:
    """The item fields ``id`` and ``status`` of a value of :data:`_REASONING` or :data:`_CALL` keys, as
    ``metadata_to_fields(md, NS)`` gives them, when they are strings; ``None`` for any other."""
    fields: JsonDict = {}
    for key, name in ((_ID, "id"), (_STATUS, "status")):
        if key in md:
            value = md[key]
            if type(value) is not str:
                return None
            fields[name] = value
    return fields


def fold(build: Any, items: Sequence[Item], start: int) -> None:
    """``build.add(n, item)`` (``build`` a :class:`._request.Build`) for each of ``items`` (``n`` counting from ``start``),
    in one pass: an item of a common shape (the module docstring) is written here, any other by ``build.add_general``."""
    general = build.add_general
    native = build.native
    for n, item in enumerate(items, start):
        md = item.metadata
        if md is not EMPTY_METADATA and REQUEST_FIELD in md:
            general(n, item)
            continue
        out = add_item(build, item)
        if out is None:
            general(n, item)
        else:
            native += out


def add_item(build: Any, item: Item) -> list[JsonValue] | None:  # noqa: C901 - one pass over the parts, as the general path's
    """The native input items of ``item`` as the general path writes them, if it is of a common shape; else ``None``."""
    role: str = _ROLES.get(id(item.kind), "user")
    parts = item.parts
    if len(parts) == 1 and parts[0].metadata is EMPTY_METADATA:  # a question, an answer's text or a result, mostly
        part = parts[0]
        if type(part) is TextPart:
            return [{"role": role, "content": part.text}]
        if type(part) is ToolResultPart and type(part.output) is TextOutput:
            call_id = part.call_id.value
            return [{"type": "custom_tool_call_output" if call_id in build.custom_calls else "function_call_output",
                     "call_id": call_id, "output": part.output.text}]
    out: list[JsonValue] = []
    group: list[Any] = []  # the parts of the open message or reasoning item
    tag, gid = 0, None  # its kind and openai.id
    plain = False  # whether the open message holds only texts that carry nothing
    for part in parts:
        kind, md = type(part), part.metadata
        empty = md is EMPTY_METADATA
        if kind is TextPart or kind is MediaPart or kind is FilePart or kind is StructuredPart:
            key = None if empty else md.get(_ID)
            if tag == _MESSAGE and key == gid:
                group.append(part)
                plain = plain and empty and kind is TextPart
                continue
        elif kind is ReasoningPart:
            if empty:
                continue  # not this API's: dropped, and it parts nothing around it
            owner = md.get(PROVIDER_KEY)
            if not (owner == PROVIDER if owner is not None else owned(md, PROVIDER, NS)):
                continue
            if not md.keys() <= _REASONING:
                return None
            key = md.get(_ID)
            if key is not None and type(key) is not str:
                return None
            if tag == _THOUGHT and key == gid:
                group.append(part)
                continue
        elif kind is ToolCallPart or kind is ToolResultPart:
            key = None
        else:
            return None  # a custom part: alone, or an entry, as the general path knows
        if group:
            if plain:
                out.append(_texts(role, group))
            elif not _flush(build, group, tag, role, out):
                return None
            group = []
        if kind is ToolCallPart:
            tag = 0
            if empty:
                out.append({"type": "function_call", "call_id": part.id.value, "name": part.name,  # type: ignore[attr-defined]
                            "arguments": dumps(part.input)})  # type: ignore[attr-defined]
                continue
            fields = _fields(md) if _known(md, _CALL) else None
            if fields is None:
                return None
            args = md.get(INPUT_JSON_KEY)
            if not isinstance(args, str):
                args = dumps(part.input)  # type: ignore[attr-defined]
            out.append({"type": "function_call", "call_id": part.id.value, "name": part.name, "arguments": args,  # type: ignore[attr-defined]
                        **fields})
        elif kind is ToolResultPart:
            tag = 0
            if not (empty or _known(md, _NOTHING)):
                return None
            call_id = part.call_id.value  # type: ignore[attr-defined]
            output = part.output  # type: ignore[attr-defined]
            if type(output) is PartsOutput or type(output) is FilesOutput:
                general = build.entry
                value: JsonValue = [entry(p, "tool", general) for p in (output.parts if type(output) is PartsOutput else output.files)]
            else:
                value = build.output(output)
            out.append({"type": "custom_tool_call_output" if call_id in build.custom_calls else "function_call_output",
                        "call_id": call_id, "output": value})
        else:
            group = [part]
            tag, gid = (_THOUGHT if kind is ReasoningPart else _MESSAGE), key
            plain = empty and kind is TextPart
    if group:
        if plain:
            out.append(_texts(role, group))
        elif not _flush(build, group, tag, role, out):
            return None
    return out


def _texts(role: str, group: list[TextPart]) -> JsonDict:
    """A message of texts that carry nothing, as the general path writes it."""
    if len(group) == 1:
        return {"role": role, "content": group[0].text}
    kind = "output_text" if role == "assistant" else "input_text"
    return {"role": role, "content": [{"type": kind, "text": p.text} for p in group]}


def _flush(build: Any, group: list[Any], tag: int, role: str, out: list[JsonValue]) -> bool:
    """Write the open group of parts (a message, or reasoning) to ``out``; ``False`` (``out`` as it was) if the
    fast path does not write it."""
    first = group[0]
    if tag == _THOUGHT:
        native = _reasoning(group)
        if native is None:
            return False
        out.append(native)
        return True
    md = first.metadata
    fields = {} if md is EMPTY_METADATA else metadata_to_fields(md, NS)
    if "role" in fields:
        role = fields.pop("role")  # any value, as the general path takes it
    if role == "assistant":  # output_text and refusal entries only: another API's media and files stay out
        group = [p for p in group if _PART_TYPE in p.metadata or not isinstance(p, (MediaPart, FilePart))]
        if not group:
            return True
    only = group[0]
    if len(group) == 1 and type(only) is TextPart and _PART_TYPE not in only.metadata:
        out.append({"role": role, "content": only.text, **fields})
        return True
    general = build.entry
    out.append({"role": role, "content": [entry(p, role, general) for p in group], **fields})
    return True


def entry(part: Any, role: str, general: Callable[[object, str], JsonValue]) -> JsonValue:
    """One content entry as the general path's ``_entry`` writes it: a text, an image or a file of
    :data:`_IMAGE_KEYS` (an image) or :data:`_TYPED` keys here, any other by ``general(part, role)``."""
    kind, md = type(part), part.metadata
    empty = md is EMPTY_METADATA or not md
    if kind is TextPart:
        if empty:
            return {"type": "output_text" if role == "assistant" else "input_text", "text": part.text}
        etype = md.get(_PART_TYPE)
        if md.keys() <= _TYPED and type(etype) is str:
            return {"type": etype, ("refusal" if etype == "refusal" else "text"): part.text}
    elif kind is MediaPart and part.modality is _IMAGE and (empty or md.keys() <= _IMAGE_KEYS):
        detail = None if empty else md.get(_DETAIL)
        if type(detail) is str or (detail is None and (empty or _DETAIL not in md)):  # a null or an object: as carried
            data = part.data
            image: JsonDict = {"type": "input_image"}
            if type(data) is Uri:
                image["image_url"] = data.value
            elif type(data) is Handle:
                image["file_id"] = data.value.value
            elif type(data) is InlineBytes or type(data) is InlineText:
                image["image_url"] = data_url(part.mime_type, str(inline_base64(part)))
            else:
                return general(part, role)
            if detail is not None:
                image["detail"] = detail
            return image
    elif kind is FilePart and not empty and md.keys() <= _TYPED:  # a request's file: no name made up for it
        data, mime = part.data, part.mime_type
        file: JsonDict = {"type": "input_file"}
        if part.name is not None:
            file["filename"] = part.name
        if type(data) is Uri:
            file["file_url"] = data.value
        elif type(data) is Handle:
            file["file_id"] = data.value.value
        elif mime is None and type(data) is InlineText:
            file["file_data"] = data.value  # a file_data that was no data: URL, as it came
        elif type(data) is InlineBytes or type(data) is InlineText:
            file["file_data"] = data_url(mime or "application/octet-stream", str(inline_base64(part)))  # no MIME type: bytes
        else:
            return general(part, role)
        return file
    return general(part, role)


def _reasoning(group: list[ReasoningPart]) -> JsonDict | None:
    """A reasoning item of parts of :data:`_REASONING` keys, as the general path's ``_reasoning_native`` writes it."""
    fields = _fields(group[0].metadata)
    if fields is None:
        return None
    content: list[JsonValue] = []
    summary: list[JsonValue] = []
    encrypted: str | None = None
    for part in group:
        if encrypted is None and isinstance(part.data, InlineText):
            encrypted = part.data.value
        text = part.summary
        if text is None:
            continue
        etype = part.metadata.get(_PART_TYPE)
        if etype is None:
            summary.append({"type": "summary_text", "text": text})
        elif type(etype) is not str:
            return None
        elif etype == "reasoning_text":
            content.append({"type": etype, "text": text})
        else:
            summary.append({"type": etype, "text": text})
    native: JsonDict = {"type": "reasoning", **fields}
    if content:
        native["content"] = content
    native["summary"] = summary  # no marker says the item had none
    if encrypted is not None:
        native["encrypted_content"] = encrypted
    return native
