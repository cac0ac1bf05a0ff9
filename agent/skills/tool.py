"""The `skill` tool: loads one skill's instructions into the conversation, by name.

Only names and descriptions are in the system prompt (agent/skills/catalog.py); the body reaches
the model as this call's result, with the directory its other files are read from. A user's
skill's `allowed-tools` run without asking until the user's next prompt (Claude Code's "while
the skill is active"); a project's skill comes with the repository, so its `allowed-tools` are
not honoured (it could grant itself any command): the calls ask as usual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.claude_code.tools import pleat_rule
from agent.permissions.policy import Permissions
from agent.skills.catalog import SKILL_TOOL
from agent.skills.files import Skill
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.paths import display_path, workspace_root

if TYPE_CHECKING:
    from agent.permissions.rules import Rule
    from tools.registry import ToolRegistry

# Names listed at most in the error for an unknown skill: enough to spot a typo; the system
# prompt lists them anyway.
MAX_NAMES_IN_ERROR = 20


def granted_rules(skill: Skill) -> tuple[list[Rule], list[str]]:
    """The rules a skill's allowed-tools give (pleat's names), and the entries that are no rule;
    none for a project's skill (see the module)."""
    from agent.permissions.rules import RuleError, parse_rule

    if skill.scope != "user":
        return [], []
    rules: list[Rule] = []
    bad: list[str] = []
    for entry in skill.allowed_tools:
        try:
            rules.append(parse_rule(pleat_rule(entry)))
        except RuleError:
            bad.append(entry)
    return rules, bad


class SkillTool(Tool):
    """Gives the model a skill's instructions (read-only: it changes nothing, asks nobody)."""

    name = SKILL_TOOL
    # As short as it can be: the schema rides in every request; the system prompt's list says
    # when to call it.
    description = (
        "Load a skill's instructions by name (the skills are listed in your instructions)."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 - the class attribute every tool sets
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    }
    read_only = True
    main_argument = "name"

    def __init__(
        self, skills: Mapping[str, Skill], permissions: Permissions, notes: Sequence[str] = ()
    ) -> None:
        self.skills = dict(skills)
        self.permissions = permissions
        self.notes = tuple(notes)  # the skills skipped, for the front end to show

    def describe_call(self, args: dict[str, Any]) -> str:
        return f"{self.name}({str(args.get('name', ''))[:80]})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        wanted = str(args["name"]).strip().lstrip("/")
        skill = self.skills.get(wanted)
        if skill is None:
            names = sorted(self.skills)
            more = len(names) - MAX_NAMES_IN_ERROR
            listed = ", ".join(names[:MAX_NAMES_IN_ERROR]) + (
                f" and {more} more" if more > 0 else ""
            )
            raise ToolError(f"no skill named {wanted[:80]!r}; the skills: {listed or 'none'}")
        granted, bad = granted_rules(skill)
        self.permissions.skill_allow += [
            r for r in granted if r not in self.permissions.skill_allow
        ]
        rules = list(map(str, granted))
        lines = [
            f'Skill "{skill.name}" loaded. Its files: {_where(skill.directory, ctx.workspace)}'
        ]
        if rules:
            lines.append(
                f"Until the user's next message these run without asking: {', '.join(rules)}."
            )
        if bad:
            lines.append(f"(allowed-tools entries that are no rule, ignored: {', '.join(bad)})")
        lines += ["", skill.body.strip()]
        meta = {"skill": skill.name, "scope": skill.scope, "allowed": rules}
        return ToolOutput("\n".join(lines), meta=meta)


def _where(directory: Path, workspace: Path) -> str:
    """The skill's directory as read_file takes it: relative inside the workspace, else whole."""
    if directory.is_relative_to(workspace_root(workspace)):
        return display_path(workspace, directory) + "/"
    return f"{directory}/"


def skill_notes(registry: ToolRegistry) -> tuple[str, ...]:
    """One line for each skill skipped, to show as the session opens (none without skills)."""
    tool = registry.get(SKILL_TOOL)
    return tool.notes if isinstance(tool, SkillTool) else ()
