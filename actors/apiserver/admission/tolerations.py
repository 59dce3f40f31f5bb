"""DefaultTolerationSeconds: a new pod tolerates not-ready and unreachable nodes for 300 s."""
from __future__ import annotations

from api import tolerationseconds


class DefaultTolerationSeconds:
    name = "DefaultTolerationSeconds"

    def mutate(self, a) -> None:
        if a.pod_create:
            a.obj = tolerationseconds.admit_pod(a.obj)
