"""Container images: reproducible OCI images built from the OS's packages, the local registry they
are pushed to, and the import of docker and OCI archives."""
