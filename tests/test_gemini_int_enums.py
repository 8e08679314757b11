"""Gemini answers with integer enums, as Vertex AI's REST transport asks for them (``$alt=json;enum-encoding=int``).

``"finishReason": 1`` reads as ``"STOP"``, and so does every enum an answer holds (finish and block reasons, the
usage details' modalities, safety ratings' probabilities), numbered as the aiplatform protos number them, in a
response and in a stream alike; a body of names is read as before.
"""

from __future__ import annotations

import unittest

from agentkit_core import FinishReason
from agentkit_core.providers import gemini

USAGE = {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7,
         "promptTokensDetails": [{"modality": 1, "tokenCount": 5}], "candidatesTokensDetails": [{"modality": 1, "tokenCount": 2}]}


def response(finish: object, **extra: object) -> dict[str, object]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": finish,
                            "safetyRatings": [{"category": 8, "probability": 1}]}],
            "usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash", "responseId": "r1", **extra}


class IntegerEnumsTest(unittest.TestCase):
    def test_a_response(self) -> None:
        (item,) = gemini.items_from_response(response(1))
        self.assertEqual(item.finish_reason, FinishReason.COMPLETED)
        self.assertEqual(item.metadata.get("agentkit.finish_reason"), "STOP")
        named = gemini.items_from_response({**response("STOP"), "usageMetadata": {
            **USAGE, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 5}],
            "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 2}]}})[0]
        self.assertEqual(item.usage, named.usage)  # the details' modalities read as their names
        for number, reason in ((2, FinishReason.MAX_TOKENS), (3, FinishReason.BLOCKED)):
            with self.subTest(number):
                self.assertEqual(gemini.items_from_response(response(number))[0].finish_reason, reason)
        odd = gemini.items_from_response(response(99))[0]
        self.assertEqual(odd.metadata.get("agentkit.finish_reason"), "99")

    def test_a_blocked_prompt(self) -> None:
        (item,) = gemini.items_from_response({"promptFeedback": {"blockReason": 1}, "usageMetadata": USAGE})
        self.assertEqual(item.finish_reason, FinishReason.BLOCKED)

    def test_a_stream(self) -> None:
        chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}], "usageMetadata": USAGE},
                  {"candidates": [{"content": {"role": "model", "parts": [{"text": "."}]}, "finishReason": 1}],
                   "usageMetadata": USAGE}]
        (item,) = gemini.items_from_stream(chunks)
        self.assertEqual((item.text_content(), item.finish_reason), ("Hi.", FinishReason.COMPLETED))
        decoder = gemini.stream_decoder()
        for chunk in chunks:
            decoder.feed(chunk)
        self.assertEqual(decoder.finish_reason, FinishReason.COMPLETED)

    def test_names_are_left_as_they_are(self) -> None:
        from agentkit_core.providers.gemini._response import named_enums

        named = {**response("STOP"), "usageMetadata": {
            **USAGE, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 5}],
            "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 2}]},
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP",
                            "safetyRatings": [{"category": 8, "probability": "NEGLIGIBLE"}]}]}
        self.assertEqual(named_enums(response(1)), named)
        self.assertIs(named_enums(named), named)  # nothing to name: the same object, no copy


if __name__ == "__main__":
    unittest.main()
