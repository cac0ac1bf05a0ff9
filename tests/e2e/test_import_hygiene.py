"""Start-up stays light: the CLI entry point and `pleat --help` import neither litellm nor openai
(checked in a fresh interpreter, where sys.modules tells the truth)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Modules that cost seconds to import; only a model call may bring them in (and the charting
# libraries only a chart: `pleat replay --report`, /context; the web libraries only a fetch; the
# MCP SDK only configured servers, in a thread once the session is open; pygls and lsprotocol
# only a language server's start).
HEAVY = (
    "litellm",
    "mcp",
    "openai",
    "tiktoken",
    "aiohttp",
    "textual",
    "plotly",
    "plotext",
    "textual_plotext",
    "httpx",
    "bs4",
    "markdownify",
    "pygls",
    "lsprotocol",
    "cattrs",
)

PROBE = """
import json, sys
sys.argv = ["pleat", *{argv!r}]
import tui.main
try:
    tui.main.main()
except SystemExit:
    pass
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))
print(json.dumps(heavy))
"""


def imported_by(argv: list[str]) -> list[str]:
    code = PROBE.format(argv=argv, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_imports_nothing_heavy() -> None:
    assert imported_by(["--help"]) == []


def test_importing_the_core_packages_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\n"
        "import agent.turn.loop, agent.config, agent.model.llm, agent.headless.run\n"
        "import tools.registry\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_console_script_help_answers() -> None:
    pleat = subprocess.run(
        [sys.executable, "-m", "tui.main", "--help"], capture_output=True, text=True, timeout=60
    )
    assert pleat.returncode == 0
    assert "--prompt" in pleat.stdout and "--api-base" in pleat.stdout


# pleat's own modules the first frame must not wait for: the agent, its tools and the session
# store are imported after it (bench/tui_startup.py measures the first frame against a bare
# Textual app; each of these chains costs milliseconds there).
AFTER_FIRST_FRAME = (
    "agent.turn.loop",
    "agent.model.llm",
    "agent.events",
    "agent.assemble",
    "agent.images.prompt",
    "agent.permissions.rules",  # the rules parse at the first decision, not the first frame
    "agent.permissions.shell_split",
    "agent.commands.builtin",  # the / list's table: when it first opens
    "agent.mcp.names",
    "tools.base",
    "tools.registry",
    "sessions.store",
    "sessions.journal",
    "sessions.messages",
    "aiofiles",
    "markdown_it",  # Textual's Markdown widget: the first reply, not the first frame
)


def test_the_apps_module_leaves_the_agent_for_after_the_first_frame() -> None:
    code = (
        "import json, sys\n"
        "import tui.main, tui.app\n"
        f"print(json.dumps(sorted(set(sys.modules) & set({AFTER_FIRST_FRAME!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


# What reading the configuration (before the UI: a bad one exits with code 2) must not import
# when there is nothing for it: the checkers of tables config.toml does not have ([hooks],
# [mcp_servers], [status_line]), the Claude Code rules' translation without a settings file,
# and OpenSSL (hashlib, secrets), which only a digest or a session's name needs.
NOT_FOR_AN_EMPTY_CONFIG = (
    "agent.hooks.config",
    "agent.mcp.settings",
    "agent.status_line.spec",
    "agent.claude_code.tools",
    "agent.permissions.policy",
    "hashlib",
    "secrets",
    "shlex",
)

UI_START_PROBE = """
import json, sys
import tui.main

def start_ui(*args, **kwargs):
    print(json.dumps(sorted(set(sys.modules) & set({watched!r}))))
    return 0

tui.main.start_ui = start_ui
sys.exit(tui.main.main({argv!r}))
"""


def test_reading_a_plain_configuration_leaves_the_unused_checkers_unimported(
    workspace: Path, pleat_home: Path
) -> None:
    argv = ["--model", "openai/m", "--api-base", "http://127.0.0.1:9/v1", "--cwd", str(workspace)]
    code = UI_START_PROBE.format(watched=NOT_FOR_AN_EMPTY_CONFIG, argv=argv)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_configured_table_is_still_checked_before_the_ui(
    workspace: Path, pleat_home: Path
) -> None:
    """The checkers imported on demand still refuse a bad table: exit 2, one line."""
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text("[status_line]\ncommand = 3\n", encoding="utf-8")
    argv = ["--model", "openai/m", "--cwd", str(workspace)]
    code = UI_START_PROBE.format(watched=NOT_FOR_AN_EMPTY_CONFIG, argv=argv)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("pleat: error: ") and "status_line" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
