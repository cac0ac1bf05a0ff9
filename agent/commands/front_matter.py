"""The `---` front matter of a markdown file (commands, agent definitions): the simple YAML
subset Claude Code's files use, read without a YAML library.

What is read: `key: value` lines; a value may be quoted ("..." with backslash escapes, or
'...' with '' for a quote), continued on indented lines (joined with spaces, as YAML folds a
plain value), a block (`key: |` keeps lines, `key: >` folds them), or a list (`key:` then
indented `- item` lines, joined with ", "); a `[a, b]` flow list is kept as written. Blank
lines and `#` comments are skipped. Anything else (no closing `---`, a line that is not
`key: value`, a key given twice, an unclosed quote) is a FrontMatterError with a one-line
reason, so the caller skips that one file and says why.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

# The line that opens and closes the block (YAML's document marker); `...` also closes it.
FENCE = "---"
CLOSERS = frozenset({"---", "..."})
# A key: what Claude Code's files use (`description`, `argument-hint`, `allowed-tools`).
KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
# A double-quoted value's escapes that mean something other than the character itself.
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", "e": "\x1b"}
# A double-quoted value's code point escapes (\x41, \u00e9, \U0001F600): hex digits each takes.
CODE_POINT_DIGITS = {"x": 2, "u": 4, "U": 8}
# Lines of front matter read at most: Claude Code's files use a handful; a file with more is
# not a command file someone meant (and a bound keeps a hostile one cheap).
MAX_LINES = 200


class FrontMatterError(ValueError):
    """The front matter cannot be read; the message is one line."""


@dataclass(frozen=True)
class Document:
    """A markdown file split: its front matter fields (empty without any) and its body."""

    fields: dict[str, str]
    body: str


def _unquote_double(raw: str, line: int) -> str:
    out: list[str] = []
    index = 1
    while index < len(raw):
        char = raw[index]
        if char == '"':
            if raw[index + 1 :].strip() and not raw[index + 1 :].strip().startswith("#"):
                raise FrontMatterError(f"line {line}: text after the closing quote")
            return "".join(out)
        if char == "\\" and index + 1 < len(raw):
            escaped = raw[index + 1]
            digits = CODE_POINT_DIGITS.get(escaped, 0)
            code = raw[index + 2 : index + 2 + digits]
            if digits and len(code) == digits and all(c in "0123456789abcdefABCDEF" for c in code):
                if int(code, 16) > sys.maxunicode:
                    raise FrontMatterError(f"line {line}: \\{escaped}{code} is no character")
                out.append(chr(int(code, 16)))
                index += 2 + digits
                continue
            out.append(ESCAPES.get(escaped, "\\" + escaped))
            index += 2
            continue
        out.append(char)
        index += 1
    raise FrontMatterError(f"line {line}: a quote is not closed")


def _unquote_single(raw: str, line: int) -> str:
    out: list[str] = []
    index = 1
    while index < len(raw):
        char = raw[index]
        if char == "'":
            if raw[index + 1 : index + 2] == "'":
                out.append("'")
                index += 2
                continue
            if raw[index + 1 :].strip() and not raw[index + 1 :].strip().startswith("#"):
                raise FrontMatterError(f"line {line}: text after the closing quote")
            return "".join(out)
        out.append(char)
        index += 1
    raise FrontMatterError(f"line {line}: a quote is not closed")


def _scalar(raw: str, line: int) -> str:
    """A value as written on its line: unquoted, or plain with a trailing ` # comment` off."""
    raw = raw.strip()
    if raw.startswith('"'):
        return _unquote_double(raw, line)
    if raw.startswith("'"):
        return _unquote_single(raw, line)
    comment = re.search(r"[ \t]#", raw)
    return (raw[: comment.start()] if comment else raw).strip()


def _indented(line: str) -> bool:
    return line[:1] in (" ", "\t")


def _fields(lines: list[str], first_line: int) -> dict[str, str]:
    """The `key: value` pairs of the lines between the fences."""
    fields: dict[str, str] = {}
    index = 0
    while index < len(lines):
        number = first_line + index
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if _indented(line):
            raise FrontMatterError(f"line {number}: an indented line belongs to no key")
        match = KEY.match(line.rstrip())
        if match is None:
            raise FrontMatterError(f"line {number} is not `key: value`")
        key, raw = match.group(1), (match.group(2) or "").strip()
        if key in fields:
            raise FrontMatterError(f"line {number}: {key} is given twice")
        more: list[str] = []  # the indented (or blank) lines that continue this value
        while index < len(lines) and (_indented(lines[index]) or not lines[index].strip()):
            more.append(lines[index])
            index += 1
        while more and not more[-1].strip():
            more.pop()
        fields[key] = _value(raw, more, number)
    return fields


def _value(raw: str, more: list[str], line: int) -> str:
    """One key's value: its own line's text and the indented lines after it."""
    if raw in ("|", ">", "|-", ">-", "|+", ">+"):
        kept = [m.strip() for m in more]
        return "\n".join(kept) if raw.startswith("|") else " ".join(k for k in kept if k)
    items = [m.strip() for m in more if m.strip()]
    if not raw and items and all(item.startswith("-") for item in items):
        return ", ".join(_scalar(item[1:], line) for item in items)
    if raw.startswith(('"', "'")):
        if items:  # a quoted value continued on the next lines: join, then unquote
            raw = " ".join([raw, *items])
        return _scalar(raw, line)
    return " ".join(part for part in [_scalar(raw, line), *items] if part)


def parse_document(text: str) -> Document:
    """Split `text` into its front matter fields and its body; a file that does not open with
    a `---` line has no front matter (all of it is the body)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != FENCE:
        return Document({}, text)
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() in CLOSERS:
            fields = _fields(lines[1:index], 2)
            return Document(fields, "\n".join(lines[index + 1 :]))
        if index > MAX_LINES:
            break
    else:
        raise FrontMatterError("the front matter has no closing ---")
    raise FrontMatterError(f"the front matter is longer than {MAX_LINES} lines")
