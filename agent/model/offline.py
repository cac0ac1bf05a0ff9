"""Process environment that keeps litellm and tiktoken off the network (this must run first)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def prepare_offline_env() -> None:
    """Point litellm and tiktoken at the data they ship, before either is imported.

    litellm fetches its model price map from the network at import unless told to use its local
    copy (and waits through retries when offline); tiktoken downloads encodings on first use,
    but litellm ships o200k_base and cl100k_base in its tokenizers directory.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        spec = importlib.util.find_spec("litellm")  # locates the package without importing it
        if spec is not None and spec.origin is not None:
            tokenizers = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
            if tokenizers.is_dir():
                os.environ["TIKTOKEN_CACHE_DIR"] = str(tokenizers)
