"""A small .gitignore matcher for workspaces where git itself is not available."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tools.globbing import Glob, compile_glob


@dataclass(frozen=True)
class IgnoreRule:
    """One pattern line of a .gitignore file."""

    base: str  # the directory holding the .gitignore, workspace-relative posix ("" = root)
    regex: Glob
    negated: bool  # a "!" line: re-include what an earlier rule excluded
    dir_only: bool  # a trailing "/": matches directories only
    anchored: bool  # a "/" at the start or middle: matches the path below `base`, not a name


def parse_gitignore(text: str, base: str) -> list[IgnoreRule]:
    """The rules of one .gitignore file found in directory `base`."""
    rules: list[IgnoreRule] = []
    for line in text.splitlines():
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "  # "\ " keeps one escaped trailing space
        if not stripped or stripped.startswith("#"):
            continue
        negated = stripped.startswith("!")
        if negated:
            stripped = stripped[1:]
        elif stripped.startswith(("\\!", "\\#")):
            stripped = stripped[1:]
        dir_only = stripped.endswith("/")
        stripped = stripped.rstrip("/")
        if not stripped:
            continue
        anchored = "/" in stripped
        stripped = stripped.removeprefix("/")
        rules.append(IgnoreRule(base, compile_glob(stripped), negated, dir_only, anchored))
    return rules


def is_ignored(rules: Sequence[IgnoreRule], path: str, is_dir: bool) -> bool:
    """Whether workspace-relative `path` is ignored: the last matching rule decides.

    Rules must be ordered parent .gitignore first, so deeper files override shallower ones.
    Parents are not checked here: a walk never enters an ignored directory to begin with.
    """
    ignored = False
    name = path.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            if not path.startswith(rule.base + "/"):
                continue
            below = path[len(rule.base) + 1 :]
        else:
            below = path
        if rule.regex.fullmatch(below if rule.anchored else name):
            ignored = not rule.negated
    return ignored
