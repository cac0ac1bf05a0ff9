"""The archive index brought up to date by a process of its own at the lowest priority, while
the user works: `python -m sessions.index_build PARENT_PID DATA_HOME` (started by
agent/session/archive_indexer.py). It stops, keeping what it committed, once its parent is gone;
a later use of the index goes on from there."""

from __future__ import annotations

import os
import sys


def lowest_priority() -> None:
    """Nice 19: the user's work comes first. Not SCHED_IDLE: a process that never runs while
    the cores are busy could hold the index's write lock for as long as a build keeps them so."""
    try:
        os.nice(19)
    except OSError:
        pass


def main(argv: list[str]) -> int:
    """Exit 0 once the index is current (or the parent left), 1 if it cannot be used now, 2 on
    wrong arguments."""
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python -m sessions.index_build PARENT_PID DATA_HOME", file=sys.stderr)
        return 2
    parent = int(argv[0])
    os.environ["PLEAT_HOME"] = argv[1]
    lowest_priority()
    from sessions.archive_index import IndexUnavailable, use_index

    try:
        use_index(lambda conn: None, stopped=lambda: os.getppid() != parent)
    except IndexUnavailable as error:
        print(f"pleat: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
