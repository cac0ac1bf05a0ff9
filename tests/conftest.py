"""Fixtures: a scripted OpenAI server, a private PLEAT_HOME, a workspace, the recorded sessions.

The tests live in two folders: tests/unit (one module or tool, in process, in folders that
mirror the packages) and tests/e2e (the product through real sockets, processes or the TUI).
Their helpers are the tests.support package; this file holds fixtures only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.model.offline import prepare_offline_env
from tests.support.constants import RECORDED_SESSIONS, TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer
from tools.base import ToolContext

prepare_offline_env()


@pytest.fixture(scope="session")
def recorded_sessions_file() -> Path:
    """The recorded sessions every test that replays real sessions reads (one JSON a line)."""
    assert RECORDED_SESSIONS.is_file(), f"the recorded sessions are missing: {RECORDED_SESSIONS}"
    return RECORDED_SESSIONS


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as srv:
        yield srv


@pytest.fixture(autouse=True)
def pleat_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PLEAT_HOME, no PLEAT_* settings and no provider key from the
    developer's shell, no Claude Code settings of the developer's (CLAUDE_CONFIG_DIR points at
    an empty place: their hooks would run), and model discovery asks no server (a test that
    wants discovery names its own servers): nothing depends on what listens on this machine's
    usual ports."""
    for name in list(os.environ):
        if name.startswith("PLEAT_") or name.endswith("_API_KEY"):
            monkeypatch.delenv(name)
    home = tmp_path / "pleat-home"
    monkeypatch.setenv("PLEAT_HOME", str(home))
    monkeypatch.setenv("PLEAT_LOCAL_MODEL_SERVERS", "")
    monkeypatch.setenv("PLEAT_LSP", "off")  # no language server of the PATH's: tests name theirs
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    """A tool context for the workspace, with the default output budget and no session."""
    return ToolContext(workspace)


@pytest.fixture
def no_git_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Git must not find a repository above the temporary directory (it decides the mode)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
