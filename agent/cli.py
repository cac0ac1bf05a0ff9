"""The `pleat` command: parses arguments and dispatches; imports nothing heavy (fast --help).

The interactive UI lives in the layer above (tui/); the entry point there (tui.main) hands in
the function that starts it, so this module never imports the UI.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.permissions.modes import CLAUDE_ALIASES, MODES_LINE, YES_MODE, mode_named
from agent.terminal_text import VisibleStream

if TYPE_CHECKING:
    from agent.config import Config


class StartUI(Protocol):
    """Runs the interactive UI to its end and gives the exit code (tui.main.start_ui)."""

    def __call__(
        self,
        config: Config | None,
        workspace: Path,
        *,
        approve_everything: bool,
        resume: str | None,
        continue_latest: bool,
        notes: Sequence[str] = (),
        plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {}),
    ) -> int: ...


USAGE_EXAMPLES = """\
examples:
  pleat                                   start the terminal UI
  pleat --yes                             the terminal UI, approving every call without asking
  pleat -p "explain src/main.py"          one request, headless, answer on stdout
  pleat -p "fix the failing test" --yes   headless, allowing writes, edits and commands
  pleat -p "plan the refactor" --permission-mode plan    read-only: the answer is a plan
  pleat -p "fix it" --permission-mode accept-edits --allow "run_command(pytest *)"
  pleat --model openai/qwen --api-base http://localhost:8000/v1 -p "hi"
  pleat -p "what did we decide about the cache?" --continue
  pleat -p "/undo" --continue             take back the last request: its file changes, its messages
  pleat -p "go on" --continue --goal "all tests pass on 3.13"   set the goal the folds keep
  pleat sessions                          this workspace's sessions (--all for every one)
  pleat plugin install build-kit@market  a Claude Code plugin (pleat plugin --help)
  pleat acp                               serve editors over the Agent Client Protocol (Zed ...)
  pleat replay sessions.jsonl             recorded sessions through each compaction strategy
  pleat replay sessions.jsonl --report r.html   the same, charted in one offline page

configuration: defaults < $PLEAT_HOME/config.toml < PLEAT_* variables < flags
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pleat",
        description="A terminal coding agent whose long sessions never hit the context wall.",
        epilog=USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-p",
        "--prompt",
        metavar="PROMPT",
        help="run one request headless and print the answer ('-' reads stdin)",
    )
    parser.add_argument(
        "--goal",
        metavar="TEXT",
        help="with -p: set the session's goal, kept word for word through every fold and by "
        "--continue ('clear' drops it; in the UI: /goal)",
    )
    parser.add_argument(
        "--max-budget-usd",
        type=float,
        metavar="USD",
        help="stop before the model call that would take this run's spending past USD",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="with -p: the answer as text (default), one JSON result object, or one JSON event "
        "per line (Claude Code's field names)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="taken for Claude Code's scripts (claude -p --output-format stream-json --verbose): "
        "pleat's stream-json always carries every message",
    )
    parser.add_argument("--model", help="litellm model string, e.g. anthropic/claude-sonnet-4-5")
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    parser.add_argument(
        "--api-key", help="API key (default: the provider's usual variable, e.g. OPENAI_API_KEY)"
    )
    parser.add_argument("--cwd", type=Path, help="workspace directory (default: the current one)")
    parser.add_argument(
        "-w",
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="work in a git worktree of its own (.pleat/worktrees/NAME, branch pleat/NAME; "
        "NAME made up when left out): removed on leaving when unchanged, else kept or asked",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume this workspace's latest session",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",  # no id: the terminal UI opens the picker (tui/resume_picker.py PICK)
        metavar="ID",
        help="resume a session (ids: pleat sessions); without ID, pick one from a list",
    )
    parser.add_argument(
        "-y",
        "--yes",
        action="store_true",
        help=f"approve every write, edit and command without asking: --permission-mode {YES_MODE}",
    )
    parser.add_argument(
        "--permission-mode",
        metavar="MODE",
        help=f"{MODES_LINE} (default ask; headless, what asks is refused); Claude Code's names "
        f"too: {', '.join(CLAUDE_ALIASES)}",
    )
    parser.add_argument(
        "--sandbox",
        metavar="MODE",
        help="where commands run: workspace-write (default: they change only the workspace and "
        "reach no network), read-only, or off (as you)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        metavar="RULE",
        help='a permission rule whose calls run without asking, e.g. "run_command(pytest *)" '
        "(repeatable; added to config's allow)",
    )
    parser.add_argument(
        "--deny",
        action="append",
        metavar="RULE",
        help='a permission rule whose calls are refused in every mode, e.g. "run_command(rm *)" '
        "(repeatable; added to config's deny)",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        metavar="DIR",
        help="a directory outside the workspace the model may read and write, and its "
        "sandboxed commands write (repeatable; added to config's add_dirs)",
    )
    parser.add_argument(
        "--max-tool-iterations", type=int, help="model calls allowed in one request"
    )
    parser.add_argument(
        "--thinking",
        metavar="LEVEL|TOKENS",
        help="extended thinking: off (default), low, medium, high, or a token budget",
    )
    parser.add_argument(
        "--context-window",
        type=int,
        metavar="N",
        help="the model's window in tokens, for models litellm does not know",
    )
    parser.add_argument(
        "--compaction",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a compaction setting, e.g. threshold=0.7 (repeatable; docs/CONFIGURATION.md)",
    )
    return parser


