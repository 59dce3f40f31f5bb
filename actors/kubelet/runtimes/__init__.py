"""Container runtimes: `process` (host processes) and `simulated` (no processes)."""
