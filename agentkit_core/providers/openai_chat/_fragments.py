"""Private to :mod:`.openai_chat`: how the stream decoder accumulates the fields of chunks into the message."""

from __future__ import annotations

from typing import Any

from .._common import JsonDict, copy_json


def merge_fragment(acc: JsonDict, key: str, value: Any) -> None:
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


def _held(acc: list[Any], entry: Any) -> JsonDict | None:
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


def merge_snapshot(acc: JsonDict, key: str, value: Any) -> None:
    """A chunk or choice field, repeated by every chunk: the last non-null value wins."""
    if value is None:
        acc.setdefault(key, None)
    else:
        acc[key] = copy_json(value)
