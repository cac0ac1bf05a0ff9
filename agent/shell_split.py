"""A shell command line cut into the commands it runs, for permission rules to judge one by one.

`git status; rm -rf x` runs two commands; a rule that allows `git status` must not allow the
second. So a command line is cut at every operator that starts another command (`;`, `&&`, `||`,
`|`, `&`, a newline) outside quotes, as the shell would, and an allow rule must match every part.
Some shapes run code no rule can read: a command substitution (`$(...)`, backticks), a process
substitution, a subshell or group, a here-document, a redirection to a file, a line
continuation, a control character, an unclosed quote. Such a line is not `plain`: no allow rule
lets it run (it is asked, or refused headless). Deny rules are checked against every part,
including what sits inside substitutions, with leading variable assignments and wrappers such as
`sudo`, `env`, `timeout`, `xargs` and `sh -c` taken off first. This is a guard against an agent's
ordinary mistakes, not a sandbox: a command can always reach a program some other way (a script
it wrote, an alias), which is why the default mode asks.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# Characters that start another command when unquoted (and, doubled, && and ||). A carriage
# return is not one for the shell, but it is cut at too (and makes the line not plain): a
# terminal would draw what follows it over what precedes it.
COMMAND_SEPARATORS = frozenset(";&|\n\r")
# Programs that run the rest of their line as a command after their own options. Their options
# are skipped up to the first word that is neither an option nor an option's value; the ones
# harmless enough to allow through (they only time, pace or bound the command) are also taken
# off for allow rules, as Claude Code does for timeout, nice and nohup.
SAFE_WRAPPERS = frozenset({"time", "nice", "nohup", "timeout", "stdbuf", "ionice"})
WRAPPERS = SAFE_WRAPPERS | frozenset(
    {"sudo", "doas", "env", "command", "builtin", "exec", "xargs", "setsid", "chrt", "unbuffer"}
)
# Options of those wrappers that take a value as the next word (e.g. `sudo -u root rm`,
# `nice -n 5 make`, `timeout -s KILL 10 pytest`, `xargs -I {} rm {}`).
WRAPPER_OPTIONS_WITH_VALUE = frozenset(
    {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n", "-s", "-k", "-I", "-L", "-P",
     "-d", "-E", "-a", "-c", "-o", "-e", "-i"}
)  # fmt: skip
# Shells whose `-c` argument is itself a command line (deny rules look inside it).
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
# How deep deny rules follow `sh -c '...'` inside `sh -c`: one level is the usual case; a few
# more cover quoting games, and a bound keeps a hostile nesting from recursing without end.
MAX_NESTED_SHELLS = 4
# A redirection that writes or reads no file: duplicating a descriptor (`2>&1`, `>&2`, `<&0`),
# closing one (`2>&-`), or writing to /dev/null (`2>/dev/null`, `&>/dev/null`).
HARMLESS_REDIRECTION = re.compile(r"(?:\d*|&)(?:>>?|<)(?:&(?:\d+|-)|\s*/dev/null(?=\s|$))")
# A brace that groups commands (`{ rm x; }`), as opposed to one inside a word (`find -exec {}`).
GROUP_BRACE = re.compile(r"(?:^|\s)[{}](?:\s|$)")
# A variable assignment at the start of a command (`FOO=1 make`).
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# A wrapper's value that is a duration or a number (`timeout 10s`, `nice 5`).
DURATION = re.compile(r"[+-]?\d+(?:\.\d+)?[smhd]?")


@dataclass(frozen=True)
class CommandParts:
    """The commands of one command line, whitespace outside quotes folded to one space.

    `parts` are the commands an allow rule must each match; `plain` is False when the line has
    a shape no rule can vouch for (then `why` says which). `deny_views` are every text a deny
    rule is matched against: each part as written, without its wrappers, and the commands
    found inside substitutions and `sh -c` arguments."""

    parts: tuple[str, ...]
    plain: bool
    why: str
    deny_views: tuple[str, ...]

    def allow_views(self) -> tuple[str, ...]:
        """Each part as an allow rule sees it: the harmless wrappers taken off."""
        return tuple(strip_wrappers(part, SAFE_WRAPPERS) for part in self.parts)


class _Cutter:
    """One pass over a command line: the parts, and what makes it not plain."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.current: list[str] = []
        self.masked: list[str] = []  # the same part with quoted characters blanked out
        self.problems: list[str] = []

    def problem(self, why: str) -> None:
        if why not in self.problems:
            self.problems.append(why)

    def add(self, char: str, quoted: bool) -> None:
        if not quoted and char in " \t":
            if self.current and self.current[-1] != " ":
                self.current.append(" ")
                self.masked.append(" ")
            return
        self.current.append(char)
        self.masked.append("q" if quoted else char)

    def cut(self) -> None:
        """End the part being read (an empty one, e.g. after a trailing `;`, is dropped)."""
        text, masked = "".join(self.current).strip(), "".join(self.masked).strip()
        if text:
            self.parts.append(text)
            redirections = HARMLESS_REDIRECTION.sub("", masked)
            if "<<" in redirections:
                self.problem("a here-document")
            elif "<" in redirections or ">" in redirections:
                self.problem("a redirection to a file")
            if GROUP_BRACE.search(masked):
                self.problem("a command group { ... }")
        self.current, self.masked = [], []


