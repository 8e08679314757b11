"""Recorded provider traffic in ``tests/payloads/<provider>/``, as the adapter tests read it."""

from __future__ import annotations

import json
import os
from typing import Any

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "payloads")


def path(provider: str, name: str) -> str:
    """The file ``name`` of ``provider`` (``anthropic``, ``openai_chat``, ``openai_responses``)."""
    return os.path.join(ROOT, provider, name)


def load(provider: str, name: str) -> Any:
    """A recorded JSON body (request or response)."""
    with open(path(provider, name), encoding="utf-8") as f:
        return json.load(f)


def load_events(provider: str, name: str) -> list[dict[str, Any]]:
    """A recorded stream: one event a line of a ``.stream.jsonl`` file."""
    with open(path(provider, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def names(provider: str, suffix: str) -> list[str]:
    """The provider's recorded files ending in ``suffix``, sorted."""
    return sorted(n for n in os.listdir(os.path.join(ROOT, provider)) if n.endswith(suffix))
