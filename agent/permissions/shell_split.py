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
`env`, `timeout`, `flock` and `xargs` taken off first (past a wrapper whose words cannot be read
for sure, every word is tried as the command) and a program given by its path read as its name
(`/bin/rm` is `rm`); a line nested too deep to read is refused by any deny rule of the tool.
This is a guard against an agent's ordinary mistakes, not a sandbox: a command can always reach
a program some other way (a script it wrote, an alias), which is why the default mode asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.permissions.shell_wrappers import (
    LOOSE_WRAPPER_WORDS,
    SAFE_WRAPPERS,
    SHELLS,
    WRAPPER_OPTIONS,
    WRAPPER_POSITIONALS,
    WRAPPERS,
)

# Characters that start another command when unquoted (and, doubled, && and ||). A carriage
# return is not one for the shell, but it is cut at too (and makes the line not plain): a
# terminal would draw what follows it over what precedes it.
COMMAND_SEPARATORS = frozenset(";&|\n\r")
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
    `assignments` (for deny rules only), leading `NAME=value` words are taken off too (an
    assignment such as LD_PRELOAD changes what a command does, so allow rules see it), and a
    wrapper given by its path (`/usr/bin/sudo`) is one too (for allow rules, `./nice` is a
    script of the workspace, not nice)."""
    words = _words(part)
    return " ".join(words[_command_start(words, wrappers, assignments)[0] :])


def _command_start(
    words: list[str], wrappers: frozenset[str], deny: bool
) -> tuple[int, int | None]:
    """Where the command under the wrappers starts, and where the first wrapper other than the
    SAFE_WRAPPERS sits (None when there is none): deny rules try every word after it."""
    start, loose = 0, None
    while start < len(words):
        word = _unquote(words[start])
        program = word.rsplit("/", 1)[-1] if deny else word
        if deny and ASSIGNMENT.match(word):
            start += 1
        elif program in wrappers:
            if loose is None and program not in SAFE_WRAPPERS:
                loose = start
            start = _skip_options(words, start + 1, program)
        else:
            break
    return start, loose


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
    """The index of the first word after a wrapper's options, their values and its positional
    arguments (WRAPPER_POSITIONALS)."""
    index = start
    positionals = WRAPPER_POSITIONALS.get(wrapper, 0)
    while index < len(words):
        word = _unquote(words[index])
        if word == "--":
            index += 1
            break
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in WRAPPER_OPTIONS[wrapper] else 1
        elif wrapper == "env" and ASSIGNMENT.match(word):
            index += 1
        elif wrapper in ("timeout", "nice") and DURATION.fullmatch(word):
            index += 1
        else:
            break
    return min(index + positionals, len(words))


def _deny_views(parts: tuple[str, ...], inner: tuple[str, ...], depth: int) -> tuple[str, ...]:
    """Every text a deny rule is matched against (see CommandParts); past MAX_NESTED levels,
    TOO_DEEP stands for what could not be looked into."""
    views: list[str] = []
    nested = list(inner)
    for part in parts:
        words = _words(part)
        start, loose = _command_start(words, WRAPPERS, True)
        bares = [" ".join(words[start:])]
        if loose is not None:  # any word after it may be the command (LOOSE_WRAPPER_WORDS)
            if len(words) - loose - 1 > LOOSE_WRAPPER_WORDS:
                views.append(TOO_DEEP)
            for index in range(loose + 1, min(len(words), loose + 1 + LOOSE_WRAPPER_WORDS)):
                word = _unquote(words[index])
                if " " in word:  # `su -c 'rm x'`, `watch 'rm x'`, `ssh host 'rm x'`
                    nested.append(word)
                elif not word.startswith("-"):
                    bares.append(" ".join(words[index:]))
        for bare in (part, *bares):
            views += [bare, _unquote(bare), *_by_name(bare)]
            if (script := _shell_script(bare)) is not None:
                nested.append(script)
    if nested and depth >= MAX_NESTED:
        views.append(TOO_DEEP)
    elif nested:
        for text in nested:
            views += split_command(text, depth + 1).deny_views()
    return tuple(dict.fromkeys(view for view in views if view))


def _by_name(command: str) -> list[str]:
    """A command whose program is given by its path, as its name (`/usr/bin/rm x` -> `rm x`,
    as written and unquoted), for deny rules: a rule names a program, not where it lies."""
    words = _words(command)
    program = _unquote(words[0]) if words else ""
    if "/" not in program or program.endswith("/"):
        return []
    named = " ".join([program.rsplit("/", 1)[-1], *words[1:]])
    return [named, _unquote(named)]


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


def command_words(part: str) -> list[str]:
    """A command's words as the shell reads them (split outside quotes, quotes taken out)."""
    return [_unquote(word) for word in _words(part)]
