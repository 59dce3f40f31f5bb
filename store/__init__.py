"""The store actor: the sole writer of state and of `{c}.events` (contract 3)."""
