"""Subcommands of the ``vibelife`` CLI (one module each)."""
