"""The body detector, as the providers' shared modules import it: it lives in :mod:`agentkit_core._detect`, below its users."""

from __future__ import annotations

from ..._detect import NAMES as NAMES, Provider as Provider, sniff as sniff

__all__ = ("Provider", "sniff", "NAMES")
