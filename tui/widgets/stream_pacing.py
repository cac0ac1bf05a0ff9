"""How often a streamed reply is redrawn: at a bounded rate, less often while frames cost more."""

from __future__ import annotations

# The shortest pause between two redraws of a streamed reply: 30 frames a second read as smooth
# streaming; drawing more often only takes time from reading the stream.
MIN_PAUSE_SECONDS = 1 / 30
# Seconds of pause per second of UI-thread time the last redraw took (appending, laying out,
# painting), when the thread is busy all the pause long: at 9, drawing takes at most about a
# tenth of a busy thread's time and reading the stream the rest, so the TUI keeps up with at
# least 0.9 of the rate of the agent alone (bench/tui_streaming.py, issue 32), and keys are
# answered between frames, however slow the machine or long the reply. A frame whose text was
# already folded (tui.widgets.reply_window) costs a few milliseconds: a flood is still drawn
# several times a second.
PAUSE_PER_DRAW_SECOND = 9.0
# How long a fast stream keeps the event loop between two turns it gives back (keys, timers,
# frames): a delta takes tens of microseconds to read and a turn of the loop about as much, so
# giving it back after every delta cost a tenth of the stream's time; 4 ms is a quarter of a
# 60 Hz frame, unnoticeable next to a key's 16 ms.
YIELD_SECONDS = 0.004
# The longest pause: whatever a redraw costs, the reply visibly moves at least once a second.
MAX_PAUSE_SECONDS = 1.0


def pause_after(draw_seconds: float, busy: float = 1.0) -> float:
    """The pause before the next redraw, after one that took `draw_seconds` of the UI thread;
    `busy` is the share of the last pause the thread spent working (1: a fast stream keeps it
    busy; near 0: it waits for the network, and frames may follow at the highest rate, since
    they only use time nothing else wanted)."""
    pause = PAUSE_PER_DRAW_SECOND * draw_seconds * min(1.0, max(0.0, busy))
    return min(MAX_PAUSE_SECONDS, max(MIN_PAUSE_SECONDS, pause))
