"""Items and parts as OpenTelemetry GenAI message JSON: the private half of :mod:`.otel`.

Every function returns plain JSON data (dicts, lists, strings) shaped as the
conventions' schemas ``gen-ai-input-messages.json``,
``gen-ai-output-messages.json`` and ``gen-ai-system-instructions.json`` want
it; :mod:`.otel` documents the mapping and turns the data into JSON text.
"""

from __future__ import annotations

import json
from typing import cast

from .._codec import copy_json
from ..content import CustomPart, FilePart, MediaPart, Modality, ReasoningPart, StructuredPart, TextPart
from ..data import Handle, InlineBytes, InlineText, Uri
from ..finish import FinishReason
from ..item import ItemKind
from ..keys import INPUT_JSON_KEY
from ..tool import FilesOutput, PartsOutput, StructuredOutput, TextOutput, ToolCallPart, ToolResultPart
from ._servers import server_part

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any, Callable

    from .._codec import JsonValue
    from ..content import Part
    from ..data import DataRef
    from ..item import Item
    from ..tool import ToolOutput

    #: A message or part of the OpenTelemetry GenAI message JSON.
    Shaped = dict[str, JsonValue]

__all__ = ("Shaper", "OTEL_FINISH", "ROLES", "dumps", "finish_name")

#: ItemKind -> the message role (the schema's Role enum: system, user, assistant, tool).
ROLES: dict[ItemKind, str] = {
    ItemKind.SYSTEM: "system",
    ItemKind.DEVELOPER: "system",
    ItemKind.USER: "user",
    ItemKind.ASSISTANT: "assistant",
    ItemKind.TOOL: "tool",
    ItemKind.CONTEXT: "user",
    ItemKind.NOTIFICATION: "user",
}

#: FinishReason.kind -> the conventions' finish reason (``cancelled`` is no word of theirs: the schema allows any string).
OTEL_FINISH: dict[str, str] = {
    "Completed": "stop",
    "ToolCall": "tool_call",
    "MaxTokens": "length",
    "Blocked": "content_filter",
    "Error": "error",
    "Cancelled": "cancelled",
}

#: An answer without a finish reason (a stream cut short): the output schema requires one.
UNKNOWN_FINISH = "unknown"

_MODALITIES = {Modality.IMAGE: "image", Modality.AUDIO: "audio", Modality.VIDEO: "video", Modality.BINARY: "binary"}
_MIME_MODALITIES = {"image": "image", "audio": "audio", "video": "video"}


def finish_name(reason: FinishReason | None) -> str:
    """The conventions' finish reason for ``reason``; an ``other`` reason keeps the provider's string."""
    if reason is None:
        return UNKNOWN_FINISH
    if reason.detail is not None:
        return reason.detail
    return OTEL_FINISH[reason.kind]


#: Every character of standard and URL-safe base64, padding included.
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_="
#: How long a string of those characters must be to be taken for data, not words.
_BASE64_LEAST = 256


