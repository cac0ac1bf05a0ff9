"""`pleat -p` with no model configured: the first model found is used and said in one line on
stderr (with how to keep it); the entry point in process, discovery asking the scripted server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.config import config_path
from tests.support.constants import TEST_MODEL
from tests.support.pleat_process import pleat
from tests.support.scripted_server import ScriptedServer, Text

# Slow: pleat's headless runs (litellm's import takes seconds, once per worker).
pytestmark = pytest.mark.slow


def pleat_without_a_model(
    workspace: Path, servers: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`pleat -p hi` with no model, no api_base and no key configured; discovery asks
    `servers` (PLEAT_LOCAL_MODEL_SERVERS)."""
    return pleat(
        "-p", "hi", "--cwd", str(workspace), env={"PLEAT_LOCAL_MODEL_SERVERS": servers, **env}
    )


def test_the_first_server_found_answers_and_stderr_says_so(workspace: Path) -> None:
    # No key required, none configured: pleat sends a placeholder the OpenAI client needs.
    with ScriptedServer(models={TEST_MODEL}) as server:
        server.push(Text("hello from a discovered model"))
        done = pleat_without_a_model(workspace, server.base_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello from a discovered model"
    assert done.stderr.splitlines() == [
        f"pleat: no model configured: using openai/{TEST_MODEL} (served by OpenAI-compatible at "
        f"{server.base_url}), the first one found; to keep it, set model = "
        f'"openai/{TEST_MODEL}" and api_base = "{server.base_url}" in {config_path()} '
        "or pass --model"
    ]
    assert server.listings >= 1
    assert [r.body["model"] for r in server.requests] == [TEST_MODEL]
    assert server.requests[0].headers["authorization"] == "Bearer pleat-no-key"


def test_a_configured_key_is_what_the_found_server_gets(workspace: Path) -> None:
    key = "sk-local-0123456789abcdef"
    with ScriptedServer(api_key=key, models={TEST_MODEL}) as server:
        server.push(Text("ok"))
        done = pleat_without_a_model(workspace, server.base_url, PLEAT_API_KEY=key)
    assert done.returncode == 0, done.stderr
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"


def test_a_provider_key_wins_over_a_local_server(workspace: Path) -> None:
    """With ANTHROPIC_API_KEY set, pleat picks Anthropic's model and asks no server; a spending
    cap far below one request's price stops the run before any call leaves the machine."""
    with ScriptedServer(models={TEST_MODEL}) as server:
        done = pleat_without_a_model(
            workspace,
            server.base_url,
            ANTHROPIC_API_KEY="sk-ant-test-0123456789",
            PLEAT_MAX_BUDGET_USD="0.000001",
        )
    assert server.listings == 0
    assert done.returncode == 3, done.stderr  # stopped at the cap, before the call
    assert done.stderr.splitlines()[0].startswith(
        "pleat: no model configured: using anthropic/claude-sonnet-4-5 (ANTHROPIC_API_KEY is set)"
    )


def test_a_configured_api_base_is_the_only_server_asked(workspace: Path) -> None:
    with ScriptedServer(models={TEST_MODEL}) as named, ScriptedServer(models={"x"}) as other:
        named.push(Text("from the named server"))
        done = pleat_without_a_model(
            workspace,
            other.base_url,
            PLEAT_API_BASE=named.base_url,
            OPENAI_API_KEY="sk-never-used-by-discovery",
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from the named server"
    assert other.listings == 0 and named.listings >= 1
    with ScriptedServer() as empty:  # lists no model
        done = pleat_without_a_model(workspace, "", PLEAT_API_BASE=empty.base_url)
    assert done.returncode == 2
    assert done.stderr.strip().endswith("none found either (the server at api_base lists no model)")
