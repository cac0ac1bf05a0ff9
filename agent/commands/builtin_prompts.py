"""The built-in prompts, for both front ends: /init (write or update the workspace's AGENTS.md) and
/review (review the uncommitted changes, reading only).

Each is a request to the model like a custom command's: what was typed is kept with it (the
TUI shows that, the expanded text in a collapsed block). /review's request carries the changes
themselves (`git status` and `git diff HEAD`, run by pleat as its own git calls are:
tools/git_process.py, with no configured diff program or text conversion), since its turn runs
with the reading tools only (agent/permissions/policy.py READ_ONLY_KEY): the model cannot run
git, but it reads the files the changes touch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.permissions.policy import READ_ONLY_KEY
from sessions.messages import SOURCE_KEY, TYPED_KEY
from tools.git_process import filters_off, run_git

# Seconds each git call of /review may take: a status and a diff of a large working tree take
# a second or two; past half a minute git is stuck (a network file system), not slow.
GIT_SECONDS = 30.0
# Characters of the diff a /review request carries, at most: about 10,000 tokens, a change
# worth reviewing in one go that still leaves a 32k window room to read the files it touches;
# past it the model is told the diff was cut and reads the rest of the files itself.
MAX_DIFF_CHARS = 40_000
# Characters of `git status --short` kept: a few hundred changed or new files.
MAX_STATUS_CHARS = 8_000
# What the expansion block shows as the request's source.
SOURCE = "pleat's built-in prompt"

# /init's request: what AGENTS.md should hold, as Codex's and Claude Code's /init ask (in pleat's
# words), with what the user typed after the command as a last paragraph.
INIT_PROMPT = """\
Write or update the file AGENTS.md at the root of this workspace: the instructions future \
coding agents (and new contributors) read before working here. Investigate first: the \
README, the build and package files, the CI configuration, the test layout, the main source \
folders, and any existing AGENTS.md, CLAUDE.md, .cursor/rules, .cursorrules or \
.github/copilot-instructions.md (keep what they say that is still true).

AGENTS.md should hold, each in a short section with a heading:
- the commands to set up, build, lint and test (how to run a single test, too);
- the layout: where the main parts live and how they fit together, in a few lines;
- the conventions a change must follow (style, naming, error handling, tests) that are not \
obvious from the code;
- anything that surprised you or would trip up a newcomer.

Be concise and concrete: commands that work here, paths that exist. Do not list every file, \
do not repeat generic advice ("write clean code"), and do not invent what you did not find. \
If AGENTS.md exists, improve it in place rather than starting over. Then say in two or three \
lines what you wrote or changed."""

# /review's request, followed by the status and the diff.
REVIEW_PROMPT = """\
Review the uncommitted changes of this workspace (its git status and `git diff HEAD` are \
below) as a careful senior reviewer would. This turn only reads: writes, edits and commands \
are refused, so do not try to change anything; read the changed files (and what they call) \
with the reading tools where the diff alone is not enough, and the new files (`??` in the \
status), which the diff does not show.

