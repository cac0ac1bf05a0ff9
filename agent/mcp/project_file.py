"""A project's `.mcp.json` (Claude Code's format), read as hostile input, and its approval.

The file comes with the repository, so anyone who can commit to it could make pleat run a
program: its servers are used only once the user has approved this very file for this workspace
(the TUI asks at start; headless, --yes approves). The approval is remembered in
$PLEAT_HOME/mcp-approvals.json by workspace with the SHA-256 of the file's content, so a changed
file is asked about again. The file is read without following a link out of the workspace,
never past a size limit, and parsed with the limits of sessions/model_json.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.mcp.settings import ServerSettings, SettingsError, from_project_entry
from sessions.approvals import Approvals, digest
from sessions.model_json import ModelJsonError, loads
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

PROJECT_FILE = ".mcp.json"
# Bytes of .mcp.json read at most: a file naming a dozen servers is a few KiB; past 256 KiB it
# is not a configuration, and it is not used.
MAX_PROJECT_FILE_BYTES = 256 * 1024
# Where approvals are kept, under $PLEAT_HOME: workspace -> the digest of its approved file.
APPROVALS = Approvals("mcp-approvals.json")


@dataclass(frozen=True)
class ProjectServers:
    """What a workspace's .mcp.json offers: its servers, the hash approvals are keyed by, and
    one line for each server (or the whole file) that cannot be used."""

    servers: tuple[ServerSettings, ...]
    digest: str
    problems: tuple[str, ...] = ()


def read_project_servers(workspace: Path) -> ProjectServers | None:
    """The servers of the workspace's .mcp.json; None when there is none. Never raises."""
    root = workspace_root(workspace)
    found = read_workspace_text(workspace, root / PROJECT_FILE, MAX_PROJECT_FILE_BYTES)
    if found.skipped is not None:
        return ProjectServers((), "", (found.skipped,))
    if found.text is None:
        return None
    sha = digest(found.text)
    if found.cut:
        too_big = f"{PROJECT_FILE} is over {MAX_PROJECT_FILE_BYTES // 1024} KiB; not used"
        return ProjectServers((), sha, (too_big,))
    try:
        data = loads(found.text)
    except ModelJsonError as error:
        return ProjectServers((), sha, (f"{PROJECT_FILE} is not valid JSON ({error}); not used",))
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        wrong = f'{PROJECT_FILE} has no "mcpServers" object; not used'
        return ProjectServers((), sha, (wrong,))
    servers: list[ServerSettings] = []
    problems: list[str] = []
    for name in sorted(entries):
        try:
            servers.append(from_project_entry(name, entries[name], PROJECT_FILE))
        except SettingsError as error:
            problems.append(f"{error}; that server is not used")
    return ProjectServers(tuple(servers), sha, tuple(problems))


def is_approved(workspace: Path, project: ProjectServers) -> bool:
    """Whether the user approved exactly this content of the workspace's .mcp.json."""
    return APPROVALS.approved(str(workspace_root(workspace)), project.digest)


def approve(workspace: Path, project: ProjectServers) -> None:
    """Remember that the user approved this content of the workspace's .mcp.json (private to
    the user, written atomically). Raises OSError when it cannot be written."""
    APPROVALS.approve(str(workspace_root(workspace)), project.digest)
