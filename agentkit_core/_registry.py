"""The provider registry: one row per provider API, the one place that names them.

Everything outside a provider's folder that needs to know which providers
exist, or what they are called, reads :data:`PROVIDERS`: detection, the
OpenTelemetry export, the command line and the tests.  The row also says what
the API can take and give (:class:`Capabilities`): which portable
:class:`~agentkit_core.ModelSettings` fields it has a native field for, the
effort levels it knows, which part kinds a request can carry and an answer can
hold, and whether it runs tools on the server.  The settings' refusals read
it, so a capability is stated once.  Plain data: it imports only the words of its errors
(``agentkit_core._error_text``), so reading it loads no projection.

Adding a provider
-----------------

1. Its folder, ``providers/<module>/``: ``__init__.py`` exporting the
   functions every projection has (its docstring a summary, a link to its
   mapping table in ``docs/<module>.md`` and how it keeps the shared rules), beside the
   role modules ``_request``, ``_response``, ``_stream``, ``_keys``, ``_tools``,
   ``_held``, ``_http`` (whose ``BASE_URL`` is read from the row),
   ``_settings`` (the portable settings in the API's fields, refusing what the
   row's ``settings`` leaves out) and ``_complete``.
2. Its row here, in :data:`PROVIDERS`: names, key variables, base URL,
   metadata namespace, whether system instructions go apart, its
   ``stream_format`` (a key of :data:`STREAM_FORMATS`), and capabilities: the
   part kinds as its mapping table gives them, its ``tool_modes``, ``call_ids``.
3. Its shapes in ``agentkit_core/_detect.py`` (below its users), so
   detection, the refusals of another provider's body and the command line
   know its bodies.
4. Its recordings under ``tests/payloads/<module>/``, and its entry in each
   table of per-provider expectations the tests keep (``tests/test_registry.py``
   lists them and fails while one lacks the row).

The tests then check the rest: that every folder has a row and every row a
folder (``tests/test_registry.py``), that the folder has the role modules and
the same public functions, with the same parameters, as the others
(``tests/test_public_surface.py``), that its recordings decode to part
kinds its row lists and the kinds it says a request carries are sent, and that
it keeps the rules every projection keeps (``tests/test_providers_cross.py``,
which runs every test there for each row).

Adding a preset
---------------

A server that speaks one of the wires (an OpenAI-compatible server speaks
Chat Completions) is a row, not a folder: one ``_preset(...)`` line in
:data:`PRESETS`, with its name (what ``model="<name>:<model>"`` and the
command line's ``--provider`` take), display name, base URL from its own
documentation and OpenTelemetry name, and only what differs from the
defaults: the wire (Chat Completions), the key in ``<NAME>_API_KEY`` and the
base URL in ``<NAME>_BASE_URL``, the wire's capabilities, a key required
(``key_required=False`` for a local server), ``fields`` for the settings its
server reads from another field than the wire writes (``max_tokens`` for
``max_completion_tokens``).  What a server puts elsewhere in its answers
(Groq's ``x_groq.usage``, Together's flat ``cached_tokens``) the wire's
decoders read for every server, since an answer does not say who sent it.
A server addressed or signed otherwise takes a new :data:`AUTHS` value and
its branch in ``providers/_common/endpoints.py`` (Azure OpenAI's is there).

The row's ``namespace`` is what the shared code reads to tell the
projections' metadata apart (one nested in another's, as ``openai.chat.`` is
in ``openai.``, included), and ``system_apart`` what the OpenTelemetry export
reads to report system instructions.  One thing no test can ask of a fifth:
if its API runs server tools, their blocks become OpenTelemetry's server tool
parts in ``otel/_servers.py`` (without it they export as generic parts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Tuple, cast

from ._error_text import wrong_type as _wrong_type

__all__ = ("Capabilities", "ProviderInfo", "PROVIDERS", "STREAM_FORMATS", "provider_info", "capabilities", "Endpoint", "PRESETS",
           "ENDPOINTS", "endpoint", "AUTHS", "AZURE_DEPLOYMENTS",
           "VERTEX_PUBLISHERS")


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a provider API can take and give, as the projection maps it."""

    settings: frozenset[str]
    """The :class:`~agentkit_core.ModelSettings` fields the API has a field for; the others are refused."""
    reasoning_efforts: Tuple[str, ...]
    """The ``reasoning_effort`` levels the API knows, as it spells them."""
    parts_in: frozenset[str]
    """The part kinds (:class:`~agentkit_core.PartKind` values) ``request_from_items`` can send, in some native form
    (a ``StructuredPart`` as its JSON text); the mapping table says which parts of a kind it drops or refuses."""
    parts_out: frozenset[str]
    """The part kinds the API's answers (responses and streams) decode to, as the mapping table maps what it sends."""
    server_tools: bool
    """Whether the API runs tools itself (web search, code execution) and reports their calls (as custom parts)."""
    tool_modes: frozenset[str] = frozenset(("auto", "none", "required", "tool"))
    """The :class:`~agentkit_core.ToolChoice` modes the API has a native choice for; the others are refused
    (Bedrock Converse has no ``"none"``)."""
    call_ids: bool = False
    """Whether every tool call the API answers with carries its id (else some get one invented: Gemini's)."""

    def __post_init__(self) -> None:
        _strings(self, "tool_modes", frozenset, "a frozenset of strings")
        _strings(self, "settings", frozenset, "a frozenset of strings")
        _strings(self, "reasoning_efforts", tuple, "a tuple of strings")
        for field in ("parts_in", "parts_out"):
            unknown = sorted(_strings(self, field, frozenset, "a frozenset of part kinds") - _ALL_KINDS)
            if unknown:
                raise ValueError(f"Capabilities.{field}: {unknown[0][:40]!r} is no part kind ({', '.join(sorted(_ALL_KINDS))})")
        if type(self.server_tools) is not bool:
            raise _wrong_type("Capabilities.server_tools", "a boolean", self.server_tools)


