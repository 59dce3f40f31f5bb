"""The marks of a test module on the 3-node RabbitMQ cluster (what its tests and the failover
benchmark share is in `testkit.failover`)."""
from __future__ import annotations

import os

import pytest

ON_RABBIT_CLUSTER = [pytest.mark.slow,  # a test module's marks: slow, and only where the nodes can start
                     pytest.mark.skipif(not os.path.exists("/usr/lib/rabbitmq/bin/rabbitmq-server"),
                                        reason="RabbitMQ's OS package is not installed")]
