"""/undo and /rewind in the TUI: choose, ask about files changed since pleat, show the result.

The work is agent/conversation/rewind.py's; here are only the questions (tui/screens/rewind.py) and
what the
conversation shows after: the rewound conversation, a line per file, the request back in the
prompt when the conversation went back.
"""

from __future__ import annotations

from agent.conversation.rewind import (
    REWIND_USAGE,
    Rewinder,
    RewindOutcome,
    RewindRefused,
    one_line,
    parse_rewind,
)
from sessions.lineage import Scope
from tui import lifecycle
from tui.host import Host

# How /rewind is written, for the error that answers a malformed one.


def _rewinder(host: Host) -> Rewinder:
    assert host.agent is not None and host.session is not None
    return Rewinder(host.agent, host.session)


async def undo(host: Host, arg: str) -> None:
    """/undo: the last turn's file changes and messages go; its request comes back."""
    if arg:
        await host.conversation.add_notice(
            f"/undo takes no argument (further back: {REWIND_USAGE})", "error"
        )
        return
    await _rewind(host, _rewinder(host), None, "both")


async def rewind(host: Host, arg: str) -> None:
    """/rewind: pick a turn (or give `N [scope]`), then what to take back."""
    from tui.screens.rewind import RewindScopeScreen, RewindScreen

    rewinder = _rewinder(host)
    words = arg.split()
    if words:
        parsed = parse_rewind(arg)
        if parsed is None:
            await host.conversation.add_notice(f"usage: {REWIND_USAGE}", "error")
            return
        await _rewind(host, rewinder, *parsed)
        return
    turns = await rewinder.turns()
    if not turns:
        await host.conversation.add_notice("nothing to rewind to: no request yet")
        return
    number = await host.ask_screen(RewindScreen(turns))
    if number is None:
        return
    chosen = await host.ask_screen(RewindScopeScreen(number, turns[number - 1]))
    if chosen == "fold":
        fold_up_to(host, turns[number - 1].id)
    elif chosen is not None:
        await _rewind(host, rewinder, number, chosen)


def fold_up_to(host: Host, request: str) -> None:
    """ "Fold up to here": the conversation before the request `request` (a message id) is
    folded into a summary; the request and what follows stay word for word; no file changes."""
    from tui.tasks import run_compaction

    assert host.agent is not None
    host.start_work("compact", run_compaction(host, host.agent, "manual", None, before=request))


async def _rewind(host: Host, rewinder: Rewinder, number: int | None, scope: Scope) -> None:
    from tui.screens.rewind import ChangedFilesScreen

    what = "undo" if number is None else "rewind"
    try:
        plan = await rewinder.plan(number, scope)
    except RewindRefused as error:
        await host.conversation.add_notice(f"cannot {what}: {error}", "error")
        return
    overwrite: list[str] = []
    if plan.conflicts:
        answer = await host.ask_screen(ChangedFilesScreen(plan.conflicts))
        if answer is None:
            await host.conversation.add_notice(f"{what} cancelled: nothing changed")
            return
        overwrite = answer
    try:
        outcome = await rewinder.apply(plan, overwrite)
    except RewindRefused as error:
        await host.conversation.add_notice(f"cannot {what}: {error}", "error")
        return
    await _show(host, outcome, undo=number is None)


async def _show(host: Host, outcome: RewindOutcome, *, undo: bool) -> None:
    """The conversation as it is now, then what happened, one notice per line."""
    if outcome.plan.history is not None:
        from agent.conversation.transcript import describer, entries_from_history

        agent, session = host.agent, host.session
        assert agent is not None and session is not None
        entries = entries_from_history(agent.history, describer(agent), session.archive)
        await host.conversation.reset(entries)
        lifecycle.show_tasks(host)  # the task list as the rewound history holds it
    lines = [outcome.summary(undo)]
    if outcome.plan.history is not None and outcome.prompt:
        if host.prompt.text.strip():  # a draft is never overwritten: the request is one ↑ away
            host.prompt.remember(outcome.prompt)
            lines.append("your draft stays in the input; the request is one ↑ away")
        else:
            host.prompt.value = outcome.prompt  # the request, to edit and send again
    lines += [f"restored {one_line(path)}" for path in outcome.restored]
    lines += [f"removed {one_line(path)}" for path in outcome.removed]
    lines += [f"kept your version of {one_line(path)}" for path in outcome.kept]
    lines += [f"note: {note}" for note in outcome.plan.notes]
    await host.conversation.add_notice("\n".join(lines))
    for line in outcome.failed:
        await host.conversation.add_notice(f"not restored: {one_line(line)}", "error")
    await lifecycle.refresh_meter_soon(host)
