"""agentkit_core.otel with the real ``opentelemetry-sdk``, when it is installed (it is no dependency: skips otherwise).

The spans go to the SDK's in-memory exporter.  Every value must come out as
one of the primitive types every SDK takes (a string, a number, a tuple of
strings): recent SDKs also keep structured values, which older ones drop.
"""

from __future__ import annotations

import json
import unittest
from typing import Any

from agentkit_core import ToolCallId, ToolCallPart, ToolOutput, ToolResultPart, otel
from tests import recorded as R
from tests.capability import needs_library

try:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError:  # pragma: no cover - depends on the environment
    TracerProvider = None


@needs_library("opentelemetry-sdk", "opentelemetry.sdk.trace")
class WithTheSdk(unittest.TestCase):
    def setUp(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("agentkit_core.tests")

    def tearDown(self) -> None:
        self.provider.shutdown()

    def record(self, attributes: dict[str, Any], kind: Any) -> Any:
        with self.assertNoLogs("opentelemetry", level="WARNING"):
            with self.tracer.start_as_current_span(otel.span_name(attributes), kind=kind) as span:
                span.set_attributes(attributes)
                if "error.type" in attributes:
                    span.set_status(Status(StatusCode.ERROR))
        (finished,) = self.exporter.get_finished_spans()
        self.exporter.clear()
        recorded = dict(finished.attributes)
        self.assertEqual(recorded.keys(), attributes.keys())
        for key, value in recorded.items():
            if isinstance(value, tuple):
                self.assertTrue(all(isinstance(v, str) for v in value), key)
                value = list(value)
            else:
                self.assertIsInstance(value, (str, int, float, bool), key)
            self.assertEqual(value, attributes[key], key)
        return finished

    def test_a_model_call_span(self) -> None:
        sent = R.items("anthropic", "messages.thinking_tool_result_followup.request.json")
        answer = R.items("anthropic", "messages.thinking_tool_result_followup.response.json")
        attributes = otel.span_attributes(
            sent, answer, provider="anthropic", request_model="claude-sonnet-4-20250514", capture_content=True
        )
        span = self.record(attributes, SpanKind.CLIENT)
        self.assertEqual(span.name, "chat claude-sonnet-4-20250514")
        self.assertEqual(span.kind, SpanKind.CLIENT)
        self.assertEqual(json.loads(span.attributes["gen_ai.output.messages"])[0]["finish_reason"], "stop")

    def test_every_recording_is_accepted(self) -> None:
        for provider in R.PROVIDERS:
            for name in R.names(provider, ".json") + R.names(provider, ".jsonl"):
                if name == "enums.json":
                    continue
                with self.subTest(provider=provider, name=name):
                    items = R.items(provider, name)
                    attributes = otel.span_attributes(
                        items, None if name.endswith(".request.json") else items, provider=provider, capture_content=True
                    )
                    self.record(attributes, SpanKind.CLIENT)

    def test_a_failed_tool_span(self) -> None:
        call = ToolCallPart(ToolCallId("call_1"), "get_weather", {"city": "Atlantis"})
        failed = ToolResultPart.error(ToolCallId("call_1"), ToolOutput.text("no such city"))
        span = self.record(otel.tool_span_attributes(call, failed, capture_content=True), SpanKind.INTERNAL)
        self.assertEqual(span.name, "execute_tool get_weather")
        self.assertEqual(span.attributes["error.type"], "_OTHER")
        self.assertEqual(span.status.status_code, StatusCode.ERROR)


if __name__ == "__main__":
    unittest.main()
