"""The status line command: its setting, the JSON it reads, its run and its cleaned first line."""
