"""A kopf operator on Pods and Deployments (no CRDs), run by tests/e2e/test_kopf.py through the
gateway. It marks each labelled object it sees created with an annotation and holds its deletion
with a finalizer until its delete handler ran:

- Pods: kopf's own finalizer, named by this operator (kopf adds and removes it with JSON patches
  that test the object's resourceVersion); the create handler also sets a condition (kopf
  merge-patches `/status`); the delete handler posts an Event.
- Deployments: kopf's finalizer as on pods, and the create handler writes one of its own next to the
  annotation, which the delete handler takes off (merge patches of `metadata.finalizers`; kopf runs
  delete handlers only while its own finalizer holds the object)."""
import os

import kopf

SEEN = "kubus.test/seen-by"
FINALIZER = "kubus.test/kopf-operator"  # kopf's, on pods
GUARD = "kubus.test/guard"  # the deployment handlers' own
CONDITION = "kubus.test/Seen"
LABELLED = {"kopf": "yes"}


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.persistence.finalizer = FINALIZER
    settings.scanning.disabled = True  # its person may not list namespaces: kopf would retry that 403 for a minute
    settings.watching.server_timeout = 2  # each watch asks to end after 2 s; kopf resumes from the last version
    settings.watching.initial_streaming = os.environ.get("KOPF_INITIAL_STREAMING") == "1"  # sendInitialEvents
    settings.posting.level = 20  # logging.INFO: handler outcomes are posted as Events too


@kopf.on.create("pods", labels=LABELLED)
def pod_created(name, patch, **_):
    patch.metadata.annotations[SEEN] = f"kopf:{name}"
    patch.status["conditions"] = [{"type": CONDITION, "status": "True"}]  # a readiness gate's: PATCH of /status


@kopf.on.delete("pods", labels=LABELLED)
def pod_deleted(name, body, **_):
    kopf.info(body, reason="Released", message=f"pod {name} released by kopf")


@kopf.on.create("deployments.apps", labels=LABELLED)
def deployment_created(name, spec, meta, patch, **_):
    patch.metadata.annotations[SEEN] = f"kopf:{name}:{spec.get('replicas')}"
    patch.metadata["finalizers"] = [*meta.get("finalizers", []), GUARD]


@kopf.on.delete("deployments.apps", labels=LABELLED)
def deployment_deleted(meta, patch, **_):
    patch.metadata["finalizers"] = [f for f in meta.get("finalizers", []) if f != GUARD]
