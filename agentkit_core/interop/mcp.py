"""Model Context Protocol tools <-> agentkit values (revision 2026-07-28, and 2025-11-25 / 2025-06-18).

Tools (``tools/list``) and their results (``tools/call``), as dicts or the
``mcp`` SDK's objects (read by ``model_dump()``; the SDK is never imported).
The full table, with every field, is ``docs/interop.md``; in short:

=====================================  ==================================================
MCP                                    agentkit
=====================================  ==================================================
``Tool.name``, ``description``         ``ToolSpec.name``, ``description`` (absent: ``""``)
``inputSchema``, ``outputSchema``      ``input_schema``, ``output_schema``
``annotations.readOnlyHint``,          ``read_only_hint``, ``destructive_hint`` (absent: MCP's
``destructiveHint``,                   default, true unless read-only), ``idempotent_hint``;
``idempotentHint``                     the native object kept in ``mcp.annotations``
``openWorldHint``, ``title``,          in ``mcp.annotations`` (no neutral home)
``annotations.title``
``title``, ``icons``, ``execution``,   ``mcp.<field>``, written back
``_meta``, any other field
``needs_approval_hint``,               ``_meta["agentkit/<hint>"]`` when true; other
``supports_streaming_hint``, other     metadata in ``_meta["agentkit/metadata"]``
metadata (no MCP field)
result ``content[]`` ``text``          ``TextPart``
``image``, ``audio``                   ``MediaPart(IMAGE | AUDIO, mimeType, InlineBytes)``
``resource_link``                      ``FilePart(Uri(uri), name, mime_type)``, ``mcp.type``
``resource`` (embedded)                ``FilePart(InlineText | InlineBytes, mime_type)``
                                       with ``mcp.uri``; resource fields ``mcp.resource.*``
a block's ``annotations``, ``_meta``,  ``mcp.annotations``, ``mcp._meta``, ``mcp.<field>``
other fields                           on its part
a block of another ``type``            ``CustomPart("mcp.<type>", value=<block>)``
``structuredContent``                  ``StructuredPart`` marked ``mcp.structuredContent``
                                       (``StructuredOutput`` when the content is only its
                                       ``json.dumps`` text)
``isError``                            the ``is_error`` returned beside the output
the result's ``_meta`` and other       ``CustomPart("mcp.result", value={...})``
fields (``resultType`` other than
``"complete"``)
=====================================  ==================================================

A result of one plain text block is a ``TextOutput``.  Written back, a
``resultType: "complete"`` is added (the current revision requires it;
earlier ones ignore it).  Refused with :class:`~agentkit_core.NormalizeError`:
parts no content block holds (reasoning, tool traffic, another library's
custom parts), media held as an artifact handle, video or other binary media
inline.  The listing's own fields (``nextCursor``, ``ttlMs``, ``cacheScope``)
describe the listing, not a tool: :func:`specs_from_tools` reads its
``tools`` only.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from .. import (
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    Handle,
    InlineBytes,
    InlineText,
    JsonValue,
    MediaPart,
    Modality,
    NormalizeError,
    Part,
    PartsOutput,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolAnnotations,
    ToolOutput,
    ToolSpec,
    Uri,
)
from .._codec import copy_json
from .._detect import sniff as sniff_provider
from .._error_text import wrong_type
from ._common import JsonDict, b64decode, b64encode, listed, obj, opt_text, text, under, wrong

__all__ = ("specs_from_tools", "tools_from_specs", "output_from_result", "result_from_output", "REVISION")

#: The MCP revision these mappings follow (earlier revisions' shapes are read too).
REVISION = "2026-07-28"

_TOOL_KNOWN = frozenset(("name", "description", "inputSchema", "outputSchema", "annotations"))
_HINTS = (("readOnlyHint", "read_only_hint"), ("destructiveHint", "destructive_hint"), ("idempotentHint", "idempotent_hint"))
_OWN_HINTS = ("needs_approval_hint", "supports_streaming_hint")
_AGENTKIT_META = "agentkit/metadata"


def _plain(value: object, what: str, path: str = "") -> JsonDict:
    """A dict, or an SDK object as its wire dump (``model_dump(by_alias=True, exclude_none=True, mode="json")``)."""
    if type(value) is dict:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            value = dump(by_alias=True, exclude_none=True, mode="json")
        except Exception as exc:  # the object's own code failed
            raise NormalizeError(f"cannot dump a Python {type(value).__name__} ({type(exc).__name__})", path) from None
    return obj(value, path, what)


# -- tools ------------------------------------------------------------------------------------------------------------


def specs_from_tools(tools: object) -> list[ToolSpec]:
    """MCP tools (a ``tools/list`` result, its ``tools`` list; dicts or the SDK's objects) -> :class:`ToolSpec` values.

    Raises :class:`NormalizeError` naming the bad field, and for a value that
    is no MCP tool list, naming what it looks like.
    """
    if type(tools) is not list and (isinstance(tools, dict) or hasattr(tools, "model_dump") or hasattr(tools, "tools")):
        listing = _plain(tools, "an MCP tools/list result or its tools list")
        if "tools" not in listing or sniff_provider(listing) is not None:
            raise wrong("an MCP tools/list result or its tools list", listing)
        tools = listing["tools"]
        prefix: tuple[str, ...] = ("tools",)
    else:
        prefix = ()
    specs = []
    for n, tool in enumerate(listed(tools, ".".join(prefix), "a list of MCP tools")):
        try:
            specs.append(_spec(_plain(tool, "an MCP tool")))
        except NormalizeError as exc:
            raise under(exc, *prefix, f"[{n}]") from None
    return specs


def _spec(tool: JsonDict) -> ToolSpec:
    if "inputSchema" not in tool:
        if "input_schema" in tool or "parameters" in tool or "function" in tool:
            raise wrong("an MCP tool (name, inputSchema)", tool)
        raise NormalizeError("missing field", "inputSchema")
    name = text(tool, "name")
    description = opt_text(tool, "description") or ""
    schema = obj(tool["inputSchema"], "inputSchema", "a JSON Schema object")
    output = tool.get("outputSchema")
    md: dict[str, JsonValue] = {}
    annotations = tool.get("annotations")
    if annotations is not None:
        annotations = obj(annotations, "annotations")
        md["mcp.annotations"] = annotations
    hints = _hints_of(annotations or {})
    meta = tool.get("_meta")
    own: dict[str, bool] = {}
    if meta is not None:
        meta = dict(obj(meta, "_meta"))
        for hint in _OWN_HINTS:
            if meta.get("agentkit/" + hint) is True:
                own[hint] = True
                del meta["agentkit/" + hint]
        extra = meta.pop(_AGENTKIT_META, None)
        if extra is not None:
            md.update(obj(extra, f"_meta.{_AGENTKIT_META}"))
        if meta:
            md["mcp._meta"] = meta
    for k, v in tool.items():
        if k not in _TOOL_KNOWN and k != "_meta":
            md["mcp." + k] = v
    try:
        return ToolSpec(
            name, description, schema,
            output_schema=output, annotations=ToolAnnotations(**hints, **own), metadata=md,
        )
    except (TypeError, ValueError) as exc:
        raise NormalizeError(str(exc)) from None


def _hints_of(annotations: JsonDict) -> dict[str, bool]:
    """The three hints MCP and ToolSpec share, MCP's defaults applied (``destructiveHint`` true unless read-only)."""
    read_only = annotations.get("readOnlyHint") is True
    destructive = annotations.get("destructiveHint")
    return {
        "read_only_hint": read_only,
        "destructive_hint": (not read_only) if destructive is None else destructive is True,
        "idempotent_hint": annotations.get("idempotentHint") is True,
    }


def tools_from_specs(specs: Iterable[ToolSpec]) -> list[JsonDict]:
    """:class:`ToolSpec` values -> MCP ``Tool`` dicts (what a server lists in ``tools/list``)."""
    out = []
    for n, spec in enumerate(listed(specs, "specs", "an iterable of ToolSpec")):
        if type(spec) is not ToolSpec:
            raise TypeError(f"specs[{n}]: expected a ToolSpec, found {type(spec).__name__}")
        out.append(_tool(spec))
    return out


def _tool(spec: ToolSpec) -> JsonDict:
    md = spec.metadata
    tool: JsonDict = {"name": spec.name}
    for k, v in md.items():
        if k.startswith("mcp.") and k not in ("mcp.annotations", "mcp._meta"):
            tool[k[4:]] = copy_json(v)
    if spec.description:
        tool["description"] = spec.description
    schema = spec.input_schema
    tool["inputSchema"] = copy_json(schema) if isinstance(schema, dict) else {"type": "object", "properties": {}}
    if spec.output_schema is not None:
        tool["outputSchema"] = copy_json(spec.output_schema)
    given = md.get("mcp.annotations")
    annotations: JsonDict = copy_json(given) if isinstance(given, dict) else {}  # type: ignore[assignment]
    wanted = {h: getattr(spec.annotations, attr) for h, attr in _HINTS}
    implied = _hints_of(annotations)
    for native, attr in _HINTS:  # only what MCP's defaults would not say (an absent destructiveHint means true)
        if implied[attr] != wanted[native]:
            annotations[native] = wanted[native]
    if annotations:
        tool["annotations"] = annotations
    given_meta = md.get("mcp._meta")
    meta: JsonDict = copy_json(given_meta) if isinstance(given_meta, dict) else {}  # type: ignore[assignment]
    for hint in _OWN_HINTS:
        if getattr(spec.annotations, hint):
            meta["agentkit/" + hint] = True
    others = {k: copy_json(v) for k, v in md.items() if not k.startswith("mcp.")}
    if others:
        meta[_AGENTKIT_META] = others
    if meta:
        tool["_meta"] = meta
    return tool


# -- results -------------------------------------------------------------------------------------------------------------

_MEDIA = {"image": Modality.IMAGE, "audio": Modality.AUDIO}
_RESULT_KNOWN = frozenset(("content", "structuredContent", "isError"))
_STRUCTURED_KEY = "mcp.structuredContent"


def output_from_result(result: object) -> tuple[ToolOutput, bool]:
    """A ``tools/call`` result (a dict or the SDK's ``CallToolResult``) -> ``(ToolOutput, is_error)``.

    Raises :class:`NormalizeError` naming the bad field, and for a value that
    is no tool result, naming what it looks like.
    """
    r = _plain(result, "an MCP tools/call result")
    if "content" not in r and "structuredContent" not in r or "role" in r or "type" in r and sniff_provider(r) is not None:
        raise wrong("an MCP tools/call result (content, isError)", r)
    is_error = r.get("isError")
    if is_error is not None and type(is_error) is not bool:
        raise NormalizeError("expected a boolean", "isError")
    parts: list[Part] = []
    for n, block in enumerate(listed(r.get("content", []), "content", "a list of content blocks")):
        try:
            parts.append(_part(obj(block, "", "a content block")))
        except NormalizeError as exc:
            raise under(exc, "content", f"[{n}]") from None
    others = {k: v for k, v in r.items() if k not in _RESULT_KNOWN and not (k == "resultType" and v == "complete")}
    structured = r.get("structuredContent", _ABSENT)
    if structured is not _ABSENT and structured is not None:
        if not others and len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata and parts[0].text == json.dumps(structured):
            return StructuredOutput(structured), is_error is True
        parts.append(StructuredPart(structured, metadata={_STRUCTURED_KEY: True}))
    if others:
        parts.append(CustomPart("mcp.result", value=others))
    if len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].metadata:
        return TextOutput(parts[0].text), is_error is True
    return PartsOutput(parts), is_error is True


