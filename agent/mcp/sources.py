"""Where a run's MCP servers come from, and which one is used when several share a name.

Four places name servers: pleat's config.toml (`[mcp_servers]`), ~/.claude.json's local scope
(`projects[<workspace>].mcpServers`) and user scope (its top-level `mcpServers`), both written
by `claude mcp add`, and the project's .mcp.json (used once approved). A name in several of them
is one server, taken whole from the first of: config.toml, local, project, user. The last three
are Claude Code's own order (local > project > user); config.toml comes before them all because
it is pleat's own file, written for pleat, so what it says of a name is what the user means
here. Every front end gathers its servers here (the TUI in a thread: the file may be big).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.mcp.claude_json import read_claude_json_servers
from agent.mcp.project_file import ProjectServers, read_project_servers
from agent.mcp.settings import ServerSettings


def hidden_line(server: ServerSettings, winner: ServerSettings) -> str:
    """Why `server` is not used: a server of its name from a place that comes first is."""
    return (
        f"{server.source}: the MCP server {server.name} is not used: {winner.source}'s server "
        "of that name comes first"
    )


@dataclass(frozen=True)
class RunServers:
    """A run's servers by where they come from, each name used once (see the module)."""

    # ~/.claude.json's servers to use from the start (those config.toml's names do not hide).
    claude: tuple[ServerSettings, ...]
    # The workspace's .mcp.json (None: there is none): used once approved, see project_servers.
    project: ProjectServers | None
    # ~/.claude.json's user-scope servers whose names .mcp.json also has: the project's replace
    # them once approved; used (late) when it is not.
    held: tuple[ServerSettings, ...]
    # Servers before the project's, by name (config.toml's and ~/.claude.json's local scope's):
    # a .mcp.json server of the same name is not used.
    first: Mapping[str, ServerSettings]
    # One line for each file (~/.claude.json, .mcp.json) or entry that cannot be used (said
    # at start, kept for /mcp).
    problems: tuple[str, ...]
    # One line for each server hidden by another of its name (kept for /mcp).
    hidden: tuple[str, ...]

    def project_servers(self, approved: bool) -> tuple[list[ServerSettings], list[str]]:
        """What to add once the user decided about .mcp.json: its servers (those no server
        before them hides) when approved, else the user-scope servers held for them; and a
        line for each server hidden."""
        if not approved or self.project is None:
            return list(self.held), []
        used = [s for s in self.project.servers if s.name not in self.first]
        lines = [hidden_line(s, self.first[s.name]) for s in self.project.servers if s not in used]
        replaced = {s.name: s for s in used}  # held: .mcp.json's names, none hidden before it
        lines += [hidden_line(s, replaced[s.name]) for s in self.held]
        return used, lines


def gather_servers(
    configured: Sequence[ServerSettings],
    workspace: Path,
    environ: Mapping[str, str] | None = None,
) -> RunServers:
    """The servers of ~/.claude.json and of the workspace's .mcp.json beside config.toml's
    (`configured`, already taken by the run). Blocking (reads files); never raises."""
    found = read_claude_json_servers(workspace, environ)
    project = read_project_servers(workspace)
    project_names = {s.name for s in project.servers} if project is not None else set()
    first: dict[str, ServerSettings] = {s.name: s for s in configured}
    claude: list[ServerSettings] = []
    held: list[ServerSettings] = []
    hidden: list[str] = []
    for server in found.local:
        if server.name in first:
            hidden.append(hidden_line(server, first[server.name]))
            continue
        first[server.name] = server
        claude.append(server)
    for server in found.user:
        if server.name in first:
            hidden.append(hidden_line(server, first[server.name]))
        elif server.name in project_names:
            held.append(server)
        else:
            claude.append(server)
    return RunServers(
        claude=tuple(claude),
        project=project,
        held=tuple(held),
        first=first,
        problems=(*found.problems, *(project.problems if project is not None else ())),
        hidden=tuple(hidden),
    )
