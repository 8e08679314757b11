"""Private to :mod:`.openai_chat`: how the stream decoder accumulates the fields of chunks into the message."""

from __future__ import annotations

from typing import Any

from ._common import JsonDict, copy_json


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


def merge_entries(acc: list[Any], entries: list[Any]) -> None:
    """Fragments of a list field (OpenRouter's ``reasoning_details``...): an object whose ``index`` is
    already held continues that entry, as the SDKs accumulate it (its strings concatenate, its objects
    merge, ``index`` and ``type`` are replaced); anything else is a new entry."""
    for entry in entries:
        index = entry.get("index") if isinstance(entry, dict) else None
        same = None if type(index) is not int else next(
            (e for e in acc if isinstance(e, dict) and type(e.get("index")) is int and e["index"] == index), None)
        if same is None:
            acc.append(copy_json(entry))
        else:
            _merge_object(same, entry)


def _merge_object(acc: JsonDict, fragment: JsonDict) -> None:
    for k, v in fragment.items():
        if isinstance(v, dict) and isinstance(acc.get(k), dict):
            _merge_object(acc[k], v)
        elif k in ("index", "type") and v is not None:
            acc[k] = copy_json(v)
        else:
            merge_fragment(acc, k, v)


def merge_snapshot(acc: JsonDict, key: str, value: Any) -> None:
    """A chunk or choice field, repeated by every chunk: the last non-null value wins."""
    if value is None:
        acc.setdefault(key, None)
    else:
        acc[key] = copy_json(value)
