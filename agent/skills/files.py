"""Skills in Claude Code's format: finding `NAME/SKILL.md` files and reading them as hostile text.

A skill is a directory holding a SKILL.md (front matter `name` and `description`, optionally
`allowed-tools`; the body is the instructions) and any files beside it. The user's skills
($PLEAT_HOME/skills, Claude Code's ~/.claude/skills) win over a project's (.pleat/skills,
.claude/skills) on a name, as in Claude Code (personal over project). A project's skills come
with the repository, so nothing in them is trusted: a skill directory or SKILL.md leading out of
the workspace, a file that is not regular, one too large, bad front matter, a bad name or no
description costs that skill alone, with a one-line note.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.commands.files import CLAUDE_CONFIG_ENV
from agent.commands.front_matter import FrontMatterError, parse_document
from agent.config import config_path
from agent.terminal_text import visible
from sessions.short_text import quoted
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# A plugin's skills (agent/plugins/) are read as a user's: confined to their own directory.
Scope = Literal["user", "project", "plugin"]
# The file that makes a directory a skill (Claude Code's name for it).
SKILL_FILE = "SKILL.md"
# A skill's name: Claude Code asks for lower-case letters, digits and hyphens, at most 64; the
# upper case, "_" and "." of hand-written ones are taken too. Never a space, quote or control
# character, so a name is typed and shown as it is.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Characters of a description: Claude Code's limit. It joins the system prompt (cut shorter
# there: agent/skills/catalog.py), so a longer one is refused rather than silently cut.
MAX_DESCRIPTION_CHARS = 1024
# Bytes of a SKILL.md: as a command file's (agent/commands/files.py), some 16k tokens loaded on
# one call; a larger one is skipped (cutting instructions could change what they ask).
MAX_SKILL_BYTES = 64_000
# Entries looked at in one skills directory: a real setup has tens of skills; a hostile
# directory of millions is read only this far, with a note.
MAX_ENTRIES = 500


@dataclass(frozen=True)
class SkillSource:
    """One directory of skills: its scope, how it is named to the user, and (a plugin's) the
    namespace a skill is named in when its own name is taken: `plugin:skill`."""

    directory: Path
    scope: Scope
    shown: str
    namespace: str | None = None


@dataclass(frozen=True)
class Skill:
    """A usable skill: its name, its description (control characters made visible), the tools
    it lets run without asking while active (pleat's rule strings, as written), where it is, and
    the directory its files are read from (resolved)."""

    name: str
    description: str
    allowed_tools: tuple[str, ...]
    scope: Scope
    shown: str
    directory: Path
    body: str


@dataclass
class SkillSet:
    """The skills found, by name (the first source wins), and one note per skill skipped."""

    skills: dict[str, Skill] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _home_shown(path: Path) -> str:
    try:
        return f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        return str(path)


def skill_sources(workspace: Path) -> tuple[SkillSource, ...]:
    """Where skills are, first wins for a name: the user's (next to config.toml, then Claude
    Code's ~/.claude/skills), then the project's .pleat/skills and .claude/skills."""
    root = workspace_root(workspace)
    user = config_path().parent / "skills"
    claude_home = os.environ.get(CLAUDE_CONFIG_ENV)
    claude = Path(claude_home).expanduser() if claude_home else Path.home() / ".claude"
    return (
        SkillSource(user, "user", _home_shown(user)),
        SkillSource(claude / "skills", "user", _home_shown(claude / "skills")),
        SkillSource(root / ".pleat" / "skills", "project", ".pleat/skills"),
        SkillSource(root / ".claude" / "skills", "project", ".claude/skills"),
    )


def load_skills(workspace: Path, plugin_sources: Sequence[SkillSource] = ()) -> SkillSet:
    """Every skill of the user, the workspace and then the plugins (`plugin_sources`), with a
    note for each one skipped."""
    found = SkillSet()
    root = workspace_root(workspace)
    for source in (*skill_sources(workspace), *plugin_sources):
        _read_source(source, root, found)
    return found


def _read_source(source: SkillSource, root: Path, into: SkillSet) -> None:
    try:
        if not source.directory.is_dir():
            return
        with os.scandir(source.directory) as listing:
            entries = sorted(
                (entry for _, entry in zip(range(MAX_ENTRIES + 1), listing, strict=False)),
                key=lambda entry: entry.name,
            )
    except OSError as error:
        into.notes.append(f"{source.shown}: cannot be listed ({error.strerror or error})")
        return
    if len(entries) > MAX_ENTRIES:
        into.notes.append(f"{source.shown} has more than {MAX_ENTRIES} entries; the rest not read")
        entries = entries[:MAX_ENTRIES]
    for entry in entries:
        if entry.name.startswith("."):
            continue
        shown = f"{source.shown}/{entry.name}"
        try:
            if not entry.is_dir():
                continue  # a README beside the skills
        except OSError:
            continue
        skill = _read_skill(source, root, Path(entry.path), entry.name, shown, into.notes)
        if skill is None:
            continue
        if skill.name in into.skills and source.namespace is not None:
            skill = dataclasses.replace(skill, name=f"{source.namespace}:{skill.name}")
        if skill.name in into.skills:  # an earlier source (the user's before the project's)
            taken = f"skill {skill.name!r} comes from an earlier place"
            into.notes.append(f"{shown}: {taken}; skipped")
            continue
        into.skills[skill.name] = skill


def _read_skill(
    source: SkillSource, root: Path, directory: Path, name: str, shown: str, notes: list[str]
) -> Skill | None:
    """The skill in `directory`, or None with a note saying why it is skipped."""
    if NAME.fullmatch(name) is None:
        notes.append(
            f"skill {quoted(visible(shown))}: a skill name takes letters, digits, "
            '"-", "_" and "." (at most 64); skipped'
        )
        return None
    real = Path(os.path.realpath(directory))
    # A project's skill stays in the workspace; a user's may be a link to a checkout anywhere,
    # but its SKILL.md (and the files read beside it) stay in the skill's own directory.
    confine = root if source.scope == "project" else real
    if not real.is_relative_to(confine):
        notes.append(f"skill {shown} leads outside the workspace; skipped")
        return None
    skill_file = real / SKILL_FILE
    if not os.path.lexists(skill_file):
        notes.append(f"skill {shown} has no {SKILL_FILE}; skipped")
        return None
    read = read_workspace_text(confine, skill_file, MAX_SKILL_BYTES)
    if read.skipped is not None or read.text is None:
        why = (read.skipped or "is gone").removesuffix("; not read")
        if source.scope == "user":  # confined to its own directory, not the workspace
            why = why.replace("outside the workspace", "outside its directory")
        notes.append(f"skill {shown}: {visible(why)}; skipped")
        return None
    if read.cut:
        notes.append(
            f"skill {shown}: {SKILL_FILE} is larger than {MAX_SKILL_BYTES:,} bytes; skipped"
        )
        return None
    try:
        document = parse_document(read.text)
    except FrontMatterError as error:
        notes.append(f"skill {shown}: {visible(str(error))}; skipped")
        return None
    fields = document.fields
    declared = fields.get("name", name).strip()
    if NAME.fullmatch(declared) is None:
        notes.append(
            f"skill {shown}: its name {quoted(visible(declared))} is not a skill name; skipped"
        )
        return None
    description = " ".join(fields.get("description", "").split())
    if not description:
        notes.append(f"skill {shown}: no description (the model picks skills by it); skipped")
        return None
    if len(description) > MAX_DESCRIPTION_CHARS:
        notes.append(
            f"skill {shown}: its description is longer than {MAX_DESCRIPTION_CHARS:,} "
            "characters; skipped"
        )
        return None
    allowed = tool_list(visible(fields.get("allowed-tools", "")))
    return Skill(declared, visible(description), allowed, source.scope, shown, real, document.body)


def tool_list(text: str) -> tuple[str, ...]:
    """An `allowed-tools` value as its entries: separated by commas or spaces (Claude Code
    takes both), a `Bash(git diff:*)` pattern kept whole with its spaces."""
    entries: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            if current:
                entries.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        entries.append("".join(current))
    return tuple(entries)
