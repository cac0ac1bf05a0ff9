"""Claude Code's settings files merged as Claude Code merges them (user < project < local), into
pleat's configuration between its own layers; what tightens holds at once, what loosens waits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.claude_code.settings import approve, read_claude_settings
from agent.claude_code.settings_file import SettingsFile
from agent.config import load_config
from agent.permissions.policy import Permissions
from agent.session.configure import with_claude_status_line


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def environ(tmp_path: Path, user: dict[str, Any]) -> dict[str, str]:
    write(tmp_path / "claude" / "settings.json", user)
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


def test_layers_in_claude_codes_order_with_config_toml_between(
    workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    env = environ(
        tmp_path,
        {"model": "claude-sonnet-4-5", "permissions": {"defaultMode": "plan", "allow": ["Read"]}},
    )
    write(pleat_home / "config.toml", {})  # replaced below by TOML text
    (pleat_home / "config.toml").write_text(
        'model = "openai/from-config"\npermission_mode = "ask"\n'
    )
    local = {"permissions": {"defaultMode": "acceptEdits", "deny": ["Bash(rm:*)"]}}
    write(workspace / ".claude" / "settings.local.json", local)
    settings = read_claude_settings(workspace, env, approve_all=True)
    config = load_config({}, environ={}, claude=settings)
    assert config.model == "openai/from-config"  # config.toml over the user's file
    assert config.permission_mode == "accept-edits"  # the project's local file over config.toml
    assert config.allow == ("read_file", "list_dir") and config.deny == ("run_command(rm *)",)
    flags = load_config({"model": "x/y"}, environ={}, claude=settings)
    assert flags.model == "x/y"  # the command line over all
    alone = load_config(
        {}, environ={}, claude=read_claude_settings(workspace, env), path=tmp_path / "none.toml"
    )
    assert alone.model == "anthropic/claude-sonnet-4-5"  # a bare Claude id is Anthropic's


def test_a_projects_tightening_rules_hold_unapproved_and_its_loosening_ones_wait(
    workspace: Path, tmp_path: Path
) -> None:
    env = environ(tmp_path, {})
    project = {
        "permissions": {"deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"], "allow": ["Bash"]},
        "env": {"FLAG": "1"},
    }
    write(workspace / ".claude" / "settings.json", project)
    waiting = read_claude_settings(workspace, env)
    config = load_config({}, environ={}, claude=waiting)
    assert config.deny == ("read_file(.env)", "list_dir(.env)")
    assert config.ask == ("run_command(git push *)",)
    assert config.allow == () and waiting.env == {}
    (file,) = waiting.waiting
    approve(file)
    approved = read_claude_settings(workspace, env)
    assert approved.waiting == [] and approved.env == {"FLAG": "1"}
    assert load_config({}, environ={}, claude=approved).allow == ("run_command",)


def test_an_ask_rule_asks_in_full_auto_and_deny_beats_it(workspace: Path) -> None:
    from tools.registry import default_registry

    registry = default_registry(30.0)
    shell = registry.get("run_command")
    assert shell is not None
    permissions = Permissions.from_settings(
        "full-auto", (), ("run_command(git push --force *)",), ("run_command(git push *)",)
    )
    asked = permissions.decide(shell, {"command": "git push origin"}, workspace)
    assert asked.action == "ask" and asked.ask_rule == "run_command(git push *)"
    assert asked.always == ()  # no "always" for what an ask rule asks
    forced = permissions.decide(shell, {"command": "git push --force x"}, workspace)
    assert forced.action == "refuse"
    assert permissions.decide(shell, {"command": "git status"}, workspace).action == "run"


def test_bad_values_and_unread_keys_are_said_and_the_rest_is_used(
    workspace: Path, tmp_path: Path
) -> None:
    env = environ(
        tmp_path,
        {
            "model": "opus",
            "permissions": {"defaultMode": "auto", "allow": ["Bash(ls)", "(bad"], "deny": "x"},
            "env": {"OK": "yes", "BAD NAME": "x", "N": 2},
            "apiKeyHelper": "~/key.sh",
            "statusLine": {"type": "command", "command": "~/line.sh"},
        },
    )
    settings = read_claude_settings(workspace, env)
    config = with_claude_status_line(load_config({}, environ={}, claude=settings), settings)
    assert config.model is None and config.permission_mode == "ask"
    assert config.allow == ("run_command(ls)",)
    assert settings.env == {"OK": "yes", "N": "2"}
    assert config.status_line is not None and config.status_line.command == "~/line.sh"
    said = "\n".join(settings.notes)
    for part in (
        "Claude Code alias",
        "permission_mode",
        "'(bad'",
        "permissions.deny must be a list",
        "env.BAD NAME",
        "does not act on apiKeyHelper",
    ):
        assert part in said, part


def test_the_approval_digest_leaves_out_only_what_tightens() -> None:
    tight = SettingsFile("s", "k", "project", {"$schema": "x", "permissions": {"deny": ["Read"]}})
    assert tight.approvable == {} and tight.approval_digest == ""
    loose = SettingsFile(
        "s", "k", "project", {"permissions": {"deny": ["Read"], "allow": ["Edit"]}}
    )
    assert loose.approvable == {"permissions": {"allow": ["Edit"]}}
    other = SettingsFile(
        "s", "k", "project", {"permissions": {"deny": ["Bash"], "allow": ["Edit"]}}
    )
    assert other.approval_digest == loose.approval_digest  # a deny changed: nothing to ask


def test_claude_codes_file_rules_cover_their_kin_and_its_path_forms() -> None:
    from agent.claude_code.tools import pleat_rules

    home = Path("/home/u")
    assert pleat_rules("Edit(src/**)", home) == ["edit_file(src/**)", "write_file(src/**)"]
    assert pleat_rules("Read(./.env)", home) == ["read_file(.env)", "list_dir(.env)"]
    assert pleat_rules("Read(.env)", home)[:2] == ["read_file(.env)", "read_file(*/.env)"]
    assert pleat_rules("Read(//etc/shadow)", home)[0] == "read_file(/etc/shadow)"
    assert pleat_rules("Read(~/.ssh/**)", home)[0] == "read_file(/home/u/.ssh/**)"
    assert pleat_rules("Read(/docs/*.md)", home)[0] == "read_file(docs/*.md)"
    assert pleat_rules("Bash(npm run test:*)", home) == ["run_command(npm run test *)"]
    assert pleat_rules("mcp__docs__search", home) == ["mcp__docs__search"]
