from runtime.workqueue import WorkQueue


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_duplicates_collapse_and_a_key_is_never_handed_out_twice():
    q = WorkQueue(Clock())
    q.add("a"), q.add("a"), q.add("b")
    assert len(q) == 2
    assert q.get() == "a"
    q.add("a")  # while processing: comes back after done
    assert q.get() == "b" and q.get() is None
    q.done("a")
    assert q.get() == "a"


def test_per_key_backoff_doubles_and_forget_resets():
    clock = Clock()
    q = WorkQueue(clock, base_delay=1, max_delay=8)
    assert [q.add_rate_limited("k") for _ in range(5)] == [1, 2, 4, 8, 8]
    assert q.get() is None and q.next_due() == 1
    clock.now = 1
    assert q.get() == "k"
    q.forget("k")
    assert q.add_rate_limited("k") == 1


def test_a_write_that_keeps_failing_backs_off_though_every_pass_returns():
    """Passes succeed (the write is answered later); the failures must still add up."""
    clock = Clock()
    queue = WorkQueue(clock, base_delay=1.0)
    delays = []
    for _ in range(4):
        queue.add("k")
        key = queue.get()
        queue.passed(key)  # the pass returned; its write is still in flight
        queue.done(key)
        delays.append(queue.retry_after_failed_write(key))  # …and was refused
    assert delays == [1.0, 2.0, 4.0, 8.0]
    queue.passed("k")  # a pass after the refusals
    queue.passed("k")  # one whose writes raised nothing: the backoff starts over
    assert queue.add_rate_limited("k") == 1.0
