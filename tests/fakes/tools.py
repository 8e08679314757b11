"""Shell and filesystem tool results, built from the core's tool values alone.

Choices, and why:

* **A shell command** is ``StructuredOutput({"command", "exit_code", "stdout",
  "stderr"})``: three named fields a model reads at a glance, sent to providers
  as one JSON text (the reference crate's shell tool does the same).  It is
  ``is_error`` when the exit code is not 0, so providers with an error flag
  (Anthropic's ``is_error``) tell the model the command failed; a caller that
  knows better (``grep`` exits 1 on no match) may clear it.  Quotes,
  backslashes, newlines, NUL, ANSI escapes and emoji are ordinary characters of
  a JSON string: they need no escaping of ours and come back exactly.  Output
  that is not UTF-8 cannot be a JSON string at all; then the result is
  ``PartsOutput``: the same structured value (with that stream decoded with
  replacement characters, for the model) followed by a ``FilePart`` named
  ``stdout`` or ``stderr`` holding the exact bytes (``InlineBytes``).
  :func:`shell_output` reads either shape back.
* **A file read** is ``FilesOutput([FilePart(...)])`` named by its path, text or
  binary alike: a text file is ``InlineText`` with a ``text/*`` MIME type, a
  binary file ``InlineBytes``; reading a file always gives the same shape, and
  the data reference says which.
* **A directory listing** is ``StructuredOutput({"path", "entries": [{"name",
  "type", "size"}]})``, entries sorted by name.  A name that is not valid UTF-8
  (POSIX allows it) keeps a readable ``name`` and its exact bytes as
  ``name_bytes`` (a list of integers, the way the wire writes bytes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Literal

from agentkit_core import (
    FilePart,
    FilesOutput,
    InlineBytes,
    InlineText,
    JsonValue,
    PartsOutput,
    StructuredOutput,
    StructuredPart,
    TextOutput,
    ToolCallId,
    ToolResultPart,
)

__all__ = (
    "ShellOutput",
    "shell_result",
    "shell_output",
    "text_file_result",
    "binary_file_result",
    "DirEntry",
    "directory_result",
    "not_found_result",
)


@dataclass(frozen=True)
class ShellOutput:
    """What a command printed and how it exited, byte-exact."""

    stdout: bytes
    stderr: bytes
    exit_code: int


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def shell_result(call_id: ToolCallId, command: str, out: ShellOutput) -> ToolResultPart:
    """The result of running ``command``; see the module docstring for the shape."""
    value: dict[str, JsonValue] = {"command": command, "exit_code": out.exit_code}
    raw_streams: list[FilePart] = []
    for name, raw in (("stdout", out.stdout), ("stderr", out.stderr)):
        text = _utf8(raw)
        if text is None:
            text = raw.decode("utf-8", "replace")
            raw_streams.append(FilePart(InlineBytes(raw), name=name, mime_type="application/octet-stream"))
        value[name] = text
    output = PartsOutput((StructuredPart(value), *raw_streams)) if raw_streams else StructuredOutput(value)
    return ToolResultPart(call_id, output, is_error=out.exit_code != 0)


def shell_output(result: ToolResultPart) -> ShellOutput:
    """The exact output a :func:`shell_result` holds."""
    output = result.output
    exact: dict[str, bytes] = {}
    if isinstance(output, PartsOutput):
        first, *files = output.parts
        if not isinstance(first, StructuredPart):
            raise AssertionError(f"the first part is not structured: {first!r}")
        value = first.value
        for f in files:
            if isinstance(f, FilePart) and isinstance(f.data, InlineBytes) and f.name:
                exact[f.name] = f.data.value
    else:
        if not isinstance(output, StructuredOutput):
            raise AssertionError(f"not a shell result: {output!r}")
        value = output.value
    if not isinstance(value, dict):
        raise AssertionError(f"not an object: {value!r}")

    def stream(name: str) -> bytes:
        text = value[name]
        if not isinstance(text, str):
            raise AssertionError(f"{name} is not text: {text!r}")
        return exact.get(name, text.encode("utf-8"))

    code = value["exit_code"]
    if not isinstance(code, int):
        raise AssertionError(f"exit_code is not an integer: {code!r}")
    return ShellOutput(stream("stdout"), stream("stderr"), code)


def text_file_result(call_id: ToolCallId, path: str, text: str, mime_type: str = "text/plain") -> ToolResultPart:
    """A text file's contents, as a file named by its path."""
    return ToolResultPart(call_id, FilesOutput((FilePart(InlineText(text), name=path, mime_type=mime_type),)))


def binary_file_result(call_id: ToolCallId, path: str, data: bytes, mime_type: str = "application/octet-stream") -> ToolResultPart:
    """A binary file's exact bytes, as a file named by its path."""
    return ToolResultPart(call_id, FilesOutput((FilePart(InlineBytes(data), name=path, mime_type=mime_type),)))


@dataclass(frozen=True)
class DirEntry:
    """One directory entry; ``name`` as ``os.listdir`` gives it (``str``, or ``bytes``)."""

    name: str | bytes
    type: Literal["file", "dir", "symlink", "other"]
    size: int | None = None


def _entry(entry: DirEntry) -> dict[str, JsonValue]:
    raw = entry.name if isinstance(entry.name, bytes) else os.fsencode(entry.name)
    text = _utf8(raw)
    out: dict[str, JsonValue] = {"name": text if text is not None else raw.decode("utf-8", "replace")}
    if text is None:
        out["name_bytes"] = list(raw)
    out["type"] = entry.type
    out["size"] = entry.size
    return out


def directory_result(call_id: ToolCallId, path: str, entries: Iterable[DirEntry]) -> ToolResultPart:
    """A directory listing, entries sorted by name."""
    listed: list[JsonValue] = [_entry(e) for e in entries]
    listed.sort(key=lambda e: str(e["name"]) if isinstance(e, dict) else "")
    return ToolResultPart(call_id, StructuredOutput({"path": path, "entries": listed}))


def not_found_result(call_id: ToolCallId, path: str) -> ToolResultPart:
    """A failed file operation: the model reads why."""
    return ToolResultPart.error(call_id, TextOutput(f"{path}: no such file or directory"))
