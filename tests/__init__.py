"""pleat's tests (fixtures in tests/conftest.py, helpers in tests/support).

Bytecode is cached, for this process and every pleat process a test starts, as in any Python
install: a shell with PYTHONDONTWRITEBYTECODE set would otherwise make each of the suite's
hundreds of pleat processes compile pleat's modules again, and each test worker rewrite every
test module's asserts again (seconds each)."""

import os
import sys

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
