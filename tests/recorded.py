"""Recorded provider traffic in ``tests/payloads/<provider>/``, and the reference's wire vectors, as the adapter tests read them."""

from __future__ import annotations

import importlib
import json
import os
from types import ModuleType
from typing import Any, Iterable, Iterator

from agentkit_core import Item, ItemKind, Part
from agentkit_core.providers import PROVIDERS as ROWS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "payloads")
VECTORS = os.path.join(os.path.dirname(ROOT), "vectors")
#: Each provider's projection, by the name of its folder of recordings: one per registry row, in its order.
PROVIDERS: dict[str, ModuleType] = {row.module: importlib.import_module("agentkit_core.providers." + row.module) for row in ROWS}


def path(provider: str, name: str) -> str:
    """The file ``name`` of ``provider`` (``anthropic``, ``gemini``, ``openai_chat``, ``openai_responses``)."""
    return os.path.join(ROOT, provider, name)


def load(provider: str, name: str) -> Any:
    """A recorded JSON body (request or response)."""
    with open(path(provider, name), encoding="utf-8") as f:
        return json.load(f)


def load_events(provider: str, name: str) -> list[dict[str, Any]]:
    """A recorded stream: one event a line of a ``.stream.jsonl`` file."""
    with open(path(provider, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def raw(provider: str, name: str) -> bytes:
    """A recorded file's bytes, as they came over the wire (a ``.sse.txt`` body)."""
    with open(path(provider, name), "rb") as f:
        return f.read()


def with_lone_cr(body: bytes) -> bytes:
    """An SSE ``body`` with every line ended by a lone CR, which the event-stream rules allow as CRLF and LF."""
    return body.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def after_each_cr(body: bytes) -> list[bytes]:
    """``body`` in pieces that each end with its CR: a reader must end the line without waiting for an LF."""
    pieces = body.split(b"\r")
    return [p + b"\r" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def names(provider: str, suffix: str) -> list[str]:
    """The provider's recorded files ending in ``suffix``, sorted (its ``README.md``, their sources, is none)."""
    return sorted(n for n in os.listdir(os.path.join(ROOT, provider)) if n.endswith(suffix))


def items(provider: str, name: str) -> list[Item]:
    """What ``provider``'s projection makes of its recorded file ``name``, a request, a response,
    a stream of JSON Lines or a raw event stream as the name ends."""
    module = PROVIDERS[provider]
    if name.endswith(".request.json"):
        return module.items_from_request(load(provider, name))  # type: ignore[no-any-return]
    if name.endswith(".response.json"):
        return module.items_from_response(load(provider, name))  # type: ignore[no-any-return]
    if name.endswith(".stream.jsonl"):
        return module.items_from_stream(load_events(provider, name))  # type: ignore[no-any-return]
    if name.endswith(".sse.txt"):
        return module.items_from_stream(module.events_from_sse(raw(provider, name)))  # type: ignore[no-any-return]
    if name.endswith(".eventstream"):
        return module.items_from_stream(module.events_from_eventstream(raw(provider, name)))  # type: ignore[no-any-return]
    raise ValueError(f"{provider}/{name} is no recording")


def stored(item: Item) -> Item:
    """``item`` after a trip through the reference JSON: what a transcript file gives back.

    The JSON is strict (no ``NaN``): an item that holds one could not be stored.
    """
    return Item.from_dict(json.loads(json.dumps(item.to_dict(), allow_nan=False)))


def reference_transcripts(kinds: Iterable[ItemKind]) -> Iterator[tuple[int, list[Item]]]:
    """``(line, transcript)`` for every ``Item`` and ``Part`` line of the reference's ``reference-wire.tsv``.

    An item is a transcript of its own; a part is one alone in an item of each of ``kinds``.
    """
    kinds = tuple(kinds)
    with open(os.path.join(VECTORS, "reference-wire.tsv"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            kind, _, text = line.rstrip("\n").partition("\t")
            if kind == "Item":
                yield n, [Item.from_dict(json.loads(text))]
            elif kind == "Part":
                part = Part.from_dict(json.loads(text))
                for item_kind in kinds:
                    yield n, [Item(item_kind, [part])]


#: Each provider's stream format, as its registry row names it (``"sse"``, ``"aws-eventstream"``).
STREAM_FORMATS = {row.module: row.stream_format for row in ROWS}
#: The file ending of each stream format's raw recordings.
RAW_SUFFIX = {"sse": ".sse.txt", "aws-eventstream": ".eventstream"}


def events(provider: str, body: bytes) -> list[dict[str, Any]]:
    """The events of a raw stream ``body`` of ``provider``, read as its row's stream format says."""
    module = PROVIDERS[provider]
    read = module.events_from_eventstream if STREAM_FORMATS[provider] == "aws-eventstream" else module.events_from_sse
    return list(read(body))


def frames(provider: str, body: bytes) -> list[bytes]:
    """A raw stream ``body`` of ``provider`` cut into its events' bytes (SSE events with their blank line, or binary frames)."""
    if STREAM_FORMATS[provider] == "aws-eventstream":
        import struct

        out, at = [], 0
        while at + 4 <= len(body):
            total = struct.unpack_from(">I", body, at)[0]
            out.append(body[at : at + total])
            at += total
        return out
    return [e + b"\n\n" for e in body.replace(b"\r\n", b"\n").split(b"\n\n") if e.strip()]
