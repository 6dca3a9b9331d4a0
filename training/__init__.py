"""Fine-tuning policies on the checker reward (installed as ``vibelife_env.training``)."""

if __name__ != "vibelife_env.training":  # one import name only (see setup.py)
    raise ImportError(f"import this folder as vibelife_env.training, not as {__name__}")
