"""Portable model settings: one value every provider module writes into its own request fields.

:class:`ModelSettings` names what the four APIs share (the answer's length,
sampling, stop sequences, a seed, reasoning effort or budget, a JSON Schema
for the answer, parallel tool calls) once.  Each provider module writes it
into its native fields (``max_tokens``, ``max_completion_tokens``,
``max_output_tokens``, ``generationConfig.maxOutputTokens``...) and refuses,
with a ``ValueError`` naming the setting and the provider, a setting its API
has no field for: nothing is dropped silently.  The table of fields is in
``docs/turns.md`` ("Portable settings") and in each provider's ``_settings`` module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, fields
from operator import attrgetter

from . import _check as check
from ._make import filler
from ._value import Value, dataclass
from .error import NormalizeError
from .jsontext import JsonValue, checked_json, parse_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Any

__all__ = ("ModelSettings", "SETTING_NAMES")

_OWNER = "ModelSettings"


def _number(v: object, name: str, low: float, high: float) -> float | int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise check.wrong_type(_OWNER, name, "a number", v)
    if not low <= v <= high:  # bounded: no infinity is in range, and NaN compares false
        raise NormalizeError(f"expected a number from {low:g} to {high:g}, found {v!r}", f"{_OWNER}.{name}")
    return v


def _integer(v: object, name: str, positive: bool) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise check.wrong_type(_OWNER, name, "an integer", v)
    if positive and v < 1:
        raise NormalizeError(f"expected a count of 1 or more, found {v}", f"{_OWNER}.{name}")
    if not -(2**63) <= v < 2**64:
        raise NormalizeError(f"{v} does not fit in 64 bits", f"{_OWNER}.{name}")
    return v


def _text(v: object, name: str) -> str:
    if not isinstance(v, str):
        raise check.wrong_type(_OWNER, name, "a string", v)
    if not v:
        raise NormalizeError("expected a non-empty string", f"{_OWNER}.{name}")
    return v


def _stop(v: object) -> tuple[str, ...]:
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Sequence):
        raise check.wrong_type(_OWNER, "stop", "a sequence of strings", v)
    out = tuple(v)
    if not out:
        raise NormalizeError("expected at least one stop sequence (leave it None for none)", f"{_OWNER}.stop")
    for n, s in enumerate(out):
        if not isinstance(s, str):
            raise check.wrong_type(_OWNER, f"stop[{n}]", "a string", s)
        if not s:
            raise NormalizeError("a stop sequence cannot be empty", f"{_OWNER}.stop[{n}]")
    return out


def _schema(v: object) -> dict[str, JsonValue]:
    if not isinstance(v, Mapping):
        raise check.wrong_type(_OWNER, "output_schema", "a JSON Schema object (a dict)", v)
    try:
        copied = checked_json(dict(v))
    except NormalizeError as exc:
        raise NormalizeError(f"not JSON data: {exc.message}", f"{_OWNER}.output_schema" + (f".{exc.path}" if exc.path else "")) from None
    assert isinstance(copied, dict)
    return copied


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class ModelSettings(Value):
    """Settings of a model call that every provider can take, each checked when made; ``None`` is unset.

    ``max_tokens`` (a positive count) bounds the answer; ``temperature`` (0 to
    2) and ``top_p`` (0 to 1) shape sampling; ``stop`` is a sequence of
    non-empty stop strings (kept as a tuple); ``seed`` an int; ``reasoning_effort``
    an effort level as the provider spells it (``"low"``, ``"high"``...: each
    provider refuses a level its API does not know); ``reasoning_budget`` a
    positive count of thinking tokens; ``output_schema`` a JSON Schema (a JSON
    object, copied) the answer must follow; ``parallel_tool_calls`` whether
    the model may call several tools at once.  A wrong type raises
    ``TypeError``, a wrong value :class:`~agentkit_core.NormalizeError` (a
    ``ValueError``), naming the field.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: Sequence[str] | None = None
    seed: int | None = None
    reasoning_effort: str | None = None
    reasoning_budget: int | None = None
    output_schema: Mapping[str, JsonValue] | None = field(default=None, hash=False)
    parallel_tool_calls: bool | None = None

    def __init__(
        self,
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        stop: Sequence[str] | None = None,
        seed: int | None = None,
        reasoning_effort: str | None = None,
        reasoning_budget: int | None = None,
        output_schema: Mapping[str, JsonValue] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> None:
        if max_tokens is not None:
            _integer(max_tokens, "max_tokens", True)
        if temperature is not None:
            _number(temperature, "temperature", 0.0, 2.0)
        if top_p is not None:
            _number(top_p, "top_p", 0.0, 1.0)
        if stop is not None:
            stop = _stop(stop)
        if seed is not None:
            _integer(seed, "seed", False)
        if reasoning_effort is not None:
            _text(reasoning_effort, "reasoning_effort")
        if reasoning_budget is not None:
            _integer(reasoning_budget, "reasoning_budget", True)
        if output_schema is not None:
            output_schema = _schema(output_schema)
        if parallel_tool_calls is not None and not isinstance(parallel_tool_calls, bool):
            raise check.wrong_type(_OWNER, "parallel_tool_calls", "a boolean", parallel_tool_calls)
        _fill(self, max_tokens, temperature, top_p, stop, seed, reasoning_effort, reasoning_budget, output_schema, parallel_tool_calls)

    def __hash__(self) -> int:  # every field but those marked hash=False (the schema, a dict)
        return hash(_hashed(self))

    def given(self) -> dict[str, Any]:
        """The settings that are set, by name, in field order."""
        return {name: value for name, value in zip(SETTING_NAMES, _values(self)) if value is not None}

    def to_dict(self) -> dict[str, JsonValue]:
        """The settings that are set, as JSON data (``stop`` a list)."""
        out: dict[str, JsonValue] = {}
        for name, value in self.given().items():
            out[name] = list(value) if name == "stop" else checked_json(value) if name == "output_schema" else value
        return out

    @classmethod
    def from_dict(cls, d: object, /) -> ModelSettings:
        """The settings of :meth:`to_dict`'s form; an unknown name raises :class:`~agentkit_core.NormalizeError`, a bad value
        as the constructor does."""
        if not isinstance(d, Mapping):
            raise check.wrong_type(_OWNER, "from_dict", "a mapping", d)
        unknown = [k for k in d if k not in SETTING_NAMES]
        if unknown:
            raise NormalizeError(f"{str(unknown[0])[:80]!r} is no setting (the settings: {', '.join(SETTING_NAMES)})", _OWNER)
        return cls(**{k: v for k, v in d.items() if v is not None})

    @classmethod
    def from_json(cls, text: str | bytes | bytearray, /) -> ModelSettings:
        """The settings of :meth:`to_json`'s text; :class:`~agentkit_core.NormalizeError` for text that is not."""
        value = parse_json(text)
        if not isinstance(value, dict):
            raise NormalizeError("expected a JSON object of settings", _OWNER)
        return cls.from_dict(value)

    def merged(self, other: ModelSettings | None) -> ModelSettings:
        """These settings with ``other``'s set ones on top."""
        if other is None:
            return self
        return ModelSettings(**{**self.given(), **other.given()})


#: Every setting's name, in field order.
SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(ModelSettings))

_values = attrgetter(*SETTING_NAMES)
_hashed = attrgetter(*(f.name for f in fields(ModelSettings) if f.hash is not False))

_fill = filler(ModelSettings, *SETTING_NAMES)


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
