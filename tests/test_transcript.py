"""JSON text in and out: ``to_json``/``from_json`` on every wire type, and transcripts in files."""

from __future__ import annotations

import enum
import io
import json
import os
import pathlib
import pickle
import random
import tempfile
import tracemalloc
import unittest
import warnings
from typing import Any
from unittest import mock

import agentkit_core as ak

HERE = os.path.dirname(os.path.abspath(__file__))
WIRE = os.path.join(HERE, "vectors", "reference-wire.tsv")
JUDGED = os.path.join(HERE, "vectors", "reference-judged.tsv")
PAYLOADS = os.path.join(HERE, "payloads")
DEEP = 100_000
QUOTE = '"'


def reference(value: object) -> str:
    """The reference's compact form, as the issue defines it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def wire_types() -> list[type]:
    """Every public class of the package that has ``from_dict``."""
    return sorted(
        (t for t in (getattr(ak, name) for name in ak.__all__) if isinstance(t, type) and hasattr(t, "from_dict")),
        key=lambda t: t.__name__,
    )


def samples() -> list[object]:
    """One or more values of every wire type."""
    call = ak.ToolCallPart(ak.ToolCallId("c1"), "get_weather", {"city": "Paris", "deep": [[{"x": None}]]})
    image = ak.MediaPart(ak.Modality.IMAGE, "image/png", ak.InlineBytes(b"\x89PNG"), metadata={"k": "\u202e"})
    parts = [
        ak.TextPart("h\u00e9llo \U0001f389 \x1b[2J", metadata={"openai.id": "x"}),
        image,
        ak.FilePart(ak.Uri("https://example.com/a.pdf"), name="a.pdf", mime_type="application/pdf"),
        ak.StructuredPart({"a": [1, 2.5, True, None]}, schema={"type": "object"}),
        ak.ReasoningPart("thinking", data=ak.InlineText("sig"), redacted=True),
        call,
        ak.ToolResultPart(ak.ToolCallId("c1"), ak.ToolOutput.parts([ak.TextPart("sunny")]), is_error=True),
        ak.CustomPart("anthropic.server_tool_use", data=ak.Handle(ak.ArtifactId("art-1")), value=[1, "two"]),
    ]
    usage = ak.Usage(ak.TokenUsage(10, 5, reasoning_tokens=2), cost=ak.CostUsage(0.25, "USD", provider_amount="0.25"),
                     metadata={"gemini.x": 1})
    item = ak.Item(ak.ItemKind.ASSISTANT, parts, id=ak.MessageId("msg-1"), usage=usage,
                   finish_reason=ak.FinishReason.other("pause_turn"), created_at=ak.Timestamp(1_784_000_000_000))
    deltas = [
        ak.BeginPart(ak.PartId("p"), ak.PartKind.TEXT),
        ak.AppendText(ak.PartId("p"), "chunk"),
        ak.AppendBytes(ak.PartId("p"), b"\x00\xff"),
        ak.ReplaceStructured(ak.PartId("p"), {"v": 1}),
        ak.SetMetadata(ak.PartId("p"), {"agentkit.tool_name": "n"}),
        ak.CommitPart(ak.TextPart("done"), part_id=ak.PartId("p")),
    ]
    outputs = [ak.ToolOutput.text("t"), ak.ToolOutput.structured({"s": 1}), ak.ToolOutput.parts([parts[0]]),
               ak.ToolOutput.files([parts[2]])]
    refs = [ak.InlineText("t"), ak.InlineBytes(b"\x01"), ak.Uri("u"), ak.Handle(ak.ArtifactId("h"))]
    ids = [ak.SessionId("s"), ak.TurnId("t"), ak.MessageId("m"), ak.ToolCallId("c"), ak.ToolResultId("r"), ak.TaskId("k"),
           ak.ProviderMessageId("p"), ak.ArtifactId("a"), ak.PartId("q"), ak.ApprovalId("v")]
    enums = [*ak.ItemKind, *ak.PartKind, *ak.Modality]
    return [item, *parts, *deltas, *outputs, *refs, *ids, *enums, usage, usage.tokens, usage.cost,
            ak.FinishReason.COMPLETED, ak.FinishReason.other("x"), ak.MetadataMap({"b": [1], "a": {"c": "\ud7ff"}}),
            ak.Timestamp(0), ak.ToolSpec("grep", "Search", {"type": "object"}, output_schema=True, metadata={"k": 1}),
            ak.ToolAnnotations(destructive_hint=True), ak.ToolChoice.tool("grep", parallel=False),
            ak.ModelSettings(max_tokens=64, temperature=0.5, stop=["END"], output_schema={"type": "object"})]


class TestJsonText(unittest.TestCase):
    def test_every_wire_type_has_both_methods_and_samples_cover_them(self) -> None:
        covered = {type(v) for v in samples()}
        for t in wire_types():
            with self.subTest(type=t.__name__):
                self.assertTrue(callable(getattr(t, "from_json", None)))
                self.assertTrue(callable(getattr(t, "to_json", None)))
                self.assertTrue(any(issubclass(c, t) for c in covered), f"no sample of {t.__name__}")

    def test_to_json_is_the_reference_form_and_from_json_reads_it_back(self) -> None:
        for value in samples():
            with self.subTest(value=repr(value)[:80]):
                text = value.to_json()  # type: ignore[attr-defined]
                self.assertIsInstance(text, str)
                self.assertEqual(text, reference(value.to_dict()))  # type: ignore[attr-defined]
                for cls in type(value).__mro__:  # the variant and its public family base
                    if getattr(ak, cls.__name__, None) is cls and hasattr(cls, "from_dict"):
                        back = cls.from_json(text)  # type: ignore[attr-defined]
                        self.assertEqual(back, value)
                        self.assertIs(type(back), type(value))
                self.assertEqual(type(value).from_json(text.encode("utf-8")), value)  # type: ignore[attr-defined]
                self.assertEqual(type(value).from_json(bytearray(text.encode("utf-16"))), value)  # type: ignore[attr-defined]

    def test_byte_identical_to_the_reference_vectors(self) -> None:
        with open(WIRE, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                name, text = line.rstrip("\n").split("\t", 1)
                with self.subTest(line=n, type=name):
                    self.assertEqual(getattr(ak, name).from_json(text).to_json(), text)

    def test_judged_vectors_accepted_and_refused_as_the_reference_did(self) -> None:
        with open(JUDGED, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        for n, (name, text, verdict, written) in enumerate(rows, 1):
            with self.subTest(line=n, type=name):
                if verdict == "ok":
                    self.assertEqual(getattr(ak, name).from_json(text).to_json(), written)
                else:
                    self.assertRaises(ak.NormalizeError, getattr(ak, name).from_json, text)

    def test_a_variant_reads_only_itself(self) -> None:
        text = ak.TextPart("x").to_json()
        self.assertEqual(ak.Part.from_json(text), ak.TextPart("x"))
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.MediaPart.from_json(text)
        self.assertIn("expected a MediaPart, found a TextPart", str(caught.exception))

    def test_invalid_json_raises_normalize_error(self) -> None:
        for text in ("", "{", '{"kind": "User",}', "[1, 2", "NaN", '{"x": Infinity}', b"\xff\xfe\xfd", "\ud800", "{} {}"):
            with self.subTest(text=text):
                with self.assertRaises(ak.NormalizeError) as caught:
                    ak.Item.from_json(text)
                self.assertTrue(caught.exception.message.startswith("invalid JSON"), caught.exception.message)

    def test_wrong_field_raises_with_the_path(self) -> None:
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.Item.from_json('{"kind": "User", "parts": [{"Text": {"text": 5, "metadata": {}}}], "metadata": {}}')
        self.assertEqual((caught.exception.path, caught.exception.location), ("parts[0].Text.text", ""))

    def test_not_text_is_a_type_error(self) -> None:
        for value in (None, 5, {"kind": "User"}, memoryview(b"{}")):
            with self.subTest(value=value):
                with self.assertRaises(TypeError):
                    ak.Item.from_json(value)  # type: ignore[arg-type]
                with self.assertRaises(TypeError):
                    ak.parse_json(value)  # type: ignore[arg-type]

    def test_values_still_have_no_instance_dict(self) -> None:
        for value in samples():
            with self.subTest(type=type(value).__name__):
                if not isinstance(value, enum.Enum):  # enum members are not slotted
                    self.assertFalse(hasattr(value, "__dict__"))


class TestLocatedErrors(unittest.TestCase):
    def test_location_path_and_message(self) -> None:
        err = ak.NormalizeError("invalid type: integer `5`, expected a string", "parts[0].Text.text", "turn.jsonl:3")
        self.assertEqual(str(err), "turn.jsonl:3: parts[0].Text.text: invalid type: integer `5`, expected a string")
        self.assertEqual(str(ak.NormalizeError("bad", "", "f.json")), "f.json: bad")
        self.assertEqual(str(ak.NormalizeError("bad")), "bad")
        self.assertEqual(str(err.under("[2]")), "turn.jsonl:3: [2].parts[0].Text.text: invalid type: integer `5`, expected a string")

    def test_pickles_with_and_without_location(self) -> None:
        for err in (ak.NormalizeError("m", "p", "f:1"), ak.NormalizeError("m", "p"), ak.NormalizeError("m")):
            with self.subTest(err=str(err)):
                back = pickle.loads(pickle.dumps(err))
                self.assertEqual((type(back), back.args, str(back), back.location), (type(err), err.args, str(err), err.location))



def transcript() -> list[ak.Item]:
    call = ak.ToolCallPart(ak.ToolCallId("call-1"), "get_weather", {"city": "Paris"})
    return [
        ak.Item.text(ak.ItemKind.USER, "What's the weather in Paris? \u65e5\u672c \U0001f389"),
        ak.Item(ak.ItemKind.ASSISTANT, [ak.TextPart("Let me look."), call], id=ak.MessageId("msg-2"),
                usage=ak.Usage(ak.TokenUsage(12, 7)), finish_reason=ak.FinishReason.TOOL_CALL),
        ak.Item(ak.ItemKind.TOOL, [ak.ToolResultPart(ak.ToolCallId("call-1"), ak.ToolOutput.text("sunny, 21 C"))]),
    ]


def bad_transcript() -> list[dict]:
    """The transcript's wire dicts with the third item's first text made a number."""
    wire = [i.to_dict() for i in transcript()]
    wire[2]["parts"][0]["ToolResult"]["output"] = {"Text": 5}
    return wire


def mangled(rng: random.Random, count: int) -> list[bytes]:
    """``count`` files made from good ones by deleting, inserting and overwriting a few bytes."""
    item = transcript()[1]
    bases = [
        (item.to_json() + "\n") * 2,
        json.dumps([item.to_dict()] * 2, indent=2),
        json.dumps(item.to_dict(), indent=1),
        "event: message_start\ndata: {}\n\n",
        "",
    ]
    alphabet = b'[]{}",:\n\r \t\\0aeu\x00\xff\xef\xbb\xbf'
    files = []
    for _ in range(count):
        data = bytearray(rng.choice(bases).encode())
        for _ in range(rng.randrange(1, 6)):
            pos = rng.randrange(len(data) + 1)
            op = rng.randrange(3)
            if op == 0:
                del data[pos : pos + rng.randrange(1, 20)]
            elif op == 1 or not data:
                data[pos:pos] = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 5)))
            else:
                data[min(pos, len(data) - 1)] = rng.choice(alphabet)
        files.append(bytes(data))
    return files


class Files(unittest.TestCase):
    """A temporary directory per test, to write input files into."""

    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def write(self, name: str, data: str | bytes) -> str:
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        return path

    def every_way(self, name: str, data: str | bytes) -> list[tuple[str, object]]:
        """The same content as a str path, a PathLike, binary and text files, BytesIO and StringIO."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path = self.write(name, raw)
        binary = open(path, "rb")
        text = open(path, encoding="utf-8", newline="")
        self.addCleanup(binary.close)
        self.addCleanup(text.close)
        return [("str path", path), ("PathLike", pathlib.Path(path)), ("binary file", binary), ("text file", text),
                ("BytesIO", io.BytesIO(raw)), ("StringIO", io.StringIO(raw.decode("utf-8")))]

    def assert_refused(self, source: object, location: str, path: str, message: str) -> ak.NormalizeError:
        with self.assertRaises(ak.NormalizeError) as caught:
            ak.load_items(source)  # type: ignore[arg-type]
        err = caught.exception
        self.assertEqual((err.location, err.path, err.message), (location, path, message))
        self.assertEqual(str(err), ": ".join(p for p in (location, path, message) if p))
        return err


