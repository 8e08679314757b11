"""A fake reporter: renders any parts as text, from any provider, with no provider branching.

It matches on the part classes and reads nothing but their fields and the
toolkit's own documented ``agentkit.*`` metadata keys: the fold's
``agentkit.input_json`` (a tool call's argument text while it streams, or
when it was not valid JSON) and ``agentkit.input_error``.  It never reads a
provider's keys, and it needs none: while a part is open, the fold renders the
header keys adapters send (``agentkit.tool_name``, ``agentkit.modality``...)
as the part's own fields, so an open tool call already has its name.

Use it on every snapshot of a stream::

    reporter = Reporter()
    for event in events:
        for delta in decoder.feed(event):
            state = fold(state, delta)
            screen = reporter.show(state.snapshot())
    print(render_item(decoder.finish(state.parts)))
"""

from __future__ import annotations

import json
from typing import Sequence

from agentkit_core import (
    CustomPart,
    DataRef,
    FilePart,
    FilesOutput,
    Handle,
    InlineBytes,
    InlineText,
    Item,
    JsonValue,
    MediaPart,
    Part,
    PartsOutput,
    ReasoningPart,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolOutput,
    ToolResultPart,
    Uri,
)

__all__ = ("Reporter", "render", "render_part", "render_item")

#: The fold's documented keys (``agentkit_core.fold``): argument text and its parse error.
INPUT_JSON = "agentkit.input_json"
INPUT_ERROR = "agentkit.input_error"


def _json(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)


def _data(data: DataRef | None) -> str:
    match data:
        case InlineBytes(value=raw):
            return f"{len(raw)} bytes"
        case InlineText(value=text):
            return f"{len(text)} characters inline"
        case Uri(value=uri):
            return uri
        case Handle(value=artifact):
            return f"artifact {artifact.value}"
        case _:
            return "no data"


def _output(output: ToolOutput) -> str:
    match output:
        case TextOutput(text=text):
            return text
        case StructuredOutput(value=value):
            return _json(value)
        case PartsOutput(parts=parts):
            return render(parts)
        case FilesOutput(files=files):
            return render(files)
        case _:
            return f"[{type(output).__name__}]"


def render_part(part: Part) -> str:
    """One part as text (possibly several lines)."""
    match part:
        case TextPart(text=text):
            return text
        case ReasoningPart(summary=summary, redacted=redacted):
            if redacted and not summary:
                return "(reasoning, redacted)"
            return f"(thinking) {summary or '...'}"
        case ToolCallPart(name=name, input=args, metadata=md):
            raw = md.get(INPUT_JSON)
            if args is None:  # arguments still streaming (or not valid JSON): show their text
                shown = raw if isinstance(raw, str) else ""
            else:
                shown = _json(args)
            broken = " (arguments are not valid JSON)" if INPUT_ERROR in md else ""
            return f"calling {name or '...'}({shown}){broken}"
        case ToolResultPart(call_id=call_id, output=output, is_error=is_error):
            head = "failed" if is_error else "result"
            return f"{head} [{call_id.value or '...'}]: {_output(output)}"
        case MediaPart(modality=modality, mime_type=mime, data=data):
            return f"[{modality.value.lower()} {mime}, {_data(data)}]"
        case FilePart(data=data, name=name, mime_type=mime):
            head = f"[file {name or '(unnamed)'} ({mime or 'unknown type'}), {_data(data)}]"
            if isinstance(data, InlineText) and (mime or "").startswith("text/"):
                return f"{head}\n{data.value}"
            return head
        case StructuredPart(value=value):
            return _json(value)
        case CustomPart(kind=kind, data=data):
            return f"[{kind or 'custom'}{', ' + _data(data) if data is not None else ''}]"
        case _:
            return f"[{type(part).__name__}]"


def render(parts: Sequence[Part]) -> str:
    """Parts as text, one part after the other, separated by newlines."""
    return "\n".join(render_part(p) for p in parts)


def render_item(item: Item) -> str:
    """A finished item: its kind, its parts, then why it finished and what it cost."""
    lines = [f"{item.kind.value}:", render(item.parts)]
    tail = []
    if item.finish_reason is not None:
        reason = item.finish_reason
        tail.append(f"finished: {reason.detail if reason.is_other else reason.kind}")
    if item.usage is not None and item.usage.tokens is not None:
        tokens = item.usage.tokens
        tail.append(f"{tokens.input_tokens} tokens in, {tokens.output_tokens} out")
    if tail:
        lines.append("-- " + "; ".join(tail))
    return "\n".join(lines)


class Reporter:
    """Keeps what it showed: :meth:`show` one snapshot per delta, read :attr:`frames` after."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    def show(self, parts: Sequence[Part]) -> str:
        frame = render(parts)
        self.frames.append(frame)
        return frame
