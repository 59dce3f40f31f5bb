"""The kubelet on CRI: a gRPC client of the container runtime (containerd + runc), the containerd it
starts for its node, the pod network's CNI configuration, and the mapping of a pod's spec to CRI's
sandbox and container configurations."""
