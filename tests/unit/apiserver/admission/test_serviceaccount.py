import pytest

from actors.apiserver.admission import serviceaccount as sa
from api.status import StatusError

MIRROR = {"kubernetes.io/config.mirror": "abc"}


def pod(annotations=None, **spec):
    return {"metadata": {"name": "p", "namespace": "ns", "annotations": annotations or {}},
            "spec": {"containers": [{"name": "c"}], **spec}}


def account(name="default", **fields):
    return {"metadata": {"name": name, "namespace": "ns"}, **fields}


def test_defaults_the_account_and_copies_pull_secrets():
    out = sa.admit_pod(pod(), account(imagePullSecrets=[{"name": "reg"}]))
    assert out["spec"]["serviceAccountName"] == "default" and out["spec"]["imagePullSecrets"] == [{"name": "reg"}]


def test_own_pull_secrets_are_kept():
    out = sa.admit_pod(pod(imagePullSecrets=[{"name": "mine"}]), account(imagePullSecrets=[{"name": "reg"}]))
    assert out["spec"]["imagePullSecrets"] == [{"name": "mine"}]


@pytest.mark.parametrize("p,account_,message", [
    pytest.param(pod(serviceAccountName="robot"), None,
                 'error looking up service account ns/robot: serviceaccount "robot" not found', id="missing"),
    pytest.param(pod(MIRROR, serviceAccountName="robot"), None, "a mirror pod may not reference service accounts",
                 id="mirror-account"),
    pytest.param(pod(MIRROR, volumes=[{"name": "v", "secret": {"secretName": "s"}}]), None,
                 "a mirror pod may not reference secrets", id="mirror-secret"),
    pytest.param(pod(MIRROR, volumes=[{"name": "v", "projected": {"sources": [{"serviceAccountToken": {}}]}}]),
                 None, "a mirror pod may not use ServiceAccountToken volume projections", id="mirror-token"),
    pytest.param(pod(volumes=[{"name": "v", "secret": {"secretName": "x"}}]),
                 account("default", metadata={"name": "default", "annotations": {sa.ENFORCE_MOUNTABLE: "true"}}),
                 'volume with secret.secretName="x" is not allowed because service account default does not '
                 'reference that secret', id="enforce-mountable"),
])
def test_admit_refuses(p, account_, message):
    with pytest.raises(StatusError) as err:
        sa.admit_pod(p, account_)
    assert err.value.message == f'pods "p" is forbidden: {message}'


def test_mirror_pod_is_left_alone():
    assert sa.admit_pod(pod(MIRROR), None) == pod(MIRROR)


@pytest.mark.parametrize("pod_says,account_says,expected", [
    pytest.param(None, None, True, id="default-true"),
    pytest.param(None, False, False, id="account-says-no"),
    pytest.param(True, False, True, id="pod-wins"),
])
def test_automount(pod_says, account_says, expected):
    assert sa.automount(pod(automountServiceAccountToken=pod_says),
                        account(automountServiceAccountToken=account_says)) is expected


def test_default_service_account():
    assert sa.default_service_account("ns")["metadata"] == {"name": "default", "namespace": "ns"}


def _token_mounts(c: dict) -> list[dict]:
    return [m for m in c.get("volumeMounts") or [] if m["mountPath"] == sa.TOKEN_MOUNT_PATH]


def test_every_container_mounts_the_kube_api_access_volume():
    given = pod(initContainers=[{"name": "init"}])
    out = sa.admit_pod(given, account())
    [volume] = out["spec"]["volumes"]
    name = volume["name"]
    assert name.startswith("kube-api-access-") and len(name) == len("kube-api-access-") + 5
    assert set(name[-5:]) <= set(sa.NAME_ALPHABET)
    assert volume["projected"] == {"defaultMode": 0o644, "sources": [
        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}
    for c in out["spec"]["initContainers"] + out["spec"]["containers"]:
        assert _token_mounts(c) == [{"name": name, "readOnly": True, "mountPath": sa.TOKEN_MOUNT_PATH}]
    assert "volumeMounts" not in given["spec"]["containers"][0] and "volumes" not in given["spec"]  # a copy


@pytest.mark.parametrize("p, account_", [
    pytest.param(pod(automountServiceAccountToken=False), account(), id="pod-says-no"),
    pytest.param(pod(), account(automountServiceAccountToken=False), id="account-says-no"),
])
def test_no_token_volume_when_automount_is_off(p, account_):
    out = sa.admit_pod(p, account_)
    assert "volumes" not in out["spec"] and not _token_mounts(out["spec"]["containers"][0])


def test_a_container_with_its_own_mount_there_keeps_it_and_a_pods_token_volume_is_reused():
    own = {"name": "mine", "mountPath": sa.TOKEN_MOUNT_PATH}
    given = pod(containers=[{"name": "a", "volumeMounts": [own]}, {"name": "b"}],
                volumes=[{"name": "kube-api-access-abcde", "projected": {"sources": []}}])
    out = sa.admit_pod(given, account())
    assert out["spec"]["containers"][0]["volumeMounts"] == [own]
    assert _token_mounts(out["spec"]["containers"][1])[0]["name"] == "kube-api-access-abcde"
    assert [v["name"] for v in out["spec"]["volumes"]] == ["kube-api-access-abcde"]
    everywhere = sa.admit_pod(pod(containers=[{"name": "a", "volumeMounts": [own]}]), account())
    assert "volumes" not in everywhere["spec"]  # nobody needs it
