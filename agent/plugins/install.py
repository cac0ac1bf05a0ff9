"""Adding marketplaces and installing, enabling, disabling and removing plugins: what
`pleat plugin ...` and `/plugin` do, each a change of the state file (agent/plugins/state.py).

An installed plugin is a copy in $PLEAT_HOME/plugins/installed/MARKET/PLUGIN, so a later change
of its source (a commit, an edit of the directory) does not change what runs until it is
installed again. A directory marketplace is read where it is; a git one is cloned under
$PLEAT_HOME/plugins/marketplaces/NAME.
"""

from __future__ import annotations

import re
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.plugins.fetching import copy_tree, git_clone, replace_dir
from agent.plugins.files import PluginError, check_name, inside
from agent.plugins.manifest import read_manifest
from agent.plugins.marketplace import (
    MARKETPLACE_FILE,
    Marketplace,
    PluginEntry,
    git_source,
    github_url,
    read_marketplace,
)
from agent.plugins.state import PluginState, changing_state, plugins_home, read_state
from sessions.paths import private_dir
from sessions.short_text import quoted

# A GitHub shorthand as Claude Code takes it in `marketplace add`: owner/repo.
GITHUB_SHORTHAND = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")


def split_key(key: str) -> tuple[str, str]:
    """(plugin, marketplace) of `plugin@marketplace`; PluginError otherwise."""
    plugin, at, market = key.rpartition("@")
    if not at:
        raise PluginError(f"name the plugin as plugin@marketplace, got {quoted(key, 80)}")
    return check_name(plugin, "plugin"), check_name(market, "marketplace")


def _scratch(parent: Path, name: str) -> Path:
    """A fresh path beside where `name` goes (a dot name: listings skip it)."""
    private_dir(parent)
    return parent / f".new-{name}-{secrets.token_hex(4)}"


def _clone_marketplace(url: str, ref: str | None, source: dict[str, Any]) -> Marketplace:
    """Clone a git marketplace and put it under marketplaces/ by the name its file gives; not
    over another source's marketplace of that name (found by review: a refused add replaced
    the clone the known one installs from)."""
    parent = plugins_home() / "marketplaces"
    fresh = _scratch(parent, "clone")
    try:
        git_clone(url, fresh, ref)
        found = read_marketplace(fresh)
        _not_taken(read_state(), found.name, source)
        target = parent / found.name
        replace_dir(fresh, target)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return read_marketplace(target)


def _source_of(where: str, base: Path) -> dict[str, Any]:
    """The source object a `marketplace add` argument means: a directory holding a
    marketplace.json, else a git repository (a URL, a local path) or GitHub's owner/repo."""
    path = (base / where).expanduser()
    if (path / MARKETPLACE_FILE).is_file():
        return {"source": "directory", "path": str(path.resolve())}
    if not path.exists() and GITHUB_SHORTHAND.fullmatch(where) and "." not in where.split("/")[0]:
        return {"source": "github", "repo": where}
    return {"source": "git", "url": str(path.resolve()) if path.exists() else where}


def open_source(source: Any, label: str) -> Marketplace:
    """The marketplace a source object names, fetched when it is a git one. PluginError."""
    if not isinstance(source, dict):
        raise PluginError(f"{label}: source must be an object like {{source: directory, path}}")
    if source.get("source") == "directory":
        path = source.get("path")
        if not isinstance(path, str) or not path:
            raise PluginError(f"{label}: a directory source needs a path")
        try:
            where = Path(path).expanduser().resolve()
        except (RuntimeError, ValueError, OSError) as error:  # `~nobody/m`, a NUL byte
            raise PluginError(
                f"{label}: the path {quoted(path, 80)} cannot be used: {error}"
            ) from None
        return read_marketplace(where)
    url, ref, _ = git_source(source, label)
    return _clone_marketplace(url, ref, source)


def _not_taken(state: PluginState, name: str, source: dict[str, Any]) -> None:
    """Raise PluginError when another source's marketplace has this name."""
    known = state.marketplaces.get(name)
    if known is not None and known.get("source") != source:
        raise PluginError(
            f"a marketplace named {name} is already known (from {known.get('source')}); "
            f"remove it first: pleat plugin marketplace remove {name}"
        )


def remember_marketplace(state: PluginState, found: Marketplace, source: dict[str, Any]) -> None:
    _not_taken(state, found.name, source)
    state.marketplaces[found.name] = {"source": source, "path": str(found.root)}


