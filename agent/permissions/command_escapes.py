"""Whether a command's arguments make its program run another command (`find -exec`, `sed e`).

An allow rule with a wildcard (`find *`, `git *`, one "always" wrote) is meant for what the
program itself does; some programs run any other command when told so by an argument: `find .
-exec rm {} ;`, `sed '1e rm x'`, `tar --to-command=sh`, `git -c core.pager=sh log`, `awk
'{system("rm x")}'`, `rsync -e sh`. A call holding such an argument is allowed only by a rule
that spells it out exactly (no `*`): otherwise it asks. The checks read the words as the shell
would and err towards asking (`sed 's/x/w/'` asks: `w` could be the write flag).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.permissions.shell_split import command_words
from agent.permissions.shell_wrappers import SAFE_WRAPPERS, WRAPPERS

# sed commands that run or write: `e` (run a command, GNU), `w`/`W` (write a file), after an
# optional address (`1`, `$`, `/re/`, `1,5`, `!`) at the start of a command.
SED_COMMAND = re.compile(
    r"(?:^|[;{}\n])\s*(?:(?:\d+|\$|/(?:\\.|[^/])*/)(?:\s*[,~]\s*(?:\d+|\$|/(?:\\.|[^/])*/))?)?"
    r"\s*!?\s*[ewW](?![A-Za-z])"
)
# sed `s` commands with their flags (any delimiter): the `e` flag runs the pattern space as a
# command, `w FILE` writes.
SED_SUBSTITUTE = re.compile(r"s([^\w\s\\])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1([A-Za-z0-9]*)")
# tar's long options that run a program (GNU tar also takes any unique prefix of them).
TAR_RUNNING = (
    "--to-command",
    "--checkpoint-action",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
)
# tar's short options that run a program: -I (compress program), -F (info script).
TAR_RUNNING_SHORT = frozenset("IF")
# find's actions that run a command, delete, or write a file.
FIND_RUNNING = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})  # fmt: skip
# git's options that run what they name (or set a config that does: core.pager, alias.x=!sh).
GIT_RUNNING = (
    "-c",
    "--config-env",
    "--exec-path",
    "--ext-diff",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "-x",
    "--extcmd",
    "--open-files-in-pager",
    "--tool",
)
# git subcommands that run commands they are given or that a config names.
GIT_RUNNING_SUBCOMMANDS = frozenset({"filter-branch", "difftool", "mergetool", "daemon",
                                     "filter-repo"})  # fmt: skip
# git subcommands whose next word makes them run a command (`submodule foreach`, `bisect run`).
GIT_RUNNING_ACTIONS = {"submodule": "foreach", "bisect": "run"}
# `git config` reads (anything else writes a config, which may name a pager, alias or hook).
GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get",
                              "list", "--show-origin", "--show-scope"})  # fmt: skip
# make's options that read another makefile or evaluate text; a `NAME=value` word overrides a
# variable a recipe may run (`make test CC='rm -rf x'`).
MAKE_RUNNING = ("-f", "--file", "--makefile", "-E", "--eval", "-C", "--directory", "-I",
                "--include-dir", "-e", "--environment-overrides")  # fmt: skip
# awk text that runs or writes: system(), a pipe to or from a command, a redirection to a file,
# and options that load program text or extensions from files.
AWK_RUNNING = re.compile(r"system|\||>")
AWK_OPTIONS = ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load")
# Other programs' options that name a command to run.
RUNNING_OPTIONS: dict[str, tuple[str, ...]] = {
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "fd": ("-x", "--exec", "-X", "--exec-batch"),
    "fdfind": ("-x", "--exec", "-X", "--exec-batch"),
    "rg": ("--pre",),
    "sort": ("--compress-program",),
    "zip": ("-TT", "--unzip-command"),
    "man": ("-P", "--pager", "-H", "--html"),
    "tcpdump": ("-z",),
    "scp": ("-S", "-o", "-F"),
    "sftp": ("-S", "-o", "-F", "-D"),
    "less": ("-k", "--lesskey-file", "--lesskey-src"),
}


def runs_another_command(command: str) -> bool:
    """Whether this one command (no operators; harmless wrappers already off) may run another
    command through its arguments (see the module)."""
    words = command_words(command)
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if program in WRAPPERS and program not in SAFE_WRAPPERS:
        return bool(args)  # `flock lk rm x`, `env rm x`, `xargs rm`: the command is any word
    check = CHECKS.get(program)
    if check is not None and check(args):
        return True
    options = RUNNING_OPTIONS.get(program, ())
    if program in ("less", "more", "most") and any(arg.startswith("+") for arg in args):
        return True  # `less +!cmd`: an initial command
    return any(_is_option(arg, options) for arg in args)


def _is_option(arg: str, options: tuple[str, ...]) -> bool:
    """Whether `arg` is one of `options`, alone, with `=value`, or a short one with its value
    glued (`-ebash`) or last in a cluster (`-avze`)."""
    for option in options:
        if arg == option or arg.startswith(option + "="):
            return True
        if len(option) == 2 and option[0] == "-" and arg[:1] == "-" and arg[1:2] != "-":
            if option[1] in arg[1:]:
                return True
    return False


def _sed(args: list[str]) -> bool:
    """sed with a script that runs (`e`, `s///e`) or writes (`w`), or one read from a file."""
    scripts: list[str] = []
    expression = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-f", "--file") or arg.startswith("--file="):
            return True
        if arg in ("-e", "--expression"):
            scripts.append(args[index + 1] if index + 1 < len(args) else "")
            expression, index = True, index + 2
            continue
        if arg.startswith("--expression="):
            scripts.append(arg.partition("=")[2])
            expression = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            for position, flag in enumerate(arg[1:], start=1):
                if flag == "i":
                    break  # the rest is the in-place suffix
                if flag == "f":
                    return True
                if flag == "e":
                    rest = arg[position + 1 :]
                    glued = rest or (args[index + 1] if index + 1 < len(args) else "")
                    scripts.append(glued)
                    expression = True
                    index += 0 if rest else 1
                    break
        elif not expression and not scripts:
            scripts.append(arg)  # the first other word is the script
        index += 1
    return any(_sed_script_runs(script) for script in scripts)


def _sed_script_runs(script: str) -> bool:
    if SED_COMMAND.search(script):
        return True
    return any(set(match.group(2)) & set("ewW") for match in SED_SUBSTITUTE.finditer(script))


def _tar(args: list[str]) -> bool:
    """tar with an option that runs a program (long ones by any prefix, short -I and -F, also
    in the old style first word `tar xIf`)."""
    for position, arg in enumerate(args):
        if arg.startswith("--"):
            name = arg.partition("=")[0]
            if len(name) > 3 and any(option.startswith(name) for option in TAR_RUNNING):
                return True
        elif arg.startswith("-") or position == 0:
            if set(arg) & TAR_RUNNING_SHORT:
                return True
    return False


def _find(args: list[str]) -> bool:
    return any(arg in FIND_RUNNING for arg in args)


def _git(args: list[str]) -> bool:
    """git with an option that runs or configures a command, or a subcommand that runs one."""
    if any(_is_option(arg, GIT_RUNNING) for arg in args):
        return True  # `-ccore.pager=sh` glued too
    subcommand = next((arg for arg in args if not arg.startswith("-")), "")
    if subcommand in GIT_RUNNING_SUBCOMMANDS:
        return True
    if subcommand in GIT_RUNNING_ACTIONS and GIT_RUNNING_ACTIONS[subcommand] in args:
        return True
    return subcommand == "config" and not set(args) & GIT_CONFIG_READS


def _make(args: list[str]) -> bool:
    return any("=" in arg or _is_option(arg, MAKE_RUNNING) for arg in args)


def _awk(args: list[str]) -> bool:
    if any(_is_option(arg, AWK_OPTIONS) for arg in args):
        return True
    return any(AWK_RUNNING.search(arg) for arg in args if not arg.startswith("-"))


# The programs whose arguments are read by a check of their own.
CHECKS: dict[str, Callable[[list[str]], bool]] = {
    "sed": _sed, "gsed": _sed,
    "tar": _tar, "gtar": _tar, "bsdtar": _tar,
    "find": _find, "gfind": _find,
    "git": _git,
    "make": _make, "gmake": _make,
    "awk": _awk, "gawk": _awk, "mawk": _awk, "nawk": _awk,
}  # fmt: skip
