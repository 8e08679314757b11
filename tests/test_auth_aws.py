"""AWS Signature Version 4: AWS's published test vectors, the signer on a request, credentials and secrets kept out of sight."""

from __future__ import annotations

import os
import pickle
import tempfile
import unittest

from agentkit_core.auth.aws import (
    EMPTY_SHA256,
    AwsCredentials,
    SigV4Signer,
    canonical_request,
    credentials_from_environment,
    region_from_environment,
    sign,
    signing_key,
    string_to_sign,
)
from agentkit_core.http import Request

# AWS's Signature Version 4 test suite (aws-sig-v4-test-suite, as awslabs/aws-c-auth carries it in
# tests/aws-signing-test-suite/v4/<name>/header-signed-request.txt and context.json): the request
# (method, path as written in the request line, query, extra headers), and its published signature.
# Every case signs at 2015-08-30T12:36:00Z in us-east-1 for the service "service".
KEY_ID = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
AMZ_DATE = "20150830T123600Z"
WHEN = 1440938160.0  # 2015-08-30T12:36:00Z
_UNRESERVED = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SUITE: dict[str, tuple[str, str, str, list[tuple[str, str]], str, str]] = {
    # name: (method, path, query, headers besides host and x-amz-date, signed headers, signature)
    "get-vanilla": ("GET", "/", "", [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    "post-vanilla": ("POST", "/", "", [], "host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    "get-vanilla-query-order-key-case": (
        "GET", "/", "Param2=value2&Param1=value1", [], "host;x-amz-date", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
    ),
    "get-vanilla-query-unreserved": (
        "GET", "/", f"{_UNRESERVED}={_UNRESERVED}", [], "host;x-amz-date", "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197",
    ),
    "get-unreserved": ("GET", f"/{_UNRESERVED}", "", [], "host;x-amz-date", "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
    "get-utf8": ("GET", "/\u1234", "", [], "host;x-amz-date", "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
    "get-space-normalized": ("GET", "/example space/", "", [], "host;x-amz-date", "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
    "get-slashes-normalized": ("GET", "//example//", "", [], "host;x-amz-date", "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
    "get-header-value-trim": (
        "GET", "/", "", [("My-Header1", " value1"), ("My-Header2", ' "a   b   c"')], "host;my-header1;my-header2;x-amz-date",
        "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736",
    ),
    "get-header-key-duplicate": (
        "GET", "/", "", [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")], "host;my-header1;x-amz-date",
        "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea",
    ),
    "get-vanilla-with-session-token": (
        "GET", "/", "", [("X-Amz-Security-Token", TOKEN)], "host;x-amz-date;x-amz-security-token",
        "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8",
    ),
}


def suite_signature(method: str, path: str, query: str, headers: list[tuple[str, str]]) -> tuple[str, str]:
    all_headers = [("Host", "example.amazonaws.com"), ("X-Amz-Date", AMZ_DATE), *headers]
    canonical, signed = canonical_request(method, path, query, all_headers, EMPTY_SHA256)
    scope = "20150830/us-east-1/service/aws4_request"
    import hashlib
    import hmac

    key = signing_key(SECRET, "20150830", "us-east-1", "service")
    return signed, hmac.new(key, string_to_sign(AMZ_DATE, scope, canonical).encode(), hashlib.sha256).hexdigest()


class PublishedVectors(unittest.TestCase):
    def test_signing_key(self) -> None:
        # AWS's documented derived key for this secret, date, region and service.
        self.assertEqual(signing_key(SECRET, "20150830", "us-east-1", "service").hex(), "938127b5336810ddb6a5d6af445fcac9e371f9ed418ed386b022aed82901be75")

    def test_suite(self) -> None:
        for name, (method, path, query, headers, signed, signature) in SUITE.items():
            with self.subTest(name):
                self.assertEqual(suite_signature(method, path, query, headers), (signed, signature))

    def test_sign_a_request_of_the_suite(self) -> None:
        credentials = AwsCredentials(KEY_ID, SECRET, TOKEN)
        signed = sign(Request("GET", "https://example.amazonaws.com/"), credentials, "us-east-1", "service", WHEN)
        self.assertEqual(signed.header("x-amz-date"), AMZ_DATE)
        self.assertEqual(signed.header("x-amz-security-token"), TOKEN)
        self.assertEqual(
            signed.header("authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8",
        )
        plain = sign(Request("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1"), AwsCredentials(KEY_ID, SECRET), "us-east-1", "service", WHEN)
        self.assertTrue(str(plain.header("authorization")).endswith("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"))


class Signing(unittest.TestCase):
    def test_path_on_the_wire_is_encoded_again(self) -> None:
        # A Bedrock model id percent-encoded in the URL (":" as %3A) is encoded once more in the canonical URI.
        canonical, _ = canonical_request("POST", "/model/a%3Ab/converse", "", [("host", "h")], EMPTY_SHA256)
        self.assertEqual(canonical.split("\n")[1], "/model/a%253Ab/converse")

    def test_dot_segments_and_port(self) -> None:
        canonical, _ = canonical_request("GET", "/a/./b/../c/", "", [("host", "h")], EMPTY_SHA256)
        self.assertEqual(canonical.split("\n")[1], "/a/c/")
        signed = sign(Request("POST", "http://127.0.0.1:8080/x", body=b"{}"), AwsCredentials(KEY_ID, SECRET), "us-east-1", "bedrock", WHEN)
        self.assertIn("SignedHeaders=host;x-amz-date,", str(signed.header("authorization")))

    def test_replaces_earlier_signature_and_skips_unsigned_headers(self) -> None:
        request = Request("POST", "https://h.example/", [("authorization", "old"), ("x-amz-date", "old"), ("User-Agent", "x"), ("content-type", "application/json")], b"{}")
        signed = sign(request, AwsCredentials(KEY_ID, SECRET), "us-east-1", "bedrock", WHEN, content_sha256=True)
        auth = [v for k, v in signed.headers if k.lower() == "authorization"]
        self.assertEqual(len(auth), 1)
        self.assertIn("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,", auth[0])
        self.assertEqual(signed.header("x-amz-content-sha256"), "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")

    def test_signer_signs_each_call_at_its_time(self) -> None:
        times = iter([WHEN, WHEN + 86400])
        signer = SigV4Signer(AwsCredentials(KEY_ID, SECRET), "us-east-1", "bedrock", clock=lambda: next(times))
        request = Request("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse", body=b"{}", auth=signer)
        first, second = request.signed(), request.signed()
        self.assertEqual((first.header("x-amz-date"), second.header("x-amz-date")), (AMZ_DATE, "20150831T123600Z"))
        self.assertIs(first.auth, signer)
        rotating = SigV4Signer(lambda: AwsCredentials("AKIDROTATED", SECRET), "us-east-1", "bedrock", clock=lambda: WHEN)
        self.assertIn("Credential=AKIDROTATED/", str(rotating(request).header("authorization")))

    def test_refusals(self) -> None:
        with self.assertRaises(TypeError):
            SigV4Signer("key", "us-east-1", "bedrock")  # type: ignore[arg-type]
        with self.assertRaisesRegex(ValueError, "SigV4Signer.region"):
            SigV4Signer(AwsCredentials(KEY_ID, SECRET), "", "bedrock")
        with self.assertRaisesRegex(ValueError, "AwsCredentials.secret_access_key"):
            AwsCredentials(KEY_ID, " ")
        with self.assertRaisesRegex(TypeError, "returned str"):
            SigV4Signer(lambda: "x", "us-east-1", "bedrock")(Request("GET", "https://h.example/"))  # type: ignore[arg-type,return-value]


class Secrets(unittest.TestCase):
    def test_never_shown(self) -> None:
        credentials = AwsCredentials(KEY_ID, SECRET, TOKEN)
        signer = SigV4Signer(credentials, "us-east-1", "bedrock", clock=lambda: WHEN)
        request = Request("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse", body=b"{}", auth=signer)
        signed = request.signed()
        signature = str(signed.header("authorization")).rpartition("=")[2]
        for text in (repr(credentials), repr(signer), repr(request), repr(signed), str(signed.redacted_headers())):
            for secret in (SECRET, TOKEN, signature):
                self.assertNotIn(secret, text)
        self.assertIn(TOKEN, signed.secrets())
        self.assertEqual(pickle.loads(pickle.dumps(credentials)), credentials)
        self.assertEqual(pickle.loads(pickle.dumps(SigV4Signer(credentials, "us-east-1", "bedrock"))).region, "us-east-1")


class Environment(unittest.TestCase):
    def test_variables(self) -> None:
        env = {"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "s3cr3t-env", "AWS_SESSION_TOKEN": "tok-env", "AWS_DEFAULT_REGION": "eu-west-1"}
        self.assertEqual(credentials_from_environment(env), AwsCredentials("AKIDENV", "s3cr3t-env", "tok-env"))
        self.assertEqual(region_from_environment(env), "eu-west-1")
        self.assertEqual(region_from_environment({**env, "AWS_REGION": "us-west-2"}), "us-west-2")

    def test_shared_files(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            creds, config = os.path.join(folder, "credentials"), os.path.join(folder, "config")
            with open(creds, "w") as f:
                f.write("[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n\n[work]\naws_access_key_id=AKIDWORK\naws_secret_access_key=work-secret\naws_session_token=work-token\n")
            with open(config, "w") as f:
                f.write("[default]\nregion = ap-south-1\n[profile work]\nregion = ca-central-1\n[profile other]\naws_access_key_id=AKIDCONF\naws_secret_access_key=conf-secret\n")
            env = {"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": config}
            self.assertEqual(credentials_from_environment(env), AwsCredentials("AKIDFILE", "file-secret"))
            self.assertEqual(region_from_environment(env), "ap-south-1")
            work = {**env, "AWS_PROFILE": "work"}
            self.assertEqual(credentials_from_environment(work), AwsCredentials("AKIDWORK", "work-secret", "work-token"))
            self.assertEqual(region_from_environment(work), "ca-central-1")
            self.assertEqual(credentials_from_environment({**env, "AWS_PROFILE": "other"}), AwsCredentials("AKIDCONF", "conf-secret"))
            self.assertIsNone(credentials_from_environment({**env, "AWS_PROFILE": "missing"}))
            self.assertIsNone(region_from_environment({"AWS_CONFIG_FILE": os.path.join(folder, "none")}))


if __name__ == "__main__":
    unittest.main()
