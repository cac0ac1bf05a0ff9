"""Skills (issue 27 item 3): a skill copied from anthropics/skills loads by name, its body reaching
the model only in the skill call's result; a user's skill's allowed-tools run unasked until the
next prompt and its files are read by path outside the workspace; a project's allowed-tools are
not honoured; /skills lists them headless. Headless runs (in process) and the real agent against
the scripted server, real files in tmp dirs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.config import Config
from agent.permissions.policy import Permissions, refuse_headless
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import command, exchange, make_app, started, wait_for
from tui.widgets.notice import Notice

# Slow: headless runs, agent turns and the TUI against the scripted server (in process), ~6 s.
pytestmark = pytest.mark.slow

VENDORED = Path(__file__).parent.parent / "data" / "skills" / "brand-guidelines"
# A line of the vendored skill's body (never in its description).
BODY_LINE = "Applies Poppins font to headings (24pt and larger)"
DESCRIPTION_START = "Applies Anthropic's official brand colors and typography"


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def everything_sent(body: dict[str, Any]) -> str:
    return str(body.get("messages")) + str(body.get("tools"))


def write_skill(directory: Path, front: str, body: str = "Do the thing.\n") -> Path:
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\n{front}\n---\n{body}")
    return directory


def test_a_vendored_skill_loads_by_name_and_only_then(
    workspace: Path, server: ScriptedServer
) -> None:
    shutil.copytree(VENDORED, workspace / ".claude" / "skills" / "brand-guidelines")
    server.push(ToolCalls([("skill", {"name": "brand-guidelines"})]), Text("styled"))
    run = run_pleat(workspace, server, "-p", "style the landing page")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "styled"
    first, second = server.requests[0].body, server.requests[1].body
    system = first["messages"][0]["content"]
    assert "- brand-guidelines: " + DESCRIPTION_START in system  # the name and description
    assert BODY_LINE not in everything_sent(first)  # the body: not before the call
    result = tool_results(server, 1)[-1]
    assert BODY_LINE in result and "#141413" in result
    loaded = 'Skill "brand-guidelines" loaded. Its files: .claude/skills/brand-guidelines/'
    assert result.startswith(loaded)
    assert BODY_LINE not in system and second["messages"][0]["content"] == system


def test_skills_lists_them_and_what_was_skipped(workspace: Path, server: ScriptedServer) -> None:
    shutil.copytree(VENDORED, workspace / ".pleat" / "skills" / "brand-guidelines")
    write_skill(workspace / ".claude" / "skills" / "nodesc", "name: nodesc")
    write_skill(workspace / ".claude" / "skills" / "broken", "name: broken\ndescription: 'open")
    run = run_pleat(workspace, server, "-p", "/skills")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "1 skill:"
    assert lines[1].startswith("- brand-guidelines (project, .pleat/skills/brand-guidelines): ")
    assert "note: skill .claude/skills/nodesc: no description" in run.stdout
    assert "note: skill .claude/skills/broken: line 3: a quote is not closed; skipped" in run.stdout
    assert not server.requests  # no model call for a listing
    assert "pleat: note: skill .claude/skills/nodesc: no description" in run.stderr
    as_json = run_pleat(workspace, server, "-p", "/skills", "--output-format", "json")
    result = json.loads(as_json.stdout)
    assert result["is_error"] is False and result["result"].startswith("1 skill:\n- brand")


async def test_a_user_skill_grants_its_tools_for_the_turn_and_its_files_are_readable(
    workspace: Path, server: ScriptedServer, pleat_home: Path, tmp_path: Path
) -> None:
    skill = write_skill(
        pleat_home / "skills" / "greet",
        "name: greet\ndescription: Greets in the house style.\nallowed-tools: Bash(echo:*), Read",
        "Say hello with echo, in the words of reference.md.\n",
    )
    (skill / "reference.md").write_text("Hello, house style!\n")
    (tmp_path / "secret.txt").write_text("not for the model\n")
    (skill / "escape.md").symlink_to(tmp_path / "secret.txt")
    (pleat_home / "config.toml").write_text("")  # beside the skills: not a skill's file
    server.push(
        ToolCalls([("skill", {"name": "greet"})]),
        ToolCalls([("run_command", {"command": "echo hi"})]),
        ToolCalls([("read_file", {"path": str(skill / "reference.md")})]),
        ToolCalls([("read_file", {"path": str(skill / "escape.md")})]),
        ToolCalls([("read_file", {"path": str(pleat_home / "config.toml")})]),
        Text("greeted"),
        ToolCalls([("run_command", {"command": "echo again"})]),
        Text("asked"),
    )
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, sandbox="off")
    session = Session.create(workspace, model=TEST_MODEL)
    permissions = Permissions.from_settings("ask", (), ())
    agent = build_agent(
        config, workspace, refuse_headless, session=session, permissions=permissions
    )
    try:
        _ = [event async for event in agent.run_turn("greet me")]
        results = tool_results(server, 5)
        assert results[0].startswith(f'Skill "greet" loaded. Its files: {skill}/')
        assert "run without asking: run_command(echo *), read_file" in results[0]
        assert results[1].startswith("hi")  # ran without asking (headless would refuse)
        assert "Hello, house style!" in results[2]  # outside the workspace, in the skill
        assert "outside" in results[3] and "not for the model" not in results[3]
        assert "outside the workspace" in results[4]  # beside the skills: not readable
        _ = [event async for event in agent.run_turn("once more")]
        again = tool_results(server, 7)[-1]
        assert again.startswith("refused: the user did not approve run_command")  # turn over
        assert permissions.skill_allow == []
    finally:
        session.close()


async def test_a_project_skill_grants_nothing(workspace: Path, server: ScriptedServer) -> None:
    write_skill(
        workspace / ".claude" / "skills" / "deploy",
        "name: deploy\ndescription: Deploys.\nallowed-tools: Bash",
    )
    server.push(
        ToolCalls([("skill", {"name": "deploy"})]),
        ToolCalls([("run_command", {"command": "echo deployed"})]),
        Text("no"),
    )
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, sandbox="off")
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, refuse_headless, session=session)
    try:
        _ = [event async for event in agent.run_turn("deploy it")]
    finally:
        session.close()
    loaded, command = tool_results(server, 2)
    assert "run without asking" not in loaded
    assert command.startswith("refused: the user did not approve run_command")


async def test_the_tui_lists_skills_and_loads_one(workspace: Path, server: ScriptedServer) -> None:
    shutil.copytree(VENDORED, workspace / ".claude" / "skills" / "brand-guidelines")
    write_skill(workspace / ".claude" / "skills" / "nodesc", "name: nodesc")
    server.push(ToolCalls([("skill", {"name": "brand-guidelines"})]), Text("styled"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)

        def shown() -> list[str]:
            return [str(notice.entry.text) for notice in app.query(Notice)]

        await wait_for(pilot, lambda: any("nodesc: no description" in n for n in shown()), "note")
        await command(pilot, app, "/skills")
        await wait_for(pilot, lambda: any(n.startswith("1 skill:") for n in shown()), "/skills")
        listing = next(n for n in shown() if n.startswith("1 skill:"))
        assert "- brand-guidelines (project, .claude/skills/brand-guidelines): " in listing
        assert not server.requests
        await exchange(pilot, app, "style the page")
    assert BODY_LINE not in everything_sent(server.requests[0].body)
    assert BODY_LINE in tool_results(server, 1)[-1]
