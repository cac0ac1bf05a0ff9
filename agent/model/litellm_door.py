"""litellm, imported on first use: offline, silent, and frozen out of the garbage collector."""

from __future__ import annotations

import gc
import logging
import os
import sys
from typing import Any

from agent.model.offline import prepare_offline_env

# litellm's logger, and the variable that sets its level. Left alone it writes tracebacks to
# stderr for what pleat reports itself in one line, or that is no failure at all: a reply whose
# tool call holds a lone surrogate breaks only litellm's own cost logging of the stream.
LITELLM_LOGGER = "LiteLLM"
LITELLM_LOG = "LITELLM_LOG"


def load_litellm() -> Any:
    """Import litellm on first use (about 4 s and 170 MiB), offline and silent."""
    prepare_offline_env()
    first_import = "litellm" not in sys.modules
    import litellm

    if first_import:
        # litellm's import leaves about 300,000 long-lived objects: frozen out of the
        # collector, a full collection no longer scans them (0.1 s each), nor does the one the
        # interpreter makes at exit, which took 0.6-0.9 s of every `pleat -p` run (more than
        # its reply from a local server: bench/cold_start.py). Once per process (the TUI
        # freezes after its own warm-up import): a later freeze would pin whatever garbage is
        # around then.
        gc.freeze()
    litellm.suppress_debug_info = True  # it prints to stdout on errors, which would corrupt a TUI
    litellm.drop_params = True  # providers that lack an optional parameter get the call anyway
    if LITELLM_LOG not in os.environ:  # unless the user asks for litellm's own log
        logging.getLogger(LITELLM_LOGGER).setLevel(logging.CRITICAL)
    return litellm
