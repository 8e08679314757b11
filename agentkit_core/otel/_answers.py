"""What an answer says about the call, and which items are system instructions: the span half of :mod:`.otel`."""

from __future__ import annotations

from .. import _check as check
from .._registry import ENDPOINTS, PROVIDERS, provider_info
from ..item import Item, ItemKind
from ..keys import FINISH_REASON_KEY
from ..usage import Usage
from ._messages import finish_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import List, Union

    #: A span attribute value as OpenTelemetry takes it.
    AttributeValue = Union[str, bool, int, float, List[str]]

__all__ = ("OPERATIONS", "OTHER_ERROR", "PROVIDER_NAMES", "error_type", "response_attributes", "split")

#: The wire of each name a model is called by (``"vertex"``: Gemini's row), beside each provider module's own row.
_WIRES = {**{row.name: provider_info(row.wire) for row in ENDPOINTS}, **{row.module: row for row in PROVIDERS}}
#: This package's provider modules and the names models are called by -> the conventions' ``gen_ai.provider.name``
#: (from the registry: ``"vertex"`` -> ``"gcp.vertex_ai"``).
PROVIDER_NAMES: dict[str, str] = {**{row.name: row.otel_name for row in ENDPOINTS}, **{row.module: row.otel_name for row in PROVIDERS}}
#: The same -> the ``gen_ai.operation.name`` of an inference call (a name's wire's).
OPERATIONS: dict[str, str] = {name: row.otel_operation for name, row in _WIRES.items()}
#: Where the provider modules keep the model that answered, each key once, in the registry's order.
_MODEL_KEYS = tuple(dict.fromkeys(row.model_key for row in PROVIDERS))
#: The registry's rows by module, and by ``gen_ai.provider.name`` (the first row of each) for a name given as is.
_ROWS = {**{row.otel_name: row for row in reversed(PROVIDERS)}, **_WIRES}
#: The well-known fallback of ``error.type``.
OTHER_ERROR = "_OTHER"


def split(items: tuple[Item, ...], module: str) -> tuple[list[Item], list[Item]]:
    """``(system, conversation)``: the items the provider's API takes apart from the conversation, and the rest.

    The registry row says whether the API takes system and developer items
    apart (``system_apart``), and which of them it keeps in place (those with
    a ``<namespace>role``); a provider name of the conventions' that is no
    row's takes them apart when it is Google's (``gcp.*``), as Gemini does.
    An item a request held in the Responses API's ``instructions`` is apart
    for every provider.
    """
    row = _ROWS.get(module)
    system: list[Item] = []
    conversation: list[Item] = []
    for item in items:
        if item.metadata.get("openai.request_field") == "instructions":
            apart = True
        elif item.kind is ItemKind.SYSTEM or item.kind is ItemKind.DEVELOPER:
            if row is None:
                apart = module.startswith("gcp.")
            else:
                apart = row.system_apart and row.namespace + "role" not in item.metadata
        else:
            apart = False
        (system if apart else conversation).append(item)
    return system, conversation


def response_attributes(answers: tuple[Item, ...]) -> dict[str, AttributeValue]:
    """Response model and id, finish reasons and token counts of the answer items."""
    found: dict[str, AttributeValue] = {}
    if not answers:
        return found
    for key in _MODEL_KEYS:
        model = next((a.metadata.get(key) for a in answers if isinstance(a.metadata.get(key), str)), None)
        if isinstance(model, str):
            found["gen_ai.response.model"] = model
            break
    first = answers[0]
    if first.id is not None:
        found["gen_ai.response.id"] = first.id.value
    found["gen_ai.response.finish_reasons"] = [finish_name(a.finish_reason) for a in answers]
    usage = sum((a.usage for a in answers if a.usage is not None), Usage())
    tokens = usage.tokens
    if tokens is not None:
        found["gen_ai.usage.input_tokens"] = tokens.input_tokens
        found["gen_ai.usage.output_tokens"] = tokens.output_tokens
        for key, count in (
            ("gen_ai.usage.cache_read.input_tokens", tokens.cached_input_tokens),
            ("gen_ai.usage.cache_creation.input_tokens", tokens.cache_write_input_tokens),
            ("gen_ai.usage.reasoning.output_tokens", tokens.reasoning_tokens),
        ):
            if count is not None:
                found[key] = count
    return found


def error_type(answers: tuple[Item, ...], given: str | None, owner: str) -> str | None:
    """``error.type``: the caller's, else the first answer that ended in an error or a cancellation."""
    if given is not None:
        return check.string(given, owner, "error_type")
    for item in answers:
        reason = item.finish_reason
        if reason is not None and reason.kind == "Cancelled":
            return "cancelled"
        if reason is not None and reason.kind == "Error":
            return provider_error(item)
    return None


def provider_error(item: Item) -> str:
    """The provider's code for the error an answer ended with: ``<provider>.error``'s, the raw finish reason, or ``_OTHER``."""
    for key, value in item.metadata.items():
        if key.endswith(".error") and isinstance(value, dict):
            for field in ("code", "status", "type"):
                code = value.get(field)
                if isinstance(code, str) and code:
                    return code
    raw = item.metadata.get(FINISH_REASON_KEY)
    if isinstance(raw, str) and raw and raw not in ("error", "failed"):
        return raw
    return OTHER_ERROR
