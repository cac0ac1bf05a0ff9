"""Saving the default model into config.toml in place: the user's comments, other keys and
tables are kept line for line; the file is replaced atomically, readable by its owner only."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from agent.config import ConfigError
from sessions.atomic import atomic_write

# A table header (`[compaction]`, `[[x]]`): top-level keys stand before the first one.
TABLE_HEADER = re.compile(r"\s*\[")
# A top-level `key = "one-line string"  # comment` line: indent and key, the value, the rest.
ONE_LINE_STRING = r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""


def _assignment(key: str) -> re.Pattern[str]:
    """A line assigning `key` (bare or quoted) at the top level."""
    name = rf"""(?:{key}|"{key}"|'{key}')"""
    return re.compile(rf"^(\s*{name}\s*=\s*)(.*?)(\s*(?:#.*)?)$", re.DOTALL)


def toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, for every character a name can hold)."""
    return json.dumps(value, ensure_ascii=False)


def _top_level_end(lines: list[str]) -> int:
    """The index of the first table header (len(lines) when there is none)."""
    return next((i for i, line in enumerate(lines) if TABLE_HEADER.match(line)), len(lines))


def _set(lines: list[str], key: str, value: str | None, newline: str) -> list[str]:
    """`lines` with the top-level `key` set to `value` (None: its line removed): the value
    replaced on its own line, the line's comment kept; a missing key is added after the last
    top-level line, before any table and the comments leading into it."""
    end = _top_level_end(lines)
    pattern = _assignment(key)
    for index in range(end):
        body = lines[index].rstrip("\r\n")
        match = pattern.match(body)
        if match is None:
            continue
        if value is None:
            return lines[:index] + lines[index + 1 :]
        old = re.match(ONE_LINE_STRING + r"(\s*(?:#.*)?)$", match.group(2) + match.group(3))
        rest = old.group(2) if old else ""
        ending = lines[index][len(body) :] or newline
        return [
            *lines[:index],
            f"{match.group(1)}{toml_string(value)}{rest}{ending}",
            *lines[index + 1 :],
        ]
    if value is None:
        return lines
    at = end
    if end < len(lines):  # step back over the comments and blank lines that lead into the table
        while at > 0 and (not lines[at - 1].strip() or lines[at - 1].lstrip().startswith("#")):
            at -= 1
    before = lines[:at]
    if before and not before[-1].endswith("\n"):
        before[-1] += newline
    added = [f"{key} = {toml_string(value)}{newline}"]
    if at < len(lines) and at == end:  # straight before a table header: keep them apart
        added.append(newline)
    return [*before, *added, *lines[at:]]


def edited(text: str, model: str, api_base: str | None) -> tuple[str, str | None]:
    """The config text with `model` and `api_base` set (api_base None: removed, since an address
    meant for another model would misdirect this one), and the api_base it removed, if any.
    Raises ConfigError when the text is not valid TOML or cannot be edited in place."""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"not valid TOML ({error}): not changed") from None
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    lines = _set(lines, "model", model, newline)
    lines = _set(lines, "api_base", api_base, newline)
    result = "".join(lines)
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = {}
    expected = {k: v for k, v in before.items() if k not in ("model", "api_base")}
    expected["model"] = model
    if api_base is not None:
        expected["api_base"] = api_base
    if after != expected:  # a value spread over lines, or some layout the lines cannot hold
        raise ConfigError("model or api_base is written in a way pleat cannot edit: not changed")
    removed = before.get("api_base") if api_base is None else None
    return result, removed if isinstance(removed, str) else None


def save_model(path: Path, model: str, api_base: str | None) -> str:
    """Make `model` (with `api_base`, for a server's model) the default in the config file at
    `path` (created if missing); a symlinked file is edited where it points. Returns one line
    saying what changed. Raises ConfigError (one line) and leaves the file as it was when it
    cannot be read, does not parse, or cannot be written."""
    target = path.resolve() if path.is_symlink() else path
    try:
        # Bytes, not read_text: its newline translation would turn a CRLF file into LF.
        text = target.read_bytes().decode("utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"cannot read {path}: {getattr(error, 'strerror', None) or error}"
        ) from None
    try:
        result, removed = edited(text, model, api_base)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, result.encode("utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    saved = f"model = {toml_string(model)}"
    if api_base is not None:
        saved += f", api_base = {toml_string(api_base)}"
    note = (
        f" (removed api_base = {toml_string(removed)}: it was another server's)" if removed else ""
    )
    return f"saved {saved} to {path}{note}"
