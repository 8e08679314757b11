"""Private to :mod:`.openai_chat`: the stream decoder (its events are mapped in that module's docstring)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ... import (
    CUSTOM_KIND_KEY,
    INPUT_ERROR_KEY,
    MIME_TYPE_KEY,
    MODALITY_KEY,
    TOOL_CALL_ID_KEY,
    TOOL_NAME_KEY,
    AppendBytes,
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    Modality,
    NormalizeError,
    Part,
    PartId,
    PartKind,
    ReplaceStructured,
    SetMetadata,
    Usage,
)
from .._common import JsonDict, b64decode, copy_json, optional_arr, optional_int, optional_obj, optional_str, under, wrong
from .._common.held import as_native
from .._common.streams import close_items, cut_calls, header, split_parts, stream_parts
from ._choice import ORDER, Choice, Kinds, another_call, audio_ends, entry_kind, entry_texts, fragment_kind, opening_id, sound
from ._fragments import merge_fragment, merge_snapshot
from ._held import EVENT
from ._keys import AUDIO, CHAT, REFUSAL_KEY
from ._response import (
    PART_FIELDS,
    REASONING_FIELDS,
    choice_item,
    content_part,
    message_parts,
    sniff_audio,
    turn_finish,
    usage_from_native,
)


class ChatStreamDecoder:
    """One Chat Completions stream (every choice of it) -> deltas, then items.

    Feed each parsed ``chat.completion.chunk`` to :meth:`feed` and fold what
    it returns; then :meth:`finish` (the first choice) or :meth:`finish_all`
    (every choice) with the folded parts.  ``usage`` is the latest usage the
    stream reported and ``finish_reason`` the first choice's finish reason,
    ``None`` until known.  :meth:`response` is the equivalent ``chat.completion``.
    A chunk the decoder cannot take raises :class:`NormalizeError` and leaves
    the decoder as it was.
    """

    def __init__(self) -> None:
        self.usage: Usage | None = None  # the latest usage a chunk reported (live); each one replaces it
        self._top: JsonDict = {}  # the chunks' top-level fields but choices and usage, merged chunk by chunk
        self._usage: JsonDict | None = None  # the latest native usage object, as it came
        self._choices: dict[int, Choice] = {}  # index -> each choice a chunk named; added on first sight
        self._began: list[int] = []  # the choice of every part begun, in order; appended as parts begin
        self._kinds: list[str] = []  # and its slot's kind: "reasoning", "content", "tool"...
        self._pids: list[str] = []  # and its id

    @property
    def finish_reason(self) -> FinishReason | None:
        """The first choice's finish reason once it is known (an ``error`` event ends every choice)."""
        error = self._top.get("error")
        if not self._choices:
            return turn_finish(None, False, False, error)[0]
        first = self._choices[min(self._choices)]
        called = bool(first.calls) or isinstance(first.message.get("function_call"), dict)
        return turn_finish(first.fields.get("finish_reason"), first.refused(), called, error)[0]

    # -- events ------------------------------------------------------------------------------

    def feed(self, event: object) -> list[Delta]:
        """One parsed chunk -> the deltas it implies."""
        event = self._check(event)
        deltas: list[Delta] = []
        for k, v in event.items():
            if k == "usage" and v is not None:
                self._usage, self.usage = copy_json(v), usage_from_native(v)
            elif k not in ("choices", "object", "obfuscation", "usage"):
                merge_snapshot(self._top, k, v)
        groq = event.get("x_groq")
        if event.get("usage") is None and type(groq) is dict and type(groq.get("usage")) is dict:
            # Groq's older streams report usage only here; kept verbatim in the item's x_groq metadata too
            self._usage, self.usage = copy_json(groq["usage"]), usage_from_native(groq["usage"])
        for ch in event.get("choices") or ():
            deltas += self._feed_choice(ch)
        if event.get("error") is not None:  # the turn ends here
            for index in sorted(self._choices):
                if not self._choices[index].committed:
                    deltas += self._commit(self._choices[index])
        return deltas

    def _check(self, held: object) -> JsonDict:
        """Everything :meth:`feed` could refuse, refused before anything changes: the event as a native chunk."""
        event = as_native(held, EVENT)
        optional_str(event, "id")
        optional_obj(event, "usage")
        ending: set[int] = set()  # choices this event finishes
        kinds: Kinds = {}  # (choice, call) -> type, as this event leaves it
        for n, ch in enumerate(optional_arr(event, "choices") or ()):
            try:
                if not isinstance(ch, dict):
                    raise wrong("an object", ch)
                index = optional_int(ch, "index") or 0
                st = self._choices.get(index)
                closed = index in ending or (st is not None and st.committed)
                delta = optional_obj(ch, "delta")
                if delta is not None:
                    try:
                        self._check_delta(index, st, delta, closed, kinds)
                    except NormalizeError as exc:
                        raise exc.under("delta") from None
                if optional_str(ch, "finish_reason") is not None or (delta is not None and audio_ends(delta, st)):
                    ending.add(index)
            except NormalizeError as exc:
                raise under(exc, "choices", f"[{n}]") from None
        return event

    def _check_delta(self, index: int, st: Choice | None, delta: JsonDict, closed: bool, kinds: Kinds) -> None:
        if not isinstance(delta.get("content"), (str, list, type(None))):  # a list: typed entries (Mistral's thinking)
            raise wrong("a string or an array", delta["content"], "content")
        optional_str(delta, "refusal")
        for key in ("audio", "function_call"):
            obj = optional_obj(delta, key)
            for field in ("data", "transcript", "id") if key == "audio" else ("name", "arguments"):
                try:
                    optional_str(obj or {}, field)
                except NormalizeError as exc:
                    raise exc.under(key) from None
        for m, frag in enumerate(optional_arr(delta, "tool_calls") or ()):
            try:
                if not isinstance(frag, dict):
                    raise wrong("an object", frag)
                optional_str(frag, "id")
                self._check_kind(index, st, optional_int(frag, "index"), fragment_kind(frag), frag, kinds)
            except NormalizeError as exc:
                raise under(exc, "tool_calls", f"[{m}]") from None
        if closed:
            for key in PART_FIELDS:
                v = delta.get(key)
                if v not in (None, "", [], {}) and (key not in REASONING_FIELDS or isinstance(v, str)) and (
                        key != "audio" or sound(v)):
                    raise NormalizeError("content for a choice after its finish_reason", key)

    @staticmethod
    def _check_kind(
        index: int, st: Choice | None, call: int | None, kind: str | None, frag: JsonDict, kinds: Kinds
    ) -> None:
        """A call keeps its type: a fragment may not turn a function call into a custom one."""
        if call is None:
            return  # a call without an index is a new call
        key = (index, call)
        where = None if st is None else st.at.get(call, call)
        if key in kinds:
            began, (known, known_id) = True, kinds[key]
        elif st is not None and where in st.calls:
            began, known, known_id = True, st.kinds[where], st.calls[where][1].get("id")
        else:
            began, known, known_id = False, None, None
        if began and another_call(opening_id(frag), known_id):
            began, known, known_id = False, None, None
        if kind is not None and began and kind != known and (known is not None or kind not in ("function", "custom")):
            raise NormalizeError(f"a fragment of a {known or 'function'} call says it is {kind}", "type")
        new_id = frag.get("id")
        kinds[key] = (known if kind is None else kind, new_id if isinstance(new_id, str) and new_id else known_id)

    def _feed_choice(self, ch: JsonDict) -> list[Delta]:
        index = ch.get("index") or 0
        st = self._choices.get(index)
        if st is None:
            st = self._choices[index] = Choice(index)
        for k, v in ch.items():
            if k == "logprobs" and isinstance(v, dict) and isinstance(st.fields.get(k), dict):
                for lk, lv in v.items():  # token lists grow; anything else is a snapshot
                    (merge_fragment if isinstance(lv, list) else merge_snapshot)(st.fields[k], lk, lv)
            elif k != "delta":
                merge_snapshot(st.fields, k, v)
        delta = ch.get("delta")
        deltas = self._apply(st, delta) if isinstance(delta, dict) else []
        if ch.get("finish_reason") is not None and not st.committed:
            deltas += self._commit(st)
        elif isinstance(delta, dict) and audio_ends(delta, st) and not st.committed:
            st.fields["finish_reason"] = "stop"  # as the SDKs infer it; a finish_reason sent later replaces it
            deltas += self._commit(st)
        return deltas

    def _begin(self, st: Choice, slot: str, kind: PartKind) -> tuple[PartId, list[Delta]]:
        """The id of the choice's part in ``slot``, and the deltas that begin it if it has not begun yet."""
        pid = st.slots.get(slot)
        if pid is not None:
            return pid, []
        pid = st.slots[slot] = PartId(f"part-{st.index}-{slot}")
        self._began.append(st.index)
        self._kinds.append(slot.split("-")[0])
        self._pids.append(pid.value)
        if slot == "refusal":
            return pid, [BeginPart(pid, kind), SetMetadata(pid, {REFUSAL_KEY: True})]
        return pid, [BeginPart(pid, kind)]

    @staticmethod
    def _header(st: Choice, pid: PartId, found: Mapping[str, object]) -> list[Delta]:
        """The fold's header keys of an open part, sent as soon as they are known (or change)."""
        sent = st.headers.setdefault(pid.value, {})
        new = {k: v for k, v in found.items() if isinstance(v, str) and v and sent.get(k) != v}
        if not new:
            return []
        sent.update(new)
        return [SetMetadata(pid, new)]

    def _apply(self, st: Choice, delta: JsonDict) -> list[Delta]:
        msg = st.message
        deltas: list[Delta] = []
        for k, v in delta.items():
            if k in PART_FIELDS and (v is None or st.committed):
                msg.setdefault(k, None)  # checked: nothing but empty values after the commit
            elif k == "content" and (isinstance(v, list) or isinstance(msg.get(k), list)):
                deltas += self._entries(st, [{"type": "text", "text": v}] if isinstance(v, str) else v)
            elif k in ("content", "refusal"):
                deltas += self._text(st, k, k, v, PartKind.TEXT)
            elif k in REASONING_FIELDS and isinstance(v, str) and st.reasoning in (None, k):
                st.reasoning = k
                deltas += self._text(st, k, "reasoning", v, PartKind.REASONING)
            elif k == "audio":
                deltas += self._audio(st, v)
            elif k == "tool_calls":
                for frag in v:
                    deltas += self._tool_call(st, frag)
            elif k == "function_call":
                deltas += self._function_call(st, v)
            elif k == "role":
                merge_snapshot(msg, k, v)
            else:
                merge_fragment(msg, k, v)
        return deltas

    def _text(self, st: Choice, key: str, slot: str, text: str, kind: PartKind) -> list[Delta]:
        st.growing.add(st.message, key, text)
        if not text and key == "content":  # an empty content begins nothing yet: typed entries may follow (Mistral)
            return []
        pid, deltas = self._begin(st, slot, kind)
        if text:
            deltas.append(AppendText(pid, text))
        return deltas

    def _entries(self, st: Choice, entries: list[Any]) -> list[Delta]:
        """Typed content entries (Mistral's thinking models): each extends the last entry when both are text,
        or both thinking, and is a new entry otherwise; a plain string is a text entry.  The message's content
        becomes the list the non-streaming answer holds, part ``content-j`` growing with entry ``j``."""
        acc = st.growing.take(st.message, "content")
        if not isinstance(acc, list):  # plain text first (or nothing): it becomes the first entry
            acc = st.message["content"] = [] if acc in (None, "") else [{"type": "text", "text": acc}]
            if "content" in st.slots:
                st.slots["content-0"] = st.slots.pop("content")
        deltas: list[Delta] = []
        for entry in entries:
            last = acc[-1] if acc else None
            kind = entry_kind(entry)
            if kind is not None and isinstance(last, dict) and entry_kind(last) == kind:
                j, texts = len(acc) - 1, self._extend(st, last, entry, kind)
            else:
                acc.append(copy_json(entry))
                j, texts = len(acc) - 1, entry_texts(entry, kind)
                part = content_part(entry)
                pid, begun = self._begin(st, f"content-{j}", part.part_kind)
                deltas += begun + self._header(st, pid, header(part))
            deltas.extend(AppendText(st.slots[f"content-{j}"], t) for t in texts if t)
        return deltas

    @staticmethod
    def _extend(st: Choice, held: JsonDict, entry: JsonDict, kind: str) -> list[str]:
        """Merge a text or thinking ``entry`` into the entry ``held`` it continues; the texts it added."""
        for k, v in entry.items():
            if k not in ("type", kind):
                merge_snapshot(held, k, v)
        if kind == "text":
            st.growing.add(held, "text", entry["text"])
            return [entry["text"]]
        inner: list[Any] = held["thinking"]
        for piece in entry["thinking"]:
            last = inner[-1] if inner else None
            if entry_kind(piece) == "text" and isinstance(last, dict) and entry_kind(last) == "text":
                st.growing.add(last, "text", piece["text"])
            else:
                inner.append(copy_json(piece))
        return entry_texts(entry, kind)

    def _audio(self, st: Choice, frag: JsonDict) -> list[Delta]:
        pid, deltas = self._begin(st, "audio", PartKind.MEDIA)
        acc = st.message.get("audio")
        if not isinstance(acc, dict):
            acc = st.message["audio"] = {}
        chunk = b""
        for k, v in frag.items():
            if k == "data" and isinstance(v, str):
                st.growing.add(acc, k, v)
                chunk = self._audio_bytes(st, v)
            elif k == "transcript" and isinstance(v, str):
                merge_fragment(acc, k, v)  # whole: the part's header shows it while it grows
            else:
                merge_snapshot(acc, k, v)
        found: dict[str, object] = {MODALITY_KEY: Modality.AUDIO.value, MIME_TYPE_KEY: sniff_audio(st.sound)}
        found.update({AUDIO + k: acc.get(k) for k in ("id", "transcript")})
        deltas += self._header(st, pid, found)
        if chunk:
            deltas.append(AppendBytes(pid, chunk))
        return deltas

    @staticmethod
    def _audio_bytes(st: Choice, text: str) -> bytes:
        """Decode what whole base64 quads have arrived; after bad base64, nothing more (the commit has it)."""
        if not st.ok:
            return b""
        text = st.pending + text
        cut = len(text) - len(text) % 4
        st.pending = text[cut:]
        raw = b64decode(text[:cut]) if cut else b""
        if raw is None:
            st.ok = False
            return b""
        if len(st.sound) < 16:
            st.sound += raw[: 16 - len(st.sound)]
        return raw

    def _tool_call(self, st: Choice, frag: JsonDict) -> list[Delta]:
        call = st.key(frag.get("index"), opening_id(frag))
        kind = fragment_kind(frag)
        deltas: list[Delta] = []
        if call not in st.calls:
            slot = f"tool-{len(st.calls)}"
            calls = st.message.get("tool_calls")
            if not isinstance(calls, list):
                calls = st.message["tool_calls"] = []
            calls.append({})
            st.calls[call] = (slot, calls[-1])
            st.kinds[call] = kind
            opaque = kind not in (None, "function", "custom")
            pid, deltas = self._begin(st, slot, PartKind.CUSTOM if opaque else PartKind.TOOL_CALL)
            if opaque:
                deltas += self._header(st, pid, {CUSTOM_KIND_KEY: CHAT + "tool_call"})
        slot, acc = st.calls[call]
        st.kinds[call] = st.kinds[call] or kind
        pid = st.slots[slot]
        for k, v in frag.items():
            if k in ("function", "custom") and isinstance(v, dict):
                body = acc.get(k)
                if not isinstance(body, dict):
                    body = acc[k] = {}
                for bk, bv in v.items():
                    if bk in ("arguments", "input") and isinstance(bv, str):
                        if k == "custom":  # the input so far, whole: it streams as a value
                            merge_fragment(body, bk, bv)
                            deltas.append(ReplaceStructured(pid, body[bk]))
                        else:
                            st.growing.add(body, bk, bv)
                            if bv:
                                deltas.append(AppendText(pid, bv))
                    elif bv is not None and bv != "" or bk not in body:
                        merge_snapshot(body, bk, bv)
            elif v is not None and v != "" or k not in acc:  # DashScope repeats ``"id": ""``
                acc[k] = copy_json(v)
        if st.kinds[call] in (None, "function", "custom"):
            body = acc.get(st.kinds[call] or "function")
            name = body.get("name") if isinstance(body, dict) else None
            deltas += self._header(st, pid, {TOOL_CALL_ID_KEY: acc.get("id"), TOOL_NAME_KEY: name})
        return deltas

    def _function_call(self, st: Choice, frag: JsonDict) -> list[Delta]:
        pid, deltas = self._begin(st, "function-call", PartKind.TOOL_CALL)
        acc = st.message.get("function_call")
        if not isinstance(acc, dict):
            acc = st.message["function_call"] = {}
        for k, v in frag.items():
            if k == "arguments" and isinstance(v, str):
                st.growing.add(acc, k, v)
                if v:
                    deltas.append(AppendText(pid, v))
            elif v is not None and v != "" or k not in acc:
                merge_snapshot(acc, k, v)
        name = acc.get("name")
        return deltas + self._header(st, pid, {TOOL_CALL_ID_KEY: name, TOOL_NAME_KEY: name})  # the name stands in for the id

    def _commit(self, st: Choice) -> list[Delta]:
        """Close every part of the choice with the part decoded from what accumulated."""
        st.committed = True
        st.growing.settle()
        deltas: list[Delta] = []
        for slot, part in message_parts(st.message, st.reasoning):
            pid, begun = self._begin(st, slot, part.part_kind)  # a part the chunks never began begins here
            deltas += begun
            deltas.append(CommitPart(part, part_id=pid))
        return deltas

    # -- results -----------------------------------------------------------------------------

    def response(self) -> JsonDict:
        """The ``chat.completion`` body equivalent to what was fed so far."""
        for st in self._choices.values():
            st.growing.settle()
        body: JsonDict = copy_json(self._top)
        body["object"] = "chat.completion"
        body["choices"] = [
            {**copy_json(st.fields), "message": copy_json(st.message)} for _, st in sorted(self._choices.items())
        ]
        if self._usage is not None:
            body["usage"] = copy_json(self._usage)
        return body

    def finish_all(self, parts: Sequence[Part] | FoldState) -> list[Item]:
        """The folded parts of the whole stream -> one item per choice, in choice order.

        ``parts`` is ``FoldState.parts``, or ``finalize()`` for a stream cut
        short: a part for every part the decoder began, in the order begun
        (with one choice, any parts).  Other parts raise :class:`NormalizeError`.
        The decoder's own parts are put in their message's order (reasoning,
        content, refusal, audio, calls), as a response's items have them.
        """
        return self._items(stream_parts(parts), FinishReason.ERROR)

    def close(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> Item:
        """The first choice's item of a turn stopped before it finished (:meth:`close_all` gives every one)."""
        return self.close_all(parts, reason)[0]

    def close_all(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> list[Item]:
        """The items of a turn stopped before it finished (cancelled; ``ERROR`` for a transport failure).

        ``parts`` is ``FoldState.finalize()`` (or the state itself).  Each
        choice with no ``finish_reason`` yet gets ``reason``, keeps the text
        and reasoning that arrived, and drops the calls whose arguments were
        cut off, listed under ``agentkit.stream_cut``: the call that was still
        streaming (the choice's last part), and any whose arguments do not
        parse.  A call followed by another part is complete (calls stream one
        after another) and is kept.  Choices that had finished keep
        :meth:`finish_all`'s items.
        """
        return self._items(stream_parts(parts), reason)

    def _items(self, parts: list[Part], reason: FinishReason) -> list[Item]:
        order = sorted(self._choices)
        for c in order:
            self._choices[c].growing.settle()
        if not order:
            item = choice_item(self._top, {}, {}, parts, self.usage, None)
            return close_items([item], [self._top.get("error") is not None], (), reason)
        items = self._choice_items(parts, order)
        return close_items(items, [self._choices[c].committed for c in order], self._cut(parts), reason)

    def _cut(self, parts: list[Part]) -> list[Part]:
        """The calls of the choices not finished whose arguments were cut off."""
        last = {owner: pid for owner, pid in zip(self._began, self._pids)}  # each choice's last part
        open_calls = set()
        for n, (owner, kind, pid) in enumerate(zip(self._began, self._kinds, self._pids)):
            if kind in ("tool", "function") and not self._choices[owner].committed:
                unparsed = len(parts) == len(self._pids) and INPUT_ERROR_KEY in parts[n].metadata
                if last[owner] == pid or unparsed:
                    open_calls.add(pid)
        return cut_calls(parts, self._pids, open_calls)

    def _choice_items(self, parts: list[Part], order: list[int]) -> list[Item]:
        groups = split_parts(parts, self._began, order)
        if len(parts) == len(self._began):  # each choice's parts in its message's order, as a response has them
            kinds = {c: [k for k, owner in zip(self._kinds, self._began) if owner == c] for c in order}
            groups = {c: [p for _, p in sorted(zip(kinds[c], groups[c]), key=lambda kp: ORDER[kp[0]])] for c in order}
        return [
            choice_item(self._top, st.fields, st.message, groups[c], self.usage if n == 0 else None, st.reasoning)
            for n, (c, st) in enumerate((c, self._choices[c]) for c in order)
        ]

    def finish(self, parts: Sequence[Part] | FoldState) -> Item:
        """The folded parts -> the first choice's item (:meth:`finish_all` gives every choice's).

        ``parts`` may be the fold state itself (its open parts then close as they stand, not lost) or its parts.
        """
        return self.finish_all(parts)[0]


def stream_decoder() -> ChatStreamDecoder:
    """A fresh decoder for one stream."""
    return ChatStreamDecoder()
