"""Private to :mod:`.gemini`: the stream decoder (its chunks are mapped in that module's docstring)."""

from __future__ import annotations

from typing import Any, Sequence

from ... import (
    AppendText,
    BeginPart,
    CommitPart,
    Delta,
    FinishReason,
    FoldState,
    Item,
    Part,
    PartId,
    PartKind,
    ReasoningPart,
    SetMetadata,
    TextPart,
    ToolCallPart,
    Usage,
)
from .._common import JsonDict, copy_json, json_object
from .._common.held import as_native
from .._common.streams import close_items, cut_calls, header, split_parts, stream_parts
from ._held import EVENT
from ._keys import SIGNATURE, NewCallId
from ._partial import Arguments, JsonPath, continues, fragments, starts
from ._response import Calls, answer_parts, block_reason, candidate_finish, candidate_item, candidates_of, named_enums, part_from_native, usage_of

# -- the decoder ------------------------------------------------------------------------------


class _Candidate:
    """What a stream told about one candidate so far."""

    def __init__(self, index: int) -> None:
        # The candidate's ``index``; fixed.
        self.index = index
        # Candidate fields but content, latest value each: every chunk's fields replace the earlier ones.
        self.fields: JsonDict = {}
        # Content fields but parts (``role``), latest value each.
        self.content: JsonDict = {}
        # How many parts the candidate has begun; each begun part adds one (its id is ``part-<index>-<count>``).
        self.count = 0
        # The text or thought part still growing (an open part): a text chunk opens or grows it, any other
        # part, a finish reason, a blocked prompt or an error closes it.
        self.text: _Block | None = None
        # The call whose arguments still arrive in fragments (an open part): its first fragment sets it, its
        # last fragment (or anything that closes the candidate's parts) clears it.
        self.building: _Building | None = None
        # Whether a functionCall arrived (the finish reason is then TOOL_CALL); set once, never unset.
        self.call = False


class _Block:
    """A streaming text part: its id, the native part so far (its text left out) and that part decoded (for
    its type and metadata), and the text in pieces, joined once when the part closes: re-joining it for
    every chunk would make a long answer quadratic."""

    __slots__ = ("part_id", "native", "part", "pieces", "size")

    def __init__(self, part_id: PartId, native: JsonDict, part: TextPart | ReasoningPart, text: str) -> None:
        # The part's id; fixed.  The native part so far, its text left out: each chunk joining the part
        # updates its other fields (a signature arriving last).  That native part decoded: its type is fixed,
        # its metadata follows ``native``.
        self.part_id, self.native, self.part = part_id, native, part
        # The text in pieces, one a chunk, and its length so far; each chunk joining the part appends.
        self.pieces, self.size = [text], len(text)

    def grow(self, native: JsonDict, part: TextPart | ReasoningPart, text: str) -> None:
        self.native, self.part = native, part
        self.pieces.append(text)
        self.size += len(text)

    def closed(self) -> TextPart | ReasoningPart:
        """The part with all its text."""
        text, md = "".join(self.pieces), self.part.metadata
        return TextPart(text, metadata=md) if isinstance(self.part, TextPart) else ReasoningPart(text, metadata=md)


class _Building:
    """A call whose arguments arrive in ``partialArgs`` fragments: its part id, the call its first chunk opened."""

    def __init__(self, part_id: PartId, start: ToolCallPart) -> None:
        # The part's id and the call its first chunk opened (name, id, signature); fixed.  The arguments
        # the fragments set so far: each fragment chunk applies its paths.
        self.part_id, self.start, self.arguments = part_id, start, Arguments()


def _fragments_of(native: JsonDict, where: str) -> list[tuple[JsonPath, str, Any, bool]] | None:
    """The checked ``partialArgs`` of a part that is a call fragment, else ``None``."""
    call = native.get("functionCall")
    return fragments(call, f"{where}.functionCall") if isinstance(call, dict) and continues(call) else None


def _text_of(part: TextPart | ReasoningPart) -> str:
    return part.text if isinstance(part, TextPart) else part.summary or ""


