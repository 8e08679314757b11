"""A fake voice-only provider ("fakevoice") and its adapter: audio in, audio out.

Nothing here is text.  The user speaks (a WAV clip), the provider answers with
raw 16-bit PCM at 24 kHz, streamed in 10 ms chunks.  Native JSON, invented for
this example (audio is base64, as real voice APIs send it):

* request: ``{"instructions": "...", "turns": [{"role": "user" | "assistant",
  "format": "wav" | "pcm16", "audio": "<base64>"}]}``;
* response: ``{"id": "v_1", "format": "pcm16", "sample_rate": 24000,
  "audio": "<base64>", "end": "done" | "interrupted", "usage":
  {"audio_in_tokens": 5, "audio_out_tokens": 3}}``;
* stream events: ``{"type": "start", "id", "format", "sample_rate"}``,
  ``{"type": "audio", "data": "<base64 chunk>"}``...,
  ``{"type": "end", "end": "done", "usage": {...}}``.

Mapping: audio in and out is ``MediaPart(Modality.AUDIO, mime, InlineBytes(raw))``
with ``audio/wav`` for WAV and ``audio/pcm;rate=<rate>`` for raw PCM, so the
transcript holds the bytes themselves, not base64 text.  A stream opens one
media part (``BeginPart(kind=MEDIA)``), sends the fold's header keys
(``agentkit.modality`` ``"Audio"`` and ``agentkit.mime_type``) so a snapshot
knows it is audio while it plays, appends each decoded chunk with
``AppendBytes``, and commits the whole clip.  ``end``: ``"done"`` ->
``COMPLETED``, ``"interrupted"`` (the user spoke over it) -> ``CANCELLED``.
Usage counts audio tokens as tokens.  Requests take SYSTEM/DEVELOPER text as
``instructions``; any other text raises :class:`~agentkit_core.NormalizeError`.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Any, Iterator, Mapping, Sequence

from agentkit_core import (
    AppendBytes,
    BeginPart,
    CommitPart,
    DataRef,
    Delta,
    FinishReason,
    InlineBytes,
    InlineText,
    Item,
    ItemKind,
    MediaPart,
    MessageId,
    MetadataMap,
    Modality,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    SetMetadata,
    TextPart,
    TokenUsage,
    Usage,
)

__all__ = (
    "FakeVoiceProvider",
    "sine_pcm16",
    "wav",
    "items_from_response",
    "stream_decoder",
    "VoiceStreamDecoder",
    "request_from_items",
)

Json = dict[str, Any]
NS = "fakevoice."
_FINISH = {"done": FinishReason.COMPLETED, "interrupted": FinishReason.CANCELLED}


def sine_pcm16(freq: float, ms: int, rate: int) -> bytes:
    """``ms`` milliseconds of a sine tone as mono 16-bit little-endian PCM."""
    n = rate * ms // 1000
    return b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(n))


def wav(pcm: bytes, rate: int) -> bytes:
    """Mono 16-bit PCM wrapped in a WAV (RIFF) header."""
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1, 1, rate, rate * 2, 2, 16, b"data", len(pcm))
    return header + pcm


def _pcm_mime(rate: int) -> str:
    return f"audio/pcm;rate={rate}"


# -- the provider (what would be a server) -------------------------------------------------


class FakeVoiceProvider:
    """Answers each user clip with a short tone: 50 ms at 24 kHz, higher for each turn."""

    rate = 24000

    def __init__(self) -> None:
        self._served = 0

    def respond(self, request: Mapping[str, Any]) -> Json:
        self._served += 1
        turns = request.get("turns") or []
        heard = sum(len(base64.b64decode(t["audio"])) for t in turns if t.get("role") == "user")
        audio = sine_pcm16(220.0 * (1 + len(turns)), 50, self.rate)
        return {
            "id": f"v_{self._served}",
            "format": "pcm16",
            "sample_rate": self.rate,
            "audio": base64.b64encode(audio).decode("ascii"),
            "end": "done",
            "usage": {"audio_in_tokens": heard // 640, "audio_out_tokens": len(audio) // 960},
        }

    def stream(self, request: Mapping[str, Any]) -> Iterator[Json]:
        response = self.respond(request)
        yield {"type": "start", "id": response["id"], "format": "pcm16", "sample_rate": response["sample_rate"]}
        audio = base64.b64decode(response["audio"])
        step = response["sample_rate"] // 100 * 2  # 10 ms of 16-bit samples
        for i in range(0, len(audio), step):
            yield {"type": "audio", "data": base64.b64encode(audio[i : i + step]).decode("ascii")}
        yield {"type": "end", "end": response["end"], "usage": response["usage"]}


# -- the adapter -------------------------------------------------------------------------


def _item(native: Mapping[str, Any], parts: Sequence[Part]) -> Item:
    usage, end = native.get("usage"), native.get("end")
    return Item(
        ItemKind.ASSISTANT,
        tuple(parts),
        id=MessageId(native["id"]) if isinstance(native.get("id"), str) else None,
        metadata={NS + "end": end} if end is not None else {},
        usage=Usage(TokenUsage(usage["audio_in_tokens"], usage["audio_out_tokens"])) if isinstance(usage, dict) else None,
        finish_reason=None if not isinstance(end, str) else _FINISH.get(end) or FinishReason.other(end),
    )


def items_from_response(response: Json, /) -> list[Item]:
    """A response as one ASSISTANT item holding one audio part."""
    audio = MediaPart(Modality.AUDIO, _pcm_mime(response["sample_rate"]), InlineBytes(base64.b64decode(response["audio"])))
    return [_item(response, (audio,))]


class VoiceStreamDecoder:
    """One stream: audio chunks -> ``AppendBytes``; :meth:`finish` builds the item."""

    AUDIO = PartId("audio")

    def __init__(self) -> None:
        self._native: Json = {}
        self._chunks: list[bytes] = []
        self._mime = "audio/pcm"

    def feed(self, event: Json, /) -> list[Delta]:
        kind = event.get("type")
        if kind == "start":
            self._native["id"] = event.get("id")
            self._mime = _pcm_mime(event["sample_rate"])
            header = {"agentkit.modality": Modality.AUDIO.value, "agentkit.mime_type": self._mime}
            return [BeginPart(self.AUDIO, PartKind.MEDIA), SetMetadata(self.AUDIO, MetadataMap(header))]
        if kind == "audio":
            chunk = base64.b64decode(event["data"])
            self._chunks.append(chunk)
            return [AppendBytes(self.AUDIO, chunk)]
        if kind == "end":
            self._native.update(end=event.get("end"), usage=event.get("usage"))
            clip = MediaPart(Modality.AUDIO, self._mime, InlineBytes(b"".join(self._chunks)))
            return [CommitPart(clip, part_id=self.AUDIO)]
        return []

    def finish(self, parts: Sequence[Part], /) -> Item:
        return _item(self._native, parts)


def stream_decoder() -> VoiceStreamDecoder:
    """A decoder for one stream."""
    return VoiceStreamDecoder()


def _audio(data: DataRef, where: str) -> str:
    if isinstance(data, InlineBytes):
        return base64.b64encode(data.value).decode("ascii")
    if isinstance(data, InlineText):  # already base64, as some providers hand audio back
        return data.value
    raise NormalizeError(f"fakevoice needs audio inline, not a {type(data).__name__}", where)


def request_from_items(items: Sequence[Item], /) -> Json:
    """Instructions from SYSTEM/DEVELOPER text; every other item's audio as a turn."""
    instructions: list[str] = []
    turns: list[Json] = []
    for i, item in enumerate(items):
        for j, part in enumerate(item.parts):
            where = f"items[{i}].parts[{j}]"
            if item.kind in (ItemKind.SYSTEM, ItemKind.DEVELOPER) and isinstance(part, TextPart):
                instructions.append(part.text)
            elif isinstance(part, MediaPart) and part.modality is Modality.AUDIO:
                fmt = "wav" if part.mime_type == "audio/wav" else "pcm16"
                role = "assistant" if item.kind is ItemKind.ASSISTANT else "user"
                turns.append({"role": role, "format": fmt, "audio": _audio(part.data, where)})
            else:
                raise NormalizeError(f"fakevoice is voice-only: it cannot take a {type(part).__name__}", where)
    body: Json = {"turns": turns}
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    return body