#: Each stream format a row may name -> the content type of its bodies (what a streaming request accepts).
STREAM_FORMATS = {
    "sse": "text/event-stream",
    "aws-eventstream": "application/vnd.amazon.eventstream",
    "ndjson": "application/x-ndjson",
}


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """One provider API: its module and every name the package uses for it."""

    module: str
    """The module under ``agentkit_core.providers`` (``"anthropic"``)."""
    display: str
    """The API's name for people (``"Anthropic Messages"``)."""
    otel_name: str
    """The OpenTelemetry GenAI ``gen_ai.provider.name`` (``"anthropic"``, ``"openai"``, ``"gcp.gemini"``)."""
    otel_operation: str
    """The ``gen_ai.operation.name`` of an inference call (``"chat"``, ``"generate_content"``)."""
    key_variables: Tuple[str, ...]
    """The environment variables an API key may be in, in the order they are read."""
    cli: str
    """The command line's spelling (``--from openai-chat``, ``--provider openai-chat``)."""
    base_url: str
    """The default endpoint ``http_request`` sends to."""
    model_key: str
    """The metadata key of an answer that names the model that answered."""
    namespace: str
    """The prefix of the metadata keys and custom part kinds the projection owns (``"anthropic."``, ``"openai.chat."``);
    one nested in another's (Chat's in the Responses API's ``"openai."``) is not the outer one's."""
    system_apart: bool
    """Whether the API takes system and developer items apart from the conversation, in a request field of their own
    (Anthropic's ``system``, Gemini's ``systemInstruction``), but for one whose ``<namespace>role`` keeps it in place."""
    transcript_fields: Tuple[str, ...]
    """A request's fields the transcript writes (a native field of that name would replace it)."""
    capabilities: Capabilities
    """What the API can take and give."""
    base_url_variable: str = ""
    """The environment variable ``complete()`` reads a base URL from when none is given (``"OPENAI_BASE_URL"``), ``""``
    for none."""
    stream_format: str = "sse"
    """How its streams are framed, a key of :data:`STREAM_FORMATS`: ``"sse"`` (server-sent events),
    ``"aws-eventstream"`` (AWS's binary event stream: Bedrock), ``"ndjson"`` (newline-delimited JSON, for a later
    provider).  The request's ``Accept`` header, the turn driver and the tests' loopback servers read it."""
    signed_by: str = ""
    """The credentials that stand in for a key when none is set (``"aws"``: AWS's credential chain, which
    ``http_request`` signs with), ``""`` for an API that takes a key only.  The command line reads it."""

    def __post_init__(self) -> None:
        if self.stream_format not in STREAM_FORMATS:
            raise ValueError(f"ProviderInfo.stream_format: expected one of {', '.join(STREAM_FORMATS)}, found {str(self.stream_format)[:40]!r}")
        for field in ("module", "display", "otel_name", "otel_operation", "cli", "base_url", "model_key", "namespace"):
            value = getattr(self, field)
            if not isinstance(value, str):
                raise _wrong_type(f"ProviderInfo.{field}", "a string", value)
            if not value:
                raise ValueError(f"ProviderInfo.{field}: expected a name, found an empty string")
        if not self.namespace.endswith("."):
            raise ValueError(f"ProviderInfo.namespace: expected a prefix ending in '.', found {self.namespace[:40]!r}")
        if type(self.system_apart) is not bool:
            raise _wrong_type("ProviderInfo.system_apart", "a boolean", self.system_apart)
        _strings(self, "key_variables", tuple, "a tuple of strings")
        _strings(self, "transcript_fields", tuple, "a tuple of strings")
        if not isinstance(self.capabilities, Capabilities):
            raise _wrong_type("ProviderInfo.capabilities", "a Capabilities", self.capabilities)


