"""The mock service backends."""
