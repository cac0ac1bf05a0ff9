"""Settings: defaults < $PLEAT_HOME/config.toml < PLEAT_* environment < command-line flags."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import tomllib
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent.compaction.policy import CompactionPolicy, PolicyError, with_instructions_file
from agent.config_checks import (
    CHECKS,
    ENVIRONMENT,
    WORD_OR_BOOL,
    WORD_OR_NUMBER,
    checked_rules,
)
from agent.config_checks import ConfigError as ConfigError  # the settings' one error
from agent.config_claude import claude_layers
from agent.config_tables import TABLE_PARSERS
from agent.model.local_servers import DEFAULT_LOCAL_MODEL_SERVERS
from agent.model.request_shape import THINKING_OFF
from agent.model.settings import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_REQUEST_TIMEOUT,
    VISION_AUTO,
    VISION_OFF,
    VISION_ON,
    ModelSettings,
)
from agent.permissions.modes import mode_named
from sessions.short_text import quoted
from tools.sandbox.modes import NO_LANDLOCK_VARIABLE, SandboxMode

if TYPE_CHECKING:
    from agent.claude_code.settings import ClaudeSettings
    from agent.hooks.config import HookSpec
    from agent.mcp.settings import ServerSettings
    from agent.status_line.spec import StatusLineSpec
    from tools.lsp.settings import LspSettings
    from tools.sandbox.policy import Sandbox
    from tools.web_search_settings import WebSearchSettings

APP_NAME = "pleat"
ENV_PREFIX = "PLEAT_"
# Environment variables with the prefix that are not settings.
# PLEAT_CRASH_AT: the crash-safety tests' switch (agent.assemble.crash_hook).
ENV_NOT_SETTINGS = frozenset({"PLEAT_HOME", "PLEAT_CRASH_AT", NO_LANDLOCK_VARIABLE})
# The table of settings: the compaction policy.
COMPACTION = "compaction"
# Settings that are lists of permission rules. Each source adds to them (file, then environment,
# then flags) instead of replacing them: a --deny flag must not drop the file's deny rules.
RULE_LISTS = frozenset({"allow", "ask", "deny"})
# The directories added outside the workspace: a list each source adds to as well (an --add-dir
# flag keeps config.toml's); PLEAT_ADD_DIRS separates them as PATH does (os.pathsep), since
# a directory's name may hold a comma.
ADD_DIRS = "add_dirs"
ADDING_LISTS = RULE_LISTS | {ADD_DIRS}
# The tables' value types, as Config's annotations name them: each table is checked by its own
# module (imported only when the table is given, so a start without hooks, servers or a status
# line does not wait for those modules), and its key is handled before the value types are looked
# at, so resolving the annotations needs only a stand-in for these names.
TABLE_TYPES: dict[str, type] = {
    "HookSpec": object,
    "ServerSettings": object,
    "StatusLineSpec": object,
    "WebSearchSettings": object,
    "LspSettings": object,
}


@dataclass(frozen=True)
class Config:
    """Every user-settable value. Field names are the config-file keys (and PLEAT_<KEY>)."""

    model: str | None = None
    api_base: str | None = None
    # Held in memory only; pleat never writes it anywhere.
    api_key: str | None = dataclasses.field(default=None, repr=False)
    # Model calls per user request before the turn stops: a single request may legitimately
    # make a hundred tool calls (read forty files, run tests, fix, rerun), so the cap only
    # catches a model stuck in a loop.
    max_tool_iterations: int = 200
    # Default seconds a shell command may run when the model does not say (a test suite fits).
    command_timeout: float = 120.0
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    # Seconds without a keypress after a turn before the TUI folds a large context in the
    # background (0 = never). 180 s is well inside the provider's prompt-cache lifetime
    # (Anthropic keeps a cache entry 5 minutes, OpenAI 5-10), so the fold's call is still a cache
    # hit, and long enough that someone reading the answer is not interrupted by it.
    idle_compaction_seconds: float = 180.0
    # Extended thinking: "off", a level ("low", "medium", "high": litellm's reasoning_effort,
    # mapped per provider) or a token budget ("8000"). Off by default: it costs output tokens
    # and time on every call, and not every model supports it.
    thinking: str = THINKING_OFF
    # USD a run may spend on model calls (folds included) before it stops: `pleat -p` stops
    # before the call that would pass it; None is no cap.
    max_budget_usd: float | None = None
    # Servers asked which models they serve, for the /model picker and for the model used when
    # none is configured (agent/model/discovery.py). A list of base URLs; PLEAT_LOCAL_MODEL_SERVERS
    # takes them comma-separated ("" for none).
    local_model_servers: tuple[str, ...] = DEFAULT_LOCAL_MODEL_SERVERS
    # Whether the model accepts images: "auto" asks litellm's model facts; true or false is the
    # user's word for a model litellm does not know (a local or proxied one) or gets wrong.
    vision: str = VISION_AUTO
    # How tool calls are approved (agent/permissions/policy.py): ask, accept-edits, plan, full-auto.
    permission_mode: str = "ask"
    # Where commands run (tools/sandbox/): confined to the workspace ("workspace-write"), to
    # nothing but a private temporary directory ("read-only"), or as the user ("off").
    sandbox: str = "workspace-write"
    # Whether sandboxed commands may reach the network (closed by default).
    sandbox_network: bool = False
    # How the TUI calls you back when a turn ends or a question waits while the terminal lacks
    # focus: "bell" (BEL), "osc9" (a desktop notification: iTerm2, WezTerm, kitty ...) or "off".
    notify: str = "bell"
    # Permission rules, e.g. "run_command(pytest *)": calls they match run without asking ...
    allow: tuple[str, ...] = ()
    # ... or are refused, whatever the mode (deny beats allow) ...
    deny: tuple[str, ...] = ()
    # ... or ask, whatever the mode and the allow rules (deny beats ask, ask beats allow).
    ask: tuple[str, ...] = ()
    # Directories outside the workspace the model's file tools may read and write, and its
    # sandboxed commands write (--add-dir, /add-dir): checked at start, a bad one named and
    # left out (agent/permissions/added_dirs.py); `~` expanded, relative ones from the workspace.
    add_dirs: tuple[str, ...] = ()
    # An output style (Claude Code's): its instructions join the system prompt
    # (agent/commands/output_styles.py finds it by name).
    output_style: str = ""
    # Whether the model keeps a memory of this workspace across sessions with its `memory` tool
    # (agent/turn/auto_memory.py; CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 turns it off too).
    auto_memory: bool = True
    # The [compaction] table (PLEAT_COMPACTION_<KEY>, --context-window, --compaction KEY=VALUE).
    compaction: CompactionPolicy = dataclasses.field(default_factory=CompactionPolicy)
    # Commands run at session start, prompts, tool calls, folds and the end of a turn: the
    # [[hooks.EVENT]] tables (agent/hooks/config.py, agent/hooks/runner.py).
    hooks: tuple[HookSpec, ...] = ()
    # The [mcp_servers.NAME] tables: MCP servers whose tools the model can call (agent/mcp/).
    mcp_servers: tuple[ServerSettings, ...] = ()
    # The [status_line] table: a command whose first line the TUI shows above its status bar.
    status_line: StatusLineSpec | None = None
    # The TUI's prompt: "normal" or "vim" keys (Claude Code's editorMode); /vim toggles it.
    editor_mode: str = "normal"
    # The [keys] table, action = "key": the TUI's keys rebound (tui/keymap.py checks each).
    keys: tuple[tuple[str, object], ...] = ()
    # The [web_search] table: the search web_search uses, its bounds (None: the defaults).
    web_search: WebSearchSettings | None = None
    # The [lsp] table: the language servers' commands and waits; None: on, found on PATH.
    lsp: LspSettings | None = None

    def model_settings(self) -> ModelSettings:
        if not self.model:
            raise ConfigError(
                "no model configured: pass --model (e.g. openai/gpt-4o, "
                "anthropic/claude-sonnet-4-5, ollama/llama3), set PLEAT_MODEL, or set model in "
                f"{config_path()}"
            )
        return ModelSettings(
            model=self.model,
            api_base=self.api_base,
            api_key=self.api_key,
            timeout=self.request_timeout,
            max_retries=self.max_retries,
            thinking=self.thinking,
            vision=self.vision,
        )

    def sandbox_for(self, workspace: Path, added: tuple[Path, ...] = ()) -> Sandbox:
        """The sandbox commands run in for this workspace (imported here: the policy asks the
        kernel what it supports, which the first frame need not wait for); `added`: the
        directories added to the run, checked (agent/permissions/added_dirs.py checked_dirs)."""
        from tools.sandbox.policy import Sandbox

        mode = cast(SandboxMode, self.sandbox)
        return Sandbox(mode, workspace, self.sandbox_network, added=added)


def pleat_home() -> Path | None:
    value = os.environ.get("PLEAT_HOME")
    return Path(value).expanduser() if value else None


def config_path() -> Path:
    """$PLEAT_HOME/config.toml, else the platform's user config directory."""
    home = pleat_home()
    if home is not None:
        return home / "config.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


