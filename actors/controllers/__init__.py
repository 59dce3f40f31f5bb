"""Controllers: each its own actor, reconciling by key from its local cache."""
