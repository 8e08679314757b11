"""Compare ``agentkit_core.auth.aws`` with botocore byte for byte: SigV4 signatures and event stream decoding.

    /work/venv/bin/python tools/sigv4_compare.py     # needs botocore; without it, says so and exits 0

For a set of requests (Bedrock's Converse with model ids, ARNs and
inference profiles percent-encoded as botocore encodes them; queries,
repeated and padded headers, session tokens, ports, bodies), signs each
with botocore's ``SigV4Auth`` and with :func:`agentkit_core.auth.aws.sign`
at the same time and checks the headers are equal.  Then decodes event
stream bodies (every header type, split anywhere) with botocore's
``EventStreamBuffer`` and with the package's decoder and checks the
messages are equal.  Exits 1 on the first difference, printing it.
"""

from __future__ import annotations

import datetime
import os
import random
import sys
from unittest import mock
from urllib.parse import quote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agentkit_core.auth.aws import AwsCredentials, sign  # noqa: E402
from agentkit_core.http import Request  # noqa: E402
from agentkit_core.http._eventstream import EventStreamDecoder  # noqa: E402

WHEN = datetime.datetime(2026, 3, 1, 8, 30, 5, tzinfo=datetime.timezone.utc)
MODELS = (
    "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "us.anthropic.claude-sonnet-4-20250514-v1:0",
    "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.meta.llama3-2-1b-instruct-v1:0",
    "arn:aws:bedrock:eu-west-1:123456789012:provisioned-model/abc def+x",
)


def cases() -> list[tuple[str, str, list[tuple[str, str]], bytes, AwsCredentials, str, str]]:
    plain = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    temporary = AwsCredentials("ASIAEXAMPLE", "secret/with+chars", "FwoGZXIvYXdzE" + "x" * 300)
    out = []
    for model in MODELS:
        for path in ("converse", "converse-stream"):
            url = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{quote(model, safe='')}/{path}"
            body = b'{"messages":[{"role":"user","content":[{"text":"hi \xc3\xa9"}]}]}'
            for creds in (plain, temporary):
                out.append(("POST", url, [("Content-Type", "application/json")], body, creds, "us-east-1", "bedrock"))
    out.append(("GET", "https://example.amazonaws.com/a/b?z=1&a=2&a=1&e=%20x", [("X-Thing", "  a   b  "), ("x-thing", "c")], b"", plain, "us-west-2", "service"))
    out.append(("POST", "http://127.0.0.1:8080/model/m/converse", [("content-type", "application/json"), ("User-Agent", "x")], b"{}", plain, "eu-west-1", "bedrock"))
    return out


def compare_signatures() -> int:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    failures = 0
    for method, url, headers, body, creds, region, service in cases():
        theirs = AWSRequest(method=method, url=url, headers=dict(headers), data=body)
        auth = SigV4Auth(Credentials(creds.access_key_id, creds.secret_access_key, creds.session_token or None), service, region)
        with mock.patch("botocore.auth.get_current_datetime", lambda *a, **k: WHEN.replace(tzinfo=None)):
            auth.add_auth(theirs)
        ours = sign(Request(method, url, headers, body), creds, region, service, WHEN.timestamp())
        want = {k.lower(): v for k, v in theirs.headers.items() if k.lower() in ("authorization", "x-amz-date", "x-amz-security-token")}
        got = {k.lower(): v for k, v in ours.headers if k.lower() in want}
        if want != got:
            failures += 1
            print(f"DIFFERENT: {method} {url}\n  botocore: {want.get('authorization')}\n  ours:     {got.get('authorization')}")
    print(f"sigv4: {len(cases())} requests, {failures} different")
    return failures


def compare_eventstream() -> int:
    from botocore.eventstream import EventStreamBuffer

    sys.path.insert(0, os.path.join(ROOT))
    from tests import frames

    rng = random.Random(36)
    failures = 0
    bodies = [
        frames.events(("messageStart", {"role": "assistant"}), ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "h\u00e9"}})),
        frames.frame({"t": True, "f": False, "b": (2, -5), "s": (3, 300), "i": (4, -70000), "l": (5, 2**40), "by": b"\x00\x01",
                      "st": "x", "ts": (8, 1_700_000_000_000), "u": (9, bytes(range(16)))}, b"payload"),
        frames.exception("throttlingException", "slow down"),
    ]
    for body in bodies:
        for _ in range(20):
            cuts = sorted(rng.sample(range(1, len(body)), min(5, len(body) - 1)))
            pieces = [body[a:b] for a, b in zip([0] + cuts, cuts + [len(body)])]
            buffer = EventStreamBuffer()
            theirs = []
            for piece in pieces:
                buffer.add_data(piece)
                theirs += [(dict(m.headers), bytes(m.payload)) for m in buffer]
            decoder = EventStreamDecoder()
            ours = []
            for piece in pieces:
                ours += [(m.headers, m.payload) for m in decoder.feed(piece)]
            decoder.end()
            if theirs != ours:
                failures += 1
                print(f"DIFFERENT event stream:\n  botocore: {theirs}\n  ours:     {ours}")
                break
    print(f"event stream: {len(bodies)} bodies, {failures} different")
    return failures


def main() -> int:
    try:
        import botocore  # noqa: F401
    except ImportError:
        print("botocore is not installed: nothing compared (pip install botocore)")
        return 0
    return 1 if compare_signatures() + compare_eventstream() else 0


if __name__ == "__main__":
    sys.exit(main())
