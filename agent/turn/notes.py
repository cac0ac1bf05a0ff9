"""What the model and the user read when a turn's work did not happen: interrupted, cut off or
unrecorded. The model must always know that a step did not run, and why."""

from __future__ import annotations

# What the model reads for work the user interrupted; it must know the step did not happen.
CANCELLED_TOOL_RESULT = "cancelled: the user interrupted the turn before this tool call finished"
INTERRUPTED_REPLY_NOTE = "[interrupted by the user]"
# What closes a turn stopped because the journal could not be written (disk full, I/O error):
# the model must know the step did not happen, and why.
UNRECORDED_NOTE = "[stopped: the session journal could not be written]"
UNRECORDED_TOOL_RESULT = (
    "not run: the turn stopped because the session journal could not be written"
)
# Told to the user when the provider stopped a reply at its output token limit (finish reason
# "length"), and added to a failed tool call of such a reply so the model knows why its
# arguments broke off and sends less at once instead of repeating the same cut call.
TRUNCATED_MESSAGE = "the reply was cut at the output token limit"
CUT_ARGUMENTS_NOTE = (
    "[the reply carrying this call was cut at the output token limit, so its arguments may be "
    "incomplete: send smaller pieces, e.g. write a large file in several steps]"
)
