"""A turn's assistant item and its usage, tool results named from their calls, and ids for calls sent without one."""

from __future__ import annotations

import os
from typing import Iterable

from ... import (
    FINISH_REASON_KEY,
    TOOL_NAME_KEY,
    FinishReason,
    Item,
    ItemKind,
    JsonValue,
    MessageId,
    Part,
    Timestamp,
    TokenUsage,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from .fields import obj_or_empty
from .native import JsonDict

#: The end of the wire's ``u64`` range.  The core's checks hold the same bound privately; a projection, which
#: uses only the package's public names as an outside adapter would, states the wire's fact itself.
U64_END = 1 << 64

def count(v: object) -> int | None:
    """``v`` if it is a token count (an exact ``int``, ``0 <= v < 2**64``), else ``None``."""
    return v if type(v) is int and 0 <= v < U64_END else None


def make_usage(
    native: JsonDict,
    key: str,
    input_tokens: int | None,
    output_tokens: int | None,
    *,
    reasoning: int | None = None,
    cached: int | None = None,
    cache_write: int | None = None,
) -> Usage:
    """The :class:`Usage` of a checked native usage object, kept verbatim in its metadata under ``key``.

    The counts are the caller's, already in the package's convention (input
    includes cache reads and writes, output includes reasoning); ``None``
    input or output means the provider reported no token counts.
    """
    tokens = None
    if input_tokens is not None and output_tokens is not None:
        tokens = TokenUsage(
            input_tokens,
            output_tokens,
            reasoning_tokens=reasoning,
            cached_input_tokens=cached,
            cache_write_input_tokens=cache_write,
        )
    return Usage(tokens, metadata={key: native})  # the constructor keeps a copy


def openai_usage(usage: JsonDict, key: str, input_field: str, output_field: str) -> Usage:
    """The usage object of both OpenAI APIs (checked by :func:`native_object`), whose fields differ only in name.

    ``input_field`` (``prompt_tokens``, ``input_tokens``) includes cache reads
    and writes, broken out as ``cached_tokens`` and ``cache_write_tokens`` in
    ``<input_field>_details``; ``output_field`` includes the reasoning
    tokens, ``reasoning_tokens`` of ``<output_field>_details``.  A flat
    ``cached_tokens`` (Together's) is read when the details have none.  The
    object is kept verbatim under ``key``.
    """
    details_in, details_out = obj_or_empty(usage, input_field + "_details"), obj_or_empty(usage, output_field + "_details")
    return make_usage(
        usage,
        key,
        count(usage.get(input_field)),
        count(usage.get(output_field)),
        reasoning=count(details_out.get("reasoning_tokens")),
        cached=count(details_in.get("cached_tokens", usage.get("cached_tokens"))),  # Together's is flat
        cache_write=count(details_in.get("cache_write_tokens")),
    )


def make_item(
    parts: Iterable[Part],
    metadata: dict[str, JsonValue],
    *,
    message_id: object = None,
    usage: Usage | None = None,
    finish: tuple[FinishReason | None, str | None] = (None, None),
    created_at: Timestamp | None = None,
) -> Item:
    """A turn's ASSISTANT item: ``finish`` is the normalised finish reason and the raw one.

    The raw reason goes in ``agentkit.finish_reason``; ``message_id`` is the
    item's id when it is a string.
    """
    reason, raw = finish
    if raw is not None:
        metadata[FINISH_REASON_KEY] = raw
    return Item(
        ItemKind.ASSISTANT,
        list(parts),
        id=MessageId(message_id) if isinstance(message_id, str) else None,
        metadata=metadata,
        usage=usage,
        finish_reason=reason,
        created_at=created_at,
    )


def name_results(items: list[Item]) -> list[Item]:
    """``items`` with ``agentkit.tool_name`` on every tool result that lacks it and answers a call made earlier."""
    names: dict[str, str] = {}
    out = []
    for item in items:
        parts = []
        for part in item.parts:
            if isinstance(part, ToolCallPart):
                names[part.id.value] = part.name
            elif isinstance(part, ToolResultPart) and TOOL_NAME_KEY not in part.metadata and part.call_id.value in names:
                part = part.with_metadata(part.metadata.merged({TOOL_NAME_KEY: names[part.call_id.value]}))
            parts.append(part)
        out.append(item if parts == list(item.parts) else item.with_parts(parts))
    return out




def invent_id(prefix: str) -> str:
    """A fresh id for a call the provider sent without one: ``prefix`` and 24 random hex digits."""
    return prefix + os.urandom(12).hex()
