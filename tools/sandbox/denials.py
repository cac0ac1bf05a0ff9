"""What the sandbox refused a failed command, read from what the command said: a write outside the
places it may change (the path, when the message names one), a network connection, or the
sandbox itself failing to start. The model is told the cause, not only an exit code, and how to
ask for the command to run outside the sandbox."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tools.sandbox.launch import FAILURE_PREFIX
from tools.sandbox.policy import Sandbox

# How programs say a file operation was refused (EACCES, EPERM, EROFS).
REFUSED = re.compile(r"Permission denied|Operation not permitted|Read-only file system", re.I)
# How programs say a connection could not be made: what a closed network looks like.
NETWORK = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known|"
    r"Could not resolve host|Couldn't connect to server|getaddrinfo failed|"
    r"nodename nor servname|Cannot assign requested address|connect(?:ion)?\b.*(?:denied|refused)|"
    r"All connection attempts failed",  # httpx's (an MCP server's fetch) when no route is up
    re.I,
)
# How a refused signal reads (`kill: (123) - Operation not permitted`, Python's os.kill).
SIGNAL = re.compile(r"\bkill\b|signal", re.I)
# A path in a refusal message: quoted ('x', "x", `x', ‘x’) or bare, absolute or relative.
QUOTED_PATH = re.compile(r"""['"`‘]([^'"`’\n]+)['"’]""")
# A shell's form: `bash: line 1: out.txt: Permission denied` (the word before the refusal).
NAMED_PATH = re.compile(
    r"""([^\s:'"]+): (?:Permission denied|Operation not permitted|Read-only file system)""", re.I
)
BARE_PATH = re.compile(r"""(?<![\w/])(/[^\s:'"]+)""")
# Paths named at most in the note: enough to see what was refused.
SHOWN_PATHS = 3
# Refusal lines looked at: `rm -rf /usr` says one per file; the first ones name what matters, and
# each costs a path resolution.
LINES_READ = 200
# Characters of a path as shown.
PATH_CHARS = 200


def _paths(line: str) -> list[str]:
    found = QUOTED_PATH.findall(line) or NAMED_PATH.findall(line) or BARE_PATH.findall(line)
    return [path.strip() for path in found if path.strip()]


def _outside(path: str, sandbox: Sandbox) -> str | None:
    """How a refused path is named when it lies outside what the command may change (relative
    ones from the workspace; one that resolves elsewhere, through a symlink, with its target),
    or None when it lies inside."""
    written = sandbox.workspace / path
    resolved = written.resolve()
    if any(resolved.is_relative_to(place) for place in sandbox.writable()):
        return None
    return path if resolved == Path(os.path.normpath(written)) else f"{path} -> {resolved}"


def sandbox_cause(text: str, sandbox: Sandbox, *, network: bool = False) -> str | None:
    """One line naming what the sandbox seems to have refused, or None when nothing in the
    output points at it; `network`: the command ran with the network open."""
    if FAILURE_PREFIX in text:
        reason = text.split(FAILURE_PREFIX, 1)[1].splitlines()[0][:PATH_CHARS]
        return f"the sandbox could not be applied ({reason}), so the command did not run"
    causes: list[str] = []
    refused = [line for line in text.splitlines() if REFUSED.search(line)][:LINES_READ]
    named = (_outside(path, sandbox) for line in refused for path in _paths(line))
    outside = [path for path in named if path is not None]
    if outside:
        paths = [path[:PATH_CHARS] for path in dict.fromkeys(outside)]
        shown = ", ".join(paths[:SHOWN_PATHS]) + (" and more" if len(paths) > SHOWN_PATHS else "")
        where = "outside the workspace" if sandbox.mode == "workspace-write" else "read-only mode"
        causes.append(f"changing {shown} ({where})")
    # A refusal naming no path at all is what a closed socket looks like (connect's or
    # socket's EACCES): the network's, or a Unix socket's, which stays closed when it is open.
    signals = [line for line in refused if SIGNAL.search(line)]
    if signals:
        causes.append("a signal to a process outside the sandbox")
    pathless = any(not _paths(line) for line in refused if line not in signals)
    if not (sandbox.network or network) and (NETWORK.search(text) or pathless):
        causes.append("a network connection or a Unix socket (the sandbox closes both)")
    elif pathless:
        causes.append("a Unix socket (the sandbox closes them)")
    return "; ".join(causes) if causes else None


# How a hook's or a server's refusal says why it was confined and how to let it out: it is the
# user's, confined only because its settings opted in (agent/hooks/process.py, agent/mcp/).
OPTED_IN = "it runs confined because its settings say sandbox = true: remove that to run it as you"


def denial_note(cause: str, sandbox: Sandbox) -> str:
    """What the model reads after the output of a command the sandbox refused something."""
    return (
        f"[pleat: the sandbox ({sandbox.mode}) seems to have refused {cause}. If the command "
        "must do that, call run_command again with no_sandbox: true; the user is asked first.]"
    )
