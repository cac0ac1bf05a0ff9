"""The auto memory's file: one per workspace, bounded, never read through a symlink, and two
writers at once lose nothing (the lock)."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import pytest

from sessions.memory_store import (
    LOADED_LINES,
    LOCK_FILE,
    MAX_MEMORY_BYTES,
    MemoryRefused,
    WorkspaceMemory,
    first_part,
    memory_directory,
)
from sessions.paths import data_home

# Writers started at once: enough that unlocked read-change-write cycles would overlap.
WRITERS = 12


def test_each_workspace_has_its_own_memory_under_the_data_directory(tmp_path: Path) -> None:
    one, other = tmp_path / "a" / "app", tmp_path / "b" / "app"
    one.mkdir(parents=True), other.mkdir(parents=True)
    (tmp_path / "link").symlink_to(one)
    assert memory_directory(one) != memory_directory(other)  # same name, other path
    assert memory_directory(tmp_path / "link") == memory_directory(one)  # resolved, as sessions
    assert memory_directory(one).parent == data_home() / "memory"
    assert memory_directory(one).name.startswith("app-")


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    memory = WorkspaceMemory(tmp_path / "memory")
    start = threading.Barrier(WRITERS)

    def add(n: int) -> None:
        start.wait()
        memory.change(lambda text: text + f"- note {n}\n")

    threads = [threading.Thread(target=add, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = memory.read().text.splitlines()
    assert sorted(lines) == sorted(f"- note {n}" for n in range(WRITERS))
    assert oct(memory.path.stat().st_mode & 0o777) == oct(0o600)


def test_growing_past_the_bound_is_refused_and_shrinking_is_not(tmp_path: Path) -> None:
    memory = WorkspaceMemory(tmp_path / "memory")
    memory.directory.mkdir()
    memory.path.write_text("x" * (MAX_MEMORY_BYTES + 10))  # the user made it long in an editor
    with pytest.raises(MemoryRefused, match="past its 12,000: remove or condense"):
        memory.change(lambda text: text + "- one more\n")
    assert memory.change(lambda text: text[:100]) == "x" * 100


def test_a_symlink_or_a_pipe_is_refused_and_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not pleat's\n")
    memory = WorkspaceMemory(tmp_path / "memory")
    memory.directory.mkdir()
    memory.path.symlink_to(outside)
    with pytest.raises(MemoryRefused, match="is a symlink"):
        memory.read()
    with pytest.raises(MemoryRefused, match="is a symlink"):
        memory.change(lambda text: text + "- note\n")
    assert outside.read_text() == "not pleat's\n"
    memory.path.unlink()
    os.mkfifo(memory.path)  # opened without blocking: refused at once
    with pytest.raises(MemoryRefused, match="not a regular file"):
        memory.read()


def test_what_a_session_loads_is_bounded_by_lines_and_bytes() -> None:
    short = "- a\n- b\n"
    assert first_part(short) == ("- a\n- b", False)
    many = "".join(f"- note {n}\n" for n in range(LOADED_LINES + 5))
    part, cut = first_part(many)
    assert cut and part.splitlines() == [f"- note {n}" for n in range(LOADED_LINES)]
    wide = "".join(f"- {'w' * 500} {n}\n" for n in range(50))
    part, cut = first_part(wide)
    assert cut and len(part.encode()) <= MAX_MEMORY_BYTES and part.endswith(("0", "1", "2", "3"))


def test_a_lock_held_elsewhere_is_waited_for_a_bounded_time_and_a_linked_lock_refused(
    tmp_path: Path,
) -> None:
    memory = WorkspaceMemory(tmp_path / "memory")
    memory.lock_wait = 0.2  # a session stopped (Ctrl+Z) while changing the memory holds it
    memory.directory.mkdir()
    held = os.open(memory.directory / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(MemoryRefused, match="another session is changing"):
            memory.change(lambda text: text + "- note\n")
    finally:
        os.close(held)
    assert memory.change(lambda text: text + "- note\n") == "- note\n"  # released: it goes on
    elsewhere = tmp_path / "elsewhere"
    (memory.directory / LOCK_FILE).unlink()
    (memory.directory / LOCK_FILE).symlink_to(elsewhere)
    with pytest.raises(MemoryRefused, match="cannot write"):
        memory.change(lambda text: text + "- other\n")
    assert not elsewhere.exists() and memory.read().text == "- note\n"
