"""The words of argument errors written through ``_error_text.wrong_type``: ``<where>: expected <noun>, found <type>``.

Pins the messages of the constructors and functions that spell them through
the shared helper, so that moving a message onto it (or off it) cannot change
what a user reads.
"""

from __future__ import annotations

import io
import unittest

import agentkit_core as ak
from agentkit_core import otel
from agentkit_core.cancellation import TurnCancellation


class WrongTypeWords(unittest.TestCase):
    def message(self, call: object, *args: object, **kwargs: object) -> str:
        with self.assertRaises(TypeError) as caught:
            call(*args, **kwargs)  # type: ignore[operator]
        return str(caught.exception)

    def test_model_settings(self) -> None:
        S = ak.ModelSettings
        self.assertEqual(self.message(S, temperature="hot"), "ModelSettings.temperature: expected a number, found str")
        self.assertEqual(self.message(S, max_tokens=1.5), "ModelSettings.max_tokens: expected an integer, found float")
        self.assertEqual(self.message(S, reasoning_effort=3), "ModelSettings.reasoning_effort: expected a string, found int")
        self.assertEqual(self.message(S, stop="END"), "ModelSettings.stop: expected a sequence of strings, found str")
        self.assertEqual(self.message(S, stop=["a", 2]), "ModelSettings.stop[1]: expected a string, found int")
        self.assertEqual(
            self.message(S, output_schema=[1]), "ModelSettings.output_schema: expected a JSON Schema object (a dict), found list"
        )
        self.assertEqual(self.message(S, parallel_tool_calls=1), "ModelSettings.parallel_tool_calls: expected a boolean, found int")
        self.assertEqual(self.message(S.from_dict, [1]), "ModelSettings.from_dict: expected a mapping, found list")

    def test_otel_request_side(self) -> None:
        item = ak.Item.text(ak.ItemKind.USER, "hi")
        self.assertEqual(
            self.message(otel.span_attributes, [item], None, provider="anthropic", settings={"max_tokens": 5}),
            "span_attributes.settings: expected a ModelSettings, found dict",
        )
        self.assertEqual(
            self.message(otel.span_attributes, [item], None, provider="anthropic", request="https://example.com"),
            "span_attributes.request: expected an agentkit_core.http.Request, found str",
        )

    def test_cancellation(self) -> None:
        self.assertEqual(self.message(TurnCancellation, 5), "TurnCancellation: expected a CancellationHandle, found int")
        cancellation = TurnCancellation()
        self.assertEqual(self.message(cancellation.add_callback, 5), "cancellation callback: expected a callable, found int")

    def test_dump_items(self) -> None:
        self.assertEqual(self.message(ak.dump_items, [], 5), "dump_items: expected a path or a file open for writing, found int")
        self.assertEqual(
            self.message(ak.dump_items, [ak.Item.text(ak.ItemKind.USER, "hi"), "x"], io.StringIO()), "dump_items: items[1]: expected an Item, found str"
        )


if __name__ == "__main__":
    unittest.main()
