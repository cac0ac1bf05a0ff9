"""pleat's built-in slash commands: one table, read by both front ends, `/help`, the `/` list and
the command palette.

A row says what a command is called, how its argument is written, what it does, which body runs
it (agent/slash/: an async generator of events, imported only when the command runs), whether a
headless run takes it (`pleat -p "/undo" --continue`), whether it may run while a turn works,
and whether it needs a session. Every front end runs a row's body the same way
(agent/slash/dispatch.py run_builtin) and shows its events in its medium, so a new command is
one row here plus its body; tests/unit/agent/commands/test_builtin.py checks that every row has
a body and no body is without a row.

A command file of a built-in's name is what `/NAME` runs (it is what the user wrote); the
built-in stays reachable as `/pleat:NAME`, which every built-in answers to in both front ends
(agent/commands/resolution.py decides, for both). `/help` and `/quit` cannot be shadowed: a
cloned repository's file must never keep the user from leaving, nor hide the list that says
which command is which.
"""

from __future__ import annotations

from dataclasses import dataclass

# The namespace every built-in answers to (`/pleat:review`): a command file may take a built-in's
# bare name, never this spelling. The colon is Claude Code's namespace mark (`/frontend:component`
# for frontend/component.md), so the spelling reads as "pleat's own review".
BUILTIN_NAMESPACE = "pleat"
NAMESPACE_MARK = ":"


@dataclass(frozen=True)
class Builtin:
    """One built-in slash command."""

    name: str  # without the slash
    args: str  # how its argument is written in help; "" when it takes none
    help: str
    body: str = ""  # its body, `agent.slash.MODULE.FUNCTION` (agent/slash/dispatch.py runs it)
    headless: bool = False  # `pleat -p "/name"` runs it (otherwise refused before a session opens)
    while_working: bool = True  # may run while a turn, fold or switch runs (else: "busy")
    needs_agent: bool = True  # needs an open session (no model yet: refused with the help)
    shadowable: bool = True  # a command file of its name runs instead (the built-in: /pleat:NAME)
    # An editor runs it over ACP (`pleat acp`): it needs no screen of the terminal's, and opens
    # no other session (the editor opens sessions: their ids are its).
    editor: bool = True

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()

    @property
    def qualified(self) -> str:
        """The spelling that always runs the built-in, whatever command files exist."""
        return f"/{BUILTIN_NAMESPACE}{NAMESPACE_MARK}{self.name}"


