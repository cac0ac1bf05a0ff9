"""Enabled plugins as a run loads them: from pleat's state or Claude Code's enabledPlugins and
extraKnownMarketplaces, their commands namespaced, their agents joining, their hooks and servers
rooted at the installed copy and run only once that exact content is approved."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from agent.commands.catalog import CommandCatalog
from agent.hooks.process import run_hook
from agent.plugins.files import PluginError
from agent.plugins.install import add_marketplace, install, set_enabled
from agent.plugins.loaded import load_plugins
from agent.plugins.parts import ROOT_VARIABLE, approve, gate, run_parts
from agent.plugins.state import read_state, state_path
from agent.subagents.definitions import load_definitions
from tests.support.plugin_market import MARKET, make_market

SERVER = {"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": ["--x"]}}}


@pytest.fixture
def market(tmp_path: Path) -> Path:
    return make_market(tmp_path / "market")


def test_claude_codes_settings_install_and_enable_a_plugin_of_a_known_marketplace(
    market: Path,
) -> None:
    known = {MARKET: {"source": {"source": "directory", "path": str(market)}}}
    enabled = {f"build-kit@{MARKET}": True, f"context-hook@{MARKET}": False}
    found = load_plugins(enabled, known)
    assert [p.key for p in found.plugins] == [f"build-kit@{MARKET}"]
    assert "enabledPlugins in Claude Code's settings" in found.notes[0]
    # pleat's own disable wins over the settings from then on.
    set_enabled(f"build-kit@{MARKET}", False)
    assert load_plugins(enabled, known).plugins == []


def test_a_plugin_the_settings_enable_from_an_unknown_marketplace_is_one_note() -> None:
    found = load_plugins({"x@nowhere": True}, {})
    assert found.plugins == [] and found.notes == [
        "plugin x@nowhere (enabledPlugins) not installed: no marketplace named 'nowhere': add "
        "it with pleat plugin marketplace add"
    ]


def test_commands_are_namespaced_and_reachable_bare_where_the_name_is_free(
    market: Path, workspace: Path
) -> None:
    add_marketplace(str(market), Path.cwd())
    install(f"build-kit@{MARKET}")
    sources = load_plugins().command_sources()
    catalog = CommandCatalog(workspace, sources=(), plugin_sources=sources)
    catalog.refresh()
    assert [c.name for c in catalog.commands] == ["build-kit:build-kit"]
    assert catalog.get("build-kit") is catalog.get("build-kit:build-kit")
    # A project's own /build-kit takes the bare name; the plugin's stays reachable.
    own = workspace / ".claude" / "commands"
    own.mkdir(parents=True)
    (own / "build-kit.md").write_text("the project's own\n")
    catalog = CommandCatalog(workspace, plugin_sources=sources)
    catalog.refresh()
    mine = catalog.get("build-kit")
    assert mine is not None and mine.scope == "project"
    theirs = catalog.get("build-kit:build-kit")
    assert theirs is not None and theirs.scope == "plugin"


def test_a_plugins_agent_whose_name_is_taken_is_named_plugin_colon_agent(
    market: Path, workspace: Path
) -> None:
    add_marketplace(str(market), Path.cwd())
    install(f"build-kit@{MARKET}")
    own = workspace / ".claude" / "agents"
    own.mkdir(parents=True)
    (own / "surveyor.md").write_text("---\ndescription: the project's explorer\n---\nhi\n")
    found = load_definitions(workspace, {"read_file"}, plugin_dirs=load_plugins().agent_dirs())
    assert found.agents["surveyor"].description == "the project's explorer"
    assert "Maps the code a feature touches" in found.agents["build-kit:surveyor"].description
    assert "planner" in found.agents


def test_hooks_and_servers_run_only_once_this_content_is_approved(market: Path) -> None:
    (market / "plugins" / "context-hook" / ".mcp.json").write_text(json.dumps(SERVER))
    add_marketplace(str(market), Path.cwd())
    install(f"context-hook@{MARKET}")
    plugins = load_plugins()
    waiting = gate(plugins)
    assert waiting.hooks == [] and waiting.servers == [] and len(waiting.waiting) == 1
    parts = waiting.waiting[0]
    root = str(parts.root)
    assert parts.hooks[0].env == ((ROOT_VARIABLE, root),) and not parts.hooks[0].sandboxed
    server = parts.servers[0]
    assert server.command == f"{root}/bin/db" and (ROOT_VARIABLE, root) in server.env
    assert not server.project and not server.sandboxed
    assert any("session-start.sh" in item for item in parts.items())

    by_yes = gate(plugins, approve_all=True)
    assert len(by_yes.hooks) == 1 and len(by_yes.servers) == 1
    assert "runs (approved by --yes)" in by_yes.lines[0]
    approve(parts)
    approved = gate(plugins)
    assert len(approved.hooks) == 1 and approved.waiting == [] and approved.lines == []

    # A change of the installed copy (by anyone) asks again.
    hooks_file = Path(root) / "hooks" / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace("session-start.sh", "other.sh"))
    changed = gate(load_plugins())
    assert changed.hooks == [] and len(changed.waiting) == 1


def test_a_hook_sees_its_plugins_root_in_its_environment(market: Path) -> None:
    add_marketplace(str(market), Path.cwd())
    install(f"context-hook@{MARKET}")
    parts = run_parts(load_plugins().plugins[0])
    assert parts is not None
    spec = parts.hooks[0]
    done = asyncio.run(run_hook(spec, b"{}", parts.root, dict(os.environ)))
    assert done.exit_code == 0 and "House rules" in done.stdout


def test_a_damaged_state_file_is_said_and_never_written_over(market: Path) -> None:
    state_path().parent.mkdir(parents=True)
    state_path().write_text('{"installed": {"a@b": ')
    with pytest.raises(PluginError, match="is damaged"):
        read_state()
    with pytest.raises(PluginError, match="is damaged"):
        add_marketplace(str(market), Path.cwd())
    assert state_path().read_text() == '{"installed": {"a@b": '
    assert "is damaged" in load_plugins().notes[0]


def test_an_installed_copy_that_is_gone_is_one_note(market: Path) -> None:
    add_marketplace(str(market), Path.cwd())
    install(f"build-kit@{MARKET}")
    shutil.rmtree(read_state().installed[f"build-kit@{MARKET}"]["path"])
    found = load_plugins()
    assert found.plugins == [] and "its installed copy is gone" in found.notes[0]


def test_a_plugin_the_settings_installed_stays_theirs_to_turn_off(market: Path) -> None:
    """Installed because a settings file enabled it, it is not enabled for every workspace
    (found by review)."""
    known = {MARKET: {"source": {"source": "directory", "path": str(market)}}}
    key = f"build-kit@{MARKET}"
    assert [p.key for p in load_plugins({key: True}, known).plugins] == [key]
    assert load_plugins({key: False}, known).plugins == []
    assert load_plugins({}, known).plugins == []


def test_a_bad_marketplace_path_or_servers_block_is_one_note_never_a_crash(
    market: Path, tmp_path: Path
) -> None:
    for path in ("~nosuchuser-pleat/m", "a\x00b"):
        known = {"km": {"source": {"source": "directory", "path": path}}}
        found = load_plugins({"x@km": True}, known)
        assert found.plugins == [] and "cannot be used" in found.notes[0]
    manifest = market / "plugins" / "build-kit" / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "build-kit", "mcpServers": {"mcpServers": [1, 2]}}))
    add_marketplace(str(market), Path.cwd())
    install(f"build-kit@{MARKET}")
    (plugin,) = load_plugins().plugins
    assert run_parts(plugin) is None
    assert any("mcpServers must be an object" in note for note in plugin.manifest.notes)


def test_the_approval_covers_the_scripts_and_no_link_leads_out(
    market: Path, tmp_path: Path
) -> None:
    hook_dir = market / "plugins" / "context-hook" / "hooks-handlers"
    outside = tmp_path / "outside.sh"
    outside.write_text("echo planted\n")
    (hook_dir / "link.sh").symlink_to(outside)
    add_marketplace(str(market), Path.cwd())
    install(f"context-hook@{MARKET}")
    (plugin,) = load_plugins().plugins
    assert not (plugin.manifest.root / "hooks-handlers" / "link.sh").exists()  # not copied
    parts = run_parts(plugin)
    assert parts is not None
    approve(parts)
    (hook_dir / "session-start.sh").write_text("#!/bin/sh\necho changed\n")
    install(f"context-hook@{MARKET}")  # a reinstall that changes the script
    (again,) = load_plugins().plugins
    assert gate(load_plugins()).waiting and run_parts(again) is not None


def test_a_refused_marketplace_add_leaves_the_known_ones_clone(tmp_path: Path) -> None:
    """Two git marketplaces of one name: the second add is refused and the first one's clone is
    what installs still come from (found by review)."""
    from agent.plugins.state import plugins_home
    from tests.support.plugin_market import bare_repository

    first = bare_repository(make_market(tmp_path / "one"), tmp_path / "one.git")
    second_market = make_market(tmp_path / "two")
    shutil.rmtree(second_market / "plugins" / "build-kit")
    listing = json.loads((second_market / ".claude-plugin" / "marketplace.json").read_text())
    listing["plugins"] = [p for p in listing["plugins"] if p["name"] != "build-kit"]
    (second_market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listing))
    second = bare_repository(second_market, tmp_path / "two.git")
    add_marketplace(str(first), Path.cwd())
    with pytest.raises(PluginError, match="already known"):
        add_marketplace(str(second), Path.cwd())
    assert (plugins_home() / "marketplaces" / MARKET / "plugins" / "build-kit").is_dir()


def test_an_install_keeps_a_marketplace_added_while_it_fetched(
    market: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another pleat adds a marketplace during an install's copy: neither change is lost (the
    state is read again under a lock before it is written; found by review)."""
    import agent.plugins.install as installing
    from agent.plugins.install import _fetch_plugin

    other = make_market(tmp_path / "other", name="other-market")
    add_marketplace(str(market), Path.cwd())

    def fetch_meanwhile(entry: object, target: Path) -> None:
        add_marketplace(str(other), Path.cwd())  # as another process would, mid-install
        _fetch_plugin(entry, target)  # type: ignore[arg-type]

    monkeypatch.setattr(installing, "_fetch_plugin", fetch_meanwhile)
    install(f"build-kit@{MARKET}")
    state = read_state()
    assert sorted(state.marketplaces) == [MARKET, "other-market"]
    assert f"build-kit@{MARKET}" in state.installed
