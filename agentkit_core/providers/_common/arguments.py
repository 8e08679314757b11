"""Tool-call argument text: parsed with the fold's convention for text that is not JSON, and written compact; a tool
result's text or structure as the string the APIs' result fields take (:func:`output_text`)."""

from __future__ import annotations

from typing import Any, Callable

from ... import INPUT_ERROR_KEY, INPUT_JSON_KEY, JsonValue, NormalizeError, StructuredOutput, TextOutput, parse_json
from ..._for_providers import FAST_PATHS, compact_json, describe


def dumps(value: JsonValue) -> str:
    """Compact JSON text with non-ASCII kept, as OpenAI encodes tool arguments."""
    return compact_json()(value)


def output_text(output: object) -> str | None:
    """A tool result's output as the string a result field takes (Anthropic's ``content``, Chat's ``content``,
    the Responses API's ``output``): a ``TextOutput``'s text, a ``StructuredOutput``'s compact JSON
    (:func:`dumps`); ``None`` for parts and files, which each API writes its own way."""
    if isinstance(output, TextOutput):
        return output.text
    if isinstance(output, StructuredOutput):
        return dumps(output.value)
    return None


#: How deep argument JSON may nest: a tool call's input sits five levels down in an item's wire form.
ARGUMENTS_MAX_DEPTH = 127 - 4


def parse_arguments(text: str) -> tuple[JsonValue, dict[str, JsonValue]]:
    """Tool-call argument text -> ``(input, metadata)``, with the fold's convention for bad text.

    Empty text is ``{}``.  Text that is not JSON the wire can carry (malformed,
    NaN, a lone surrogate, nested too deep) gives ``None`` with the text and the
    error under ``agentkit.input_json`` / ``agentkit.input_error``; it never raises.
    """
    if not text.strip():
        return {}, {}
    try:
        return parse_json(text, max_depth=ARGUMENTS_MAX_DEPTH), {}
    except NormalizeError as exc:
        return None, {INPUT_JSON_KEY: text, INPUT_ERROR_KEY: str(exc)}  # the words finalize() uses


#: What :func:`loads_for_part` gives for text it leaves to :func:`parse_arguments` (``None`` is JSON null).
UNREAD = object()


def parse_object_arguments(text: str) -> tuple[JsonValue, dict[str, JsonValue]]:
    """:func:`parse_arguments` for an API whose call input is a JSON object (Anthropic's, Bedrock's): JSON of another
    kind (``5``, ``[1]``, ``null``) is no input either, its text kept and ``expected a JSON object, found ...`` said."""
    value, extra = parse_arguments(text)
    if type(value) is not dict and not extra:
        return None, {INPUT_JSON_KEY: text, INPUT_ERROR_KEY: f"expected a JSON object, found {describe(value)}"}
    return value, extra


def loads_for_part(text: str) -> Any:
    """Argument text parsed for a part's constructor, which checks and copies what it is given; else :data:`UNREAD`.

    :func:`parse_arguments` checks and copies the parsed value, and the part's
    constructor does it again; a caller that hands the value straight to the
    constructor (catching its :class:`~agentkit_core.NormalizeError`: NaN, a
    lone surrogate, nesting too deep) needs only the parse.  Text whose
    openers could nest deeper than :data:`ARGUMENTS_MAX_DEPTH` (a count, an
    upper bound), and text that is not JSON, are left to
    :func:`parse_arguments` and its convention.

    Measured gain: the large Chat body of ``tools/bench.py --only providers``
    (100 calls) decodes in 724 us with it, 877 us without
    (``AGENTKIT_CORE_FAST_PATHS=0``): 1.2x.
    """
    if not FAST_PATHS or text.count("{") + text.count("[") > ARGUMENTS_MAX_DEPTH:
        return UNREAD
    try:
        return (_LOADS or _loader())(text)
    except (ValueError, RecursionError):  # not JSON (JSONDecodeError is a ValueError), or too many digits
        return UNREAD


_LOADS: Callable[[str], Any] | None = None


def _loader() -> Callable[[str], Any]:
    global _LOADS
    import json

    _LOADS = json.JSONDecoder().decode
    return _LOADS
