"""First frame of `pleat` against a bare Textual app: `.venv/bin/python bench/tui_startup.py`."""

from __future__ import annotations

import json
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_results import save  # noqa: E402

# Runs of each app, interleaved so both see the same machine load; the median absorbs the
# odd slow start (a cold disk cache, another process).
REPEATS = 9
# The goal (issue 32): pleat's first frame within 1.3x a bare app's.
GOAL_RATIO = 1.3
# Seconds a child may take before it counts as hung.
TIMEOUT_SECONDS = 60.0
# The terminal the children draw on.
COLUMNS, ROWS = 120, 40

# Patched in before the app runs, in both children alike: the first time Textual hands a frame
# to the terminal, report the wall-clock time (and whether litellm is loaded yet) on the pipe
# named by BENCH_REPORT_FD and leave at once (teardown is not startup).
HOOK = """
import json, os, sys, time
from textual.app import App
_display = App._display
def _first_frame(self, screen, renderable):
    _display(self, screen, renderable)
    if renderable is not None:
        report = {"t": time.time(), "litellm": "litellm" in sys.modules}
        os.write(int(os.environ["BENCH_REPORT_FD"]), json.dumps(report).encode())
        os._exit(0)
App._display = _first_frame
"""

BARE = (
    HOOK
    + """
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input
class Bare(App):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Ask")
        yield Footer()
Bare().run()
"""
)

PLEAT = (
    HOOK
    + """
import tui.main
sys.exit(tui.main.main(sys.argv[1:]))
"""
)


def first_frame(code: str, args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bool]:
    """Seconds from spawn to the first frame, and whether litellm was imported by then."""
    report_read, report_write = os.pipe()
    master, slave = pty.openpty()
    drained = threading.Event()

    def drain() -> None:  # the child's drawing must not block on a full pty buffer
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass
        drained.set()

    threading.Thread(target=drain, daemon=True).start()
    started = time.time()
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={
            **env,
            "COLUMNS": str(COLUMNS),
            "LINES": str(ROWS),
            "TERM": "xterm-256color",
            "BENCH_REPORT_FD": str(report_write),
        },
        cwd=cwd,
        pass_fds=(report_write,),
    )
    os.close(report_write)
    os.close(slave)
    try:
        child.wait(timeout=TIMEOUT_SECONDS)
        raw = os.read(report_read, 4096)
    finally:
        os.close(report_read)
        os.close(master)
    if not raw:
        raise RuntimeError(f"no frame reported (exit code {child.returncode})")
    report = json.loads(raw)
    return report["t"] - started, bool(report["litellm"])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        # Bytecode as an installed pleat has it (pip compiles on install; Python writes it on a
        # first run): both apps read compiled modules from a private cache, filled by the warm-up
        # runs below, so neither pays for compiling its sources (a shell with
        # PYTHONDONTWRITEBYTECODE set would otherwise make pleat's own modules compile on
        # every start, about 40 ms, and not Textual's, whose bytecode came with its install).
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache"),
            "PLEAT_HOME": str(Path(tmp) / "home"),
            "PYTHONPATH": str(ROOT),
        }
        # A model string and a server address: nothing is called before the first frame.
        args = [
            "--model",
            "scripted-model",
            "--api-base",
            "http://127.0.0.1:9/v1",
            "--api-key",
            "x",
        ]
        first_frame(BARE, [], env, workspace)  # warm the disk cache for both
        first_frame(PLEAT, args, env, workspace)
        bare: list[float] = []
        pleat: list[float] = []
        litellm_before_frame = False
        for _ in range(REPEATS):
            bare.append(first_frame(BARE, [], env, workspace)[0])
            seconds, loaded = first_frame(PLEAT, args, env, workspace)
            pleat.append(seconds)
            litellm_before_frame = litellm_before_frame or loaded
    bare_ms = statistics.median(bare) * 1000
    pleat_ms = statistics.median(pleat) * 1000
    ratio = pleat_ms / bare_ms
    print(f"first frame, median of {REPEATS} runs on a {COLUMNS}x{ROWS} pseudo-terminal")
    print(f"{'app':<28}{'median ms':>10}{'min ms':>10}{'max ms':>10}")
    for name, runs in (("bare Textual (Header, Input)", bare), ("pleat", pleat)):
        print(
            f"{name:<28}{statistics.median(runs) * 1000:>10.0f}"
            f"{min(runs) * 1000:>10.0f}{max(runs) * 1000:>10.0f}"
        )
    verdict = "met" if ratio <= GOAL_RATIO else f"missed by {ratio - GOAL_RATIO:.2f}x"
    print(
        f"ratio {ratio:.2f}x (goal <= {GOAL_RATIO}x: {verdict}); "
        f"litellm imported before the first frame: {litellm_before_frame}"
    )
    save(
        "startup",
        {
            "repeats": REPEATS,
            "bare_ms": bare_ms,
            "pleat_ms": pleat_ms,
            "ratio": ratio,
            "bare_runs_ms": [round(s * 1000, 1) for s in bare],
            "pleat_runs_ms": [round(s * 1000, 1) for s in pleat],
            "litellm_before_first_frame": litellm_before_frame,
        },
    )


if __name__ == "__main__":
    main()
