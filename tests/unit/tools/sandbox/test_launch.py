"""The launcher never runs a command it could not confine: a bad spec, a rule the kernel refuses
or a missing program are one line on stderr and an exit code, and the command does not run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.sandbox_support import needs_sandbox
from tools.sandbox.launch import CANNOT_CONFINE, FAILURE_PREFIX
from tools.sandbox.policy import LAUNCHER


def launch(spec: object, *command: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(spec), "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def spec(writable: list[str]) -> dict[str, object]:
    return {"writable": writable, "files": [], "network": False, "namespace": True, "abi": 7}


def test_a_spec_it_cannot_apply_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    broken = {**spec([]), "writable": 5}  # not a list of directories
    for bad in ({"writable": []}, "not json", broken):
        done = launch(bad, "touch", str(marker))
        assert done.returncode == CANNOT_CONFINE
        assert done.stderr.startswith(FAILURE_PREFIX) and done.stderr.count("\n") == 1
        assert not marker.exists()
    usage = subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), "{}"], capture_output=True, text=True
    )
    assert usage.returncode == CANNOT_CONFINE and "usage" in usage.stderr


@needs_sandbox
def test_a_missing_program_is_127_and_a_confined_one_runs(tmp_path: Path) -> None:
    done = launch(spec([str(tmp_path)]), "no-such-program-anywhere")
    assert done.returncode == 127
    assert done.stderr == "pleat sandbox: no-such-program-anywhere: No such file or directory\n"
    done = launch(spec([str(tmp_path)]), "sh", "-c", f"echo ok > {tmp_path}/f && cat {tmp_path}/f")
    assert (done.returncode, done.stdout) == (0, "ok\n")
