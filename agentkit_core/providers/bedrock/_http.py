"""The Converse request: ``POST {base_url}/model/{modelId}/converse`` (or ``/converse-stream``), signed.

The one builder that reads the environment: a Bedrock request is not whole
without its signature, so without ``api_key`` it is signed with AWS
Signature Version 4 (:mod:`agentkit_core.auth.aws`) using ``credentials=``
or the credentials botocore would find (``AWS_ACCESS_KEY_ID`` and
``AWS_SECRET_ACCESS_KEY`` with ``AWS_SESSION_TOKEN``, the shared
credentials file's ``[default]`` or ``AWS_PROFILE``), and carries the signer
as its :attr:`~agentkit_core.http.Request.auth`, so ``send()`` signs every
attempt afresh.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence
from urllib.parse import quote

from ... import Item, ModelSettings
from ..._for_providers import provider_info
from ...auth.aws import AwsCredentials, SigV4Signer, credentials_from_environment, region_from_environment
from ...http import Request
from .._common.sending import checked_model, endpoint, extra_headers, json_request, key_header, request_body
from .._common.tools import Choice, Tools
from ._request import kept_request
from ._settings import checked_body, fields_of

__all__ = ("http_request", "BASE_URL", "DEFAULT_REGION", "SERVICE")

_ROW = provider_info("bedrock")
#: The default endpoint, ``{region}`` filled in by :func:`http_request`.
BASE_URL = _ROW.base_url
#: The region when neither ``region=``, the environment nor the base URL names one.
DEFAULT_REGION = "us-east-1"
#: The service name Bedrock's runtime signs for.
SERVICE = "bedrock"
_NAME = "bedrock"


def model_path(model: str, stream: bool) -> str:
    """``/model/{modelId}/converse[-stream]``, the id percent-encoded whole as botocore encodes it (``:`` and ``/`` too)."""
    return f"/model/{quote(checked_model(model), safe='')}/{'converse-stream' if stream else 'converse'}"


def _region(region: object, base_url: str | None) -> str:
    if region is not None:
        if not isinstance(region, str) or not region:
            raise TypeError(f"region: expected a region name like 'us-east-1', found {type(region).__name__}")
        return region
    found = region_from_environment()
    if found:
        return found
    if base_url:  # bedrock-runtime.<region>.amazonaws.com, or a VPC endpoint's ...<region>.vpce.amazonaws.com
        host = base_url.split("://", 1)[-1].split("/", 1)[0]
        for label in host.split("."):
            if label.count("-") >= 2 and label[-1:].isdigit():
                return label
    return DEFAULT_REGION


def http_request(
    items: Sequence[Item],
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    stream: bool = False,
    tools: Tools = (),
    tool_choice: Choice = None,
    settings: ModelSettings | None = None,
    headers: Mapping[str, str] | None = None,
    **native: Any,
) -> Request:
    """The request for a turn on ``items``, signed: ``POST /model/{model}/converse`` (``/converse-stream`` when ``stream``).

    The body is the transcript, ``tools`` and ``tool_choice`` (in ``toolConfig``) as
    :func:`request_from_items` writes them, the settings' fields and the ``native`` ones
    (``additionalModelRequestFields=``, ``guardrailConfig=``...).  ``model`` is a model
    id, an inference profile id or an ARN, percent-encoded as botocore encodes it.

    ``api_key`` is a Bedrock API key, sent as a Bearer token (no signature).
    Without it the request is signed with Signature Version 4: ``credentials=``
    (an :class:`~agentkit_core.auth.aws.AwsCredentials`) or the environment's
    (see :mod:`agentkit_core.auth.aws`); with none found it goes unsigned (for
    a gateway that signs). ``region=`` names the region (else ``AWS_REGION``,
    ``AWS_DEFAULT_REGION``, the profile's, the base URL's host, ``us-east-1``).
    ``base_url`` replaces ``https://bedrock-runtime.{region}.amazonaws.com``.
    ``headers`` are added (and signed); they cannot replace the request's own.
    """
    credentials = native.pop("credentials", None)
    region = _region(native.pop("region", None), base_url)
    if credentials is not None and not isinstance(credentials, AwsCredentials):
        raise TypeError(f"credentials: expected AwsCredentials, found {type(credentials).__name__}")
    path = model_path(model, stream)
    fields = kept_request(items, tools=tools, tool_choice=tool_choice)
    written = fields_of(settings)
    body = checked_body(request_body(_NAME, {}, fields, written, native, {}), written)
    own = key_header("authorization", api_key, "Bearer ")
    url = endpoint(base_url, BASE_URL.format(region=region), path)
    request = json_request(url, extra_headers(own, headers, stream=stream), body, stream=stream, stream_format=_ROW.stream_format)
    if api_key is not None:
        return request
    found = credentials if credentials is not None else credentials_from_environment()
    if found is None:
        return request
    signer = SigV4Signer(found, region, SERVICE)
    return signer(Request(request.method, request.url, request.headers, request.body, request.secret_headers, signer))