def _strings(row: object, field: str, container: type, expected: str) -> frozenset[str]:
    """The strings of ``row.field`` (a ``container`` of strings), or the ``TypeError`` naming the field."""
    value = getattr(row, field)
    if type(value) is not container or not all(isinstance(v, str) for v in cast("Iterable[object]", value)):
        raise _wrong_type(f"{type(row).__name__}.{field}", expected, value)
    return frozenset(cast("Iterable[str]", value))


_COMMON_SETTINGS = frozenset(("max_tokens", "temperature", "top_p", "reasoning_effort", "output_schema"))
#: Every part kind: each projection sends all eight (its own reasoning and custom parts, a structured value as text).
_ALL_KINDS = frozenset(("Text", "Media", "File", "Structured", "Reasoning", "ToolCall", "ToolResult", "Custom"))

#: Every provider API the package projects, in the order the documentation lists them.
PROVIDERS: Tuple[ProviderInfo, ...] = (
    ProviderInfo(
        module="anthropic",
        display="Anthropic Messages",
        otel_name="anthropic",
        otel_operation="chat",
        key_variables=("ANTHROPIC_API_KEY",),
        cli="anthropic",
        base_url="https://api.anthropic.com",
        base_url_variable="ANTHROPIC_BASE_URL",
        model_key="anthropic.model",
        namespace="anthropic.",
        system_apart=True,
        transcript_fields=("messages", "system"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "reasoning_budget", "parallel_tool_calls"},
            reasoning_efforts=("low", "medium", "high", "xhigh", "max"),
            parts_in=_ALL_KINDS,
            parts_out=frozenset(("Text", "Reasoning", "ToolCall", "Custom")),  # server tools' blocks are custom parts
            server_tools=True,
            call_ids=True,
        ),
    ),
    ProviderInfo(
        module="openai_chat",
        display="OpenAI Chat Completions",
        otel_name="openai",
        otel_operation="chat",
        key_variables=("OPENAI_API_KEY",),
        cli="openai-chat",
        base_url="https://api.openai.com/v1",
        base_url_variable="OPENAI_BASE_URL",
        model_key="openai.model",
        namespace="openai.chat.",
        system_apart=False,
        transcript_fields=("messages",),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "seed", "parallel_tool_calls"},
            reasoning_efforts=("none", "minimal", "low", "medium", "high", "xhigh", "max"),
            parts_in=_ALL_KINDS,
            parts_out=frozenset(("Text", "Media", "File", "Reasoning", "ToolCall", "Custom")),  # audio, list content
            server_tools=False,
            call_ids=True,
        ),
    ),
    ProviderInfo(
        module="openai_responses",
        display="OpenAI Responses",
        otel_name="openai",
        otel_operation="chat",
        key_variables=("OPENAI_API_KEY",),
        cli="openai-responses",
        base_url="https://api.openai.com/v1",
        base_url_variable="OPENAI_BASE_URL",
        model_key="openai.model",
        namespace="openai.",
        system_apart=False,
        transcript_fields=("input", "instructions"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"parallel_tool_calls"},
            reasoning_efforts=("none", "minimal", "low", "medium", "high", "xhigh", "max"),
            parts_in=_ALL_KINDS,
            parts_out=frozenset(("Text", "Reasoning", "ToolCall", "Custom")),  # every other output item is a custom part
            server_tools=True,
            call_ids=True,
        ),
    ),
    ProviderInfo(
        module="gemini",
        display="Gemini",
        otel_name="gcp.gemini",
        otel_operation="generate_content",
        key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        cli="gemini",
        base_url="https://generativelanguage.googleapis.com/v1beta",
        base_url_variable="GOOGLE_GEMINI_BASE_URL",
        model_key="gemini.modelVersion",
        namespace="gemini.",
        system_apart=True,
        transcript_fields=("contents", "systemInstruction", "system_instruction"),
        capabilities=Capabilities(
            settings=_COMMON_SETTINGS | {"stop", "seed", "reasoning_budget"},
            reasoning_efforts=("minimal", "low", "medium", "high"),
            parts_in=_ALL_KINDS,
            parts_out=frozenset(("Text", "Media", "File", "Reasoning", "ToolCall", "Custom")),  # inlineData; executableCode...
            server_tools=True,
        ),
    ),
    ProviderInfo(
        module="bedrock",
        display="Bedrock Converse",
        otel_name="aws.bedrock",
        otel_operation="chat",
        key_variables=("AWS_BEARER_TOKEN_BEDROCK",),
        cli="bedrock",
        base_url="https://bedrock-runtime.{region}.amazonaws.com",
        base_url_variable="AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        model_key="bedrock.model",
        namespace="bedrock.",
        system_apart=True,
        transcript_fields=("messages", "system"),
        capabilities=Capabilities(
            settings=frozenset(("max_tokens", "temperature", "top_p", "stop", "reasoning_budget")),
            reasoning_efforts=(),
            parts_in=_ALL_KINDS,
            parts_out=frozenset(("Text", "Media", "File", "Reasoning", "ToolCall", "Custom")),  # images, documents
            server_tools=False,
            tool_modes=frozenset(("auto", "required", "tool")),
            call_ids=True,
        ),
        stream_format="aws-eventstream",
        signed_by="aws",
    ),
)

