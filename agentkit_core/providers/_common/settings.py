"""Portable settings into native fields and back, and the native fields a caller may not give.

Each provider's ``_settings`` module lists its :data:`Row` s: for a
:class:`~agentkit_core.ModelSettings` field, the object of the body it is
written into (a path of keys from the body) and how its value is written
there and read back.  What is written here, once:

* :func:`settings_fields`: the body fields of some settings, after refusing
  (``ValueError``, naming the setting and the provider) a setting the
  registry says the API has no field for, or an effort level it does not
  know;
* :func:`settings_from_body`: the settings a body's fields hold, each only
  when writing it back gives exactly the fields it was read from (a field
  that does not map exactly stays a native field);
* :func:`merge`: body fields joined object by object, a field given twice
  refused, naming both;
* :func:`checked_native`: the native fields of ``http_request``, refused
  when the transcript or the tools write them;
* :func:`refuse_conflicts`: a built body refused, naming both fields and
  who set each (a setting, the tool choice, a native field), when it holds
  two fields its API documents it refuses together (each provider's
  ``_settings.conflicts`` lists them), before it is sent.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple, Sequence

from ... import JsonValue, ModelSettings, checked_json
from ..._for_providers import capabilities, provider_info
from . import JsonDict

__all__ = ("Row", "key_row", "settings_fields", "settings_from_body", "merge", "checked_native", "checked_settings", "native_conflict", "schema_name",
           "with_settings", "Conflict", "at", "present", "both_given", "unstreamed_options", "ThinkingFields", "thinking_conflicts",
           "refuse_conflicts")


class Row(NamedTuple):
    """One setting's native home: the object at ``path`` gets ``write(value)``'s keys; ``read(object)`` gives the value
    (``None`` when the object holds none)."""

    setting: str
    path: tuple[str, ...]
    write: Callable[[object], JsonDict]
    read: Callable[[JsonDict], Any]


def key_row(setting: str, path: tuple[str, ...], key: str, to: Callable[[object], Any] = lambda v: v,
            back: Callable[[object], Any] = lambda v: v) -> Row:
    """The row of a setting written as one key of the object at ``path``: ``to(value)`` there, ``back(field)`` read."""

    def read(obj: JsonDict) -> object:
        return None if key not in obj else back(obj[key])

    return Row(setting, path, lambda v: {key: to(v)}, read)


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def schema_name(schema: Mapping[str, JsonValue]) -> str:
    """The name OpenAI's two APIs give a JSON Schema: its ``title`` when that is a valid name (64 letters, digits,
    ``_`` or ``-`` at most), else ``"output"``."""
    title = schema.get("title")
    if isinstance(title, str) and 0 < len(title) <= 64 and set(title) <= _NAME_CHARS:
        return title
    return "output"


def checked_settings(settings: object) -> ModelSettings | None:
    """``settings`` if it is a :class:`~agentkit_core.ModelSettings` or ``None``, else ``TypeError``."""
    if settings is not None and not isinstance(settings, ModelSettings):
        raise TypeError(f"settings: expected a ModelSettings, found {type(settings).__name__}")
    return settings


def _where(path: Sequence[str]) -> str:
    return ".".join(path)


def _owner(owners: Mapping[tuple[str, ...], str], path: tuple[str, ...]) -> str | None:
    """The setting that wrote ``path``, an object holding it, or a field inside it (``owners`` from :func:`settings_fields`)."""
    return next((s for p, s in owners.items() if p[: len(path)] == path or path[: len(p)] == p), None)


def settings_fields(settings: ModelSettings | None, provider: str, rows: Sequence[Row]) -> tuple[JsonDict, dict[tuple[str, ...], str]]:
    """The body fields ``settings`` write for ``provider`` (a registry name), and which setting wrote each field's path.

    A setting the API has no field for, and a ``reasoning_effort`` it does not
    know, raise ``ValueError`` naming it and the provider.
    """
    settings = checked_settings(settings)
    if settings is None:
        return {}, {}
    info, can = provider_info(provider), capabilities(provider)
    by_name = {row.setting: row for row in rows}
    body: JsonDict = {}
    owners: dict[tuple[str, ...], str] = {}
    for name, value in settings.given().items():
        row = by_name.get(name)
        if name not in can.settings or row is None:
            raise ValueError(f"ModelSettings.{name}: the {info.display} API has no field for it ({provider} refuses it)")
        if name == "reasoning_effort" and value not in can.reasoning_efforts:
            raise ValueError(
                f"ModelSettings.reasoning_effort: {value[:40]!r} is no effort level of the {info.display} API "
                f"(it knows {', '.join(can.reasoning_efforts)})"
            )
        target = body
        for key in row.path:
            target = target.setdefault(key, {})
        for key, native in row.write(list(value) if name == "stop" else value).items():
            target[key] = native
            owners[row.path + (key,)] = name
    return body, owners


def settings_from_body(body: Mapping[str, JsonValue], rows: Sequence[Row]) -> ModelSettings:
    """The settings ``body``'s fields hold (see the module's docstring); fields that do not map exactly are not read."""
    found: dict[str, Any] = {}
    for row in rows:
        obj: object = body
        for key in row.path:
            obj = obj.get(key) if isinstance(obj, Mapping) else None
        if not isinstance(obj, Mapping):
            continue
        try:
            value = row.read(dict(obj))
            if value is None:
                continue
            ModelSettings(**{row.setting: value})  # checked as the constructor checks it
            written = row.write(list(value) if row.setting == "stop" else value)
        except (TypeError, ValueError, KeyError, AttributeError):
            continue
        if all(k in obj and _same(obj[k], v) for k, v in written.items()):
            found[row.setting] = value
    return ModelSettings(**found)


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``1`` from ``1.0`` from ``True`` (written back, each is another field)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def merge(base: JsonDict, extra: Mapping[str, Any], describe: Callable[[tuple[str, ...]], str], *, same_ok: bool = False,
          _path: tuple[str, ...] = ()) -> JsonDict:
    """``base`` with ``extra``'s fields joined in, objects key by key (a new dict; ``base`` is not changed).

    A field both give (not both objects) raises ``ValueError`` with
    ``describe(path)``, unless ``same_ok`` and the two are equal.
    """
    out = dict(base)
    for key, value in extra.items():
        path = (*_path, key)
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = merge(out[key], value, describe, same_ok=same_ok, _path=path)
        elif not (same_ok and _same(out[key], value)):
            raise ValueError(describe(path))
    return out


def with_settings(fields: JsonDict, written: tuple[JsonDict, Mapping[tuple[str, ...], str]]) -> JsonDict:
    """The transcript and tool ``fields`` with the settings' fields (:func:`settings_fields`) joined in.

    A field both write must agree (``ToolChoice(parallel=...)`` and
    ``parallel_tool_calls``), else ``ValueError``.  ``parallel_tool_calls``
    is written only beside ``tools``: the APIs refuse a request that sets it
    (or, Anthropic, a ``tool_choice``) and declares no tool, and with none
    there is nothing to call in parallel.
    """
    fragment, owners = written
    if "tools" not in fields and "parallel_tool_calls" in owners.values():
        fragment = _without(fragment, [p for p, s in owners.items() if s == "parallel_tool_calls"])
    if not fragment:
        return fields

    def describe(path: tuple[str, ...]) -> str:
        name = _owner(owners, path) or "a setting"
        return f"ModelSettings.{name} and the tool choice set {_where(path)} differently: give it once"

    return merge(fields, fragment, describe, same_ok=True)


def _without(fragment: JsonDict, paths: Sequence[tuple[str, ...]]) -> JsonDict:
    """``fragment`` without the fields at ``paths``, and without the objects that held only them."""
    out: JsonDict = {}
    for key, value in fragment.items():
        inner = [p[1:] for p in paths if p[0] == key]
        if not inner:
            out[key] = value
        elif () not in inner and isinstance(value, dict):
            kept = _without(value, inner)
            if kept:
                out[key] = kept
    return out


def checked_native(native: Mapping[str, object], provider: str, written: Mapping[str, JsonValue], own: Sequence[str] = ()) -> JsonDict:
    """``native`` (the caller's body fields) as checked JSON data, refusing a field the request writes itself.

    Refused: the registry row's ``transcript_fields`` (``system``, ``messages``,
    ``contents``... whether or not the transcript holds one: a system prompt
    is a SYSTEM item), every field in ``written`` (what the transcript and the
    tools wrote) and ``own`` (``model``, ``stream``).
    """
    info = provider_info(provider)
    for name in native:
        if name in info.transcript_fields:
            raise ValueError(
                f"{name}: a native field the transcript or the tools write for the {info.display} API; "
                "give it as items (a SYSTEM item for a system prompt) or as tools=, not as a field"
            )
        if name in written or name in own:
            raise ValueError(f"{name}: the request writes this field itself; pass it as its parameter, not as a native field")
    extra = checked_json(dict(native))
    assert isinstance(extra, dict)
    return extra


def native_conflict(owners: Mapping[tuple[str, ...], str]) -> Callable[[tuple[str, ...]], str]:
    """What :func:`merge` says of a native field that a setting (of ``owners``, from :func:`settings_fields`) writes too."""

    def describe(path: tuple[str, ...]) -> str:
        name = _owner(owners, path)
        if name is None:
            return f"{_where(path)}: given twice"
        return f"ModelSettings.{name} and the native field {_where(path)} set the same thing: give it once"

    return describe


class Conflict(NamedTuple):
    """Two fields of a body that its API refuses together: their paths, and why (the API's rule, in a few words)."""

    first: tuple[str, ...]
    second: tuple[str, ...]
    why: str


_ABSENT = object()


def at(body: Mapping[str, JsonValue], *path: str) -> Any:
    """The field at ``path`` in ``body`` (objects key by key), or :data:`_ABSENT`; see :func:`present`."""
    obj: Any = body
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return _ABSENT
        obj = obj[key]
    return obj


def present(value: object) -> bool:
    """Whether :func:`at` found a field."""
    return value is not _ABSENT


def both_given(body: Mapping[str, JsonValue], pairs: Sequence[Conflict]) -> list[Conflict]:
    """The pairs of ``pairs`` whose two fields ``body`` both holds."""
    return [c for c in pairs if present(at(body, *c.first)) and present(at(body, *c.second))]


def unstreamed_options(body: Mapping[str, JsonValue]) -> list[Conflict]:
    """``stream_options`` on a request that does not stream (both OpenAI APIs refuse it), as a conflict."""
    if present(at(body, "stream_options")) and at(body, "stream") is not True:
        return [Conflict(("stream_options",), ("stream",), "stream_options is only for a streamed request")]
    return []


class ThinkingFields(NamedTuple):
    """Where a body holds what Claude's extended thinking constrains (the Messages API's fields, or Bedrock's)."""

    thinking: tuple[str, ...]
    max_tokens: tuple[str, ...]
    temperature: tuple[str, ...]
    top_p: tuple[str, ...]
    top_k: tuple[str, ...]
    choice: tuple[str, ...]
    forced: Callable[[object], bool]  # whether the field at ``choice`` forces a tool call


def _number(v: object) -> bool:
    return type(v) in (int, float)


def thinking_conflicts(body: Mapping[str, JsonValue], where: ThinkingFields) -> list[Conflict]:
    """What Claude refuses beside thinking (``type`` ``enabled`` or ``adaptive``): ``max_tokens`` at or below the
    budget, a temperature other than 1, any ``top_k``, a ``top_p`` below 0.95, a forced tool choice."""
    kind = at(body, *where.thinking, "type")
    if kind not in ("enabled", "adaptive"):
        return []
    budget, max_tokens = at(body, *where.thinking, "budget_tokens"), at(body, *where.max_tokens)
    thinking = (*where.thinking, "budget_tokens") if kind == "enabled" and present(budget) else (*where.thinking, "type")
    found: list[Conflict] = []
    if kind == "enabled" and type(budget) is int and type(max_tokens) is int and max_tokens <= budget:
        found.append(Conflict(where.max_tokens, thinking, "max_tokens must be more than the thinking budget, which it includes"))
    temperature, top_p = at(body, *where.temperature), at(body, *where.top_p)
    if present(temperature) and not (_number(temperature) and temperature == 1):
        found.append(Conflict(where.temperature, thinking, "the temperature cannot be changed while thinking is on (only 1 is taken)"))
    if present(at(body, *where.top_k)):
        found.append(Conflict(where.top_k, thinking, "top_k cannot be set while thinking is on"))
    if present(top_p) and not (_number(top_p) and 0.95 <= top_p <= 1):
        found.append(Conflict(where.top_p, thinking, "top_p must be from 0.95 to 1 while thinking is on"))
    choice = at(body, *where.choice)
    if present(choice) and where.forced(choice):
        found.append(Conflict(where.choice, thinking, "a forced tool choice (any or tool) cannot be used while thinking is on"))
    return found


def _who(owners: Mapping[tuple[str, ...], str], body: Mapping[str, JsonValue], path: tuple[str, ...]) -> str:
    """Who set the field at ``path`` and to what: ``ModelSettings.max_tokens (100)``, ``the native field top_k (5)``..."""
    import json

    value = at(body, *path)
    shown = "not set" if not present(value) else json.dumps(value, ensure_ascii=True)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    setting = _owner(owners, path)
    if setting is not None:
        return f"ModelSettings.{setting} ({_where(path)}: {shown})" if len(path) > 1 or path[0] != setting else f"ModelSettings.{setting} ({shown})"
    if path == ("stream",):
        return f"stream ({shown})"
    return f"{'the tool choice' if path[0] in ('tool_choice', 'toolConfig') else 'the native field'} {_where(path)} ({shown})"


def refuse_conflicts(body: JsonDict, owners: Mapping[tuple[str, ...], str], provider: str,
                     conflicts: Callable[[JsonDict], Sequence[Conflict]]) -> JsonDict:
    """``body``, unless ``conflicts(body)`` finds two fields its API refuses together: then ``ValueError`` naming both.

    ``owners`` (from :func:`settings_fields`) tells a setting's field from the
    caller's native one, so the error names what the caller wrote.
    """
    found = conflicts(body)
    if found:
        first, second, why = found[0]
        raise ValueError(f"{_who(owners, body, first)} and {_who(owners, body, second)}: {why} "
                         f"(the {provider_info(provider).display} API refuses them together)")
    return body
