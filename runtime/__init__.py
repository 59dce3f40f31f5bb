"""The actor runtime: actor base, local cache, work queue, client, supervisor."""
