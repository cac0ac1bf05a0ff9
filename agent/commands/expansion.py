"""A custom command's prompt: its arguments put in, and the workspace files it names with @.

`$ARGUMENTS` becomes the whole argument string as typed; `$1`..`$9` the arguments split as a
shell would (quotes group words; a missing one becomes empty; `$10` is not `$1` then 0, it stays
as written, so a price such as `$100` in a prompt survives). The replacement is one pass: an
argument that itself holds `$1` or `@path` is put in as typed, never expanded again. Arguments
given to a command whose prompt has no placeholder are added at its end (`ARGUMENTS: ...`), as
Claude Code does, rather than dropped.

`@path` in the expanded prompt (written in the command, or typed as an argument: `/explain
@src/app.py`; not in a code block or span, where `@decorator` is code) includes that workspace
file: the mention stays in the sentence and the file's text follows the prompt. Files are read
through the safe reader (tools/workspace_text.py: inside the workspace only, regular files only)
and bounded together like one tool result (the window's share, agent/turn/tool_budget.py); a file
that is missing, refused or past the bound is not included, which the prompt says after it and
the user is told. An image mention is left to the image attachment (agent/images/prompt.py).

`` !`command` `` is never run: a command file may come from a cloned repository, and pleat runs
nothing a file says; the text stays as written.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.catalog import CustomCommand
from agent.images.prompt import IMAGE_EXTENSIONS, TRAILING
from tools.base import ToolError
from tools.paths import display_path, resolve_in_workspace
from tools.workspace_text import read_workspace_text

if TYPE_CHECKING:
    from agent.turn.loop import Agent

# The placeholders: the whole argument string, or one of the first nine arguments.
PLACEHOLDER = re.compile(r"\$ARGUMENTS|\$([1-9])(?![0-9])")
# `@path`, `@"path with spaces"` or `@'path'`, at the start or after whitespace (as a prompt's
# image mentions are written); a backtick ends a bare path (`@x` inside inline code is code).
MENTION = re.compile(r"""(?<!\S)@(?:"([^"\n]+)"|'([^'\n]+)'|([^\s`]+))""")
# A fenced code block's opening or closing line, and an inline code span.
FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"`[^`\n]*`")
# Claude Code's "run this and put its output here" syntax, which pleat never runs.
RUN_MARK = re.compile(r"!`[^`\n]+`")
# Files included by one use at most: a prompt naming more is a listing, not a request; the
# model can read the rest with its tools.
MAX_INCLUDES = 20
# Characters of included text at most, whatever the window: a quarter of the largest default
# tool result (agent.compaction's 25k tokens at 4 characters each); the window's own share,
# usually smaller, applies first.
MAX_INCLUDED_CHARS = 100_000
# Characters of the prompt at most before the included files: a 64 kB command whose arguments
# repeat $ARGUMENTS could otherwise multiply a long argument into megabytes.
MAX_PROMPT_CHARS = 200_000
# How arguments are put at the end of a prompt that has no placeholder for them.
ARGUMENTS_LINE = "\n\nARGUMENTS: "


class ExpansionError(ValueError):
    """The command cannot be expanded; the message is one line."""


@dataclass(frozen=True)
class Expanded:
    """The prompt to send; one line for each thing the user should know about it (a file not
    included, arguments split at spaces, a `!` line not run); and the text images are attached
    from (agent/images/prompt.py): the arguments the user typed, where a pasted path may lead
    anywhere, and the prompt's `@image` mentions, which stay inside the workspace. Never the
    command file's other text or an included file's: a path written there is not the user's."""

    text: str
    notes: tuple[str, ...] = ()
    images_from: str = ""