_ABSENT = object()


def _part(block: JsonDict) -> Part:
    kind = block.get("type")
    if type(kind) is not str:  # before the lookups below, which an unhashable value would break with a TypeError
        raise NormalizeError("missing field" if kind is None else "expected a string", "type")
    md: dict[str, JsonValue] = {}
    if kind == "text":
        _carry(block, ("type", "text"), md)
        return TextPart(text(block, "text"), metadata=md)
    if kind in _MEDIA:
        _carry(block, ("type", "data", "mimeType"), md)
        return MediaPart(_MEDIA[kind], text(block, "mimeType"), InlineBytes(b64decode(block.get("data"), "data")), metadata=md)
    if kind == "resource_link":
        _carry(block, ("uri", "name", "mimeType"), md)
        return FilePart(Uri(text(block, "uri")), name=text(block, "name"), mime_type=opt_text(block, "mimeType"), metadata=md)
    if kind == "resource":
        _carry(block, ("type", "resource"), md)
        try:
            resource = obj(block.get("resource"), "", "a resource")
            md["mcp.uri"] = text(resource, "uri")
            data: DataRef
            if "text" in resource:
                data = InlineText(text(resource, "text"))
            elif "blob" in resource:
                data = InlineBytes(b64decode(resource["blob"], "blob"))
            else:
                raise NormalizeError("a resource holds text or blob")
            for k, v in resource.items():
                if k not in ("uri", "mimeType", "text", "blob"):
                    md["mcp.resource." + k] = v
            mime = opt_text(resource, "mimeType")
        except NormalizeError as exc:
            raise exc.under("resource") from None
        return FilePart(data, mime_type=mime, metadata=md)
    return CustomPart("mcp." + kind, value=block)


