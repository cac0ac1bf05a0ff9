"""The signals that stop pleat cleanly, in the TUI and headless alike: SIGTERM and SIGHUP.

SIGTERM is a polite kill (`kill`, systemd, a supervisor); SIGHUP says the terminal went away
(its window closed, the ssh connection dropped). Left to their default action, either kills
pleat mid-step: a tool call without its result, MCP servers and a hook's commands left running.
Both end the same way instead: the turn is stopped as Esc or Ctrl+C stops it, the journal is
closed, the child processes are stopped, and the exit code is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from collections.abc import Callable
from dataclasses import dataclass

# The standard streams: the ones a terminal that went away leaves failing.
STANDARD_FDS = (0, 1, 2)


@dataclass
class Stopped:
    """Which stop signal arrived first; None while none has."""

    signal: signal.Signals | None = None

    @property
    def name(self) -> str:
        return self.signal.name if self.signal is not None else ""


def on_stop_signals(stop: Callable[[signal.Signals], None]) -> Callable[[], None] | None:
    """Call `stop(signal)` in the running loop when SIGTERM or SIGHUP arrives; the function
    that removes the handlers again, or None where the loop cannot handle signals (Windows, a
    thread other than the main one): there the signals keep their default action.

    SIGHUP's handler is a plain Python one, not the loop's: the kernel sends SIGCONT with the
    hangup, and Textual's SIGCONT handler (a plain one, run as soon as the main thread runs)
    starts writing the screen again; the dead terminal must be released before that, and a
    loop handler would run only later."""
    loop = asyncio.get_running_loop()

    def on_hangup(*_: object) -> None:
        release_dead_terminal()
        loop.call_soon_threadsafe(stop, signal.SIGHUP)

    try:
        loop.add_signal_handler(signal.SIGTERM, stop, signal.SIGTERM)
    except (NotImplementedError, RuntimeError):
        return None
    try:
        before = signal.signal(signal.SIGHUP, on_hangup)
    except (ValueError, OSError):  # not the main thread after all
        loop.remove_signal_handler(signal.SIGTERM)
        return None

    def remove() -> None:
        loop.remove_signal_handler(signal.SIGTERM)
        signal.signal(signal.SIGHUP, before)

    return remove


def release_dead_terminal() -> None:
    """Point each standard stream whose terminal has hung up at /dev/null. Every write to a
    hung-up terminal fails (EIO): what pleat still writes while it stops (the TUI's last frames,
    a headless run's last lines) must go nowhere instead of failing; Textual's output thread
    dies on such a failure and the app's next writes then wait for it for ever. A terminal still
    there (a SIGHUP sent by `kill`) and pipes or files are left as they are."""
    for fd in STANDARD_FDS:
        with contextlib.suppress(OSError):
            if stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd):  # a hung-up terminal
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, fd)
                os.close(null)
