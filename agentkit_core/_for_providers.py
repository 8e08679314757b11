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
  package's.

It sits in the bottom layer, with what it re-exports, and loads no projection.
"""

from __future__ import annotations

from ._detect import NAMES as NAMES, Provider as Provider, sniff as sniff
from ._error_text import an as an, describe as describe, wrong_type as wrong_type
from ._registry import PROVIDERS as PROVIDERS, STREAM_FORMATS as STREAM_FORMATS, Capabilities as Capabilities
from ._registry import ProviderInfo as ProviderInfo
from ._registry import capabilities as capabilities, provider_info as provider_info
from ._registry import AZURE_DEPLOYMENTS as AZURE_DEPLOYMENTS, ENDPOINTS as ENDPOINTS, PRESETS as PRESETS
from ._registry import Endpoint as Endpoint, endpoint as endpoint
from ._registry import VERTEX_PUBLISHERS as VERTEX_PUBLISHERS

__all__ = (
    "PROVIDERS", "STREAM_FORMATS", "Capabilities", "ProviderInfo", "capabilities", "provider_info",
    "ENDPOINTS", "PRESETS", "Endpoint", "endpoint", "AZURE_DEPLOYMENTS", "VERTEX_PUBLISHERS",
    "NAMES", "Provider", "sniff",
    "an", "describe", "wrong_type",
)
