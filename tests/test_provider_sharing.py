"""No decoded value shares a container with the native data it came from, on any provider.

The decoders hand native fields to the constructors as they are (the
constructors keep checked copies), so a caller who changes a body, a request or
a stream's events after decoding them must see no change in the items.  Every
recording of every provider is decoded, every object and array in its input
is then changed, and the items must be what they were.
"""

from __future__ import annotations

import unittest
from typing import Any, Callable

from tests import recorded


def scramble(value: Any) -> None:
    """Change every object and array inside ``value`` in place (a new key, a new element, a changed field)."""
    if isinstance(value, dict):
        for inner in list(value.values()):
            scramble(inner)
        for key in list(value):
            if not isinstance(value[key], (dict, list)):
                value[key] = "changed"
        value["scrambled"] = True
    elif isinstance(value, list):
        for inner in value:
            scramble(inner)
        value.append("scrambled")


class DecodedValuesOwnTheirData(unittest.TestCase):
    def check(self, provider: str, suffix: str, load: Callable[[str, str], Any], decode: Callable[[Any], Any]) -> None:
        for name in recorded.names(provider, suffix):
            with self.subTest(provider=provider, file=name):
                native = load(provider, name)
                items = decode(native)
                before = [item.to_dict() for item in items]
                scramble(native)
                self.assertEqual([item.to_dict() for item in items], before)

    def test_responses(self) -> None:
        for provider, module in recorded.PROVIDERS.items():
            self.check(provider, ".response.json", recorded.load, module.items_from_response)

    def test_requests(self) -> None:
        for provider, module in recorded.PROVIDERS.items():
            self.check(provider, ".request.json", recorded.load, module.items_from_request)

    def test_streams(self) -> None:
        for provider, module in recorded.PROVIDERS.items():
            self.check(provider, ".stream.jsonl", recorded.load_events, module.items_from_stream)


if __name__ == "__main__":
    unittest.main()
