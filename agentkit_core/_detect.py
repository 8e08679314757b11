"""Which provider a body is, by its shape alone: in the bottom layer, below everything that asks.

:func:`sniff` recognises the requests, responses and stream events of the
provider APIs the package projects (no field is trusted to name its
provider); :func:`agentkit_core.providers.detect` is its public face, the
projections use it to refuse another provider's body, the transcript reader
to say what a file that holds no items looks like, and the command line to
point a file at the projection that reads it.  It only looks: it never
raises, whatever the value.  It reads nothing but the provider registry
(plain data), so none of its users loads a provider to ask.
"""

from __future__ import annotations

from typing import NamedTuple

from ._registry import PROVIDERS
from .jsontext import JsonValue

__all__ = ("Provider", "sniff", "NAMES", "MESSAGES_APIS", "CHUNKS_ARE_RESPONSES")

#: Each projection module's API, as messages name it (the registry's display names).
NAMES = {row.module: row.display for row in PROVIDERS}
_ANTHROPIC, _CHAT, _RESPONSES, _GEMINI, _BEDROCK = (
    NAMES[m] for m in ("anthropic", "openai_chat", "openai_responses", "gemini", "bedrock")
)
#: The providers whose requests both hold ``messages``: a request :func:`sniff` gives one may be the other's.
MESSAGES_APIS = frozenset(("anthropic", "openai_chat"))
#: The providers whose stream chunks are whole responses (Gemini's): several responses in a row are a stream.
CHUNKS_ARE_RESPONSES = frozenset(("gemini",))

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
#: Bedrock Converse: the keys of its requests no other API has, its untyped content blocks' keys, its stream events.
_BEDROCK_ONLY_KEYS = frozenset(
    ("inferenceConfig", "toolConfig", "additionalModelRequestFields", "additionalModelResponseFieldPaths",
     "guardrailConfig", "promptVariables", "requestMetadata", "performanceConfig")
)
_BEDROCK_BLOCKS = frozenset(
    ("text", "image", "document", "video", "toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent",
     "citationsContent", "searchResult")
)
_BEDROCK_EVENTS = frozenset(
    ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata",
     "internalServerException", "modelStreamErrorException", "validationException", "throttlingException",
     "serviceUnavailableException")
)
#: Roles only Chat Completions gives a message ("system" is both APIs': Anthropic has mid-conversation system messages,
#: though with a block list, never a string).
_CHAT_ROLES = frozenset(("developer", "tool", "function"))
_CHAT_PARTS = frozenset(("image_url", "input_audio", "file", "refusal"))


class Provider(NamedTuple):
    """A provider body: the projection module that reads it and what it is."""

    module: str
    """The module under ``agentkit_core.providers``: ``anthropic``, ``openai_chat``, ``openai_responses``, ``gemini``."""
    what: str
    """What the value is, a singular noun without article: ``"Anthropic Messages response"``."""
    sure: bool = True
    """False for a request holding ``messages`` with nothing that tells the two APIs apart (a guess)."""

    @property
    def request(self) -> bool:
        """Whether the value is a request body."""
        return self.what.endswith(" request")

    @property
    def message(self) -> bool:
        """Whether the value is one message (a Gemini ``Content``), neither a request nor a response."""
        return self.what.endswith(" content object")


def sniff(value: object) -> Provider | None:
    """Which provider body ``value`` (parsed JSON) is, judged by its shape; ``None`` if none.

    Recognised: requests, responses and stream events (or chunks) of the
    Anthropic Messages API, OpenAI Chat Completions, OpenAI Responses and
    Gemini ``generateContent``, and a Gemini ``Content`` (one message).
    """
    if type(value) is not dict:
        return None
    v: dict[str, JsonValue] = value
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
    if type(v.get("output")) is dict and "stopReason" in v:
        return Provider("bedrock", f"{_BEDROCK} response")
    if len(v) == 1 and type(next(iter(v.values()))) is dict and next(iter(v)) in _BEDROCK_EVENTS:
        return Provider("bedrock", f"{_BEDROCK} stream event")
    feedback = v.get("promptFeedback")
    if "candidates" in v or ("promptFeedback" in v and ("usageMetadata" in v or (type(feedback) is dict and "blockReason" in feedback))):
        return Provider("gemini", f"{_GEMINI} response")
    if type(v.get("contents")) is list:
        return Provider("gemini", f"{_GEMINI} request")
    if v.get("role") in ("user", "model") and type(v.get("parts")) is list and "kind" not in v:
        return Provider("gemini", f"{_GEMINI} content object")
    if type(v.get("messages")) is list:
        told = _messages_api(v)
        module = told or ("anthropic" if "max_tokens" in v else "openai_chat")  # Anthropic requires it; Chat deprecated it
        return Provider(module, f"{NAMES[module]} request", told is not None)
    if "input" in v and "model" in v:
        return Provider("openai_responses", f"{_RESPONSES} request")
    return None


def _messages_api(v: dict[str, JsonValue]) -> str | None:
    """Whose a request holding ``messages`` is, Anthropic's or Chat Completions', by what only one API has; else ``None``."""
    if _BEDROCK_ONLY_KEYS.intersection(v) or _untyped_blocks(v):
        return "bedrock"
    # The messages' shape decides before a single key does: DeepSeek's Chat requests carry "thinking", Together's
    # "top_k": null, beside messages only Chat Completions takes.
    by_messages = _messages_shape(v)
    if by_messages is not None:
        return by_messages
    if _ANTHROPIC_ONLY_KEYS.intersection(v):
        return "anthropic"
    if _CHAT_ONLY_KEYS.intersection(v):
        return "openai_chat"
    for tool in _dicts(v.get("tools")):
        if "input_schema" in tool:
            return "anthropic"
        if "function" in tool:
            return "openai_chat"
    return None


def _messages_shape(v: dict[str, JsonValue]) -> str | None:
    """Whose a request is by its messages alone: a role, a field or a content block only one API has; else ``None``."""
    for message in _dicts(v.get("messages")):
        role = _text(message.get("role"))
        chat_system = role == "system" and type(message.get("content")) is str  # Anthropic's system messages hold blocks
        if role in _CHAT_ROLES or chat_system or "tool_calls" in message or "tool_call_id" in message:
            return "openai_chat"
        for block in _dicts(message.get("content")):
            kind = _text(block.get("type"))
            if kind in _ANTHROPIC_BLOCKS or type(block.get("source")) is dict:
                return "anthropic"
            if kind in _CHAT_PARTS:
                return "openai_chat"
    return None


def _untyped_blocks(v: dict[str, JsonValue]) -> bool:
    """Whether a request's system or message content holds Bedrock's blocks: no ``type``, one key Converse names."""
    blocks = _dicts(v.get("system")) + [b for m in _dicts(v.get("messages")) for b in _dicts(m.get("content"))]
    return any("type" not in b and len(b) == 1 and next(iter(b)) in _BEDROCK_BLOCKS for b in blocks)


def _dicts(v: object) -> list[dict[str, JsonValue]]:
    return [x for x in v if type(x) is dict] if type(v) is list else []


def _text(v: object) -> str | None:
    """``v`` if it is a string (what a set of names can be asked about), else ``None``."""
    return v if type(v) is str else None
