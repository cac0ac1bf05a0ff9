"""The MCP servers `claude mcp add` keeps in Claude Code's own state file, ~/.claude.json.

`claude mcp add --scope user` writes a server into the file's top-level `mcpServers`; the default
`--scope local` writes it under `projects["<the project's absolute path>"].mcpServers`, for that
directory only. `$CLAUDE_CONFIG_DIR/.claude.json` takes the place of ~/.claude.json when that
variable is set, as Claude Code reads it. Both scopes are the user's own configuration (they ran
the command; the file is in their home, not in a repository), so their servers need no approval
and may read any variable, as config.toml's do. A server Claude Code's /mcp turned off for the
project (`projects[...].disabledMcpServers`) is kept, not started.

The file is not a configuration file but Claude Code's whole state (account, tips, per-project
history...), rewritten by Claude Code all the time and often megabytes long. So it is read as
hostile input: never past MAX_CLAUDE_JSON_BYTES, parsed with the limits of sessions/model_json.py,
never written; a bad file is one line, a bad entry is one line and the others are used.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent.mcp.settings import ServerSettings, SettingsError, from_claude_entry
from sessions.model_json import ModelJsonError, loads
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

CLAUDE_JSON = ".claude.json"
# Bytes of the file read at most. Claude Code keeps per-project state in it, and its 2025
# versions kept every prompt's history there too: files of 8 MB, 65 MB and more are reported
# (anthropics/claude-code#10592, #6394). 64 MiB takes those, and parses in about a second (in a
# thread, in the UI); past it the file is not read, and one line says how to carry on.
MAX_CLAUDE_JSON_BYTES = 64 * 1024 * 1024
# Readings of the file: Claude Code may be rewriting it right then (it is written in place), so
# one that is not valid JSON is read once more before the file is called bad.
READINGS = 2
# The root of the file system: the user's own file is read wherever it links to.
ANYWHERE = Path("/")


@dataclass(frozen=True)
class ClaudeJsonServers:
    """The servers of ~/.claude.json for one workspace: its local scope's and its user scope's
    (each sorted by name), and one line for each entry (or the whole file) not used."""

    local: tuple[ServerSettings, ...] = ()
    user: tuple[ServerSettings, ...] = ()
    problems: tuple[str, ...] = ()


def claude_json_path(environ: Mapping[str, str]) -> Path:
    """Where Claude Code keeps its state: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    base = Path(configured).expanduser() if configured else Path.home()
    return Path(os.path.abspath(base / CLAUDE_JSON))


def _shown(path: Path) -> str:
    """The path as lines name it: `~/...` under the home directory."""
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + os.sep) else text


def _read(path: Path, label: str) -> tuple[Any, str | None]:
    """The parsed file (None when there is none), or why it is not used."""
    problem = None
    for _ in range(READINGS):
        found = read_workspace_text(ANYWHERE, path, MAX_CLAUDE_JSON_BYTES)
        if found.skipped is not None:  # it names the file from the root: named as shown here
            return None, label + found.skipped.removeprefix(path.relative_to(ANYWHERE).as_posix())
        if found.text is None:
            return None, None
        if found.cut:
            size = MAX_CLAUDE_JSON_BYTES // (1024 * 1024)
            return None, (
                f"{label} is over {size} MiB (Claude Code's history makes it grow); its MCP "
                "servers are not used: copy them into config.toml's [mcp_servers]"
            )
        try:
            return loads(found.text, max_chars=MAX_CLAUDE_JSON_BYTES), None
        except ModelJsonError as error:
            problem = f"{label} is not valid JSON ({error}); its MCP servers are not used"
    return None, problem


def _servers(
    entries: Any, source: str, where: str, problems: list[str]
) -> tuple[ServerSettings, ...]:
    """The servers of one `mcpServers` object, a line in `problems` for each entry not used."""
    if entries is None:
        return ()
    if not isinstance(entries, dict):
        problems.append(f"{source}: {where}mcpServers is not an object; not used")
        return ()
    servers: list[ServerSettings] = []
    for name in sorted(entries):
        try:
            servers.append(from_claude_entry(name, entries[name], source, where))
        except SettingsError as error:
            problems.append(f"{error}; that server is not used")
    return tuple(servers)


def _project(projects: Any, workspace: Path) -> tuple[str, dict[str, Any]] | None:
    """The workspace's entry in `projects`, and its key: Claude Code keys it by the absolute
    path it was started in, so the workspace's path as given and resolved are both tried."""
    if not isinstance(projects, dict):
        return None
    for key in dict.fromkeys([str(workspace_root(workspace)), os.path.abspath(workspace)]):
        entry = projects.get(key)
        if isinstance(entry, dict):
            return key, entry
    return None


def read_claude_json_servers(
    workspace: Path, environ: Mapping[str, str] | None = None
) -> ClaudeJsonServers:
    """The MCP servers ~/.claude.json configures for `workspace`. Never raises."""
    path = claude_json_path(os.environ if environ is None else environ)
    label = _shown(path)
    data, problem = _read(path, label)
    if problem is not None:
        return ClaudeJsonServers(problems=(problem,))
    if data is None:
        return ClaudeJsonServers()
    if not isinstance(data, dict):
        return ClaudeJsonServers(problems=(f"{label} is not a JSON object; not used",))
    problems: list[str] = []
    user = _servers(data.get("mcpServers"), f"{label} (user)", "", problems)
    local: tuple[ServerSettings, ...] = ()
    found = _project(data.get("projects"), workspace)
    off: set[str] = set()
    if found is not None:
        key, project = found
        where = f"projects[{json.dumps(key)}]."
        local = _servers(project.get("mcpServers"), f"{label} (local)", where, problems)
        disabled = project.get("disabledMcpServers")
        off = {n for n in disabled if isinstance(n, str)} if isinstance(disabled, list) else set()

    def kept(servers: tuple[ServerSettings, ...]) -> tuple[ServerSettings, ...]:
        return tuple(replace(s, enabled=False) if s.name in off else s for s in servers)

    return ClaudeJsonServers(kept(local), kept(user), tuple(problems))
