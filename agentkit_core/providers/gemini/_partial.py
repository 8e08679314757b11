"""Private to :mod:`.gemini`: function-call arguments streamed in fragments (Vertex AI's ``partialArgs``).

With ``streamFunctionCallArguments`` a call arrives over several chunks: the
first holds ``functionCall.name`` (and the signature) with ``willContinue:
true``; each next one holds only ``partialArgs``, a list of ``{"jsonPath":
"$.a.b[0]", "<kind>Value": ...}`` (a string value with ``willContinue: true``
goes on in the next fragment of the same path); the first chunk whose
``functionCall`` does not say ``willContinue`` ends the call.  The call these
fragments build is the one a non-streaming response holds:
``{"name": ..., "args": {...}}`` (its own other fields kept).
"""

from __future__ import annotations

import re
from typing import Any

from ... import NormalizeError, ToolCallPart, checked_json
from .._common import ARGUMENTS_MAX_DEPTH, JsonDict, copy_json
from ._keys import OMITTED, marked_paths

#: The start chunk's ``functionCall.willContinue``, which the whole call does not hold.
CONTINUES = "gemini.functionCall.willContinue"

JsonPath = tuple["str | int", ...]

_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d{1,4})\]|\[(?:'([^']*)'|\"([^\"]*)\")\]")
_VALUES = ("stringValue", "numberValue", "boolValue", "nullValue", "structValue", "listValue")


def starts(call: object) -> bool:
    """Whether a chunk's ``functionCall`` opens a call whose arguments follow in fragments."""
    return isinstance(call, dict) and isinstance(call.get("name"), str) and call.get("willContinue") is True and "args" not in call


def continues(call: object) -> bool:
    """Whether a chunk's ``functionCall`` is a fragment of the call being built (it has no name)."""
    return isinstance(call, dict) and "name" not in call and "args" not in call and set(call) <= {"partialArgs", "willContinue"}


def parse_path(text: object, where: str) -> JsonPath:
    """``$.a.b[0]["c d"]`` as its steps; ``NormalizeError`` at ``where`` for anything else."""
    if not isinstance(text, str) or not text.startswith("$"):
        raise NormalizeError("expected a JSON path starting with $", where)
    steps: list[str | int] = []
    at = 1
    while at < len(text):
        found = _STEP.match(text, at)
        if found is None:
            raise NormalizeError("expected a JSON path of .name and [index] steps (indexes below 10000)", where)
        name, index, single, double = found.groups()
        steps.append(int(index) if index is not None else next(s for s in (name, single, double) if s is not None))
        at = found.end()
    if steps and isinstance(steps[0], int):
        raise NormalizeError("expected a JSON path into the arguments object", where)
    if len(steps) >= ARGUMENTS_MAX_DEPTH:
        raise NormalizeError(f"a JSON path deeper than arguments nest ({ARGUMENTS_MAX_DEPTH} levels)", where)
    return tuple(steps)


def fragments(call: JsonDict, where: str) -> list[tuple[JsonPath, str, Any, bool]]:
    """The checked ``partialArgs`` of a fragment: ``(path, value kind, value, continues)`` each."""
    raw = call.get("partialArgs", [])
    if not isinstance(raw, list):
        raise NormalizeError("expected an array", f"{where}.partialArgs")
    out = []
    for n, fragment in enumerate(raw):
        at = f"{where}.partialArgs[{n}]"
        if not isinstance(fragment, dict):
            raise NormalizeError("expected an object", at)
        kinds = [k for k in _VALUES if k in fragment]
        if len(kinds) != 1:
            raise NormalizeError("expected exactly one of " + ", ".join(_VALUES), at)
        kind = kinds[0]
        value = fragment[kind]
        if kind == "stringValue" and not isinstance(value, str):
            raise NormalizeError("expected a string", f"{at}.stringValue")
        path = parse_path(fragment.get("jsonPath"), f"{at}.jsonPath")
        if isinstance(value, (dict, list)):  # the value's own levels count below the path's
            try:
                checked_json(value, max_depth=ARGUMENTS_MAX_DEPTH - len(path))
            except NormalizeError as exc:
                raise NormalizeError(exc.message, f"{at}.{kind}") from None
        out.append((path, kind, value, fragment.get("willContinue") is True))
    return out


class Arguments:
    """The arguments of one call, as its fragments arrive."""

    def __init__(self) -> None:
        self.args: JsonDict = {}
        self._growing: JsonPath | None = None  # the string a fragment said goes on

    def apply(self, found: list[tuple[JsonPath, str, Any, bool]]) -> None:
        """Set every fragment's value at its path (a continued string is joined)."""
        for path, kind, value, more in found:
            if not path:
                continue  # the arguments object itself: nothing to set
            if kind == "nullValue":
                value = None
            elif kind != "stringValue":
                value = copy_json(value)
            elif path == self._growing:
                value = _get(self.args, path) + value
            self._growing = path if kind == "stringValue" and more else None
            _set(self.args, path, value)

    def call(self, start: ToolCallPart) -> ToolCallPart:
        """The whole call: ``start`` (the call the first chunk opened) with these arguments."""
        metadata = start.metadata.without(CONTINUES, OMITTED)
        omitted = [p for p in marked_paths(start.metadata, OMITTED) if p != "functionCall.args"]  # it has them now
        if omitted:
            metadata = metadata.merged({OMITTED: list(omitted)})
        return ToolCallPart(start.id, start.name, copy_json(self.args), metadata=metadata)


def _get(root: Any, path: JsonPath) -> object:
    for step in path:
        root = root[step]
    return root


def _set(root: object, path: JsonPath, value: object) -> None:
    for step, following in zip(path, path[1:]):
        fresh: object = [] if isinstance(following, int) else {}
        root = _slot(root, step, fresh)
    _slot(root, path[-1], value, replace=True)


def _slot(container: Any, step: str | int, value: object, replace: bool = False) -> object:
    """``container[step]``, set to ``value`` when missing or of another type (always with ``replace``).

    ``container`` is what the step before made of the right type (the root is
    an object and a path starts with a name), so every step fits it.
    """
    if isinstance(step, int):  # below 10,000 (parse_path): no fragment makes a list of millions
        container.extend([None] * (step + 1 - len(container)))
    elif step not in container:
        container[step] = None
    if replace or type(container[step]) is not type(value):
        container[step] = value
    return container[step]
