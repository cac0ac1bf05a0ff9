"""Agent definitions: markdown files that give a sub-agent a name, a purpose, tools and a prompt.

Read, first found wins, from the project's `.pleat/agents/` and `.claude/agents/`, then the
user's `$PLEAT_HOME/agents/` (or the config directory's `agents/`) and `~/.claude/agents/`:
Claude Code's files work unchanged. Each `NAME.md` has front matter (agent/commands/front_matter.py)

    name         the name the model gives as `subagent_type` (default: the file's name)
    description  when to use it: the model reads it in the `task` tool's description
    tools        a comma-separated subset of the tools (Claude Code's names are understood:
                 Read, Write, Edit, Bash, Grep, Glob, LS ...; MCP tools as
                 `mcp__<server>__<tool>`, or `mcp__<server>` for all of a server's, taken as
                 written: they join once their server runs); absent: every tool
    model        a litellm model string, or `inherit` (the session's model, also the default);
                 Claude Code's aliases (sonnet, opus, haiku) mean the session's model too, noted
                 once per file content
    isolation    `worktree`: it works in a git worktree of its own (agent/subagents/isolation.py)

and its body is the sub-agent's system prompt. The files are the workspace's (or the user's)
and treated as hostile: regular files inside their directory only, a size cap, a count cap; a
file that cannot be used is skipped with a one-line note, and the others load.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.claude_code.tools import pleat_name
from agent.commands.front_matter import FrontMatterError, parse_document
from agent.config import config_path, pleat_home
from agent.mcp.names import is_mcp_name
from agent.mcp.tool_search import TOOL_SEARCH
from agent.permissions.plan_mode import PLAN_TOOL
from agent.skills.catalog import SKILL_TOOL
from sessions.said_once import first_time
from tools.ask_user import ASK_USER_TOOL
from tools.memory import MEMORY_TOOL_NAME
from tools.paths import workspace_root
from tools.task import DEFAULT_AGENT, TASK_TOOL
from tools.workspace_text import read_workspace_text

# Where definitions are looked for, below the workspace and the user's home, in precedence order.
PROJECT_DIRS = (".pleat/agents", ".claude/agents")
CLAUDE_USER_DIR = ".claude/agents"
# A definition is a page of instructions; past 64 KB (about 16k tokens, sent with every one of
# the sub-agent's requests) a file is not a prompt, and it is skipped rather than cut.
MAX_DEFINITION_BYTES = 64_000
# Files read per directory: far more than anyone writes; a directory of thousands is not a
# set of agent definitions, and reading it would slow every start.
MAX_FILES_PER_DIR = 100
# Definitions offered to the model: each one's line rides in every request (the `task` tool's
# description is part of the cached prefix), so the list is bounded.
MAX_OFFERED = 20
# Characters of a description in that list: a sentence or two says when to use an agent.
MAX_DESCRIPTION_CHARS = 200
# Characters of a name quoted back in a note: enough to recognise it.
SHOWN_NAME_CHARS = 40
# A name the model can give back: letters, digits, `-`, `_`, `.`; at most 64 characters.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
# An MCP tool's name (or a whole server's) as a definition may list it: the providers' charset.
MCP_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}\Z")
# What `isolation` says when the sub-agent works in a git worktree of its own.
WORKTREE = "worktree"
# What `model` says when the sub-agent uses the session's model.
INHERIT = "inherit"
# Claude Code's model aliases: they name no litellm model, so the session's model is used.
CLAUDE_ALIASES = frozenset({"sonnet", "opus", "haiku"})
# Tools a sub-agent never gets: no sub-agents of its own (one level deep), no plan review
# (the plan is the parent's to present), and no tool_search (what it finds joins at a next turn,
# and a sub-agent has one turn: it gets the MCP tools its definition names); no question to the
# user (the parent asks), and no skills (the parent loads one and puts in the brief what the
# task needs of it; its allowed-tools are the user's turn's); no memory (the user's preferences
# are said to the parent, which keeps them).
NOT_FOR_SUBAGENTS = frozenset(
    {TASK_TOOL, PLAN_TOOL, TOOL_SEARCH, ASK_USER_TOOL, SKILL_TOOL, MEMORY_TOOL_NAME}
)


@dataclass(frozen=True)
class AgentDefinition:
    """One agent the model can hand a task to."""

    name: str
    description: str
    prompt: str  # the system prompt ("" : pleat's own)
    tools: tuple[str, ...] | None = None  # pleat's tool names; None: every tool
    model: str | None = None  # None: the session's model
    source: str = ""  # the file it came from, for notes
    isolation: str | None = None  # "worktree": in a git worktree of its own; None: the workspace


@dataclass
class Definitions:
    """The definitions found (by name, in precedence order) and one note per file skipped or
    part of one ignored."""

    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def offered(self) -> list[tuple[str, str]]:
        """(name, description) of the definitions the model is told of: by name, at most
        MAX_OFFERED, each description cut to MAX_DESCRIPTION_CHARS."""
        return [
            (name, _cut(self.agents[name].description))
            for name in sorted(self.agents)[:MAX_OFFERED]
        ]


def _cut(text: str) -> str:
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    return text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"


def definition_dirs(workspace: Path, home: Path | None = None) -> list[tuple[Path, Path]]:
    """(directory, the root it must stay inside) to read, in precedence order."""
    root = workspace_root(workspace)
    user_home = home if home is not None else Path.home()
    pleat_user = pleat_home()
    user_dir = (pleat_user if pleat_user is not None else config_path().parent) / "agents"
    found = [(root / sub, root) for sub in PROJECT_DIRS]
    return [*found, (user_dir, user_dir), (user_home / CLAUDE_USER_DIR, user_home)]


def load_definitions(
    workspace: Path,
    available: Collection[str],
    *,
    home: Path | None = None,
    plugin_dirs: Sequence[tuple[Path, Path, str]] = (),
) -> Definitions:
    """Every definition found, checked against the `available` tool names; then the plugins'
    (`plugin_dirs`: directory, the plugin's root, its name), named `plugin:agent` where their
    name is taken. Blocking (reads files): call it where start-up work happens."""
    definitions = Definitions()
    found = [(d, r, None) for d, r in definition_dirs(workspace, home)]
    for directory, root, namespace in (*found, *plugin_dirs):
        for path in _markdown_files(directory, root, definitions.notes):
            _load(path, directory, available, definitions, namespace)
    hidden = len(definitions.agents) - MAX_OFFERED
    if hidden > 0:
        definitions.notes.append(
            f"{hidden} agent definition{'s' if hidden > 1 else ''} past the first {MAX_OFFERED} "
            "(by name) not offered to the model"
        )
    return definitions


def _markdown_files(directory: Path, root: Path, notes: list[str]) -> list[Path]:
    """The `*.md` names in `directory` (itself inside `root`), sorted, at most
    MAX_FILES_PER_DIR."""
    try:
        real = Path(os.path.realpath(directory))
        if not directory.is_dir():
            return []
        if not real.is_relative_to(os.path.realpath(root)):
            notes.append(f"{directory} leads outside {root}; its agent definitions not read")
            return []
        names = sorted(entry.name for entry in os.scandir(directory) if entry.name.endswith(".md"))
    except OSError as error:
        notes.append(f"{directory}: cannot be read ({error.strerror or error})")
        return []
    if len(names) > MAX_FILES_PER_DIR:
        notes.append(f"{directory}: only the first {MAX_FILES_PER_DIR} definitions read")
    return [directory / name for name in names[:MAX_FILES_PER_DIR]]


def _load(
    path: Path,
    directory: Path,
    available: Collection[str],
    into: Definitions,
    namespace: str | None = None,
) -> None:
    """Add the definition in `path` unless a file before it took its name (a plugin's is then
    named `namespace:name`); a bad file is a note."""
    where = f"agent definition {path}"
    read = read_workspace_text(directory, path, MAX_DEFINITION_BYTES)
    if read.skipped is not None or read.text is None:
        if read.skipped is not None:
            into.notes.append(f"{where} skipped: {read.skipped}")
        return
    if read.cut:
        into.notes.append(f"{where} skipped: larger than {MAX_DEFINITION_BYTES:,} bytes")
        return
    try:
        parsed = parse_document(read.text)
    except FrontMatterError as error:
        into.notes.append(f"{where} skipped: {error}")
        return
    fields = parsed.fields
    name = fields.get("name", "").strip() or path.stem
    description = " ".join(fields.get("description", "").split())
    if not NAME.match(name):
        shown = name[:SHOWN_NAME_CHARS]
        into.notes.append(f"{where} skipped: its name {shown!r} is not a plain word")
        return
    if not description:
        into.notes.append(f"{where} skipped: it has no description (the model needs one)")
        return
    if name == DEFAULT_AGENT:
        into.notes.append(f"{where} skipped: {DEFAULT_AGENT} is the name of pleat's own agent")
        return
    if name in into.agents and namespace is not None:
        name = f"{namespace}:{name}"  # as Claude Code names a plugin's agent
    if name in into.agents:
        return  # a definition earlier in precedence has the name: it stands
    tools = _tools(fields.get("tools"), available, where, into.notes)
    into.agents[name] = AgentDefinition(
        name=name,
        description=description,
        prompt=parsed.body.strip(),
        tools=tools,
        model=_model(fields.get("model"), where, into.notes, read.text),
        source=str(path),
        isolation=_isolation(fields.get("isolation"), where, into.notes),
    )


def _isolation(value: str | None, where: str, notes: list[str]) -> str | None:
    """ "worktree", or None (absent, empty or `none`: the workspace itself); anything else is a
    note, and the sub-agent works in the workspace."""
    isolation = (value or "").strip().lower()
    if isolation in ("", "none"):
        return None
    if isolation != WORKTREE:
        notes.append(f"{where}: isolation {isolation[:SHOWN_NAME_CHARS]!r} unknown (worktree is)")
        return None
    return WORKTREE


def _tools(
    listed: str | None, available: Collection[str], where: str, notes: list[str]
) -> tuple[str, ...] | None:
    """pleat's names of the tools listed (None: not listed, every tool)."""
    if listed is None or not listed.strip() or listed.strip() == "*":
        return None
    chosen: list[str] = []
    unknown: list[str] = []
    for raw in (part.strip() for part in listed.split(",")):
        if not raw:
            continue
        name = raw if raw in available else pleat_name(raw)  # Claude Code's names too
        if name in NOT_FOR_SUBAGENTS or raw.lower() == TASK_TOOL:
            continue  # sub-agents start no sub-agents
        # An MCP server's tool (or all of them) is taken as written: servers start later.
        mcp = is_mcp_name(name) and MCP_NAME.match(name) is not None
        if name not in available and not mcp:
            unknown.append(raw[:SHOWN_NAME_CHARS])
        elif name not in chosen:
            chosen.append(name)
    if unknown:
        notes.append(f"{where}: no tool named {', '.join(unknown)}; left out")
    return tuple(chosen)


def _model(value: str | None, where: str, notes: list[str], content: str) -> str | None:
    """The model a definition asks for (None: the session's), from the file holding `content`."""
    model = (value or "").strip()
    if not model or model == INHERIT:
        return None
    if model in CLAUDE_ALIASES:
        note = (
            f"{where}: model {model!r} is a Claude Code alias, not a litellm model: the "
            "session's model is used"
        )
        # Said once for each content of the file: the user learns that `haiku` does not make
        # the sub-agent cheaper here, but a file shared with Claude Code, and rightly kept as it
        # is, does not repeat it at every start; a changed file is told about again.
        if first_time(note, content):
            notes.append(note)
        return None
    return model
