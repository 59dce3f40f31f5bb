"""Resource types shaped like Kubernetes v1 / apps/v1, with defaults and validation."""
from api.admission import admit
from api.registry import KINDS, KindInfo, lookup
from api.status import Cause, StatusError

__all__ = ["admit", "KINDS", "KindInfo", "lookup", "Cause", "StatusError"]
