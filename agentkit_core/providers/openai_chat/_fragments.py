"""Private to :mod:`.openai_chat`: how the stream decoder accumulates the fields of chunks into the message."""

from __future__ import annotations

from typing import Any

from ... import JsonValue
from .._common import JsonDict, copy_json


def merge_fragment(acc: JsonDict, key: str, value: JsonValue) -> None:
    """A delta field: strings concatenate, lists grow (:func:`merge_entries`), anything else replaces
    (``null`` never does)."""
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif isinstance(value, str) and isinstance(old, str):
        acc[key] = old + value
    elif isinstance(value, list):
        if not isinstance(old, list):
            old = acc[key] = []
        merge_entries(old, value)
    else:
        acc[key] = copy_json(value)


#: Fields a fragment of a list entry repeats to say which entry it continues: replaced, never joined.
IDENTITY = ("index", "type", "id", "format")


def merge_entries(acc: list[Any], entries: list[Any]) -> None:
    """Fragments of a list field (OpenRouter's ``reasoning_details``...): an object continues the last
    entry with its ``index`` unless it names another ``type`` (a summary and the encrypted state both
    come at index 0); its strings concatenate, its objects merge, :data:`IDENTITY` fields are replaced.
    Anything else is a new entry."""
    for entry in entries:
        held = _held(acc, entry)
        if held is None:
            acc.append(copy_json(entry))
        else:
            _merge_object(held, entry)


def _held(acc: list[JsonValue], entry: Any) -> JsonDict | None:
    index = entry.get("index") if isinstance(entry, dict) else None
    if type(index) is not int:
        return None
    for held in reversed(acc):
        if isinstance(held, dict) and type(held.get("index")) is int and held["index"] == index:
            kind = entry.get("type")
            return held if kind is None or held.get("type") in (None, kind) else None
    return None


def _merge_object(acc: JsonDict, fragment: JsonDict) -> None:
    for k, v in fragment.items():
        if isinstance(v, dict) and isinstance(acc.get(k), dict):
            _merge_object(acc[k], v)
        elif k in IDENTITY and v is not None:
            acc[k] = copy_json(v)
        else:
            merge_fragment(acc, k, v)


def merge_snapshot(acc: JsonDict, key: str, value: JsonValue) -> None:
    """A chunk or choice field, repeated by every chunk: the last non-null value wins."""
    if value is None:
        acc.setdefault(key, None)
    else:
        acc[key] = copy_json(value)


class Growing:
    """String fields that grow fragment by fragment, held as pieces until they are read.

    Appending to a string copies it, so an answer grown one fragment at a time
    would cost time quadratic in its length.  :meth:`add` is
    :func:`merge_fragment` for one field, but a string onto a non-empty string
    is set aside: the dict keeps the first piece (so the field's truth value
    is right) and :meth:`settle` writes every field's whole text into its dict
    when the message is read.  Each settle joins what arrived since the last.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        #: (id of the dict, key) -> the dict, the key and the field's pieces (the dict is held, so its id stays its own)
        self._held: dict[tuple[int, str], tuple[JsonDict, str, list[str]]] = {}

    def add(self, acc: JsonDict, key: str, value: JsonValue) -> None:
        """Merge fragment ``value`` into ``acc[key]``."""
        old = acc.get(key)
        if isinstance(value, str) and isinstance(old, str) and old:
            held = self._held.get((id(acc), key))
            if held is None:
                held = self._held[(id(acc), key)] = (acc, key, [old])
            held[2].append(value)
            return
        self.take(acc, key)
        merge_fragment(acc, key, value)

    def take(self, acc: JsonDict, key: str) -> JsonValue:
        """``acc[key]`` whole, and no longer held in pieces (the caller may replace it)."""
        held = self._held.pop((id(acc), key), None)
        if held is not None:
            acc[key] = "".join(held[2])
        return acc.get(key)

    def settle(self) -> None:
        """Write every field's whole text into its dict."""
        for acc, key, pieces in self._held.values():
            if len(pieces) > 1:
                pieces[:] = ["".join(pieces)]
            acc[key] = pieces[0]
