"""A pod's volumes on its node: the files the kubelet projects (atomic), the mounts it gives CRI."""
