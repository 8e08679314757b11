"""What the provider projections use of the core beyond its public names: the one internal API they have.

The projections (``providers/``) import the package's public names, its
``http`` module, their shared ``providers/_common`` and this module, nothing
else of the core (``tests/test_providers_cross.py`` checks it).  An adapter
written outside the package would copy these few helpers:

* the provider registry (:data:`PROVIDERS`, :func:`provider_info`,
  :func:`capabilities`; the names users call a model by, :data:`ENDPOINTS`
  and :func:`endpoint`), public too as :mod:`agentkit_core.providers`' own;
* the body detector (:func:`sniff`, :data:`NAMES`), which says whose a body
  is, so a projection refuses another provider's;
* the words of argument errors (:func:`an`, :func:`describe`,
  :func:`wrong_type`), so a projection's errors read like the rest of the
  package's;
* the compact JSON encoder the wire form is written with (:func:`compact_json`,
  :func:`compact_encoder`: ``json.dumps`` with the C encoder made once);
* :data:`FAST_PATHS`, the one switch of every fast path
  (``AGENTKIT_CORE_FAST_PATHS=0``, :mod:`agentkit_core._fast_paths`).

It sits in the bottom layer, with what it re-exports, and loads no projection.
"""

from __future__ import annotations

from ._detect import NAMES as NAMES, Provider as Provider, sniff as sniff
from ._error_text import an as an, describe as describe, wrong_type as wrong_type
from ._fast_paths import FAST_PATHS as FAST_PATHS
from ._registry import (
    AZURE_DEPLOYMENTS as AZURE_DEPLOYMENTS,
    ENDPOINTS as ENDPOINTS,
    PRESETS as PRESETS,
    PROVIDERS as PROVIDERS,
    STREAM_FORMATS as STREAM_FORMATS,
    VERTEX_PUBLISHERS as VERTEX_PUBLISHERS,
    Capabilities as Capabilities,
    Endpoint as Endpoint,
    ProviderInfo as ProviderInfo,
    capabilities as capabilities,
    endpoint as endpoint,
    provider_info as provider_info,
)
from .jsontext import compact_encoder as compact_encoder, compact_json as compact_json

__all__ = (
    "PROVIDERS", "STREAM_FORMATS", "Capabilities", "ProviderInfo", "capabilities", "provider_info",
    "ENDPOINTS", "PRESETS", "Endpoint", "endpoint", "AZURE_DEPLOYMENTS", "VERTEX_PUBLISHERS",
    "NAMES", "Provider", "sniff",
    "an", "describe", "wrong_type",
    "FAST_PATHS", "compact_json", "compact_encoder",
)
