"""A shell command line cut into the commands it runs, for permission rules to judge one by one.

`git status; rm -rf x` runs two commands; a rule that allows `git status` must not allow the
second. So a command line is cut at every operator that starts another command (`;`, `&&`, `||`,
`|`, `&`, a newline) outside quotes, as the shell would, and an allow rule must match every part.
Some shapes run code no rule can read: a command substitution (`$(...)`, backticks), a process
substitution, a subshell or group, a here-document, a redirection to a file, an option that names
a file to write (`-o`, `--output` ...), a line continuation, a control character, an unclosed
quote. Such a line is not `plain`: no allow rule
lets it run (it is asked, or refused headless). Deny rules are checked against every part, as
written and with its quotes taken out (`r''m` is `rm`), including what sits inside substitutions,
`sh -c`, `eval` and `env -S`, with leading variable assignments and wrappers such as `sudo`,
`env`, `timeout` and `xargs` taken off first; a line nested too deep to read is refused by any
deny rule of the tool. This is a guard against an agent's
ordinary mistakes, not a sandbox: a command can always reach a program some other way (a script
it wrote, an alias), which is why the default mode asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters that start another command when unquoted (and, doubled, && and ||). A carriage
# return is not one for the shell, but it is cut at too (and makes the line not plain): a
# terminal would draw what follows it over what precedes it.
COMMAND_SEPARATORS = frozenset(";&|\n\r")
# Programs that run the rest of their line as a command after their own options, and those of
# their options that take a value as the next word (`sudo -u root rm`, `nice -n 5 make`,
# `timeout -s KILL 10 pytest`, `xargs -I {} rm {}`, `time -o log rm`). Their options are skipped
# up to the first word that is neither an option nor an option's value.
WRAPPER_OPTIONS: dict[str, frozenset[str]] = {
    "time": frozenset({"-o", "-f"}),
    "nice": frozenset({"-n"}),
    "nohup": frozenset(),
    "timeout": frozenset({"-k", "-s"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "ionice": frozenset({"-c", "-n"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-I", "-L", "-P", "-d", "-E", "-a", "-n", "-s"}),
    "setsid": frozenset(),
    "chrt": frozenset(),
    "unbuffer": frozenset(),
}
WRAPPERS = frozenset(WRAPPER_OPTIONS)
# The wrappers harmless enough to look through for allow rules too (they only time, pace or
# bound the command), as Claude Code does for timeout, nice and nohup. `time -o FILE` writes a
# file (GNU time): such a line is not plain (OUTPUT_OPTION), so no allow rule covers it.
SAFE_WRAPPERS = frozenset({"time", "nice", "nohup", "timeout", "stdbuf", "ionice"})
# Shells whose `-c` argument is itself a command line (deny rules look inside it).
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
# How deep deny rules follow substitutions and `sh -c '...'` inside one another: one level is the
# usual case, a few more cover quoting games, and a bound keeps a hostile nesting (`$($($(...`)
# from recursing without end. What lies deeper is not read: TOO_DEEP stands for it among the
# views, and every deny rule naming the tool with a pattern matches it (refused, to be safe).
MAX_NESTED = 4
TOO_DEEP = "\x00nested too deep to read"
# A redirection that writes or reads no file: duplicating a descriptor (`2>&1`, `>&2`, `<&0`),
# closing one (`2>&-`), or writing to /dev/null (`2>/dev/null`, `&>/dev/null`).
HARMLESS_REDIRECTION = re.compile(r"(?:\d*|&)(?:>>?|<)(?:&(?:\d+|-)|\s*/dev/null(?=\s|$))")
# An option that names a file for the program to write: `-o FILE` (time, sort, gcc, curl),
# `-O` (wget, curl), `--output[=FILE]` (git diff, many more), `--log-file` ..., or `-o` glued to
# a path (`-o/tmp/x`, `-o./x`). A redirection in an option's clothing: `git diff --output=~/.bashrc`
# or `time -o ~/.bashrc pytest` would write anywhere under a rule that allows `git diff *` or
# `pytest *`, so a line holding one is not plain (it asks). Programs whose -o means something
# else (`ls -o`, `pytest -o ini=value`) ask too: the safe side of a guess.
OUTPUT_OPTION = re.compile(
    r"-o|-O|-o[/.~].*|--(?:output|output-file|output-document|out|out-file|outfile|log-file|"
    r"logfile)(?:=.*)?",
    re.DOTALL,
)
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
    a shape no rule can vouch for (then `why` says which); `inner` are the command lines inside
    its substitutions, at `depth` substitutions or `sh -c` arguments down."""

    parts: tuple[str, ...]
    plain: bool
    why: str
    inner: tuple[str, ...] = ()
    depth: int = 0

    def deny_views(self) -> tuple[str, ...]:
        """Every text a deny rule is matched against: each part as written and as the shell
        reads it (quotes out), without its wrappers and assignments, and the commands found
        inside substitutions, `sh -c`, `eval` and `env -S` (computed when asked: allow rules
        never need them)."""
        return _deny_views(self.parts, self.inner, self.depth)

    def allow_views(self) -> tuple[str, ...]:
        """Each part as an allow rule sees it: the harmless wrappers taken off (a wrapper with
        no command after it, `nohup` alone, is the command)."""
        return tuple(strip_wrappers(part, SAFE_WRAPPERS) or part for part in self.parts)


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
            if any(OUTPUT_OPTION.fullmatch(_unquote(word)) for word in _words(text)[1:]):
                self.problem("an option naming a file to write (-o, --output ...)")
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
    why = ", ".join(cutter.problems)
    return CommandParts(tuple(cutter.parts), not cutter.problems, why, tuple(inner), depth)


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
    words = _words(part)
    start = 0
    while start < len(words):
        word = _unquote(words[start])
        if assignments and ASSIGNMENT.match(word):
            start += 1
        elif word in wrappers:
            start = _skip_options(words, start + 1, word)
        else:
            break
    return " ".join(words[start:])


