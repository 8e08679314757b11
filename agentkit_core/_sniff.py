"""What a JSON value looks like, when it is not what a reader expected.

:func:`sniff_provider` recognises the bodies of the four provider APIs the
package projects (by shape alone: no field is trusted to name its provider),
so a file of them can be pointed at the projection that reads it.
:func:`noun` names any other JSON value for a one-line message.  Both only
look: they never raise, whatever the value.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ("Provider", "sniff_provider", "noun", "an", "plural")

_ANTHROPIC = "Anthropic Messages"
_CHAT = "OpenAI Chat Completions"
_RESPONSES = "OpenAI Responses"
_GEMINI = "Gemini"

_ANTHROPIC_EVENTS = frozenset(
    ("message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta",
     "content_block_stop", "ping")
)
# Evidence in a request holding "messages" (both APIs have one).
_ANTHROPIC_ONLY_KEYS = frozenset(("system", "anthropic_version", "thinking", "stop_sequences", "top_k", "mcp_servers"))
_ANTHROPIC_BLOCKS = frozenset(
    ("tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use", "search_result")
)
_CHAT_ONLY_KEYS = frozenset(
    ("max_completion_tokens", "n", "stream_options", "modalities", "audio", "response_format", "logprobs",
     "top_logprobs", "frequency_penalty", "presence_penalty", "seed", "logit_bias", "parallel_tool_calls",
     "reasoning_effort", "prediction", "functions", "function_call")
)
_CHAT_ROLES = frozenset(("system", "developer", "tool", "function"))
_CHAT_PARTS = frozenset(("image_url", "input_audio", "file", "refusal"))


class Provider(NamedTuple):
    """A provider body: the projection module that reads it and what it is."""

    module: str
    """The module under ``agentkit_core.providers``: ``anthropic``, ``openai_chat``, ``openai_responses``, ``gemini``."""
    what: str
    """What the value is, a singular noun without article: ``"Anthropic Messages response"``."""


def sniff_provider(value: object) -> Provider | None:
    """Which provider body ``value`` (parsed JSON) is, judged by its shape; ``None`` if none.

    Recognised: requests, responses and stream events (or chunks) of the
    Anthropic Messages API, OpenAI Chat Completions, OpenAI Responses and
    Gemini ``generateContent``, and a Gemini ``Content`` (one message).
    """
    if type(value) is not dict:
        return None
    v: dict[str, Any] = value
    obj, kind = v.get("object"), v.get("type")
    if obj == "chat.completion" or ("choices" in v and obj != "chat.completion.chunk" and "model" in v):
        return Provider("openai_chat", f"{_CHAT} response")
    if obj == "chat.completion.chunk":
        return Provider("openai_chat", f"{_CHAT} stream chunk")
    if obj == "response":
        return Provider("openai_responses", f"{_RESPONSES} response")
    if isinstance(kind, str):
        if kind == "message" and "role" in v and "content" in v:
            return Provider("anthropic", f"{_ANTHROPIC} response")
        if kind in _ANTHROPIC_EVENTS:
            return Provider("anthropic", f"{_ANTHROPIC} stream event")
        if kind.startswith("response."):
            return Provider("openai_responses", f"{_RESPONSES} stream event")
    feedback = v.get("promptFeedback")
    if "candidates" in v or ("promptFeedback" in v and ("usageMetadata" in v or (type(feedback) is dict and "blockReason" in feedback))):
        return Provider("gemini", f"{_GEMINI} response")
    if type(v.get("contents")) is list:
        return Provider("gemini", f"{_GEMINI} request")
    if v.get("role") in ("user", "model") and type(v.get("parts")) is list and "kind" not in v:
        return Provider("gemini", f"{_GEMINI} content object")
    if type(v.get("messages")) is list:
        module = "anthropic" if _anthropic_request(v) else "openai_chat"
        return Provider(module, f"{_ANTHROPIC if module == 'anthropic' else _CHAT} request")
    if "input" in v and "model" in v:
        return Provider("openai_responses", f"{_RESPONSES} request")
    return None


def _anthropic_request(v: dict[str, Any]) -> bool:
    """Whether a request holding ``messages`` is Anthropic's rather than Chat Completions'."""
    if _ANTHROPIC_ONLY_KEYS.intersection(v):
        return True
    if _CHAT_ONLY_KEYS.intersection(v):
        return False
    for tool in _dicts(v.get("tools")):
        if "input_schema" in tool:
            return True
        if "function" in tool:
            return False
    for message in _dicts(v.get("messages")):
        if message.get("role") in _CHAT_ROLES or "tool_calls" in message or "tool_call_id" in message:
            return False
        for block in _dicts(message.get("content")):
            if block.get("type") in _ANTHROPIC_BLOCKS or type(block.get("source")) is dict:
                return True
            if block.get("type") in _CHAT_PARTS:
                return False
    return "max_tokens" in v  # Anthropic requires it; Chat Completions deprecated it


def _dicts(v: object) -> list[dict[str, Any]]:
    return [x for x in v if type(x) is dict] if type(v) is list else []


def noun(value: object) -> str:
    """A singular noun phrase without article for any parsed JSON value (not a provider body).

    ``"agentkit item"``, ``"JSON object with keys 'a', 'b'"``, ``"JSON number"``...
    Keys are shown as ``repr`` does, so control characters in them stay escaped.
    """
    if type(value) is dict:
        if "kind" in value and "parts" in value:
            return "agentkit item"
        if len(value) == 1:
            body = next(iter(value.values()))
            if type(body) is dict and ("part_id" in body or "part" in body):
                return "agentkit delta"
        if "role" in value and "content" in value:
            return "chat message (role and content)"
        if not value:
            return "empty JSON object"
        keys = [repr(k) if len(k) <= 30 else repr(k[:27] + "...") for k in list(value)[:5]]
        more = ", ..." if len(value) > 5 else ""
        return f"JSON object with {'key' if len(value) == 1 else 'keys'} {', '.join(keys)}{more}"
    if type(value) is list:
        return "JSON array" if value else "empty JSON array"
    if type(value) is str:
        return "JSON string"
    if value is True or value is False:
        return "JSON boolean"
    if value is None:
        return "JSON null"
    return "JSON number"


def an(phrase: str) -> str:
    """``phrase`` with its indefinite article: ``an Anthropic ...``, ``a JSON ...``."""
    return f"{'an' if phrase[:1] in 'AEIOUaeiou' else 'a'} {phrase}"


def plural(what: str) -> str:
    """The plural of a :attr:`Provider.what` noun (each ends in a word that takes ``s``)."""
    return what + "s"
