"""A seeded, standard-library-only fuzzer for agentkit_core's decoders and fold.

    python tools/fuzz.py --iterations 200000 --seed 7

The rule it enforces (tomli's, applied to every ``from_dict`` and to ``fold``):
arbitrary input either decodes or raises the package's own error
(``NormalizeError``, ``ProtocolError``); whatever decodes re-encodes to JSON,
and decoding that gives an equal value with the same wire form; folding step
by step agrees with ``fold_all``, never changes an earlier state, and every
snapshot round-trips; nothing takes more than a second.

Inputs come from the reference vectors in ``tests/vectors`` (mutated: fields
dropped, duplicated, swapped, retyped, renamed; nesting past 128 levels; huge
integers, NaN and infinities, lone surrogates, non-string keys, sets, tuples,
bytes and other non-JSON objects; JSON text truncated or corrupted) and from
random values and delta streams built from scratch.  Every distinct failure
is written to ``tests/fuzz_crashers/<hash>.json``, which the test suite
replays: a crasher becomes a regression test.  :func:`run` is the entry point
for code; :func:`check` judges one input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import signal
import sys
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Callable, Iterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # pragma: no cover - run as a script
    sys.path.insert(0, ROOT)

import agentkit_core as ak  # noqa: E402
from agentkit_core import NormalizeError, ProtocolError  # noqa: E402
from tests.forge import forged, lenient  # noqa: E402

VECTORS = os.path.join(ROOT, "tests", "vectors")
CRASHERS = os.path.join(ROOT, "tests", "fuzz_crashers")
TIME_LIMIT = 1.0
HARD_LIMIT = 5.0

#: Every decoder the fuzzer feeds, by the name vectors use (plus a few of its own).
DECODERS: dict[str, Callable[[Any], Any]] = {
    "Item": ak.Item.from_dict,
    "Part": ak.Part.from_dict,
    "Delta": ak.Delta.from_dict,
    "Usage": ak.Usage.from_dict,
    "TokenUsage": ak.TokenUsage.from_dict,
    "CostUsage": ak.CostUsage.from_dict,
    "FinishReason": ak.FinishReason.from_dict,
    "DataRef": ak.DataRef.from_dict,
    "ToolOutput": ak.ToolOutput.from_dict,
    "ItemKind": ak.ItemKind.from_dict,
    "PartKind": ak.PartKind.from_dict,
    "Modality": ak.Modality.from_dict,
    "MetadataMap": ak.MetadataMap.from_dict,
    "FilePart.bare": ak.FilePart.from_bare_dict,
    "TextPart": ak.TextPart.from_dict,
    "ToolCallPart": ak.ToolCallPart.from_dict,
    "MessageId": ak.MessageId.from_dict,
    "Timestamp": ak.Timestamp.from_dict,
}
FOLD = "fold"  # input: a list of wire deltas, decoded then folded (full checks)
FOLD_RAW = "fold-raw"  # input: a list of arbitrary objects handed to fold as they are


@dataclass
class Crash:
    """One failing input: what it was fed to, the input, and what went wrong."""

    target: str
    input: Any
    problem: str

    @property
    def signature(self) -> str:
        """What makes two crashes the same bug: the target and the problem's first line (or just "slow")."""
        first = self.problem.splitlines()[0][:160]
        return f"{self.target}: {'slow' if first.startswith('slow:') else first}"

    def record(self) -> dict[str, Any]:
        """The JSON record written to ``tests/fuzz_crashers``."""
        return {"target": self.target, "input": encode(self.input), "problem": self.problem, "repr": repr(self.input)[:2000]}

    def write(self, directory: str = CRASHERS) -> str:
        """Write the record as ``<hash>.json``; the path."""
        text = json.dumps(self.record(), indent=1, ensure_ascii=True, allow_nan=False)
        name = hashlib.sha256(f"{self.target}\n{text}".encode()).hexdigest()[:16] + ".json"
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        return path


# -- judging one input -----------------------------------------------------------


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" [at {os.path.basename(f.filename)}:{f.lineno} in {f.name}]"


def _unexpected(what: str, exc: BaseException) -> str:
    return f"{what} raised {type(exc).__name__}: {str(exc)[:300]}{_where(exc)}"