class TestLoadItems(Files):
    def test_the_shapes_people_have(self) -> None:
        items = transcript()
        wire = [i.to_dict() for i in items]
        lines = [i.to_json() for i in items]
        shapes = {
            "JSON Lines": "\n".join(lines) + "\n",
            "JSON Lines, no final newline": "\n".join(lines),
            "JSON Lines, CRLF": "\r\n".join(lines) + "\r\n",
            "JSON Lines, blank lines and a BOM": "\ufeff\n\n" + "\n \n\t\n".join(lines) + "\n\n",
            "JSON Lines of pretty-printed JSON (jq's output)": "\n".join(json.dumps(w, indent=2) for w in wire),
            "compact array": reference(wire),
            "compact array, newline": json.dumps(wire) + "\n",
            "pretty array": json.dumps(wire, indent=2, ensure_ascii=False),
            "pretty array, CRLF": json.dumps(wire, indent=4).replace("\n", "\r\n"),
            "one element a line": "[\n" + ",\n".join(lines) + "\n]\n",
        }
        for shape, text in shapes.items():
            for way, source in self.every_way("t.json", text):
                with self.subTest(shape=shape, source=way):
                    self.assertEqual(ak.load_items(source), items)  # type: ignore[arg-type]
        single = {"compact": lines[1], "pretty": json.dumps(wire[1], indent=2), "pretty, BOM": "\ufeff" + json.dumps(wire[1], indent=1),
                  "an array of one, one element a line": "[\n" + lines[1] + "\n]", "the same, CRLF": "[\r\n" + lines[1] + "\r\n]\r\n"}
        for shape, text in single.items():
            for way, source in self.every_way("one.json", text):
                with self.subTest(single=shape, source=way):
                    self.assertEqual(ak.load_items(source), [items[1]])  # type: ignore[arg-type]

    def test_nothing_is_no_items(self) -> None:
        for text in ("", "\n\n", " \r\n", "\ufeff", "[]", " [ ]\n", "[\n]\n", "\n[\n\n  ]"):
            for way, source in self.every_way("e.jsonl", text):
                with self.subTest(text=text, source=way):
                    self.assertEqual(ak.load_items(source), [])  # type: ignore[arg-type]

    def test_a_bad_item_names_the_line_and_the_field(self) -> None:
        wire = bad_transcript()
        message = "invalid type: integer `5`, expected a string"
        path = self.write("turn.jsonl", "\n\n".join(reference(w) for w in wire) + "\n")  # the bad item on line 5
        self.assert_refused(path, f"{path}:5", "parts[0].ToolResult.output.Text", message)
        self.assert_refused(io.StringIO("\n".join(reference(w) for w in wire)), "<stream>:3", "parts[0].ToolResult.output.Text", message)
        pretty = json.dumps(wire, indent=2)
        line = pretty.count("\n", 0, pretty.rindex("{", 0, pretty.index('"kind": "Tool"'))) + 1  # where it starts
        self.assert_refused(self.write("a.json", pretty), f"{self.dir}/a.json:{line}", "[2].parts[0].ToolResult.output.Text", message)
        self.assert_refused(io.BytesIO(reference(wire).encode()), "<stream>:1", "[2].parts[0].ToolResult.output.Text", message)
        self.assert_refused(io.StringIO(json.dumps(wire[2], indent=2)), "<stream>:1", "parts[0].ToolResult.output.Text", message)

    def test_items_before_the_bad_one_are_yielded(self) -> None:
        wire = bad_transcript()
        for text in ("\n".join(reference(w) for w in wire), json.dumps(wire, indent=2)):
            with self.subTest(text=text[:20]):
                got = ak.iter_items(io.StringIO(text))
                self.assertEqual([next(got), next(got)], transcript()[:2])
                self.assertRaises(ak.NormalizeError, next, got)

    def test_invalid_json_names_the_line(self) -> None:
        good = transcript()[0].to_json()
        cases = {
            good + "\n" + good[:30] + "\n": (2, f"invalid JSON: Unterminated string starting at: column {good.rindex(QUOTE, 0, 30) + 1}"),
            good + "\n{\"x\": NaN}\n": (2, "invalid JSON: NaN is not a JSON number (NaN and infinities are refused)"),
            good + "\r\n\r\n" + good + " }\r\n": (3, "invalid JSON: Extra data: column " + str(len(good) + 2)),
            "[\n" + good + ",\n" + good: (3, "invalid JSON: the array is not closed"),
            "[\n" + good + ",\n]\n": (3, "invalid JSON: Expecting value: column 1"),
            "[" + good + "] x": (1, "invalid JSON: extra data after the array"),
            "[" + good + " " + good + "]": (1, "invalid JSON: expected ',' or ']' after an array element"),
            '{\n  "kind": "User",\n  "parts": [\n': (3, "invalid JSON: Expecting value: column 13"),
            "x\ny\n": (1, "invalid JSON: Expecting value: column 1"),
            "[\n] x": (2, "invalid JSON: extra data after the array"),
        }
        pretty = json.dumps(transcript()[0].to_dict(), indent=1)
        cases[pretty + "\n{\n"] = (pretty.count("\n") + 2, "invalid JSON: Expecting property name enclosed in double quotes: column 2")
        for text, (line, message) in cases.items():
            with self.subTest(text=text[:60]):
                self.assert_refused(io.StringIO(text), f"<stream>:{line}", "", message)
        self.assert_refused(io.BytesIO(good.encode() + b'\n{"a": "\xff"}\n'), "<stream>:2", "", "invalid UTF-8 at byte 8 of the line")
        self.assert_refused(io.BytesIO(b'[\n{"a": "\xff"}]'), "<stream>:2", "", "invalid UTF-8 at byte 8 of the line")

    def test_a_text_file_that_is_not_utf8(self) -> None:
        good = transcript()[0].to_json().encode()
        undecodable = "invalid UTF-8 at or after this line (open the file in binary mode to find it): "

        def refused_at_or_before(line: int, f: object) -> None:  # a text stream decodes ahead of its lines
            with self.assertRaises(ak.NormalizeError) as caught:
                ak.load_items(f)  # type: ignore[arg-type]
            self.assertEqual(caught.exception.message, undecodable + "invalid continuation byte")
            name, _, at = caught.exception.location.rpartition(":")
            self.assertEqual(name, f.name)  # type: ignore[attr-defined]
            self.assertLessEqual(int(at), line)

        path = self.write("latin1.jsonl", (good + b"\n") * 100 + good[:20] + b"\xe9" + good[20:] + b"\n" + good)
        with open(path, encoding="utf-8") as f:  # past the first 8 KiB
            refused_at_or_before(101, f)
        with open(path, "rb") as f:
            self.assert_refused(f, f"{path}:101", "", "invalid UTF-8 at byte 21 of the line")
        with open(self.write("doc.json", b"[" + good + b",\n" * 9000 + good[:20] + b"\xe9]"), encoding="utf-8") as f:
            refused_at_or_before(9001, f)
        with open(self.write("short.jsonl", good[:20] + b"\xe9" + good[20:]), encoding="utf-8") as f:
            self.assert_refused(f, f.name, "", "not a transcript: text that is not UTF-8")

    def test_what_is_not_a_transcript_says_what_it_looks_like(self) -> None:
        def payload(*parts: str) -> bytes:
            with open(os.path.join(PAYLOADS, *parts), "rb") as f:
                return f.read()

        package = ak.__name__
        cases = {
            b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8: "binary data",
            "\ufeffhi".encode("utf-16"): "UTF-16 text (transcripts are UTF-8)",
            bytes(range(128, 256)) * 4: "binary data",
            b"5": "a JSON number",
            b'"hello"\n': "a JSON string",
            b"[1, 2]": "a JSON array whose first element is a JSON number",
            b"[true]": "a JSON array whose first element is a JSON boolean",
            b"null\n": "a JSON null",
            b'{}\n{"kind": "User", "parts": [], "metadata": {}}\n': "JSON Lines whose first line is an empty JSON object",
            b"event: ping\ndata: [DONE]\n\n": "server-sent events (text/event-stream)",
            b'{"role": "model", "parts": [{"text": "Sunny."}]}':
                f"a Gemini content object; read it with {package}.providers.gemini",
            b'{"a": 1, "b": 2}': "a JSON object with keys 'a', 'b'",
            b'{"\\u001b[2J": 1}\n{}\n': "JSON Lines whose first line is a JSON object with key '\\x1b[2J'",
            b'[{"role": "user", "content": "hi"}]': "a JSON array whose first element is a chat message (role and content)",
            b'{"BeginPart": {"part_id": "p", "kind": "Text"}}\n': "an agentkit delta",
            payload("anthropic", "messages.refusal.response.json"):
                f"an Anthropic Messages response; read it with {package}.providers.anthropic",
            payload("openai_chat", "chat.parallel_tool_calls.stream.jsonl"):
                f"JSON Lines of OpenAI Chat Completions stream chunks; read it with {package}.providers.openai_chat",
            payload("openai_responses", "responses.function_call.sse.txt"):
                "server-sent events (text/event-stream) of OpenAI Responses stream events; "
                f"read it with {package}.providers.openai_responses",
            b"[" + payload("gemini", "generate_content.safety_block.response.json") + b"]":
                f"a JSON array of Gemini responses; read it with {package}.providers.gemini",
        }
        for data, what in cases.items():
            with self.subTest(what=what):
                self.assert_refused(io.BytesIO(data), "<stream>", "", f"not a transcript: {what}")

    def test_mangled_files_either_read_or_raise_normalize_error(self) -> None:
        rng = random.Random(20240611)
        for n, data in enumerate(mangled(rng, 1500)):
            for source in (io.BytesIO(data), io.StringIO(data.decode("utf-8", "replace"))):
                with self.subTest(n=n, data=data[:80], source=type(source).__name__):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        try:
                            items = ak.load_items(source)
                        except ak.NormalizeError as exc:
                            self.assertTrue(exc.message and exc.location.startswith("<stream>"), exc)
                        else:
                            self.assertTrue(all(isinstance(i, ak.Item) for i in items))
                    # the one warning: a torn last line, dropped (tests/test_sessions.py)
                    self.assertLessEqual(len(caught), 1)
                    for warning in caught:
                        self.assertIn("dropped a torn last line", str(warning.message))
                        self.assertFalse(data.endswith(b"\n"))

    def test_requests_holding_messages_are_told_apart(self) -> None:
        messages = [{"role": "user", "content": "hi"}]
        cases = [
            ({"model": "m", "messages": messages, "max_tokens": 5}, "anthropic"),  # Anthropic requires it
            ({"model": "m", "messages": messages}, "openai_chat"),
            ({"model": "m", "messages": messages, "system": "Be brief.", "max_tokens": 5}, "anthropic"),
            ({"model": "m", "messages": messages, "max_completion_tokens": 5}, "openai_chat"),
            ({"model": "m", "messages": messages, "max_tokens": 5, "tools": [{"type": "function", "function": {"name": "f"}}]}, "openai_chat"),
            ({"model": "m", "messages": messages, "tools": [{"name": "f", "input_schema": {}}]}, "anthropic"),
            ({"model": "m", "messages": [{"role": "system", "content": "x"}], "max_tokens": 5}, "openai_chat"),
            ({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}],
              "max_tokens": 5}, "openai_chat"),
            ({"model": "m", "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url"}}]}]}, "anthropic"),
        ]
        for request, module in cases:
            with self.subTest(request=request):
                with self.assertRaises(ak.NormalizeError) as caught:
                    ak.load_items(io.StringIO(json.dumps(request)))
                self.assertTrue(caught.exception.message.endswith(f"read it with {ak.__name__}.providers.{module}"), caught.exception)

    def test_files_are_closed_only_when_opened_here(self) -> None:
        lines = "\n".join(i.to_json() for i in transcript())
        mine = io.StringIO(lines)
        self.assertEqual(len(ak.load_items(mine)), 3)
        self.assertFalse(mine.closed)
        path = self.write("t.jsonl", lines)
        with open(path, "rb") as f:
            reading = ak.iter_items(f)
            next(reading)
            reading.close()
            self.assertFalse(f.closed)

    def test_a_path_is_closed_when_its_first_read_fails(self) -> None:
        from agentkit_core import _reader

        class Failing(io.RawIOBase):
            def readable(self) -> bool:
                return True

            def readinto(self, buffer: object) -> int:
                raise OSError(5, "Input/output error")

        opened: list[io.RawIOBase] = []

        def fake_open(path: object, mode: str) -> io.RawIOBase:
            opened.append(Failing())
            return opened[-1]

        with mock.patch.object(_reader, "open", fake_open, create=True):
            self.assertRaises(OSError, ak.load_items, "anything.jsonl")
        self.assertTrue(opened and opened[0].closed)

    def test_missing_files_and_wrong_arguments(self) -> None:
        self.assertRaises(FileNotFoundError, ak.load_items, os.path.join(self.dir, "missing.jsonl"))
        self.assertRaises(IsADirectoryError, ak.load_items, self.dir)
        self.assertRaises(TypeError, ak.load_items, 5)
        self.assertRaises(TypeError, ak.dump_items, [], 5)

    def test_iter_items_streams_json_lines_in_constant_memory(self) -> None:
        item = ak.Item(ak.ItemKind.USER, [ak.TextPart("x" * 2000)])
        path = os.path.join(self.dir, "big.jsonl")
        ak.dump_items((item.with_id(ak.MessageId(f"msg-{n}")) for n in range(2000)), path)
        size = os.path.getsize(path)
        self.assertGreater(size, 4_000_000)
        tracemalloc.start()
        try:
            count = sum(1 for _ in ak.iter_items(path))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual(count, 2000)
        self.assertLess(peak, size // 10, f"peak {peak:,} bytes for a {size:,}-byte file: it was not streamed")


    def test_iter_items_yields_each_line_of_a_pipe_as_it_arrives(self) -> None:
        # A pipe gives what has been written so far, one read at a time; the reader must not
        # wait for a buffer's worth (or the end) before yielding, nor block where a Ctrl-C
        # that arrived meanwhile cannot reach it.
        lines = [ak.Item.text(ak.ItemKind.USER, f"line {n}").to_json().encode() + b"\n" for n in range(6)]
        reads: list[int] = []

        class Pipe(io.RawIOBase):
            def readable(self) -> bool:
                return True

            def readinto(self, buffer: Any) -> int:
                reads.append(len(reads))
                if len(reads) > len(lines):
                    return 0
                line = lines[len(reads) - 1]
                buffer[: len(line)] = line
                return len(line)

        items = ak.iter_items(io.BufferedReader(Pipe()))
        for n in range(len(lines)):
            self.assertEqual(next(items).text_content(), f"line {n}")
            self.assertLessEqual(len(reads), n + 3, "read ahead of the lines it has yielded")
        self.assertEqual(list(items), [])

class TestDumpItems(Files):
    def test_json_lines_one_compact_item_a_line(self) -> None:
        items = transcript()
        expected = "".join(reference(i.to_dict()) + "\n" for i in items).encode("utf-8")
        path = os.path.join(self.dir, "t.jsonl")
        ak.dump_items(items, path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), expected)
        ak.dump_items(iter(items), pathlib.Path(path))  # overwritten, from an iterator
        with open(path, "rb") as f:
            self.assertEqual(f.read(), expected)
        binary, text = io.BytesIO(), io.StringIO()
        ak.dump_items(items, binary)
        ak.dump_items(items, text)
        self.assertEqual(binary.getvalue(), expected)
        self.assertEqual(text.getvalue(), expected.decode("utf-8"))
        with open(path, "w", encoding="utf-8", newline="") as f:
            ak.dump_items(items, f)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), expected)
        self.assertEqual(ak.load_items(path), items)

    def test_file_likes_that_are_not_io_classes(self) -> None:
        class Writer:
            def __init__(self, mode: str | None) -> None:
                self.chunks: list[object] = []
                if mode is not None:
                    self.mode = mode

            def write(self, chunk: object) -> None:
                self.chunks.append(chunk)

        items = transcript()
        for mode, kind in (("wb", bytes), ("w", str), (None, str)):
            with self.subTest(mode=mode):
                out = Writer(mode)
                ak.dump_items(items, out)  # type: ignore[arg-type]
                self.assertEqual({type(c) for c in out.chunks}, {kind})
                self.assertEqual(len(out.chunks), len(items))

    def test_anything_but_an_item_is_refused_by_position(self) -> None:
        out = io.StringIO()
        with self.assertRaises(TypeError) as caught:
            ak.dump_items([transcript()[0], transcript()[0].to_dict()], out)  # type: ignore[list-item]
        self.assertIn("items[1]: expected an Item, found dict", str(caught.exception))
        self.assertEqual(out.getvalue().count("\n"), 1)

    def test_round_trip_of_empty_and_of_every_sample(self) -> None:
        out = io.BytesIO()
        ak.dump_items([], out)
        self.assertEqual(out.getvalue(), b"")
        self.assertEqual(ak.load_items(io.BytesIO(out.getvalue())), [])
        item = next(v for v in samples() if isinstance(v, ak.Item))
        ak.dump_items([item, item], out)
        self.assertEqual(ak.load_items(io.BytesIO(out.getvalue())), [item, item])


