"""Plugin manifests and marketplace files read as hostile input: each bad part is one line, the
rest is used; nothing leads out of the plugin's directory; nothing is read without bound."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.plugins.files import MAX_JSON_BYTES, PluginError
from agent.plugins.manifest import read_manifest
from agent.plugins.marketplace import read_marketplace
from tests.support.plugin_market import SAMPLES


def plugin(root: Path, manifest: object | str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (root / ".claude-plugin" / "plugin.json").write_text(text)
    return root


def test_a_real_plugins_manifest_gives_its_default_directories_and_hooks() -> None:
    found = read_manifest(SAMPLES / "context-hook")
    assert (found.name, found.version) == ("context-hook", "1.0.0")
    assert list(found.hooks) == ["SessionStart"]  # hooks.json's "hooks" object, unwrapped
    assert found.servers is None and found.notes == ()
    dev = read_manifest(SAMPLES / "build-kit")
    assert [p.name for p in dev.commands] == ["commands"] and dev.hooks is None


def test_custom_paths_supplement_the_defaults_and_inline_blocks_are_taken(tmp_path: Path) -> None:
    servers = {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/server"}}
    root = plugin(
        tmp_path / "p",
        {"name": "p", "commands": ["./extra", "./commands"], "agents": "./team",
         "hooks": {"Stop": []}, "mcpServers": servers},
    )  # fmt: skip
    found = read_manifest(root)
    assert [p.name for p in found.commands] == ["commands", "extra"]
    assert [p.name for p in found.agents] == ["agents", "team"]
    assert found.hooks == {"Stop": []} and found.servers == servers


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "plugin.json is not valid JSON"),
        ("[1, 2]", "must hold an object"),
        (json.dumps({"name": "../evil"}), "is not a name"),
        (json.dumps({"name": "a\x1b[31mb"}), "is not a name"),
        (json.dumps({"version": "1"}), "is not a name"),
        ("HUGE", "is over 1024 KiB"),
    ],
)
def test_a_manifest_that_cannot_be_used_is_one_line(tmp_path: Path, text: str, said: str) -> None:
    text = " " * (MAX_JSON_BYTES + 1) if text == "HUGE" else text
    with pytest.raises(PluginError) as error:
        read_manifest(plugin(tmp_path / "p", text))
    assert said in str(error.value) and "\n" not in str(error.value)
    assert "\x1b" not in str(error.value)


def test_paths_leading_out_of_the_plugin_are_refused_and_the_rest_used(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "hooks.json").write_text(json.dumps({"hooks": {"Stop": []}}))
    root = plugin(
        tmp_path / "p",
        {"name": "p", "commands": ["../outside", "/etc", "./ok"], "hooks": "./linked.json",
         "agents": "./away"},
    )  # fmt: skip
    (root / "linked.json").symlink_to(outside / "hooks.json")
    (root / "away").symlink_to(outside)
    found = read_manifest(root)
    assert [p.name for p in found.commands] == ["commands", "ok"]
    assert [p.name for p in found.agents] == ["agents"]
    assert found.hooks is None
    notes = "\n".join(found.notes)
    assert "'../outside' leads outside its directory" in notes
    assert "'/etc' is not relative to the plugin" in notes
    assert "'./away' leads outside its directory" in notes
    assert "hooks './linked.json' leads outside its directory" in notes  # a symlink, not read


def test_a_default_hooks_file_that_is_a_symlink_out_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"hooks": {"Stop": []}}))
    root = plugin(tmp_path / "p", {"name": "p"})
    (root / "hooks").mkdir()
    os.symlink(secret, root / "hooks" / "hooks.json")
    found = read_manifest(root)
    assert found.hooks is None and "leads outside" in found.notes[0]


def market(root: Path, listing: object | str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    text = listing if isinstance(listing, str) else json.dumps(listing)
    (root / ".claude-plugin" / "marketplace.json").write_text(text)
    return root


def test_a_marketplaces_entries_each_stand_alone(tmp_path: Path) -> None:
    root = market(
        tmp_path / "m",
        {"name": "m", "owner": {"name": "o"}, "plugins": [
            {"name": "here", "source": "./plugins/here", "description": "a\nb"},
            {"name": "up", "source": "../../etc"},
            {"name": "gh", "source": {"source": "github", "repo": "owner/repo"}},
            {"name": "git", "source": {"source": "url", "url": "https://h/x.git", "ref": "v1"}},
            {"name": "bad-gh", "source": {"source": "github", "repo": "../x"}},
            {"name": "opt", "source": {"source": "git", "url": "--upload-pack=x"}},
            {"name": "npm", "source": {"source": "npm", "package": "x"}},
            {"name": "here", "source": "./again"},
            "not an object",
        ]},
    )  # fmt: skip
    found = read_marketplace(root)
    assert sorted(found.plugins) == ["gh", "git", "here"]
    assert found.plugins["here"].description == "a b"
    assert found.plugins["gh"].git_url == "https://github.com/owner/repo.git"
    assert found.plugins["git"].git_ref == "v1"
    notes = "\n".join(found.notes)
    for said in (
        "leads outside",
        "repo must be owner/name",
        "url must be a git URL",
        "'npm' is not one pleat takes",
        "listed twice",
        "plugins[8] must be an object",
    ):
        assert said in notes
    assert len(found.notes) == 6


@pytest.mark.parametrize(
    ("listing", "said"),
    [
        ("{", "not valid JSON"),
        ({"name": "m"}, 'no "plugins" list'),
        ({"name": "m m", "plugins": []}, "is not a name"),
    ],
)
def test_a_marketplace_file_that_cannot_be_used_is_one_line(
    tmp_path: Path, listing: object, said: str
) -> None:
    with pytest.raises(PluginError) as error:
        read_marketplace(market(tmp_path / "m", listing))
    assert said in str(error.value)


def test_a_directory_without_a_marketplace_file_is_said_to_be_none(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="not a marketplace"):
        read_marketplace(tmp_path)
