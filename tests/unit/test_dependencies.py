"""Every pinned dependency earns its place: the product imports each runtime dependency, and
each development one is imported by the tests, run by them as a command, or a pytest plugin."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable
from importlib import metadata

from tests.support.constants import REPO_ROOT

ROOT = REPO_ROOT
# Where the product's code lives (pyproject's packages) and where the tests' and benchmarks' do.
PRODUCT = ("agent", "tools", "sessions", "tui")
CHECKS = ("tests", "bench")


def _normal(name: str) -> str:
    """A distribution name as the registry compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(extra: str | None = None) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return [_normal(re.split(r"[\[=<>!~ ;]", spec, maxsplit=1)[0]) for spec in specs]


def _imported(folders: Iterable[str]) -> set[str]:
    """Top-level module names imported anywhere under `folders` (lazy imports included)."""
    names: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module.split(".")[0])
    return names


def _distributions_of(modules: set[str]) -> set[str]:
    owners = metadata.packages_distributions()
    return {_normal(dist) for module in modules for dist in owners.get(module, ())}


def test_every_runtime_dependency_is_imported_by_the_product() -> None:
    used = _distributions_of(_imported(PRODUCT))
    unused = [name for name in _declared() if name not in used]
    assert not unused, f"declared but never imported by pleat: {unused}"


def test_every_development_dependency_is_used_by_the_checks() -> None:
    used = _distributions_of(_imported(CHECKS))
    sources = "\n".join(p.read_text() for f in CHECKS for p in (ROOT / f).rglob("*.py"))
    unused = []
    for name in _declared("dev"):
        if name in used:
            continue
        distribution = metadata.distribution(name)
        entry_points = distribution.entry_points
        # Its commands: console scripts, and executables it installs (ruff ships a binary).
        commands = [e.name for e in entry_points if e.group == "console_scripts"]
        commands += [f.name for f in distribution.files or () if f.parent.name == "bin"]
        plugin = any(e.group == "pytest11" for e in entry_points)
        if not plugin and not any(f'"{command}"' in sources for command in commands):
            unused.append(name)
    assert not unused, f"development dependencies nothing uses: {unused}"