class TestNestingBounded(unittest.TestCase):
    """Text nested 100,000 deep is refused before it reaches the parser, at every entry point."""

    MESSAGE = "recursion limit exceeded: containers nest deeper than 127 levels"

    def deep(self, opener: str = "[") -> str:
        """Valid JSON nested ``DEEP`` levels: arrays, or objects."""
        return '{"a":' * DEEP + "1" + "}" * DEEP if opener == "{" else "[" * DEEP + "]" * DEEP

    def test_from_json_of_every_wire_type(self) -> None:
        deep = self.deep().encode()
        for t in wire_types():
            with self.subTest(type=t.__name__):
                with self.assertRaises(ak.NormalizeError) as caught:
                    t.from_json(deep)
                self.assertEqual(caught.exception.message, self.MESSAGE)
        for text in (self.deep("{"), "[" * DEEP, '{"kind": "User", "parts": ' + "[" * DEEP):
            with self.subTest(text=text[:30]):
                with self.assertRaises(ak.NormalizeError) as caught:
                    ak.Item.from_json(text)
                self.assertEqual(caught.exception.message, self.MESSAGE)

    def test_parse_json(self) -> None:
        with self.assertRaises(ak.NormalizeError):
            ak.parse_json(self.deep())

    def test_file_readers(self) -> None:
        good = transcript()[0].to_json()
        deep_item = good.replace('"metadata":{}', '"metadata":{"x":' + self.deep() + "}", 1)
        cases = {
            "a deep line of JSON Lines": (good + "\n" + deep_item + "\n" + good, "<stream>:2"),
            "a deep first line": (deep_item + "\n" + good, "<stream>:1"),
            "a deep array": ("[\n" + good + ",\n" + deep_item + "\n]", "<stream>:1"),
            "a deep single line": (self.deep(), "<stream>:1"),
            "an unclosed deep line": ("[" * DEEP, "<stream>:1"),
            "a deep pretty document": ("{\n" + '"a":\n' + self.deep() + "\n}", "<stream>:1"),
        }
        for name, (text, location) in cases.items():
            for source in (io.StringIO(text), io.BytesIO(text.encode())):
                with self.subTest(name, source=type(source).__name__):
                    with self.assertRaises(ak.NormalizeError) as caught:
                        ak.load_items(source)
                    self.assertEqual((caught.exception.location, caught.exception.message), (location, self.MESSAGE))

    def test_fold_finalize_of_deep_tool_arguments(self) -> None:
        state = ak.fold_all(ak.FoldState(), [ak.BeginPart(ak.PartId("c"), ak.PartKind.TOOL_CALL), ak.AppendText(ak.PartId("c"), self.deep())])
        (part,) = state.finalize()
        self.assertIn("recursion limit exceeded", str(part.metadata[ak.INPUT_ERROR_KEY]))


if __name__ == "__main__":
    unittest.main()
