"""The shared errors: one base, one class per failure family.

Every error pickles and unpickles intact (its ``args`` match ``__init__``), and
reports the public package as its module, so tracebacks read
``agentkit_core.NormalizeError`` even under a vendored name.
"""

from __future__ import annotations

__all__ = ("AgentError", "NormalizeError", "ProtocolError", "TurnCancelledError")

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__


class AgentError(Exception):
    """Base class of every error this package raises on purpose."""

    __module__ = _PUBLIC_MODULE


class NormalizeError(AgentError, ValueError):
    """Data could not be turned into (or out of) the neutral model.

    Decoders raise it for any input they refuse.  ``path`` names the bad
    field from the decoded value's root, for instance
    ``parts[2].ToolResult.output.Parts[0].Text.text``; it is ``""`` when the
    root itself is at fault.  ``message`` says what is wrong with it.
    ``location`` says where in the input the value was read, when it was read
    from a file (``"turn.jsonl:3"``); it is ``""`` otherwise.  ``str()`` joins
    the three: ``turn.jsonl:3: parts[0].Text.text: invalid type: ...``.
    """

    __module__ = _PUBLIC_MODULE

    def __init__(self, message: str, path: str = "", location: str = "") -> None:
        if location:
            super().__init__(message, path, location)
        else:
            super().__init__(message, path)
        self.message = message
        self.path = path
        self.location = location

    def __str__(self) -> str:
        return ": ".join([part for part in (self.location, self.path) if part] + [self.message])

    def under(self, segment: str) -> NormalizeError:
        """The same error seen from one level up: ``segment`` prefixed to the path.

        ``segment`` is a field or variant name (``"parts"``) or an index
        (``"[2]"``).  Decoders call this while an error propagates, so the
        success path never builds path strings.
        """
        path = self.path
        if not path:
            path = segment
        elif path[0] == "[":
            path = segment + path
        else:
            path = f"{segment}.{path}"
        return type(self)(self.message, path, self.location)


class ProtocolError(AgentError):
    """A stream of deltas (or another interaction) broke its protocol.

    The fold raises it for a delta that does not fit the state it meets; the
    message names the delta, the part id and what the part was.
    """

    __module__ = _PUBLIC_MODULE


class TurnCancelledError(AgentError):
    """The running turn was cancelled: a tool or adapter stopped on purpose.

    :meth:`TurnCancellation.raise_if_cancelled` raises it.  ``generation`` is
    the generation the cancelled checkpoint was taken at.
    """

    __module__ = _PUBLIC_MODULE

    def __init__(self, generation: int) -> None:
        super().__init__(generation)
        self.generation = generation

    def __str__(self) -> str:
        return f"the turn was cancelled (checkpoint taken at generation {self.generation})"


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