class GeminiStreamDecoder:
    """Turns the chunks of one ``streamGenerateContent`` stream into deltas; :meth:`finish` builds the item.

    ``usage`` is the latest usage snapshot the stream sent (``None`` before
    any) and ``finish_reason`` the first candidate's finish reason (``None``
    until known); both change while the stream runs.
    """

    def __init__(self, new_call_id: NewCallId | None = None) -> None:
        # The latest usageMetadata snapshot (live); a chunk holding one replaces it.
        self.usage: Usage | None = None
        # The first candidate's finish reason (live): set by its finishReason, a blocked prompt or an error.
        self.finish_reason: FinishReason | None = None
        # Ids for calls that come without one; each call decoded takes the next.
        self._calls = Calls(new_call_id)
        # Response fields but candidates and usage, latest value each: every chunk's replace the earlier ones.
        self._response: JsonDict = {}
        # Index -> each candidate a chunk has named; added on first sight, never removed.
        self._candidates: dict[int, _Candidate] = {}
        # The candidate index of every part, in the order parts began; appended as parts begin.
        self._owners: list[int] = []
        # And its id.
        self._began: list[str] = []
        # The error an error chunk reported; None until one comes.
        self._error: JsonDict | None = None

    def feed(self, event: object) -> list[Delta]:
        """The deltas one chunk (a parsed ``data:`` payload) stands for."""
        chunk = named_enums(as_native(event, EVENT))
        deltas: list[Delta] = []
        if "error" in chunk and "candidates" not in chunk:
            self._error = copy_json(json_object(chunk["error"], "error"))
            for each in self._candidates.values():
                deltas += self._close(each)
            if self.finish_reason is None:
                self.finish_reason = FinishReason.ERROR
            return deltas
        usage = usage_of(chunk)
        candidates = candidates_of(chunk)  # checked before anything changes
        # Decoded before anything changes too: ``new_call_id`` may hand back what is no id.
        decoded = [
            [(p, _fragments_of(p, f"candidates[{i}].content.parts[{j}]"), part_from_native(p, self._calls)) for j, p in enumerate(answer_parts(content))]
            for i, (_, _, content) in enumerate(candidates)
        ]
        self._response.update((k, copy_json(v)) for k, v in chunk.items() if k not in ("candidates", "usageMetadata"))
        if usage is not None:
            self.usage = usage
        for (index, native, content), parts in zip(candidates, decoded):
            candidate = self._candidates.get(index)
            if candidate is None:
                candidate = self._candidates[index] = _Candidate(index)
            candidate.fields.update((k, copy_json(v)) for k, v in native.items() if k != "content")
            candidate.content.update((k, copy_json(v)) for k, v in content.items() if k != "parts")
            for raw, found, part in parts:
                fragment = self._fragment(candidate, raw, found, part)
                deltas += self._part(candidate, raw, part) if fragment is None else fragment
            if native.get("finishReason") is not None:
                deltas += self._close(candidate)
        blocked = block_reason(chunk) is not None
        if blocked:  # the prompt was blocked: nothing more comes for any candidate
            for each in self._candidates.values():
                deltas += self._close(each)
        first = self._first()
        if first is not None and isinstance(first.fields.get("finishReason"), str):
            self.finish_reason = candidate_finish(first.fields["finishReason"], first.call)
        elif blocked:
            self.finish_reason = FinishReason.BLOCKED
        return deltas

    def _first(self) -> _Candidate | None:
        return self._candidates[min(self._candidates)] if self._candidates else None

    def _begin(self, candidate: _Candidate, kind: PartKind) -> BeginPart:
        """The delta that begins the candidate's next part (its id is the delta's ``part_id``)."""
        pid = PartId(f"part-{candidate.index}-{candidate.count}")
        candidate.count += 1
        self._owners.append(candidate.index)
        self._began.append(pid.value)
        return BeginPart(pid, kind)

    def _fragment(self, candidate: _Candidate, native: JsonDict, found: list[tuple[JsonPath, str, Any, bool]] | None, part: Part) -> list[Delta] | None:
        """The deltas of a chunk's part that opens or continues a call sent in fragments; ``None`` for any other part."""
        building = candidate.building
        if building is not None and found is not None:
            building.arguments.apply(found)
            if native["functionCall"].get("willContinue") is not True:  # the last fragment
                return self._close(candidate)
            return []
        if not (starts(native.get("functionCall")) and isinstance(part, ToolCallPart)):
            return None
        deltas = self._close(candidate)
        candidate.call = True
        begin = self._begin(candidate, part.part_kind)
        deltas += [begin, SetMetadata(begin.part_id, header(part))]
        candidate.building = _Building(begin.part_id, part)
        return deltas

    def _part(self, candidate: _Candidate, native: JsonDict, part: Part) -> list[Delta]:
        """The deltas of a chunk's part: a text or thought part opens or grows; any other arrives whole."""
        if not isinstance(part, (TextPart, ReasoningPart)):  # arrives whole
            deltas = self._close(candidate)
            candidate.call = candidate.call or isinstance(part, ToolCallPart)
            begin = self._begin(candidate, part.part_kind)
            deltas.append(begin)
            shown = header(part)
            if shown:
                deltas.append(SetMetadata(begin.part_id, shown))
            deltas.append(CommitPart(part, part_id=begin.part_id))
            return deltas
        text = _text_of(part)
        growing = candidate.text
        if growing is not None and type(growing.part) is type(part):
            # A signature with text of its own starts a part; an empty chunk's joins the open one if it has none.
            signed, open_signed = SIGNATURE in part.metadata, SIGNATURE in growing.part.metadata
            if not signed or (not open_signed and (text == "" or growing.size == 0)):
                whole = copy_json(growing.native)
                whole.update((k, copy_json(v)) for k, v in native.items() if k != "text")
                grown = part_from_native(whole, self._calls)  # the text is "": only the other fields matter
                if isinstance(grown, (TextPart, ReasoningPart)) and type(grown) is type(part):
                    deltas = []
                    if grown.metadata != growing.part.metadata:
                        deltas.append(SetMetadata(growing.part_id, grown.metadata))
                    if text:
                        deltas.append(AppendText(growing.part_id, text))
                    growing.grow(whole, grown, text)
                    return deltas
        if text == "" and native.keys() == {"text"}:
            return []  # nothing to show: Gemini 3 ends a stream whose answer is a call with such a chunk
        deltas = self._close(candidate)
        begin = self._begin(candidate, part.part_kind)
        deltas.append(begin)
        if part.metadata:
            deltas.append(SetMetadata(begin.part_id, part.metadata))
        if text:
            deltas.append(AppendText(begin.part_id, text))
        candidate.text = _Block(begin.part_id, {**copy_json(native), "text": ""}, part, text)
        return deltas

    def _close(self, candidate: _Candidate) -> list[Delta]:
        """The commits of the candidate's open parts (its growing text, its call built from fragments)."""
        deltas: list[Delta] = []
        growing, building = candidate.text, candidate.building
        if growing is not None:
            candidate.text = None
            deltas.append(CommitPart(growing.closed(), part_id=growing.part_id))
        if building is not None:
            candidate.building = None
            deltas.append(CommitPart(building.arguments.call(building.start), part_id=building.part_id))
        return deltas

    def finish(self, parts: Sequence[Part] | FoldState) -> Item:
        """The first candidate's ASSISTANT item: the folded ``parts`` plus what the chunks carried.

        ``parts`` may be the fold state itself (its open parts then close as they stand, not lost) or its parts.
        """
        return self.finish_all(parts)[0]

    def close(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> Item:
        """The first candidate's item of a turn stopped before it finished (:meth:`close_all` gives every one)."""
        return self.close_all(parts, reason)[0]

    def close_all(self, parts: Sequence[Part] | FoldState, reason: FinishReason = FinishReason.CANCELLED) -> list[Item]:
        """The items of a turn stopped before it finished (cancelled; ``ERROR`` for a transport failure).

        ``parts`` is ``FoldState.finalize()`` (or the state itself).  Each
        candidate with no ``finishReason`` yet gets ``reason``, keeps the text
        and thoughts that arrived, and drops a call whose ``partialArgs`` were
        still arriving, listed under ``agentkit.stream_cut``; a call that came
        whole is kept.  Candidates that had finished keep :meth:`finish_all`'s items.
        """
        return self._items(stream_parts(parts), reason)

    def finish_all(self, parts: Sequence[Part] | FoldState) -> list[Item]:
        """One ASSISTANT item per candidate, in ``index`` order, from the folded ``parts`` of the whole stream.

        ``parts`` is ``FoldState.parts``, or ``finalize()`` for a stream cut
        short: a part for every part the decoder began, in the order begun
        (with one candidate, any parts).  Other parts raise :class:`NormalizeError`.
        A candidate the stream left without its ``finishReason`` (and no
        blocked prompt or error ended the stream) is closed as
        :meth:`close_all` closes it, with ``FinishReason.ERROR``.
        """
        return self._items(stream_parts(parts), FinishReason.ERROR)

    def _items(self, parts: list[Part], reason: FinishReason) -> list[Item]:
        stopped = self._error is not None or block_reason(self._response) is not None
        if not self._candidates and not parts:
            item = candidate_item(self._response, {}, {}, (), self.usage, prompt_only=True, error=self._error)
            return close_items([item], [stopped], (), reason)
        candidates = self._candidates or {0: _Candidate(0)}  # parts without a candidate: folded from elsewhere
        order = sorted(candidates)
        owned = split_parts(parts, self._owners, order)
        items = [
            candidate_item(self._response, c.fields, c.content, owned[c.index], self.usage if n == 0 else None, error=self._error)
            for n, c in enumerate(candidates[i] for i in order)
        ]
        ended = [stopped or isinstance(candidates[i].fields.get("finishReason"), str) for i in order]
        open_calls = {c.building.part_id.value for c in candidates.values() if c.building is not None}
        return close_items(items, ended, cut_calls(parts, self._began, open_calls), reason)


def stream_decoder(*, new_call_id: NewCallId | None = None) -> GeminiStreamDecoder:
    """A decoder for one stream; ``new_call_id`` names calls that arrive without an id."""
    return GeminiStreamDecoder(new_call_id)
