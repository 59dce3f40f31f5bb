"""The gateway: Kubernetes' REST API over HTTPS, each call made on the bus as the calling person."""
