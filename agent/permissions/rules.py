"""Permission rules: `tool` or `tool(pattern)`, parsed, and matched against a call's main argument.

A rule names a tool and, optionally, a glob on the tool's main argument (tools/base.py
`main_argument`: the command of run_command, the path of write_file and edit_file ...). In a
pattern only `*` is special: it matches any run of characters, `/` and spaces included; a
pattern ending in ` *` also matches the words before it alone (`pytest *` matches `pytest` and
`pytest -q`, not `pytest-watch`). A bare tool name matches every call of that tool.

How the main argument is read depends on its kind: a command is cut into the commands it runs
(agent/permissions/shell_split.py), every one of which an allow rule must match; a path is taken
relative to the workspace after resolving `..` and symbolic links, so `./src/../.env` is `.env`;
a URL is read into its normal form (tools/web_address.py: lower-case scheme and host, no default
port, no `..`), the form web_fetch fetches, so `web_fetch(https://docs.python.org/*)` matches
`HTTPS://Docs.Python.org:443/3/` and not `https://docs.python.org.evil.com/` (scheme, host and
path are matched each on its own), and a pattern `domain:HOST` matches every URL of that host
(`domain:*.python.org` its subdomains); any other text is matched as it is. A pattern never
allows a subject holding a control character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.permissions.command_escapes import runs_another_command
from agent.permissions.shell_split import ASSIGNMENT, TOO_DEEP, split_command
from agent.permissions.shell_wrappers import WRAPPERS
from tools.errors import ToolError
from tools.paths import display_path, resolve_in_workspace
from tools.web_address import web_address

if TYPE_CHECKING:
    from tools.base import Tool

# A tool's name in a rule: the names tools are registered under, MCP's `server__tool` included.
TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
# Characters a rule may not hold: control characters, which a terminal would hide or act on.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Programs that run whatever their arguments say: "always" for one of them would allow every
# program, so it allows that exact command only (`python -m X` allows `python -m X *`). A rule
# with a `*` configured for one of them allows what its arguments say; for those whose
# ordinary use runs nothing, agent/permissions/command_escapes.py asks when the arguments make
# them run a command.
INTERPRETERS = (
    # Wrappers: the rest of the line is another command (sudo, env, xargs, flock, chroot ...).
    WRAPPERS
    # Shells, and the words that make the shell run text.
    | {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "pwsh", "nu", "xonsh", "eval",
       "source", ".", "exec"}
    # Language interpreters and REPLs: their argument is a program.
    | {"python", "python3", "ipython", "node", "deno", "bun", "ruby", "perl", "php", "lua",
       "luajit", "Rscript", "R", "julia", "tclsh", "wish", "expect", "osascript", "guile",
       "racket", "sbcl", "erl", "elixir", "groovy", "jshell", "runghc"}
    # Text tools with a command language that reaches the shell: awk's system(), sed's `e`.
    | {"awk", "gawk", "mawk", "nawk", "sed", "gsed"}
    # Tools that run a command their arguments name: find -exec, tar --to-command, make's
    # recipes (any variable on the line overrides one), debuggers, editors (`vim -c '!rm'`).
    | {"find", "gfind", "tar", "gtar", "bsdtar", "make", "gmake", "gdb", "lldb", "vim", "vi",
       "nvim", "ex", "emacs"}
    # Remote shells: the command runs elsewhere, and ProxyCommand runs here.
    | {"ssh", "scp", "sftp"}
)  # fmt: skip
# Programs whose first argument is a subcommand worth naming in an "always" rule: `git status`
# allows `git status *`, not every git command (`git push --force`); without a subcommand
# first (`git -c x=y log`), only the exact command.
SUBCOMMAND_PROGRAMS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "podman", "kubectl", "pip",
     "pip3", "uv", "poetry", "gh", "dotnet", "mvn", "gradle", "brew", "apt", "conda", "hatch",
     "tox", "nox", "rustup", "deno", "helm", "terraform", "systemctl"}
)  # fmt: skip
# Their subcommands that take one more word naming what to run (`npm run test`).
RUNNER_SUBCOMMANDS = frozenset({"run", "exec", "x"})
# The root a rule's path may lie under: every path, resolved (rule_path), for the rules to see
# a path outside the workspace as the tools do (one of a directory the user added).
ANYWHERE = (Path("/"),)
# A URL pattern that matches every URL of a host (Claude Code's WebFetch rules say the same).
DOMAIN_PREFIX = "domain:"


class RuleError(ValueError):
    """A rule string that is not `tool` or `tool(pattern)` (one line: why)."""


@dataclass(frozen=True)
class Rule:
    """One allow or deny rule: a tool, and a glob on its main argument (None: every call)."""

    tool: str
    pattern: str | None = None

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


def parse_rule(text: str) -> Rule:
    """`run_command(pytest *)` -> Rule("run_command", "pytest *"); `edit_file` -> every call."""
    if CONTROL.search(text):
        raise RuleError("a rule may not hold control characters")
    text = text.strip()
    name = TOOL_NAME.match(text)
    if not text or name is None:
        raise RuleError("a rule starts with a tool's name, e.g. run_command(pytest *) or edit_file")
    if name.end() == len(text):
        return Rule(text)
    rest = text[name.end() :]
    if not rest.startswith("(") or not rest.endswith(")"):
        raise RuleError(
            "write a rule as tool or tool(pattern), e.g. run_command(git status) or edit_file"
        )
    pattern = " ".join(rest[1:-1].split())
    if not pattern:
        raise RuleError(f"empty pattern: write {name.group()} alone to match every call")
    return Rule(name.group(), pattern)


def names(rule: Rule, tool: Tool) -> bool:
    """Whether the rule is about this tool: by its name, or by one of its aliases (an MCP
    tool's server)."""
    return rule.tool == tool.name or rule.tool in tool.rule_aliases


def glob_matches(pattern: str, text: str) -> bool:
    """Whether `text` matches `pattern`, where `*` is any run of characters (linear time)."""
    if pattern.endswith(" *") and glob_matches(pattern[:-2], text):
        return True
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return text == pattern
    first, last = pieces[0], pieces[-1]
    if len(text) < len(first) + len(last) or not text.startswith(first):
        return False
    if not text.endswith(last):
        return False
    position, end = len(first), len(text) - len(last)
    for piece in pieces[1:-1]:
        found = text.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def main_argument(tool: Tool, args: Mapping[str, Any], workspace: Path) -> str | None:
    """The text rules match for a call: its main argument, a path made workspace-relative;
    None when the tool declares none or the call lacks it."""
    if tool.main_argument is None:
        return None
    value = args.get(tool.main_argument)
    if not isinstance(value, str):
        return None
    if tool.main_argument_kind == "path":
        return rule_path(workspace, value)
    if tool.main_argument_kind == "url":
        return rule_url(value)
    return value


def rule_path(workspace: Path, raw: str) -> str:
    """A path as rules see it: `..` and symbolic links resolved, relative to the workspace when
    inside it, else absolute (a file of an added directory, which the tools take: so `..` or a
    link cannot dodge a rule naming it); one no file system takes (too long, a NUL) is matched
    as written."""
    try:
        return display_path(workspace, resolve_in_workspace(workspace, raw, ANYWHERE))
    except ToolError:
        return raw


def rule_url(raw: str) -> str:
    """A URL as rules see it: its normal form; one web_fetch would refuse, as written."""
    try:
        return web_address(raw).url
    except ToolError:
        return raw


def url_pattern_problem(pattern: str) -> str | None:
    """Why a URL pattern can never match (no scheme, no `domain:`), or None."""
    if pattern.startswith(("http://", "https://", "*", DOMAIN_PREFIX)):
        return None
    return (
        "a URL pattern starts with http://, https:// or domain:, e.g. "
        "https://docs.python.org/* or domain:docs.python.org"
    )


def denying_rule(
    rules: Iterable[Rule], tool: Tool, args: Mapping[str, Any], workspace: Path
) -> Rule | None:
    """The first deny rule that matches the call: for a command, any of its parts (wrappers
    and assignments taken off, substitutions and `sh -c` looked into) matching is enough."""
    subject: str | None = None
    views: Sequence[str] = ()
    for rule in rules:
        if not names(rule, tool):
            continue
        if rule.pattern is None:
            return rule
        if subject is None:
            subject = main_argument(tool, args, workspace)
            if subject is None:
                continue
            views = (
                split_command(subject).deny_views()
                if tool.main_argument_kind == "command"
                else (subject,)
            )
        if TOO_DEEP in views or any(_matches(rule, view, tool) for view in views):
            return rule
    return None


def allowing_rules(
    rules: Sequence[Rule], tool: Tool, args: Mapping[str, Any], workspace: Path
) -> tuple[Rule, ...]:
    """The allow rules that together let the call run, or () when they do not: a bare rule
    alone; for a command, each of its parts matched by some rule, and the line plain (no
    substitution, redirection to a file, control character ...:
    agent/permissions/shell_split.py); a part whose arguments make its program run another
    command (agent/permissions/command_escapes.py) only by a rule without a `*`."""
    mine = [rule for rule in rules if names(rule, tool)]
    bare = next((rule for rule in mine if rule.pattern is None), None)
    if bare is not None:
        return (bare,)
    if not mine or (subject := main_argument(tool, args, workspace)) is None:
        return ()
    if tool.main_argument_kind != "command":
        if CONTROL.search(subject):
            return ()
        return tuple(rule for rule in mine if _matches(rule, subject, tool))[:1]
    parts = split_command(subject)
    if not parts.plain or not parts.parts:
        return ()
    used: list[Rule] = []
    for view in parts.allow_views():
        exact = runs_another_command(view)  # `find . -exec ...`: only a rule without a `*`
        rule = next(
            (
                rule
                for rule in mine
                if _matches(rule, view, tool) and not (exact and "*" in (rule.pattern or ""))
            ),
            None,
        )
        if rule is None:
            return ()
        used.append(rule)
    return tuple(dict.fromkeys(used))


def _matches(rule: Rule, text: str, tool: Tool) -> bool:
    """Whether a pattern rule matches one subject (a path pattern's leading `./` is the
    workspace, as the subject's is)."""
    if rule.pattern is None:
        return False
    pattern = rule.pattern
    if tool.main_argument_kind == "path":
        pattern = pattern.removeprefix("./") or "."
    elif tool.main_argument_kind == "url":
        return _url_matches(pattern, text)
    return glob_matches(pattern, text)


def _url_matches(pattern: str, url: str) -> bool:
    """A URL pattern against a URL in normal form: `domain:HOST` against its host; a pattern
    with a scheme part by part, so a `*` in the host never reaches into the path
    (`https://*.python.org/*` is not `https://evil.com/.python.org/`), the scheme and host read
    in lower case, and no path (`https://docs.python.org`) meaning every page of the site; any
    other pattern against the whole URL."""
    if pattern.startswith(DOMAIN_PREFIX):
        try:
            host = web_address(url).host
        except ToolError:
            return False
        return glob_matches(pattern.removeprefix(DOMAIN_PREFIX).strip().lower(), host)
    pattern_scheme, separator, pattern_rest = pattern.partition("://")
    scheme, url_separator, rest = url.partition("://")
    if not separator or not url_separator:
        return glob_matches(pattern, url)
    pattern_host, slash, pattern_path = pattern_rest.partition("/")
    host, _, path = rest.partition("/")
    if not glob_matches(pattern_scheme.lower(), scheme):
        return False
    if not glob_matches(pattern_host.lower(), host):
        return False
    return not slash or glob_matches(pattern_path, path)


def always_rules(tool: Tool, args: Mapping[str, Any], workspace: Path) -> tuple[Rule, ...]:
    """The rules an "always" answer adds for the session: for a command, one per command it
    runs, naming its program (and subcommand: `git status *`), or the exact command for a
    program that runs anything (`bash`, `python`, `sudo` ...); for any other tool, the tool
    itself (`edit_file`). Empty when no rule could cover the call (a command that is not
    plain, or one a pattern cannot spell because it holds a `*`): "always" is not offered.
    For a URL, its site (`web_fetch(https://docs.python.org/*)`), none for a URL web_fetch
    refuses."""
    if tool.main_argument_kind == "url":
        value = args.get(tool.main_argument or "")
        try:
            return (Rule(tool.name, web_address(str(value)).origin + "/*"),)
        except ToolError:
            return ()
    if tool.main_argument_kind != "command":
        return (Rule(tool.name),)
    subject = main_argument(tool, args, workspace)
    if subject is None:
        return ()
    parts = split_command(subject)
    if not parts.plain or not parts.parts:
        return ()
    patterns = [_command_prefix(view) for view in parts.allow_views()]
    if any(pattern is None for pattern in patterns):
        return ()
    return tuple(dict.fromkeys(Rule(tool.name, p) for p in patterns if p is not None))


def _command_prefix(command: str) -> str | None:
    """The pattern "always" writes for one command (see always_rules), or None."""
    if not command.strip():
        return None  # never a bare `*`
    words = command.split(" ")
    program = words[0].rsplit("/", 1)[-1]
    named = len(words) > 1 and _is_word(words[1])  # a subcommand (not an option, a path ...)
    if program in ("python", "python3") and words[1:2] == ["-m"] and len(words) > 2:
        pattern = " ".join(words[:3]) + " *" if _is_word(words[2]) else command
    elif program in INTERPRETERS or ASSIGNMENT.match(words[0]):
        pattern = command  # an assignment (LD_PRELOAD=...) changes what any program does
    elif runs_another_command(command):
        pattern = command  # `git log --ext-diff`, `rsync -e sh`: a `*` rule would not allow it
    elif program in SUBCOMMAND_PROGRAMS and not named:
        pattern = command  # `git -c core.pager=... log`: no subcommand to name, this only
    elif program in SUBCOMMAND_PROGRAMS:
        runs = words[1] in RUNNER_SUBCOMMANDS and len(words) > 2 and _is_word(words[2])
        pattern = " ".join(words[: 3 if runs else 2]) + " *"
    else:
        pattern = words[0] + " *"
    # A `*` of the command itself would be read as a wildcard, allowing more than was seen.
    return None if "*" in pattern[:-1] else pattern


def _is_word(word: str) -> bool:
    """A plain subcommand name (not an option, a path, a glob or a quoted string)."""
    return bool(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*", word))
