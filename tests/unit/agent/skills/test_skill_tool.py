"""The skill tool (agent/skills/tool.py): loading by name, an unknown name, and what a skill's
allowed-tools grant (a user's skill only), on real skill files in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.policy import Permissions
from agent.skills.files import load_skills
from agent.skills.tool import SkillTool
from tools.base import ToolContext, ToolError


def skill(directory: Path, front: str) -> None:
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\n{front}\n---\nThe steps.\n")


def tool_for(workspace: Path, permissions: Permissions) -> SkillTool:
    found = load_skills(workspace)
    return SkillTool(found.skills, permissions, found.notes)


async def test_a_users_skill_grants_its_rules_and_names_the_bad_ones(
    workspace: Path, pleat_home: Path
) -> None:
    front = "description: Checks.\nallowed-tools: Grep, Bash(pytest:*), Bash(("
    skill(pleat_home / "skills" / "check", front)
    permissions = Permissions()
    output = await tool_for(workspace, permissions).run({"name": "check"}, ToolContext(workspace))
    assert [str(rule) for rule in permissions.skill_allow] == ["grep", "run_command(pytest *)"]
    assert "run without asking: grep, run_command(pytest *)." in output.text
    assert "no rule, ignored: Bash((" in output.text
    assert output.text.endswith("The steps.")


async def test_a_projects_skill_grants_nothing(workspace: Path) -> None:
    skill(workspace / ".pleat" / "skills" / "check", "description: Checks.\nallowed-tools: Bash")
    permissions = Permissions()
    output = await tool_for(workspace, permissions).run({"name": "check"}, ToolContext(workspace))
    assert permissions.skill_allow == [] and "without asking" not in output.text
    assert "Its files: .pleat/skills/check/" in output.text


async def test_an_unknown_name_lists_the_skills(workspace: Path) -> None:
    skill(workspace / ".claude" / "skills" / "alpha", "description: A.")
    with pytest.raises(ToolError, match="no skill named 'beta'; the skills: alpha"):
        await tool_for(workspace, Permissions()).run({"name": "beta"}, ToolContext(workspace))
