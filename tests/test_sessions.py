"""Saving a session: ``dump_items`` replaces a file atomically, ``append_items`` appends durably, and the
readers drop a torn last line with a warning instead of a silent short read.

The crash tests kill real processes (SIGKILL, at seeded random moments across
the writes) and check what every kill left; ``os.fsync`` is counted by
patching it, not assumed.
"""

from __future__ import annotations

import functools
import inspect
import io
import os
import random
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings
from typing import Any
from unittest import mock

import agentkit_core as ak
from agentkit_core import _durable
from tests.capability import can_spawn_process, needs, needs_signals, needs_threads
from tests.test_packaging import ROOT
from tests.test_transcript import Files, transcript

#: A torn line's warnings, as the readers and append_items word them.
DROPPED = "{where}: dropped a torn last line ({size} bytes, no final newline, not a whole JSON value): a write was cut short"
REMOVED = (
    "{where}: removed a torn last line ({size} bytes, no final newline, not a whole JSON value) before appending: "
    "a write was cut short and never acknowledged"
)


@functools.lru_cache(maxsize=None)
def can_lock_files() -> bool:
    """Whether ``fcntl.flock`` keeps a second open file description out (not a stub that always grants it)."""
    try:
        import fcntl
    except ImportError:
        return False
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "probe")
        with open(path, "wb") as first, open(path, "rb") as second:
            fcntl.flock(first.fileno(), fcntl.LOCK_EX)
            try:
                fcntl.flock(second.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False


#: Skip the test where no file lock keeps another writer out (the package then takes none).
needs_file_locks = needs("file locks", can_lock_files, "fcntl.flock here does not keep a second open file out")


def lines_of(items: list[ak.Item]) -> bytes:
    return "".join(i.to_json() + "\n" for i in items).encode("utf-8")


def temporaries(folder: str) -> list[str]:
    return sorted(e for e in os.listdir(folder) if e.endswith(".tmp"))


class Recorded:
    """Collects the warnings raised inside ``with`` (each one, always)."""

    def __enter__(self) -> list[str]:
        self._catcher = warnings.catch_warnings(record=True)
        self.caught = self._catcher.__enter__()
        warnings.simplefilter("always")
        self.messages: list[str] = []
        return self.messages

    def __exit__(self, *exc: object) -> None:
        self.messages.extend(str(w.message) for w in self.caught)
        self._catcher.__exit__(*exc)


class TestTornTail(Files):
    def test_a_torn_last_line_is_dropped_with_a_warning_naming_it(self) -> None:
        items = transcript()
        torn = items[1].to_json().encode()[:37]
        data = lines_of(items[:2]) + b"\n" + torn  # a blank line: the torn one is line 4
        path = self.write("t.jsonl", data)
        for way, source in self.every_way("t.jsonl", data):
            with self.subTest(source=way):
                with Recorded() as caught:
                    self.assertEqual(ak.load_items(source), items[:2])  # type: ignore[arg-type]
                name = getattr(source, "name", None)
                where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else name
                where = where if isinstance(where, str) else "<stream>"
                self.assertEqual(caught, [DROPPED.format(where=f"{where}:4", size=37)])
        with Recorded() as caught:
            reading = ak.iter_items(path)
            self.assertEqual([next(reading), next(reading)], items[:2])  # the items come before the warning
            self.assertEqual(caught, [])
            self.assertEqual(list(reading), [])
        self.assertEqual(caught, [DROPPED.format(where=f"{path}:4", size=37)])

    def test_what_counts_as_torn(self) -> None:
        good = [i.to_json().encode() for i in transcript()]
        cut_in_a_character = good[0][: good[0].index("\u65e5".encode()) + 1]  # one byte of three
        cases: dict[str, tuple[bytes, list[ak.Item], int]] = {
            "cut in a UTF-8 sequence": (good[1] + b"\n" + cut_in_a_character, [transcript()[1]], len(cut_in_a_character)),
            "CRLF lines": (good[0] + b"\r\n" + good[1] + b"\r\n" + good[2][:-1], transcript()[:2], len(good[2]) - 1),
            "only a torn line": (good[0][:10], [], 10),
            "only a torn line, blank lines first": (b"\n\n" + good[0][:10], [], 10),
            "extra data after a value": (good[0] + b"\n" + good[1] + b" {", transcript()[:1], len(good[1]) + 2),
        }
        for what, (data, items, size) in cases.items():
            for source in (io.BytesIO(data), io.StringIO(data.decode("utf-8", "replace"))):
                with self.subTest(what, source=type(source).__name__):
                    if isinstance(source, io.StringIO) and what == "cut in a UTF-8 sequence":
                        size = len(data.decode("utf-8", "replace").rpartition("\n")[2].encode())  # the replacement character
                    with Recorded() as caught:
                        self.assertEqual(ak.load_items(source), items)
                    self.assertEqual(len(caught), 1)
                    self.assertTrue(caught[0].startswith("<stream>:"), caught)
                    self.assertIn(f"({size} bytes, no final newline", caught[0])

    def test_a_whole_last_line_without_a_newline_is_kept(self) -> None:
        items = transcript()
        with Recorded() as caught:
            self.assertEqual(ak.load_items(io.BytesIO(lines_of(items)[:-1])), items)
            self.assertEqual(ak.load_items(io.BytesIO(lines_of(items)[:-1] + b"  ")), items)
            self.assertEqual(ak.load_items(io.BytesIO(items[0].to_json().encode())), items[:1])  # hand-written, one item
        self.assertEqual(caught, [])

    def test_anything_malformed_before_the_last_line_still_raises(self) -> None:
        good = [i.to_json() for i in transcript()]
        cases = {
            good[0] + "\n" + good[1][:20] + "\n" + good[2][:30]: 2,  # line 2 is bad and not the last
            good[0] + "\n" + good[1][:20] + "\n": 2,  # the bad last line ends in a newline: written whole, bad
            good[0] + "\n{}\n" + good[2][:30]: 2,  # a whole value that is no item
            good[0] + "\n{}": 2,  # the same as the last line, whole
        }
        for text, line in cases.items():
            with self.subTest(text=text[-40:]):
                with Recorded():
                    with self.assertRaises(ak.NormalizeError) as caught:
                        ak.load_items(io.StringIO(text))
                self.assertEqual(caught.exception.location, f"<stream>:{line}")

    def test_a_torn_array_or_document_raises(self) -> None:
        wire = [i.to_dict() for i in transcript()]
        import json

        cases = [
            json.dumps(wire, separators=(",", ":"))[:-40],  # one line, an array cut short: not taken for a torn line
            json.dumps(wire, indent=2)[:-40],  # a pretty-printed array cut short
            "[\n" + ",\n".join(json.dumps(w) for w in wire)[:-40],  # one element a line, cut short
            json.dumps(wire[1], indent=2)[:-20],  # one pretty-printed item cut short
        ]
        for text in cases:
            with self.subTest(text=text[:30]):
                with Recorded() as warned:
                    self.assertRaises(ak.NormalizeError, ak.load_items, io.StringIO(text))
                self.assertEqual(warned, [])


class TestDumpItems(Files):
    def test_fsync_the_temporary_then_replace_then_fsync_the_folder(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        events: list[tuple[str, Any]] = []
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            st = os.fstat(fd)
            events.append(("fsync", "folder" if stat.S_ISDIR(st.st_mode) else (st.st_dev, st.st_ino)))
            real_fsync(fd)

        def replace(src: str, dst: str) -> None:
            events.append(("replace", (os.path.dirname(src), os.path.basename(src).startswith(".t.jsonl."))))
            real_replace(src, dst)

        for round in range(2):  # created, then replaced
            with self.subTest(round=round):
                events.clear()
                with mock.patch.object(os, "fsync", fsync), mock.patch.object(os, "replace", replace):
                    ak.dump_items(transcript()[: round + 2], path)
                st = os.stat(path)
                written = (st.st_dev, st.st_ino)
                folder = [("fsync", "folder")] if os.name != "nt" else []  # Windows cannot open a folder to sync it
                self.assertEqual(events, [("fsync", written), ("replace", (self.dir, True)), *folder])
                self.assertEqual(ak.load_items(path), transcript()[: round + 2])
                self.assertEqual(temporaries(self.dir), [])

    def test_a_failed_save_leaves_the_old_file_and_no_temporary(self) -> None:
        path = self.write("t.jsonl", lines_of(transcript()))
        with self.assertRaises(TypeError):
            ak.dump_items([transcript()[0], "not an item"], path)  # type: ignore[list-item]
        self.assertEqual(ak.load_items(path), transcript())
        self.assertEqual(temporaries(self.dir), [])
        with mock.patch.object(os, "replace", side_effect=OSError(28, "No space left on device")):
            self.assertRaises(OSError, ak.dump_items, transcript()[:1], path)
        self.assertEqual(ak.load_items(path), transcript())
        self.assertEqual(temporaries(self.dir), [])

    def test_modes_new_as_open_makes_them_replaced_kept(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        ak.dump_items(transcript(), path)
        with open(os.path.join(self.dir, "by-open"), "wb"):
            pass
        self.assertEqual(os.stat(path).st_mode, os.stat(os.path.join(self.dir, "by-open")).st_mode)
        os.chmod(path, 0o600 if os.name != "nt" else stat.S_IREAD | stat.S_IWRITE)
        kept = os.stat(path).st_mode
        ak.dump_items(transcript()[:1], path)
        self.assertEqual(os.stat(path).st_mode, kept)

    def test_leftover_temporaries_are_never_read_and_the_next_save_removes_them(self) -> None:
        path = self.write("t.jsonl", lines_of(transcript()))
        leftovers = [".t.jsonl.0123456789ab.tmp", ".t.jsonl.ffffffffffff.tmp"]
        others = [".t.jsonl.xyz.tmp", ".t.jsonl.0123456789AB.tmp", ".u.jsonl.0123456789ab.tmp", "t.jsonl.tmp",
                  ".t.jsonl.0123456789ab"]
        for name in leftovers + others:
            self.write(name, lines_of(transcript())[:50])
        self.assertEqual(ak.load_items(path), transcript())
        ak.dump_items(transcript()[:2], path)
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(["t.jsonl", *others]))
        self.assertEqual(ak.load_items(path), transcript()[:2])

    @needs_file_locks
    def test_a_temporary_whose_writer_lives_is_not_removed(self) -> None:
        import fcntl

        path = self.write("t.jsonl", lines_of(transcript()))
        busy = self.write(".t.jsonl.00000000000a.tmp", b"being written")
        with open(busy, "rb") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as a saver in another process holds its own
            ak.dump_items(transcript()[:1], path)
            self.assertEqual(temporaries(self.dir), [".t.jsonl.00000000000a.tmp"])
        ak.dump_items(transcript()[:2], path)  # its writer is gone
        self.assertEqual(temporaries(self.dir), [])

    @needs_file_locks
    def test_a_temporary_swept_before_its_writer_locked_it_is_made_again(self) -> None:
        made: list[str] = []
        real_lock = _durable._lock

        def lock(fd: int) -> bool:
            if not made:  # a sweep in another process wins the race between the open and the lock once
                made.append(next(e for e in os.listdir(self.dir) if e.endswith(".tmp")))
                os.unlink(os.path.join(self.dir, made[0]))
            return real_lock(fd)

        path = os.path.join(self.dir, "t.jsonl")
        with mock.patch.object(_durable, "_lock", lock):
            ak.dump_items(transcript(), path)
        self.assertEqual(len(made), 1)
        self.assertEqual(ak.load_items(path), transcript())
        self.assertEqual(temporaries(self.dir), [])

    @needs_threads
    def test_two_savers_at_once(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        versions = [transcript(), transcript()[:1]]
        failures: list[BaseException] = []

        def save(items: list[ak.Item]) -> None:
            try:
                for _ in range(40):
                    ak.dump_items(items, path)
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=save, args=(v,)) for v in versions]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(failures, [])
        self.assertIn(ak.load_items(path), versions)
        self.assertEqual(temporaries(self.dir), [])


class TestAppendItems(Files):
    def test_exported_beside_dump_items(self) -> None:
        from agentkit_core import transcript as module

        self.assertIs(ak.append_items, module.append_items)
        self.assertEqual(ak.__all__[ak.__all__.index("dump_items") + 1], "append_items")
        self.assertIn("append_items", module.__all__)
        self.assertIn("append_items", dir(ak))

    def test_appends_json_lines_creating_the_file(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        items = transcript()
        ak.append_items(items[:1], path)
        ak.append_items(iter(items[1:]), path, sync=False)
        ak.append_items([], path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), lines_of(items))
        ak.dump_items(items, os.path.join(self.dir, "dumped.jsonl"))
        with open(os.path.join(self.dir, "dumped.jsonl"), "rb") as f:
            self.assertEqual(f.read(), lines_of(items))  # the bytes dump_items writes
        ak.append_items([], os.path.join(self.dir, "empty.jsonl"))
        self.assertEqual(os.path.getsize(os.path.join(self.dir, "empty.jsonl")), 0)

    def test_one_write_and_fsync_as_promised(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        calls: list[tuple[str, str]] = []
        real_fsync, real_write = os.fsync, os.write

        def fsync(fd: int) -> None:
            calls.append(("fsync", "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"))
            real_fsync(fd)

        def write(fd: int, data: Any) -> int:
            calls.append(("write", bytes(data).decode()))
            return real_write(fd, data)

        def appended(sync: bool) -> list[tuple[str, str]]:
            calls.clear()
            with mock.patch.object(os, "fsync", fsync), mock.patch.object(os, "write", write):
                ak.append_items(transcript(), path, sync=sync)
            return calls[:]

        lines = lines_of(transcript()).decode()
        folder = [("fsync", "folder")] if os.name != "nt" else []
        self.assertEqual(appended(True), [("write", lines), ("fsync", "file"), *folder])  # created: the folder too
        self.assertEqual(appended(True), [("write", lines), ("fsync", "file")])
        self.assertEqual(appended(False), [("write", lines)])

    def test_a_write_the_system_takes_in_pieces_is_finished(self) -> None:
        path = os.path.join(self.dir, "t.jsonl")
        real_write = os.write
        pieces: list[int] = []

        def short(fd: int, data: Any) -> int:  # a system that takes at most 100 bytes a call
            written = real_write(fd, bytes(data[:100]))
            pieces.append(written)
            return written

        with mock.patch.object(os, "write", short):
            ak.append_items(transcript(), path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), lines_of(transcript()))
        self.assertEqual(len(pieces), -(-len(lines_of(transcript())) // 100))

    def test_anything_but_an_item_is_refused_and_nothing_is_written(self) -> None:
        path = self.write("t.jsonl", lines_of(transcript()))
        with self.assertRaises(TypeError) as caught:
            ak.append_items([transcript()[0], {"kind": "User"}], path)  # type: ignore[list-item]
        self.assertEqual(str(caught.exception), "append_items: items[1]: expected an Item, found dict")
        with self.assertRaises(TypeError) as caught:
            ak.append_items(transcript(), io.BytesIO())  # type: ignore[arg-type]
        self.assertEqual(str(caught.exception), "append_items: expected a path, found BytesIO")
        self.assertEqual(ak.load_items(path), transcript())

    def test_a_torn_last_line_is_removed_first_with_a_warning(self) -> None:
        items = transcript()
        torn = items[2].to_json().encode()[:25]
        path = self.write("t.jsonl", lines_of(items[:2]) + torn)
        with Recorded() as caught:
            ak.append_items(items[2:], path)
        self.assertEqual(caught, [REMOVED.format(where=f"{path}:3", size=25)])
        with open(path, "rb") as f:
            self.assertEqual(f.read(), lines_of(items))
        path = self.write("only.jsonl", torn)
        with Recorded() as caught:
            ak.append_items(items[:1], path)
        self.assertEqual(caught, [REMOVED.format(where=f"{path}:1", size=25)])
        self.assertEqual(ak.load_items(path), items[:1])

    def test_a_torn_line_after_this_process_appended_is_still_seen(self) -> None:
        items = transcript()
        path = os.path.join(self.dir, "t.jsonl")
        ak.append_items(items[:1], path)  # this process remembers how it left the file
        with open(path, "ab") as f:  # then another one, killed mid-append
            f.write(items[1].to_json().encode()[:9])
        with Recorded() as caught:
            ak.append_items(items[1:], path)
        self.assertEqual(caught, [REMOVED.format(where=f"{path}:2", size=9)])
        self.assertEqual(ak.load_items(path), items)

    def test_a_whole_last_line_without_its_newline_gets_one(self) -> None:
        items = transcript()
        for tail in (b"", b"  ", b"\n  "):
            with self.subTest(tail=tail):
                path = self.write("t.jsonl", lines_of(items[:2])[:-1] + tail)
                with Recorded() as caught:
                    ak.append_items(items[2:], path)
                self.assertEqual(caught, [])
                self.assertEqual(ak.load_items(path), items)

    def test_a_json_array_is_refused_untouched(self) -> None:
        import json

        pretty = json.dumps([i.to_dict() for i in transcript()], indent=2).encode()
        for prefix, data in (
            (b"", pretty),
            (b"\xef\xbb\xbf", pretty),
            (b"", pretty + b"\n"),
            (b"", pretty.replace(b"\n", b"\r\n") + b"\r\n"),  # written on Windows
            (b"", pretty + b"\n\n"),
            (b"", b"\n" + pretty + b"\n"),
            (b"\xef\xbb\xbf", b"  " + pretty + b" \n"),
        ):
            path = self.write("t.json", prefix + data)
            with self.assertRaises(ak.NormalizeError) as caught:
                ak.append_items(transcript(), path)
            self.assertEqual(caught.exception.location, path)
            self.assertIn("holds a JSON array, not JSON Lines", caught.exception.message)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), prefix + data)

    @needs_file_locks
    @needs_threads
    def test_an_append_waits_for_the_lock(self) -> None:
        import fcntl

        path = self.write("t.jsonl", lines_of(transcript()[:1]))
        done = threading.Event()
        with open(path, "rb") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # another appender, mid-write
            thread = threading.Thread(target=lambda: (ak.append_items(transcript()[1:], path), done.set()))
            thread.start()
            self.assertFalse(done.wait(0.3), "appended while another held the lock")
        self.assertTrue(done.wait(30))
        thread.join(30)
        self.assertEqual(ak.load_items(path), transcript())

    @needs_file_locks
    @needs_threads
    def test_an_append_waiting_while_a_save_replaces_the_file_goes_to_the_new_file(self) -> None:
        import fcntl

        path = self.write("t.jsonl", lines_of(transcript()[:1]))
        done = threading.Event()
        with open(path, "rb") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            thread = threading.Thread(target=lambda: (ak.append_items(transcript()[2:], path), done.set()))
            thread.start()
            time.sleep(0.1)  # it waits on the old file's lock
            os.replace(self.write("new.jsonl", lines_of(transcript()[:2])), path)  # as dump_items does
        self.assertTrue(done.wait(30))
        thread.join(30)
        self.assertEqual(ak.load_items(path), transcript())


# -- killing real processes -------------------------------------------------------------

#: The writers the crash tests kill, run as ``-c`` with the repository and one command.  ``append PATH WHO
#: START COUNT sync|nosync`` appends (after a line on stdin, so that several start together) and exits.
#: ``fork`` reads commands from stdin and runs each in a forked child (an interpreter starts in 50 to 300 ms,
#: a fork in a few), printing ``PID dead`` once it is reaped.  Each child prints ``PID VALUE`` after each write
#: returned: the seconds a save took, the number of the item appended.
_WRITER = """
import os, random, sys, time, traceback, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")  # the torn line a kill left is removed with a warning
import agentkit_core as ak
{functions}
out = sys.stdout
def report(value):
    out.write(f"{{os.getpid()}} {{value}}\\n")
    out.flush()
def save(path):
    chosen = versions()
    for n in range(10**6):
        started = time.perf_counter()
        ak.dump_items(chosen[n % len(chosen)], path)
        report(time.perf_counter() - started)
def append(path, who, start, count, sync, aim="-"):
    if aim == "aim":  # say when the lines are about to be written, for a kill aimed at the write
        real_write = os.write
        os.write = lambda fd, data: (report("writing"), real_write(fd, data))[1]
    for n in range(int(start), int(start) + int(count)):
        ak.append_items([numbered(who, n)], path, sync=sync == "sync")
        report(n)
commands = {{"save": save, "append": append}}
if sys.argv[2] != "fork":
    report("ready")
    sys.stdin.readline()  # all start together
    commands[sys.argv[2]](*sys.argv[3:])
    sys.exit()
for line in sys.stdin:
    name, *args = line.split()
    pid = os.fork()
    if pid == 0:
        try:
            commands[name](*args)
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        os._exit(0)
    os.waitpid(pid, 0)
    out.write(f"{{pid}} dead\\n")
    out.flush()
"""


def numbered(who: str, n: int) -> ak.Item:
    """Item ``n`` of writer ``who``: some hundreds of KiB at times, so that a write takes a while."""
    size = random.Random(f"{who}:{n}").choice((10, 1000, 50_000, 200_000, 2_000_000 if who == "a" else 100))
    return ak.Item.text(ak.ItemKind.USER, f"{who}:{n}:" + "x" * size)


def versions() -> list[list[ak.Item]]:
    """The transcripts the killed saver writes in turn (about 1 MB, 0.7 MB and a little)."""
    base = [numbered("s", n) for n in range(20)]
    return [base, base[:15] + [ak.Item.text(ak.ItemKind.USER, "changed")], base[:3]]


def writer(*args: str, stderr: Any) -> subprocess.Popen[str]:
    """A process running :data:`_WRITER` with ``args``."""
    script = _WRITER.format(functions="".join(inspect.getsource(f) for f in (numbered, versions)))
    return subprocess.Popen([sys.executable, "-I", "-c", script, ROOT, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=stderr, text=True)


class Forker:
    """One :data:`_WRITER` in ``fork`` mode: each :meth:`run` starts a writer, :meth:`kill` ends it."""

    def __init__(self, case: unittest.TestCase, folder: str) -> None:
        self.errors = open(os.path.join(folder, "stderr"), "w+")  # noqa: SIM115 - closed by the cleanup
        self.process = writer("fork", stderr=self.errors)
        case.addCleanup(self.close)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.errors.close()

    def _line(self) -> tuple[int, str]:
        line = self.process.stdout.readline() if self.process.stdout else ""
        pid, _, value = line.strip().partition(" ")
        if not value:
            self.errors.seek(0)
            raise AssertionError(f"the writer stopped: {self.errors.read()[-2000:]}")
        return int(pid), value

    def run(self, *command: str) -> tuple[int, str]:
        """Start ``command`` in a forked child; its pid and first report (its first write is done)."""
        if self.process.stdin is None:
            raise AssertionError("no stdin")
        self.process.stdin.write(" ".join(command) + "\n")
        self.process.stdin.flush()
        pid, value = self._line()
        if value == "dead":
            self.errors.seek(0)
            raise AssertionError(f"the child died before its first write: {self.errors.read()[-2000:]}")
        return pid, value

    def kill(self, pid: int) -> list[str]:
        """SIGKILL the child ``pid``; what it reported after its first report, before it died."""
        os.kill(pid, signal.SIGKILL)
        reports = []
        while True:
            who, value = self._line()
            if value == "dead":
                return reports
            reports.append(value)


def loaded(path: str) -> tuple[list[ak.Item], list[str]]:
    with Recorded() as caught:
        items = ak.load_items(path)
    return items, caught


def can_fork() -> bool:
    return can_spawn_process() and hasattr(os, "fork")


@needs("processes", can_fork, "this interpreter cannot fork one")
@needs_signals("SIGKILL")
class TestKilled(Files):
    KILLS = 25

    def test_a_save_killed_at_any_moment_leaves_the_old_transcript_or_the_new(self) -> None:
        rng = random.Random(32)
        path = os.path.join(self.dir, "session.jsonl")
        chosen = versions()
        ak.dump_items(chosen[2], path)
        forker = Forker(self, self.dir)
        cut = 0
        for kill in range(self.KILLS):
            pid, took = forker.run("save", path)  # one save done: the next is under way
            time.sleep(rng.uniform(0, float(took) * 1.5))
            forker.kill(pid)
            items, caught = loaded(path)
            cut += bool(temporaries(self.dir))
            with self.subTest(kill=kill):
                self.assertEqual(caught, [])
                self.assertIn(items, chosen)
        self.assertGreater(cut, 0, "no kill landed during a save")
        ak.dump_items(chosen[0], path)
        self.assertEqual(temporaries(self.dir), [])

    def test_an_append_killed_at_any_moment_keeps_every_acknowledged_item(self) -> None:
        rng = random.Random(33)
        forker = Forker(self, self.dir)
        acknowledged = torn = 0
        path = ""
        for kill in range(self.KILLS + 50):  # more, aimed, only while no kill has torn a line yet
            if kill >= self.KILLS and torn:
                break
            if kill % 5 == 0:  # a new file now and then, so that reading it back stays quick
                path, acknowledged = os.path.join(self.dir, f"session-{kill}.jsonl"), 0
            # by turns: with fsync or without, and killed at a random moment or aimed at the write itself
            sync, aim = ("sync", "nosync")[kill % 2], ("-", "aim")[kill // 2 % 2 or kill >= self.KILLS]
            pid, first = forker.run("append", path, "a", str(acknowledged), "1000", sync, aim)
            time.sleep(rng.uniform(0, 0.004 if aim == "-" else 0.0005))
            acks = [int(n) for n in [first, *forker.kill(pid)] if n != "writing"]
            self.assertEqual(acks, list(range(acknowledged, acknowledged + len(acks))))
            acknowledged += len(acks)
            items, caught = loaded(path)
            torn += len(caught)
            with self.subTest(kill=kill):
                self.assertEqual(items, [numbered("a", n) for n in range(len(items))])  # whole, in order
                self.assertIn(len(items), (acknowledged, acknowledged + 1))  # every acknowledged one, at most one more
                self.assertLessEqual(len(caught), 1)
            acknowledged = len(items)
        self.assertGreater(torn, 0, "no kill tore a line")

    def test_four_processes_appending_at_once_keep_every_line_whole_and_in_order(self) -> None:
        path = os.path.join(self.dir, "session.jsonl")
        count = 60
        children = {who: writer("append", path, who, "0", str(count), "sync" if who in "ab" else "nosync",
                                stderr=subprocess.PIPE) for who in "abcd"}
        for child in children.values():  # all ready, then all go
            self.assertEqual(child.stdout.readline().split()[1:] if child.stdout else [], ["ready"])
        for child in children.values():
            if child.stdin is not None:
                child.stdin.write("go\n")
                child.stdin.flush()
        for child in children.values():
            out, err = child.communicate(timeout=120)
            self.assertEqual(child.returncode, 0, err)
            self.assertEqual([line.split()[1] for line in out.splitlines()], [str(n) for n in range(count)])
        items, caught = loaded(path)
        self.assertEqual(caught, [])
        self.assertEqual(len(items), 4 * count)
        for who in "abcd":
            mine = [i for i in items if i.text_content().startswith(f"{who}:")]
            self.assertEqual(mine, [numbered(who, n) for n in range(count)])


if __name__ == "__main__":
    unittest.main()