def _carry(block: JsonDict, known: tuple[str, ...], md: dict[str, JsonValue]) -> None:
    for k, v in block.items():
        if k not in known:
            md["mcp." + k] = v


def result_from_output(output: ToolOutput, *, is_error: bool = False) -> JsonDict:
    """A :class:`ToolOutput` -> an MCP ``CallToolResult`` dict, as the SDK dumps one (``isError`` always written).

    Raises :class:`NormalizeError` naming the part MCP has no content block for.
    """
    if not isinstance(output, ToolOutput):
        raise wrong_type("result_from_output: output", "a ToolOutput", output)
    if type(is_error) is not bool:
        raise wrong_type("result_from_output: is_error", "True or False", is_error)
    result: JsonDict = {"content": []}
    if isinstance(output, TextOutput):
        result["content"].append({"type": "text", "text": output.text})
    elif isinstance(output, StructuredOutput):
        result["content"].append({"type": "text", "text": json.dumps(output.value)})
        result["structuredContent"] = copy_json(output.value)
    else:
        assert isinstance(output, (PartsOutput, FilesOutput))
        parts = output.parts if isinstance(output, PartsOutput) else output.files
        label = "parts" if isinstance(output, PartsOutput) else "files"
        for n, part in enumerate(parts):
            try:
                _write(part, result)
            except NormalizeError as exc:
                raise under(exc, label, f"[{n}]") from None
    result["isError"] = is_error
    result.setdefault("resultType", "complete")
    return result


