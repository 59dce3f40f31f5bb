"""What every kubus command needs: a connected client, errors as kubectl words them, kind lookup."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator, NoReturn

import click

from api.registry import KindInfo, lookup
from api.status import StatusError
from config.settings import Settings
from runtime import logs as logging_setup
from runtime.client import Client

APISERVER_WAIT_S = 5.0  # long enough for a restarting apiserver; a cluster that is not there fails fast enough


def client() -> Client:
    logging_setup.configure("warning")
    settings = Settings()
    try:
        connected = Client(settings)
    except ConnectionError as exc:
        raise click.ClickException(str(exc)) from None
    if not _apiserver_within(connected, APISERVER_WAIT_S):
        connected.close()
        raise click.ClickException(f"no apiserver serves cluster {settings.cluster!r} (queue "
                                   f"{settings.cluster}.apiserver has no consumer for {APISERVER_WAIT_S:g}s): "
                                   f"start it with `kubus up`, or set KUBUS_CLUSTER to a running cluster")
    return connected


def _apiserver_within(connected: Client, seconds: float) -> bool:
    """An apiserver consumes the request queue, or starts to within `seconds` (one restarting)."""
    deadline = time.monotonic() + seconds
    while connected.apiservers() == 0:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.25)
    return True


@contextmanager
def connected() -> Iterator[Client]:
    """A client for one command (a StatusError inside ends the command: see `Commands`)."""
    with client() as c:
        yield c


class Commands(click.Group):
    """The `kubus` command group, the one place a command's failure becomes a message: whatever the
    cluster refuses (a StatusError) or a broker that does not answer ends the command with kubectl's
    wording and exit 1, never a traceback — subgroups run inside this `invoke`."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StatusError as exc:
            fail(exc)
        except ConnectionError as exc:
            raise click.ClickException(str(exc)) from None


def fail(exc: StatusError) -> NoReturn:
    if exc.reason == "Unauthorized":  # kubectl's words, and where kubus's credentials come from
        raise click.ClickException("You must be logged in to the server (Unauthorized): KUBUS_AMQP_URL names "
                                   "no user of this cluster (`kubus bootstrap` makes them; `make demo` "
                                   "writes .kubus/demo.env)")
    raise click.ClickException(f"{exc.message} ({exc.reason})")


def kind_info(name: str) -> KindInfo:
    try:
        return lookup(name)
    except StatusError as exc:
        raise click.BadParameter(exc.message) from None
