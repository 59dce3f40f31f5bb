"""The kubelet actor: registers its Node, keeps its Lease, runs the pods bound to it."""
