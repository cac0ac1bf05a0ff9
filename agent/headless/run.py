"""`pleat -p`: one request without a UI; the answer streams to stdout, progress to stderr."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import io
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, TextIO

from agent.assemble import permissions_from
from agent.commands.builtin import HEADLESS_NAMES
from agent.commands.builtin_prompts import PROMPTS
from agent.config import Config, ConfigError, config_path
from agent.config_file import toml_string
from agent.events import (
    ErrorEvent,
    PromptBlocked,
    TurnDone,
)
from agent.headless.asking import NobodyToAsk
from agent.headless.builtin_run import run_command
from agent.headless.custom import CommandRefused, custom_prompt, tui_only_refusal, typed_command
from agent.headless.exit_codes import (
    EXIT_BUDGET,
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
)
from agent.headless.json_report import OutputFormat, Reporter, reporter_for
from agent.headless.mcp import headless_servers, with_servers
from agent.headless.progress import say_progress
from agent.hooks.claude_settings import waiting_line
from agent.images.prompt import attach_images
from agent.mcp.manager import McpServers
from agent.model.discovery import first_model
from agent.plugins.loaded import Plugins, load_plugins
from agent.session.asking import SessionApprovals
from agent.session.lifecycle import opened_notices, rule_notices
from agent.session.runtime import SessionController
from agent.session.startup import Startup
from agent.stop_signals import Stopped, on_stop_signals
from agent.turn.goal import CLEAR, set_goal
from agent.turn.loop import Agent
from sessions.lock import SessionBusy
from sessions.store import SessionError
from tools.background_tools import close_background
from tools.sandbox.policy import Sandbox

# Error kinds that are the user's configuration to fix rather than a failed request.
CONFIG_KINDS = frozenset({"auth", "config"})
# Said after "no model configured" when discovery found nothing either (with an api_base
# configured, only that server is asked).
NONE_FOUND = (
    "; none found either (no provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY is set, "
    "and no server in local_model_servers answered)"
)
NONE_AT_API_BASE = "; none found either (the server at api_base lists no model)"


async def run_turn(
    agent: Agent,
    prompt: str,
    report: Reporter,
    err: TextIO,
    meta: dict[str, str] | None = None,
    images_from: str | None = None,
) -> int:
    """One request, its events to the run's `report` (the answer, its lines, the result), with
    a line on `err` for the images attached (those `images_from` names: by default the
    prompt's); `meta` is kept with the request (a custom command's typed line and file)."""
    named = prompt if images_from is None else images_from
    attached = await attach_images(named, agent.context.workspace, agent.attachments)
    if attached.images:
        err.write(f"pleat: {attached.summary()}\n")
    for note in attached.notes:
        err.write(f"pleat: note: {note}\n")
    error: ErrorEvent | None = None
    done: TurnDone | None = None
    agent.registry.sync()  # the tools the turn offers (MCP servers' too), for the init line
    report.start()
    try:
        async for event in agent.run_turn(prompt, attached.images, meta):
            report.event(event)
            done = event if isinstance(event, TurnDone) else done
            if isinstance(event, ErrorEvent) and event.kind == "truncated":
                err.write(f"pleat: note: {event.message}\n")  # a notice; the answer stands
            elif isinstance(event, ErrorEvent):
                error = event
            elif isinstance(event, PromptBlocked):  # by a UserPromptSubmit hook: not sent
                error = ErrorEvent("hook", event.message)
    finally:  # also when interrupted: the next line on the terminal starts clean
        report.end_text()
        for used in agent.folds.end("the run ended"):  # a fold made for nothing is billed
            report.event(used, progress=False)
    report.finish(done, error.message if error else None, kind=error.kind if error else None)
    if error is None:
        return EXIT_OK
    print(f"pleat: error: {error.message}", file=err)
    if error.kind == "budget":
        return EXIT_BUDGET
    return EXIT_CONFIG if error.kind in CONFIG_KINDS else EXIT_FAILED


async def after_session_start(
    agent: Agent, work: Callable[[], Coroutine[Any, Any, int]], err: TextIO
) -> int:
    """The session's SessionStart hooks (what they say on `err`), then the run's request or
    command."""
    for notice in await agent.hooks.run_session_start():
        say_progress(notice, err)
    return await work()


async def until_session_end(agent: Agent, work: Coroutine[Any, Any, int]) -> int:
    """Run `work`, then stop its background commands and language servers and run the session's
    SessionEnd hooks (reason "other", as Claude Code gives a `-p` run's end), also when the run
    fails or is stopped (Ctrl+C, SIGTERM); what they say goes to stderr."""
    try:
        return await work
    finally:
        await close_background(agent.registry, "the run ended")
        if agent.context.language_servers is not None:
            await agent.context.language_servers.close()
        for notice in await agent.hooks.session_end("other"):
            say_progress(notice, sys.stderr)


def session_runtime(
    config: Config,
    workspace: Path,
    approve_everything: bool,
    resume: str | None,
    continue_latest: bool,
    plugins: Plugins,
) -> SessionController:
    """The run's session runtime (agent/session/runtime.py, as every front end's): nobody to ask
    (calls that would ask are refused with the fix), --yes approving the project's hooks and the
    plugins' parts as it does .mcp.json (unless a run wrote them), every MCP server at once."""
    startup = Startup(config, None, resume, continue_latest)
    # Calls the mode and rules leave to ask are refused, with the fix (nobody to ask).
    permissions = permissions_from(config, full_auto=approve_everything)
    approvals = SessionApprovals(NobodyToAsk(), permissions)

    def servers(sandbox: Sandbox) -> McpServers:
        return headless_servers(
            config.mcp_servers,
            workspace,
            approve_everything=approve_everything,
            err=sys.stderr,
            sandbox=sandbox,
        )

    return SessionController(
        startup,
        workspace,
        approvals,
        approve_all=approve_everything,
        servers=servers,
        plugins=plugins,
    )