def _wire(value: Any) -> str:
    """Compact JSON of a decoded value's ``to_dict()``, checked to be real, encodable JSON."""
    text = json.dumps(value.to_dict(), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text.encode("utf-8")  # a lone surrogate would fail here
    return text


def _round_trip(decode: Callable[[Any], Any], decoded: Any) -> str | None:
    try:
        text = _wire(decoded)
    except Exception as exc:  # noqa: BLE001
        return _unexpected("to_dict of a decoded value (or its JSON encoding)", exc)
    try:
        again = decode(json.loads(text))
    except Exception as exc:  # noqa: BLE001
        return _unexpected("decoding the re-encoded value", exc)
    if again != decoded:
        return f"round trip changed the value: {decoded!r} became {again!r}"[:1000]
    if _wire(again) != text:
        return f"round trip changed the wire form: {text[:300]} became {_wire(again)[:300]}"
    return None


def check_decode(target: str, value: Any) -> str | None:
    """Feed ``value`` to the decoder ``target``; the problem, or ``None`` when it behaved."""
    decode = DECODERS[target]
    before = repr(value)
    problem: str | None = None
    try:
        decoded = decode(value)
    except (NormalizeError, ProtocolError):
        decoded = problem = None
    except Exception as exc:  # noqa: BLE001
        decoded, problem = None, _unexpected(f"{target}.from_dict", exc)
    if repr(value) != before:  # checked whether the decoder returned or raised
        return f"{target}.from_dict changed its input"
    if decoded is None:
        return problem
    return _round_trip(decode, decoded)


def _snap(state: ak.FoldState) -> str:
    return json.dumps([p.to_dict() for p in state.snapshot()], ensure_ascii=False, allow_nan=False)


def check_fold(deltas: list[Any], decoded: bool) -> str | None:
    """Fold ``deltas`` step by step and with ``fold_all``; the problem, or ``None``.

    ``decoded`` deltas came from the wire, so every snapshot must also
    round-trip; raw ones (anything at all) only have to fail politely.
    """
    states = [ak.FoldState()]
    seen: list[str] = []
    failed = False
    for d in deltas:
        try:
            states.append(ak.fold(states[-1], d))
        except ProtocolError:
            failed = True
            break
        except Exception as exc:  # noqa: BLE001
            return _unexpected(f"fold of {type(d).__name__}", exc)
    good = deltas[: len(states) - 1]
    for label, stream in (("fold_all of the folded prefix", good), ("fold_all of the whole stream", deltas)):
        try:
            whole = ak.fold_all(ak.FoldState(), stream)
        except ProtocolError:
            if not (failed and stream is deltas):
                return f"{label} raised ProtocolError where fold did not"
            continue
        except Exception as exc:  # noqa: BLE001
            return _unexpected(label, exc)
        if failed and stream is deltas:
            return "fold_all accepted a stream that fold refused"
        if whole != states[-1]:
            return f"{label} differs from folding one delta at a time"
    for state in states:
        try:
            snapshot, final = state.snapshot(), state.finalize()
            state.parts, state.open_ids, repr(state)
            if decoded:
                seen.append(_snap(state))
                for part in snapshot + final:
                    problem = _round_trip(ak.Part.from_dict, part)
                    if problem:
                        return f"a fold snapshot part: {problem}"
        except Exception as exc:  # noqa: BLE001
            return _unexpected("rendering a fold state", exc)
    if decoded:  # purity: branch off an early state, then every state must look as it did
        try:
            ak.fold_all(states[len(states) // 2], good[len(states) // 2 :][::-1])
        except ProtocolError:
            pass
        except Exception as exc:  # noqa: BLE001
            return _unexpected("fold_all from an earlier state", exc)
        for i, state in enumerate(states):
            state._snapshot = state._parts = None  # what a fresh look would compute
            if _snap(state) != seen[i]:
                return f"folding onto an earlier state changed state #{i}"
    return None


class _Stuck(BaseException):
    """Raised by the alarm inside an input that runs far past the time limit (a BaseException,
    so no ``except Exception`` in the package can swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Stuck


def check(target: str, value: Any) -> str | None:
    """Judge one input for ``target`` (a decoder name, ``"fold"`` or ``"fold-raw"``), timed.

    An input still running after ``HARD_LIMIT`` seconds is interrupted (where
    ``SIGALRM`` exists and this is the main thread) and reported as slow.
    """
    start = time.perf_counter()
    armed = False
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, HARD_LIMIT)
        armed = True
    try:
        problem = _check(target, value)
    except _Stuck:
        return f"slow: still running after {HARD_LIMIT} s (interrupted; limit {TIME_LIMIT} s)"
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    took = time.perf_counter() - start
    if problem is None and took > TIME_LIMIT:
        problem = f"slow: took {took:.2f} s (limit {TIME_LIMIT} s)"
    return problem


def _check(target: str, value: Any) -> str | None:
    if target == FOLD:
        deltas = []
        for v in value:
            problem = check_decode("Delta", v)
            if problem:
                return problem
            try:
                deltas.append(ak.Delta.from_dict(v))
            except NormalizeError:
                pass
        problem = check_fold(deltas, decoded=True)
    elif target == FOLD_RAW:
        problem = check_fold(list(value), decoded=False)
    else:
        problem = check_decode(target, value)
    return problem


# -- storing inputs that are not JSON ---------------------------------------------


class StrSub(str):
    """A ``str`` subclass, which decoders must not hand back as it is."""


class IntSub(int):
    """An ``int`` subclass."""


class DictSub(dict):  # type: ignore[type-arg]
    """A ``dict`` subclass."""


class ListSub(list):  # type: ignore[type-arg]
    """A ``list`` subclass."""


class Opaque:
    """Some object that is not data at all."""

    def __repr__(self) -> str:
        return "Opaque()"


_SUBS: dict[str, type] = {"str": StrSub, "int": IntSub, "dict": DictSub, "list": ListSub, "OrderedDict": OrderedDict}


def encode(v: Any) -> Any:
    """A JSON form of any fuzz input (tagged ``{"$...": ...}`` objects stand for what JSON lacks)."""
    t = type(v)
    if v is None or t in (bool, int, str):
        return v
    if t is float:
        return v if math.isfinite(v) else {"$float": repr(v)}
    if t is list:
        return [encode(x) for x in v]
    if t is dict:
        if all(type(k) is str and not k.startswith("$") for k in v):
            return {k: encode(x) for k, x in v.items()}
        return {"$dict": [[encode(k), encode(x)] for k, x in v.items()]}
    if t in (tuple, set, frozenset):
        return {f"${t.__name__}": [encode(x) for x in v]}
    if t in (bytes, bytearray):
        return {f"${t.__name__}": v.hex()}
    if t is complex:
        return {"$complex": [v.real, v.imag]}
    for name, sub in _SUBS.items():
        if t is sub:
            base = {StrSub: str, IntSub: int, DictSub: dict, ListSub: list, OrderedDict: dict}[sub]
            return {"$sub": name, "value": encode(base(v))}
    if t is ak.MetadataMap:
        return {"$metadata": encode(dict(v))}
    if isinstance(v, ak.Timestamp):
        return {"$timestamp": int(v)}
    if isinstance(v, (ak.ItemKind, ak.PartKind, ak.Modality)):
        return {"$enum": t.__name__, "value": v.value}
    if is_dataclass(v) and getattr(ak, t.__name__, None) is t:
        return {"$ak": t.__name__, "fields": {f.name: encode(getattr(v, f.name)) for f in fields(v)}}
    return {"$opaque": t.__name__}


def decode_input(v: Any) -> Any:
    """The fuzz input an :func:`encode` form stands for."""
    if type(v) is list:
        return [decode_input(x) for x in v]
    if type(v) is not dict:
        return v
    if len(v) == 1 or "$sub" in v or "$ak" in v or "$enum" in v:
        tag = next(iter(v))
        body = v[tag]
        if tag == "$float":
            return float(body)
        if tag == "$dict":
            return {decode_input(k): decode_input(x) for k, x in body}
        if tag in ("$tuple", "$set", "$frozenset"):
            return {"$tuple": tuple, "$set": set, "$frozenset": frozenset}[tag](decode_input(x) for x in body)
        if tag in ("$bytes", "$bytearray"):
            return (bytes if tag == "$bytes" else bytearray)(bytes.fromhex(body))
        if tag == "$complex":
            return complex(*body)
        if tag == "$sub":
            return _SUBS[body](decode_input(v["value"]))
        if tag == "$metadata":
            data = decode_input(body)
            try:
                return ak.MetadataMap(data)
            except (TypeError, ValueError):  # a corrupt map, as a crasher may hold
                return forged(ak.MetadataMap, _data=data)
        if tag == "$timestamp":
            return ak.Timestamp(body)
        if tag == "$enum":
            return getattr(ak, body)(v["value"])
        if tag == "$ak":  # corrupt values (a crasher's junk) are built around the constructor's checks
            return lenient(getattr(ak, body), **{k: decode_input(x) for k, x in v["fields"].items()})
        if tag == "$opaque":
            return Opaque()
    return {k: decode_input(x) for k, x in v.items()}


# -- where inputs come from ----------------------------------------------------------


def _wire_lines(directory: str = VECTORS) -> Iterator[str]:
    path = os.path.join(directory, "reference-wire.tsv")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            yield from (line for line in f if line.split("\t", 1)[0] in DECODERS)


def load_seeds(directory: str = VECTORS) -> list[tuple[str, Any]]:
    """``(type name, JSON value)`` of every vector line (wire values and judged inputs)."""
    seeds: list[tuple[str, Any]] = []
    for name in ("reference-wire.tsv", "reference-judged.tsv"):
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 2 and cols[0] in DECODERS:
                    seeds.append((cols[0], json.loads(cols[1])))
    return seeds


_WEIRD: tuple[Callable[[], Any], ...] = (
    lambda: 2**64, lambda: 2**64 - 1, lambda: -1, lambda: 2**1000, lambda: -(2**63), lambda: 7.0, lambda: 1.5,
    lambda: float("nan"), lambda: float("inf"), lambda: -float("inf"), lambda: -0.0, lambda: 1e308 * 10,
    lambda: True, lambda: False, lambda: None, lambda: "", lambda: "\ud800", lambda: "a\udfffb", lambda: "x" * 5000,
    lambda: "User", lambda: "user", lambda: "Other", lambda: "Text", lambda: [], lambda: {}, lambda: {"": None},
    lambda: set(), lambda: {1, 2}, lambda: frozenset(), lambda: (1, 2), lambda: (), lambda: b"ab",
    lambda: bytearray(b"\x00"), lambda: Opaque(), lambda: 1 + 2j, lambda: StrSub("Text"), lambda: IntSub(3),
    lambda: DictSub(), lambda: ListSub([1]), lambda: {1: "x"}, lambda: {None: 1}, lambda: {(1,): 2},
    lambda: {"\ud800": 1}, lambda: [256], lambda: [-1], lambda: [True], lambda: [1.0], lambda: "日本語 🎉",
)
_TAGS = ("Text", "Media", "File", "Structured", "Reasoning", "ToolCall", "ToolResult", "Custom", "InlineText",
         "InlineBytes", "Uri", "Handle", "Parts", "Files", "Other", "BeginPart", "AppendText", "CommitPart")


def _slots(v: Any, parent: Any = None, key: Any = None, out: list[tuple[Any, Any]] | None = None) -> list[tuple[Any, Any]]:
    """Every (container, key) holding a value inside ``v``."""
    out = [] if out is None else out
    if parent is not None:
        out.append((parent, key))
    if type(v) is dict:
        for k in list(v):
            _slots(v[k], v, k, out)
    elif type(v) is list:
        for i in range(len(v)):
            _slots(v[i], v, i, out)
    return out


def _nest(rng: random.Random, v: Any) -> Any:
    depth = rng.choice((125, 126, 127, 128, 129, rng.randrange(1, 200)))
    for _ in range(depth):
        v = [v] if rng.random() < 0.5 else {"a": v}
    return v


def mutate(rng: random.Random, value: Any) -> Any:
    """One random mutation of a JSON value (a fresh copy; ``value`` is untouched)."""
    holder = [_copy(value)]
    parent, key = rng.choice(_slots(holder[0], holder, 0))
    v = parent[key]
    op = rng.randrange(15)
    if op in (6, 14) and _depth(holder[0]) > 100:  # keep every input under ~300 levels
        op = 0
    if op == 0:
        parent[key] = rng.choice(_WEIRD)()
    elif op == 1 and type(v) is dict and v:
        del v[rng.choice(list(v))]
    elif op == 2 and type(v) is dict:
        v[rng.choice(("extra", "metadata", "part_id", "kind", "Text", "", "$x"))] = rng.choice(_WEIRD)()
    elif op == 3 and type(v) is dict and len(v) >= 2:
        a, b = rng.sample(list(v), 2)
        v[a], v[b] = v[b], v[a]
    elif op == 4 and type(v) is dict:
        parent[key] = list(v.values())[: rng.randrange(len(v) + 2)] if rng.random() < 0.5 else list(v.values())
    elif op == 5 and type(v) is dict and v and type(k := rng.choice(list(v))) is str:
        new = rng.choice((k.lower(), k.upper(), rng.choice(_TAGS), k + " ", k))
        v[new] = v.pop(k)
    elif op == 6:
        parent[key] = _nest(rng, v)
    elif op == 7:
        parent[key] = rng.choice(([v], {"x": v}, {rng.choice(_TAGS): v}, {rng.choice(_TAGS): v, "y": 1}))
    elif op == 8 and type(v) is list and v:
        i = rng.randrange(len(v))
        rng.choice((lambda: v.insert(i, v[i]), lambda: v.pop(i), lambda: rng.shuffle(v)))()
    elif op == 9:
        parent[key] = rng.choice((tuple, ListSub, set))(v) if type(v) is list and _hashable(v) else tuple([v])
    elif op == 10 and type(v) is dict:
        parent[key] = rng.choice((OrderedDict, DictSub))(v)
    elif op == 11 and type(v) is dict:
        v[rng.choice((1, None, 2.5, (1, 2), True))] = rng.choice(_WEIRD)()
    elif op == 12 and type(v) is str:
        parent[key] = rng.choice((StrSub(v), v + "\ud800", v[: len(v) // 2], v.swapcase(), v * 3))
    elif op == 13 and type(v) is int and type(v) is not bool:
        parent[key] = rng.choice((v + 2**64, -v - 1, float(v), IntSub(v), str(v), v == 0))
    elif op == 14 and type(v) in (dict, list) and (paths := _paths(v)):
        path = rng.choice(paths)  # the value nested into itself, again and again, at one of its own places
        node = _copy(v)
        for _ in range(rng.randrange(2, max(3, 200 // len(path)))):
            outer = _copy(v)
            _set(outer, path, node)
            node = outer
        parent[key] = node
    else:
        parent[key] = random_json(rng, 3)
    return holder[0]


def _depth(v: Any) -> int:
    """How deep containers nest in ``v`` (a scalar is 0)."""
    t = type(v)
    if t is dict:
        return 1 + max(map(_depth, v.values()), default=0)
    if t is list:
        return 1 + max(map(_depth, v), default=0)
    return 0


def _paths(v: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The key paths of every container strictly inside ``v``."""
    out: list[tuple[Any, ...]] = []
    children = v.items() if type(v) is dict else enumerate(v) if type(v) is list else ()
    for k, x in children:
        if type(x) in (dict, list):
            out.append(prefix + (k,))
            out.extend(_paths(x, prefix + (k,)))
    return out


def _set(v: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        v = v[k]
    v[path[-1]] = value


def _copy(v: Any) -> Any:
    """A copy of every dict and list in ``v`` (other values are shared: mutations replace them)."""
    t = type(v)
    if t is dict:
        return {k: _copy(x) for k, x in v.items()}
    if t is list:
        return [_copy(x) for x in v]
    return v


def _hashable(v: list[Any]) -> bool:
    try:
        set(v)
    except TypeError:
        return False
    return True


def random_json(rng: random.Random, depth: int) -> Any:
    """A random JSON value."""
    r = rng.random()
    if depth <= 0 or r < 0.5:
        return rng.choice((None, True, False, 0, -3, 2**63, 0.25, -1e-7, "", "hi", "é\u0000\u2028", "🎉"))
    if r < 0.75:
        return [random_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {rng.choice(("a", "b", "kind", "é", "")): random_json(rng, depth - 1) for _ in range(rng.randrange(4))}


def random_item(rng: random.Random, parts: dict[str, list[Any]]) -> Any:
    """A random well-formed wire item built around parts taken from the vectors."""
    tokens: dict[str, int | None] = {"input_tokens": rng.randrange(2**64), "output_tokens": rng.randrange(10**6)}
    for k in ("reasoning_tokens", "cached_input_tokens", "cache_write_input_tokens"):
        tokens[k] = rng.choice((None, rng.randrange(2**64)))
    cost = rng.choice((None, {"amount": rng.choice((0.5, 1e-7, 3, 1e300)), "currency": "USD", "provider_amount": None}))
    usage = rng.choice((None, {"tokens": rng.choice((None, tokens)), "cost": cost, "metadata": {}}))
    return {
        "id": rng.choice((None, "msg-1", "é")),
        "kind": rng.choice(("System", "Developer", "User", "Assistant", "Tool", "Context", "Notification")),
        "parts": [rng.choice(parts[rng.choice(list(parts))]) for _ in range(rng.randrange(5))],
        "metadata": {rng.choice(("openai.x", "agentkit.y", "")): random_json(rng, 3) for _ in range(rng.randrange(3))},
        "usage": usage,
        "finish_reason": rng.choice((None, "Completed", "ToolCall", {"Other": "stop 🎉"})),
        "created_at": rng.choice((None, 0, 2**64 - 1)),
    }


def nested_part(rng: random.Random, parts: dict[str, list[Any]]) -> Any:
    """A part nested in tool results' ``Parts`` outputs up to ~50 deep, its leaf sometimes bad."""
    part = rng.choice(parts[rng.choice(list(parts))])
    if rng.random() < 0.5:
        part = mutate(rng, part)
    for _ in range(rng.randrange(1, 50)):
        siblings = [rng.choice(parts[rng.choice(list(parts))]) for _ in range(rng.randrange(2))]
        output = {"Parts": siblings + [part]}
        part = {"ToolResult": {"call_id": "c", "output": output, "is_error": rng.random() < 0.5, "metadata": {}}}
    return part


def _truncated(rng: random.Random, value: Any) -> Any:
    """``value``'s JSON text cut short or corrupted, parsed again (``_SKIP`` when it no longer parses)."""
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    if not text:
        return _SKIP
    i = rng.randrange(len(text))
    text = text[:i] if rng.random() < 0.5 else text[:i] + rng.choice("{}[],:\"0-eE.\\ ") + text[i + 1 :]
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _SKIP


_SKIP: Any = object()

_KINDS = ("Text", "Media", "File", "Structured", "Reasoning", "ToolCall", "ToolResult", "Custom")


def random_deltas(rng: random.Random, parts: dict[str, list[Any]]) -> list[Any]:
    """A random stream of wire deltas over a few part ids, mostly well formed."""
    ids = ("p1", "p2", "p3", "")
    out: list[Any] = []
    for _ in range(rng.randrange(1, 30)):
        pid = rng.choice(ids)
        op = rng.randrange(7)
        if op == 0:
            out.append({"BeginPart": {"part_id": pid, "kind": rng.choice(_KINDS)}})
        elif op == 1:
            chunk = rng.choice(('{"a": ', "1}", "hi ", "", "🎉", "[", "null", "\u0000"))
            out.append({"AppendText": {"part_id": pid, "chunk": chunk}})
        elif op == 2:
            out.append({"AppendBytes": {"part_id": pid, "chunk": [rng.randrange(256) for _ in range(rng.randrange(4))]}})
        elif op == 3:
            out.append({"ReplaceStructured": {"part_id": pid, "value": random_json(rng, 3)}})
        elif op == 4:
            out.append({"SetMetadata": {"part_id": pid, "metadata": {rng.choice(("x.a", "x.b")): random_json(rng, 2)}}})
        else:
            body: dict[str, Any] = {"part": rng.choice(parts[rng.choice(list(parts))])}
            if rng.random() < 0.4:
                body["part_id"] = pid
            out.append({"CommitPart": body})
        if rng.random() < 0.05:
            out[-1] = mutate(rng, out[-1])
    return out


def _raw_stream(rng: random.Random, wire: list[Any]) -> list[Any]:
    """Delta objects (some built around junk) and non-deltas, for ``fold`` itself to refuse."""
    out: list[Any] = []
    for v in wire:
        try:
            out.append(ak.Delta.from_dict(v))
        except NormalizeError:
            pass
    junk = rng.choice(_WEIRD)()
    pid = ak.PartId(rng.choice(("p1", "p2")))
    extra = rng.choice((  # the constructors refuse most of these: built around them, as corrupt data could be
        junk, lenient(ak.AppendText, part_id=pid, chunk=junk), lenient(ak.AppendBytes, part_id=pid, chunk=junk),
        lenient(ak.BeginPart, part_id=pid, kind=junk), lenient(ak.CommitPart, part=junk, part_id=None),
        lenient(ak.AppendText, part_id=junk, chunk="x"), lenient(ak.CommitPart, part=ak.TextPart("t"), part_id=junk),
        lenient(ak.ReplaceStructured, part_id=pid, value=junk),
    ))
    out.insert(rng.randrange(len(out) + 1), extra)
    return out


def cases(rng: random.Random, seeds: list[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """An endless stream of ``(target, input)``."""
    valid = seeds[: sum(1 for _ in _wire_lines())]  # the reference's own values come first
    parts: dict[str, list[Any]] = {}
    for name, v in valid:
        if name == "Part" and type(v) is dict and len(v) == 1:
            parts.setdefault(next(iter(v)), []).append(v)
    if not parts:
        parts["Text"] = [{"Text": {"text": "hi", "metadata": {}}}]
    names = list(DECODERS)
    while True:
        r = rng.random()
        if r < 0.12:
            wire = random_deltas(rng, parts)
            yield (FOLD, wire) if rng.random() < 0.7 else (FOLD_RAW, _raw_stream(rng, wire))
            continue
        if r < 0.16:
            yield "Item", random_item(rng, parts)
            continue
        if r < 0.2:
            part = nested_part(rng, parts)
            yield ("Part", part) if rng.random() < 0.5 else ("Item", {"kind": "Tool", "parts": [part], "metadata": {}})
            continue
        name, value = rng.choice(valid if valid and rng.random() < 0.6 else seeds) if seeds else ("Part", parts["Text"][0])
        if r < 0.3:
            value = _truncated(rng, value)
            if value is _SKIP:
                continue
        else:
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                value = mutate(rng, value)
        yield (name if rng.random() < 0.8 else rng.choice(names)), value


def run(
    iterations: int, seed: int, seeds: list[tuple[str, Any]] | None = None, max_crashes: int | None = None
) -> list[Crash]:
    """Fuzz ``iterations`` inputs from ``seed``; one :class:`Crash` per distinct failure (the smallest input).

    With ``max_crashes``, stop as soon as that many distinct failures are found.
    """
    rng = random.Random(seed)
    found: dict[str, Crash] = {}
    stream = cases(rng, load_seeds() if seeds is None else seeds)
    for _ in range(iterations):
        target, value = next(stream)
        problem = check(target, value)
        if problem is not None:
            crash = Crash(target, value, problem)
            old = found.get(crash.signature)
            if old is None or len(repr(value)) < len(repr(old.input)):
                found[crash.signature] = crash
            if max_crashes is not None and len(found) >= max_crashes:
                break
    return list(found.values())


def main(argv: list[str] | None = None) -> int:
    """The command line: fuzz, print each distinct failure, write the crashers; exit 1 if any."""
    parser = argparse.ArgumentParser(prog="tools/fuzz.py", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=20000, help="inputs to try (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", default=CRASHERS, help="where crashers go (default tests/fuzz_crashers)")
    parser.add_argument("--dry-run", action="store_true", help="report crashers without writing them")
    parser.add_argument("--max-crashes", type=int, default=None, help="stop after this many distinct failures")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    crashes = run(args.iterations, args.seed, max_crashes=args.max_crashes)
    for crash in crashes:
        where = "" if args.dry_run else " -> " + os.path.relpath(crash.write(args.out))
        print(f"CRASH {crash.signature}{where}")
    took = time.perf_counter() - start
    print(f"{args.iterations} inputs from seed {args.seed} in {took:.1f} s: {len(crashes)} distinct failures")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
