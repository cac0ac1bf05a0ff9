"""pleat's entry point: the composition root, where the command line is given the UI it starts."""

from __future__ import annotations

import gc
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.config import Config


def start_ui(
    config: Config | None,
    workspace: Path,
    *,
    approve_everything: bool,
    resume: str | None,
    continue_latest: bool,
    notes: Sequence[str] = (),
    plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {}),
) -> int:
    """Run the terminal UI to its end. Textual is imported only here, so `pleat --help`, `pleat
    -p` and `pleat sessions` never pay for it.

    The collector is off until the first frame (the app turns it back on after it): start-up
    only creates objects that live as long as the app (modules, classes, styles, widgets), and
    the collections their number sets off scan all of them again, a tenth of the start-up time
    for nothing."""
    gc.disable()
    try:
        return _run_app(
            config,
            workspace,
            approve_everything=approve_everything,
            resume=resume,
            continue_latest=continue_latest,
            notes=notes,
            plugin_settings=plugin_settings,
        )
    finally:
        gc.enable()


def _run_app(
    config: Config | None,
    workspace: Path,
    *,
    approve_everything: bool,
    resume: str | None,
    continue_latest: bool,
    notes: Sequence[str],
    plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]],
) -> int:
    from tui.app import PleatApp

    app = PleatApp(
        config,
        workspace,
        approve_everything=approve_everything,
        resume=resume,
        continue_latest=continue_latest,
        notes=notes,
        plugin_settings=plugin_settings,
    )
    app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    """The `pleat` console script. Secrets in the environment and on the command line are
    first blanked where the commands pleat runs could read them back (/proc)."""
    from agent.process_secrets import hide_start_up_secrets

    hide_start_up_secrets()
    from agent.cli import main as cli_main

    return cli_main(argv, start_ui=start_ui)


if __name__ == "__main__":
    sys.exit(main())
