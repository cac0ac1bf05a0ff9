"""The `ask_user` tool: the model asks the user a question with 2 to 6 options (Claude Code's
AskUserQuestion); the user picks one or types an answer.

Who asks is injected (the TUI's modal, tui/asking.py); headless nobody is there, and the result
says so at once, so a run never waits for an answer that cannot come.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput

ASK_USER_TOOL = "ask_user"
# Options offered at least and at most: one is no choice; past six nobody reads them all, and
# keys 1 to 6 pick them (Claude Code's AskUserQuestion also takes 2 to 4, Codex's a few).
MIN_OPTIONS = 2
MAX_OPTIONS = 6
# Characters of the question and of one option: a question is a few lines, an option a short
# phrase; longer ones are refused so the model says it shorter (a dialog is no place for pages).
MAX_QUESTION_CHARS = 1_000
MAX_OPTION_CHARS = 200
# Characters of a typed answer passed back: a few paragraphs at most.
MAX_ANSWER_CHARS = 4_000
# The result when nobody can answer (headless, or the user dismissed the question).
NO_USER = (
    "No user is present to answer (pleat runs headless): do not ask again. Decide yourself and "
    "say what you assumed, or end your turn with the question for the user."
)
DISMISSED = (
    "The user dismissed the question without answering. Do not ask it again unchanged: go on "
    "as best you can, or stop and say what you need."
)


@dataclass(frozen=True)
class Question:
    """A question as the model gave it, checked: its text and its options."""

    text: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Reply:
    """The user's answer: the option chosen (its index), or text typed; None as the whole
    reply means dismissed, `absent` that nobody is there to ask."""

    text: str
    option: int | None = None
    absent: bool = False


# Shows a question to the user and waits for the reply (None: dismissed).
UserAsker = Callable[[Question], Awaitable[Reply | None]]


async def nobody_to_ask(question: Question) -> Reply | None:
    """Headless: nobody is there; answered at once."""
    return Reply("", absent=True)


def checked_question(args: dict[str, Any]) -> Question:
    """The arguments as a Question, or a ToolError saying what to fix."""
    text = str(args.get("question", "")).strip()
    if not text:
        raise ToolError("question is empty: ask something")
    if len(text) > MAX_QUESTION_CHARS:
        raise ToolError(
            f"the question has {len(text):,} characters; at most {MAX_QUESTION_CHARS:,}"
        )
    raw = args.get("options")
    if not isinstance(raw, list) or not all(isinstance(option, str) for option in raw):
        raise ToolError("options must be a list of strings")
    options = tuple(" ".join(option.split()) for option in raw)
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise ToolError(f"give {MIN_OPTIONS} to {MAX_OPTIONS} options, not {len(options)}")
    if any(not option for option in options):
        raise ToolError("an option is empty")
    if any(len(option) > MAX_OPTION_CHARS for option in options):
        raise ToolError(f"an option is longer than {MAX_OPTION_CHARS} characters: say it shorter")
    if len(set(options)) < len(options):
        raise ToolError("two options are the same")
    return Question(text, options)


class AskUserTool(Tool):
    """Asks the user through the injected asker. Read-only: it changes nothing; the question
    itself is the asking."""

    name = ASK_USER_TOOL
    # As short as it can be: the schema rides in every request.
    description = (
        "Ask the user a question with 2-6 options (they may type another answer). Only when "
        "you cannot go on without their choice."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 - the class attribute every tool sets
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["question", "options"],
    }
    read_only = True

    def __init__(self, ask: UserAsker = nobody_to_ask) -> None:
        self.ask = ask

    def describe_call(self, args: dict[str, Any]) -> str:
        return f"{self.name}({str(args.get('question', ''))[:80]!r})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        question = checked_question(args)
        reply = await self.ask(question)
        if reply is None:
            return ToolOutput(DISMISSED, meta={"answer": None})
        if reply.absent:
            return ToolOutput(NO_USER, meta={"answer": None, "headless": True})
        if reply.option is not None and 0 <= reply.option < len(question.options):
            chosen = question.options[reply.option]
            text = f"The user chose option {reply.option + 1}: {chosen}"
            return ToolOutput(text, meta={"answer": chosen, "option": reply.option + 1})
        typed = reply.text.strip()[:MAX_ANSWER_CHARS]
        return ToolOutput(f"The user answered: {typed}", meta={"answer": typed})
