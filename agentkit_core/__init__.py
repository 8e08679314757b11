"""agentkit_core: the shared language of an agent toolkit."""

from __future__ import annotations

from .error import AgentError, NormalizeError, ProtocolError

# -- cancellation exports --

__version__ = "0.1.0"

__all__ = (
    "AgentError",
    "NormalizeError",
    "ProtocolError",
    # -- cancellation names --
)
