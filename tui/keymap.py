"""config.toml's [keys] table made into the app's keymap (Textual's set_keymap, by the names of
tui/keys.py's bindings): each `name = "key"` line checked, one line said for each that cannot be
used, the rest bound. The help and the footer then show the keys as rebound."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from textual.keys import KEY_NAME_REPLACEMENTS, Keys
from textual.widgets import TextArea

from agent.terminal_text import visible
from sessions.short_text import quoted
from tui.keys import KEYS
from tui.widgets.prompt_input import COMPLETION_KEYS, NEWLINE_KEYS, PromptInput

# Modifiers as Textual names them in a key ("ctrl+alt+x").
MODIFIERS = frozenset({"ctrl", "alt", "shift", "meta", "super", "hyper"})
# The modifiers with which a character key types nothing (shift+a types "A").
COMMAND_MODIFIERS = MODIFIERS - {"shift"}
# The keys that type a character (after shift at most), as Textual names them: a, 7, slash ...
# (the printable ASCII characters; others reach a terminal's keys rarely).
ASCII_FIRST, ASCII_LAST = 33, 126
# How a rebound key is written in the lines said about it.
EXAMPLE = 'e.g. "ctrl+t", "f2" or "ctrl+t,f2"'


def _keys(binding: object) -> list[str]:
    """The keys of one of a widget's BINDINGS (a Binding, or a (key, action, ...) tuple)."""
    key = binding[0] if isinstance(binding, tuple) else getattr(binding, "key", "")
    return str(key).split(",")


# The keys the prompt takes itself (its TextArea's bindings, sending, completing, a new line):
# the prompt has the focus, so an app binding on one of them never fires, or, bound before the
# focused widget, takes the key from the prompt (quit on Enter). Only a name's default may be one.
PROMPT_KEYS = frozenset(
    {key.strip() for b in (*TextArea.BINDINGS, *PromptInput.BINDINGS) for key in _keys(b)}
    | NEWLINE_KEYS
    | COMPLETION_KEYS
)


def binding_names() -> dict[str, str]:
    """Each rebindable key's name and its default key(s)."""
    return {key.binding.name: key.binding.key for key in KEYS if key.binding is not None}


def _character_name(char: str) -> str:
    """A character as Textual names it after a modifier: "ctrl+/" is "ctrl+slash"."""
    if char.isalnum():
        return char.lower()
    name = unicodedata.name(char, char).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


CHARACTER_KEYS = frozenset(_character_name(chr(c)) for c in range(ASCII_FIRST, ASCII_LAST + 1))
# The keys Textual names that are no character: escape, f1 ... f24, pageup, home, tab, space ...
NAMED_KEYS = frozenset(
    name
    for name in {key.value.rsplit("+", 1)[-1] for key in Keys} | {"enter", "space"}
    if re.fullmatch(r"[a-z][a-z0-9_]*", name) and name not in CHARACTER_KEYS
)


def checked_key(key: str) -> tuple[str | None, str]:
    """One key as Textual names it ("ctrl+e"), or None and why it cannot be bound."""
    parts = [
        part.strip().lower() if len(part.strip()) > 1 else part.strip() for part in key.split("+")
    ]
    *modifiers, base = parts
    if not base or any(not part for part in modifiers):
        return None, "not a key"
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown or len(set(modifiers)) != len(modifiers):
        which = visible(", ".join(unknown)) or "a repeated modifier"
        return None, f"{which}: the modifiers are {', '.join(sorted(MODIFIERS))}"
    if len(base) == 1:
        base = _character_name(base)
    if base not in NAMED_KEYS and base not in CHARACTER_KEYS:
        return None, f"{visible(base)} is not a key Textual knows"
    types = base in CHARACTER_KEYS or base == "space"
    if types and not COMMAND_MODIFIERS & set(modifiers):
        return (
            None,
            "it types a character in the prompt: add ctrl+ or alt+, or use a key such as f2",
        )
    return "+".join([*modifiers, base]), ""


def _clash(keys: list[str], bound: dict[str, str]) -> str | None:
    """Why a name cannot have one of `keys` (none of them its default): the prompt takes it, or
    an earlier [keys] line bound it (two names on one key: only one would ever run)."""
    for key in keys:
        if key in PROMPT_KEYS:
            return f"the prompt uses {key} itself: use a key it does not, such as f2"
        other = next((o for o, theirs in bound.items() if key in theirs.split(",")), None)
        if other is not None:
            return f"{key} is already {other}'s"
    return None


def keymap(lines: Iterable[tuple[str, object]]) -> tuple[dict[str, str], list[str]]:
    """The [keys] lines as a keymap (a binding's name to its keys, comma-separated) and one line
    for each that cannot be used (it is left out; its key stays the default)."""
    names = binding_names()
    bound: dict[str, str] = {}
    problems: list[str] = []
    for name, value in lines:
        label = f"[keys] {visible(name)}"
        if name not in names:
            problems.append(f"{label}: no key of that name (names: {', '.join(names)})")
            continue
        written = value if isinstance(value, str) else None
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            written = ",".join(value)
        if written is None or not written.strip():
            problems.append(f"{label} must be a key, {EXAMPLE}; got {quoted(value)}")
            continue
        checked = [checked_key(key) for key in written.split(",")]
        why = next((reason for key, reason in checked if key is None), None)
        wanted = [key for key, _ in checked if key is not None]
        if why is None:
            why = _clash([key for key in wanted if key not in names[name].split(",")], bound)
        if why is not None:
            problems.append(f"{label} = {quoted(visible(written))}: {why}; not rebound")
            continue
        bound[name] = ",".join(wanted)
    for name, keys in bound.items():
        for other, default in names.items():
            own = set(names[name].split(","))
            taken = (set(keys.split(",")) - own) & set(default.split(","))
            if other != name and other not in bound and taken:
                problems.append(f"[keys] {name} takes {', '.join(sorted(taken))} from {other}")
    return bound, problems
