"""The compaction engine: fold old context into a summary inside the live conversation."""
