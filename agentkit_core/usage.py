"""Token and cost accounting.

Token conventions (providers differ; adapters normalise to these):

* ``input_tokens`` counts every token of the prompt, **including** cached
  reads (``cached_input_tokens``) and cache writes
  (``cache_write_input_tokens``), which are breakdowns of it.  OpenAI reports
  it that way; Anthropic reports ``input_tokens`` *excluding* both, so its
  adapter adds ``cache_read_input_tokens`` and ``cache_creation_input_tokens``
  back in (and keeps the raw numbers in ``anthropic.*`` metadata).
* ``output_tokens`` counts every generated token, **including**
  ``reasoning_tokens``, which is a breakdown of it (OpenAI's convention;
  Gemini's ``candidatesTokenCount`` excludes thoughts, so its adapter adds them).

Usage adds up with ``+``, so ``sum(usages, Usage())`` totals a session:
counts add, an optional count stays ``None`` only when it is ``None`` on both
sides, and costs add when their currencies match (a mismatch raises
``ValueError``; convert first).
"""

from __future__ import annotations

from dataclasses import field, replace

from . import _check as check, _codec as wire
from ._codec import MAX_DEPTH, MISSING, U64_END
from ._make import filler, unchecked_maker
from ._value import Value, dataclass
from .error import NormalizeError
from .metadata import EMPTY_METADATA, JsonValue, MetadataLike, MetadataMap, as_metadata, metadata_field

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Mapping

__all__ = ("TokenUsage", "CostUsage", "Usage")

_TOKEN_FIELDS = ("input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens", "cache_write_input_tokens")


