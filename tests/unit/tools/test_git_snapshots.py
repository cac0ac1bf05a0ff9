"""Snapshots of a git workspace for checkpoints: what they see, byte for byte, and what they
never touch or run (the user's index, configured filters and hooks)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from agent.conversation.rewind_plan import same_content
from sessions.checkpoint_store import content_ref
from tools.git_process import run_git
from tools.git_snapshots import (
    EXECUTABLE,
    MAX_SNAPSHOT_FILE_BYTES,
    REGULAR,
    SYMLINK,
    GitSnapshotError,
    GitSnapshots,
    blob_id,
    changes,
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

REF = "refs/pleat/checkpoints/test-session"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(workspace: Path, no_git_above: None) -> Path:
    git(workspace, "init", "-q")
    git(workspace, "config", "user.email", "dev@example.com")
    git(workspace, "config", "user.name", "dev")
    (workspace / "a.txt").write_bytes(b"line one\r\nline two\r\n")
    (workspace / ".gitignore").write_text("ignored/\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "start")
    return workspace


def snapshots(repo: Path, tmp_path: Path, **kwargs: object) -> GitSnapshots:
    return GitSnapshots(repo, REF, tmp_path / "scratch", **kwargs)  # type: ignore[arg-type]


def test_a_snapshot_sees_tracked_and_untracked_files_but_not_ignored_ones(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "new.txt").write_text("untracked\n")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "x").write_text("x")
    (repo / "tool.sh").write_text("#!/bin/sh\n")
    (repo / "tool.sh").chmod(0o755)
    (repo / "link").symlink_to("a.txt")
    snap = snapshots(repo, tmp_path).take()
    assert sorted(snap.files) == [".gitignore", "a.txt", "link", "new.txt", "tool.sh"]
    assert snap.files["tool.sh"].mode == EXECUTABLE and snap.files["a.txt"].mode == REGULAR
    assert snap.files["link"].mode == SYMLINK
    data = (repo / "a.txt").read_bytes()
    assert snap.files["a.txt"].blob == blob_id(data, 40)
    assert git(repo, "rev-parse", REF).strip() == snap.commit
    scratch = tmp_path / "scratch"
    assert stat.S_IMODE(scratch.stat().st_mode) == 0o700 and not list(scratch.iterdir())


def test_changes_between_snapshots_and_blobs_read_back_byte_for_byte(
    repo: Path, tmp_path: Path
) -> None:
    shots = snapshots(repo, tmp_path)
    before = shots.take()
    (repo / "a.txt").write_bytes(b"\xff changed \xe9\n")
    (repo / "b.txt").write_text("created\n")
    (repo / ".gitignore").unlink()
    after = shots.take()
    found = {c.path: (c.before, c.after) for c in changes(before, after)}
    assert set(found) == {"a.txt", "b.txt", ".gitignore"}
    assert found["b.txt"][0] is None and found[".gitignore"][1] is None
    old = found["a.txt"][0]
    assert old is not None and shots.read(old.blob) == b"line one\r\nline two\r\n"
    # Each snapshot is a commit on top of the previous one: gc keeps every blob.
    assert git(repo, "rev-list", "--count", REF).strip() == "2"
    assert not shots.missing([old.blob]) and shots.missing(["0" * 40]) == {"0" * 40}


def test_the_users_index_head_and_stash_are_untouched(repo: Path, tmp_path: Path) -> None:
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "a.txt").write_text("modified, not staged\n")
    asked = (["ls-files", "-s"], ["rev-parse", "HEAD"], ["stash", "list"], ["branch", "-av"])
    state = [git(repo, *args) for args in asked]
    index_bytes = (repo / ".git" / "index").read_bytes()
    snapshots(repo, tmp_path).take()
    assert [git(repo, *args) for args in asked] == state
    assert (repo / ".git" / "index").read_bytes() == index_bytes


def test_filters_line_endings_and_hooks_never_run(repo: Path, tmp_path: Path) -> None:
    """A clean filter and eol conversion would store other bytes than the file's (and run a
    command); a reference-transaction hook would run on update-ref."""
    marker = tmp_path / "PWNED"
    (repo / ".gitattributes").write_text("*.txt filter=evil text eol=crlf\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write(f'[filter "evil"]\n\tclean = "touch {marker}; cat"\n\trequired = true\n')
        config.write("[core]\n\tautocrlf = true\n")
    hook = repo / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    (repo / "lf.txt").write_bytes(b"unix\nlines\n")
    snap = snapshots(repo, tmp_path).take()
    assert not marker.exists()
    assert snap.files["lf.txt"].blob == blob_id(b"unix\nlines\n", 40)


def test_files_holding_a_key_are_withheld(repo: Path, tmp_path: Path) -> None:
    (repo / ".env").write_text("OPENAI_API_KEY=sk-secret-value-123456\n")
    shots = snapshots(repo, tmp_path, holds_secret=lambda p: b"sk-secret" in p.read_bytes())
    snap = shots.take()
    assert ".env" in snap.withheld and ".env" not in snap.files
    blob = blob_id((repo / ".env").read_bytes(), 40)
    assert shots.missing([blob]) == {blob}, "the key reached git's objects"


def test_outside_git_snapshots_say_why(workspace: Path, tmp_path: Path, no_git_above: None) -> None:
    shots = snapshots(workspace, tmp_path)
    assert shots.available() == "the workspace is not in a git repository"
    with pytest.raises(GitSnapshotError):
        shots.take()


def test_a_workspace_below_the_repository_root_sees_only_its_files(
    repo: Path, tmp_path: Path
) -> None:
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "mod.py").write_text("x = 1\n")
    snap = snapshots(sub, tmp_path).take()
    assert list(snap.files) == ["mod.py"]
    assert os.path.exists(repo / "a.txt")


def test_a_long_input_reaches_git_whole(repo: Path) -> None:
    """Megabytes of paths on git's stdin are all written (a retried communicate() would stop
    sending them and leave git waiting until the time limit)."""
    lines = 50_000
    path = f"{repo / 'a.txt'}\n".encode()
    done = run_git(
        ["hash-object", "--no-filters", "--stdin-paths"], repo, timeout=60, input=path * lines
    )
    assert done is not None and done.returncode == 0
    assert len(done.stdout.split()) == lines


def test_a_directory_swapped_for_a_symlink_out_is_not_followed(repo: Path, tmp_path: Path) -> None:
    (repo / "dir").mkdir()
    (repo / "dir" / "f.txt").write_text("inside\n")
    git(repo, "add", "dir")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("a secret outside the workspace\n")
    shutil.rmtree(repo / "dir")
    (repo / "dir").symlink_to(outside)  # the index still lists dir/f.txt
    shots = snapshots(repo, tmp_path)
    snap = shots.take()
    assert "dir/f.txt" not in snap.files and snap.files["dir"].mode == SYMLINK
    blob = blob_id((outside / "f.txt").read_bytes(), 40)
    assert shots.missing([blob]) == {blob}


def test_a_store_name_and_a_git_name_compare_by_their_bytes(repo: Path, tmp_path: Path) -> None:
    """What a file tool left (a store hash) and what a command found there next (a git blob)
    name the same bytes, or not: how a user's edit between the two is seen (rewind plans)."""
    (repo / "notes.txt").write_bytes(b"pleat draft\n")
    git_snapshots = snapshots(repo, tmp_path)
    blob = git_snapshots.take().files["notes.txt"].blob
    assert same_content(content_ref(b"pleat draft\n"), f"git:{blob}", git_snapshots) is True
    assert same_content(f"git:{blob}", content_ref(b"edited\n"), git_snapshots) is False
    assert same_content(content_ref(b"x"), f"git:{blob}", None) is None  # no git: cannot tell
    assert same_content(None, None, git_snapshots) is True
    assert same_content(None, content_ref(b"x"), git_snapshots) is False


