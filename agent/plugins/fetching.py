"""Bringing a plugin or a marketplace onto this machine: a bounded copy of a directory, or a git
clone (a URL, or a local repository's path), each into a fresh directory, never over one in use.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from agent.plugins.files import PluginError
from agent.terminal_text import visible

# Files one plugin may hold when copied: Anthropic's largest (plugin-dev) has about 60; a tree
# of thousands is not a plugin, and copying it at every install would be slow.
MAX_FILES = 5_000
# Bytes one plugin may hold when copied: its scripts and prompts are kilobytes; 100 MiB leaves
# room for a bundled server, and stops a hostile source from filling the disk.
MAX_BYTES = 100 * 1024 * 1024
# Seconds a clone may take: a marketplace repository is small, but a slow network takes a
# while; past five minutes it is reported as failed rather than hanging the command.
CLONE_TIMEOUT_SECONDS = 300.0
# Characters of git's own error line quoted back.
MAX_ERROR_CHARS = 300
# Directory names never copied: a repository's own metadata.
SKIPPED = frozenset({".git"})


def copy_tree(source: Path, target: Path) -> None:
    """Copy `source` into the new directory `target`: regular files and directories, symlinks
    that stay inside it as links, nothing else (a pipe, a device, a link leading out, which an
    approved hook would otherwise run from a place a sandboxed command writes: found by
    review); at most MAX_FILES files and MAX_BYTES bytes. Raises PluginError; `target` is
    left to the caller."""
    counts = [0, 0]
    root = Path(os.path.realpath(source))

    def walk(src: Path, dst: Path) -> None:
        dst.mkdir(mode=0o700)
        with os.scandir(src) as entries:
            for entry in entries:
                if entry.name in SKIPPED:
                    continue
                counts[0] += 1
                if counts[0] > MAX_FILES:
                    raise PluginError(f"{source} has more than {MAX_FILES:,} files; not copied")
                info = entry.stat(follow_symlinks=False)
                there = dst / entry.name
                if stat.S_ISLNK(info.st_mode):
                    if Path(os.path.realpath(entry.path)).is_relative_to(root):
                        os.symlink(os.readlink(entry.path), there)
                elif stat.S_ISDIR(info.st_mode):
                    walk(Path(entry.path), there)
                elif stat.S_ISREG(info.st_mode):
                    counts[1] += info.st_size
                    if counts[1] > MAX_BYTES:
                        raise PluginError(
                            f"{source} holds more than {MAX_BYTES // (1024 * 1024)} MiB; not copied"
                        )
                    shutil.copy2(entry.path, there, follow_symlinks=False)

    try:
        walk(source, target)
    except OSError as error:
        raise PluginError(f"cannot copy {source}: {error.strerror or error}") from None


def git_clone(url: str, target: Path, ref: str | None = None) -> None:
    """Clone `url` (one commit deep) into the new directory `target`. Raises PluginError with
    git's own last line (no network: the line says the host cannot be reached)."""
    argv = ["git", "-c", "protocol.ext.allow=never", "clone", "--quiet", "--depth", "1"]
    if ref:
        argv += ["--branch", ref]
    if Path(url).is_dir():  # a local repository: git ignores --depth for a plain path
        url = Path(url).resolve().as_uri()
    argv += ["--", url, str(target)]
    # Never wait for a password or a host key: not on the terminal (ssh reads /dev/tty, which a
    # new session has none of), not on stdin.
    environment = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    }
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            capture_output=True,
            timeout=CLONE_TIMEOUT_SECONDS,
            env=environment,
            check=False,
        )
    except FileNotFoundError:
        raise PluginError("git is not installed; a git source cannot be cloned") from None
    except subprocess.TimeoutExpired:
        raise PluginError(
            f"cloning {visible(url)} took over {CLONE_TIMEOUT_SECONDS:g} s; stopped"
        ) from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        why = visible(lines[-1] if lines else f"git exited with {done.returncode}")
        raise PluginError(f"cannot clone {visible(url)}: {why[:MAX_ERROR_CHARS]}")


def replace_dir(fresh: Path, target: Path) -> None:
    """Put the directory `fresh` where `target` is (the old one removed after the swap)."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(fresh, target)
    shutil.rmtree(old, ignore_errors=True)
