"""The apiserver actor: authenticate, authorize, admit, then command the store."""
