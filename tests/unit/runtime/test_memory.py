"""`kubus status`'s memory figure: the processes behind a cluster's connections, found by their
local ports, and their PSS (shared pages counted once)."""
from __future__ import annotations

import os
import socket

from runtime import memory


def test_a_process_is_found_by_the_local_port_of_its_socket():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as client:
            port = client.getsockname()[1]
            assert memory.pids_of_ports({port}) == {os.getpid()}
    assert memory.pids_of_ports({port}) == set()


def test_pss_is_read_from_smaps_rollup_and_a_gone_process_has_none():
    assert memory.pss_kib(os.getpid()) > 1024  # an interpreter with pytest loaded: megabytes
    assert memory.pss_kib(2 ** 22 + 1) == 0  # above pid_max's default: no such process
