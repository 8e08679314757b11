"""When to retry and how long to wait: the rules of the official Anthropic and OpenAI SDKs.

* Retry on a connection failure or timeout, and on an answer of status 408,
  409, 429 or 500 and above (529, Anthropic's "overloaded", among them),
  unless the server says otherwise: ``x-should-retry: true`` retries any
  status, ``x-should-retry: false`` none.  No other 4xx is retried.
* Wait what the server asks when it asks for more than 0 and at most 60 s:
  ``retry-after-ms`` (milliseconds), else ``Retry-After`` (seconds, or an
  HTTP date).
* Otherwise back off exponentially, 0.5 s doubling per retry, capped at 8 s,
  with jitter taking up to a quarter off: ``min(0.5 * 2**n, 8) * (1 - 0.25 * random())``
  for the ``n``-th retry (from 0).
"""

from __future__ import annotations

import random
import time
from typing import Mapping

__all__ = ("should_retry", "retry_delay", "server_delay", "INITIAL_DELAY", "MAX_DELAY", "RETRY_STATUSES")

INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
#: The statuses below 500 that are retried.
RETRY_STATUSES = frozenset((408, 409, 429))
_MAX_ASKED = 60.0


def should_retry(status: int, headers: Mapping[str, str]) -> bool:
    """Whether an answer of ``status`` with ``headers`` (lower-case names) is worth another try."""
    told = headers.get("x-should-retry", "").strip().lower()
    if told == "true":
        return True
    if told == "false":
        return False
    return status in RETRY_STATUSES or status >= 500


def server_delay(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait in seconds the server asks for (``retry-after-ms``, ``Retry-After``), or ``None``."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    from email.utils import mktime_tz, parsedate_tz

    parsed = parsedate_tz(value)
    if parsed is None:
        return None
    return mktime_tz(parsed) - (time.time() if now is None else now)


def retry_delay(headers: Mapping[str, str], retried: int, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number ``retried`` (0 for the first), given the last answer's headers."""
    asked = server_delay(headers)
    if asked is not None and 0 < asked <= _MAX_ASKED:
        return asked
    base = min(INITIAL_DELAY * 2.0 ** min(retried, 1000), MAX_DELAY)
    return max(base * (1 - 0.25 * (rng or random).random()), 0.0)
