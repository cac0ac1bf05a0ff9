"""`pleat replay`: recorded sessions through the compaction engine, strategies side by side."""
