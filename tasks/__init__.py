"""VibeLife task bundles shipped with the package (data, discovered by folder)."""
