"""``python -m agentkit_core convert --from PROVIDER FILE...``: provider traffic to items.

Each file is a request body, a response body or a stream, told apart by its
content, never by its name:

* server-sent events (a raw ``text/event-stream`` body, as an ``*.sse.txt``
  recording holds) are a stream, read with the provider's ``events_from_sse``;
* one JSON value is a body: a request gives the items of its transcript, a
  response the turn's items; a value that is one stream event (or chunk) is a
  stream of one;
* several JSON values (JSON Lines, or a JSON array) are a stream's events, one
  a value; several requests or responses are converted one after another.

The items are written to standard output as JSON Lines, one item a line in
the reference's compact form, escaped for a terminal as the rest of the
command line is.  A file of another provider's traffic, or one the projection
refuses, gets one line on standard error (``file:line: path: message``) and
the other files are still converted.  The provider modules are imported only
here, when a file is converted.

Ids a projection invents (Gemini sends calls without ids; each run draws new
ones) are drawn from ``--seed TEXT`` instead when it is given: the same files
and seed give the same output, byte for byte.  A call keeps its
``agentkit.invented_id`` mark and stays linked to its result.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from dataclasses import replace
from typing import IO, Any, Callable, Iterable

from .._detect import CHUNKS_ARE_RESPONSES, MESSAGES_APIS, NAMES, Provider, sniff
from .._reader import BINARY, EMPTY, EVENTS, Reading
from .._registry import PROVIDERS
from ..content import Part
from ..delta import Delta
from ..error import NormalizeError, ProtocolError
from ..fold import FoldState, fold_all
from ..ids import ToolCallId
from ..item import Item
from ..keys import INVENTED_ID_KEY
from ..tool import ToolCallPart, ToolResultPart

__all__ = ("FLAGS", "flag", "module_of", "run")

#: The ``--from`` spelling of each provider module (the registry's rows).
FLAGS = {row.module: row.cli for row in PROVIDERS}
#: Fields only a request of the provider holds (its transcript).
_REQUEST_FIELDS = {row.module: row.transcript_fields for row in PROVIDERS}
_MODULES = {row.cli: row.module for row in PROVIDERS}


def flag(module: str) -> str:
    """The ``--from`` spelling of a provider module: ``openai_chat`` -> ``openai-chat``."""
    return FLAGS[module]


def module_of(spelling: str) -> str:
    """The provider module a ``--from`` value names, in either spelling (``openai-chat``, ``openai_chat``)."""
    return _MODULES.get(spelling, spelling)


class _Refused(Exception):
    """A file the command cannot convert: its one line of report."""


def run(
    args: argparse.Namespace,
    open_path: Callable[[str], IO[bytes]],
    report: Callable[[str], None],
    cannot_read: Callable[[str, OSError], None],
    write: Callable[[str], None],
) -> None:
    """Convert every file of ``args``: items to ``write`` (one JSON line each), problems to ``report``."""
    module = module_of(args.provider)
    projection = importlib.import_module(f"..providers.{module}", __package__)
    seeded = None if getattr(args, "seed", None) is None else SeededIds(args.seed)
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            with open_path(path) as stream:
                data = stream.read()
        except OSError as exc:
            cannot_read(name, exc)
            continue
        try:
            items = _convert(projection, module, name, data)
        except _Refused as refused:
            report(str(refused))
            continue
        except NormalizeError as exc:
            report(f"{name}: {exc}" if not exc.location else str(exc))
            continue
        for item in items if seeded is None else seeded.items(items):
            write(item.to_json())


#: How to say where an event or a body was read: ``exc`` located in the file.
_Locate = Callable[[NormalizeError], NormalizeError]


def _convert(projection: Any, module: str, name: str, data: bytes) -> list[Item]:
    reading = Reading(io.BytesIO(data), name, owned=False)
    if reading.shape == EMPTY:
        raise _Refused(f"{name}: not {_traffic(module)}: the file is empty")
    looks = reading.looks(lambda _: False)  # what validate would say the file is
    if looks is not None and looks.provider is not None and looks.provider != module:
        if not (looks.what.endswith(" request") and {looks.provider, module} <= MESSAGES_APIS):  # "messages": both APIs'
            raise _Refused(f"{name}: {looks.what}, not {_traffic(module)}; convert it with --from {flag(looks.provider)}")
    if reading.shape == BINARY:
        assert looks is not None  # binary data always says what it looks like
        raise _Refused(f"{name}: not {_traffic(module)}: {looks.what}")
    if reading.shape == EVENTS:
        events = projection.events_from_sse(data)
        return _stream(projection, ((_at(f"{name}: event {n}"), event) for n, event in enumerate(events, 1)))
    records = []
    for record in reading.records():
        if record.problem is not None:
            raise record.problem
        records.append(record)
    located = [(_in(reading, r), r.value) for r in records]
    found = sniff(records[0].value) if records else None
    kind = "" if found is None else found.what.rpartition(" ")[2]
    if kind in ("event", "chunk") or (len(records) > 1 and (kind not in ("request", "response", "object") or module in CHUNKS_ARE_RESPONSES)):
        return _stream(projection, located)  # a stream's events (Gemini's chunks look like responses)
    items: list[Item] = []
    for locate, value in located:  # one body, or several requests or responses
        try:
            items += _body(projection, module, found, value)
        except NormalizeError as exc:
            raise locate(exc) from None
    return items


def _in(reading: Reading, record: Any) -> _Locate:
    return lambda exc: reading.located(exc, record)


def _at(location: str) -> _Locate:
    return lambda exc: NormalizeError(exc.message, exc.path, location)


def _body(projection: Any, module: str, found: Provider | None, value: Any) -> list[Item]:
    """The items of one request or response body."""
    if found is not None and found.what.endswith(" content object"):  # one Gemini message
        value = {"contents": [value]}
    if found is not None:
        is_request = found.what.endswith((" request", " content object"))
    else:
        is_request = isinstance(value, dict) and any(field in value for field in _REQUEST_FIELDS[module])
    items: list[Item] = projection.items_from_request(value) if is_request else projection.items_from_response(value)
    return items


def _stream(projection: Any, events: Iterable[tuple[_Locate, Any]]) -> list[Item]:
    """Feed and fold a whole stream; a refused event is reported where it was read."""
    decoder = projection.stream_decoder()
    deltas: list[Delta] = []
    for locate, event in events:
        try:
            deltas += decoder.feed(event)
        except NormalizeError as exc:
            raise locate(exc) from None
    try:
        state = fold_all(FoldState(), deltas)
    except ProtocolError as exc:  # pragma: no cover - a decoder's deltas always fold
        raise _Refused(f"the decoder's deltas do not fold: {exc}") from None
    items: list[Item] = decoder.finish_all(state.finalize())
    return items


def _traffic(module: str) -> str:
    return f"{NAMES[module]} traffic"


def stdin_bytes() -> IO[bytes]:
    """Standard input as a binary stream that closing leaves open."""
    stream: Any = getattr(sys.stdin, "buffer", sys.stdin)
    data = stream.read()
    return io.BytesIO(data if isinstance(data, bytes) else data.encode("utf-8"))


class SeededIds:
    """Invented call ids replaced by ids drawn from a seed, in the order they first appear in a run.

    The n-th invented id becomes ``call_`` and 24 hex digits of
    ``sha256("<seed>:<n>")``; every part naming it (the call, its results)
    gets the same new id, and the call keeps its ``agentkit.invented_id``.
    """

    def __init__(self, seed: str) -> None:
        self._seed = seed
        self._ids: dict[str, str] = {}

    def items(self, items: list[Item]) -> list[Item]:
        """``items`` with their invented ids replaced."""
        for item in items:
            for part in item.parts:
                if isinstance(part, ToolCallPart) and part.metadata.get(INVENTED_ID_KEY) is True:
                    self._draw(part.id.value)
        return [item.with_parts([self._part(p) for p in item.parts]) if self._ids else item for item in items]

    def _draw(self, old: str) -> None:
        import hashlib

        if old not in self._ids:
            digest = hashlib.sha256(f"{self._seed}:{len(self._ids)}".encode()).hexdigest()
            self._ids[old] = "call_" + digest[:24]

    def _part(self, part: Part) -> Part:
        if isinstance(part, ToolCallPart) and part.id.value in self._ids:
            return replace(part, id=ToolCallId(self._ids[part.id.value]))
        if isinstance(part, ToolResultPart) and part.call_id.value in self._ids:
            return replace(part, call_id=ToolCallId(self._ids[part.call_id.value]))
        return part
