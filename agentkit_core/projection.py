"""Projection protocols: how provider adapters meet the neutral model.

The design settles on *full normalisation* at the boundary (its "pattern A"):
an adapter keeps its native types inside and hands the rest of the toolkit
owned :class:`~.item.Item` and :class:`~.delta.Delta` values.  These protocols
name the two directions an adapter works in, so a loop, a reporter or a test
can accept any adapter without importing it.  They are structural
(``typing.Protocol``): an adapter satisfies them by having the methods, and a
*module* with these functions satisfies them too.

Inbound (provider -> neutral):

* :class:`ResponseDecoder` turns one non-streaming native response into items;
* :class:`StreamDecoder` turns native stream events into deltas, one event at
  a time, and at the end builds the turn's item from the folded parts (usage,
  finish reason and response-level metadata arrive as events, not deltas).

Outbound (neutral -> provider):

* :class:`RequestEncoder` turns a transcript into the transcript-derived part
  of a native request body (messages, system prompt, input items).

:class:`ItemView` is the read-only view of an item that consumers such as
reporters and compaction need; :class:`~.item.Item` satisfies it, and so can
an adapter's own lazily-normalising wrapper.

Rules every adapter keeps: provider data the model has no field for survives
in namespaced metadata (``anthropic.*``, ``openai.*``) or a
:class:`~.content.CustomPart`; token usage follows the conventions in
:mod:`.usage`; native stop reasons map into :class:`~.finish.FinishReason`
with the raw value kept in metadata.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import Mapping, Protocol, Sequence, TypeVar, runtime_checkable

    from .content import Part
    from .delta import Delta
    from .item import Item, ItemKind
    from .metadata import JsonValue
else:  # the same classes without importing typing: see _lean_typing
    from ._lean_typing import Protocol, runtime_checkable, type_parameter as TypeVar

__all__ = ("ItemView", "ResponseDecoder", "StreamDecoder", "RequestEncoder", "ProviderAdapter")

R_contra = TypeVar("R_contra", contravariant=True)
E_contra = TypeVar("E_contra", contravariant=True)


@runtime_checkable
class ItemView(Protocol):
    """What a consumer may read of a transcript item."""

    @property
    def kind(self) -> ItemKind:
        """Who or what the item comes from."""

    @property
    def parts(self) -> Sequence[Part]:
        """The item's content parts, in order."""

    @property
    def metadata(self) -> Mapping[str, JsonValue]:
        """The item's metadata, read-only."""


class ResponseDecoder(Protocol[R_contra]):
    """Native non-streaming response -> items (usually one assistant item)."""

    def items_from_response(self, response: R_contra, /) -> list[Item]:
        """The items of one native response."""


class StreamDecoder(Protocol[E_contra]):
    """Native stream events -> deltas, then the turn's item.

    One decoder serves one stream.  Fold every delta :meth:`feed` returns; when
    the stream ends, :meth:`finish` wraps the folded parts in the turn's item,
    with the usage, finish reason and metadata the events carried.
    """

    def feed(self, event: E_contra, /) -> Sequence[Delta]:
        """The deltas of one native stream event (often none)."""

    def finish(self, parts: Sequence[Part], /) -> Item:
        """The turn's item: the folded ``parts`` with what the stream's events carried besides."""


class RequestEncoder(Protocol):
    """Items -> the transcript-derived fields of a native request body."""

    def request_from_items(self, items: Sequence[Item], /) -> dict[str, JsonValue]:
        """The transcript-derived fields of a native request body, made from ``items``."""


class ProviderAdapter(ResponseDecoder[R_contra], RequestEncoder, Protocol[R_contra, E_contra]):
    """All three directions of one provider; a module of functions satisfies it."""

    def stream_decoder(self) -> StreamDecoder[E_contra]:
        """A fresh decoder for one stream."""


def __dir__() -> list[str]:
    """The public names only, as ``__all__`` lists them: ``dir()`` shows no helper and no private import."""
    return list(__all__)
