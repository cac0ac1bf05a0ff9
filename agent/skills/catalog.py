"""What the model and the user are told of the skills: the system prompt's list, and /skills."""

from __future__ import annotations

from collections.abc import Iterable

from agent.skills.files import Skill, SkillSet

# Skills named in the system prompt at most, and characters of that list at most (about 1,500
# tokens): the list rides in every request, so a directory of hundreds of skills must not eat a
# small window; the ones left out are still loaded by name, and /skills lists them all.
MAX_LISTED_SKILLS = 40
MAX_LISTED_CHARS = 6_000
# Characters of one description in that list: enough for what a skill does and when to use it
# (Claude Code's own descriptions run 100 to 300); the whole of it shows in /skills.
MAX_LISTED_DESCRIPTION = 300
# The tool that loads a skill (agent/skills/tool.py).
SKILL_TOOL = "skill"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def prompt_section(skills: Iterable[Skill]) -> str:
    """The system prompt's lines about skills: how to use them, then a name and a description
    per skill, bounded; "" without skills."""
    chosen = sorted(skills, key=lambda skill: skill.name)
    if not chosen:
        return ""
    lines = [
        "Skills (instructions for particular tasks): when one fits the task, call "
        f"{SKILL_TOOL} with its name first, then follow what it says; read the files it names "
        "with read_file, by the paths it gives.",
    ]
    used = len(lines[0])
    for index, skill in enumerate(chosen):
        line = f"- {skill.name}: {_cut(skill.description, MAX_LISTED_DESCRIPTION)}"
        if index >= MAX_LISTED_SKILLS or used + len(line) > MAX_LISTED_CHARS:
            left = len(chosen) - index
            lines.append(f"- ({left} more, not listed here: {SKILL_TOOL} loads any by name)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def listing_lines(found: SkillSet) -> list[str]:
    """/skills: each skill with where it is and its description, then the notes."""
    if not found.skills and not found.notes:
        return [
            "No skills. A skill is a directory NAME/ holding SKILL.md, in .pleat/skills/ or "
            ".claude/skills/ of the project, or skills/ beside config.toml."
        ]
    lines = [f"{len(found.skills)} skill{'' if len(found.skills) == 1 else 's'}:"]
    for skill in sorted(found.skills.values(), key=lambda skill: skill.name):
        tools = ""
        if skill.allowed_tools:
            honoured = "" if skill.scope == "user" else f"; not honoured: a {skill.scope}'s skill"
            tools = f" (allowed-tools: {', '.join(skill.allowed_tools)}{honoured})"
        lines.append(f"- {skill.name} ({skill.scope}, {skill.shown}){tools}: {skill.description}")
    lines += [f"note: {note}" for note in found.notes]
    return lines