def _words(part: str) -> list[str]:
    """A part's words as written (quotes kept), split at the spaces outside quotes."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    index = 0
    while index < len(part):
        char = part[index]
        if char == "\\" and quote != "'":
            current.append(part[index : index + 2])
            index += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == " ":
            if current:
                words.append("".join(current))
            current = []
            index += 1
            continue
        current.append(char)
        index += 1
    if current:
        words.append("".join(current))
    return words


def _unquote(text: str) -> str:
    """`text` as the shell reads it: quotes and escaping backslashes taken out (`r''m` and
    `\\rm` are `rm`, for deny rules)."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "'":
            out.append(text[index + 1 : index + 2])
            index += 2
            continue
        if quote and char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _skip_options(words: list[str], start: int, wrapper: str) -> int:
    """The index of the first word after a wrapper's options and values."""
    index = start
    while index < len(words):
        word = _unquote(words[index])
        if word == "--":
            return index + 1
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in WRAPPER_OPTIONS[wrapper] else 1
        elif wrapper == "env" and ASSIGNMENT.match(word):
            index += 1
        elif wrapper in ("timeout", "nice", "chrt") and DURATION.fullmatch(word):
            index += 1
        else:
            return index
    return index


def _deny_views(parts: tuple[str, ...], inner: tuple[str, ...], depth: int) -> tuple[str, ...]:
    """Every text a deny rule is matched against (see CommandParts); past MAX_NESTED levels,
    TOO_DEEP stands for what could not be looked into."""
    views: list[str] = []
    nested = list(inner)
    for part in parts:
        bare = strip_wrappers(part, assignments=True)
        views += [part, bare, _unquote(part), _unquote(bare)]
        nested += [s for text in (part, bare) if (s := _shell_script(text)) is not None]
    if nested and depth >= MAX_NESTED:
        views.append(TOO_DEEP)
    elif nested:
        for text in nested:
            views += split_command(text, depth + 1).deny_views()
    return tuple(dict.fromkeys(view for view in views if view))


def _shell_script(command: str) -> str | None:
    """The command line a shell runs with `-c` (`bash -c 'rm -rf x'` -> `rm -rf x`), that
    `eval` runs, or that `env -S` splits into a command."""
    words = [_unquote(word) for word in _words(command)]
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program == "eval":
        return " ".join(words[1:])
    for index, word in enumerate(words[1:], start=1):
        if program == "env" and word.startswith(("-S", "--split-string")):
            value = word.partition("=")[2] if word.startswith("--") else word[2:]
            return value or (words[index + 1] if index + 1 < len(words) else None)
        if program in SHELLS and word.startswith("-") and not word.startswith("--"):
            if "c" in word[1:]:
                return words[index + 1] if index + 1 < len(words) else None
    return None
