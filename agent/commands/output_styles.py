"""Output styles, as Claude Code has them: a markdown file of instructions (front matter `name`,
`description`) that changes how the model answers, chosen by name (`outputStyle` in Claude Code's
settings, `output_style` in config.toml). Like command files, they are found in the project's
`.claude/output-styles/` and the user's `~/.claude/output-styles/` (the project's first, as a
project's command is); Claude Code's built-in "Explanatory" and "Learning" are pleat's own short
texts to the same end, and "default" adds nothing.

A style's text joins the system prompt (after pleat's own instructions): it shapes the answers,
it runs nothing, so a project's style file needs no approval (a project's choice of style does:
agent/claude_code/settings_file.py). Files are read bounded, a project's never through a link
out of the workspace, and a style that cannot be used is one line, never a failure to start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.claude_code.settings_file import claude_dir
from agent.commands.front_matter import FrontMatterError, parse_document
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# Where style files are, under the project's root and under the user's Claude Code directory.
STYLES_DIRECTORY = "output-styles"
# Bytes of a style file read at most: a style is a page of instructions; it is in every request,
# so more than 32 KiB is not a style but a cost, and it is not used.
MAX_STYLE_BYTES = 32 * 1024
# Style files looked at per directory: a directory of styles holds a handful.
MAX_STYLE_FILES = 200
# The style that changes nothing.
DEFAULT_STYLE = "default"
# Claude Code's built-in styles, in pleat's own words.
BUILT_IN_STYLES = {
    "explanatory": (
        "Explanatory",
        "While you work, explain your choices: before and after a change, add a short "
        "'Insight' note on why the code is shaped as it is, the trade-off taken, or a pattern "
        "of this codebase worth knowing. Keep each note to a few lines and keep doing the work.",
    ),
    "learning": (
        "Learning",
        "Work with the user as a teacher pairs with a learner: explain your choices as you go, "
        "and where a small, meaningful piece of code (a few lines of logic, a decision between "
        "designs) is left to write, leave a clearly marked TODO(human) in the code and ask the "
        "user to write it, saying what it should do, instead of writing it yourself.",
    ),
}


@dataclass(frozen=True)
class OutputStyle:
    """A chosen style: its name and its instructions ("" for the default), or a problem."""

    name: str
    text: str = ""
    problem: str = ""


def find_style(name: str, workspace: Path, environ: Mapping[str, str]) -> OutputStyle:
    """The style called `name` (front matter `name`, or the file's stem, case not minding)."""
    wanted = name.strip()
    if not wanted or wanted.lower() == DEFAULT_STYLE:
        return OutputStyle(DEFAULT_STYLE)
    root = workspace_root(workspace)
    for directory, base in (
        (root / ".claude" / STYLES_DIRECTORY, root),
        (claude_dir(environ) / STYLES_DIRECTORY, Path("/")),
    ):
        found = _in_directory(directory, base, wanted)
        if found is not None:
            return found
    if wanted.lower() in BUILT_IN_STYLES:
        shown, text = BUILT_IN_STYLES[wanted.lower()]
        return OutputStyle(shown, text)
    return OutputStyle(
        wanted,
        problem=f"the output style {wanted!r} was not found (in .claude/{STYLES_DIRECTORY}/ or "
        f"~/.claude/{STYLES_DIRECTORY}/, nor built in: Explanatory, Learning); none is used",
    )


def _in_directory(directory: Path, base: Path, wanted: str) -> OutputStyle | None:
    """The style of that name in one directory, or None."""
    try:
        paths = sorted(directory.glob("*.md"))[:MAX_STYLE_FILES]
    except OSError:
        return None
    for path in paths:
        found = read_workspace_text(base, path, MAX_STYLE_BYTES)
        if found.text is None or found.cut:
            continue
        try:
            document = parse_document(found.text)
        except FrontMatterError:
            continue
        name = document.fields.get("name", "") or path.stem
        if wanted.lower() in (name.lower(), path.stem.lower()):
            return OutputStyle(name, document.body.strip())
    return None


def style_section(style: OutputStyle) -> str:
    """What the system prompt gains for a style ("" for none)."""
    if not style.text:
        return ""
    return f"Output style ({style.name}), as the user chose it:\n{style.text}"
