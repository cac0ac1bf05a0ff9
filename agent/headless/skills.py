"""`pleat -p "/skills"`: the skills the model can load, and those skipped."""

from __future__ import annotations

from typing import TextIO

from agent.headless.exit_codes import EXIT_OK
from agent.skills.catalog import listing_lines
from agent.skills.files import load_skills
from agent.skills.tool import skill_notes as skill_notes  # the run prints them as it starts
from agent.turn.loop import Agent
from sessions.store import Session


async def run_skills(agent: Agent, session: Session, _: str, out: TextIO, err: TextIO) -> int:
    """Each skill with its scope, file and description; then a note per skill skipped."""
    found = load_skills(agent.context.workspace)
    out.write("\n".join(listing_lines(found)) + "\n")
    return EXIT_OK
