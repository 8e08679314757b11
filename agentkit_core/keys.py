"""The well-known metadata keys: facts every adapter and consumer records the same way.

The reference's wire has no field for these, so they travel in metadata under
the toolkit's own ``agentkit.*`` namespace.  Each is named once, here; the
package's top level exports them all.

The fold's keys
---------------

``INPUT_JSON_KEY``, ``INPUT_ERROR_KEY``
    A tool call's argument text while it streams, and, on a finished call
    whose text is not valid JSON, that text and the parse error (``input``
    is then ``None``).

Header keys (``HEADER_KEYS``)
    Sent early with ``SetMetadata`` so ``FoldState.snapshot()`` can show an
    open part's header: ``TOOL_CALL_ID_KEY`` and ``TOOL_NAME_KEY`` (tool
    calls; the id for tool results too), ``MODALITY_KEY`` and
    ``MIME_TYPE_KEY`` (media and files), ``FILE_NAME_KEY`` (files),
    ``CUSTOM_KIND_KEY`` (custom parts).  An open tool result keeps
    ``TOOL_NAME_KEY`` in its metadata, where it has a meaning of its own (below).

Keys adapters record
--------------------

``PROVIDER_KEY`` (``"agentkit.provider"``)
    On a part holding a provider's opaque reasoning state (a signature,
    encrypted reasoning, a thought signature): whose state it is, as the
    provider module's name (``"anthropic"``, ``"openai"``, ``"gemini"``).
    An encoder keeps its own provider's state and deliberately drops or
    converts another's, which that provider would reject.

``FINISH_REASON_KEY`` (``"agentkit.finish_reason"``)
    On an assistant item: the provider's own finish or stop reason, verbatim
    (``"end_turn"``, ``"length"``, ``"SAFETY"``), beside the normalised
    ``Item.finish_reason``.

``TOOL_NAME_KEY`` (``"agentkit.tool_name"``)
    On a ``ToolResultPart``: the name of the tool whose call it answers.
    Decoders set it when the native result names the tool or answers a call
    made earlier in the same request, and ``ToolResultPart.failure`` sets it
    from its call; encoders of providers that match results by name (Gemini's
    ``functionResponse``) read it, or find the call earlier in the transcript.

``INVENTED_ID_KEY`` (``"agentkit.invented_id"``)
    ``True`` on a part whose id the adapter made up because the provider sent
    none (a Gemini ``functionCall`` without ``id``, a legacy OpenAI
    ``function_call``, and the results that answer them).  An encoder whose
    API needs an id on every call (Anthropic, both OpenAI APIs) sends an
    invented id as it sends any other, so the call and its result stay
    linked; one whose API accepts calls without ids (Gemini) withholds it.

``STREAM_CUT_KEY`` (``"agentkit.stream_cut"``)
    On an assistant item whose stream stopped before its provider's final
    event (cancelled, a transport failure, a body cut short): an object
    ``{"dropped_calls": [...]}`` listing the tool calls whose arguments were
    cut off, each ``{"id", "name", "arguments"}`` (the argument text that
    arrived), which the item does not hold: a call the client cannot run, and
    one the next request must not send.  When the stream was cut while a
    server-side tool ran, ``"dropped_server_calls"`` lists those calls too,
    each ``{"type", "id", "name"}`` (the fields the native call had): an
    Anthropic ``server_tool_use`` or ``mcp_tool_use`` with no result block, a
    Responses hosted-tool item (``web_search_call``...) never done.  Only the
    server can finish them, so the item does not hold them either.  A stream
    decoder's ``close()`` sets the key; so does ``finish()`` when the final
    event never came.  A provider's ``complete()`` (and ``stream()``) adds
    ``"error"``, saying why the stream stopped when it did not stop on purpose
    (a broken connection, a body cut short, an event that is not the
    provider's, named with its number).

``NOT_STREAMED_KEY`` (``"agentkit.not_streamed"``)
    On an assistant item that ``complete()`` or ``stream()`` asked to stream
    and the server answered whole (a JSON body: some gateways and compatible
    servers ignore ``stream: true``): the media type it answered with
    (``"application/json"``).  The item is the body's, decoded as a
    non-streaming answer.
"""

from __future__ import annotations

__all__ = (
    "INPUT_JSON_KEY",
    "INPUT_ERROR_KEY",
    "TOOL_CALL_ID_KEY",
    "TOOL_NAME_KEY",
    "MODALITY_KEY",
    "MIME_TYPE_KEY",
    "FILE_NAME_KEY",
    "CUSTOM_KIND_KEY",
    "HEADER_KEYS",
    "PROVIDER_KEY",
    "FINISH_REASON_KEY",
    "INVENTED_ID_KEY",
    "STREAM_CUT_KEY",
    "NOT_STREAMED_KEY",
)

#: A tool call's argument text, while open or when it is not valid JSON.
INPUT_JSON_KEY = "agentkit.input_json"
#: The parse error of a tool call's argument text.
INPUT_ERROR_KEY = "agentkit.input_error"

#: Header key: the id of an open tool call (or of the call an open tool result answers).
TOOL_CALL_ID_KEY = "agentkit.tool_call_id"
#: Header key: the name of an open tool call; on a ``ToolResultPart``, the name of the tool it answers.
TOOL_NAME_KEY = "agentkit.tool_name"
#: Header key: an open media part's :class:`~.content.Modality` wire name (``"Image"``).
MODALITY_KEY = "agentkit.modality"
#: Header key: an open media or file part's MIME type.
MIME_TYPE_KEY = "agentkit.mime_type"
#: Header key: an open file part's name.
FILE_NAME_KEY = "agentkit.file_name"
#: Header key: an open custom part's kind.
CUSTOM_KIND_KEY = "agentkit.custom_kind"
#: Every header key: ``snapshot()`` renders them as an open part's fields, not as its metadata.
HEADER_KEYS = (TOOL_CALL_ID_KEY, TOOL_NAME_KEY, MODALITY_KEY, MIME_TYPE_KEY, FILE_NAME_KEY, CUSTOM_KIND_KEY)

#: Whose opaque reasoning state a part holds: ``"anthropic"``, ``"openai"``, ``"gemini"``.
PROVIDER_KEY = "agentkit.provider"
#: An assistant item's raw provider finish reason, verbatim.
FINISH_REASON_KEY = "agentkit.finish_reason"
#: ``True`` on a part whose id the adapter invented (the provider sent none); sent only to APIs that need ids.
INVENTED_ID_KEY = "agentkit.invented_id"
#: On an item whose stream stopped before its final event: ``{"dropped_calls": [...]}``, the calls cut off
#: (and ``"dropped_server_calls"``, the server-side calls left unfinished, when there were any).
STREAM_CUT_KEY = "agentkit.stream_cut"
#: On an item a streaming request got whole (the server did not stream): the media type it came as.
NOT_STREAMED_KEY = "agentkit.not_streamed"


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
