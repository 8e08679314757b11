"""The error of finding or using a cloud credential: none found, a credential file that is no credential.

An error answer of a token endpoint is the HTTP layer's
:class:`~agentkit_core.http.ProviderError`, as any other; this one is for
what goes wrong before or beside a request.  Its message names the place
looked in and the field at fault, never a secret's value.
"""

from __future__ import annotations

from ..error import AgentError

__all__ = ("CredentialsError",)

_PUBLIC_MODULE = __name__.rpartition(".")[0] or __name__


class CredentialsError(AgentError):
    """No usable credential: none found where they are looked for, or one that cannot be used (the message says which)."""


CredentialsError.__module__ = _PUBLIC_MODULE
