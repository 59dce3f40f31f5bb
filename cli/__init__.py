"""The `kubus` command."""
