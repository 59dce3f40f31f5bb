"""Slow start, as Kubernetes' controllers create pods (`slowStartBatch`): a batch of 1, then 2, 4, ...;
a failure skips the batches left — each never attempted is observed at once under the owner's
expectations, so the owner's next sync (retried now) tries again."""
from __future__ import annotations

from api.status import StatusError


class SlowStart:
    """For a controller with `expectations`, `event`, `retry` and `write`."""

    def create_slowly(self, key: str, owner: dict, pods: list[dict], size: int = 1) -> None:
        batch, rest = pods[:size], pods[size:]
        outcome = {"left": len(batch), "failed": False}

        def created(result) -> None:
            outcome["left"] -= 1
            if isinstance(result, StatusError):
                outcome["failed"] = True
                self.expectations.created(key)
                self.create_failed(key, result.message)
                self.event(owner, "FailedCreate", f"Error creating: {result.message}", "Warning")
            else:
                self.event(owner, "SuccessfulCreate", f"Created pod: {result['metadata']['name']}")
            if outcome["left"]:
                return
            if outcome["failed"]:
                for _ in rest:
                    self.expectations.created(key)
                self.retry(key)
            elif rest:
                self.create_slowly(key, owner, rest, size * 2)
            else:
                self.all_created(key)

        for pod in batch:
            self.write({"verb": "create", "kind": "Pod", "namespace": owner["metadata"]["namespace"], "object": pod},
                       created)

    def create_failed(self, key: str, message: str) -> None:
        """A create was refused (the ReplicaSet controller keeps it for its ReplicaFailure condition)."""

    def all_created(self, key: str) -> None:
        """Every pod asked for was created."""
