"""The ingress controller actor: HTTP routed by Ingress rules to Services' endpoints."""