def _add_optional(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class TokenUsage(Value):
    """Token counts of one model call (or a sum of them); see the module docstring for conventions.

    Each count is an ``int`` with ``0 <= n < 2**64`` (the optional ones may be
    ``None``): a float, a bool, a negative or a too large number raises
    :class:`NormalizeError`, a non-number ``TypeError``.  So does a sum that
    overflows.
    """

    input_tokens: int
    output_tokens: int
    reasoning_tokens: int | None = field(default=None, kw_only=True)
    cached_input_tokens: int | None = field(default=None, kw_only=True)
    cache_write_input_tokens: int | None = field(default=None, kw_only=True)

    def __init__(
        self,
        input_tokens: int,
        output_tokens: int,
        *,
        reasoning_tokens: int | None = None,
        cached_input_tokens: int | None = None,
        cache_write_input_tokens: int | None = None,
    ) -> None:
        _fill_tokens(
            self,
            check.u64(input_tokens, "TokenUsage", "input_tokens"),
            check.u64(output_tokens, "TokenUsage", "output_tokens"),
            check.opt_u64(reasoning_tokens, "TokenUsage", "reasoning_tokens"),
            check.opt_u64(cached_input_tokens, "TokenUsage", "cached_input_tokens"),
            check.opt_u64(cache_write_input_tokens, "TokenUsage", "cache_write_input_tokens"),
        )

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens``."""
        return self.input_tokens + self.output_tokens

    def with_reasoning_tokens(self, n: int | None) -> TokenUsage:
        """A copy with ``reasoning_tokens`` set."""
        return replace(self, reasoning_tokens=n)

    def with_cached_input_tokens(self, n: int | None) -> TokenUsage:
        """A copy with ``cached_input_tokens`` set."""
        return replace(self, cached_input_tokens=n)

    def with_cache_write_input_tokens(self, n: int | None) -> TokenUsage:
        """A copy with ``cache_write_input_tokens`` set."""
        return replace(self, cache_write_input_tokens=n)

    def __add__(self, other: TokenUsage) -> TokenUsage:
        if not isinstance(other, TokenUsage):
            return NotImplemented
        return TokenUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            reasoning_tokens=_add_optional(self.reasoning_tokens, other.reasoning_tokens),
            cached_input_tokens=_add_optional(self.cached_input_tokens, other.cached_input_tokens),
            cache_write_input_tokens=_add_optional(self.cache_write_input_tokens, other.cache_write_input_tokens),
        )

    def __radd__(self, other: object) -> TokenUsage:
        if other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: the five counts by name, an optional one that is not set ``None``."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cache_write_input_tokens": self.cache_write_input_tokens,
        }

    @classmethod
    def from_dict(cls, v: object, /) -> TokenUsage:
        """Decode token counts; raises :class:`NormalizeError`."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: object, depth: int) -> TokenUsage:
        # The common case of each count is settled here, anything else by the rule in _codec.
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "TokenUsage", _TOKEN_FIELDS, depth)
        get = d.get
        inputs = get("input_tokens", MISSING)
        if type(inputs) is not int or not 0 <= inputs < U64_END:
            inputs = wire.u64(inputs, "input_tokens")
        outputs = get("output_tokens", MISSING)
        if type(outputs) is not int or not 0 <= outputs < U64_END:
            outputs = wire.u64(outputs, "output_tokens")
        reasoning = get("reasoning_tokens")
        if reasoning is not None and (type(reasoning) is not int or not 0 <= reasoning < U64_END):
            reasoning = wire.opt_u64(reasoning, "reasoning_tokens")
        cached = get("cached_input_tokens")
        if cached is not None and (type(cached) is not int or not 0 <= cached < U64_END):
            cached = wire.opt_u64(cached, "cached_input_tokens")
        written = get("cache_write_input_tokens")
        if written is not None and (type(written) is not int or not 0 <= written < U64_END):
            written = wire.opt_u64(written, "cache_write_input_tokens")
        return _make_tokens(inputs, outputs, reasoning, cached, written)


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class CostUsage(Value):
    """What a call cost: ``amount`` in ``currency`` (an ISO 4217 code such as ``"USD"``).

    ``amount`` is a finite number, kept as a ``float`` (NaN, infinities and
    bools raise :class:`NormalizeError`, a string ``TypeError``).
    ``provider_amount`` keeps the provider's own exact figure when it sent one
    as a string.
    """

    amount: float
    currency: str
    provider_amount: str | None = field(default=None, kw_only=True)

    def __init__(self, amount: float, currency: str, *, provider_amount: str | None = None) -> None:
        _fill_cost(
            self,
            check.f64(amount, "CostUsage", "amount"),
            check.string(currency, "CostUsage", "currency"),
            check.opt_string(provider_amount, "CostUsage", "provider_amount"),
        )

    def with_provider_amount(self, amount: str | None) -> CostUsage:
        """A copy with ``provider_amount`` set."""
        return replace(self, provider_amount=amount)

    def __add__(self, other: CostUsage) -> CostUsage:
        if not isinstance(other, CostUsage):
            return NotImplemented
        if other.currency != self.currency:
            raise ValueError(
                f"cannot add costs in different currencies: {self.currency!r} and {other.currency!r}"
            )
        # A provider's exact figure describes one call; a sum has none.
        return CostUsage(self.amount + other.amount, self.currency)

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"amount": ..., "currency": ..., "provider_amount": ...}``, ``amount`` a float."""
        return {"amount": float(self.amount), "currency": self.currency, "provider_amount": self.provider_amount}

    @classmethod
    def from_dict(cls, v: object, /) -> CostUsage:
        """Decode a cost; raises :class:`NormalizeError`."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: object, depth: int) -> CostUsage:
        d = wire.struct(v, "CostUsage", ("amount", "currency", "provider_amount"), depth)
        return _make_cost(
            wire.f64(d.get("amount", MISSING), "amount"),
            wire.string(d.get("currency", MISSING), "currency"),
            wire.opt_string(d.get("provider_amount"), "provider_amount"),
        )


