"""CRI v1's messages and stubs, generated from `cri.proto` by `make proto` (never edited by hand)."""