@functools.cache
def _field_types(schema: type) -> dict[str, type]:
    hints = typing.get_type_hints(schema, localns=TABLE_TYPES)
    out: dict[str, type] = {}
    for name, hint in hints.items():
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        is_optional = typing.get_origin(hint) in (typing.Union, types.UnionType)
        kind = args[0] if is_optional and args else hint
        out[name] = typing.get_origin(kind) or kind  # tuple[str, ...] is checked as a tuple
    return out


def _strings(value: Any) -> tuple[str, ...]:
    """A list setting: a TOML array of strings, or one string of comma-separated items (the
    environment's form; "" is the empty list)."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value)
    raise TypeError


def _coerce(label: str, value: Any, kind: type, source: str) -> Any:
    """Convert a value (a string from the environment, or a TOML value) to the key's type."""
    try:
        if kind is tuple:
            return _strings(value)
        if isinstance(value, str) and kind is not str:
            if kind is bool:
                lowered = value.strip().lower()
                if lowered not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError(value)
                return lowered in ("1", "true", "yes")
            value = kind(value.strip())
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(value)
            return value
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is float and isinstance(value, float) and not math.isfinite(value):
            raise ValueError(value)  # inf and nan pass every `<` check: refused here
        if isinstance(value, bool) and kind is not bool:
            raise TypeError
        if not isinstance(value, kind):
            raise TypeError
        return value
    except (TypeError, ValueError):
        names = {float: "a finite number", tuple: "a list of strings"}
        wanted = names.get(kind, kind.__name__)
        raise ConfigError(f"{source}: {label} must be {wanted}, got {quoted(value)}") from None


