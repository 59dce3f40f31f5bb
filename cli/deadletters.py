"""`kubus dead-letters`: what is in `{c}.dead`, why, and sending one message back."""
from __future__ import annotations

import click

from api.printers import columns as printers, workloads
from api.times import rfc3339
from bus.deadletters import DeadLetter, DeadLettersError, peek, requeue
from bus.topology import Names
from config.settings import Settings
from runtime import logs as logging_setup

REASON_WIDTH = 120  # a reason can be 1000 characters; the table keeps the start


@click.command("dead-letters")
@click.option("--show", "limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="List at most N messages, the oldest first.")
@click.option("--requeue", "ident", default=None, metavar="ID",
              help="Send message ID back to its original exchange and routing key, and remove it from the queue.")
def dead_letters(limit: int, ident: str | None) -> None:
    """List the messages in the cluster's dead-letter queue and why they are there; or requeue one.

    Runs as the broker administrator, KUBUS_ADMIN_URL (not KUBUS_AMQP_URL): only the administrator
    reads the dead queue.

    \b
    Design: the dead queue is shared, and contract 5 lets people consume nothing shared, so this is
    an operator's command over AMQP as the broker administrator, not a request to the apiserver
    (dead letters are not API objects, and an apiserver reading the queue would widen its
    permissions for a rare tool). Listing peeks: basic.get, then reject with requeue on the same
    channel, so the messages keep their places, and a crash mid-way still gives them all back.
    --requeue publishes the message, confirmed and mandatory, to the exchange and routing key it was
    first sent with (the broker's x-death headers; for a message an actor dead-lettered, its
    x-kubus-dead-routing-key, whose exchange the key tells), without the dead-letter headers and
    with x-kubus-requeued counting the returns; only then is it acked out of the queue. It keeps
    its user_id only where the broker lets the administrator impersonate (the `impersonator` tag);
    otherwise it goes without one, and consumers that check the sender (the apiserver: 401; the
    store and caches: dead-lettered `forbidden`) refuse it. Nobody can send a message as someone
    else: a requeue retries what failed by the receiver's fault, not the sender's.
    """
    logging_setup.configure("warning")
    settings = Settings()
    names = Names(settings.cluster)
    try:
        if ident is not None:
            _requeue(settings, names, ident)
        else:
            _list(settings, names, limit)
    except DeadLettersError as exc:
        raise click.ClickException(str(exc)) from None


def _list(settings: Settings, names: Names, limit: int) -> None:
    depth, letters = peek(settings.admin_url, names, limit)
    if not letters:
        click.echo(f"No dead letters in {names.dead_queue}." if not depth else
                   f"{depth} dead letters in {names.dead_queue} (--show N to list them).", err=True)
        return
    rows = [["ID", "AGE", "ACTOR", "REASON", "EXCHANGE", "ROUTING KEY", "SIZE"]] + [_row(m) for m in letters]
    click.echo(printers.table(rows))
    if depth > len(letters):
        click.echo(f"{len(letters)} of {depth} shown (--show N for more).", err=True)


def _row(letter: DeadLetter) -> list[str]:
    reason = " ".join(letter.reason.split())
    if len(reason) > REASON_WIDTH:
        reason = reason[:REASON_WIDTH - 1] + "…"
    age = workloads.age(rfc3339(letter.when)) if letter.when else "<unknown>"
    return [letter.id, age, letter.actor, reason, letter.exchange or "(default)", ",".join(letter.routing_keys),
            _size(letter.size)]


def _size(size: int) -> str:
    for unit, scale in (("Mi", 1 << 20), ("Ki", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f}{unit}"
    return f"{size}B"


def _requeue(settings: Settings, names: Names, ident: str) -> None:
    done = requeue(settings.admin_url, names, ident)
    sent = f"exchange {done.letter.exchange or '(default)'} key {done.letter.routing_keys[0]}"
    who = f"as {done.user_id}" if done.user_id else "without a user_id (the administrator may not impersonate " \
        f"{done.letter.user_id})" if done.letter.user_id else "without a user_id"
    click.echo(f"{done.letter.id} requeued to {sent} {who}")
