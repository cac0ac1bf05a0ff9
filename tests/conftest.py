"""Shared fixtures: a scripted OpenAI-compatible server, an isolated PLEAT_HOME, a workspace."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from scripted_server import ScriptedServer

from agent.offline import prepare_offline_env

prepare_offline_env()

# The key the scripted server accepts; tests scan written files to prove it never lands on disk.
TEST_API_KEY = "sk-test-0123456789abcdef"
TEST_MODEL = "scripted-model"
# The 60 recorded sessions; CI clones the repository with shared/ beside it.
RECORDED_SESSIONS = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "trajectories-dev60.jsonl.gz"
)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as srv:
        yield srv


@pytest.fixture(autouse=True)
def pleat_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PLEAT_HOME and no PLEAT_* settings from the developer's shell."""
    import os

    for name in list(os.environ):
        if name.startswith("PLEAT_"):
            monkeypatch.delenv(name)
    home = tmp_path / "pleat-home"
    monkeypatch.setenv("PLEAT_HOME", str(home))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
