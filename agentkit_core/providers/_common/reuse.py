"""What ``http_request`` keeps between builds, so the next request costs what is new.

Items are frozen, so the JSON a provider writes for an item stays right for
as long as the item is in the transcript.  Each provider writes its
transcript with a :class:`Build`: a fold over the items, one :meth:`Build.add`
an item, whose finished messages it hands over (:meth:`Build.take_final`) as
soon as no later item can change them (Gemini's last content takes the calls
of the next item into it, so it stays open; Chat's media of tool results wait
for the next message).  :class:`BuildCache` keeps, for the last builds, the items
they covered, the encoded JSON of their finished messages and a copy of the
fold's state; a build for items that begin with the same item objects resumes
there, folds only the new items, and joins the body from the kept bytes.

* **Invisible**: the bytes are those of a fresh build (the same fold, the
  same encoder; :func:`json_bytes` writes a body whose messages are kept
  pieces exactly as ``json.dumps`` writes the whole).  An error makes the
  build fresh, so it raises what a fresh build raises.
* **Bounded**: :data:`SLOTS` builds a provider; a build that extends one, or
  shares its first item (the same session rewritten, compacted), replaces it;
  otherwise it replaces the least recently used.  Nothing else holds items.
* **Safe across threads**: what is kept is never changed after it is stored
  (a resumed fold works on a copy); the slots are read and replaced under a
  lock.

Identity, not equality, says an item is the same: :class:`~agentkit_core.Item`
compares by identity, and two equal-looking values can encode differently
(``1`` and ``True``).
"""

from __future__ import annotations

import contextlib
from _thread import allocate_lock  # threading.Lock itself, without importing threading (about 1 ms)
from typing import TYPE_CHECKING, Any, Callable, Dict, Generic, Iterable, Iterator, List, Optional, Protocol, Sequence, Tuple, TypeVar

from ... import Item
from ..._for_providers import FAST_PATHS, compact_encoder
from . import JsonDict
from .native import checked_list

__all__ = ("Build", "BuildCache", "Layered", "by_kind", "Raw", "fresh", "json_bytes", "json_pieces", "encoder", "disabled", "clear", "SLOTS")

V = TypeVar("V")

#: Builds kept for each provider.
SLOTS = 4

_encode: Optional[Callable[[object], str]] = None


def encoder() -> Callable[[object], str]:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``, its C encoder made once (on
    first use) by :func:`agentkit_core.jsontext.compact_encoder`; the text is the same."""
    global _encode
    if _encode is None:
        _encode = compact_encoder(allow_nan=False)
    return _encode


# AGENTKIT_CORE_FAST_PATHS=0: every build fresh.  Measured gain (tools/bench.py --only requests): the next
# request of a 1,500-item session costs 39-50 us kept, 5.5-16 ms fresh, 130x-330x.
_enabled = FAST_PATHS
_all: List["BuildCache"] = []


class Build(Protocol):
    """A provider's transcript fold: its state after the items added so far."""

    def add(self, index: int, item: Item) -> None:
        """Fold ``item``, the ``index``-th of the transcript (its errors name ``items[index]``)."""

    def take_final(self) -> List[Any]:
        """Remove and return the messages no later item can change, as they are sent."""

    def rest(self) -> List[Any]:
        """The messages still open, and what ends the transcript, as sent now; the build is left as it was."""

    def fields(self, messages: object, count: int) -> JsonDict:
        """The transcript fields of the body, ``messages`` (``count`` of them) as the messages' value; the build unchanged."""

    def copy(self) -> "Build":
        """A copy that can fold on without changing this one."""


class FastFold:
    """``add`` and ``add_all`` of a build with a fast path for the transcript's common shapes.

    The build names its fast fold, ``fold_fast(build, items, start)`` (its provider's
    ``_fast.fold``, which hands each item it cannot take to ``add_general``), and its
    general ``add_general(index, item)``.  With ``fast`` false (the tests set it, to
    compare the two) every item goes the general way.
    """

    __slots__ = ()

    #: Whether items of the common shapes take the fast path (``AGENTKIT_CORE_FAST_PATHS=0``: never).
    fast = FAST_PATHS

    if TYPE_CHECKING:

        @staticmethod
        def fold_fast(build: object, items: Sequence[Item], start: int, /) -> None: ...

        def add_general(self, index: int, item: Item) -> None: ...

    def add(self, index: int, item: Item) -> None:
        """Fold ``item``, the ``index``-th of the transcript."""
        if self.fast:
            self.fold_fast(self, (item,), index)
        else:
            self.add_general(index, item)

    def add_all(self, items: Sequence[Item]) -> None:
        """:meth:`add` of each of ``items``, the first at index 0, in one pass (a fresh build's fold)."""
        if self.fast:
            self.fold_fast(self, items, 0)
        else:
            for index, item in enumerate(items):
                self.add_general(index, item)