def say_opened(controller: SessionController, repairs: list[str], err: TextIO) -> None:
    """What the open says on `err` (the session runtime's notices after an open, as headless
    lines), then what the hooks' and the plugins' sources left out or keep waiting for an
    approval nobody can give here."""
    from agent.plugins.parts import waiting_line as plugin_waiting

    for notice in opened_notices(controller, repairs, "startup"):
        kind = (
            "note: "
            if notice.level == "error" or notice.message == sandbox_line(controller)
            else ""
        )
        print(f"pleat: {kind}{notice.message}", file=err)
    hooks = controller.hooks
    lines = [*hooks.notes, *map(waiting_line, controller.hooks_waiting)]
    lines += map(plugin_waiting, controller.plugins_waiting)
    if (idle := hooks.idle_note()) is not None:
        lines.append(idle)
    for line in lines:
        print(f"pleat: note: {line}", file=err)


def sandbox_line(controller: SessionController) -> str | None:
    sandbox = controller.sandbox
    return sandbox.describe() if sandbox.unenforced else None


async def until_terminated(work: Coroutine[Any, Any, int], stopped: Stopped) -> int:
    """Run `work`; a stop signal (SIGTERM, or SIGHUP when the terminal goes: agent.stop_signals)
    cancels it like Ctrl+C does (the agent answers open tool calls with 'cancelled' and notes
    the cut reply), records itself in `stopped`, and the run returns EXIT_TERMINATED, so the
    caller closes the session: journal fsynced, lock released."""
    task = asyncio.current_task()
    assert task is not None

    def on_stop(sent: signal.Signals) -> None:
        if stopped.signal is None:  # a second signal must not interrupt the cleanup of the first
            stopped.signal = sent
            task.cancel()

    remove = on_stop_signals(on_stop)
    if remove is None:
        return await work
    try:
        return await work
    except asyncio.CancelledError:
        if stopped.signal is None:
            raise
        return EXIT_TERMINATED
    finally:
        remove()


def say_if_heard(line: str, err: TextIO) -> None:
    """Print `line` on `err`, unless the terminal is gone (SIGHUP: writing to it fails)."""
    with contextlib.suppress(OSError):
        print(line, file=err, flush=True)


def with_found_model(config: Config) -> Config:
    """No model configured: the first one found (agent.model.discovery), said on stderr with
    how to keep it; the configuration unchanged when there is none."""
    found = asyncio.run(first_model(os.environ, config.local_model_servers, config.api_base))
    if found is None:
        return config
    keep = f"model = {toml_string(found.name)}"
    if found.api_base:
        keep += f" and api_base = {toml_string(found.api_base)}"
    print(
        f"pleat: no model configured: using {found.name} ({found.source}), the first one found; "
        f"to keep it, set {keep} in {config_path()} or pass --model",
        file=sys.stderr,
    )
    return dataclasses.replace(config, model=found.name, api_base=found.api_base)