def test_a_name_with_a_newline_is_hashed_alone_and_huge_files_are_withheld(
    repo: Path, tmp_path: Path
) -> None:
    """A name with a newline cannot go through `--stdin-paths`: it is hashed by itself, named
    on the command line, while the rest is still hashed in one batch (review finding 11: one
    git call per file took minutes); a huge file would be copied into .git/objects at each
    change: it is withheld (an undo says so)."""
    (repo / "weird\nname.txt").write_text("x\n")
    with (repo / "data.bin").open("wb") as big:
        big.truncate(MAX_SNAPSHOT_FILE_BYTES + 1)
    for number in range(50):
        (repo / f"f{number}.txt").write_text(f"{number}\n")
    shot = snapshots(repo, tmp_path).take()
    assert "data.bin" in shot.withheld and "weird\nname.txt" not in shot.withheld
    assert shot.files["weird\nname.txt"].blob == blob_id(b"x\n", 40)
    assert all(f"f{n}.txt" in shot.files for n in range(50))


def test_a_file_gone_since_the_listing_leaves_the_rest_in_one_batch(
    repo: Path, tmp_path: Path
) -> None:
    shots = snapshots(repo, tmp_path)
    for number in range(20):
        (repo / f"g{number}.txt").write_text(f"{number}\n")
    files = [(f"g{n}.txt", (0, 0, 0, 0, 0), "100644") for n in range(20)]
    (repo / "g7.txt").unlink()  # between the listing and the hashing
    blobs = shots._hash_files(files)
    assert blobs[7] is None
    assert all(blob is not None for n, blob in enumerate(blobs) if n != 7)
