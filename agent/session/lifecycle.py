"""A session's life, for every front end: what is said once a session opens (repairs, instruction
files, the sandbox, rule problems), the SessionStart and SessionEnd hooks (the session a switch
left included), the project's files approved through the asking protocol, and the end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.events import Notice

if TYPE_CHECKING:
    from agent.events import HookNotice
    from agent.session.asking import Asking
    from agent.session.runtime import SessionController
    from agent.turn.loop import Agent

# Claude Code's SessionEnd reason for the session a switch leaves, by what opened the next one.
SESSION_END_REASONS = {"clear": "clear", "resume": "resume", "fork": "other", "startup": "other"}


def hook_notices(said: list[HookNotice]) -> list[Notice]:
    return [Notice(n.message, "error" if n.failed else "note") for n in said]


def opened_notices(controller: SessionController, repairs: list[str], source: str) -> list[Notice]:
    """What a front end says once a session opened (`source`: "startup", "resume", "clear" for
    /new, "fork"): the repairs made on resuming, the instruction files in use, and at startup
    the sandbox not enforced here and the added directories left out."""
    from agent.turn.instruction_set import instruction_notes

    agent = controller.agent
    assert agent is not None
    notices = [Notice(f"resumed with a repair: {note}") for note in repairs]
    notices += [Notice(note) for note in instruction_notes(agent.context.workspace)]
    if source == "startup" and controller.sandbox.unenforced:  # once: every command asks
        notices.append(Notice(controller.sandbox.describe()))
    if source == "startup":
        notices += [Notice(problem, "error") for problem in controller.added_problems]
    return notices


def rule_notices(agent: Agent) -> list[Notice]:
    """A configured rule that can never match, an agent definition or a skill skipped."""
    from agent.skills.tool import skill_notes
    from agent.subagents.team import definition_notes

    notices = [Notice(p, "error") for p in agent.permissions.rule_problems(agent.registry)]
    notices += [Notice(note) for note in definition_notes(agent.registry)]
    notices += [Notice(note) for note in skill_notes(agent.registry)]
    return notices


def arm_session_start(controller: SessionController, source: str) -> Agent | None:
    """The session opened (`source` as above): its SessionStart hooks are due (the first prompt
    waits for them); returns the agent of the session a switch left, whose SessionEnd hooks the
    front end runs next (session_end), or None."""
    agent = controller.agent
    assert agent is not None
    left, controller.left = controller.left, None
    agent.hooks.session_started(source)
    return left


async def session_start(agent: Agent) -> list[Notice]:
    """Run the session's SessionStart hooks now (unless its first prompt ran them already)."""
    return hook_notices(await agent.hooks.run_session_start())


async def session_end(agent: Agent, reason: str) -> list[Notice]:
    """Run the SessionEnd hooks of a session left or closed (Claude Code's `reason`)."""
    return hook_notices(await agent.hooks.session_end(reason))


async def approve_project_files(controller: SessionController, asking: Asking) -> list[Notice]:
    """Say what the settings and the hooks' sources left out, then ask (through the front end's
    asking) about each project settings file and each enabled plugin whose hooks or servers
    were never approved in this content; those allowed run from now on and are remembered.
    Once per run."""
    from agent.hooks.claude_settings import approve
    from agent.session.project_questions import hooks_question

    hooks = controller.hooks
    notices = [Notice(note, "error") for note in (*controller.startup.notes, *hooks.notes)]
    hooks.notes = []
    waiting, controller.hooks_waiting = controller.hooks_waiting, ()
    for found in waiting:
        if not await asking.approve_project(hooks_question(found)):
            notices.append(Notice(f"{found.label}'s hooks do not run; asked again next time"))
            continue
        hooks.add(found.specs)
        _hooks_added(controller)
        notices += await _remember(approve, found)
    notices += await _approve_plugins(controller, asking)
    if (idle := hooks.idle_note()) is not None:
        notices.append(Notice(idle))
    return notices


async def _approve_plugins(controller: SessionController, asking: Asking) -> list[Notice]:
    from agent.plugins.parts import approve
    from agent.session.project_questions import plugin_question

    notices: list[Notice] = []
    waiting, controller.plugins_waiting = controller.plugins_waiting, []
    for parts in waiting:
        if not await asking.approve_project(plugin_question(parts)):
            line = f"{parts.label}'s hooks and servers do not run; asked again next time"
            notices.append(Notice(line))
            continue
        controller.hooks.add(parts.hooks)
        _hooks_added(controller)
        controller.mcp.add(parts.servers)
        if controller.mcp_opened:
            await controller.mcp.start()
        notices += await _remember(approve, parts)
    return notices


def _hooks_added(controller: SessionController) -> None:
    if controller.agent is not None:  # a SessionStart among them runs before the next prompt
        controller.agent.hooks.hooks_added()


async def _remember(approve: Callable[[Any], object], subject: object) -> list[Notice]:
    """Keep an approval; one line when it cannot be kept (used now all the same)."""
    try:
        await asyncio.to_thread(approve, subject)
    except OSError as error:
        return [Notice(f"cannot remember the approval: {error}", "error")]
    return []


async def close(controller: SessionController, reason: str = "other") -> list[Notice]:
    """The end of the run's session: its SessionEnd hooks, its servers stopped, the session
    closed (background commands killed, journal flushed, lock released)."""
    agent = controller.agent
    try:
        return await session_end(agent, reason) if agent is not None else []
    finally:
        if agent is not None:  # a fold still being made is of no use now (nor journaled)
            agent.folds.end("the session ended")
        await controller.mcp.stop()
        await controller.language_servers.close()
        await asyncio.to_thread(controller.close)
