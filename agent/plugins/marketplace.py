"""A marketplace in Claude Code's format: `.claude-plugin/marketplace.json`, a named list of
plugins and where each one is.

    {"name": "team-tools", "owner": {"name": ...},
     "metadata": {"pluginRoot": "./plugins"},            optional: where bare sources are
     "plugins": [{"name": "x", "source": "./plugins/x", "description": ..., "version": ...},
                 {"name": "y", "source": {"source": "github", "repo": "owner/repo"}},
                 {"name": "z", "source": {"source": "url", "url": "https://host/z.git"}}]}

A relative source must stay inside the marketplace's directory. A plugin entry that cannot be
used is one note; the others are listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.plugins.files import NAME, PluginError, check_name, inside, read_json
from sessions.short_text import quoted

# Where the list is, inside a marketplace's directory (a checkout of its repository).
MARKETPLACE_FILE = ".claude-plugin/marketplace.json"
# Plugins one marketplace may list: Anthropic's has about a dozen, the large community ones a
# few hundred; past this a file is not a catalogue anyone reads, and it is cut with a note.
MAX_PLUGINS = 1_000
# Characters of a description kept for the list (one line).
MAX_DESCRIPTION_CHARS = 200


@dataclass(frozen=True)
class PluginEntry:
    """One plugin a marketplace lists: its name, where it is (a directory inside the
    marketplace, or a git repository to clone, with a directory inside it), and what it is."""

    name: str
    directory: Path | None = None  # a relative source, resolved
    git_url: str | None = None  # a github, git or url source
    git_ref: str | None = None
    git_path: str | None = None  # a directory inside the clone
    description: str = ""
    version: str = ""


@dataclass(frozen=True)
class Marketplace:
    """A marketplace's name, its directory, its plugins by name, and a note per entry left out."""

    name: str
    root: Path
    plugins: dict[str, PluginEntry]
    notes: tuple[str, ...] = ()


def github_url(repo: Any, label: str) -> str:
    """The clone URL of a `owner/repo` GitHub source."""
    parts = repo.split("/") if isinstance(repo, str) else []
    if len(parts) != 2 or any(NAME.fullmatch(part) is None for part in parts):
        raise PluginError(f"{label}: repo must be owner/name, got {quoted(repo, 80)}")
    return f"https://github.com/{repo}.git"


def git_source(source: dict[str, Any], label: str) -> tuple[str, str | None, str | None]:
    """(clone URL, ref, path inside) of an object source: github, git or url."""
    kind = source.get("source")
    if kind == "github":
        url = github_url(source.get("repo"), label)
    elif kind in ("git", "url"):
        given = source.get("url")
        if not isinstance(given, str) or not given.strip() or given.startswith("-"):
            raise PluginError(f"{label}: url must be a git URL, got {quoted(given, 80)}")
        url = given
    else:
        raise PluginError(
            f"{label}: source {quoted(kind, 40)} is not one pleat takes (github, git, url, "
            "or a ./path)"
        )
    ref, path = source.get("ref"), source.get("path")
    if ref is not None and (not isinstance(ref, str) or ref.startswith("-") or not ref):
        raise PluginError(f"{label}: ref must be a branch or tag name, got {quoted(ref, 40)}")
    if path is not None and not isinstance(path, str):
        raise PluginError(f"{label}: path must be a relative path, got {quoted(path, 40)}")
    return url, ref, path


def _entry(root: Path, base: Path, item: Any, index: int) -> PluginEntry:
    label = f"{MARKETPLACE_FILE}: plugins[{index}]"
    if not isinstance(item, dict):
        raise PluginError(f"{label} must be an object with name and source")
    name = check_name(item.get("name"), f"{label}.name")
    label = f"{MARKETPLACE_FILE}: plugin {name}"
    description, version = item.get("description"), item.get("version")
    about = " ".join(description.split()) if isinstance(description, str) else ""
    about = about[:MAX_DESCRIPTION_CHARS]
    version = version[:MAX_DESCRIPTION_CHARS] if isinstance(version, str) else ""
    source = item.get("source")
    if isinstance(source, str):
        directory = inside(
            base if not source.startswith("./") else root, source, f"{label}: source"
        )
        if not directory.is_relative_to(root.resolve()):
            raise PluginError(f"{label}: source leads outside the marketplace; not used")
        return PluginEntry(name, directory=directory, description=about, version=version)
    if isinstance(source, dict):
        url, ref, path = git_source(source, label)
        return PluginEntry(name, None, url, ref, path, description=about, version=version)
    raise PluginError(f"{label}: source must be a ./path or an object, got {quoted(source, 60)}")


def read_marketplace(root: Path) -> Marketplace:
    """The marketplace whose checkout (or directory) is `root`; PluginError when it has none or
    it cannot be used at all."""
    data = read_json(root, root / MARKETPLACE_FILE, MARKETPLACE_FILE)
    if data is None:
        raise PluginError(f"{root} has no {MARKETPLACE_FILE}; not a marketplace")
    if not isinstance(data, dict):
        raise PluginError(f"{MARKETPLACE_FILE} must hold an object; not a marketplace")
    name = check_name(data.get("name"), f"{MARKETPLACE_FILE}: name")
    items = data.get("plugins")
    if not isinstance(items, list):
        raise PluginError(f'{MARKETPLACE_FILE} has no "plugins" list; not a marketplace')
    notes: list[str] = []
    if len(items) > MAX_PLUGINS:
        notes.append(
            f"{MARKETPLACE_FILE} lists more than {MAX_PLUGINS:,} plugins; the rest left out"
        )
    metadata = data.get("metadata")
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    try:
        base = inside(root, plugin_root, "metadata.pluginRoot") if plugin_root else root
    except PluginError as error:
        notes.append(str(error))
        base = root
    plugins: dict[str, PluginEntry] = {}
    for index, item in enumerate(items[:MAX_PLUGINS]):
        try:
            entry = _entry(Path(root), base, item, index)
        except PluginError as error:
            notes.append(str(error))
            continue
        if entry.name in plugins:
            notes.append(
                f"{MARKETPLACE_FILE}: plugin {entry.name} is listed twice; the first is used"
            )
            continue
        plugins[entry.name] = entry
    return Marketplace(name, root, plugins, tuple(f"marketplace {name}: {n}" for n in notes))
