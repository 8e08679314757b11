"""Private to :mod:`.gemini`: one whole turn in one call, :func:`complete` and its asyncio form :func:`acomplete`.

Both are made by :func:`.._common.complete.turn_functions` from the one signature every provider's
``complete`` has (:func:`.._common.complete.turn_parameters`): ``help()``, ``inspect.signature``
and mypy see those parameters; the turn itself is :func:`.._common.complete.complete_turn`.
"""

from __future__ import annotations

from .._common.complete import turn_functions, turn_parameters

__all__ = ("complete", "acomplete")

complete, acomplete = turn_functions(turn_parameters, __name__.rpartition(".")[0], "the Gemini API")
