"""The fold module under a name nothing shadows: ``import agentkit_core.folding as folding``.

The package re-exports the :func:`~agentkit_core.fold` function as
``agentkit_core.fold``, which hides the module of that name from attribute
access (``agentkit_core.fold`` and ``import agentkit_core.fold as m`` both give
the function; ``from agentkit_core.fold import FoldState`` still works).  This
module is that one under another name: the same objects, the same ``__all__``.
Its documentation, the reducer's rules, is the docstring of
``agentkit_core/fold.py``.
"""

from __future__ import annotations

from .fold import FoldState, afold_iter, fold, fold_all, fold_iter

__all__ = ("FoldState", "fold", "fold_all", "fold_iter", "afold_iter")


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
