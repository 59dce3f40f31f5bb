"""The store's upkeep between batches: bookmarks (count and digest per routing key, and the slow sweep
of every key) and compaction of the log and the dedupe ids (the background half of `store.actor`)."""
from __future__ import annotations

COMPACT_ROWS = 2000  # log rows and dedupe ids dropped per transaction


class Upkeep:
    """The background work of `StoreActor` (its state, outbox, bookmarks, dedupe, writer and backend are
    the actor's)."""

    def send_bookmarks(self) -> None:
        """Count and digest per changed routing key, only once every event up to `rev` is out; while a
        batch is being committed, right after it."""
        self.bookmarks_due = self.committing
        if self.committing:
            return
        if not self.active or self.bus.channel is None or not self.outbox.caught_up(self.state.rev):
            if self.active and self.outbox.failed and self.bus.channel is not None:
                self.outbox.restart(self._backend(lambda b: list(b.log_after(self.outbox.confirmed))))
            return
        for key, digest in self.bookmarks.take(self.state.digests, self.clock()):
            self.bus.publish(self.names.events, key, {
                "type": "BOOKMARK", "kind": key.split(".", 1)[0], "shard": key, "rev": self.state.rev,
                "count": digest.count, "digest": digest.digest}, type="event", user_id=self.bus.user)

    def _sweep(self) -> None:
        """Every key's bookmark again, spread over half the sweep period."""
        takes = int(self.settings.bookmark_sweep_s / 2 / self.settings.bookmark_interval_s)
        self.bookmarks.sweep(self.state.digests, self.clock(), takes)

    def compact(self) -> None:
        if not self.active:
            return
        keep_from = min(self.outbox.confirmed, self.state.rev - self.settings.log_retention) + 1
        horizon = self.dedupe.expire(self.clock() - self.settings.dedupe_window_s)
        self.writer.submit(self._compact_on_writer, keep_from, horizon, self.outbox.confirmed)

    def _compact_on_writer(self, keep_from: int, horizon: float, confirmed: int) -> None:
        """Drop old log rows and dedupe ids, and record the confirmed revision, between two batches:
        `COMPACT_ROWS` at a time, the next chunk queued behind the commits that came meanwhile
        (one long delete held every commit for up to 0.9 s at 500 writes/s)."""
        try:
            dropped = self.backend.compact(keep_from, horizon, COMPACT_ROWS)
            self.backend.commit([], [], [], confirmed)
        except Exception as exc:
            self._write_failed(exc)
        if dropped:
            self.log.info("store.compacted", dropped=dropped, rev=self.state.rev)
        if dropped >= COMPACT_ROWS:
            self.bus.call_soon(lambda: self.writer.submit(self._compact_on_writer, keep_from, horizon, confirmed))