_decode_tokens = TokenUsage._decode  # bound once: a class attribute would bind a method on every call
_make_tokens = unchecked_maker(TokenUsage, *_TOKEN_FIELDS)
_make_cost = unchecked_maker(CostUsage, "amount", "currency", "provider_amount")
_fill_tokens = filler(TokenUsage, *_TOKEN_FIELDS)
_fill_cost = filler(CostUsage, "amount", "currency", "provider_amount")


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class Usage(Value):
    """Token and cost usage of a turn, with metadata for provider extras.

    ``Usage() + Usage(...)`` and ``sum(usages, Usage())`` accumulate; metadata
    merges with the right-hand side winning.
    """

    tokens: TokenUsage | None = None
    cost: CostUsage | None = field(default=None, kw_only=True)
    metadata: MetadataMap = field(default=EMPTY_METADATA, kw_only=True)

    def __init__(self, tokens: TokenUsage | None = None, *, cost: CostUsage | None = None, metadata: MetadataLike = EMPTY_METADATA) -> None:
        md = metadata if type(metadata) is MetadataMap else as_metadata(metadata, "Usage")
        check.fits(1 + check.depth(md), "Usage", "metadata")
        if tokens is not None:
            tokens = check.instance(tokens, TokenUsage, "Usage", "tokens", "a TokenUsage or None")
        if cost is not None:
            cost = check.instance(cost, CostUsage, "Usage", "cost", "a CostUsage or None")
        _fill_usage(self, tokens, cost, md)

    @property
    def _depth(self) -> int:
        """How deep :meth:`to_dict` nests: the metadata is the deepest field."""
        return 1 + check.depth(self.metadata)

    def with_cost(self, cost: CostUsage | None) -> Usage:
        """A copy with ``cost`` set."""
        return replace(self, cost=cost)

    def with_metadata(self, metadata: Mapping[str, JsonValue]) -> Usage:
        """A copy whose metadata is ``metadata`` (replaced)."""
        return replace(self, metadata=metadata)  # type: ignore[arg-type]  # __init__ converts

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        tokens = self.tokens if other.tokens is None else other.tokens if self.tokens is None else self.tokens + other.tokens
        cost = self.cost if other.cost is None else other.cost if self.cost is None else self.cost + other.cost
        return Usage(tokens, cost=cost, metadata=self.metadata.merged(other.metadata))

    def __radd__(self, other: object) -> Usage:
        if other == 0:
            return self
        return NotImplemented

    def to_dict(self) -> dict[str, JsonValue]:
        """The wire form: ``{"tokens": ..., "cost": ..., "metadata": {...}}``."""
        tokens, cost = self.tokens, self.cost
        return {
            "tokens": None if tokens is None else tokens.to_dict(),
            "cost": None if cost is None else cost.to_dict(),
            "metadata": self.metadata.to_dict() if self.metadata._data else {},
        }

    @classmethod
    def from_dict(cls, v: object, /) -> Usage:
        """Decode usage; raises :class:`NormalizeError`."""
        return cls._decode(v, 1)

    @classmethod
    def _decode(cls, v: object, depth: int) -> Usage:
        d = v if type(v) is dict and depth <= MAX_DEPTH else wire.struct(v, "Usage", ("tokens", "cost", "metadata"), depth)
        tokens = d.get("tokens")
        if tokens is not None:
            try:
                tokens = _decode_tokens(tokens, depth + 1)
            except NormalizeError as exc:
                raise exc.under("tokens") from None
        cost = d.get("cost")
        if cost is not None:
            cost = wire.field(d, "cost", CostUsage._decode, depth + 1)
        md = d.get("metadata")
        md = EMPTY_METADATA if type(md) is dict and not md and depth < MAX_DEPTH else metadata_field(d, depth)
        return _make_usage(tokens, cost, md)


_make_usage = unchecked_maker(Usage, "tokens", "cost", "metadata")
_fill_usage = filler(Usage, "tokens", "cost", "metadata")


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
