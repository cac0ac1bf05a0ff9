"""A plugin directory in Claude Code's format: `.claude-plugin/plugin.json` and its components.

    name, version, description, author     who and what it is (name: the command namespace)
    commands, agents, skills                extra directories (a string or a list of `./paths`),
                                            read besides the default commands/, agents/, skills/
    hooks                                   a `./path` to a hooks file, or the hooks object
                                            itself (default hooks/hooks.json)
    mcpServers                              a `./path` to a servers file, or the servers object
                                            itself (default .mcp.json)

Every path must stay inside the plugin's directory (files.inside). A plugin without a manifest
is taken with the name it was listed under, as Claude Code does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.plugins.files import PluginError, check_name, inside, read_json
from sessions.short_text import quoted

# Where the manifest is, inside a plugin's directory.
MANIFEST = ".claude-plugin/plugin.json"
# The component directories every plugin has by default (Claude Code's layout).
DEFAULT_COMMANDS = "./commands"
DEFAULT_AGENTS = "./agents"
DEFAULT_SKILLS = "./skills"
DEFAULT_HOOKS = "./hooks/hooks.json"
DEFAULT_SERVERS = "./.mcp.json"
# Paths one component field may list: a real plugin lists one to three; a list of thousands
# is not a layout, and each entry is a directory scan at every start.
MAX_PATHS = 16
# Characters kept of a manifest's description and version (shown in lists, one line each).
MAX_TEXT_CHARS = 200


@dataclass(frozen=True)
class Manifest:
    """A plugin as its manifest describes it, its paths resolved inside its directory."""

    name: str
    root: Path
    version: str = ""
    description: str = ""
    commands: tuple[Path, ...] = ()
    agents: tuple[Path, ...] = ()
    skills: tuple[Path, ...] = ()
    hooks: Any = None  # the hooks block (Claude Code's shape), None: none
    servers: Any = None  # the mcpServers object, None: none
    notes: tuple[str, ...] = ()


def _text(value: Any) -> str:
    return " ".join(value.split())[:MAX_TEXT_CHARS] if isinstance(value, str) else ""


def _paths(root: Path, value: Any, default: str, field: str, notes: list[str]) -> tuple[Path, ...]:
    """The default directory and those the manifest adds (Claude Code: they supplement it)."""
    listed = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    if value is not None and not isinstance(value, str | list):
        notes.append(f"{field} must be a path or a list of paths; ignored")
    if len(listed) > MAX_PATHS:
        notes.append(f"{field} lists more than {MAX_PATHS} paths; the rest are not read")
    found: list[Path] = []
    for raw in [default, *listed[:MAX_PATHS]]:
        try:
            path = inside(root, raw, field)
        except PluginError as error:
            notes.append(str(error))
            continue
        if path not in found:
            found.append(path)
    return tuple(found)


def _block(root: Path, value: Any, default: str, field: str, key: str, notes: list[str]) -> Any:
    """An inline object, or the object in the file a path names (`key` unwrapped when the file
    holds {key: ...}, as hooks.json and .mcp.json do); None when there is none."""
    if isinstance(value, dict):
        inner = value[key] if key in value else value
        if not isinstance(inner, dict):  # {"mcpServers": [1, 2]}: not a table of them
            notes.append(f"{field}.{key} must be an object; ignored")
            return None
        return inner
    if value is not None and not isinstance(value, str):
        notes.append(f"{field} must be a path or an object; ignored")
        value = None
    try:
        path = inside(root, value or default, field)
        data = read_json(root, path, f"{field} {value or default}")
    except PluginError as error:
        notes.append(str(error))
        return None
    if data is None:
        if value:  # named, but not there
            notes.append(f"{field} {quoted(value, 80)} does not exist; not used")
        return None
    if not isinstance(data, dict):
        notes.append(f"{field} {value or default} must hold an object; not used")
        return None
    inner = data[key] if key in data else data
    return inner if isinstance(inner, dict) else None


def read_manifest(root: Path, listed_as: str | None = None) -> Manifest:
    """The plugin in `root`; PluginError (one line) when it cannot be used at all. A part that
    cannot be used (a path out, a bad hooks file) is a note and the rest is used."""
    data = read_json(root, root / MANIFEST, MANIFEST)
    if data is None:
        if listed_as is None:
            raise PluginError(f"{root} has no {MANIFEST}; not a plugin")
        data = {"name": listed_as}
    if not isinstance(data, dict):
        raise PluginError(f"{MANIFEST} must hold an object; not a plugin")
    name = check_name(data.get("name"), f"{MANIFEST}: name")
    notes: list[str] = []
    hooks = _block(root, data.get("hooks"), DEFAULT_HOOKS, "hooks", "hooks", notes)
    servers = _block(
        root, data.get("mcpServers"), DEFAULT_SERVERS, "mcpServers", "mcpServers", notes
    )
    return Manifest(
        name=name,
        root=root,
        version=_text(data.get("version")),
        description=_text(data.get("description")),
        commands=_paths(root, data.get("commands"), DEFAULT_COMMANDS, "commands", notes),
        agents=_paths(root, data.get("agents"), DEFAULT_AGENTS, "agents", notes),
        skills=_paths(root, data.get("skills"), DEFAULT_SKILLS, "skills", notes),
        hooks=hooks,
        servers=servers,
        notes=tuple(f"plugin {name}: {note}" for note in notes),
    )
