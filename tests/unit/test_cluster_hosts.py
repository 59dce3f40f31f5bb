"""The cluster file's hosts (pure: no process starts): an actor or node placed on a host connects to
that host's broker node first, fails over to the others, and runs with the host's environment."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from config.cluster import ActorSpec, ClusterFile, HostSpec, load_cluster
from config.urls import prefer
from runtime.supervisor import kubelets, placed
from runtime.spawn import ROOT

NODES = "amqp://u:p@127.0.0.1:5701/,amqp://u:p@127.0.0.1:5702/,amqp://u:p@127.0.0.1:5703/"


def test_a_hosts_node_comes_first_and_the_others_keep_their_order():
    assert prefer(NODES, 2).split(",") == ["amqp://u:p@127.0.0.1:5702/", "amqp://u:p@127.0.0.1:5701/",
                                           "amqp://u:p@127.0.0.1:5703/"]
    assert prefer(NODES, 1) == NODES
    with pytest.raises(ValueError, match="broker 4: the URL list has 3 node"):
        prefer(NODES, 4)


def test_a_placed_actor_gets_its_hosts_node_and_environment_under_its_own():
    hosts = {"b": HostSpec(broker=3, env={"KUBUS_DATA_DIR": "/var/b", "KUBUS_LOG_LEVEL": "debug"})}
    store = ActorSpec(name="store", module="store", host="b", env={"KUBUS_AMQP_URL": NODES, "KUBUS_LOG_LEVEL": "info"})
    env = placed(store, hosts, {}).env
    assert env["KUBUS_AMQP_URL"].split(",")[0] == "amqp://u:p@127.0.0.1:5703/"
    assert (env["KUBUS_DATA_DIR"], env["KUBUS_LOG_LEVEL"]) == ("/var/b", "info")
    unplaced = ActorSpec(name="scheduler", module="actors.scheduler")
    assert placed(unplaced, hosts, {"KUBUS_AMQP_URL": NODES}) == unplaced


def test_a_nodes_kubelet_runs_on_its_host_and_its_node_spec_leaves_the_host_out():
    spec = ClusterFile.model_validate({"actors": [], "hosts": {"a": {"broker": 1}},
                                       "nodes": [{"name": "node-1", "host": "a"}]})
    [kubelet] = kubelets(spec.nodes)
    assert kubelet.host == "a" and '"host"' not in kubelet.args[1]


def test_an_unknown_host_is_refused_with_its_place_in_the_file():
    with pytest.raises(ValidationError, match=r"actors\[1\]\.host: Not found: 'c' \(hosts: \['a'\]\)"):
        ClusterFile.model_validate({"hosts": {"a": {"broker": 1}},
                                    "actors": [{"name": "store", "module": "store", "host": "a"},
                                               {"name": "apiserver", "module": "actors.apiserver", "host": "c"}]})


def test_the_shipped_three_host_file_gives_each_store_its_own_database_and_node():
    spec = load_cluster(ROOT / "config" / "cluster-hosts.yaml")
    stores = [a for a in spec.actors if a.module == "store"]
    assert sorted(spec.hosts[s.host].broker for s in stores) == [1, 2, 3]
    assert len({spec.hosts[s.host].env["KUBUS_DATA_DIR"] for s in stores}) == 3
