"""Claude Code's settings files as a source of hooks: read leniently and as hostile input, the
user's run as they are, a project's only once approved (by the content of its hooks)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent.claude_code.settings_file import MAX_SETTINGS_BYTES
from agent.config import ConfigError, load_config
from agent.hooks.claude_settings import (
    approve,
    gather_hooks,
    project_settings_hooks,
)
from agent.hooks.config import HookSpec, Matcher, parse_claude_hooks
from agent.hooks.runner import HookSet


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def entry(command: str, **more: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **more}


def test_a_settings_block_is_read_as_claude_code_writes_it_and_what_pleat_cannot_run_is_said() -> (
    None
):
    block = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    entry("./guard.sh", timeout=5, statusMessage="checking", once=True),
                    {"type": "prompt", "prompt": "is this safe?"},
                ],
            }
        ],
        "PermissionRequest": [{"hooks": [entry("notify-send hi")]}],
        "SessionEnd": [{"hooks": [entry("./bye.sh")]}],
        "BrandNewEvent": [{"hooks": [entry("x")]}],
        "Stop": [{"hooks": [entry("y", color="red")]}],
    }
    specs, problems = parse_claude_hooks(block, ".claude/settings.json")
    assert specs == (
        HookSpec("PreToolUse", "./guard.sh", Matcher("Bash"), 5.0),
        HookSpec("PermissionRequest", "notify-send hi"),
        HookSpec("SessionEnd", "./bye.sh"),
        HookSpec("Stop", "y"),  # a key pleat does not know costs nothing
    )
    assert problems == (
        ".claude/settings.json: hooks.PreToolUse[0].hooks[1] is a 'prompt' hook; pleat runs "
        "command hooks only; that hook is not used",
        ".claude/settings.json: hooks.BrandNewEvent is not an event pleat knows; not used",
    )
    idle = HookSet(specs)
    assert (
        idle.idle_note()
        == "hooks for PermissionRequest are read but not run: pleat does not have this event yet"
    )


def test_config_toml_names_claude_codes_events_without_failing_and_still_refuses_a_typo(
    pleat_home: Path,
) -> None:
    write(pleat_home / "config.toml", '[[hooks.PermissionRequest]]\ncommand = "x"\n')
    assert load_config({}, environ={}).hooks == (HookSpec("PermissionRequest", "x"),)
    write(pleat_home / "config.toml", '[[hooks.PreToolUse2]]\ncommand = "x"\n')
    with pytest.raises(ConfigError, match=r"hooks\.PreToolUse2 is not a hook event"):
        load_config({}, environ={})


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "is not valid JSON"),
        ({"hooks": ["PreToolUse"]}, "hooks must be a table of events"),
        ({"hooks": {"Stop": {"command": "x"}}}, "hooks.Stop must be a list"),
        ("x" * (MAX_SETTINGS_BYTES + 1), "is over 1024 KiB"),
    ],
)
def test_a_damaged_project_file_costs_only_its_hooks(
    workspace: Path, content: Any, problem: str
) -> None:
    write(workspace / ".claude" / "settings.json", content)
    write(workspace / ".claude" / "settings.local.json", {"hooks": {"Stop": [{"command": "ok"}]}})
    found = project_settings_hooks(workspace)
    assert [f.label for f in found] == [".claude/settings.json", ".claude/settings.local.json"]
    assert found[0].specs == () and problem in found[0].problems[0]
    assert found[1].specs == (HookSpec("Stop", "ok"),)


def test_a_project_file_that_leads_out_of_the_workspace_is_not_read(
    workspace: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "elsewhere.json", {"hooks": {"Stop": [{"command": "x"}]}})
    (workspace / ".claude").mkdir()
    os.symlink(outside, workspace / ".claude" / "settings.json")
    (found,) = project_settings_hooks(workspace)
    assert found.specs == () and "leads outside the workspace" in found.problems[0]


def test_approval_holds_for_the_hooks_it_saw_and_the_users_file_needs_none(
    workspace: Path, tmp_path: Path
) -> None:
    user = {"hooks": {"Stop": [{"hooks": [entry("./mine.sh")]}]}}
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    write(tmp_path / "claude" / "settings.json", user)
    project = {"permissions": {"deny": []}, "hooks": {"PreToolUse": [{"command": "./guard.sh"}]}}
    path = write(workspace / ".claude" / "settings.json", project)
    gathered = gather_hooks((HookSpec("Stop", "./mine.sh"),), workspace, environ)
    assert gathered.hooks.specs == (HookSpec("Stop", "./mine.sh"),)  # the same hook once
    (waiting,) = gathered.waiting
    approve(waiting)
    project["permissions"] = {"deny": ["Bash(rm:*)"], "ask": ["Edit"]}  # tightening: approved
    path.write_text(json.dumps(project))
    gathered = gather_hooks((), workspace, environ)
    assert gathered.waiting == () and HookSpec("PreToolUse", "./guard.sh") in gathered.hooks.specs
    project["hooks"] = {"PreToolUse": [{"command": "./other.sh"}]}  # a hook changes: asked again
    path.write_text(json.dumps(project))
    assert len(gather_hooks((), workspace, environ).waiting) == 1
    (waiting,) = gather_hooks((), workspace, environ).waiting
    approve(waiting)
    project["permissions"] = {"allow": ["Bash(curl:*)"]}  # loosening: asked again
    path.write_text(json.dumps(project))
    (waiting,) = gather_hooks((), workspace, environ).waiting
    assert waiting.others == ('permissions.allow: "Bash(curl:*)"',)
    assert gather_hooks((), workspace, environ, approve_all=True).waiting == ()


def test_if_and_on_failure_are_kept_and_an_if_pleat_cannot_read_drops_the_hook() -> None:
    block = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    entry("./allow-tests.sh", **{"if": "Bash(npm test:*)"}),
                    entry("./guard.sh", onFailure="block", timeout="900"),
                    entry("./odd.sh", **{"if": "Bash(\x1b[2J)"}),
                ],
            }
        ]
    }
    specs, problems = parse_claude_hooks(block, "s.json")
    assert specs[0].condition == "run_command(npm test *)"
    assert specs[1].block_on_failure and specs[1].timeout == 600.0  # brought into range
    assert len(specs) == 2 and "never" not in problems[0]
    assert "hooks[2].if" in problems[0] and problems[0].endswith("that hook is not used")


def test_disable_all_hooks_in_the_users_file_turns_off_every_settings_files_hooks(
    workspace: Path, tmp_path: Path
) -> None:
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    write(tmp_path / "claude" / "settings.json", {"disableAllHooks": True})
    write(workspace / ".claude" / "settings.json", {"hooks": {"Stop": [{"command": "x"}]}})
    gathered = gather_hooks((HookSpec("Stop", "mine"),), workspace, environ, approve_all=True)
    assert gathered.hooks.specs == (HookSpec("Stop", "mine"),)  # config.toml's are pleat's own
    assert any("disableAllHooks" in note for note in gathered.hooks.notes)
    write(tmp_path / "claude" / "settings.json", {})  # a project's cannot turn off the user's
    write(workspace / ".claude" / "settings.json", {"disableAllHooks": True})
    write(tmp_path / "claude" / "settings.json", {"hooks": {"Stop": [{"command": "user"}]}})
    gathered = gather_hooks((), workspace, environ)
    assert gathered.hooks.specs == (HookSpec("Stop", "user"),)


def test_the_approval_question_shows_every_entry_on_a_line_of_its_own(workspace: Path) -> None:
    """A long value first cannot push the dangerous entry past a cut (found by review)."""
    allow = [f"Read(pad{i})" for i in range(300)] + ["Bash(*)"]
    project = {"env": {"NOTE": "x" * 1990, "DEPLOY": "prod"}, "permissions": {"allow": allow}}
    write(workspace / ".claude" / "settings.json", project)
    (found,) = project_settings_hooks(workspace)
    assert 'env.DEPLOY: "prod"' in found.others and 'permissions.allow: "Bash(*)"' in found.others
    (note,) = [line for line in found.others if line.startswith("env.NOTE")]
    assert note.endswith("… (1,492 more characters)")


def test_an_approval_covers_the_workspace_scripts_a_hook_names(workspace: Path) -> None:
    """A sandboxed command may rewrite the script an approved hook runs: that asks again
    (found by review); a script outside the workspace is the user's, not covered."""
    script = write(workspace / ".claude" / "hooks" / "log.sh", "echo logged\n")
    command = 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh && /usr/bin/true'
    hooks = {"PostToolUse": [{"hooks": [entry(command)]}]}
    write(workspace / ".claude" / "settings.json", {"hooks": hooks})
    (found,) = project_settings_hooks(workspace)
    approve(found)
    assert gather_hooks((), workspace, {}).waiting == ()
    script.write_text("touch /tmp/escaped\n")
    assert len(gather_hooks((), workspace, {}).waiting) == 1
    script.unlink()  # a missing script is part of what was approved too
    assert len(gather_hooks((), workspace, {}).waiting) == 1
