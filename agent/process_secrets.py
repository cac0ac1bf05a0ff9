"""Keys out of reach of the commands pleat runs: blanked where /proc shows them to children.

Commands get an environment without secrets (tools/shell.py), but on Linux any process of the
same user can read `/proc/<pleat's pid>/environ` and `/proc/<pid>/cmdline`: `cat
/proc/$PPID/environ` from run_command printed the provider key. Those files show the memory
blocks the kernel set up at exec time, not Python's copies, and `os.environ.pop` does not change
them. So at start-up, before anything runs, every secret value is overwritten in place inside
those two blocks with asterisks (the layout stays valid, so `ps` still reads the rest). Python's
own copies (`os.environ`, `sys.argv`) live elsewhere in memory and keep working for litellm.

Then the process is made non-dumpable: a same-user process can no longer attach to it or read
its memory through `/proc/<pid>/mem`. A process with CAP_SYS_PTRACE (root) still can: pleat does
not defend against its own user's root (docs/SECURITY.md). Elsewhere than Linux, no-op.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from sessions.secret_names import MIN_KNOWN_SECRET_CHARS, holds_secret

# Fields of /proc/self/stat (1-based, see proc(5)) holding the addresses of the argument block
# (48, 49) and the environment block (50, 51); present since Linux 3.5.
ARG_START_FIELD, ENV_START_FIELD = 48, 50
# prctl(2) option to set the "dumpable" flag; 0 makes the process non-dumpable.
PR_SET_DUMPABLE = 4
# Command-line flags whose value is a secret.
SECRET_FLAGS = ("--api-key",)
# What a secret's bytes become in the blocks: printable, same length, never a NUL (a NUL would
# split an argument in two for readers of cmdline).
MASK = b"*"


def secret_values(environ: Mapping[str, str], argv: Sequence[str]) -> list[str]:
    """Every secret the process was started with: values of variables named like a secret
    (OPENAI_API_KEY, GITHUB_TOKEN ...) and of secret flags, long enough to be real."""
    values = [value for name, value in environ.items() if holds_secret(name, value)]
    for index, arg in enumerate(argv):
        for flag in SECRET_FLAGS:
            if arg == flag and index + 1 < len(argv):
                values.append(argv[index + 1])
            elif arg.startswith(flag + "="):
                values.append(arg.removeprefix(flag + "="))
    return sorted({v for v in values if len(v) >= MIN_KNOWN_SECRET_CHARS}, key=len, reverse=True)


def _block_addresses(stat: str) -> tuple[int, int]:
    """(argument block start, environment block start) from /proc/self/stat's text. The second
    field (the command name) is in parentheses and may hold spaces, so fields are counted from
    the last ")"."""
    fields = stat[stat.rindex(")") + 2 :].split()
    first = 3  # the fields after ")" start with field 3 (the state)
    return int(fields[ARG_START_FIELD - first]), int(fields[ENV_START_FIELD - first])


def _mask(address: int, block: bytes, secrets: Iterable[bytes]) -> int:
    """Overwrite each occurrence of each secret inside the block at `address`; the count."""
    masked = 0
    for secret in secrets:
        at = block.find(secret)
        while at >= 0:
            ctypes.memset(address + at, MASK[0], len(secret))
            masked += 1
            at = block.find(secret, at + len(secret))
    return masked


def hide_from_children(secrets: Iterable[str]) -> int:
    """Blank `secrets` in this process's /proc environ and cmdline, then make it non-dumpable.
    Returns how many occurrences were blanked; 0 (and no change) where /proc is not Linux's."""
    if not sys.platform.startswith("linux"):
        return 0
    wanted = [os.fsencode(secret) for secret in secrets if secret]
    proc = Path("/proc/self")
    try:
        arg_start, env_start = _block_addresses(proc.joinpath("stat").read_text())
        args, env = proc.joinpath("cmdline").read_bytes(), proc.joinpath("environ").read_bytes()
    except (OSError, ValueError, IndexError):
        return 0
    masked = _mask(arg_start, args, wanted) + _mask(env_start, env, wanted)
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    return masked


def hide_start_up_secrets() -> int:
    """hide_from_children for the secrets in this process's environment and command line."""
    return hide_from_children(secret_values(os.environ, sys.argv))
