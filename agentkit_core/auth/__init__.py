"""Cloud credentials on the standard library: what signs or authorizes a request to a cloud's model API.

One module a cloud, imported by name (none is loaded by importing this package):

* :mod:`agentkit_core.auth.google`: Google OAuth access tokens as Application
  Default Credentials find them (a service account's key, signed RS256 here;
  gcloud's user credentials; the metadata server), for Vertex AI.
* :mod:`agentkit_core.auth.aws`: AWS Signature Version 4
  (:class:`~agentkit_core.auth.aws.SigV4Signer`, a :attr:`~agentkit_core.http.Request.auth`
  that ``send()`` calls before every attempt, so a retry is signed afresh),
  with credentials and the region found as botocore finds them, for Bedrock.

They sit in the HTTP layer: they fetch tokens with :func:`agentkit_core.http.send`
and know no provider.  :class:`CredentialsError` is what a credential that
cannot be found or used raises (an error answer of a token endpoint is a
:class:`~agentkit_core.http.ProviderError`, as any other).  No secret (a key,
a token, a signature) ever appears in a ``repr``, an error or a log line.
"""

from __future__ import annotations

from ._errors import CredentialsError

__all__ = ("CredentialsError",)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
