"""Private to :mod:`.gemini`: its ``gemini.*`` keys and markers, and the two spellings of native field names.

Gemini takes camelCase and snake_case field names alike (python-genai sends a
mix); a part decoded from either is written back in the spelling it came in,
and fields a part had no value for stay absent.  What is read here is noted
as markers (``gemini.snake_case``, ``gemini.omitted``) and undone when writing.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from ... import JsonValue
from .._common import JsonDict

#: The provider's name, as ``agentkit.provider`` holds it on a part carrying a thought signature.
PROVIDER = "gemini"
NS = PROVIDER + "."
CONTENT = NS + "content."
SIGNATURE = NS + "thought_signature"
SNAKE = NS + "snake_case"
OMITTED = NS + "omitted"
BASE64 = NS + "base64"
#: The placeholder signature Google documents for function calls that did not come from Gemini.
SKIP_SIGNATURE = "skip_thought_signature_validator"
#: ``gemini.*`` part keys that are markers or the signature, never native fields of the part.
MARKERS = ("thought_signature", "snake_case", "omitted", "base64")

#: What names a function call that arrives without an id (``new_call_id``).
NewCallId = Callable[[], str]


# -- spelling ---------------------------------------------------------------------------


def to_snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def key_of(native: Mapping[str, JsonValue], camel: str) -> str | None:
    """The key ``native`` spells the field ``camel`` with (camelCase first, then snake_case), or ``None``."""
    if camel in native:
        return camel
    snake = to_snake(camel)
    return snake if snake in native else None


def marked_paths(metadata: Mapping[str, JsonValue], key: str) -> list[str]:
    value = metadata.get(key)
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []


def _split(paths: Iterable[str]) -> tuple[set[str], dict[str, list[str]]]:
    top: set[str] = set()
    nested: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        if rest:
            nested.setdefault(head, []).append(rest)
        else:
            top.add(head)
    return top, nested


def respell(native: JsonDict, paths: Iterable[str]) -> JsonDict:
    """``native`` with the fields at ``paths`` (camelCase) renamed to snake_case, order kept."""
    top, nested = _split(paths)
    for head, rest in nested.items():
        if isinstance(native.get(head), dict):
            native[head] = respell(native[head], rest)
    return {(to_snake(k) if k in top else k): v for k, v in native.items()} if top else native


def omit(native: JsonDict, paths: Iterable[str]) -> None:
    top, nested = _split(paths)
    for head, rest in nested.items():
        if isinstance(native.get(head), dict):
            omit(native[head], rest)
    for name in top:
        native.pop(name, None)


class Marks:
    """What decoding one native object noted for its rebuild: snake_case spellings, omitted fields."""

    def __init__(self) -> None:
        self.snake: list[str] = []
        self.omitted: list[str] = []

    def key(self, native: Mapping[str, JsonValue], camel: str, path: str = "") -> str | None:
        key = key_of(native, camel)
        if key is not None and key != camel:
            self.snake.append(path + camel)
        return key

    def metadata(self) -> dict[str, JsonValue]:
        found: dict[str, JsonValue] = {}
        if self.snake:
            found[SNAKE] = list(self.snake)
        if self.omitted:
            found[OMITTED] = list(self.omitted)
        return found
