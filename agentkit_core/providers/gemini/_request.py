"""Private to :mod:`.gemini`: parts -> native parts (the inverse of :mod:`._response`), items <-> a request's contents.

What is sent and what is dropped is said in the docstring of :mod:`.gemini`.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ... import (
    INVENTED_ID_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    FilePart,
    FilesOutput,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    JsonValue,
    MediaPart,
    ModelSettings,
    NormalizeError,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Uri,
)
from .._common import (
    JsonDict,
    b64encode,
    checked_list,
    copy_json,
    dumps,
    fields_to_metadata,
    in_namespace,
    json_object,
    metadata_to_fields,
    name_results,
    optional_arr,
    owned,
    under,
)
from .._common.held import as_native
from .._common.reuse import BuildCache, FastFold, Layered, fresh
from .._common.settings import with_settings
from ._fast import ONE_TURN, fold
from ._held import REQUEST
from ._keys import BASE64, CONTENT, MARKERS, NS, OMITTED, PROVIDER, SIGNATURE, SKIP_SIGNATURE, SNAKE, key_of, marked_paths, omit, respell
from ._response import Calls, parts_from_content
from ._settings import checked_body, fields_of
from ._tools import Choice, Tools, tool_fields

# -- part -> native part ----------------------------------------------------------------


def _extend(native: JsonDict, carried_fields: Mapping[str, JsonValue]) -> None:
    """Add the carried fields ``native`` does not have: metadata never overwrites what the part says."""
    for key, value in carried_fields.items():
        native.setdefault(key, value)


def from_gemini(metadata: Mapping[str, JsonValue]) -> bool:
    """Whether metadata says Gemini made its owner: ``agentkit.provider`` if set, else any ``gemini.*`` key."""
    return owned(metadata, PROVIDER, NS)


def _media_native(part: MediaPart | FilePart) -> JsonDict:
    metadata, data, mime = part.metadata, part.data, part.mime_type
    obj: JsonDict
    if isinstance(data, Uri):
        field, obj = "fileData", {"fileUri": data.value}
        if mime is not None:
            obj["mimeType"] = mime
    elif isinstance(data, InlineBytes):
        field, obj = "inlineData", {"mimeType": "application/octet-stream" if mime is None else mime}
        obj["data"] = b64encode(data.value, urlsafe=metadata.get(BASE64) == "urlsafe")
    elif isinstance(data, InlineText):
        # Media held as text is base64 already; a file's text is its content (text/* or no MIME type).
        text = data.value
        if isinstance(part, FilePart) and (mime is None or mime.startswith("text/")):
            text = b64encode(text.encode("utf-8"))
        field, obj = "inlineData", {"mimeType": "text/plain" if mime is None else mime, "data": text}
    else:
        raise NormalizeError(f"cannot send a {type(part).__name__} held as an artifact handle to Gemini: resolve it first")
    if isinstance(part, FilePart) and part.name is not None:
        obj["displayName"] = part.name
    _extend(obj, metadata_to_fields(metadata, f"{NS}{field}."))
    return {field: obj}


class Encoder:
    """Builds native parts for one transcript, remembering its function calls."""

    def __init__(self) -> None:
        self.calls: Layered[tuple[str, bool]] = Layered()

    def part(self, part: Part) -> JsonDict | None:
        """``part`` as a native part, or ``None`` when it is another provider's state (dropped)."""
        metadata = part.metadata
        native: JsonDict
        if isinstance(part, TextPart):
            native = {"text": part.text}
        elif isinstance(part, ReasoningPart):
            if not from_gemini(metadata):
                return None
            native = {} if part.summary is None else {"text": part.summary}
        elif isinstance(part, ToolCallPart):
            native = {"functionCall": self._call(part)}
        elif isinstance(part, ToolResultPart):
            native = {"functionResponse": self._result(part)}
        elif isinstance(part, (MediaPart, FilePart)):
            native = _media_native(part)
        elif isinstance(part, StructuredPart):
            native = {"text": dumps(part.value)}
        elif isinstance(part, CustomPart):
            if not in_namespace(part.kind, NS) or not isinstance(part.value, dict):
                return None
            native = copy_json(part.value)
        else:  # pragma: no cover - every Part variant is handled above
            raise NormalizeError(f"cannot send a {type(part).__name__} to Gemini")
        if not isinstance(part, CustomPart):
            _extend(native, metadata_to_fields(metadata, NS, MARKERS))
        signature = metadata.get(SIGNATURE)
        if isinstance(signature, str) and from_gemini(metadata):
            native["thoughtSignature"] = signature
        if OMITTED in metadata:
            omit(native, marked_paths(metadata, OMITTED))
        return respell(native, marked_paths(metadata, SNAKE)) if SNAKE in metadata else native

    def _call(self, part: ToolCallPart) -> JsonDict:
        invented = part.metadata.get(INVENTED_ID_KEY) is True
        self.calls[part.id.value] = (part.name, invented)
        call: JsonDict = {"name": part.name, "args": copy_json(part.input)}
        _extend(call, metadata_to_fields(part.metadata, NS + "functionCall."))  # an "id": null sent by the client included
        if not invented:
            call["id"] = part.id.value
        return call

    def _result(self, part: ToolResultPart) -> JsonDict:
        metadata, call_id = part.metadata, part.call_id.value
        known = self.calls.get(call_id)
        name = metadata.get(TOOL_NAME_KEY)
        if not isinstance(name, str):
            if known is None:
                raise NormalizeError(
                    f"the result of call {call_id!r} needs the function's name: "
                    "set agentkit.tool_name on it, or keep the call earlier in the transcript"
                )
            name = known[0]
        result: JsonDict = {"name": name}
        result["response"], media = self._response(part)
        if media is not None:
            result["parts"] = media
        _extend(result, metadata_to_fields(metadata, NS + "functionResponse."))  # an "id": null sent by the client included
        if metadata.get(INVENTED_ID_KEY) is not True and not (known and known[1]):
            result["id"] = call_id
        return result

    def _response(self, part: ToolResultPart) -> tuple[JsonDict, list[JsonDict] | None]:
        output, key = part.output, "error" if part.is_error else "output"
        if isinstance(output, StructuredOutput):
            value = output.value
            return (copy_json(value) if isinstance(value, dict) else {key: copy_json(value)}), None
        if isinstance(output, TextOutput):
            return {key: output.text}, None
        if isinstance(output, FilesOutput):
            rest: Sequence[Part] = output.files
        elif isinstance(output, PartsOutput):
            rest = output.parts
        else:  # pragma: no cover - every ToolOutput variant is handled
            raise NormalizeError(f"cannot send a {type(output).__name__} to Gemini")
        response: JsonDict = {}
        if rest and isinstance(rest[0], StructuredPart) and isinstance(rest[0].value, dict):
            response, rest = copy_json(rest[0].value), rest[1:]
        else:
            text = "".join(p.text for p in rest if isinstance(p, TextPart))
            rest = [p for p in rest if not isinstance(p, TextPart)]
            if text:
                response = {key: text}
        media = []
        for p in rest:
            native = self.part(p) if isinstance(p, (MediaPart, FilePart, CustomPart)) else None
            if native is None:
                raise NormalizeError(f"cannot send a {type(p).__name__} inside a Gemini function response")
            media.append(native)
        return response, media


