"""Providers by name: what ``providers.complete(model="<provider>:<model>")`` costs beyond the module's ``complete``.

A turn by name splits the model string, finds the name's row and its wire's
turn (a dict lookup each), then runs the module's turn; both read the key and
base URL from the environment the same way.  Measured as the difference per
turn, in one process, between ``providers.complete(model="openai-chat:m")``
and ``openai_chat.complete(model="m")`` on a transport that refuses to
connect (``retries=0``: the whole turn up to the socket, build and send
included, then its error), and the same for ``http_request``.  Goal: at most
2 us more per turn.
"""

from __future__ import annotations

import os
from typing import Any

from bench import Row, paired, verdict

GOAL_US = 2.0


class _Offline:
    """A transport that refuses every exchange: the turn runs to the socket and stops there."""

    def exchange(self, request: Any, *, connect_timeout: float, read_timeout: float) -> Any:
        from agentkit_core.http import TransportError

        raise TransportError("offline", retryable=False)

    def close(self) -> None:
        pass


def measure(quick: bool) -> list[Row]:
    """The by-name rows: the difference per turn against the module's functions."""
    from agentkit_core import Item, ItemKind
    from agentkit_core.http import TransportError
    from agentkit_core.providers import complete, http_request, openai_chat

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    items = [Item.text(ItemKind.USER, "What's the weather in Paris?")]
    transport = _Offline()
    number = 200 if quick else 2000
    rounds = 3 if quick else 15

    def turn(fn: Any, model: str) -> Any:
        def run() -> None:
            try:
                fn(items, model=model, transport=transport, retries=0)
            except TransportError:
                pass
        return run

    rows = []
    for what, named, module in (
        ("complete() by name", turn(complete, "openai-chat:m"), turn(openai_chat.complete, "m")),
        ("http_request() by name", lambda: http_request(items, model="openai-chat:m"),
         lambda: openai_chat.http_request(items, model="m")),
    ):
        ours, base, ratio = paired(named, module, rounds, number)
        extra = (ours - base) * 1e6
        rows.append(Row("by-name", what, f"{extra:+.2f} us/turn", f"{ratio:.3f}x the module's ({base * 1e6:.1f} us)",
                        verdict(extra <= GOAL_US, f"<= {GOAL_US:g} us more")))
    return rows