class Layered(Generic[V]):
    """A ``str``-keyed map a fold keeps (the calls seen so far) that copies in constant time.

    A copy shares what the original held, read-only, and keeps its own additions apart; once
    those pass :data:`_LAYER` they are merged into a new shared map, so a copy costs a small
    dict copy, and the merge's linear cost comes once in every ``_LAYER`` copies.
    """

    __slots__ = ("own", "base")

    def __init__(self) -> None:
        self.own: Dict[str, V] = {}
        self.base: Dict[str, V] = {}  # never changed: copies share it

    def get(self, key: str, default: Optional[V] = None) -> Optional[V]:
        """The value for ``key``, the latest one set, else ``default``."""
        own = self.own
        if key in own:
            return own[key]
        return self.base.get(key, default)

    def __setitem__(self, key: str, value: V) -> None:
        self.own[key] = value

    def update(self, pairs: Iterable[Tuple[str, V]]) -> None:
        """Set each ``(key, value)`` in order."""
        self.own.update(pairs)

    def copy(self) -> Layered[V]:
        """A copy that can be changed without changing this one."""
        new: Layered[V] = Layered()
        if len(self.own) > _LAYER:
            new.base = {**self.base, **self.own}
        else:
            new.base, new.own = self.base, dict(self.own)
        return new


_LAYER = 64


def by_kind(table: Any) -> Dict[int, Any]:
    """``table`` (item kind -> value) keyed by each kind's ``id()``, for the encoders' fast paths: an enum
    member hashes in Python at every dict lookup, an ``int`` in C (members are singletons)."""
    return {id(kind): value for kind, value in table.items()}


class Raw:
    """A JSON value already encoded: the UTF-8 pieces that, joined, are its text."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: List[bytes]) -> None:
        self.pieces = pieces


def json_bytes(body: JsonDict) -> bytes:
    """``body`` as compact UTF-8 JSON, its :class:`Raw` values written as they are."""
    return b"".join(json_pieces(body))


def json_pieces(body: JsonDict) -> List[bytes]:
    """The UTF-8 pieces that, joined, are :func:`json_bytes` of ``body``: its :class:`Raw` values' own pieces, not copied."""
    encode = encoder()
    if not any(type(v) is Raw for v in body.values()):
        return [encode(body).encode("utf-8")]
    pieces: List[bytes] = []
    for key, value in body.items():
        pieces.append((("," if pieces else "{") + encode(key) + ":").encode("utf-8"))
        if type(value) is Raw:
            pieces.extend(value.pieces)
        else:
            pieces.append(encode(value).encode("utf-8"))
    pieces.append(b"}")
    return pieces


def fresh(build: Build, items: Sequence[Item]) -> JsonDict:
    """The transcript fields of ``items`` folded by ``build`` (new), nothing kept.

    A build with an ``add_all(items)`` method (its :meth:`Build.add` of each item, in one pass) folds through it.
    """
    add_all = getattr(build, "add_all", None)
    if add_all is not None:
        add_all(items)
    else:
        add = build.add
        for index, item in enumerate(items):
            add(index, item)
    out = build.take_final()
    out += build.rest()
    return build.fields(out, len(out))


class _Checkpoint:
    """A build kept: the items it covered, the encoded finished messages, the fold's state (never changed).

    ``chunks`` are the messages' JSON, each after the first led by its comma, in blocks (:func:`_joined`).
    """

    __slots__ = ("items", "chunks", "count", "build")

    def __init__(self, items: List[Item], chunks: Tuple[bytes, ...], count: int, build: Build) -> None:
        self.items, self.chunks, self.count, self.build = items, chunks, count, build


