"""The cluster DNS actor (CoreDNS's `kubernetes` plugin): `cluster.local` answered from its cache."""