def _validated(
    values: dict[str, Any], source: str, label: Callable[[str], str] = str, schema: type = Config
) -> dict[str, Any]:
    """Check keys and values; `label` names a key as the user wrote it (e.g. PLEAT_MODEL).
    The [compaction] table is checked against the policy's own keys, [mcp_servers] by
    agent/mcp/settings.py."""
    kinds = _field_types(schema)
    out: dict[str, Any] = {}
    for key, value in values.items():
        if schema is Config and key == COMPACTION:
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {label(key)} must be a table of settings")
            out[key] = _validated(
                value, source, lambda k: label(f"{COMPACTION}.{k}"), CompactionPolicy
            )
            continue
        table = TABLE_PARSERS.get(key) if schema is Config else None
        if table is not None:
            out[key] = table(label(key), value, source, config_path())
            continue
        if key not in kinds:
            known = ", ".join(sorted(label(k) for k in kinds))
            raise ConfigError(f"{source}: unknown setting {label(key)!r} (known: {known})")
        if value is None:
            out[key] = None
            continue
        if schema is Config and key in RULE_LISTS:
            out[key] = checked_rules(label(key), value, source, written=source == ENVIRONMENT)
            continue
        if schema is Config and key == ADD_DIRS and source == ENVIRONMENT:
            value = [item for item in str(value).split(os.pathsep) if item.strip()]
        if key in WORD_OR_NUMBER and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if key in WORD_OR_BOOL and isinstance(value, bool):
            value = VISION_ON if value else VISION_OFF
        elif key in WORD_OR_BOOL and isinstance(value, str):
            value = value.strip().lower()
        if key == "permission_mode" and isinstance(value, str):
            value = mode_named(value.strip())  # Claude Code's names too (`acceptEdits`)
        coerced = _coerce(label(key), value, kinds[key], source)
        check = CHECKS.get(key)
        if check is not None and not check[0](coerced):
            raise ConfigError(f"{source}: {label(key)} must be {check[1]}, got {quoted(value)}")
        out[key] = coerced
    return out


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:  # unreadable (permissions), or replaced by a directory meanwhile
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return _validated(data, str(path))


def _from_env(environ: typing.Mapping[str, str]) -> dict[str, Any]:
    """PLEAT_<KEY> for settings, PLEAT_COMPACTION_<KEY> for the [compaction] table."""
    values: dict[str, Any] = {}
    table: dict[str, str] = {}
    table_prefix = f"{ENV_PREFIX}{COMPACTION.upper()}_"
    for name, value in environ.items():
        if name in ENV_NOT_SETTINGS or not name.startswith(ENV_PREFIX):
            continue
        if name.startswith(table_prefix):
            table[name[len(table_prefix) :].lower()] = value
        else:
            values[name[len(ENV_PREFIX) :].lower()] = value
    # A bare PLEAT_COMPACTION next to PLEAT_COMPACTION_<KEY> used to crash (str item
    # assignment); it is now refused below as "must be a table", whatever the order.
    if table and COMPACTION not in values:
        values[COMPACTION] = table
    label = lambda key: ENV_PREFIX + key.upper().replace(".", "_")  # noqa: E731
    return _validated(values, ENVIRONMENT, label)


def load_config(
    flags: dict[str, Any] | None = None,
    *,
    environ: typing.Mapping[str, str] | None = None,
    path: Path | None = None,
    claude: ClaudeSettings | None = None,
) -> Config:
    """Merge defaults, the user's Claude Code settings, the config file, a project's Claude Code
    settings, the environment and flags (flags set to None are unset). What of `claude` cannot
    be used is said in its notes, never a failure to start."""
    environ = os.environ if environ is None else environ
    merged: dict[str, Any] = {}
    table: dict[str, Any] = {}
    given_flags = {k: v for k, v in (flags or {}).items() if v is not None}
    user, project = ({}, {}) if claude is None else claude_layers(claude, _validated, ConfigError)
    for source in (
        user,
        _from_file(path or config_path()),
        project,
        _from_env(environ),
        _validated(given_flags, "flag"),
    ):
        table.update(source.pop(COMPACTION, {}))
        for key in ADDING_LISTS & source.keys():
            source[key] = merged.get(key, ()) + (source[key] or ())
        merged.update(source)
    try:  # the instructions file is read here, once: a bad one is said at start
        policy = with_instructions_file(CompactionPolicy(**table), (path or config_path()).parent)
    except PolicyError as error:
        raise ConfigError(f"config: {error}") from None
    return Config(**merged, compaction=policy)
