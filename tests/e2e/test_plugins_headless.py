"""Plugins in Claude Code's format (tests/data/plugins: build-kit, a command and agents;
context-hook, a SessionStart hook) added from a local marketplace and installed with
`pleat plugin`, then used headless against the scripted server: the command expands, the agents
are offered, the hook runs once approved."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.headless.exit_codes import EXIT_OK
from tests.support.pleat_process import pleat, run_pleat
from tests.support.plugin_market import MARKET, bare_repository, make_market
from tests.support.scripted_server import ScriptedServer, Text

# Slow (pleat's headless runs): left out of the fast set.
pytestmark = pytest.mark.slow

# What the context-hook plugin's SessionStart hook adds to the context.
HOOK_CONTEXT = "House rules from the context-hook plugin: explain each change in one line."
# A sentence of build-kit's command file, and what its $ARGUMENTS line becomes.
COMMAND_TEXT = "Build the feature the user asks for in four stages"


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == EXIT_OK, done.stderr
    return done


def installed(tmp_path: Path) -> Path:
    """The marketplace added and both plugins installed from the command line."""
    market = make_market(tmp_path / "market")
    added = ok(pleat("plugin", "marketplace", "add", str(market)))
    assert f"marketplace {MARKET} added: 2 plugins" in added.stdout
    for plugin in ("build-kit", "context-hook"):
        line = ok(pleat("plugin", "install", f"{plugin}@{MARKET}")).stdout
        assert line.startswith(f"installed {plugin}@{MARKET} 1.0.0, enabled")
    return market


def everything_sent(server: ScriptedServer) -> str:
    return json.dumps([request.body for request in server.requests])


def task_tool(server: ScriptedServer) -> str:
    tools = server.requests[0].body["tools"]
    return json.dumps(next(t for t in tools if t["function"]["name"] == "task"))


def test_an_installed_plugins_command_agents_and_hook_work_in_a_headless_run(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    market = installed(tmp_path)
    # The copy runs, not the source: a change there after the install changes nothing.
    source_command = market / "plugins" / "build-kit" / "commands" / "build-kit.md"
    source_command.write_text("---\ndescription: changed\n---\nCHANGED AFTER INSTALL\n")
    listed = ok(pleat("plugin", "list")).stdout.splitlines()
    assert listed == [
        f"build-kit@{MARKET} 1.0.0  enabled",
        f"context-hook@{MARKET} 1.0.0  enabled",
    ]

    server.push(Text("planned"))
    done = ok(run_pleat(workspace, server, "-p", "/build-kit:build-kit a login page"))
    assert done.stdout.strip() == "planned"
    sent = server.requests[0].messages
    prompt = str(sent[-1]["content"])
    assert COMMAND_TEXT in prompt and "Feature asked for: a login page" in prompt
    assert "CHANGED AFTER INSTALL" not in everything_sent(server)
    # Its three agents are offered to the model in the task tool.
    for agent in ("surveyor", "planner", "checker"):
        assert agent in task_tool(server)
    # The SessionStart hook ran (approved by --yes, which names it) and its context was sent.
    assert HOOK_CONTEXT in everything_sent(server)
    assert f"plugin context-hook@{MARKET} runs (approved by --yes)" in done.stderr
    assert "session-start.sh" in done.stderr

    # The bare name reaches the plugin's command too: no other command has it.
    server.push(Text("again"))
    ok(run_pleat(workspace, server, "-p", "/build-kit a search box"))
    assert "Feature asked for: a search box" in str(server.requests[-1].messages[-1]["content"])


def test_an_unapproved_plugin_hook_does_not_run_and_a_line_says_how_to_allow_it(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    installed(tmp_path)
    server.push(Text("fine"))
    done = ok(run_pleat(workspace, server, "-p", "hello", yes=False))
    assert HOOK_CONTEXT not in everything_sent(server)
    assert f"plugin context-hook@{MARKET} has 1 hook" in done.stderr
    assert "pass --yes" in done.stderr


def test_a_disabled_plugin_offers_nothing(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    installed(tmp_path)
    ok(pleat("plugin", "disable", f"build-kit@{MARKET}"))
    ok(pleat("plugin", "disable", f"context-hook@{MARKET}"))
    server.push(Text("sent as written"))
    done = ok(run_pleat(workspace, server, "-p", "/build-kit:build-kit x"))
    assert "is not a command" in done.stderr
    assert "surveyor" not in task_tool(server)
    assert HOOK_CONTEXT not in everything_sent(server)


def test_a_marketplace_from_a_git_repository_installs_its_plugin(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    repository = bare_repository(make_market(tmp_path / "work"), tmp_path / "market.git")
    ok(pleat("plugin", "marketplace", "add", str(repository)))
    listing = ok(pleat("plugin", "marketplace", "list")).stdout
    assert listing.startswith(f"{MARKET}  (git: {repository}")
    shutil.rmtree(repository)  # cloned: the repository is no longer needed to install
    ok(pleat("plugin", "install", f"build-kit@{MARKET}"))
    server.push(Text("ok"))
    ok(run_pleat(workspace, server, "-p", "/build-kit:build-kit git"))
    assert COMMAND_TEXT in str(server.requests[0].messages[-1]["content"])


def test_bad_plugin_commands_fail_with_one_line(tmp_path: Path) -> None:
    for args, said in (
        (("install", "build-kit"), "plugin@marketplace"),
        (("install", "build-kit@nowhere"), "no marketplace named 'nowhere'"),
        (("enable", "x@y"), "x@y is not installed"),
        (("marketplace", "add", str(tmp_path / "missing")), "cannot clone"),
    ):
        done = pleat("plugin", *args)
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
