"""Translate glob patterns (`*`, `?`, `[...]`, `**`, optional `{a,b}`) to regular expressions."""

from __future__ import annotations

import re

# Characters that Python's re warns about or treats specially inside a [...] set.
_SET_SPECIAL = frozenset("\\[&~|")


def _translate_set(pattern: str, start: int) -> tuple[str, int] | None:
    """Translate the `[...]` set opening at `start`; None when it never closes (a literal "[")."""
    end = start + 1
    if end < len(pattern) and pattern[end] in "!^":
        end += 1
    if end < len(pattern) and pattern[end] == "]":
        end += 1
    while end < len(pattern) and pattern[end] != "]":
        end += 1
    if end >= len(pattern):
        return None
    body = pattern[start + 1 : end]
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    escaped = "".join("\\" + c if c in _SET_SPECIAL else c for c in body)
    # A set never matches "/", as in git and the shell: it stands for one name character.
    return ("[^/" + escaped + "]" if negated else "(?!/)[" + escaped + "]"), end + 1


def glob_to_regex(pattern: str, *, braces: bool = False) -> str:
    """A regex source matching whole posix paths the way git and ripgrep read `pattern`.

    `*` and `?` never cross a "/"; a whole-segment `**/` spans zero or more directories, a
    trailing `/**` everything below, `**` alone everything; `\\x` is a literal x. With
    `braces`, `{a,b}` means a or b (ripgrep style; .gitignore has no braces).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        segment_start = i == 0 or pattern[i - 1] == "/"
        segment_end = i + 2 == n or pattern[i + 2 : i + 3] == "/"
        if pattern.startswith("**", i) and segment_start and segment_end:
            if i + 2 == n:
                out.append(".*")
                i += 2
            else:
                out.append("(?:[^/]+/)*")
                i += 3
        elif c == "*":
            while pattern.startswith("*", i + 1):  # "**" inside a name is a plain "*"
                i += 1
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            translated = _translate_set(pattern, i)
            if translated is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(translated[0])
                i = translated[1]
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "{" and braces and "}" in pattern[i:]:
            end = pattern.index("}", i)
            options = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def compile_glob(pattern: str, *, braces: bool = False) -> re.Pattern[str]:
    """The compiled form of glob_to_regex, for fullmatch against posix paths."""
    return re.compile(glob_to_regex(pattern, braces=braces))
