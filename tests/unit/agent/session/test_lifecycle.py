"""The session runtime's life without any UI: a project's hooks asked about through the asking
protocol (a scripted front end here), used once allowed and remembered; SessionStart and SessionEnd
run as real processes; a switch ends the session it left; the close ends the run's session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.permissions.plan_mode import PlanVerdict
from agent.permissions.policy import Permissions
from agent.session import lifecycle as life
from agent.session.asking import Answer, SessionApprovals
from agent.session.project_questions import ProjectQuestion
from agent.session.runtime import SessionController
from agent.session.startup import Startup
from tests.support.hook_support import hook, logged
from tests.support.scripted_server import ScriptedServer
from tests.support.tui_support import make_config
from tools.ask_user import Question, Reply


class ScriptedAsking:
    """A front end whose user answers project questions from a list (and nothing else)."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[ProjectQuestion] = []

    async def approve(self, request: Any) -> Answer:
        return "no"

    async def review_plan(self, plan: str) -> PlanVerdict:
        return PlanVerdict("keep_planning")

    async def ask_user(self, question: Question) -> Reply | None:
        return None

    async def approve_project(self, question: ProjectQuestion) -> bool:
        self.asked.append(question)
        return self.answers.pop(0)


def project_hooks(workspace: Path, logs: Path) -> None:
    start, end = hook(logs, "start"), hook(logs, "end")
    settings = {
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": start}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": end}]}],
        }
    }
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))


def controller_for(
    server: ScriptedServer, workspace: Path, asking: ScriptedAsking
) -> SessionController:
    config = make_config(server)
    approvals = SessionApprovals(asking, Permissions.from_settings("ask", (), ()))
    controller = SessionController(Startup(config), workspace, approvals)
    controller.open()
    return controller


async def test_a_projects_hooks_run_once_allowed_through_the_asking_protocol(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    project_hooks(workspace, logs)
    asking = ScriptedAsking(True)
    controller = controller_for(server, workspace, asking)
    agent = controller.agent
    assert agent is not None
    said = await life.approve_project_files(controller, asking)
    assert [q.kind for q in asking.asked] == ["hooks"]
    assert any("SessionStart" in item for item in asking.asked[0].items)
    assert not any(n.level == "error" for n in said)
    assert life.arm_session_start(controller, "startup") is None
    await life.session_start(agent)
    assert [e["hook_event_name"] for e in logged(logs, "start")] == ["SessionStart"]
    left = controller.agent
    controller.new()  # a switch: the session it left ends ("clear", as Claude Code's /clear)
    ended = life.arm_session_start(controller, "clear")
    assert ended is left and ended is not None
    await life.session_end(ended, life.SESSION_END_REASONS["clear"])
    await life.close(controller)
    ends = logged(logs, "end")
    assert [e["reason"] for e in ends] == ["clear", "other"]
    assert controller.session is None  # closed: lock released, journal flushed


async def test_hooks_not_allowed_do_not_run_and_are_asked_again_next_time(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    project_hooks(workspace, logs)
    first = ScriptedAsking(False)
    controller = controller_for(server, workspace, first)
    said = await life.approve_project_files(controller, first)
    assert any("hooks do not run; asked again next time" in n.message for n in said)
    await life.close(controller)
    assert logged(logs, "end") == []  # not allowed: never ran
    again = ScriptedAsking(True)
    controller = controller_for(server, workspace, again)
    await life.approve_project_files(controller, again)
    assert len(again.asked) == 1  # asked again, since no was not remembered
    await life.close(controller)
    assert [e["reason"] for e in logged(logs, "end")] == ["other"]
