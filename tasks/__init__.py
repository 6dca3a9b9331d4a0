"""VibeLife task bundles shipped with the package (data, discovered by folder)."""

if __name__ != "vibelife_env.tasks":  # one import name only (see setup.py)
    raise ImportError(f"import this folder as vibelife_env.tasks, not as {__name__}")
