"""Private to :mod:`.openai_chat`: what the stream decoder keeps of each choice, and what it reads off fragments."""

from __future__ import annotations

from typing import Any

from ... import NormalizeError, PartId
from .._common import JsonDict, optional_obj, optional_str
from ._fragments import Growing
from ._response import PART_FIELDS


def entry_kind(entry: object) -> str | None:
    """``"text"`` or ``"thinking"`` for a content entry that streams as text (its text a string, its
    thinking a list), else ``None``."""
    if not isinstance(entry, dict):
        return None
    etype = entry.get("type")
    if etype == "text" and isinstance(entry.get("text"), str):
        return "text"
    return "thinking" if etype == "thinking" and isinstance(entry.get("thinking"), list) else None


def entry_texts(entry: Any, kind: str | None) -> list[str]:
    """The text a content entry adds to its part: a text entry's, or a thinking entry's text pieces."""
    if kind == "text":
        return [entry["text"]]
    if kind == "thinking":
        return [p["text"] for p in entry["thinking"] if entry_kind(p) == "text"]
    return []


def fragment_kind(frag: JsonDict) -> str | None:
    """What a tool-call fragment says its call is: its ``type``, or the body it carries."""
    ttype = optional_str(frag, "type")
    bodies = [k for k in ("function", "custom") if frag.get(k) is not None]
    for key in bodies:
        body = optional_obj(frag, key) or {}
        try:
            optional_str(body, "name")
            optional_str(body, "arguments" if key == "function" else "input")
        except NormalizeError as exc:
            raise exc.under(key) from None
    if len(bodies) > 1 or (ttype is not None and bodies and bodies[0] != ttype):
        raise NormalizeError(f"a {ttype or bodies[0]} call fragment holds a {bodies[-1]} body")
    return ttype if ttype is not None else bodies[0] if bodies else None


#: The order of a message's parts (:func:`message_parts`), by the kind of their slot: a stream may begin
#: them in another (vLLM opens the content with ``""`` before the reasoning streams).
ORDER = {"reasoning": 0, "content": 1, "refusal": 2, "audio": 3, "tool": 4, "function": 5}

#: (choice index, call index) -> the type (once known) and id of the call at that index, as an event leaves them.
Kinds = dict[tuple[int, int], "tuple[str | None, str | None]"]


def audio_ends(delta: JsonDict, st: Choice | None) -> bool:
    """Whether ``delta`` is the mark OpenAI ends an audio answer with (gpt-4o-audio-preview often sends no
    ``finish_reason`` after it): the audio's ``expires_at`` (and id) alone, after its data."""
    audio, heard = delta.get("audio"), None if st is None else st.message.get("audio")
    alone = all(delta.get(k) in (None, "") for k in PART_FIELDS if k != "audio")
    return (isinstance(audio, dict) and audio.get("expires_at") is not None and set(audio) <= {"id", "expires_at"}
            and alone and isinstance(heard, dict) and sound(heard))


def sound(audio: JsonDict) -> bool:
    """Whether an audio object or fragment holds audio or its transcript (not only its id and expiry)."""
    return bool(audio.get("data") or audio.get("transcript"))


def opening_id(frag: JsonDict) -> str | None:
    """The id of a fragment that opens a call (it names it too), else ``None``.

    OpenAI sends a call's id and name once, on its first fragment.  Ollama,
    LiteLLM's Responses bridge and other compatible servers send every
    parallel call at ``index`` 0, each opened with its own id and name;
    Poolside sends a call's later fragments with another id but no name.
    """
    body = frag.get("function") if frag.get("function") is not None else frag.get("custom")
    call_id, name = frag.get("id"), body.get("name") if isinstance(body, dict) else None
    return call_id if isinstance(call_id, str) and call_id and isinstance(name, str) and name else None


def another_call(opening_id: str | None, known_id: object) -> bool:
    """Whether a fragment opens a new call at an index whose call has another id."""
    return opening_id is not None and isinstance(known_id, str) and known_id not in ("", opening_id)


class Choice:
    """What one choice of a stream has sent so far."""

    __slots__ = ("index", "fields", "message", "growing", "slots", "calls", "kinds", "at", "headers", "committed",
                 "reasoning", "pending", "sound", "ok")

    def __init__(self, index: int) -> None:
        self.index = index  # the choice's index; fixed
        self.fields: JsonDict = {}  # choice-level fields, merged: each chunk's replace or extend them
        self.message: JsonDict = {}  # the message the deltas add up to, once ``growing`` is settled
        self.growing = Growing()  # its long string fields, in pieces; settled at the commit and by response()
        self.slots: dict[str, PartId] = {}  # slot ("content", "reasoning", "tool-0"...) -> its part, once begun
        self.calls: dict[int, tuple[str, JsonDict]] = {}  # key -> (slot, call so far); see key(); a new call adds
        self.kinds: dict[int, str | None] = {}  # key -> the call's type once known (then fixed)
        self.at: dict[int, int] = {}  # native index -> the key of the latest call there, if not the index
        self.headers: dict[str, dict[str, str]] = {}  # part id -> header keys sent; grows as they are sent
        self.committed = False  # set once, by the finish_reason (or the end of its audio, or an error)
        self.reasoning: str | None = None  # the field the reasoning part reads; the first one sent, then fixed
        self.pending = ""  # audio base64 not decoded yet (under four characters)
        self.sound = b""  # the audio's first bytes, to tell its MIME type (up to 16, then fixed)
        self.ok = True  # the audio base64 decoded so far; False after bad base64, then fixed

    def key(self, index: int | None, opening_id: str | None) -> int:
        """Where the call a fragment belongs to is kept: its native ``index``, or a negative key for a
        call sent without one or at an index another call holds (:func:`another_call`)."""
        key = None if index is None else self.at.get(index, index)
        if key is None or (key in self.calls and another_call(opening_id, self.calls[key][1].get("id"))):
            new = -1 - sum(1 for k in self.calls if k < 0)
            if index is not None:
                self.at[index] = new
            return new
        return key

    def refused(self) -> bool:
        refusal = self.message.get("refusal")
        return isinstance(refusal, str) and refusal != ""
