"""The Notification hook event: pleat calls the user back (a turn ended, a question waits) and runs
the `Notification` hooks with Claude Code's payload: the common fields, `message`, `title` and
`notification_type`, which a hook's matcher selects (`permission_prompt`, `idle_prompt`).

Like Claude Code's, a Notification hook only observes: what it prints is not read, exit 2's
stderr is shown to the user, and nothing it says changes the turn.
"""

from __future__ import annotations

from typing import Literal

from agent.hooks.runner import HookRunner
from agent.permissions.modes import Mode

NOTIFICATION = "Notification"
# Claude Code's notification types pleat sends: a question waits for the user (an approval, a
# plan, any question), or the turn ended and pleat waits for the next prompt.
NotificationType = Literal["permission_prompt", "idle_prompt"]
# The payload's title, as Claude Code sends "Claude Code".
TITLE = "pleat"


async def run_notification_hooks(
    runner: HookRunner | None, mode: Mode, message: str, kind: NotificationType
) -> list[str]:
    """Run the Notification hooks whose matcher selects `kind`; the lines for the user (a
    failure, exit 2's stderr, a `systemMessage`), terminal-safe as HookRun gives them."""
    if runner is None or not runner.has(NOTIFICATION):
        return []
    fields = {"message": message, "title": TITLE, "notification_type": kind}
    lines: list[str] = []
    for run in await runner.run(NOTIFICATION, mode, fields, (kind,)):
        if run.failed:
            lines.append(run.failure())
        elif run.blocked and run.reason:
            lines.append(f"{run.spec.name}: {run.reason}")
        if run.system_message:
            lines.append(f"{run.spec.name}: {run.system_message}")
    return lines