# How every headless error line starts (agent/cli.py's fail() too): what a JSON result's error
# is read from when a slash command fails.
ERROR_PREFIX = "pleat: error: "


class _ErrorLines(io.StringIO):
    """Passes what a command writes to stderr through, keeping its lines (without the `pleat: `
    they start with) and its last error line."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self.last: str | None = None
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.startswith(ERROR_PREFIX):
                self.last = line[len(ERROR_PREFIX) :]
            self.lines.append(line.removeprefix("pleat: "))
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def run_headless(
    config: Config,
    workspace: Path,
    prompt: str,
    *,
    approve_everything: bool,
    resume: str | None = None,
    continue_latest: bool = False,
    output_format: OutputFormat = "text",
    goal: str | None = None,
    plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {}),
) -> int:
    """One headless run: `prompt` (a request, a built-in or a custom command) in a new or
    resumed session; `goal` (--goal, checked: sessions/goal.py) set first ("clear" drops it);
    `plugin_settings`: Claude Code's enabledPlugins and extraKnownMarketplaces (its settings)."""
    plugins = load_plugins(*plugin_settings)  # their commands are typed like a file's
    typed = typed_command(workspace, prompt, sys.stderr, plugins.command_sources())
    refused = tui_only_refusal(typed)
    if refused is not None:  # before a session is opened: nothing is asked, nothing is kept
        print(f"{ERROR_PREFIX}{refused}", file=sys.stderr)
        return EXIT_CONFIG
    if not config.model:
        config = with_found_model(config)
    builtin = typed.builtin if typed is not None else None
    command = f"/{builtin.name}" if builtin is not None else ""
    focus = typed.arguments if typed is not None else ""
    try:
        config.model_settings()  # no model: say so before anything of a session is made
        controller = session_runtime(
            config, workspace, approve_everything, resume, continue_latest, plugins
        )
        _, notes = controller.open()
    except (ConfigError, SessionError, SessionBusy) as error:
        found_none = "" if config.model else NONE_AT_API_BASE if config.api_base else NONE_FOUND
        print(f"pleat: error: {error}{found_none}", file=sys.stderr)
        return EXIT_CONFIG
    agent, session, mcp = controller.agent, controller.session, controller.mcp
    assert agent is not None and session is not None
    say_opened(controller, notes or [], sys.stderr)
    stopped = Stopped()
    try:
        if goal is not None:  # journaled, so --continue keeps it
            set_goal(agent, None if goal == CLEAR else goal)
        for notice in rule_notices(agent):
            print(f"pleat: note: {notice.message}", file=sys.stderr)
        report = reporter_for(
            output_format,
            agent,
            session.id,
            sys.stdout,
            sys.stderr,
            mcp=mcp,
            commands=[f"/{name}" for name in HEADLESS_NAMES if name not in PROMPTS],
        )
        handler = builtin is not None and builtin.headless and builtin.name not in PROMPTS
        errors = _ErrorLines(sys.stderr)  # a command's error line becomes its result's
        if handler:
            report.start()
            work = functools.partial(
                run_command,
                agent,
                session,
                command[1:],
                focus.strip(),
                report,
                report.answer_out,
                errors,
                typed=prompt.strip(),
            )
        else:
            try:
                custom = custom_prompt(agent, typed, prompt, sys.stderr)
            except CommandRefused as error:
                print(f"pleat: error: {error}", file=sys.stderr)
                return EXIT_CONFIG
            if custom is None:
                work = functools.partial(run_turn, agent, prompt, report, sys.stderr)
            else:
                work = functools.partial(
                    run_turn, agent, custom.text, report, sys.stderr, custom.meta, custom.images
                )
        agent.hooks.session_started("resume" if resume or continue_latest else "startup")
        started = until_session_end(agent, after_session_start(agent, work, sys.stderr))
        served = with_servers(mcp, agent, started, sys.stderr)
        code = asyncio.run(until_terminated(served, stopped))
        if handler:
            report.command_finished(command, code, errors.lines, errors.last)
    except KeyboardInterrupt:
        print("\npleat: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        controller.close()
    if code == EXIT_TERMINATED:  # said once the journal is fsynced and the lock released
        line = f"pleat: terminated ({stopped.name}); session saved: pleat --resume {session.id}"
        say_if_heard(line, sys.stderr)
    return code
