"""What one strategic merge patch may walk merging lists.

Each list merge walks the live list and the patch's list. A patch that names each list item once
walks every list of the object and of the patch a few times at most; one that names an item many
times (`containers: [{name: c, env: [E1]}, {name: c, env: [E2]}, …]`, as Go allows) merges into it
again each time, and walks its growing lists again: k items cost k²/2 steps, minutes of the shared
apiserver from a 1 MiB request. So the steps are bounded by the inputs — 4 for each list item of the
object and the patch, plus a floor — which no patch naming each item once can reach; past the bound,
413 RequestEntityTooLarge, as Kubernetes answers a JSON patch of too many operations.
"""
from __future__ import annotations

from typing import Any

from api.status import StatusError

STEPS_PER_ITEM = 4
FLOOR = 10_000


class Budget:
    def __init__(self, *inputs: Any) -> None:
        self.limit = FLOOR + STEPS_PER_ITEM * sum(list_items(value) for value in inputs)
        self.left = self.limit

    def charge(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise StatusError("RequestEntityTooLarge", f"The allowed maximum list items merged by a strategic merge "
                              f"patch is {self.limit}, got more: a list item named many times is merged again "
                              "each time")


def list_items(value: Any) -> int:
    """How many list items `value` holds, at any depth (no recursion: depth is the decoder's to bound)."""
    count, stack = 0, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            count += len(node)
            stack.extend(node)
    return count