_BY_MODULE = {row.module: row for row in PROVIDERS}


def provider_info(name: str) -> ProviderInfo:
    """The registry row of ``name``: a provider module's name (``"openai_chat"``) or its CLI spelling (``"openai-chat"``)."""
    if not isinstance(name, str):
        raise _wrong_type("provider", "a string", name)
    row = _BY_MODULE.get(name.replace("-", "_"))
    if row is None:
        raise ValueError(f"provider: {name[:80]!r} is none of {', '.join(_BY_MODULE)}")
    return row


def capabilities(name: str) -> Capabilities:
    """What the provider API ``name`` can take and give (see :class:`Capabilities`)."""
    return provider_info(name).capabilities


# -- the names users call a model by: every wire at its own API, and the presets --------------------------------

#: How a name's requests are authenticated and addressed, besides the wire's own key header.
AUTHS = ("wire", "azure_openai", "google_vertex")
#: The wires Azure OpenAI addresses by deployment (``/openai/deployments/{model}/...``), as ``AzureOpenAI`` does.
AZURE_DEPLOYMENTS = frozenset(("openai_chat",))


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A name users call a model by (``"groq:llama-3.3-70b-versatile"``): a wire at its own API, or a preset.

    A preset is a server that speaks one of the wires (an OpenAI-compatible
    server speaks Chat Completions): a row here, not a folder.  It says where
    the server is, where its key is, and what it does differently on the wire,
    which :func:`agentkit_core.providers.complete` and ``http_request`` (by
    name) apply when they call the wire's functions.
    """

    name: str
    """The name before the colon (``"groq"``, ``"openai-chat"``), the command line's ``--provider`` too."""
    display: str
    """The server's name for people (``"Groq"``)."""
    wire: str
    """The module of the :data:`PROVIDERS` row whose functions it uses (``"openai_chat"``)."""
    base_url: str
    """The default endpoint, from the provider's documentation; ``""`` when there is none (Azure: each resource's)."""
    key_variables: Tuple[str, ...]
    """The environment variables ``complete()`` reads a key from, in order, when ``api_key`` is not given."""
    base_url_variable: str
    """The environment variable ``complete()`` reads a base URL from when ``base_url`` is not given (``""``: none)."""
    otel_name: str
    """The OpenTelemetry GenAI ``gen_ai.provider.name`` (``"groq"``; ``"openai"`` where the conventions name none)."""
    capabilities: Capabilities
    """What the server can take and give (by default the wire's)."""
    key_required: bool
    """Whether a turn needs a key (a wire signed otherwise, Bedrock's, does not): a hosted API's ``complete()`` with
    none anywhere is refused before it sends;
    a local server (Ollama, vLLM, LM Studio) needs none and sends one only when given or set."""
    fields: Tuple[Tuple[str, str], ...]
    """The :class:`~agentkit_core.ModelSettings` fields the server takes in another native field than the wire writes:
    ``(setting, field)`` pairs, a dotted field for a nested one (``("max_tokens", "max_tokens")`` for a server that
    reads only the older field, ``("reasoning_effort", "reasoning.effort")``)."""
    auth: str
    """How requests are addressed and authenticated (:data:`AUTHS`): ``"wire"``, the wire's own key header at
    ``base_url``; ``"azure_openai"``, Azure OpenAI's (``api-key`` or an Entra ID token, the deployment and ``api-version``);
    ``"google_vertex"``, Vertex AI's (a Google OAuth token, the project and the location in the URL)."""

    def __post_init__(self) -> None:
        for field in ("name", "display", "wire", "otel_name"):
            value = getattr(self, field)
            if not isinstance(value, str):
                raise _wrong_type(f"Endpoint.{field}", "a string", value)
            if not value:
                raise ValueError(f"Endpoint.{field}: expected a name, found an empty string")
        if not isinstance(self.base_url_variable, str):
            raise _wrong_type("Endpoint.base_url_variable", "a string", self.base_url_variable)
        if not isinstance(self.base_url, str):
            raise _wrong_type("Endpoint.base_url", "a string", self.base_url)
        if self.base_url and (not self.base_url.startswith(("https://", "http://")) or self.base_url.endswith("/")):
            raise ValueError(f"Endpoint.base_url: expected an http(s) URL without a trailing '/', found {self.base_url[:80]!r}")
        if self.name != self.name.lower() or not self.name.replace("-", "").isalnum():
            raise ValueError(f"Endpoint.name: expected lower-case letters, digits and '-', found {self.name[:40]!r}")
        if self.wire not in _BY_MODULE:
            raise ValueError(f"Endpoint.wire: {self.wire[:40]!r} is none of {', '.join(_BY_MODULE)}")
        _strings(self, "key_variables", tuple, "a tuple of strings")
        if not isinstance(self.capabilities, Capabilities):
            raise _wrong_type("Endpoint.capabilities", "a Capabilities", self.capabilities)
        if type(self.key_required) is not bool:
            raise _wrong_type("Endpoint.key_required", "a boolean", self.key_required)
        if self.key_required and not self.key_variables:
            raise ValueError("Endpoint.key_variables: a name that needs a key names where to find it")
        if type(self.fields) is not tuple or not all(
            type(pair) is tuple and len(pair) == 2 and all(isinstance(v, str) and v for v in pair) for pair in self.fields
        ):
            raise _wrong_type("Endpoint.fields", "a tuple of (setting, field) pairs of strings", self.fields)
        for setting, _ in self.fields:
            if setting not in self.capabilities.settings:
                raise ValueError(f"Endpoint.fields: {setting[:40]!r} is no setting the capabilities name")
        if self.auth not in AUTHS:
            raise ValueError(f"Endpoint.auth: {self.auth[:40]!r} is none of {', '.join(AUTHS)}")


