"""The service proxy actor: Services' ClusterIPs and node ports forwarded to their endpoints."""