def split_arguments(arguments: str) -> tuple[list[str], str | None]:
    """The arguments as a shell splits them; at spaces, with a note, when a quote is unclosed
    (`don't` is an ordinary word in a request)."""
    try:
        return shlex.split(arguments), None
    except ValueError:
        return arguments.split(), "the arguments have an unclosed quote: $1..$9 split at spaces"


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where fenced code blocks and inline code spans are (start, end offsets)."""
    spans: list[tuple[int, int]] = []
    position, opened, start = 0, "", 0
    for line in text.splitlines(keepends=True):
        fence = FENCE.match(line)
        if not opened and fence:
            opened, start = fence.group(1), position
        elif opened and fence and line.strip() == fence.group(1):
            if fence.group(1)[0] == opened[0] and len(fence.group(1)) >= len(opened):
                spans.append((start, position + len(line)))
                opened = ""
        position += len(line)
    if opened:
        spans.append((start, position))
    spans += [match.span() for match in INLINE_CODE.finditer(text)]
    return spans


def _mentions(body: str) -> list[str]:
    """The paths `@` names outside code, each once, in order."""
    code = _code_spans(body)
    found: list[str] = []
    for match in MENTION.finditer(body):
        if any(start <= match.start() < end for start, end in code):
            continue
        raw = next(group for group in match.groups() if group is not None)
        if raw not in found:
            found.append(raw)
    return found


def _substitute(body: str, arguments: str, notes: list[str]) -> tuple[str, bool]:
    """The body with its placeholders replaced in one pass; whether it had any."""
    positional: list[str] | None = None
    used = False

    def replace(match: re.Match[str]) -> str:
        nonlocal positional, used
        used = True
        if match.group(1) is None:
            return arguments
        if positional is None:
            positional, note = split_arguments(arguments)
            if note is not None:
                notes.append(note)
        index = int(match.group(1)) - 1
        return positional[index] if index < len(positional) else ""

    return PLACEHOLDER.sub(replace, body), used


def _fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _is_image(raw: str) -> bool:
    """A mention the image attachment takes (by its name; the bytes decide later)."""
    return raw.lower().rstrip(TRAILING).endswith(IMAGE_EXTENSIONS)


def _read_mention(workspace: Path, raw: str, room: int) -> tuple[str, str, bool] | str:
    """(shown path, text, cut) of the file `raw` names, or why it is not included."""
    candidates = [raw] + ([raw.rstrip(TRAILING)] if raw.rstrip(TRAILING) != raw else [])
    reason = "no such file in the workspace"
    for candidate in candidates:
        try:
            path = resolve_in_workspace(workspace, candidate)
        except ToolError as error:
            reason = str(error)
            continue
        found = read_workspace_text(workspace, path, room)
        if found.skipped is not None:
            return found.skipped
        if found.text is None:
            continue
        if "\x00" in found.text:
            return "not a text file"
        return display_path(workspace, path), found.text, found.cut
    return reason


def _includes(workspace: Path, mentions: list[str], room: int) -> tuple[str, list[str]]:
    """The text that follows the prompt for its @ mentions, and a note for each not included."""
    blocks: list[str] = []
    notes: list[str] = []
    included: set[str] = set()  # `@a.py` and `@a.py,` are one file, included once
    for number, raw in enumerate(mentions):
        if _is_image(raw):
            continue  # attached as an image, as in any prompt (Expanded.images_from)
        if number >= MAX_INCLUDES:
            reason = f"a command includes {MAX_INCLUDES} files at most"
        elif room <= 0:
            reason = "the included files already fill the room a prompt may take"
        else:
            found = _read_mention(workspace, raw, room)
            if not isinstance(found, str):
                shown, text, cut = found
                if shown in included:
                    continue
                included.add(shown)
                room -= len(text)
                if cut:
                    text += f"\n[... cut here: the rest does not fit; read_file reads {shown}]"
                fence = _fence_for(text)
                blocks.append(f"Contents of {shown}:\n{fence}\n{text}\n{fence}")
                continue
            reason = found
        blocks.append(f"(@{raw} was not included: {reason})")
        notes.append(f"@{raw} not included: {reason}")
    return "\n\n".join(blocks), notes


def expand(command: CustomCommand, arguments: str, workspace: Path, include_chars: int) -> Expanded:
    """The prompt `command` sends with `arguments`; ExpansionError when there is none or it is
    too long. `include_chars` bounds the text of the files it includes."""
    notes: list[str] = []
    text, used = _substitute(command.body, arguments, notes)
    arguments = arguments.strip()
    if not used and arguments:
        text = f"{text}{ARGUMENTS_LINE}{arguments}" if text.strip() else arguments
    if not text.strip():
        raise ExpansionError(f"/{command.name} has no prompt: {command.shown} is empty")
    if len(text) > MAX_PROMPT_CHARS:
        raise ExpansionError(
            f"/{command.name} expands to {len(text):,} characters, more than the "
            f"{MAX_PROMPT_CHARS:,} a command may send"
        )
    if RUN_MARK.search(command.body):
        notes.append(
            "its !`command` lines were not run (pleat runs nothing a command file says); "
            "the model sees them as written"
        )
    mentions = _mentions(text)
    included, include_notes = _includes(workspace, mentions, min(include_chars, MAX_INCLUDED_CHARS))
    typed = set(_mentions(arguments))  # found in the arguments themselves already
    images = [f'@"{m}"' for m in mentions if _is_image(m) and '"' not in m and m not in typed]
    if included:
        text = f"{text}\n\n{included}"
    return Expanded(text, tuple(notes + include_notes), "\n".join([arguments, *images]))


def include_room(agent: Agent) -> int:
    """Characters the files a command includes may take: one tool result's share of the
    window, as every tool's output gets."""
    from agent.turn.tool_budget import tool_context

    return tool_context(agent.context, agent.compactor, agent.history).budget.safe_chars


def expand_for(agent: Agent, command: CustomCommand, arguments: str) -> Expanded:
    """expand() in the agent's workspace, the included files bounded by its window."""
    return expand(command, arguments, agent.context.workspace, include_room(agent))