def _wire(row: ProviderInfo) -> Endpoint:
    """A wire's own name: its API at its default endpoint."""
    return Endpoint(name=row.cli, display=row.display, wire=row.module, base_url=row.base_url,
                    key_variables=row.key_variables, base_url_variable=row.base_url_variable, otel_name=row.otel_name,
                    capabilities=row.capabilities, key_required=not row.signed_by, fields=(), auth="wire")


def _preset(name: str, display: str, base_url: str, *, otel_name: str = "openai", wire: str = "openai_chat",
            fields: Tuple[Tuple[str, str], ...] = (), key_required: bool = True,
            key_variables: Tuple[str, ...] | None = None, base_url_variable: str | None = None,
            capabilities: Capabilities | None = None, auth: str = "wire") -> Endpoint:
    """A preset's row: its key in ``<NAME>_API_KEY``, its base URL in ``<NAME>_BASE_URL``, the wire's capabilities,
    unless told otherwise."""
    upper = name.upper().replace("-", "_")
    return Endpoint(name=name, display=display, wire=wire, base_url=base_url,
                    key_variables=(f"{upper}_API_KEY",) if key_variables is None else key_variables,
                    base_url_variable=base_url_variable or f"{upper}_BASE_URL", otel_name=otel_name,
                    capabilities=capabilities or _BY_MODULE[wire].capabilities, key_required=key_required,
                    fields=fields, auth=auth)


