"""The archive index caught up by a background process of its own (real processes): it indexes
every session, stops once its parent is gone, keeps no secret of pleat's environment, and runs
only pleat's own code whatever lies in the data directory."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent.session.archive_indexer import index_in_background, indexer_command
from sessions.archive_index import index_path
from sessions.messages import Message
from sessions.paths import data_home
from sessions.store import Session


def past_sessions(workspace: Path, count: int) -> list[str]:
    made = []
    for number in range(count):
        session = Session.create(workspace, model="m")
        session.message(Message("user", f"request {number}: the kestrel-{number}", id="m1"))
        session.close()
        made.append(session.id)
    return made


def indexed() -> list[str]:
    with sqlite3.connect(index_path()) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]


async def test_every_session_is_indexed_in_the_background(workspace: Path) -> None:
    made = past_sessions(workspace, 3)
    assert await index_in_background() == 0
    assert indexed() == sorted(made)


async def test_one_session_is_not_worth_a_process(workspace: Path) -> None:
    past_sessions(workspace, 1)
    assert await index_in_background() is None
    assert not index_path().exists()


def test_the_indexer_stops_once_its_parent_is_gone(workspace: Path) -> None:
    """Started with another process as its parent (as if pleat had died): it commits nothing
    more; started by its real parent, it does the whole work."""
    made = past_sessions(workspace, 3)
    command, env = indexer_command(data_home())
    command[-2] = "1"  # not its parent
    orphan = subprocess.run(command, env=env, cwd=data_home(), capture_output=True, timeout=60)
    assert orphan.returncode == 0, orphan.stderr
    assert indexed() == []
    command[-2] = str(os.getpid())
    subprocess.run(command, env=env, cwd=data_home(), check=True, timeout=60)
    assert indexed() == sorted(made)


def test_no_secret_and_no_workspace_code_reaches_the_indexer(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-passed-on")
    monkeypatch.setenv("PYTHONPATH", str(workspace))
    past_sessions(workspace, 2)
    # Code a hostile workspace or data directory might hold under the module's name.
    for root in (workspace, data_home()):
        (root / "sessions").mkdir(exist_ok=True)
        (root / "sessions" / "__init__.py").write_text("")
        (root / "sessions" / "index_build.py").write_text(
            f"open({str(root / 'ran')!r}, 'w').write('ran')\n"
        )
    command, env = indexer_command(data_home())
    assert "OPENAI_API_KEY" not in env and str(workspace) not in env["PYTHONPATH"]
    assert command[:4] == [sys.executable, "-P", "-m", "sessions.index_build"]
    subprocess.run(command, env=env, cwd=data_home(), check=True, timeout=60)
    assert not (workspace / "ran").exists() and not (data_home() / "ran").exists()
    assert len(indexed()) == 2


async def test_a_relative_data_home_is_indexed_where_it_is(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLEAT_HOME given relative: the indexer, which runs inside it, still finds it (found by
    review: it made a second data home inside the first)."""
    made = past_sessions(workspace, 2)
    monkeypatch.chdir(data_home().parent)
    monkeypatch.setenv("PLEAT_HOME", data_home().name)
    assert await index_in_background() == 0
    assert indexed() == sorted(made)