def _truncated(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, saying so at its end; whole when it fits."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}[... {len(text) - limit} characters truncated]"


def _map_strings(value: JsonValue, change: Callable[[str], str]) -> JsonValue:
    """A copy of a JSON value with ``change`` applied to every string in it (keys aside)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    return value


class Shaper:
    """The options of one conversion: inline media or not, and the bound on every string."""

    __slots__ = ("inline_media", "max_text")

    def __init__(self, inline_media: bool, max_text: int | None) -> None:
        self.inline_media = inline_media
        self.max_text = max_text

    # -- strings and JSON ---------------------------------------------------------------

    def text(self, text: str) -> str:
        """A content string, bounded."""
        return _truncated(text, self.max_text)

    def json(self, value: JsonValue) -> JsonValue:
        """A copy of a JSON value whose every string (keys aside) is bounded; the structure is kept."""
        if self.max_text is None:
            return copy_json(value)  # the caller may change it: never the part's own
        return _map_strings(value, self.text)

    def opaque(self, value: JsonValue) -> JsonValue:
        """A provider block's JSON, bounded, its base64 data (an image a tool made, encrypted state) omitted.

        Without ``inline_media``, a string of 256 characters or more drawn only
        from the base64 alphabets is ``[N characters of base64 data omitted]``.
        """
        return _map_strings(value, self._opaque_string)

    def _opaque_string(self, text: str) -> str:
        if not self.inline_media and len(text) >= _BASE64_LEAST and not text.strip(_BASE64):
            return f"[{len(text)} characters of base64 data omitted]"
        return self.text(text)

    # -- messages --------------------------------------------------------------------------

    def message(self, item: Item) -> Shaped:
        """One input message: the item's role and parts."""
        return {"role": ROLES[item.kind], "parts": self.json_parts(item.parts)}

    def output_message(self, item: Item) -> Shaped:
        """One output message (a choice, a candidate): role, parts and finish reason."""
        return {"role": ROLES[item.kind], "parts": self.json_parts(item.parts), "finish_reason": finish_name(item.finish_reason)}

    def parts(self, parts: tuple[Part, ...]) -> list[Shaped]:
        """The message parts of ``parts``, in order."""
        return [_SHAPES[type(p)](self, p) for p in parts]

    def json_parts(self, parts: tuple[Part, ...]) -> list[JsonValue]:
        """:meth:`parts` as a JSON value (a list of objects is one; ``list`` is invariant to the type checker)."""
        return cast("list[JsonValue]", self.parts(parts))

    # -- parts -----------------------------------------------------------------------------

    def _text(self, part: TextPart) -> Shaped:
        return {"type": "text", "content": self.text(part.text)}

    def _structured(self, part: StructuredPart) -> Shaped:
        # Every encoder sends a structured part as its compact JSON text: that is what the model read.
        return {"type": "text", "content": self.text(dumps(part.value))}

    def _reasoning(self, part: ReasoningPart) -> Shaped:
        shaped: Shaped = {"type": "reasoning", "content": self.text(part.summary or "")}
        if part.redacted:
            shaped["redacted"] = True
        return shaped

    def _call(self, part: ToolCallPart) -> Shaped:
        return {"type": "tool_call", "id": part.id.value, "name": part.name, "arguments": self.arguments(part)}

    def _result(self, part: ToolResultPart) -> Shaped:
        return {"type": "tool_call_response", "id": part.call_id.value, "response": self.output(part.output)}

    def _media(self, part: MediaPart) -> Shaped:
        return self.data(part.data, _MODALITIES[part.modality], part.mime_type)

    def _file(self, part: FilePart) -> Shaped:
        mime = part.mime_type
        modality = _MIME_MODALITIES.get(mime.partition("/")[0], "document") if mime else "document"
        shaped = self.data(part.data, modality, mime)
        if part.name is not None:
            shaped["name"] = part.name
        return shaped

    def _custom(self, part: CustomPart) -> Shaped:
        # A server tool's block becomes the conventions' server tool part, any other the generic
        # part: any type name (the kind names the provider's block), any properties.
        server = server_part(part.kind, part.value)
        if server is not None:
            details = "server_tool_call" if server["type"] == "server_tool_call" else "server_tool_call_response"
            server[details] = self.opaque(server[details])
            return server
        shaped: Shaped = {"type": part.kind}
        if part.value is not None:
            shaped["value"] = self.opaque(part.value)
        if part.data is not None:
            shaped["data"] = self.data(part.data, "binary", None)
        return shaped

    # -- what parts hold -------------------------------------------------------------------

    def arguments(self, call: ToolCallPart) -> JsonValue:
        """A call's arguments: its JSON input, or the argument text that did not parse."""
        raw = call.metadata.get(INPUT_JSON_KEY) if call.input is None else None
        return self.json(raw if isinstance(raw, str) else call.input)

    def output(self, output: ToolOutput) -> JsonValue:
        """A tool's output as JSON: text, the structured value, or the message parts it holds."""
        if isinstance(output, TextOutput):
            return self.text(output.text)
        if isinstance(output, StructuredOutput):
            return self.json(output.value)
        if isinstance(output, PartsOutput):
            return self.json_parts(output.parts)
        assert isinstance(output, FilesOutput)
        return self.json_parts(output.files)

    def data(self, data: DataRef, modality: str, mime_type: str | None) -> Shaped:
        """A ``uri``, ``file`` or ``blob`` part for ``data``; inline bytes only when asked for.

        Inline data (bytes, text, a ``data:`` URL) without ``inline_media`` is a
        ``blob_omitted`` part holding its modality, MIME type and size in bytes.
        """
        head: Shaped = {"modality": modality, "mime_type": mime_type}
        if isinstance(data, Handle):
            return {"type": "file", **head, "file_id": data.value.value}
        if isinstance(data, InlineBytes):
            raw = data.value
        elif isinstance(data, InlineText):
            raw = data.value.encode("utf-8", "surrogatepass")
        else:
            assert isinstance(data, Uri)
            if data.value[:5].lower() != "data:":
                return {"type": "uri", **head, "uri": data.value}
            url_type, raw = _data_url(data.value)
            head["mime_type"] = mime_type or url_type
        if not self.inline_media:
            return {"type": "blob_omitted", **head, "size_bytes": len(raw)}
        from base64 import b64encode

        return {"type": "blob", **head, "content": b64encode(raw).decode("ascii")}


def _data_url(url: str) -> tuple[str | None, bytes]:
    """The MIME type and bytes of a ``data:`` URL (bytes of the text after the comma when it is malformed)."""
    header, _, payload = url[5:].partition(",")
    mime = header.split(";")[0] or None
    if header.endswith(";base64"):
        from binascii import Error, a2b_base64

        try:
            return mime, a2b_base64(payload)
        except (Error, ValueError):
            return mime, payload.encode("utf-8", "surrogatepass")
    from urllib.parse import unquote_to_bytes

    return mime, unquote_to_bytes(payload)


def dumps(value: object) -> str:
    """Compact JSON text, non-ASCII kept as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_SHAPES: dict[type, Callable[[Shaper, Any], Shaped]] = {
    TextPart: Shaper._text,
    StructuredPart: Shaper._structured,
    ReasoningPart: Shaper._reasoning,
    ToolCallPart: Shaper._call,
    ToolResultPart: Shaper._result,
    MediaPart: Shaper._media,
    FilePart: Shaper._file,
    CustomPart: Shaper._custom,
}
