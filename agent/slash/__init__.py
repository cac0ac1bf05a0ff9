"""The built-in slash commands' bodies: each answers with events, whichever front end runs it."""