# -- requests -----------------------------------------------------------------------------


def _unsigned_as_sent(content: JsonDict, parts: list[Part]) -> None:
    """Mark the first ``functionCall`` of a model content sent without a signature, so none is added to it."""
    natives = content.get("parts") or ()
    first = next((n for n, p in enumerate(natives) if key_of(p, "functionCall") is not None), None)
    if first is not None and key_of(natives[first], "thoughtSignature") is None:
        part = parts[first]
        omitted: list[JsonValue] = [*marked_paths(part.metadata, OMITTED), "thoughtSignature"]
        parts[first] = part.with_metadata(part.metadata.merged({OMITTED: omitted}))


def _content_item(content: JsonDict, calls: Calls, path: str, kind: ItemKind | None = None) -> Item:
    parts = parts_from_content(content, calls, path)
    if kind is None and content.get("role") == "model":
        _unsigned_as_sent(content, parts)
    metadata = fields_to_metadata(content, ("parts",), CONTENT)
    omitted: list[JsonValue] = [f for f in ("role", "parts") if f not in content and kind is None]
    if omitted:
        metadata[OMITTED] = omitted
    if kind is None:
        if content.get("role") == "model":
            kind = ItemKind.ASSISTANT
        elif any(isinstance(p, ToolResultPart) for p in parts):
            kind = ItemKind.TOOL
        else:
            kind = ItemKind.USER
    return Item(kind, parts, metadata=metadata)


