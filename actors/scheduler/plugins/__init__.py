"""Scheduler plugins, registered by name as kube-scheduler's are."""
