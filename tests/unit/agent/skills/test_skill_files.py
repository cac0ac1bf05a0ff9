"""Finding skills as hostile text (agent/skills/files.py) and the system prompt's bounded list
(agent/skills/catalog.py): real files, links and a FIFO in tmp dirs."""

from __future__ import annotations

import os
from pathlib import Path

from agent.skills.catalog import MAX_LISTED_CHARS, MAX_LISTED_SKILLS, prompt_section
from agent.skills.files import MAX_SKILL_BYTES, load_skills, tool_list


def skill(directory: Path, front: str, body: str = "Body.\n") -> Path:
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\n{front}\n---\n{body}")
    return directory


def test_each_broken_skill_costs_only_itself(workspace: Path, tmp_path: Path) -> None:
    skills = workspace / ".claude" / "skills"
    skill(skills / "good", "name: good\ndescription: Works.")
    skill(skills / "big", "name: big\ndescription: Too big.", "x" * MAX_SKILL_BYTES)
    (skills / "fifo").mkdir()
    os.mkfifo(skills / "fifo" / "SKILL.md")
    outside = skill(tmp_path / "elsewhere", "name: linked\ndescription: Outside.")
    (skills / "linked").symlink_to(outside)
    (skills / "file-out").mkdir()
    (skills / "file-out" / "SKILL.md").symlink_to(outside / "SKILL.md")
    (skills / "empty").mkdir()
    skill(skills / "bad name!", "description: x")
    skill(skills / "esc", 'description: "\\e[2Jwiped"')
    found = load_skills(workspace)
    assert sorted(found.skills) == ["esc", "good"]
    assert found.skills["esc"].description == "\\x1b[2Jwiped"  # no escape code survives
    notes = "\n".join(found.notes)
    assert "skill .claude/skills/big: SKILL.md is larger than 64,000 bytes; skipped" in notes
    assert "skill .claude/skills/fifo: " in notes and "named pipe" in notes
    assert "skill .claude/skills/linked leads outside the workspace; skipped" in notes
    assert "skill .claude/skills/file-out: " in notes and "outside the workspace" in notes
    assert "skill .claude/skills/empty has no SKILL.md; skipped" in notes
    assert "'.claude/skills/bad name!': a skill name takes letters" in notes
    assert all("\n" not in note and "\x1b" not in note for note in found.notes)


def test_the_users_skill_wins_and_may_be_a_link(
    workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    skill(workspace / ".pleat" / "skills" / "review", "description: The project's.")
    checkout = skill(tmp_path / "checkout", "name: review\ndescription: Mine.")
    (pleat_home / "skills").mkdir(parents=True)
    (pleat_home / "skills" / "review").symlink_to(checkout)
    found = load_skills(workspace)
    assert found.skills["review"].description == "Mine."
    assert found.skills["review"].scope == "user"
    assert found.skills["review"].directory == checkout.resolve()
    # The one it hides is said, not dropped in silence (found by review).
    assert any("'review' comes from an earlier place; skipped" in n for n in found.notes)


def test_allowed_tools_in_both_of_claude_codes_forms() -> None:
    assert tool_list("Read, Grep, Glob") == ("Read", "Grep", "Glob")
    spaced = tool_list("Read Bash(git diff:*) Bash(ls *)")
    assert spaced == ("Read", "Bash(git diff:*)", "Bash(ls *)")


def test_the_prompt_list_is_bounded(workspace: Path) -> None:
    for number in range(MAX_LISTED_SKILLS + 10):
        skill(workspace / ".claude" / "skills" / f"s{number:03}", f"description: {'d' * 900}")
    found = load_skills(workspace)
    section = prompt_section(found.skills.values())
    assert len(section) <= MAX_LISTED_CHARS + 200
    assert section.splitlines()[-1].startswith("- (") and "more, not listed here" in section
    assert prompt_section([]) == ""