Report what matters, most important first: bugs and regressions, security problems, missing \
error handling, missing or wrong tests, and then smaller points (naming, clarity, dead code). \
For each finding give the file and line, what is wrong, and how to fix it. If the changes \
look right, say so briefly. Do not restate the diff."""

# What /init and /review say when the workspace gives them nothing to work on.
NOT_A_REPOSITORY = "/review reviews a git repository's uncommitted changes; {where} is not in one"
NO_CHANGES = "there are no uncommitted changes to review (git status is clean)"
GIT_FAILED = "/review could not read the changes: git {args} failed{why}"


class PromptRefused(Exception):
    """The built-in prompt has nothing to work on; the message is one line."""


@dataclass(frozen=True)
class BuiltinPrompt:
    """What a built-in prompt sends, and the meta its user message keeps: what was typed, its
    source, and (for /review) that its turn only reads."""

    text: str
    meta: dict[str, str]


def _with_focus(text: str, focus: str) -> str:
    """The prompt, with what the user typed after the command as a last paragraph."""
    return f"{text}\n\nThe user adds: {focus}" if focus else text


def init_prompt(workspace: Path, typed: str, focus: str) -> BuiltinPrompt:
    """/init [focus]: write or update AGENTS.md (in the session's permission mode)."""
    return BuiltinPrompt(_with_focus(INIT_PROMPT, focus), {TYPED_KEY: typed, SOURCE_KEY: SOURCE})


def _no_filters(workspace: Path) -> tuple[str, ...]:
    """Settings that empty every filter driver the repository's config defines: `git status`
    and `git diff` run a driver's clean command on changed files (`.gitattributes` names it),
    and a sandboxed command may have written both, for pleat's own git to run unconfined
    (found by review). PromptRefused when that cannot be done (tools/git_process.py)."""
    settings = filters_off(workspace)
    if settings is None:
        raise PromptRefused("/review: the repository's filter drivers cannot be turned off")
    return settings


def _git(workspace: Path, settings: tuple[str, ...], *args: str) -> str:
    """What a git call printed, decoded, with `settings` before its command (_no_filters);
    PromptRefused when it fails."""
    result = run_git((*settings, *args), workspace, timeout=GIT_SECONDS)
    if result is None or result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines() if result else []
        detail = f": {why[-1][:200]}" if why else ""
        raise PromptRefused(GIT_FAILED.format(args=" ".join(args[:2]), why=detail))
    return result.stdout.decode("utf-8", "replace")


def _bounded(text: str, most: int, what: str) -> str:
    """`text`, cut at `most` characters with a line saying so."""
    if len(text) <= most:
        return text
    return f"{text[:most]}\n[pleat: {what} cut at {most:,} of {len(text):,} characters]\n"


def review_prompt(workspace: Path, typed: str, focus: str) -> BuiltinPrompt:
    """/review [focus]: the review request with the workspace's changes; PromptRefused outside
    a git repository, or when nothing is changed."""
    inside = run_git(("rev-parse", "--is-inside-work-tree"), workspace, timeout=GIT_SECONDS)
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != b"true":
        raise PromptRefused(NOT_A_REPOSITORY.format(where=workspace))
    # The workspace's part of the repository only, its paths relative to the workspace (as the
    # model's tools take them) when it is a subdirectory.
    # No filter driver runs (read once for both calls), nor a submodule's own configuration.
    settings = _no_filters(workspace)
    status = _git(workspace, settings, "status", "--short", "--ignore-submodules=all", "--", ".")
    if not status.strip():
        raise PromptRefused(NO_CHANGES)
    has_head = run_git(("rev-parse", "--verify", "--quiet", "HEAD"), workspace, timeout=GIT_SECONDS)
    against = ["HEAD"] if has_head is not None and has_head.returncode == 0 else ["--cached"]
    # No configured diff program, text conversion or colour: a repository's settings run
    # nothing and put no escape codes in the text.
    diff = _git(
        workspace,
        settings,
        "diff",
        *against,
        "--relative",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--ignore-submodules=all",
    )
    text = (
        f"{REVIEW_PROMPT}\n\n## git status --short\n\n```\n"
        f"{_bounded(status, MAX_STATUS_CHARS, 'the status')}```\n\n"
        f"## git diff {against[0]}\n\n```diff\n"
        f"{_bounded(diff, MAX_DIFF_CHARS, 'the diff') or '(no change to tracked files)'}\n```"
    )
    meta = {TYPED_KEY: typed, SOURCE_KEY: SOURCE, READ_ONLY_KEY: "true"}
    return BuiltinPrompt(_with_focus(text, focus), meta)


# The built-in prompts by command name (rows of agent/commands/builtin.py): each takes the
# workspace, the line as typed and the text after the command. Both front ends run them.
PROMPTS: dict[str, Callable[[Path, str, str], BuiltinPrompt]] = {
    "init": init_prompt,
    "review": review_prompt,
}
