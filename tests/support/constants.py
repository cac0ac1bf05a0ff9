"""Values the tests share: the scripted server's key and model, and where the repository is."""

from __future__ import annotations

from pathlib import Path

# The key the scripted server accepts; tests scan written files to prove it never lands on disk.
TEST_API_KEY = "sk-test-0123456789abcdef"
TEST_MODEL = "scripted-model"
# The repository's root: what tests of the code base itself (rules, dependencies) read.
REPO_ROOT = Path(__file__).resolve().parents[2]
# The 60 recorded sessions (real mini-swe-agent runs), committed in the repository with their
# provenance and licence (bench/data/README.md); tests reach them through recorded_sessions_file.
RECORDED_SESSIONS = REPO_ROOT / "bench" / "data" / "trajectories-dev60.jsonl.gz"
