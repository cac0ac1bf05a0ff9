"""`@path` imports in instruction files, as Claude Code reads them: found, then read safely."""

# A CLAUDE.md (or AGENTS.md) pulls another file in by naming it `@docs/style.md`: the path is
# relative to the importing file, `~/` is the home, and an imported file may import in turn, up
# to MAX_HOPS from the first file. An `@` inside a code span or a fenced code block is text, and
# so is one glued to a word (an e-mail address). Each imported file comes right after the file
# that imported it (Claude Code lists them so), its `@path` left as written in the importer.
#
# Where an import may lead depends on whose first file it is (ImportRules): a project's files come
# with the repository (and a sandboxed command can write them), so they may import only regular
# files inside the workspace, and Markdown files under the user's Claude Code directory (the
# `@~/.claude/my-instructions.md` of Claude Code's documentation) but never its settings or
# credentials; the user's own file may import any file under the home. Every file is read as
# tools/workspace_text.py reads one (no blocking, no link leading out, a size cap), and all the
# files of one scope share one budget of bytes, so splitting a file into imports costs what the
# one file would. A file not imported is said in one line, with why; one that is not there is
# only listed (an `@alice` in prose is not a file, and is no reason to speak at start).

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent.terminal_text import visible
from tools.workspace_text import read_workspace_text

# Hops from the first file an import may be: Claude Code's documented depth (a file imported by
# an imported file is two hops away). A sixth hop is not followed, and said.
MAX_HOPS = 5
# A fence opening or closing a fenced code block: three or more backticks or tildes. Any indent
# is taken (CommonMark allows three spaces; a list item's fence is indented more): reading too
# much as code only leaves an import unread, never reads one the author meant as an example.
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
# An import: an `@` at the start of a line or after a space, then the path up to a space (a
# space written `\ ` is part of the path), as Claude Code finds them.
_MENTION = re.compile(r"(?<!\S)@((?:[^\s\\]|\\ )+)")
# A run of backticks: a code span opens with one and closes with the next run as long.
_TICKS = re.compile(r"`+")
# How a path without `./`, `~/` or `/` must start to be one (Claude Code's test): `@@x` or
# `@#x` is not a path.
_PLAIN_START = re.compile(r"[A-Za-z0-9._-]")
# Characters of an import's path, or a file's, that a line saying why it was not read shows: a
# line fits a wide terminal; a longer path (a hostile file's kilobytes of `a/a/a`) is cut.
MAX_SHOWN_CHARS = 160
# Punctuation ending a sentence after a path ("see @docs/style.md."), not part of it.
_TRAILING = ".,;:!?)"


def _paragraphs(text: str) -> Iterator[str]:
    """The paragraphs of `text` (runs of non-blank lines) outside fenced code blocks."""
    fence: str | None = None
    block: list[str] = []
    for line in text.splitlines():
        marker = _FENCE.fullmatch(line)
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None if not marker.group(2).strip() else fence
            continue
        if marker and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
            fence = marker.group(1)
        elif line.strip():
            block.append(line)
            continue
        if block:
            yield "\n".join(block)
            block = []
    if block:
        yield "\n".join(block)


def _without_code_spans(paragraph: str) -> str:
    """`paragraph` with each code span (`...`, or ``...`` around a backtick) made a space; a
    run of backticks that nothing closes is text."""
    runs = list(_TICKS.finditer(paragraph))
    kept: list[str] = []
    at = index = 0
    while index < len(runs):
        opening = runs[index]
        width = len(opening.group())
        close = next(
            (j for j in range(index + 1, len(runs)) if len(runs[j].group()) == width), None
        )
        if close is None:
            index += 1
            continue
        kept += [paragraph[at : opening.start()], " "]
        at = runs[close].end()
        index = close + 1
    kept.append(paragraph[at:])
    return "".join(kept)


def _cleaned(raw: str) -> str | None:
    """The path an `@` names (None: not a path): its `#fragment` dropped, `\\ ` a space, a
    sentence's closing punctuation left out."""
    path = raw.split("#", 1)[0].replace("\\ ", " ").rstrip(_TRAILING)
    if not path or path == "/" or "\0" in path:  # no file's name holds a NUL
        return None
    if path.startswith(("~/", "/")) or _PLAIN_START.match(path):
        return path
    return None


def brief(text: str) -> str:
    """A path as a line shows it: no escape reaches the terminal, and never past the cap."""
    cut = text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "…"
    return visible(cut)


