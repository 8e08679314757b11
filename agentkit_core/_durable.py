"""Files a crash cannot half-write: the atomic replace under :func:`.transcript.dump_items` and the locked
append under :func:`.transcript.append_items`; loaded on first use, not with the package.

SQLite's atomic commit and LevelDB's log are the models.  :func:`replace`
writes a temporary file beside the target (``.<name>.<12 hex digits>.tmp``),
flushes and syncs it (``os.fsync``), renames it over the target with ``os.replace``
and syncs the folder, so the name holds the old bytes or the new, never a
mixture.  A temporary is locked (``flock``) while its writer lives; the next
save removes those whose writer is gone (where there is no ``flock``: on
Windows those that cannot be deleted are in use; elsewhere those untouched for
a minute).  :func:`append` writes whole lines under an exclusive lock
(``fcntl.flock``; ``msvcrt.locking`` on Windows; none where the platform has
neither, e.g. Pyodide and WASI, which run one process), after cutting off a
torn last line that no append acknowledged.

Folders are synced through ``os.open(folder, O_RDONLY)`` where POSIX allows
it; Windows cannot open a folder so, and a file system that refuses (``EINVAL``)
is skipped.  ``os.fsync`` is what the system calls a sync (on macOS not
``F_FULLFSYNC``).
"""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (ARCHITECTURE.md, "Import cost")
if TYPE_CHECKING:
    from typing import IO, Any, Callable

__all__ = ("replace", "append")

