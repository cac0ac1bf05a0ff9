"""Rules of the code base, checked by the suite: layering contracts, lint, the supply chain."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.constants import REPO_ROOT

ROOT = REPO_ROOT
BIN = Path(sys.executable).parent
# Releases of litellm that were published by an attacker; no lock may ever admit them.
COMPROMISED = {"litellm": {"1.82.7", "1.82.8"}}
LOCKS = ("requirements.lock", "requirements-dev.lock")


def test_import_contracts_hold() -> None:
    """The core never imports Textual; only agent.model.llm touches litellm (import-linter)."""
    done = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" not in done.stdout.split("Contracts:")[-1].lower() or "0 broken" in done.stdout


def test_ruff_is_clean() -> None:
    done = subprocess.run(
        [str(BIN / "ruff"), "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # a cold type check of the whole code base takes half a minute
def test_types_check_strictly() -> None:
    """mypy --strict over agent/, tools/, sessions/ and tui/ (the [tool.mypy] table)."""
    done = subprocess.run(
        [str(BIN / "mypy")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def locked_versions(lock: Path) -> dict[str, str]:
    pins = re.findall(
        r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s\\]+)", lock.read_text(), re.MULTILINE
    )
    return {name.lower(): version for name, version in pins}


def test_locks_pin_every_package_with_hashes() -> None:
    for name in LOCKS:
        text = (ROOT / name).read_text()
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[-1])
        for entry in entries:
            if entry.startswith("#") or not entry.strip():
                continue
            assert "==" in entry and "--hash=sha256:" in entry, (
                f"{name}: unpinned or unhashed: {entry[:80]}"
            )


def test_locks_never_admit_compromised_releases() -> None:
    for name in LOCKS:
        pins = locked_versions(ROOT / name)
        for package, bad in COMPROMISED.items():
            assert package in pins, f"{name} does not pin {package}"
            assert pins[package] not in bad, f"{name} pins compromised {package}=={pins[package]}"


def test_no_tracked_file_names_a_package_registry() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert "uv.lock" not in files
    pattern = re.compile(r"https?://[^\s\"']*/(simple|packages)/")
    for name in files:
        path = ROOT / name
        if path.is_file() and path.suffix not in (".gz", ".png", ".svg"):
            assert not pattern.search(path.read_text(errors="ignore")), name


def test_pyproject_pins_match_the_lock() -> None:
    """An exact pin is the locked version; a range (mcp's) holds the locked version."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for lock in LOCKS:
        pins = locked_versions(ROOT / lock)
        for text in project["dependencies"] + project["optional-dependencies"]["dev"]:
            requirement = Requirement(text)
            name = requirement.name.lower()
            if lock == "requirements.lock" and text in project["optional-dependencies"]["dev"]:
                continue
            assert name in pins, f"{lock} does not pin {name}"
            assert requirement.specifier.contains(pins[name], prereleases=True), (
                f"{lock} pins {name}=={pins[name]}, outside {text}"
            )