def items_from_request(body: object) -> list[Item]:
    """The transcript a request body holds (``systemInstruction`` and ``contents``) as items."""
    request = as_native(body, REQUEST)
    calls = Calls()
    items = []
    system_key = key_of(request, "systemInstruction")
    if system_key is not None and request[system_key] is not None:
        item = _content_item(json_object(request[system_key], system_key), calls, system_key, ItemKind.SYSTEM)
        if system_key != "systemInstruction":
            item = item.with_metadata(item.metadata.merged({SNAKE: ["systemInstruction"]}))
        items.append(item)
    for i, content in enumerate(optional_arr(request, "contents") or ()):
        items.append(_content_item(json_object(content, f"contents[{i}]"), calls, f"contents[{i}]"))
    return name_results(items)


def _content(item: Item, encoder: Encoder, role: str | None, as_sent: set[int]) -> JsonDict | None:
    """``item`` as a content; ``as_sent`` gathers the calls that go without a signature as they came."""
    parts = []
    for n, part in enumerate(item.parts):
        try:
            native = encoder.part(part)
        except NormalizeError as exc:
            raise exc.under(f"parts[{n}]") from None
        if native is not None:
            parts.append(native)
            if OMITTED in part.metadata and "thoughtSignature" in marked_paths(part.metadata, OMITTED):
                as_sent.add(id(native))
    if not parts:
        return None
    metadata = item.metadata
    content = metadata_to_fields(metadata, CONTENT)
    if role is not None and "role" not in content and "role" not in marked_paths(metadata, OMITTED):
        content["role"] = role
    content["parts"] = parts
    return content


#: Kinds looked up once: reading an enum member off its class costs more than a global.
_SYSTEM, _DEVELOPER, _ASSISTANT = ItemKind.SYSTEM, ItemKind.DEVELOPER, ItemKind.ASSISTANT


def _signed(content: JsonDict, as_sent: set[int]) -> JsonDict:
    """``content`` (a model content) with :data:`SKIP_SIGNATURE` on its first ``functionCall`` unless it has a signature.

    A call a request held without one (``as_sent``) goes back as it was sent.  ``content`` itself is not
    changed (a kept build may share it): what gains the signature is a copy.
    """
    parts = content["parts"]
    for n, part in enumerate(parts):
        if "functionCall" in part or "function_call" in part:
            if "thoughtSignature" not in part and "thought_signature" not in part and id(part) not in as_sent:
                signed = list(parts)
                signed[n] = {**part, "thoughtSignature": SKIP_SIGNATURE}
                return {**content, "parts": signed}
            break
    return content


def _sign_own(content: JsonDict, as_sent: set[int]) -> JsonDict:
    """:func:`_signed` for a content the build owns (made by it, or copied when it resumed): its own parts
    list takes the signed copy of the call in place; the call's dict, which a kept build may share, is not changed."""
    parts = content["parts"]
    for n, part in enumerate(parts):
        if "functionCall" in part or "function_call" in part:
            if "thoughtSignature" not in part and "thought_signature" not in part and id(part) not in as_sent:
                parts[n] = {**part, "thoughtSignature": SKIP_SIGNATURE}
            break
    return content


