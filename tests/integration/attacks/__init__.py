"""The standing attack suite: each test is an attack a tenant, a pod's ServiceAccount or a node
could make against a real cluster (real broker, real processes), and asserts it is refused or
contained and that the cluster still serves. One file per wall (docs/security.md, "Threat model")."""
