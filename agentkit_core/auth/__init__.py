"""Signing requests for the clouds that want more than an API key, in the standard library.

Each signer is a :attr:`agentkit_core.http.Request.auth`: a callable that
takes a request and returns it with its credentials, which ``send()`` and
``asend()`` call before every attempt, so a retry is signed afresh.  Part of
the HTTP layer (it knows no provider); the provider modules that need one
build it.

* :mod:`agentkit_core.auth.aws`: AWS Signature Version 4
  (:class:`~agentkit_core.auth.aws.SigV4Signer`), with credentials and the
  region read as botocore reads them (the environment, the shared files).

No secret (a secret access key, a session token, a signature) appears in a
``repr``, an error or a log line.
"""

from __future__ import annotations

__all__ = ()


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
