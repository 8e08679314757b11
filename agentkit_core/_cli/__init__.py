"""The command line, ``python -m agentkit_core``: a private package a vendor may drop.

Nothing else in the package imports it; ``__main__`` is its only caller.

* :mod:`.commands`: the argument parser, ``validate``, ``stats``, ``fold`` and
  how problems are reported (start here);
* :mod:`.convert`: ``convert --from PROVIDER``, provider traffic to items;
* :mod:`.interop`: ``convert --from`` and ``--to`` ``mcp-tools``, ``pydantic-ai``
  and ``langchain``, other libraries' tools and histories both ways;
* :mod:`.demo`: ``demo``, one scripted assistant turn streamed through the fold;
* :mod:`.turn`: ``turn --provider PROVIDER``, one turn sent to a provider,
  streamed, and appended to the transcript;
* :mod:`.common`: what every command shares: the program's name, the one
  usage error, printing escaped for a terminal.

The provider spellings (``--from``, ``--provider``) and the key variables
come from the provider registry (``_registry.py``).
"""

from __future__ import annotations

from .commands import main

__all__ = ("main",)