def _write(part: Part, result: JsonDict) -> None:
    content: list[JsonDict] = result["content"]
    md = part.metadata
    if isinstance(part, TextPart):
        content.append(_with(md, {"type": "text", "text": part.text}))
    elif isinstance(part, MediaPart):
        content.append(_media(part))
    elif isinstance(part, FilePart):
        content.append(_file(part))
    elif isinstance(part, StructuredPart):
        if "structuredContent" in result:
            content.append({"type": "text", "text": json.dumps(part.value)})
        else:
            if md.get(_STRUCTURED_KEY) is not True:
                content.append({"type": "text", "text": json.dumps(part.value)})
            result["structuredContent"] = copy_json(part.value)
    elif isinstance(part, CustomPart) and part.kind == "mcp.result" and isinstance(part.value, dict):
        result.update({k: copy_json(v) for k, v in part.value.items() if k != "content"})
    elif isinstance(part, CustomPart) and part.kind.startswith("mcp.") and isinstance(part.value, dict):
        content.append(copy_json(part.value))  # type: ignore[arg-type]
    else:
        raise NormalizeError(f"MCP has no content block for a {type(part).__name__}{_kind(part)}")


def _kind(part: Part) -> str:
    return f" ({part.kind!r})" if isinstance(part, CustomPart) else ""


def _with(md: Any, block: JsonDict) -> JsonDict:
    for k, v in md.items():
        if k.startswith("mcp.") and k not in ("mcp.uri", _STRUCTURED_KEY) and not k.startswith("mcp.resource."):
            block.setdefault(k[4:], copy_json(v))
    return block


def _media(part: MediaPart) -> JsonDict:
    data = part.data
    if part.modality in (Modality.IMAGE, Modality.AUDIO) and isinstance(data, (InlineBytes, InlineText)):
        kind = "image" if part.modality is Modality.IMAGE else "audio"
        raw = data.value if isinstance(data, InlineBytes) else data.value.encode("utf-8")
        return _with(part.metadata, {"type": kind, "data": b64encode(raw), "mimeType": part.mime_type})
    if isinstance(data, Uri):
        return _with(part.metadata, {"type": "resource_link", "uri": data.value, "name": _name_of(data.value), "mimeType": part.mime_type})
    if isinstance(data, Handle):
        raise NormalizeError("MCP has no content block for media held as an artifact handle", "data")
    raise NormalizeError(f"MCP has no content block for inline {part.modality.value.lower()} media", "modality")


def _name_of(uri: str) -> str:
    return uri.rstrip("/").rpartition("/")[2] or uri


def _file(part: FilePart) -> JsonDict:
    data = part.data
    md = part.metadata
    if isinstance(data, Uri):
        block = {"type": "resource_link", "uri": data.value, "name": part.name or _name_of(data.value)}
        if part.mime_type is not None:
            block["mimeType"] = part.mime_type
        return _with(md, block)
    if isinstance(data, Handle):
        raise NormalizeError("MCP has no content block for a file held as an artifact handle", "data")
    uri = md.get("mcp.uri")
    if type(uri) is not str:
        from urllib.parse import quote

        uri = "file:///" + quote(part.name or "attachment")
    resource: JsonDict = {"uri": uri}
    if part.mime_type is not None:
        resource["mimeType"] = part.mime_type
    if isinstance(data, InlineText):
        resource["text"] = data.value
    else:
        assert isinstance(data, InlineBytes)
        resource["blob"] = b64encode(data.value)
    for k, v in md.items():
        if k.startswith("mcp.resource."):
            resource[k[13:]] = copy_json(v)
    return _with(md, {"type": "resource", "resource": resource})


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them."""
    return list(__all__)