BUILTIN: tuple[Builtin, ...] = (
    Builtin(
        "compact",
        "[--preview] [focus]",
        "fold the conversation now (--preview: see, edit or discard the summary first)",
        headless=True,
        while_working=False,
        body="agent.slash.fold.compact",
    ),
    Builtin(
        "goal",
        "[text|clear]",
        "show, set or clear the session's goal (kept through folds)",
        body="agent.slash.sessions.goal",
    ),
    Builtin("context", "", "what fills the context window", body="agent.slash.listings.context"),
    Builtin(
        "chunks",
        "",
        "browse and search the archived chunks",
        body="agent.slash.screens.chunks",
        editor=False,
    ),
    Builtin(
        "fork",
        "",
        "continue in a new session carrying this one's summary",
        headless=True,
        while_working=False,
        body="agent.slash.fold.fork",
        editor=False,
    ),
    Builtin(
        "sessions",
        "",
        "this workspace's sessions (Enter resumes one)",
        while_working=False,
        body="agent.slash.sessions.sessions",
        editor=False,
    ),
    Builtin(
        "resume",
        "[id]",
        "pick a session of this workspace to switch to (type to filter), or switch to ID",
        while_working=False,
        body="agent.slash.sessions.resume",
        editor=False,
    ),
    Builtin(
        "rename",
        "NAME",
        "name this session (its title in /resume)",
        body="agent.slash.sessions.rename",
    ),
    Builtin(
        "new",
        "",
        "start a new session",
        while_working=False,
        body="agent.slash.sessions.new",
        editor=False,
    ),
    Builtin(
        "undo",
        "",
        "undo the last request: its file changes and messages",
        headless=True,
        while_working=False,
        body="agent.slash.rewind.undo",
    ),
    Builtin(
        "rewind",
        "[N [files|conversation|both]]",
        "go back to before an earlier request: files, conversation or both",
        headless=True,
        while_working=False,
        body="agent.slash.rewind.rewind",
    ),
    Builtin(
        "model",
        "[name]",
        "pick a model (found: provider keys, local servers), or switch to NAME",
        while_working=False,
        needs_agent=False,
        body="agent.slash.screens.model",
        editor=False,
    ),
    Builtin(
        "mcp",
        "",
        "MCP servers: their state, errors and tools",
        headless=True,
        body="agent.slash.listings.mcp",
    ),
    Builtin(
        "plugin",
        "[enable|disable NAME@MARKET]",
        "Claude Code plugins: installed, enabled or not (pleat plugin installs them)",
        needs_agent=False,
        body="agent.slash.screens.plugin",
        editor=False,
    ),
    Builtin(
        "shells",
        "",
        "background commands, running and ended, with their output files",
        body="agent.slash.listings.shells",
    ),
    Builtin(
        "sandbox",
        "",
        "where commands run: the mode, what this machine enforces, the network",
        headless=True,
        body="agent.slash.listings.sandbox",
    ),
    Builtin(
        "lsp",
        "",
        "language servers: which run, for which languages, their state",
        headless=True,
        body="agent.slash.language_servers.lsp",
    ),
    Builtin(
        "add-dir",
        "[DIR]",
        "let the model read and write DIR (outside the workspace) this session; alone: list them",
        body="agent.slash.sessions.add_dir",
    ),
    Builtin(
        "worktree",
        "",
        "the git worktrees pleat made here: name, branch, changed or clean, path",
        headless=True,
        needs_agent=False,
        body="agent.slash.worktree.worktree",
    ),
    Builtin(
        "skills",
        "",
        "the skills the model can load (SKILL.md files), and those skipped",
        headless=True,
        needs_agent=False,
        body="agent.slash.listings.skills",
    ),
    Builtin(
        "memory",
        "[# note]",
        "instruction files and auto memory, opened in $VISUAL/$EDITOR; `# note` adds to AGENTS.md",
        headless=True,
        body="agent.slash.listings.memory",
    ),
    Builtin(
        "init",
        "[focus]",
        "ask the model to write or update AGENTS.md for this workspace",
        headless=True,
        while_working=False,
        body="agent.slash.fold.init",
    ),
    Builtin(
        "review",
        "[focus]",
        "ask the model to review the uncommitted changes (git diff), reading only",
        headless=True,
        while_working=False,
        body="agent.slash.fold.review",
    ),
    Builtin(
        "copy",
        "",
        "copy the last answer to the clipboard (OSC 52: works over ssh)",
        body="agent.slash.take_away.copy",
        editor=False,
    ),
    Builtin(
        "export",
        "[FILE]",
        "write the conversation to a markdown file, folded parts from the archive",
        headless=True,
        body="agent.slash.take_away.export",
    ),
    Builtin(
        "diff",
        "",
        "what this session changed in the workspace (no model call)",
        headless=True,
        body="agent.slash.take_away.diff",
    ),
    Builtin(
        "vim",
        "[on|off]",
        "vim keys in the prompt (normal and insert modes), for this run",
        needs_agent=False,
        body="agent.slash.screens.vim",
        editor=False,
    ),
    Builtin(
        "theme",
        "[name]",
        "pick a colour theme (type to filter), or switch to NAME; kept for the next start",
        needs_agent=False,
        body="agent.slash.screens.theme",
        editor=False,
    ),
    # Never shadowed (see the module's docstring): the way out, and the list of what is what.
    Builtin(
        "help",
        "",
        "commands and keys",
        needs_agent=False,
        shadowable=False,
        body="agent.slash.screens.show_help",
        editor=False,
    ),
    Builtin(
        "quit",
        "",
        "leave pleat",
        needs_agent=False,
        shadowable=False,
        body="agent.slash.screens.quit_front_end",
        editor=False,
    ),
)
BY_NAME = {command.name: command for command in BUILTIN}
BUILTIN_NAMES = frozenset(BY_NAME)
# The names a command file may not take: the built-ins that cannot be shadowed, and every
# built-in's /pleat:NAME spelling (a file pleat/review.md would be /pleat:review).
RESERVED_NAMES = frozenset(
    {c.name for c in BUILTIN if not c.shadowable} | {c.qualified.removeprefix("/") for c in BUILTIN}
)
# The commands a headless run takes.
HEADLESS_NAMES = tuple(command.name for command in BUILTIN if command.headless)
