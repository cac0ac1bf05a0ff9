"""What of a plugin runs outside the model's reach: its hooks and MCP servers, with
`${CLAUDE_PLUGIN_ROOT}` pointing at its installed copy, and the user's approval of them.

They run as the user (not in the sandbox), so they run only once the user approved exactly
this content: the approval is kept in $PLEAT_HOME/plugin-approvals.json by `plugin@market` with
the SHA-256 of its hooks and servers blocks as installed, and a plugin whose blocks changed (a
new install, an edit of the copy) is asked about again. The TUI asks at start; headless, --yes
approves for that run and names every command.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from agent.hooks.answer import one_line
from agent.hooks.config import HookSpec, parse_claude_hooks
from agent.mcp.settings import ServerSettings, SettingsError, from_project_entry
from agent.plugins.loaded import LoadedPlugin, Plugins
from sessions.approvals import Approvals, digest

# The variable Claude Code's plugins find their own files by: set for their hooks and servers,
# and written out in a server's command, arguments, environment and URL.
ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"
ROOT_REFERENCE = "${" + ROOT_VARIABLE + "}"
# Where approvals are kept, under $PLEAT_HOME: plugin@market -> digest of its hooks and servers.
PLUGIN_APPROVALS = Approvals("plugin-approvals.json")


@dataclass(frozen=True)
class RunParts:
    """One plugin's hooks and servers, ready to run, the digest they are approved by, and one
    line for each one that cannot be used."""

    key: str
    root: Path
    hooks: tuple[HookSpec, ...]
    servers: tuple[ServerSettings, ...]
    digest: str
    problems: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"plugin {self.key}"

    def items(self) -> list[str]:
        """Every command it would run, in full (for the approval)."""
        hooks = [f"{spec.event} hook: {spec.command}" for spec in self.hooks]
        servers = [f"MCP server {s.name}: {s.target()}" for s in self.servers]
        return [*hooks, *servers, f"({ROOT_VARIABLE} is {self.root})"]


def _rooted(text: str, root: Path) -> str:
    return text.replace(ROOT_REFERENCE, str(root))


def _server(settings: ServerSettings, root: Path) -> ServerSettings:
    """A plugin's server: the user's (approved) to run as they are, its root written out."""
    return dataclasses.replace(
        settings,
        command=_rooted(settings.command, root) if settings.command is not None else None,
        args=tuple(_rooted(arg, root) for arg in settings.args),
        env=(*((k, _rooted(v, root)) for k, v in settings.env), (ROOT_VARIABLE, str(root))),
        cwd=_rooted(settings.cwd, root) if settings.cwd is not None else None,
        url=_rooted(settings.url, root) if settings.url is not None else None,
        headers=tuple((k, _rooted(v, root)) for k, v in settings.headers),
        project=False,
        sandboxed=False,
    )


def run_parts(plugin: LoadedPlugin) -> RunParts | None:
    """The plugin's hooks and servers (None when it has neither)."""
    manifest = plugin.manifest
    if not manifest.hooks and not manifest.servers:
        return None
    root = manifest.root.resolve()
    label = f"plugin {plugin.key}"
    problems: list[str] = []
    hooks: tuple[HookSpec, ...] = ()
    if manifest.hooks:
        specs, found = parse_claude_hooks(manifest.hooks, label)
        problems += found
        # The shell expands ${CLAUDE_PLUGIN_ROOT} from the hook's environment, so a path with a
        # space in it stays one word where the command quotes it.
        hooks = tuple(
            dataclasses.replace(spec, env=((ROOT_VARIABLE, str(root)),), sandboxed=False)
            for spec in specs
        )
    servers: list[ServerSettings] = []
    for name, entry in sorted((manifest.servers or {}).items()):
        try:
            servers.append(_server(from_project_entry(name, entry, label), root))
        except SettingsError as error:
            problems.append(f"{error}; that server is not used")
    # The approval covers the scripts the hooks and servers run too: every file of the installed
    # copy (a reinstall that changes a script asks again; found by review).
    parts = {"hooks": manifest.hooks, "mcpServers": manifest.servers, "files": tree_digests(root)}
    blocks = json.dumps(parts, sort_keys=True)
    return RunParts(plugin.key, root, hooks, tuple(servers), digest(blocks), tuple(problems))


def tree_digests(root: Path) -> dict[str, str]:
    """Each file under `root` (as installed: bounded by the copy's limits) with the SHA-256 of
    its bytes, and each link with its target."""
    found: dict[str, str] = {}
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(directory) / name
            key = path.relative_to(root).as_posix()
            try:
                if path.is_symlink():
                    found[key] = "-> " + os.readlink(path)
                elif path.is_file():
                    found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                found[key] = "unreadable"
    return found


def is_approved(parts: RunParts) -> bool:
    return PLUGIN_APPROVALS.approved(parts.key, parts.digest)


def approve(parts: RunParts) -> None:
    """Remember the approval of this content. Raises OSError when it cannot be written."""
    PLUGIN_APPROVALS.approve(parts.key, parts.digest)


@dataclass
class Gate:
    """The run's plugins' hooks and servers: those that may run, those waiting for the user's
    approval, and the lines to say (what was left out, what --yes approved)."""

    hooks: list[HookSpec] = field(default_factory=list)
    servers: list[ServerSettings] = field(default_factory=list)
    waiting: list[RunParts] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def gate(plugins: Plugins, *, approve_all: bool = False) -> Gate:
    """Sort every plugin's hooks and servers into run (approved before, or by --yes: named in a
    line) and waiting."""
    found = Gate()
    for plugin in plugins.plugins:
        parts = run_parts(plugin)
        if parts is None:
            continue
        found.lines.extend(parts.problems)
        if not parts.hooks and not parts.servers:
            continue
        if is_approved(parts) or approve_all:
            found.hooks.extend(parts.hooks)
            found.servers.extend(parts.servers)
            if approve_all and not is_approved(parts):
                named = "; ".join(parts.items()[:-1])
                found.lines.append(f"{parts.label} runs (approved by --yes): {one_line(named)}")
        else:
            found.waiting.append(parts)
    return found


def waiting_line(parts: RunParts) -> str:
    """Headless: why a plugin's hooks and servers do not run, and how to let them."""
    count = len(parts.hooks) + len(parts.servers)
    return (
        f"{parts.label} has {count} hook{'s' if count != 1 else ''} or server(s) not approved, "
        "so they do not run: approve them in pleat's terminal UI (it asks at start), or pass --yes"
    )
