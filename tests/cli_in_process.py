"""Run the command line in this interpreter, as ``python -m agentkit_core`` would run it in a process.

Where no process can be spawned (Pyodide), this is how the command line is
tested at all; elsewhere it is simply faster.  Only what a real process alone
shows (``-m``, exit through ``sys.exit``, signals, a broken pipe) needs one.

    status, out, err = run_cli("validate", "-", stdin=b"...")
"""

from __future__ import annotations

import io
import sys

__all__ = ("run_cli",)


def run_cli(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Call ``agentkit_core._cli.main(args)`` with the standard streams redirected: (status, stdout, stderr).

    Standard input holds ``stdin``; standard output and error are byte
    buffers behind UTF-8 text streams that are not terminals, and are decoded
    strictly, as a pipe to another program would receive them.  A
    ``SystemExit`` becomes the status a process would exit with.
    """
    from agentkit_core import _cli

    streams = {
        "stdin": io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", newline="\n"),
        "stdout": io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n"),
        "stderr": io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n", line_buffering=True),
    }
    saved = {name: getattr(sys, name) for name in streams}
    try:
        for name, stream in streams.items():
            setattr(sys, name, stream)
        try:
            status = _cli.main(list(args))
        except SystemExit as exc:  # what the interpreter does with it at exit
            if exc.code is None or isinstance(exc.code, int):
                status = exc.code or 0
            else:
                sys.stderr.write(f"{exc.code}\n")
                status = 1
        # main() may have replaced the streams (reconfigure keeps them); read what each holds now.
        out, err = sys.stdout, sys.stderr
        out.flush()
        err.flush()
        return status, _written(out), _written(err)
    finally:
        for name, stream in saved.items():
            setattr(sys, name, stream)


def _written(stream: object) -> str:
    buffer = getattr(stream, "buffer", None)
    if not isinstance(buffer, io.BytesIO):
        raise AssertionError(f"the command line replaced a standard stream with {stream!r}")
    return buffer.getvalue().decode("utf-8")
