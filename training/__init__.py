"""Fine-tuning policies on the checker reward (installed as ``vibelife_env.training``)."""
