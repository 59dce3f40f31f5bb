import pytest

from actors.apiserver.admission import tolerationseconds as ts


def pod(*tolerations):
    return {"metadata": {"name": "p"}, "spec": {"containers": [], "tolerations": list(tolerations)}}


@pytest.mark.parametrize("tolerations,added", [
    pytest.param([], [ts.NOT_READY, ts.UNREACHABLE], id="both-added"),
    pytest.param([{"key": ts.NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}],
                 [ts.UNREACHABLE], id="not-ready-given"),
    pytest.param([{"operator": "Exists"}], [], id="tolerates-everything"),
    pytest.param([{"key": ts.UNREACHABLE, "operator": "Exists"}], [ts.NOT_READY], id="any-effect-covers"),
    pytest.param([{"key": ts.NOT_READY, "operator": "Exists", "effect": "NoSchedule"}], [ts.NOT_READY, ts.UNREACHABLE],
                 id="noschedule-does-not-cover"),
])
def test_admit_pod(tolerations, added):
    out = ts.admit_pod(pod(*tolerations), not_ready=300, unreachable=60)
    new = out["spec"]["tolerations"][len(tolerations):]
    assert [t["key"] for t in new] == added
    assert all(t["tolerationSeconds"] == (300 if t["key"] == ts.NOT_READY else 60) for t in new)