class Build(FastFold):
    """The fold that writes ``contents`` and ``systemInstruction`` (:class:`~.._common.reuse.Build`).

    The last content stays open: the next item's calls or results may go into it (:data:`._fast.ONE_TURN`).
    """

    __slots__ = ("encoder", "contents", "steps", "system", "last", "as_sent")

    #: Items of the common shapes take the fast path (:class:`.FastFold`, the tests turn it off to compare).
    fold_fast = staticmethod(fold)

    def __init__(self) -> None:
        self.encoder = Encoder()
        self.contents: list[JsonDict] = []
        self.steps: list[bool] = []  # whether each content holds an ASSISTANT item's parts not signed yet
        self.system: list[tuple[Item, JsonDict]] = []
        self.last: ItemKind | None = None  # the kind of the item the last content came from
        self.as_sent: set[int] = set()  # calls a request held without a signature (ids of their native parts)

    def copy(self) -> Build:
        build = type(self)()
        build.encoder.calls = self.encoder.calls.copy()
        build.contents = [{**c, "parts": list(c["parts"])} for c in self.contents]  # the open one grows in place
        build.steps, build.system, build.last, build.as_sent = list(self.steps), list(self.system), self.last, set(self.as_sent)
        return build

    def add_general(self, n: int, item: Item) -> None:
        """:meth:`add` through :class:`Encoder`, for any item (the fast path's way out)."""
        kind = item.kind
        instruction = kind is _SYSTEM or kind is _DEVELOPER
        role = None if instruction else "model" if kind is _ASSISTANT else "user"
        try:
            content = _content(item, self.encoder, role, self.as_sent)
        except NormalizeError as exc:
            raise under(exc, "items", f"[{n}]") from None
        if content is None:
            return
        if instruction:
            self.system.append((item, content))
            return
        contents = self.contents
        foreign = not from_gemini(item.metadata) and not any(from_gemini(p.metadata) for p in item.parts)
        if contents and foreign and kind is self.last and kind in ONE_TURN:
            contents[-1]["parts"].extend(content["parts"])  # one turn: calls or their results together
        else:
            contents.append(content)
            self.steps.append(False)
        if kind is _ASSISTANT:
            self.steps[-1] = True
        self.last = kind

    def _sent(self, content: JsonDict, step: bool) -> JsonDict:
        return _signed(content, self.as_sent) if step else content

    def take_final(self) -> list[JsonDict]:
        done = len(self.contents) - 1
        if done <= 0:
            return []
        out, steps = self.contents[:done], self.steps
        if True in steps:  # contents of model items not signed yet (the fast path signs as it goes)
            for content, step in zip(out, steps):
                if step:
                    _sign_own(content, self.as_sent)
        for content in self.contents[:done] if self.as_sent else ():  # their parts' ids may be reused once they are gone
            self.as_sent.difference_update(id(p) for p in content["parts"])
        del self.contents[:done], self.steps[:done]
        return out

    def rest(self) -> list[JsonDict]:
        return [self._sent(c, step) for c, step in zip(self.contents, self.steps)]

    def fields(self, messages: object, count: int) -> JsonDict:
        body: JsonDict = {"contents": messages}
        system = self.system
        if system:
            snake = any("systemInstruction" in marked_paths(item.metadata, SNAKE) for item, _ in system)
            merged = system[0][1] if len(system) == 1 else {"parts": [p for _, content in system for p in content["parts"]]}
            body["system_instruction" if snake else "systemInstruction"] = merged
        return body


def request_from_items(items: Iterable[Item], *, tools: Tools = (), tool_choice: Choice = None,
                       settings: ModelSettings | None = None) -> JsonDict:
    """The transcript fields of a request body: ``{"contents": [...], "systemInstruction": {...}}``; ``tools`` and ``toolConfig`` when given.

    ``systemInstruction`` is there only when an item is SYSTEM or DEVELOPER.
    Raises :class:`NormalizeError` for what Gemini cannot take (see the module
    docstring).  ``settings`` (a :class:`~agentkit_core.ModelSettings`) add their
    ``generationConfig`` fields (see :mod:`._settings`); one the API has no field for
    raises ``ValueError``.
    """
    body = fresh(Build(), checked_list(items, Item, "items"))
    fields = {**body, **tool_fields(tools, tool_choice)}
    if settings is None:
        return fields
    written = fields_of(settings)
    return checked_body(with_settings(fields, written), written)


#: The builds ``http_request`` keeps (:mod:`.._common.reuse`).
KEPT = BuildCache(Build)


def kept_request(items: Sequence[Item], *, tools: Tools = (), tool_choice: Choice = None) -> JsonDict:
    """:func:`request_from_items` for ``http_request``: the same bytes once encoded, the contents joined from kept pieces."""
    return {**KEPT.fields(items), **tool_fields(tools, tool_choice)}
