"""pleat's own record of plugins: the marketplaces added, the plugins installed and whether each
is enabled, in one JSON file under $PLEAT_HOME, written atomically.

    {"marketplaces": {"NAME": {"source": {"source": "directory", "path": "/abs"}
                                        | {"source": "git", "url": "..."}, "path": "/abs"}},
     "installed":    {"PLUGIN@MARKET": {"version": "1.0.0", "path": "/abs"}},
     "enabled":      {"PLUGIN@MARKET": true}}

A damaged file is never written over (the marketplaces and installs it records would be lost):
reading it says so in one line, and every change is refused until it is repaired or removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.plugins.files import PluginError
from sessions.atomic import atomic_write
from sessions.model_json import ModelJsonError, loads
from sessions.paths import data_home, private_dir

# The directory under $PLEAT_HOME holding the state, the marketplaces cloned and the plugins
# installed.
PLUGINS_DIR = "plugins"
STATE_FILE = "state.json"
# The lock every change of the state is made under (changing_state).
LOCK_FILE = "state.lock"
# Bytes of the state file read at most: a line or two per marketplace and plugin; 4 MiB holds
# tens of thousands, so a larger one is damaged.
MAX_STATE_BYTES = 4 * 1024 * 1024


def plugins_home() -> Path:
    """$PLEAT_HOME/plugins."""
    return data_home() / PLUGINS_DIR


def state_path() -> Path:
    return plugins_home() / STATE_FILE


@dataclass
class PluginState:
    """What the state file records (each part keyed as the file keys it)."""

    marketplaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    installed: dict[str, dict[str, Any]] = field(default_factory=dict)
    enabled: dict[str, bool] = field(default_factory=dict)


def _objects(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, dict)}


def read_state() -> PluginState:
    """The state; empty when there is no file; PluginError (one line) when it is damaged."""
    path = state_path()
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return PluginState()
    except OSError as error:
        raise PluginError(f"{path} cannot be read ({error.strerror or error})") from None
    try:
        if len(raw) > MAX_STATE_BYTES:
            raise ModelJsonError(f"over {MAX_STATE_BYTES // (1024 * 1024)} MiB")
        data = loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ModelJsonError) as error:
        raise PluginError(
            f"{path} is damaged ({error}): repair or remove it; plugins are not changed meanwhile"
        ) from None
    if not isinstance(data, dict):
        raise PluginError(f"{path} is damaged (not an object): repair or remove it")
    enabled = data.get("enabled")
    return PluginState(
        marketplaces=_objects(data.get("marketplaces")),
        installed=_objects(data.get("installed")),
        enabled={
            k: v
            for k, v in (enabled.items() if isinstance(enabled, dict) else ())
            if isinstance(k, str) and isinstance(v, bool)
        },
    )


@contextlib.contextmanager
def changing_state() -> Iterator[PluginState]:
    """The state, read under an exclusive lock of the plugins' directory and written back when
    the block ends without an error: two pleat processes changing it at once (an install and a
    marketplace add) lose neither change (found by review). Fetches happen before, not under it."""
    private_dir(plugins_home())
    with (plugins_home() / LOCK_FILE).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = read_state()
        yield state
        write_state(state)


def write_state(state: PluginState) -> None:
    """Write the state atomically (private to the user). Raises OSError."""
    private_dir(plugins_home())
    data = {
        "marketplaces": dict(sorted(state.marketplaces.items())),
        "installed": dict(sorted(state.installed.items())),
        "enabled": dict(sorted(state.enabled.items())),
    }
    atomic_write(state_path(), (json.dumps(data, indent=1) + "\n").encode("utf-8"))
