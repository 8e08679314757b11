"""Private to :mod:`agentkit_core.providers`: the providers by name, ``model="<provider>:<model>"``.

:func:`http_request`, :func:`complete` and :func:`acomplete` take the
provider modules' keyword arguments; the name before the colon picks the
registry row (:func:`.._registry.endpoint`), whose wire's functions run with
the row's base URL, key and fields (:mod:`._common.endpoints`).  The wire's
module is imported on the first call that needs it.
"""

from __future__ import annotations

from importlib import import_module
from os import environ
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ._common.complete import AsyncTurnStream, Provider, TurnCall, TurnStream, acomplete_turn, complete_turn
from ._common.endpoints import resolved, split

if TYPE_CHECKING:
    from .. import CancellationController, CancellationHandle, Delta, Item, ModelSettings, TurnCancellation
    from ..http import Request, Transport
    from ._common.tools import Choice, Tools

__all__ = ("http_request", "complete", "acomplete", "stream", "astream", "turn_request")

_WIRES: dict[str, ModuleType] = {}


def _wire(name: str) -> ModuleType:
    """The wire's provider module, imported on first use."""
    module = _WIRES.get(name)
    if module is None:
        module = _WIRES[name] = import_module(f"{__package__}.{name}")
    return module


def _built(items: Sequence[Item], model: str, api_key: str | None, base_url: str | None, stream: bool, tools: Tools,
           tool_choice: Choice, settings: ModelSettings | None, headers: Mapping[str, str] | None, native: dict[str, object],
           environ: Mapping[str, str] | None) -> Request:
    """The wire's ``http_request`` for a call by name, with what the name's row resolves."""
    row, name = split(model)
    api_key, base_url, headers, settings = resolved(row, name, api_key, base_url, headers, settings, native, environ)
    request: Request = _wire(row.wire).http_request(
        items, model=name, api_key=api_key, base_url=base_url, stream=stream, tools=tools, tool_choice=tool_choice,
        settings=settings, headers=headers, **native)
    return request


def http_request(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = False,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    **native: Any,
) -> Request:
    """The request of a turn on ``items`` for ``model="<provider>:<model>"`` (``"groq:llama-3.3-70b-versatile"``).

    The name before the colon is a wire (``anthropic``, ``openai-chat``,
    ``openai-responses``, ``gemini``) or a preset (``groq``, ``ollama``,
    ``azure``...: :data:`ENDPOINTS`); the wire's ``http_request`` builds it
    with the same arguments, at the row's base URL unless ``base_url`` is
    given, with what the server reads differently (:attr:`Endpoint.fields`).
    Pure: it reads no environment, so a key not given is not sent.  Azure's
    names take ``base_url`` (the resource's endpoint), ``api_version`` and
    ``azure_ad_token`` too.  An unknown name, or a model without its
    ``<provider>:``, raises ``ValueError``.
    """
    return _built(items, model, api_key, base_url, stream, tools, tool_choice, settings, headers, native, None)


#: Each name's turn: its wire's functions and its row, made on first use.
_TURNS: dict[str, Any] = {}


def turn_request(items: Sequence[Item], *, model: str, api_key: str | None = None, base_url: str | None = None,
                 stream: bool = False, tools: Tools = (), tool_choice: Choice = None, settings: ModelSettings | None = None,
                 headers: Mapping[str, str] | None = None, **native: Any) -> Request:
    """The request :func:`complete` would send for these arguments, the key and base URL read from the environment as
    it reads them (the command line checks a turn with it before sending); ``ValueError`` where ``complete`` refuses."""
    return _built(items, model, api_key, base_url, stream, tools, tool_choice, settings, headers, native, environ)


def _provider(model: str) -> tuple[Any, str]:
    """The turn driver's provider for the name of ``model`` (its wire's functions, its row) and the model."""
    row, name = split(model)
    provider = _TURNS.get(row.name)
    if provider is None:
        module = _wire(row.wire)
        provider = _TURNS[row.name] = Provider(module.http_request, module.stream_decoder, module.items_from_response, row)
    return provider, name


def complete(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> Item:
    """One turn on ``items`` with ``model="<provider>:<model>"``: the wire's ``complete``, by name.

    The arguments are the provider modules' ``complete``'s.  With no
    ``api_key``, the name's key variables are read in order
    (``GROQ_API_KEY``...); with no ``base_url``, its base-URL variable
    (``GROQ_BASE_URL``, ``OPENAI_BASE_URL``...), else its default.  A hosted
    provider with no key anywhere raises ``ValueError`` naming the variables,
    before anything is sent; a local server (``ollama``, ``vllm``,
    ``lmstudio``) needs none.  Azure's names read ``AZURE_OPENAI_ENDPOINT``,
    ``AZURE_OPENAI_API_KEY`` or ``AZURE_OPENAI_AD_TOKEN`` and
    ``OPENAI_API_VERSION`` as the openai SDK's ``AzureOpenAI`` does.
    """
    provider, name = _provider(model)
    return complete_turn(provider, items, TurnCall(name, api_key, base_url, stream, tools, tool_choice, settings, headers,
                                                   native, on_text, on_delta, cancel, transport, timeout, retries))


async def acomplete(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> Item:
    """:func:`complete` for asyncio, by name: the wire's ``acomplete`` with the same arguments."""
    provider, name = _provider(model)
    return await acomplete_turn(provider, items, TurnCall(name, api_key, base_url, stream, tools, tool_choice, settings,
                                                          headers, native, on_text, on_delta, cancel, transport, timeout,
                                                          retries))


def stream(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> TurnStream:
    """A turn read as it arrives, by name: the wire's ``stream`` with the same arguments (the key and base URL read
    as :func:`complete` reads them, when the reading starts)."""
    provider, name = _provider(model)
    return TurnStream(provider, items, TurnCall(name, api_key, base_url, stream, tools, tool_choice, settings, headers,
                                                native, on_text, on_delta, cancel, transport, timeout, retries))


def astream(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = True,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    on_text: Callable[[str], object] | None = None,
    on_delta: Callable[[Delta], object] | None = None,
    cancel: TurnCancellation | CancellationHandle | CancellationController | None = None,
    transport: Transport | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    **native: Any,
) -> AsyncTurnStream:
    """:func:`stream` for asyncio, by name: the wire's ``astream`` with the same arguments."""
    provider, name = _provider(model)
    return AsyncTurnStream(provider, items, TurnCall(name, api_key, base_url, stream, tools, tool_choice, settings,
                                                     headers, native, on_text, on_delta, cancel, transport, timeout,
                                                     retries))
