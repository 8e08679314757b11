"""Example code for the design's stability bar: fake providers, tool results, a reporter, compaction.

Each module is small, documented and meant to be copied:

* :mod:`.stateless` -- a text-only provider that is sent the whole transcript every turn;
* :mod:`.stateful` -- a provider that keeps the conversation server-side and is
  sent only the new items plus the previous response id;
* :mod:`.voice` -- a voice-only provider: audio in, audio out streamed as bytes;
* :mod:`.tools` -- shell and filesystem tool results;
* :mod:`.reporter` -- renders any parts, from any provider, with no provider branching;
* :mod:`.compaction` -- summarises the middle of a long transcript from what items hold.

The three provider modules satisfy :class:`agentkit_core.ProviderAdapter` as
modules of functions, exactly as the shipped projections in ``agentkit_core.providers`` do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a static check: mypy verifies each module satisfies the protocol
    from agentkit_core import ProviderAdapter

    from . import stateful, stateless, voice

    _stateless: ProviderAdapter[Any, Any] = stateless
    _stateful: ProviderAdapter[Any, Any] = stateful
    _voice: ProviderAdapter[Any, Any] = voice
