"""Check ``agentkit_core.auth.google`` byte for byte against google-auth (offline).

    /work/venv/bin/python tools/compare_google_auth.py   # needs google-auth and cryptography

For the suite's test-only key and for keys made here (cryptography, 2048,
3072 and 4096 bits, ``e`` 65537 and 3), compares:

* the RS256 signature of several messages with ``google.auth.crypt.RSASigner``'s;
* a service account's JWT assertion with
  ``service_account.Credentials._make_authorization_grant_assertion()`` at the
  same instants (google-auth's clock stopped), with and without ``private_key_id``
  and with a ``subject``;
* the token requests (URL, form fields, content type) with what google-auth's
  ``refresh()`` sends for a service account and an authorized user, captured by
  a stand-in ``google.auth.transport.Request``.

Without google-auth or cryptography it says what is missing and exits 0.
"""

from __future__ import annotations

import calendar
import datetime
import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agentkit_core.auth._rsa import RsaKey  # noqa: E402
from agentkit_core.auth.google import AuthorizedUserCredentials, ServiceAccountCredentials  # noqa: E402

SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def main() -> int:
    try:
        import google.auth._helpers as helpers
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from google.auth.crypt import RSASigner
        from google.oauth2 import credentials as user_credentials, service_account
    except ImportError as exc:
        print(f"skipped: google-auth and cryptography are needed ({exc})")
        return 0

    with open(os.path.join(ROOT, "tests", "keys", "test_only_service_account.json")) as file:
        base = json.load(file)
    pems = [base["private_key"]]
    for bits, e in ((2048, 65537), (3072, 65537), (4096, 65537), (2048, 3)):
        key = rsa.generate_private_key(public_exponent=e, key_size=bits)
        pems.append(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode())
    checked = 0
    for pem in pems:
        ours_key, theirs = RsaKey.from_pem(pem), RSASigner.from_string(pem)
        for message in (b"", b"a", "é€😀".encode(), os.urandom(5000)):
            assert ours_key.sign(message) == theirs.sign(message), "signature differs"
            checked += 1
        for extra in ({}, {"private_key_id": None}, {"subject": "someone@example.com"}):
            info = {k: v for k, v in {**base, "private_key": pem, **extra}.items() if v is not None and k != "subject"}
            for instant in (datetime.datetime(2023, 11, 14, 22, 13, 20), datetime.datetime(2031, 1, 2, 3, 4, 5, 678000)):
                helpers.utcnow = lambda instant=instant: instant
                theirs_sa = service_account.Credentials.from_service_account_info(info, scopes=[SCOPE], subject=extra.get("subject"))
                expected = theirs_sa._make_authorization_grant_assertion().decode()
                made = ServiceAccountCredentials(info, subject=extra.get("subject")).assertion(calendar.timegm(instant.utctimetuple()))
                assert made == expected, f"assertion differs:\n{made}\n{expected}"
                checked += 1

    # The token requests, as google-auth's refresh() sends them.
    sent: list[dict[str, Any]] = []

    class Capture:
        def __call__(self, url: str, method: str = "GET", body: Any = None, headers: Any = None, **kwargs: Any) -> Any:
            sent.append({"url": url, "method": method, "body": body, "headers": dict(headers or {})})

            class Answer:
                status = 200
                headers: dict[str, str] = {}
                data = json.dumps({"access_token": "t", "expires_in": 3600}).encode()

            return Answer()

    instant = datetime.datetime(2024, 5, 6, 7, 8, 9)
    helpers.utcnow = lambda: instant
    info = {**base, "token_uri": "https://oauth2.example/token"}
    service_account.Credentials.from_service_account_info(info, scopes=[SCOPE]).refresh(Capture())
    ours = ServiceAccountCredentials(info)._token_request(calendar.timegm(instant.utctimetuple()))
    _same(ours, sent[-1])
    user = {"type": "authorized_user", "client_id": "id-1", "client_secret": "s-1", "refresh_token": "r-1"}
    user_credentials.Credentials.from_authorized_user_info(user, scopes=[SCOPE]).refresh(Capture())
    _same(AuthorizedUserCredentials(user)._token_request(0), sent[-1])
    checked += 2
    print(f"ok: {checked} comparisons equal to google-auth's")
    return 0


def _same(ours: Any, theirs: dict[str, Any]) -> None:
    body = theirs["body"].decode() if isinstance(theirs["body"], bytes) else theirs["body"]
    assert (ours.method, ours.url) == (theirs["method"], theirs["url"]), (ours.url, theirs["url"])
    assert parse_qs(ours.body.decode()) == parse_qs(body), (ours.body, body)
    assert ours.header("content-type") == {k.lower(): v for k, v in theirs["headers"].items()}["content-type"]


if __name__ == "__main__":
    sys.exit(main())
