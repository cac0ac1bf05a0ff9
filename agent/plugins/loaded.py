"""The plugins a run uses: those installed and enabled (by pleat's state, or by Claude Code's
`enabledPlugins`), their manifests read, and their components as the loaders take them.

Claude Code's two settings keys come in as plain mappings (the caller reads the settings):
`enabled_plugins` ({"plugin@market": true}) and `known_marketplaces` (extraKnownMarketplaces:
{"market": {"source": {"source": "directory", "path": ...}}}). A plugin they enable that is not
installed yet is installed from its marketplace, as Claude Code does. pleat's own enable or
disable (`pleat plugin enable|disable`, `/plugin`) wins over the settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.commands.files import CommandSource
from agent.plugins.files import PluginError
from agent.plugins.install import install, split_key
from agent.plugins.manifest import Manifest, read_manifest
from agent.plugins.state import PluginState, read_state
from agent.skills.files import SkillSource


@dataclass(frozen=True)
class LoadedPlugin:
    """One enabled plugin: `plugin@market` and its manifest (its directory is manifest.root)."""

    key: str
    manifest: Manifest

    @property
    def name(self) -> str:
        return self.manifest.name

    def shown(self, path: Path) -> str:
        """A path of the plugin as lines name it: plugin@market/commands."""
        try:
            return f"{self.key}/{path.relative_to(self.manifest.root.resolve()).as_posix()}"
        except ValueError:
            return f"{self.key}/{path.name}"


@dataclass
class Plugins:
    """The run's plugins, and one note per plugin (or part of one) not used."""

    plugins: list[LoadedPlugin] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def command_sources(self) -> tuple[CommandSource, ...]:
        """Each plugin's command directories, its files confined to the plugin, named
        `/plugin:command` (agent/commands/catalog.py adds the bare name where it is free)."""
        return tuple(
            CommandSource(path, "plugin", p.shown(path), p.manifest.root.resolve(), p.name)
            for p in self.plugins
            for path in p.manifest.commands
        )

    def agent_dirs(self) -> tuple[tuple[Path, Path, str], ...]:
        """(directory, the plugin's root it stays in, the plugin's name) of each agents dir."""
        return tuple(
            (path, p.manifest.root.resolve(), p.name)
            for p in self.plugins
            for path in p.manifest.agents
        )

    def skill_sources(self) -> tuple[SkillSource, ...]:
        return tuple(
            SkillSource(path, "plugin", p.shown(path), p.name)
            for p in self.plugins
            for path in p.manifest.skills
        )


def settings_enabled(enabled_plugins: Mapping[str, Any] | Any) -> dict[str, bool]:
    """Claude Code's enabledPlugins as {key: on} (an old list form names the enabled ones)."""
    if isinstance(enabled_plugins, list):
        return {key: True for key in enabled_plugins if isinstance(key, str)}
    if not isinstance(enabled_plugins, Mapping):
        return {}
    return {k: v for k, v in enabled_plugins.items() if isinstance(k, str) and isinstance(v, bool)}


def load_plugins(
    enabled_plugins: Mapping[str, Any] | None = None,
    known_marketplaces: Mapping[str, Any] | None = None,
) -> Plugins:
    """Every enabled plugin, read; never raises (what fails is a note)."""
    found = Plugins()
    try:
        state = read_state()
    except PluginError as error:
        found.notes.append(str(error))
        return found
    wanted = settings_enabled(enabled_plugins or {})
    for key, on in sorted(wanted.items()):
        if on and key not in state.installed and key not in state.enabled:
            try:
                line = install(key, known_marketplaces, enable=False)
                found.notes.append(f"{line} (enabledPlugins in Claude Code's settings)")
            except (PluginError, OSError) as error:
                found.notes.append(f"plugin {key} (enabledPlugins) not installed: {error}")
    if wanted:
        try:
            state = read_state()
        except PluginError as error:
            found.notes.append(str(error))
            return found
    for key in sorted(state.installed):
        if state.enabled.get(key, wanted.get(key, False)):
            _load(key, state, found)
    return found


def _load(key: str, state: PluginState, into: Plugins) -> None:
    path = state.installed[key].get("path")
    try:
        plugin, _ = split_key(key)
        if not isinstance(path, str) or not Path(path).is_dir():
            raise PluginError("its installed copy is gone: install it again")
        manifest = read_manifest(Path(path), listed_as=plugin)
    except PluginError as error:
        into.notes.append(f"plugin {key} not used: {error}")
        return
    into.notes.extend(manifest.notes)
    into.plugins.append(LoadedPlugin(key, manifest))
