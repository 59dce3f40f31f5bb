"""The scheduler actor: Kubernetes' default scheduling over a local cache of pods and nodes."""
