"""Start-up stays light: the CLI entry point and `pleat --help` import neither litellm nor openai
(checked in a fresh interpreter, where sys.modules tells the truth)."""

from __future__ import annotations

import json
import subprocess
import sys

# Modules that cost seconds to import; only a model call may bring them in (and the charting
# libraries only a chart: `pleat replay --report`, /context; the web libraries only a fetch; the
# MCP SDK only configured servers, in a thread once the session is open).
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
    "tools.base",
    "tools.registry",
    "sessions.store",
    "sessions.journal",
    "sessions.messages",
    "aiofiles",
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
