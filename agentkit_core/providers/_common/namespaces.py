"""Native fields with no neutral home, carried as namespaced metadata and written back; whose a part is.

:func:`fields_to_metadata` keeps a native object's unconsumed fields as ``<namespace><field>``
metadata, :func:`metadata_to_fields` gives them back as fields, :func:`copy_json` copies
native payloads so values never share them; :func:`in_namespace` and
:func:`owned` say which provider a key or a part belongs to.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ... import EMPTY_METADATA, PROVIDER_KEY, JsonValue
from ..._for_providers import PROVIDERS
from .native import JsonDict


def copy_json(v: object) -> Any:
    """A deep copy of JSON data: native payloads are never shared with the values made from them."""
    if isinstance(v, dict):  # scalars are taken as they are, without a call each
        if type(v) is dict:
            for x in v.values():
                if isinstance(x, (dict, list)):
                    break
            else:
                return v.copy()  # no container in it (a tool call's arguments, mostly): one C-level copy
        return {k: copy_json(x) if isinstance(x, (dict, list)) else x for k, x in v.items()}
    if isinstance(v, list):
        return [copy_json(x) if isinstance(x, (dict, list)) else x for x in v]
    return v


def bare(metadata: Mapping[str, JsonValue]) -> bool:
    """Whether ``metadata`` is empty: a value whose encoding nothing carried changes (the encoders' fast paths)."""
    return metadata is EMPTY_METADATA or not metadata


def fields_to_metadata(native: Mapping[str, JsonValue], consumed: Iterable[str], prefix: str) -> dict[str, JsonValue]:
    """The fields of ``native`` not in ``consumed``, keyed ``prefix + field``: metadata for a value.

    ``fields_to_metadata(block, ("type", "text"), "anthropic.")`` keeps a text block's
    ``citations`` and ``cache_control`` as ``anthropic.citations`` and
    ``anthropic.cache_control``, fields nobody has seen yet included.  The
    values are ``native``'s own, not copies: hand the map to a constructor,
    which checks and copies the metadata it keeps.  A hot caller passes a
    ``frozenset``, used as it is.
    """
    skip = consumed if type(consumed) is frozenset else set(consumed)
    return {prefix + k: v for k, v in native.items() if k not in skip}


def metadata_to_fields(metadata: Mapping[str, JsonValue], prefix: str, skip: Iterable[str] = ()) -> JsonDict:
    """The inverse of :func:`fields_to_metadata`: the ``prefix.<field>`` entries of ``metadata`` as native fields.

    Only direct fields: a key with another dot after ``prefix`` belongs to a
    nested object (or, for ``openai.``, to Chat's ``openai.chat.``) and is
    left out, as are the field names in ``skip``.
    """
    out: JsonDict = {}
    if metadata is EMPTY_METADATA or not metadata:  # the common case, without a call to the map's __len__
        return out
    n = len(prefix)
    never = skip if type(skip) is tuple or type(skip) is frozenset else set(skip)
    for key, value in metadata.items():
        if key.startswith(prefix):
            name = key[n:]
            if "." not in name and name not in never:
                out[name] = copy_json(value) if type(value) is dict or type(value) is list else value
    return out


#: Namespaces nested in another provider's (the registry's): ``openai.chat.*`` is Chat Completions', not the Responses API's.
_NESTED_NAMESPACES = tuple(
    inner.namespace for inner in PROVIDERS
    if any(inner.namespace != outer.namespace and inner.namespace.startswith(outer.namespace) for outer in PROVIDERS)
)


def in_namespace(key: str, namespace: str) -> bool:
    """Whether the metadata key or custom kind ``key`` is the provider's whose namespace is ``namespace``.

    Every provider owns its prefix (``anthropic.``, ``gemini.``,
    ``openai.chat.``), and the Responses API ``openai.`` but for Chat's
    ``openai.chat.``: neither OpenAI projection ever writes the other's fields.
    """
    if not key.startswith(namespace):
        return False
    return not any(key.startswith(inner) for inner in _NESTED_NAMESPACES if inner != namespace and inner.startswith(namespace))


def owned(metadata: Mapping[str, JsonValue], provider: str | None, namespace: str) -> bool:
    """Whether a part is this provider's to send back as its own state or fields.

    ``agentkit.provider`` decides when it is set (it must be ``provider``;
    ``None`` for a provider that keeps no opaque state, so no marked part is
    its own); without it, metadata in the provider's ``namespace`` says the
    part came from this API.
    """
    owner = metadata.get(PROVIDER_KEY)
    if owner is not None:
        return owner == provider
    return any(in_namespace(key, namespace) for key in metadata)
