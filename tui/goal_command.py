"""/goal in the TUI: show the session's goal, set it, or clear it (agent/turn/goal.py)."""

from __future__ import annotations

from agent.turn.goal import CLEAR, set_goal
from sessions.goal import GoalError, checked_goal
from tui.host import Host

# Said by /goal when the session has none.
NO_GOAL = "This session has no goal: /goal TEXT sets one (kept word for word through every fold)."


async def goal(host: Host, text: str) -> None:
    """`/goal` shows the goal, `/goal clear` drops it, `/goal TEXT` sets it: the status bar
    shows it, the journal keeps it, the model is told with the next prompt."""
    agent = host.agent
    assert agent is not None
    if not text.strip():
        said = NO_GOAL if agent.goal is None else f"goal: {agent.goal}"
        await host.conversation.add_notice(said)
        return
    if text.strip() == CLEAR:
        if agent.goal is None:
            await host.conversation.add_notice(NO_GOAL)
            return
        set_goal(agent, None)
        host.status.goal = ""
        await host.conversation.add_notice("goal cleared (the model is told with your next prompt)")
        return
    try:
        wanted = checked_goal(text)
    except GoalError as error:
        await host.conversation.add_notice(f"/goal: {error}", "error")
        return
    set_goal(agent, wanted)
    host.status.goal = wanted
    await host.conversation.add_notice(
        f"goal set (the model is told with your next prompt; every fold keeps it): {wanted}"
    )
