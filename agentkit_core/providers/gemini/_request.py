"""Private to :mod:`.gemini`: parts -> native parts, the inverse of :mod:`._response`.

What is sent and what is dropped is said in the docstring of :mod:`.gemini`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ... import (
    INVENTED_ID_KEY,
    TOOL_NAME_KEY,
    CustomPart,
    FilePart,
    FilesOutput,
    InlineBytes,
    InlineText,
    JsonValue,
    MediaPart,
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
from .._common import JsonDict, b64encode, carried, copy_json, dumps, in_namespace, owned
from ._keys import BASE64, MARKERS, NS, OMITTED, PROVIDER, SIGNATURE, SNAKE, marked_paths, omit, respell

#: The placeholder signature Google documents for function calls that did not come from Gemini.
SKIP_SIGNATURE = "skip_thought_signature_validator"

# -- part -> native part ----------------------------------------------------------------


def _extend(native: JsonDict, carried_fields: Mapping[str, Any]) -> None:
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
    _extend(obj, carried(metadata, f"{NS}{field}."))
    return {field: obj}


class Encoder:
    """Builds native parts for one transcript, remembering its function calls."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, bool]] = {}

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
            _extend(native, carried(metadata, NS, MARKERS))
        signature = metadata.get(SIGNATURE)
        if isinstance(signature, str) and from_gemini(metadata):
            native["thoughtSignature"] = signature
        omit(native, marked_paths(metadata, OMITTED))
        return respell(native, marked_paths(metadata, SNAKE))

    def _call(self, part: ToolCallPart) -> JsonDict:
        invented = part.metadata.get(INVENTED_ID_KEY) is True
        self.calls[part.id.value] = (part.name, invented)
        call: JsonDict = {"name": part.name, "args": copy_json(part.input)}
        _extend(call, carried(part.metadata, NS + "functionCall."))  # an "id": null sent by the client included
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
        _extend(result, carried(metadata, NS + "functionResponse."))  # an "id": null sent by the client included
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