def _joined(blocks: Tuple[bytes, ...], new: List[bytes]) -> Tuple[bytes, ...]:
    """``blocks`` and then ``new``, the last blocks joined while one is not at least twice the size of the next.

    So a transcript's JSON is a few blocks (about log2 of its size), a body joins in one copy, and each
    byte is copied a logarithmic number of times over a session, not once a turn.
    """
    out = list(blocks)
    for chunk in new:
        out.append(chunk)
        while len(out) > 1 and len(out[-2]) < 2 * len(out[-1]):
            last = out.pop()
            out[-1] += last
    return tuple(out)


class BuildCache:
    """The builds kept for one provider, whose fold ``make`` starts."""

    def __init__(self, make: Callable[[], Build]) -> None:
        self.make = make
        self._lock = allocate_lock()
        self._slots: List[_Checkpoint] = []  # most recently used first
        _all.append(self)

    def fields(self, items: Sequence[Item]) -> JsonDict:
        """The transcript fields of ``items``, byte for byte those of :func:`fresh`, their messages :class:`Raw`."""
        seq = items if type(items) in (list, tuple) else checked_list(items, Item, "items")
        if not _enabled or not seq:
            return fresh(self.make(), checked_list(seq, Item, "items"))
        try:
            return self._resume(seq)
        except Exception:  # noqa: BLE001 - a fresh build raises what is wrong, with its path
            return fresh(self.make(), checked_list(seq, Item, "items"))

    def _find(self, seq: Sequence[Item]) -> Tuple[Optional[_Checkpoint], List[Item]]:
        """The kept build ``seq`` extends the furthest (or ``None``), and ``seq`` as a list of our own for the next."""
        n, first = len(seq), seq[0]
        best: Optional[_Checkpoint] = None
        with self._lock:
            for cp in self._slots:
                k = len(cp.items)
                if k <= n and cp.items[0] is first and cp.items[k - 1] is seq[k - 1] and (best is None or k > len(best.items)):
                    best = cp
        if best is None:
            return None, list(seq)
        k = len(best.items)
        if k == n:  # nothing new: the kept list (never changed) serves again
            head = seq if type(seq) is list else list(seq)
            return (best, best.items) if head == best.items else (None, list(seq))  # Items compare by identity
        head = list(seq[:k]) if type(seq) is not list else seq[:k]
        if head != best.items:
            return None, list(seq)
        head.extend(seq[k:])  # the slice made for the check is the copy kept next
        return best, head

    def _resume(self, seq: Sequence[Item]) -> JsonDict:
        cp, snapshot = self._find(seq)
        chunks: Tuple[bytes, ...] = ()
        if cp is None:
            build, start, count = self.make(), 0, 0
        else:
            build, start, chunks, count = cp.build.copy(), len(cp.items), cp.chunks, cp.count
        new: List[bytes] = []
        encode = encoder()
        for index in range(start, len(seq)):
            item = seq[index]
            if not isinstance(item, Item):
                raise TypeError("not an Item")
            build.add(index, item)
            for message in build.take_final():
                new.append((("," if count else "") + encode(message)).encode("utf-8"))
                count += 1
        if new:
            chunks = _joined(chunks, new)
        kept = _Checkpoint(snapshot, chunks, count, build)
        rest = build.rest()  # the kept build is not changed from here on
        self._store(kept, cp)
        pieces = [b"[", *chunks]
        for k, message in enumerate(rest):
            pieces.append((("," if count + k else "") + encode(message)).encode("utf-8"))
        pieces.append(b"]")
        return build.fields(Raw(pieces), count + len(rest))

    def _store(self, kept: _Checkpoint, resumed: Optional[_Checkpoint]) -> None:
        first = kept.items[0]
        with self._lock:
            slots = self._slots
            old = resumed if resumed in slots else next((cp for cp in slots if cp.items[0] is first), None)
            if old is not None:
                slots.remove(old)
            elif len(slots) >= SLOTS:
                slots.pop()
            slots.insert(0, kept)

    def clear(self) -> None:
        """Forget every kept build."""
        with self._lock:
            self._slots.clear()


def clear() -> None:
    """Forget every provider's kept builds."""
    for kept in _all:
        kept.clear()


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Inside, every build is fresh and nothing is kept (for tests and benchmarks: a fresh build to compare with)."""
    global _enabled
    previous, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = previous
