"""Saving a session (area "sessions" of tools/bench.py): what crash safety costs.

* ``append_items`` of one turn (an assistant item with reasoning, text, a tool
  call and usage, then its tool result: about 1.5 KB) with ``sync=True``,
  against the floor the issue names: a bare ``os.write`` of the same bytes and
  one ``os.fsync``, on a descriptor already open (target: at most 1.5x).
  ``sync=False`` is shown against the bare ``os.write`` alone.
* ``dump_items`` of a 20 MB transcript (the atomic replace: temporary file,
  fsync, rename, folder fsync) against what ``dump_items`` did before it was
  atomic, plus the fsync it lacked: ``open(path, "wb")``, one ``write`` of
  each item's line, one ``os.fsync`` (target: at most 1.2x).

Both write to a temporary folder of the default temporary directory, so the
figures are that file system's; fsync costs there set the floor.
"""

from __future__ import annotations

import os
import tempfile

from bench import Row, paired, verdict
from bench_codec import build_transcript

import agentkit_core as ak

APPEND_TARGET = 1.5
DUMP_TARGET = 1.2
DUMP_BYTES = 20_000_000


def one_turn() -> list[ak.Item]:
    """The assistant item and tool result of one turn of the codec benchmark's session."""
    items = build_transcript()
    return [items[2], items[3]]


def big_transcript() -> list[ak.Item]:
    """The codec benchmark's session, repeated to about 20 MB of JSON Lines."""
    items = build_transcript()
    size = sum(len(i.to_json()) + 1 for i in items)
    return items * max(1, round(DUMP_BYTES / size))


def dump_before(items: list[ak.Item], path: str) -> None:
    """``dump_items`` to a path as it was before it was atomic, plus the fsync it lacked."""
    with open(path, "wb") as f:
        write = f.write
        for item in items:
            write((item.to_json() + "\n").encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


def measure(quick: bool) -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        return measure_append(folder, 5 if quick else 15) + measure_dump(folder, 3 if quick else 7)


def measure_append(folder: str, rounds: int) -> list[Row]:
    turn = one_turn()
    data = "".join(i.to_json() + "\n" for i in turn).encode("utf-8")
    ours_path, bare_path = os.path.join(folder, "ours.jsonl"), os.path.join(folder, "bare.jsonl")
    fd = os.open(bare_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o666)
    try:

        def bare_synced() -> None:
            os.write(fd, data)
            os.fsync(fd)

        def bare() -> None:
            os.write(fd, data)

        us = lambda s: f"{s * 1e6:.0f} us/turn"  # noqa: E731
        synced, floor, r_synced = paired(lambda: ak.append_items(turn, ours_path), bare_synced, rounds, number=20)
        unsynced, floor_unsynced, r_unsynced = paired(
            lambda: ak.append_items(turn, ours_path, sync=False), bare, rounds, number=20
        )
    finally:
        os.close(fd)
    if ak.load_items(ours_path)[-2:] != turn:
        raise AssertionError("append_items did not append the turn")
    label = f"append one turn ({len(data):,} bytes)"
    return [
        Row("sessions", f"{label}: floor, os.write + os.fsync", us(floor), "1.00x", ""),
        Row("sessions", f"{label}: append_items, sync=True", us(synced), f"{r_synced:.2f}x floor",
            verdict(r_synced <= APPEND_TARGET, f"<= {APPEND_TARGET}x")),
        Row("sessions", f"{label}: append_items, sync=False", us(unsynced),
            f"{r_unsynced:.2f}x a bare os.write ({us(floor_unsynced)})", "info: no fsync, survives a killed process"),
    ]


def measure_dump(folder: str, rounds: int) -> list[Row]:
    items = big_transcript()
    ours_path, before_path = os.path.join(folder, "ours.jsonl"), os.path.join(folder, "before.jsonl")
    ak.dump_items(items, ours_path)
    size = os.path.getsize(ours_path)
    ours, before, ratio = paired(lambda: ak.dump_items(items, ours_path), lambda: dump_before(items, before_path), rounds)
    with open(ours_path, "rb") as a, open(before_path, "rb") as b:
        if a.read() != b.read():
            raise AssertionError("dump_items wrote other bytes than the plain write")
    ms = lambda s: f"{s * 1e3:.0f} ms"  # noqa: E731
    label = f"dump_items, {size / 1e6:.0f} MB ({len(items):,} items)"
    return [
        Row("sessions", f"{label}: before, open + write + fsync", ms(before), "1.00x", ""),
        Row("sessions", f"{label}: atomic replace", ms(ours), f"{ratio:.2f}x before",
            verdict(ratio <= DUMP_TARGET, f"<= {DUMP_TARGET}x")),
    ]
