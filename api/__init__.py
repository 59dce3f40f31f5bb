"""The API kubus serves, shaped like Kubernetes' core/v1, apps/v1, rbac/v1 and friends: what several
actors share — the kinds' models (`registry.py` lists them), their defaults and validation, status
errors, selectors and quantities, patches (`patch/`) and kubectl's tables (`printers/`). Import the
module you need; this package imports nothing, so an actor pays only for what it uses."""
