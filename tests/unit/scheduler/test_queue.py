"""The scheduling queue, on a fake clock."""
from actors.scheduler.podinfo import pod_info
from actors.scheduler.queue import SchedulingQueue
from tests.unit.scheduler.kit import pod


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _pod(name, priority=0):
    return pod_info(pod(name, priority=priority))


def test_priority_then_arrival():
    clock = Clock()
    q = SchedulingQueue(clock)
    for name, prio in (("low", 0), ("high", 10), ("low2", 0)):
        q.add(_pod(name, prio))
        clock.now += 1
    assert [q.pop().info.name for _ in range(3)] == ["high", "low", "low2"]
    assert q.pop() is None


def test_unschedulable_waits_for_a_cluster_change_then_backs_off():
    clock = Clock()
    q = SchedulingQueue(clock)
    q.add(_pod("p"))
    qp = q.pop()
    q.unschedulable(qp)
    assert q.pop() is None and q.next_wakeup() == 300
    clock.now += 0.5
    q.cluster_changed()
    assert q.pop() is None  # still inside its 1 s backoff
    clock.now += 0.5
    assert q.pop() is qp


def test_backoff_doubles_to_ten_seconds():
    clock = Clock()
    q = SchedulingQueue(clock)
    q.add(_pod("p"))
    waits = []
    for _ in range(6):
        qp = q.pop()
        q.error(qp)
        waits.append(q.next_wakeup())
        clock.now += waits[-1]
    assert waits == [1, 2, 4, 8, 10, 10]


def test_five_minute_sweep_and_delete():
    clock = Clock()
    q = SchedulingQueue(clock)
    q.add(_pod("p"))
    q.add(_pod("gone"))
    q.unschedulable(q.pop())
    q.delete("default/gone")
    clock.now += 300
    assert q.pop().info.name == "p"
    assert q.pop() is None


def test_an_update_moves_an_unschedulable_pod():
    clock = Clock()
    q = SchedulingQueue(clock)
    q.add(_pod("p"))
    q.unschedulable(q.pop())
    clock.now += 2
    changed = pod("p", cpu="1")
    q.add(pod_info(changed))
    assert q.pop().info.requests == {"cpu": 1000}


def test_length_counts_active_pods_only():
    clock = Clock()
    q = SchedulingQueue(clock)
    for name in ("a", "b", "c"):
        q.add(_pod(name))
    assert len(q) == 3
    q.delete("default/b")
    q.unschedulable(q.pop())
    assert len(q) == 1
    q.pop()
    assert len(q) == 0
