"""Glob patterns (`*`, `?`, `[...]`, `**`, optional `{a,b}`) matched against posix paths.

Simple globs become regular expressions. One with many `*` in a name or many `**` would make a
backtracking regex take exponential time on a near miss (`*a*a*a*a*a*a*b` against a long name of
a's), so it is matched by a small matcher whose time grows only with the pattern's length times
the path's, instead of its number of wildcards as a power.
"""

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


# A glob with at most this many `*` in one name and this many `**` segments is run as a
# regular expression: its worst case is then polynomial of a low degree (a few thousand steps
# for names of real length); anything richer goes to the linear matcher.
MAX_REGEX_STARS_PER_NAME = 2
MAX_REGEX_DOUBLE_STARS = 2
# Alternatives one `{a,b}` pattern may expand to: a pattern with more is refused rather than
# matched by thousands of patterns per path (ten groups of two options already make 1,024).
MAX_BRACE_EXPANSIONS = 256


def _collapsed(pattern: str) -> str:
    """`**/**/x` as `**/x`: consecutive `**` segments mean no more than one does."""
    segments = pattern.split("/")
    kept = [
        s for i, s in enumerate(segments) if not (s == "**" and segments[i + 1 : i + 2] == ["**"])
    ]
    return "/".join(kept)


def _expanded(pattern: str) -> list[str]:
    """Every alternative of the `{a,b}` groups, in order. Raises ValueError past
    MAX_BRACE_EXPANSIONS."""
    opening = pattern.find("{")
    while opening >= 0 and opening > 0 and pattern[opening - 1] == "\\":
        opening = pattern.find("{", opening + 1)
    if opening < 0 or "}" not in pattern[opening:]:
        return [pattern]
    closing = pattern.index("}", opening)
    rests = _expanded(pattern[closing + 1 :])
    head = pattern[:opening]
    options = pattern[opening + 1 : closing].split(",")
    if len(options) * len(rests) > MAX_BRACE_EXPANSIONS:
        raise ValueError(f"the pattern has more than {MAX_BRACE_EXPANSIONS} {{a,b}} alternatives")
    return [head + option + rest for option in options for rest in rests]


_STAR = "*"
_DOUBLE = "**"


def _tokens(segment: str) -> list[object]:
    """One name's pattern as single-character tests: a literal, `?`, a set (compiled), or `*`."""
    tokens: list[object] = []
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            while segment.startswith("*", i + 1):
                i += 1
            tokens.append(_STAR)
            i += 1
        elif c == "?":
            tokens.append(re.compile("[^/]"))
            i += 1
        elif c == "[" and (translated := _translate_set(segment, i)) is not None:
            tokens.append(re.compile(translated[0]))
            i = translated[1]
        elif c == "\\" and i + 1 < len(segment):
            tokens.append(segment[i + 1])
            i += 2
        else:
            tokens.append(c)
            i += 1
    return tokens


def _one(token: object, char: str) -> bool:
    if isinstance(token, str):
        return token == char
    assert isinstance(token, re.Pattern)
    return token.fullmatch(char) is not None


def _name_matches(tokens: list[object], name: str) -> bool:
    """Whether a name matches: the classic wildcard walk, which on a mismatch only moves the
    last `*` on by one character, so it takes at most len(tokens) × len(name) steps."""
    t = n = 0
    star, star_n = -1, 0
    while n < len(name):
        if t < len(tokens) and tokens[t] is _STAR:
            star, star_n = t, n
            t += 1
        elif t < len(tokens) and _one(tokens[t], name[n]):
            t += 1
            n += 1
        elif star >= 0:
            t, star_n = star + 1, star_n + 1
            n = star_n
        else:
            return False
    while t < len(tokens) and tokens[t] is _STAR:
        t += 1
    return t == len(tokens)


class LinearGlob:
    """One alternative of a glob, matched name by name; `**` spans any number of names."""

    def __init__(self, pattern: str) -> None:
        self.segments: list[object] = [
            _DOUBLE if segment == "**" else _tokens(segment) for segment in pattern.split("/")
        ]

    def fullmatch(self, path: str) -> bool:
        names = path.split("/")
        reached = {0}  # how many names the segments so far can have matched
        last = len(self.segments) - 1
        for index, segment in enumerate(self.segments):
            if segment is _DOUBLE:
                # Zero or more names; a trailing `/**` stands for what is below: one or more.
                least = min(reached) + (1 if index == last and index > 0 else 0)
                reached = set(range(least, len(names) + 1))
            else:
                assert isinstance(segment, list)
                reached = {
                    n + 1 for n in reached if n < len(names) and _name_matches(segment, names[n])
                }
            if not reached:
                return False
        return len(names) in reached


class Glob:
    """A compiled glob: `fullmatch(path)` says whether a whole posix path matches."""

    def __init__(self, pattern: str, *, braces: bool = False) -> None:
        pattern = _collapsed(pattern)
        names = pattern.split("/")
        stars = max((name.count("*") for name in names if name != "**"), default=0)
        doubles = names.count("**")
        self._regex: re.Pattern[str] | None = None
        self._linear: list[LinearGlob] = []
        if stars <= MAX_REGEX_STARS_PER_NAME and doubles <= MAX_REGEX_DOUBLE_STARS:
            self._regex = re.compile(glob_to_regex(pattern, braces=braces))
        else:
            alternatives = _expanded(pattern) if braces else [pattern]
            self._linear = [LinearGlob(_collapsed(a)) for a in alternatives]

    def fullmatch(self, path: str) -> bool:
        if self._regex is not None:
            return self._regex.fullmatch(path) is not None
        return any(glob.fullmatch(path) for glob in self._linear)


def compile_glob(pattern: str, *, braces: bool = False) -> Glob:
    """The compiled form of a glob, for fullmatch against posix paths. Raises ValueError on a
    pattern with too many `{a,b}` alternatives."""
    return Glob(pattern, braces=braces)
