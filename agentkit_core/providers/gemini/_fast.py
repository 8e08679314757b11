"""Private to :mod:`.gemini`: the request's fast path, what :class:`._request.Build` writes for the common shapes.

Measured gain: a fresh ``http_request`` of 1,500 items (``tools/bench.py --only requests``) takes 4.8 ms
with it and 16.3 ms without (``AGENTKIT_CORE_FAST_PATHS=0``): 3.4x.

Those are items that carry nothing (no metadata on them or their parts), or only the role of the content they came
from, holding texts, calls and results given as text or as a structure; calls may carry what a Gemini answer gives
them (its signature, its owner, an id the fold invented) and results their tool's name.  Anything else goes through
the general path (:meth:`._request.Build.add_general`), which the fast path agrees with byte for byte:
``tests/test_request_reuse.py`` compares the two over seeded random items.
"""

from __future__ import annotations

from typing import Any, Sequence

from ... import (
    EMPTY_METADATA,
    INVENTED_ID_KEY,
    PROVIDER_KEY,
    TOOL_NAME_KEY,
    Item,
    ItemKind,
    ReasoningPart,
    StructuredOutput,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .._common import JsonDict, copy_json
from ._keys import CONTENT, PROVIDER, SIGNATURE, SKIP_SIGNATURE

#: Kinds whose consecutive items that did not come from Gemini go as one content: Gemini takes
#: a turn's parallel calls, and their results, each in one content.
ONE_TURN = (ItemKind.ASSISTANT, ItemKind.TOOL)
#: Kinds looked up once: reading an enum member off its class costs more than a global.
_SYSTEM, _DEVELOPER, _ASSISTANT = ItemKind.SYSTEM, ItemKind.DEVELOPER, ItemKind.ASSISTANT
#: What a result may carry and still take the fast path (its tool's name, an id the fold invented).
_RESULT_KEYS = frozenset((TOOL_NAME_KEY, INVENTED_ID_KEY))
#: What a call may carry and still take the fast path: Gemini's signature, its owner, an id the fold invented.
_CALL_KEYS = frozenset((PROVIDER_KEY, SIGNATURE, INVENTED_ID_KEY))
_ROLE_KEY = CONTENT + "role"


def fold(build: Any, items: Sequence[Item], start: int) -> None:  # noqa: C901 - one pass, as the general path's
    """``build.add(n, item)`` (``build`` a :class:`._request.Build`) for each of ``items`` (``n`` counting from ``start``), in one pass.

    An item of a common shape (the module docstring) is written here: its content is appended or, as the general
    path does, merged into the last one (:data:`ONE_TURN`); a model content appended takes the placeholder signature
    on its first call now, as :func:`._request._sign_own` would give it once the content is done, so the content
    needs no signing later (a model item merged into it marks it again).  Any other item goes to
    ``build.add_general``, which raises what is wrong with it.
    """
    contents, steps, calls = build.contents, build.steps, build.encoder.calls
    own, base = calls.own, calls.base  # the Layered map's two dicts, read here without a call each (its get, inlined)
    for n, item in enumerate(items, start):
        kind, md = item.kind, item.metadata
        carried_role = False  # a request's content, its role carried as it came: Gemini's, never merged
        if md is EMPTY_METADATA or not md:
            if kind is _ASSISTANT:
                role = "model"
            elif kind is _SYSTEM or kind is _DEVELOPER:
                build.add_general(n, item)  # the system instruction, not a content
                continue
            else:
                role = "user"
        elif len(md) == 1 and type(md.get(_ROLE_KEY)) is str:
            role, carried_role = md[_ROLE_KEY], True  # type: ignore[assignment]
        else:
            build.add_general(n, item)
            continue
        parts: list[JsonDict] = []
        made: list[tuple[str, tuple[str, bool]]] = []  # the item's calls, known to later items once the item is taken
        first = -1  # where among the parts the item's first call is
        owned = False  # whether a part says Gemini made it (a signed call): the content is not merged then
        for part in item.parts:
            t, pmd = type(part), part.metadata
            bare = pmd is EMPTY_METADATA or not pmd
            if t is TextPart and bare:
                parts.append({"text": part.text})
            elif t is ToolCallPart and (bare or pmd.keys() <= _CALL_KEYS):
                call_id, name = part.id.value, part.name  # type: ignore[attr-defined]
                call: JsonDict = {"name": name, "args": copy_json(part.input)}  # type: ignore[attr-defined]
                native: JsonDict = {"functionCall": call}
                invented = False
                if bare:
                    call["id"] = call_id
                else:
                    owner, signature = pmd.get(PROVIDER_KEY), pmd.get(SIGNATURE)
                    if (owner is not None and owner != PROVIDER) or (signature is not None and type(signature) is not str):
                        break
                    invented = pmd.get(INVENTED_ID_KEY) is True
                    if not invented:
                        call["id"] = call_id
                    if owner is not None or signature is not None:  # Gemini's: agentkit.provider says so, or a gemini.* key does
                        owned = True
                        if signature is not None:
                            native["thoughtSignature"] = signature
                if first < 0:
                    first = len(parts)
                made.append((call_id, (name, invented)))
                parts.append(native)
            elif t is ToolResultPart and (bare or pmd.keys() <= _RESULT_KEYS):
                if made:
                    break  # a result after a call of its own item: the general path
                response = _response(part)  # type: ignore[arg-type]
                call_id = part.call_id.value  # type: ignore[attr-defined]
                known = own.get(call_id) or base.get(call_id)  # values are pairs: never false
                if known is None or response is None:
                    break
                named = None if bare else pmd.get(TOOL_NAME_KEY)
                result: JsonDict = {"name": named if isinstance(named, str) else known[0], "response": response}
                if not known[1] and (bare or pmd.get(INVENTED_ID_KEY) is not True):
                    result["id"] = call_id
                parts.append({"functionResponse": result})
            elif t is not ReasoningPart or not bare:  # reasoning Gemini did not mark is not its to send back: dropped
                break
        else:
            if made:
                own.update(made)  # Layered.update, inlined
            if not parts:
                continue  # nothing of the item is sent
            if carried_role and (kind is _SYSTEM or kind is _DEVELOPER):
                build.system.append((item, {"role": role, "parts": parts}))
            elif not carried_role and not owned and kind is build.last and kind in ONE_TURN and contents:
                contents[-1]["parts"].extend(parts)  # one turn: calls or their results together
                if kind is _ASSISTANT:
                    steps[-1] = True
                build.last = kind
            else:
                if kind is _ASSISTANT and first >= 0 and "thoughtSignature" not in parts[first]:
                    parts[first]["thoughtSignature"] = SKIP_SIGNATURE
                contents.append({"role": role, "parts": parts})
                steps.append(False)
                build.last = kind
            continue
        build.add_general(n, item)


def _response(part: ToolResultPart) -> JsonDict | None:
    """The ``response`` of a result given as text or a structure (``Encoder._response``); ``None`` for any other."""
    output, key = part.output, "error" if part.is_error else "output"
    if type(output) is TextOutput:
        return {key: output.text}
    if type(output) is StructuredOutput:
        value = output.value
        return copy_json(value) if isinstance(value, dict) else {key: copy_json(value)}
    return None