_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_SUFFIX = ".tmp"
_TOKEN = 12  # hex digits of a temporary's random part
_STALE = 60.0  # seconds after which a temporary is taken for dead where no lock can tell
_UNSUPPORTED = frozenset(getattr(errno, n) for n in ("EINVAL", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EBADF") if hasattr(errno, n))
_HAS_PREAD = hasattr(os, "pread")  # not on Windows
_FAR = 1 << 62  # where msvcrt.locking takes its one-byte lock: beyond any data, so readers are not blocked


# -- locks ------------------------------------------------------------------------------


_fcntl: object = False  # not looked for yet


def _flock() -> Any:
    """``fcntl`` where it has ``flock``, else ``None``; imported on first use, never with the package."""
    global _fcntl
    if _fcntl is False:
        try:
            import fcntl
        except ImportError:
            _fcntl = None
        else:
            _fcntl = fcntl if hasattr(fcntl, "flock") else None
    return _fcntl


def _msvcrt() -> Any:
    """``msvcrt`` on Windows, else ``None``."""
    try:
        return __import__("msvcrt")
    except ImportError:
        return None


def _lock(fd: int) -> bool:
    """Hold an exclusive lock on the open file ``fd``, waiting for it; ``False`` where there is no lock to take."""
    fcntl = _flock()
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            if exc.errno in _UNSUPPORTED:  # a file system without flock
                return False
            raise
        return True
    msvcrt = _msvcrt()
    if msvcrt is None:
        return False
    os.lseek(fd, _FAR, os.SEEK_SET)
    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            return True
        except OSError as exc:  # LK_LOCK gives up after ten tries a second apart: wait on
            if exc.errno != errno.EDEADLOCK:
                raise


def _unlock(fd: int) -> None:
    """Release :func:`_lock`'s ``msvcrt`` lock (a ``flock`` is released by closing the file)."""
    msvcrt = _msvcrt()
    os.lseek(fd, _FAR, os.SEEK_SET)
    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def _same_file(fd: int, path: str) -> bool:
    """Whether ``path`` still names the open file ``fd`` (not replaced, not deleted)."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _sync_folder(folder: str) -> None:
    """``fsync`` the folder, so a new or renamed entry in it survives a power cut (skipped where impossible)."""
    if os.name == "nt":  # a folder cannot be opened as a file there; NTFS journals the rename
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        if exc.errno in _UNSUPPORTED or exc.errno == errno.EACCES:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _UNSUPPORTED:
            raise
    finally:
        os.close(fd)


# -- replace --------------------------------------------------------------------------


def _temporary_prefix(base: str) -> str:
    return f".{base[:200]}."  # cut, so that the temporary's name is not longer than a name may be


def _is_temporary(entry: str, prefix: str) -> bool:
    if not (entry.startswith(prefix) and entry.endswith(_SUFFIX)):
        return False
    token = entry[len(prefix) : -len(_SUFFIX)]
    return len(token) == _TOKEN and all(c in "0123456789abcdef" for c in token)


def _sweep(folder: str, base: str) -> None:
    """Delete the temporaries of earlier saves to ``base`` whose writer is gone (never one being written)."""
    prefix = _temporary_prefix(base)
    try:
        entries = [e for e in os.listdir(folder) if _is_temporary(e, prefix)]
    except OSError:
        return
    for entry in entries:
        path = os.path.join(folder, entry)
        try:
            _sweep_one(path)
        except OSError:  # gone already, or not ours to delete: the save goes on
            continue


def _sweep_one(path: str) -> None:
    fcntl = _flock()
    if fcntl is None:
        if os.name == "nt" or _age(path) > _STALE:  # on Windows a file being written cannot be deleted
            os.unlink(path)
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # its writer holds it
        except OSError as exc:
            if exc.errno not in _UNSUPPORTED or _age(path) <= _STALE:
                return
        if _same_file(fd, path):  # still that file: its writer checks the same under the lock before using it
            os.unlink(path)
    finally:
        os.close(fd)


def _age(path: str) -> float:
    import time

    return time.time() - os.stat(path).st_mtime


def _create_temporary(folder: str, base: str) -> tuple[int, str]:
    """A new temporary beside the target, open for writing and locked, so no sweep deletes it."""
    prefix = _temporary_prefix(base)
    while True:
        path = os.path.join(folder, prefix + os.urandom(_TOKEN // 2).hex() + _SUFFIX)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)  # the umask applies, as with open()
        if os.name == "nt" or not _lock(fd) or _same_file(fd, path):
            return fd, path
        os.close(fd)  # a sweep took it for a leftover between the open and the lock: start again


def replace(path: str | os.PathLike[str], write: Callable[[IO[bytes]], None]) -> None:
    """Replace the file at ``path`` with what ``write`` writes to the binary file it is given, atomically.

    If ``write`` raises, the temporary is deleted and the target is untouched.
    A new file gets the mode ``open()`` would give it; a replaced one keeps its
    mode.  A symbolic link is followed: the file it points to is replaced.
    """
    target = os.fspath(path)
    if isinstance(target, bytes):
        target = os.fsdecode(target)
    if os.path.islink(target):
        target = os.path.realpath(target)
    folder, base = os.path.split(target)
    folder = folder or os.curdir
    _sweep(folder, base)
    fd, temporary = _create_temporary(folder, base)
    try:
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            pass
        else:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            else:
                os.chmod(temporary, mode)
        with open(fd, "wb", closefd=False) as f:
            write(f)
        os.fsync(fd)
        _rename_over(temporary, target)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    os.close(fd)
    _sync_folder(folder)


def _rename_over(temporary: str, target: str) -> None:
    """``os.replace``, holding the old file's append lock so no append is under way and later ones see the new file."""
    old = -1
    if os.name != "nt":  # Windows cannot rename over a file that is open
        try:
            old = os.open(target, os.O_RDONLY | _BINARY)
        except OSError:
            old = -1  # no file yet (or not ours to read): nothing appends to it
    try:
        if old >= 0:
            _lock(old)
        os.replace(temporary, target)
    finally:
        if old >= 0:
            os.close(old)  # releases the lock


# -- append ---------------------------------------------------------------------------


def _read_at(fd: int, size: int, offset: int) -> bytes:
    if _HAS_PREAD:
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


def append(path: str | os.PathLike[str], data: bytes, sync: bool) -> None:
    """Append ``data`` (whole lines) to the file at ``path``, created if missing, under an exclusive lock.

    A torn last line (no final newline, not a whole JSON value) is cut off first
    with a warning; a whole one gets its newline.  The end is read only when the
    file is not as this process's last append left it (device, inode, size and
    modification time).  With ``sync``, returns after ``os.fsync`` (and the
    folder's, when the file was created).
    """
    target = os.fspath(path)
    if isinstance(target, bytes):
        target = os.fsdecode(target)
    while True:
        created = False
        try:
            fd = os.open(target, os.O_RDWR | os.O_APPEND | _BINARY)
        except FileNotFoundError:
            try:
                fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
            except FileExistsError:  # another appender made it first
                continue
            created = True
        try:
            locked = _lock(fd)
            held = os.fstat(fd)
            if locked and held.st_nlink == 0:  # replaced by a save, or deleted, while we waited: no name is left
                continue
            size = held.st_size
            if size and _last != _identity(held):  # else: unchanged since this process's last append ended it
                end = _read_at(fd, 2, size - 2) if size > 1 else _read_at(fd, 1, 0)
                if end[-1:] != b"\n":
                    _refuse_an_array(fd, target)
                    data = _mend_tail(fd, size, target) + data
                elif end[:1] != b"}":  # lines of items end in "}"; "]", "\r" or "\n" there may end an array
                    _refuse_an_array(fd, target)
            written = os.write(fd, data)  # one write, unless the system takes less
            if written < len(data):
                view = memoryview(data)[written:]
                while view:
                    view = view[os.write(fd, view) :]
            _remember(os.fstat(fd))
            if sync:
                os.fsync(fd)
                if created:
                    _sync_folder(os.path.dirname(target) or os.curdir)
            if locked and _flock() is None:  # closing the file releases a flock
                _unlock(fd)
            return
        finally:
            os.close(fd)


#: The file this process appended to last, as it left it (ending in a whole line): device, inode, size, mtime.
_last: tuple[int, int, int, int] | None = None


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember(st: os.stat_result) -> None:
    global _last
    _last = _identity(st) if st.st_ino else None  # no inode numbers: no telling files apart


def _refuse_an_array(fd: int, name: str) -> None:
    """Raise if the file holds a JSON array (its first character but a BOM and white space is ``[``), which lines cannot extend."""
    if _read_at(fd, 64, 0).lstrip(b"\xef\xbb\xbf").lstrip()[:1] == b"[":
        from .error import NormalizeError

        raise NormalizeError(
            "holds a JSON array, not JSON Lines: append_items adds lines to JSON Lines only (rewrite it with dump_items)",
            "",
            name,
        )


def _mend_tail(fd: int, size: int, name: str) -> bytes:
    """Make the file end in a newline: ``b"\\n"`` to write before the data, or ``b""`` after cutting a torn line off."""
    start = size
    chunk = 1 << 16
    while start > 0:
        low = max(0, start - chunk)
        at = _read_at(fd, start - low, low).rfind(b"\n")
        if at >= 0:
            start = low + at + 1
            break
        start = low
    tail = _read_at(fd, size - start, start)
    if not tail.strip() or _whole_json(tail):
        return b"\n"  # blank, or a whole value written without its newline (by hand): kept
    line = 1 + _count_newlines(fd, start)
    import warnings

    warnings.warn(
        f"{name}:{line}: removed a torn last line ({len(tail):,} bytes, no final newline, not a whole JSON value) "
        "before appending: a write was cut short and never acknowledged",
        stacklevel=4,
    )
    os.ftruncate(fd, start)
    return b""


def _whole_json(raw: bytes) -> bool:
    from .error import NormalizeError
    from .jsontext import loads

    try:
        loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, NormalizeError):
        return False
    return True


def _count_newlines(fd: int, end: int) -> int:
    count = offset = 0
    while offset < end:
        block = _read_at(fd, min(1 << 20, end - offset), offset)
        if not block:
            break
        count += block.count(b"\n")
        offset += len(block)
    return count
