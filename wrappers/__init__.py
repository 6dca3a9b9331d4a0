"""Wrappers for VibeLife envs (installed as ``vibelife_env.wrappers``)."""
