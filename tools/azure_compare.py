"""Check the ``azure`` and ``azure-responses`` requests against the openai SDK's ``AzureOpenAI``, offline.

    /work/venv/bin/python tools/azure_compare.py     # needs the openai SDK; without it, says so and exits 0

For each case (Chat Completions and Responses, streamed or not, an API key or
an Entra ID token, deployment names with dots and underscores), the SDK's
client is given an HTTP transport that records the request it would send and
answers nothing more (no network).  The same call through
``agentkit_core.providers.http_request(model="azure:<deployment>", ...)``
must give the same method, URL (scheme, host, path, query) and credential
header, and the same body fields the two both write (``model``, ``stream``).
Without ``api_version`` the SDK refuses the call; this package sends it to
Azure's version-less v1 API instead, which the script checks against the
plain ``OpenAI`` client pointed at ``{endpoint}/openai/v1/`` (the URL only:
that client sends its key as ``Authorization: Bearer``, this package as
``api-key``, both of which the v1 API takes).  Prints one line per case and
exits 1 on a difference.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

ENDPOINT = "https://example-resource.openai.azure.com"
KEY = "azure-key-0123456789"
TOKEN = "entra-token-0123456789"


class Captured(Exception):
    """Raised by the transport once it has the request: the SDK sends nothing."""

    def __init__(self, request: Any) -> None:
        super().__init__("captured")
        self.request = request


def sdk_request(client_class: Any, call: Any, httpx: Any, openai: Any, **client_args: Any) -> Any:
    """The request ``call(client)`` makes with a client of ``client_args`` whose transport records and stops."""

    def handler(request: Any) -> Any:
        raise Captured(request)

    client = client_class(http_client=httpx.Client(transport=httpx.MockTransport(handler)), max_retries=0, **client_args)
    try:
        call(client)
    except Captured as got:
        return got.request
    except openai.APIConnectionError as exc:  # the SDK wraps what the transport raised
        cause = exc.__cause__
        while cause is not None and not isinstance(cause, Captured):
            cause = cause.__cause__
        if isinstance(cause, Captured):
            return cause.request
        raise
    raise AssertionError("the SDK sent no request")


def ours(model: str, stream: bool, credential: dict[str, str], version: str | None) -> Any:
    from agentkit_core import Item, ItemKind
    from agentkit_core.providers import http_request

    extra = {"api_version": version} if version else {}
    return http_request([Item.text(ItemKind.USER, "hi")], model=model, base_url=ENDPOINT, stream=stream, **credential, **extra)


def main() -> int:
    try:
        import openai
    except ImportError:
        print("azure_compare: the openai SDK is not installed; nothing compared (pip install openai)")
        return 0
    try:
        import httpx2 as httpx  # the SDK's own HTTP client where it has moved to httpx2
    except ImportError:
        import httpx

    failures = 0
    messages = [{"role": "user", "content": "hi"}]
    for wire in ("chat", "responses"):
        for deployment in ("gpt-4o-mini", "gpt-4.1_mini.v2"):
            for stream in (False, True):
                for kind, credential, sdk_credential in (("key", {"api_key": KEY}, {"api_key": KEY}),
                                                         ("token", {"azure_ad_token": TOKEN}, {"azure_ad_token": TOKEN})):
                    for version in ("2024-10-21", None):
                        def call(client: Any, wire: str = wire, deployment: str = deployment, stream: bool = stream) -> None:
                            if wire == "chat":
                                client.chat.completions.create(model=deployment, messages=messages, stream=stream)
                            else:
                                client.responses.create(model=deployment, input="hi", stream=stream)

                        if version is None:
                            if kind == "token":
                                continue
                            sdk = sdk_request(openai.OpenAI, call, httpx, openai, base_url=ENDPOINT + "/openai/v1/",
                                              api_key=KEY)
                        else:
                            sdk = sdk_request(openai.AzureOpenAI, call, httpx, openai, azure_endpoint=ENDPOINT,
                                              api_version=version, **sdk_credential)
                        name = "azure" if wire == "chat" else "azure-responses"
                        mine = ours(f"{name}:{deployment}", stream, credential, version)
                        case = f"{name}:{deployment!r} stream={stream} {kind} api_version={version}"
                        failures += compare(case, sdk, mine, headers=version is not None)
    print("azure_compare: " + ("every case equal" if not failures else f"{failures} case(s) differ"))
    return 1 if failures else 0


def compare(case: str, sdk: Any, mine: Any, headers: bool) -> int:
    from urllib.parse import parse_qsl, urlsplit

    theirs_url, my_url = urlsplit(str(sdk.url)), urlsplit(mine.url)
    problems = []
    if sdk.method != mine.method:
        problems.append(f"method {sdk.method} != {mine.method}")
    for part in ("scheme", "netloc", "path"):
        if getattr(theirs_url, part) != getattr(my_url, part):
            problems.append(f"{part} {getattr(theirs_url, part)!r} != {getattr(my_url, part)!r}")
    if sorted(parse_qsl(theirs_url.query)) != sorted(parse_qsl(my_url.query)):
        problems.append(f"query {theirs_url.query!r} != {my_url.query!r}")
    my_headers = {k.lower(): v for k, v in mine.headers}
    if headers:
        for name in ("api-key", "authorization"):
            if sdk.headers.get(name) != my_headers.get(name):
                problems.append(f"header {name} differs ({'set' if name in sdk.headers else 'unset'} in the SDK)")
    sent, my_body = json.loads(sdk.content), json.loads(mine.body)
    for field in ("model", "stream"):
        if sent.get(field, False) != my_body.get(field, False):
            problems.append(f"body {field} {sent.get(field)!r} != {my_body.get(field)!r}")
    print(("ok    " if not problems else "DIFF  ") + case + ("" if not problems else ": " + "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
