"""One switch for every fast path of the providers: ``AGENTKIT_CORE_FAST_PATHS=0`` turns them all off.

The fast paths give what the general path gives, byte for byte, only sooner.
With the variable set to ``0`` when the providers are first imported, every
request is built the general way: no fast fold for the common shapes (the
``_fast.py`` modules of ``openai_chat``, ``openai_responses`` and ``gemini``,
Anthropic's items that carry nothing), no build kept for the next request
(``providers/_common/reuse.py``), and tool-call arguments read and checked by
the general reader instead of being handed to the part's constructor.  CI runs
the provider and cross-provider tests so (``.ci/run``, the ``no-fast-paths``
job), which checks the general path on every recorded payload; the usual run
checks the fast one against the same expectations.

The variable is read once, when this module is imported, which happens when
``agentkit_core.providers`` is: ``import agentkit_core`` itself reads no
environment.  What a fast path measured to gain is written where it lives and
in ARCHITECTURE.md ("Fast paths").
"""

from __future__ import annotations

import os

__all__ = ("FAST_PATHS",)

#: Whether the providers take their fast paths (``AGENTKIT_CORE_FAST_PATHS`` is not ``0``).
FAST_PATHS: bool = os.environ.get("AGENTKIT_CORE_FAST_PATHS", "1").strip() != "0"