def add_marketplace(where: str, base: Path) -> str:
    """`pleat plugin marketplace add WHERE`; the line saying what was added."""
    source = _source_of(where, base)
    found = open_source(source, where)
    with changing_state() as state:
        remember_marketplace(state, found, source)
    count = len(found.plugins)
    notes = "".join(f"\n  note: {note}" for note in found.notes)
    return f"marketplace {found.name} added: {count} plugin{'s' if count != 1 else ''}{notes}"


def remove_marketplace(name: str) -> str:
    with changing_state() as state:
        if state.marketplaces.pop(name, None) is None:
            raise PluginError(
                f"no marketplace named {quoted(name, 64)} (pleat plugin marketplace list)"
            )
        clone = plugins_home() / "marketplaces" / check_name(name, "marketplace")
        shutil.rmtree(clone, ignore_errors=True)
    return f"marketplace {name} removed (its installed plugins stay until uninstalled)"


def find_marketplace(
    name: str, state: PluginState, known: Mapping[str, Any] | None = None
) -> Marketplace:
    """A marketplace pleat knows (added), or one Claude Code's extraKnownMarketplaces names
    (remembered once fetched)."""
    if name in state.marketplaces:
        path = state.marketplaces[name].get("path")
        if isinstance(path, str):
            return read_marketplace(Path(path))
    entry = (known or {}).get(name)
    if isinstance(entry, dict):
        source = entry.get("source")
        found = open_source(source, f"extraKnownMarketplaces.{name}")
        if isinstance(source, dict):
            remember_marketplace(state, found, source)
        return found
    raise PluginError(
        f"no marketplace named {quoted(name, 64)}: add it with pleat plugin marketplace add"
    )


def _fetch_plugin(entry: PluginEntry, fresh: Path) -> None:
    """The plugin's files copied (a directory) or cloned (a git source) into `fresh`."""
    if entry.directory is not None:
        copy_tree(entry.directory, fresh)
        return
    assert entry.git_url is not None
    clone = fresh.with_name(fresh.name + "-clone")
    try:
        git_clone(entry.git_url, clone, entry.git_ref)
        copy_tree(inside(clone, entry.git_path or ".", "path"), fresh)
    finally:
        shutil.rmtree(clone, ignore_errors=True)


def install(key: str, known: Mapping[str, Any] | None = None, *, enable: bool = True) -> str:
    """`pleat plugin install PLUGIN@MARKET`: copied into the data directory and enabled (not
    when a settings file's enabledPlugins asked for it: `enable` False, so the settings keep
    deciding, in that workspace only; found by review)."""
    plugin, market = split_key(key)
    state = read_state()
    found = find_marketplace(market, state, known)
    entry = found.plugins.get(plugin)
    if entry is None:
        names = ", ".join(sorted(found.plugins)[:20]) or "none"
        raise PluginError(f"marketplace {market} has no plugin {plugin} (it has: {names})")
    parent = plugins_home() / "installed" / market
    fresh = _scratch(parent, plugin)
    try:
        _fetch_plugin(entry, fresh)
        manifest = read_manifest(fresh, listed_as=plugin)
        target = parent / plugin
        replace_dir(fresh, target)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    version = manifest.version or entry.version
    with changing_state() as now:  # read again: another process may have changed it meanwhile
        now.installed[key] = {"version": version, "path": str(target)}
        if enable:
            now.enabled[key] = True
    what = f" {version}" if version else ""
    notes = "".join(f"\n  note: {note}" for note in manifest.notes)
    runs = ""
    if manifest.hooks or manifest.servers:
        runs = " (its hooks and servers are shown to you for approval before they first run)"
    enabled = "enabled" if enable else "on where the settings enable it"
    return f"installed {key}{what}, {enabled}{runs}{notes}"


def uninstall(key: str) -> str:
    plugin, market = split_key(key)
    with changing_state() as state:
        if state.installed.pop(key, None) is None:
            raise PluginError(f"{key} is not installed (pleat plugin list)")
        state.enabled.pop(key, None)
        shutil.rmtree(plugins_home() / "installed" / market / plugin, ignore_errors=True)
    return f"uninstalled {key}"


def set_enabled(key: str, enabled: bool) -> str:
    """Enable or disable an installed plugin (from the next session on)."""
    split_key(key)
    with changing_state() as state:
        if key not in state.installed:
            raise PluginError(f"{key} is not installed: pleat plugin install {key}")
        state.enabled[key] = enabled
    return f"{key} {'enabled' if enabled else 'disabled'} (from the next session on)"


__all__ = ["github_url", "install", "set_enabled", "split_key", "uninstall"]
