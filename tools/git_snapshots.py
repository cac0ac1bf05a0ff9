"""Snapshots of a git workspace's files as commits under a private ref, for checkpoints.

A snapshot lists the files git sees (tracked, and untracked but not ignored), stores each one's
bytes as a blob (`git hash-object -w --no-filters`: no clean filter or line-ending conversion
runs, so a blob is the file byte for byte), builds a tree in a temporary index of its own
(`GIT_INDEX_FILE`), and commits it under `refs/pleat/checkpoints/<session>` so `git gc` keeps
the blobs. The user's index, HEAD, branches and stash are never touched, and hooks are off.
Blocking: call it in a worker thread.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sessions.paths import private_dir
from tools.git_process import GitResult, run_git

# Seconds one listing or hashing call may take: the first snapshot of a session hashes every
# file (a gigabyte of sources takes a few seconds); past a minute the command runs uncovered
# rather than keep the user waiting.
SNAPSHOT_TIMEOUT_SECONDS = 60.0
# Seconds for the small calls (rev-parse, write-tree, commit-tree, update-ref, cat-file).
SMALL_TIMEOUT_SECONDS = 10.0
# A file larger than this is not put in a snapshot (it is withheld, and an undo says what
# snapshots do not cover): a dataset or a build output git does not ignore would be read for
# keys and copied into .git/objects at each command that changes it. Source files are far
# smaller; 32 MiB still holds a large generated file or a lock file whole.
MAX_SNAPSHOT_FILE_BYTES = 32 * 1024 * 1024
# Files changed this recently are hashed again at the next snapshot even when their size and
# times look the same: a write in the same clock tick as the last look leaves them unchanged
# (git's "racily clean" problem; file times on Linux move in ticks of a few milliseconds).
RACY_SECONDS = 2.0
# Forced on every snapshot call besides tools.git_process's: hooks (a reference-transaction
# hook runs on update-ref) and commit signing never run; the listing takes no index lock.
SNAPSHOT_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false")
# Who the snapshot commits are by: they are pleat's, and git refuses a commit without a name.
IDENTITY = {
    "GIT_AUTHOR_NAME": "pleat",
    "GIT_AUTHOR_EMAIL": "pleat@localhost",
    "GIT_COMMITTER_NAME": "pleat",
    "GIT_COMMITTER_EMAIL": "pleat@localhost",
}
# Tree entry modes: a plain file, an executable one, a symbolic link.
REGULAR, EXECUTABLE, SYMLINK = "100644", "100755", "120000"
# Where snapshot commits live: a ref outside branches, tags and the stash.
REF_PREFIX = "refs/pleat/checkpoints/"


class GitSnapshotError(Exception):
    """Git cannot snapshot (or read back) this workspace: one line saying why."""


@dataclass(frozen=True)
class Entry:
    """One file in a snapshot: its tree mode and its blob id."""

    mode: str
    blob: str


@dataclass(frozen=True)
class Snapshot:
    """The files of the workspace at one moment (workspace-relative posix paths)."""

    commit: str
    files: dict[str, Entry]
    # Files seen but not stored (unreadable, or holding a key pleat never writes to disk): a
    # change to them is not known.
    withheld: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Change:
    """A file that differs between two snapshots: its entry before (None: it did not exist) and
    after (None: it was removed)."""

    path: str
    before: Entry | None
    after: Entry | None


def changes(before: Snapshot, after: Snapshot) -> list[Change]:
    """The files that differ from `before` to `after`, by path (withheld ones left out)."""
    skipped = before.withheld | after.withheld
    paths = sorted((before.files.keys() | after.files.keys()) - skipped)
    found = []
    for path in paths:
        old, new = before.files.get(path), after.files.get(path)
        if old != new:
            found.append(Change(path, old, new))
    return found


def blob_id(data: bytes, hex_length: int) -> str:
    """The id git gives a blob of `data` (SHA-1, or SHA-256 in a repository of that format)."""
    digest = hashlib.sha1 if hex_length == 40 else hashlib.sha256
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


# A file's modification and change times (ns), inode, size and mode: when all are the same, its
# content is taken to be the same (as git's index does).
StatKey = tuple[int, int, int, int, int]


@dataclass
class _Cached:
    """What a file looked like when it was last hashed (its stat key) and its entry."""

    key: StatKey
    entry: Entry


@dataclass
class GitSnapshots:
    """Snapshots of one workspace, committed under one private ref (one per session)."""

    workspace: Path
    ref: str
    # Where the temporary index is made (the session's checkpoints directory).
    scratch: Path
    # Whether a file's bytes hold a key that must not be written to disk.
    holds_secret: Callable[[Path], bool] = lambda _: False
    # Learned from git once: the workspace's path inside the repository ("" at its root), or
    # why there are no snapshots here; the last snapshot commit (the next one's parent).
    _prefix: str | None = field(default=None, init=False)
    _problem: str | None = field(default=None, init=False)
    _parent: str | None = field(default=None, init=False)
    # What each file looked like when last hashed: unchanged files are not read again.
    _cache: dict[str, _Cached] = field(default_factory=dict, init=False)
    # One snapshot at a time: sub-agents running side by side share their parent's snapshots
    # (the cache, the last commit and the ref are updated by each).
    _taking: threading.Lock = field(default_factory=threading.Lock, init=False)

    def available(self) -> str | None:
        """None when snapshots work here, else why not (asked of git once)."""
        if self._prefix is None and self._problem is None:
            self._open()
        return self._problem

    def _open(self) -> None:
        found = self._git(["rev-parse", "--is-inside-work-tree", "--show-prefix"])
        if found is None or found.returncode != 0:
            self._problem = "the workspace is not in a git repository"
            return
        lines = found.stdout.decode("utf-8", "surrogateescape").split("\n")
        if lines[0] != "true":
            self._problem = "the workspace is not in a git work tree"
            return
        self._prefix = lines[1] if len(lines) > 1 else ""
        parent = self._git(["rev-parse", "-q", "--verify", f"{self.ref}^{{commit}}"])
        if parent is not None and parent.returncode == 0:
            self._parent = parent.stdout.decode().strip() or None

    def take(self) -> Snapshot:
        """Snapshot the workspace now. Raises GitSnapshotError."""
        with self._taking:
            return self._take()

    def _take(self) -> Snapshot:
        if self.available() is not None:
            raise GitSnapshotError(self._problem or "no git")
        started = time.time()  # the clock file times are on
        names = self._list()
        files: dict[str, Entry] = {}
        withheld: set[str] = set()
        to_hash: list[tuple[str, StatKey, str]] = []
        real_dirs: dict[str, bool] = {"": True}
        for name in names:
            if not self._real_parents(name, real_dirs):
                continue  # below a directory that is a symlink now: not the workspace's file
            path = self.workspace / name
            try:
                info = os.lstat(path)
            except OSError:
                continue  # gone since the listing
            key = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size, info.st_mode)
            cached = self._cache.get(name)
            if cached is not None and cached.key == key:
                files[name] = cached.entry
            elif stat.S_ISLNK(info.st_mode):
                entry = self._hash_link(path)
                if entry is None:
                    withheld.add(name)
                else:
                    files[name] = entry
                    self._remember(name, key, entry, started)
            elif stat.S_ISREG(info.st_mode):
                mode = EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR
                if info.st_size > MAX_SNAPSHOT_FILE_BYTES:
                    withheld.add(name)  # too big to copy at each command
                elif not os.access(path, os.R_OK) or self.holds_secret(path):
                    withheld.add(name)
                else:
                    to_hash.append((name, key, mode))
        for (name, key, mode), blob in zip(to_hash, self._hash_files(to_hash), strict=True):
            if blob is None:
                withheld.add(name)
                continue
            entry = Entry(mode, blob)
            files[name] = entry
            self._remember(name, key, entry, started)
        commit = self._commit(files)
        return Snapshot(commit, files, frozenset(withheld))

    def _real_parents(self, name: str, known: dict[str, bool]) -> bool:
        """Whether every directory above `name` is a real directory (not a symlink, which git
        may still list files below from its index), remembered per directory in `known`."""
        parent = name.rpartition("/")[0]
        if parent not in known:
            try:
                real = stat.S_ISDIR(os.lstat(self.workspace / parent).st_mode)
            except OSError:
                real = False
            known[parent] = real and self._real_parents(parent, known)
        return known[parent]

    def missing(self, blobs: Iterable[str]) -> set[str]:
        """The blobs of `blobs` this repository no longer has. Raises GitSnapshotError."""
        wanted = sorted(set(blobs))
        if not wanted:
            return set()
        found = self._git(
            ["cat-file", "--batch-check"],
            input="".join(f"{blob}\n" for blob in wanted).encode(),
        )
        if found is None or found.returncode != 0:
            raise GitSnapshotError("git cannot read this repository's objects")
        lines = found.stdout.decode("utf-8", "replace").splitlines()
        return {line.split()[0] for line in lines if line.endswith(" missing")}

    def read(self, blob: str) -> bytes:
        """The bytes of one blob. Raises GitSnapshotError."""
        found = self._git(["cat-file", "blob", blob], timeout=SNAPSHOT_TIMEOUT_SECONDS)
        if found is None or found.returncode != 0:
            raise GitSnapshotError(f"the git object {blob} is missing")
        return found.stdout

    # -- the steps of a snapshot ----------------------------------------------------------

    def _list(self) -> list[str]:
        """Workspace-relative names of the files git sees (tracked, and untracked but not
        ignored), below the workspace only."""
        listing = self._git(
            ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"],
            timeout=SNAPSHOT_TIMEOUT_SECONDS,
        )
        if listing is None or listing.returncode != 0:
            raise GitSnapshotError("git could not list the workspace's files")
        prefix = self._prefix or ""
        names = set()
        for raw in listing.stdout.split(b"\0"):
            name = os.fsdecode(raw)
            if raw and name.startswith(prefix) and _plain(name[len(prefix) :]):
                names.add(name[len(prefix) :])
        return sorted(names)

    def _hash_files(self, files: list[tuple[str, StatKey, str]]) -> list[str | None]:
        """Blob ids of the files (stored in the repository), None where one could not be
        read: one git call for all of them; when it fails (a file vanished or became unreadable
        since the listing), once more for those still readable; one call each only when that
        fails too (a git call per file costs milliseconds: a large tree would wait minutes)."""
        if not files:
            return []
        paths = [str(self.workspace / name) for name, _, _ in files]
        if any("\n" in path for path in paths):  # --stdin-paths reads one path a line
            lined = [path for path in paths if "\n" in path]
            named = {path: self._hash_named(path) for path in lined}
            rest = [f for f, path in zip(files, paths, strict=True) if "\n" not in path]
            named.update(
                zip((str(self.workspace / f[0]) for f in rest), self._hash_files(rest), strict=True)
            )
            return [named[path] for path in paths]
        batch = self._hash_paths(paths)
        if batch is not None:
            return list(batch)
        readable = [path for path in paths if os.path.isfile(path) and os.access(path, os.R_OK)]
        again = self._hash_paths(readable)
        if again is not None:
            found = dict(zip(readable, again, strict=True))
            return [found.get(path) for path in paths]
        blobs: list[str | None] = []
        for path in paths:
            one = self._hash_paths([path])
            blobs.append(one[0] if one else None)
        return blobs

    def _hash_named(self, path: str) -> str | None:
        """The blob id of one file named on the command line (a name holding a newline, which
        --stdin-paths cannot take), None when it could not be read."""
        done = self._git(
            ["hash-object", "-w", "--no-filters", "--", path], timeout=SNAPSHOT_TIMEOUT_SECONDS
        )
        if done is None or done.returncode != 0:
            return None
        blob = done.stdout.decode().strip()
        return blob or None

    def _hash_paths(self, paths: list[str]) -> list[str] | None:
        if any("\n" in path for path in paths):
            return None  # --stdin-paths reads one path a line
        done = self._git(
            ["hash-object", "-w", "--no-filters", "--stdin-paths"],
            input="".join(f"{path}\n" for path in paths).encode("utf-8", "surrogateescape"),
            timeout=SNAPSHOT_TIMEOUT_SECONDS,
        )
        if done is None or done.returncode != 0:
            return None
        blobs = done.stdout.decode().split()
        return blobs if len(blobs) == len(paths) else None

    def _hash_link(self, path: Path) -> Entry | None:
        try:
            target = os.fsencode(os.readlink(path))
        except OSError:
            return None
        done = self._git(["hash-object", "-w", "--stdin"], input=target)
        if done is None or done.returncode != 0:
            return None
        return Entry(SYMLINK, done.stdout.decode().strip())

    def _remember(self, name: str, key: StatKey, entry: Entry, started: float) -> None:
        """Cache the entry unless the file changed too recently to trust its times."""
        if max(key[0], key[1]) < (started - RACY_SECONDS) * 1e9:
            self._cache[name] = _Cached(key, entry)
        else:
            self._cache.pop(name, None)

    def _commit(self, files: dict[str, Entry]) -> str:
        """A tree of `files` (in a temporary index), committed on top of the ref's last
        snapshot, and the ref moved to it; the commit's id."""
        prefix = self._prefix or ""
        lines = "".join(
            f"{entry.mode} {entry.blob}\t{prefix}{name}\0" for name, entry in files.items()
        ).encode("utf-8", "surrogateescape")
        private_dir(self.scratch)  # 0700: the session's own directory
        handle, index = tempfile.mkstemp(prefix=".git-index-", dir=self.scratch)
        os.close(handle)
        os.unlink(index)  # git makes the index itself; an empty file is not a valid one
        env = {"GIT_INDEX_FILE": index}
        try:
            built = self._git(
                ["update-index", "--add", "-z", "--index-info"],
                input=lines,
                env=env,
                timeout=SNAPSHOT_TIMEOUT_SECONDS,
            )
            tree = self._git(["write-tree"], env=env, timeout=SNAPSHOT_TIMEOUT_SECONDS)
        finally:
            for leftover in (index, f"{index}.lock"):
                try:
                    os.unlink(leftover)
                except OSError:
                    pass
        if built is None or built.returncode != 0 or tree is None or tree.returncode != 0:
            raise GitSnapshotError("git could not build a tree of the workspace")
        parent = ["-p", self._parent] if self._parent else []
        commit = self._git(
            ["commit-tree", tree.stdout.decode().strip(), *parent, "-m", "pleat checkpoint"],
            env=IDENTITY,
        )
        if commit is None or commit.returncode != 0:
            raise GitSnapshotError("git could not commit the snapshot")
        sha = commit.stdout.decode().strip()
        moved = self._git(["update-ref", self.ref, sha])
        if moved is None or moved.returncode != 0:
            raise GitSnapshotError(f"git could not update {self.ref}")
        self._parent = sha
        return sha

    def _git(
        self,
        args: list[str],
        *,
        input: bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = SMALL_TIMEOUT_SECONDS,
    ) -> GitResult | None:
        return run_git(
            [*SNAPSHOT_CONFIG, *args], self.workspace, timeout=timeout, env=env, input=input
        )


def _plain(name: str) -> bool:
    """A plain relative name (git lists what its index holds, and a crafted index can hold
    anything: `..`, absolute paths)."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and all(p not in ("", ".", "..") for p in parts)