#: The path under a Vertex AI location of each Vertex name's models (``.../publishers/{publisher}``).
VERTEX_PUBLISHERS = {"vertex": "/publishers/google", "vertex-anthropic": "/publishers/anthropic"}
#: Vertex AI's root, the location filled in (``global``: ``aiplatform.googleapis.com``; see ``providers/_common/vertex.py``).
_VERTEX_ROOT = "https://{location}-aiplatform.googleapis.com/v1"
#: The servers that read only Chat Completions' older ``max_tokens`` (not ``max_completion_tokens``).
_MAX_TOKENS = (("max_tokens", "max_tokens"),)

#: The presets: servers speaking one of the wires, each from its provider's own documentation.
PRESETS: Tuple[Endpoint, ...] = (
    _preset("groq", "Groq", "https://api.groq.com/openai/v1", otel_name="groq"),
    _preset("mistral", "Mistral AI", "https://api.mistral.ai/v1", otel_name="mistral_ai",
            fields=(*_MAX_TOKENS, ("seed", "random_seed"))),
    _preset("deepseek", "DeepSeek", "https://api.deepseek.com", otel_name="deepseek", fields=_MAX_TOKENS),
    _preset("xai", "xAI", "https://api.x.ai/v1", otel_name="x_ai"),
    _preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1",
            fields=(*_MAX_TOKENS, ("reasoning_effort", "reasoning.effort"))),
    _preset("together", "Together AI", "https://api.together.xyz/v1", fields=_MAX_TOKENS),
    _preset("fireworks", "Fireworks AI", "https://api.fireworks.ai/inference/v1", fields=_MAX_TOKENS),
    _preset("cerebras", "Cerebras", "https://api.cerebras.ai/v1"),
    _preset("perplexity", "Perplexity", "https://api.perplexity.ai", otel_name="perplexity", fields=_MAX_TOKENS),
    _preset("ollama", "Ollama", "http://localhost:11434/v1", fields=_MAX_TOKENS, key_required=False),
    _preset("vllm", "vLLM", "http://localhost:8000/v1", fields=_MAX_TOKENS, key_required=False),
    _preset("lmstudio", "LM Studio", "http://localhost:1234/v1", fields=_MAX_TOKENS, key_required=False),
    _preset("baseten", "Baseten", "https://inference.baseten.co/v1", fields=_MAX_TOKENS),
    _preset("azure", "Azure OpenAI Chat Completions", "", otel_name="azure.ai.openai", auth="azure_openai",
            key_variables=("AZURE_OPENAI_API_KEY",), base_url_variable="AZURE_OPENAI_ENDPOINT"),
    _preset("azure-responses", "Azure OpenAI Responses", "", otel_name="azure.ai.openai", wire="openai_responses",
            auth="azure_openai", key_variables=("AZURE_OPENAI_API_KEY",), base_url_variable="AZURE_OPENAI_ENDPOINT"),
    # Vertex AI: the credential is Application Default Credentials' (the key file GOOGLE_APPLICATION_CREDENTIALS names,
    # gcloud's, the metadata server's) or an access token as api_key; the base URL is the API's root, before /projects.
    _preset("vertex", "Vertex AI (Gemini)", _VERTEX_ROOT, otel_name="gcp.vertex_ai", wire="gemini", auth="google_vertex",
            key_variables=("GOOGLE_APPLICATION_CREDENTIALS",), base_url_variable="GOOGLE_VERTEX_BASE_URL"),
    _preset("vertex-anthropic", "Vertex AI (Anthropic)", _VERTEX_ROOT, otel_name="gcp.vertex_ai", wire="anthropic",
            auth="google_vertex", key_variables=("GOOGLE_APPLICATION_CREDENTIALS",), base_url_variable="ANTHROPIC_VERTEX_BASE_URL"),
)

#: Every name a model can be called by: the wires' (in :data:`PROVIDERS`' order), then the presets.
ENDPOINTS: Tuple[Endpoint, ...] = (*(_wire(row) for row in PROVIDERS), *PRESETS)

_BY_NAME = {row.name: row for row in ENDPOINTS}


def endpoint(name: str) -> Endpoint:
    """The row of the name ``name`` (``"groq"``, ``"openai-chat"``; a wire's module name ``"openai_chat"`` too).

    An unknown name raises ``ValueError`` listing the known ones.
    """
    if not isinstance(name, str):
        raise _wrong_type("provider", "a string", name)
    row = _BY_NAME.get(name) or _BY_NAME.get(name.replace("_", "-"))
    if row is None:
        raise ValueError(f"provider: {name[:80]!r} is none of the known names ({', '.join(_BY_NAME)})")
    return row