def import_specs(text: str) -> list[str]:
    """The paths `text` imports, in order, each once (see the module)."""
    found: list[str] = []
    for paragraph in _paragraphs(text):
        for match in _MENTION.finditer(_without_code_spans(paragraph)):
            path = _cleaned(match.group(1))
            if path is not None and path not in found:
                found.append(path)
    return found


def import_target(spec: str, importer: Path, home: Path | None) -> Path | None:
    """Where `spec` leads from the file `importer` (None: a `~/` path without a home)."""
    if spec.startswith("~/"):
        return None if home is None else home / spec[2:]
    return Path(os.path.normpath(importer.parent / spec))  # "/x" stays absolute


@dataclass(frozen=True)
class Root:
    """A directory one scope's imports may be read from; `markdown_only`: only its .md files."""

    path: Path  # resolved
    markdown_only: bool = False


@dataclass(frozen=True)
class ImportRules:
    """Where the imports of one scope's files may lead, and that said in words for a refusal."""

    roots: tuple[Root, ...]
    allowed: str  # e.g. "inside the workspace, or a Markdown file under ~/.claude"
    home: Path | None  # where `~/` leads (None: no home is known)


@dataclass(frozen=True)
class Imported:
    """An imported file read: its name as shown, where it is, its text, and who imported it."""

    name: str
    path: Path
    text: str
    imported_by: str


@dataclass
class Importer:
    """Follows the imports of one scope's files within its rules and its byte budget; collects
    the files read, a line for each one refused, and the imports that name no file."""

    rules: ImportRules
    budget: int  # bytes left for this scope's files
    scope: str  # the scope's files in words, for the line saying the budget is spent
    total: int  # the scope's whole budget, for that line
    show: Callable[[Path], str]  # a path as lines show it (workspace-relative, ~/...)
    seen: set[str] = field(default_factory=set)  # real paths of the files read already
    skipped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def take(self, text: str) -> None:
        """Count a file's text against the budget."""
        self.budget = max(0, self.budget - len(text.encode("utf-8", errors="replace")))

    def _root_for(self, real: Path) -> Root | None:
        for root in self.rules.roots:
            if real == root.path or real.is_relative_to(root.path):
                if not root.markdown_only or real.suffix.lower() == ".md":
                    return root
        return None

    def _read(self, spec: str, target: Path, where: str) -> str | None:
        """The text of one imported file, or None with the reason kept."""
        real = Path(os.path.realpath(target))
        root = self._root_for(real)
        if root is None:
            shown = brief(self.show(real))
            self.skipped.append(f"{where}: {shown} is not {self.rules.allowed}; not read")
            return None
        if self.budget <= 0:
            said = f"{self.scope} already take {self.total:,} bytes"
            self.skipped.append(f"{where} not read: {said}")
            return None
        found = read_workspace_text(root.path, target, self.budget)
        if found.skipped is not None:
            self.skipped.append(f"{where}: {brief(found.skipped)}")
            return None
        if found.text is None:
            self.missing.append(f"{where}: no such file")
            return None
        if "\0" in found.text:
            self.skipped.append(f"{where}: {brief(self.show(target))} is not text; not read")
            return None
        self.take(found.text)
        if found.cut:
            cap = f"{self.scope} take at most {self.total:,} bytes"
            return found.text + f"\n[... {self.show(target)} cut: {cap}]"
        return found.text

    def follow(
        self, name: str, path: Path, text: str, chain: tuple[str, ...] = ()
    ) -> list[Imported]:
        """The files `text` (that of the file `name` at `path`) imports, each followed by the
        files it imports in turn, depth first. `chain`: the real paths of its importers."""
        chain = (*chain, os.path.realpath(path))
        self.seen.add(chain[-1])
        found: list[Imported] = []
        for spec in import_specs(text):
            where = f"@{brief(spec)} (in {brief(name)})"
            target = import_target(spec, path, self.rules.home)
            if target is None:
                self.skipped.append(f"{where}: no home directory is known; not read")
                continue
            real = os.path.realpath(target)
            if real in chain:
                self.skipped.append(f"{where} imports a file importing it (a cycle); not again")
                continue
            if real in self.seen:
                continue  # imported already, by another file: its text is there once
            if not os.path.lexists(target):
                self.missing.append(f"{where}: no such file")
                continue
            if len(chain) > MAX_HOPS:
                self.skipped.append(f"{where} is import hop {len(chain)}: at most {MAX_HOPS}")
                continue
            imported = self._read(spec, target, where)
            if imported is None:
                continue
            shown = self.show(target)
            found.append(Imported(shown, target, imported, name))
            found += self.follow(shown, target, imported, chain)
        return found