def split_command(line: str, depth: int = 0) -> CommandParts:
    """Cut `line` into its commands (see the module)."""
    cutter = _Cutter()
    inner: list[str] = []  # the text of substitutions, judged by deny rules too
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        pair = line[index : index + 2]
        if (ord(char) < 0x20 and char not in "\t\n") or ord(char) == 0x7F:
            cutter.problem("a control character")
        if quote == "'":
            quote = "" if char == "'" else quote
            cutter.add(char, True)
            index += 1
            continue
        if char == "\\":
            if line[index + 1 : index + 2] in ("\n", "\r"):
                cutter.problem("a line continuation")
            cutter.add(line[index : index + 2], True)
            index += 2
            continue
        if pair == "$(" or char == "`":  # a substitution runs inside double quotes too
            end = _substitution_end(line, index)
            inner.append(line[index + (1 if char == "`" else 2) : end])
            cutter.problem("a command substitution")
            cutter.add(line[index : end + 1], True)
            index = end + 1
            continue
        if quote == '"':
            quote = "" if char == '"' else quote
            cutter.add(char, True)
            index += 1
            continue
        if char in "'\"":
            quote = char
            cutter.add(char, True)
        elif pair in ("<(", ">("):
            end = _substitution_end(line, index + 1)
            inner.append(line[index + 2 : end])
            cutter.problem("a process substitution")
            cutter.add(line[index : end + 1], True)
            index = end + 1
            continue
        elif char in "()":
            cutter.problem("a subshell ( ... )")
            cutter.cut()
        elif char in COMMAND_SEPARATORS and not _is_redirection_ampersand(line, index):
            cutter.cut()
        else:
            cutter.add(char, False)
        index += 1
    if quote:
        cutter.problem("an unclosed quote")
    cutter.cut()
    parts = tuple(cutter.parts)
    views = _deny_views(parts, inner, depth)
    why = ", ".join(cutter.problems)
    return CommandParts(parts, not cutter.problems, why, views)


def _is_redirection_ampersand(line: str, index: int) -> bool:
    """`&` inside a redirection (`2>&1`, `&>file`, `>&2`), which does not start a command."""
    if line[index] != "&":
        return False
    return line[index - 1 : index] in (">", "<") or line[index + 1 : index + 2] == ">"


def _substitution_end(line: str, start: int) -> int:
    """Where the substitution opening at `start` (`$(`, `(` or a backtick) closes: the index of
    its closing character, or the end of the line when it never closes."""
    if line[start] == "`":
        end = line.find("`", start + 1)
        return len(line) if end < 0 else end
    depth = 0
    for index in range(line.index("(", start), len(line)):
        if line[index] == "(":
            depth += 1
        elif line[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(line)


def strip_wrappers(
    part: str, wrappers: frozenset[str] = WRAPPERS, *, assignments: bool = False
) -> str:
    """The command a wrapper runs (`timeout 60 pytest -q` -> `pytest -q`), repeatedly; with
    `assignments`, leading `NAME=value` words are taken off too (for deny rules only: an
    assignment such as LD_PRELOAD changes what a command does, so allow rules see it)."""
    words = part.split(" ")
    start = 0
    while start < len(words):
        word = words[start]
        if assignments and ASSIGNMENT.match(word):
            start += 1
        elif word in wrappers:
            start = _skip_options(words, start + 1, word)
        else:
            break
    return " ".join(words[start:])


def _skip_options(words: list[str], start: int, wrapper: str) -> int:
    """The index of the first word after a wrapper's options and values."""
    index = start
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in WRAPPER_OPTIONS_WITH_VALUE else 1
        elif wrapper == "env" and ASSIGNMENT.match(word):
            index += 1
        elif wrapper in ("timeout", "nice", "chrt") and DURATION.fullmatch(word):
            index += 1
        else:
            return index
    return index


def _deny_views(parts: tuple[str, ...], inner: list[str], depth: int) -> tuple[str, ...]:
    """Every text a deny rule is matched against (see CommandParts)."""
    views: list[str] = []
    for part in parts:
        bare = strip_wrappers(part, assignments=True)
        views += [part, bare]
        if depth < MAX_NESTED_SHELLS and (script := _shell_script(bare)) is not None:
            views += split_command(script, depth + 1).deny_views
    if depth < MAX_NESTED_SHELLS:
        for text in inner:
            views += split_command(text, depth + 1).deny_views
    return tuple(dict.fromkeys(view for view in views if view))


def _shell_script(command: str) -> str | None:
    """The command line a shell runs with `-c` (`bash -c 'rm -rf x'` -> `rm -rf x`), or that
    `eval` runs."""
    first, _, rest = command.partition(" ")
    program = first.rsplit("/", 1)[-1]
    if program != "eval" and program not in SHELLS:
        return None
    try:
        words = shlex.split(rest)
    except ValueError:
        return None
    if program == "eval":
        return " ".join(words)
    for index, word in enumerate(words):
        if word.startswith("-") and "c" in word[1:] and not word.startswith("--"):
            return words[index + 1] if index + 1 < len(words) else None
    return None