def compaction_flags(args: argparse.Namespace) -> dict[str, str] | None:
    """--context-window and --compaction KEY=VALUE as a [compaction] table (strings are
    converted and checked by the config loader like environment values)."""
    table: dict[str, str] = {}
    for item in args.compaction:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--compaction expects KEY=VALUE, got {item!r}")
        table[key.strip()] = value.strip()
    if args.context_window is not None:
        table["context_window"] = str(args.context_window)
    return table or None


def config_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The flags that override the configuration (load_config's overrides; None: not given).
    Raises ValueError for a bad --compaction."""
    return {
        "model": args.model,
        "api_base": args.api_base,
        "api_key": args.api_key,
        "max_tool_iterations": args.max_tool_iterations,
        "thinking": args.thinking,
        "max_budget_usd": args.max_budget_usd,
        "permission_mode": YES_MODE if args.yes else args.permission_mode,
        "sandbox": args.sandbox,
        "allow": args.allow,
        "deny": args.deny,
        # Relative to where the shell is, as the user typed it (not to --cwd).
        "add_dirs": [os.path.abspath(os.path.expanduser(d)) for d in args.add_dir]
        if args.add_dir
        else None,
        "compaction": compaction_flags(args),
    }


@contextlib.contextmanager
def watching_project_files(workspace: Path) -> Iterator[None]:
    """Notes which of the project's settings files and .mcp.json changed while the run went on,
    so --yes does not approve what a command planted (agent/claude_code/run_writes.py)."""
    from agent.claude_code.run_writes import record_run_writes, snapshot

    before = snapshot(workspace)
    try:
        yield
    finally:
        record_run_writes(before)


def fail(message: str, code: int = 1) -> int:
    """Print one line on stderr and return the exit code."""
    print(f"pleat: error: {message}", file=sys.stderr)
    return code


def yes_clash(args: argparse.Namespace) -> str | None:
    """Why --yes cannot go with the --permission-mode given (None: it can)."""
    named = None if args.permission_mode is None else mode_named(args.permission_mode)
    if args.yes and named not in (None, YES_MODE):
        return (
            f"--yes means --permission-mode {YES_MODE}; it cannot go with --permission-mode "
            f"{args.permission_mode}"
        )
    return None


def acp_command(argv: list[str]) -> int:
    """`pleat acp [flags]`: an Agent Client Protocol agent on stdio, for editors
    (agent/acp/); the configuration flags as for the UI, each session's workspace the editor's."""
    parser = build_parser()
    parser.prog = "pleat acp"
    parser.description = "serve the Agent Client Protocol on stdin/stdout (docs/EDITORS.md)"
    parser.epilog = None
    args = parser.parse_args(argv)
    given = [
        flag
        for flag, value in (
            ("-p", args.prompt),
            ("--goal", args.goal),
            ("--resume", args.resume),
            ("--continue", args.continue_latest or None),
            ("--cwd", args.cwd),
            ("--worktree", args.worktree),
            ("--output-format", None if args.output_format == "text" else args.output_format),
        )
        if value is not None
    ]
    if given:
        return fail(f"pleat acp does not take {', '.join(given)}: the editor opens the sessions", 2)
    if (clash := yes_clash(args)) is not None:
        return fail(clash, 2)
    try:
        flags = config_flags(args)
    except ValueError as error:
        return fail(str(error), 2)
    from agent.acp.command import serve

    return serve(flags, approve_everything=args.yes)


def main(argv: list[str] | None = None, start_ui: StartUI | None = None) -> int:
    """Everything printed (answers, tool lines, errors, the sessions list) has its control
    characters made visible (agent/terminal_text.py); the UI draws through its own stream."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(stdout), VisibleStream(stderr)
    try:
        return _main(argv, start_ui)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: list[str] | None, start_ui: StartUI | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sessions"]:
        from agent.session.sessions_command import list_sessions_command

        return list_sessions_command(argv[1:])
    if argv[:1] == ["plugin"]:
        from agent.plugins.command import main as plugin

        return plugin(argv[1:])
    if argv[:1] == ["acp"]:
        return acp_command(argv[1:])
    if argv[:1] == ["replay"]:
        from agent.replay.command import main as replay

        return replay(argv[1:])
    args = build_parser().parse_args(argv)
    if (clash := yes_clash(args)) is not None:
        return fail(clash, 2)
    workspace = (args.cwd or Path.cwd()).expanduser().resolve()
    if not workspace.is_dir():
        return fail(f"workspace {workspace} is not a directory", 2)
    if args.worktree is None:
        return _open(args, workspace, start_ui)
    from agent.session.worktree import in_worktree

    run = lambda path, note: _open(args, path, start_ui, note)  # noqa: E731
    return in_worktree(workspace, args.worktree, run, interactive=args.prompt is None)


def _open(
    args: argparse.Namespace, workspace: Path, start_ui: StartUI | None, note: str = ""
) -> int:
    """Configure for `workspace` and run the UI or the headless request (`note`: said first)."""
    from agent.config import ConfigError
    from agent.session.configure import configure

    try:
        config, claude = configure(workspace, config_flags(args), approve_all=args.yes)
    except (ConfigError, ValueError) as error:
        return fail(str(error), 2)
    claude.notes[:0] = [note] if note else []
    goal = None
    if args.goal is not None:
        from sessions.goal import GoalError, checked_goal

        try:
            goal = checked_goal(args.goal)
        except GoalError as error:
            return fail(f"--goal: {error}", 2)
    if args.prompt is None:
        if args.goal is not None:
            return fail("--goal goes with -p; in the terminal UI, type /goal TEXT", 2)
        # Without a model the UI still opens and explains how to set one.
        if start_ui is None:
            return fail("no prompt: give one with -p, or run `pleat` for the terminal UI", 2)
        with watching_project_files(workspace):
            return start_ui(
                config,
                workspace,
                approve_everything=args.yes,
                resume=args.resume,
                continue_latest=args.continue_latest,
                notes=claude.notes,
                plugin_settings=claude.plugin_settings,
            )
    if args.resume == "":
        return fail("--resume needs an ID with -p (pleat sessions lists them), or --continue", 2)
    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        return fail("the prompt is empty", 2)
    from agent.headless.run import run_headless

    for note in claude.notes:
        print(f"pleat: note: {note}", file=sys.stderr)
    with watching_project_files(workspace):
        return run_headless(
            config,
            workspace,
            prompt,
            approve_everything=args.yes,
            resume=args.resume,
            continue_latest=args.continue_latest,
            output_format=args.output_format,
            goal=goal,
            plugin_settings=claude.plugin_settings,
        )


if __name__ == "__main__":
    sys.exit(main())  # headless only: `pleat` (tui.main) is the entry point that has the UI
