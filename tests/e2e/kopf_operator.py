"""A kopf operator on Pods and Deployments (no CRDs), run by tests/e2e/test_kopf.py through the
gateway: it marks what it saw with an annotation, and holds a pod's deletion until its delete
handler ran (kopf's finalizer)."""
import kopf

SEEN = "kubus.test/seen-by"


@kopf.on.create("pods", labels={"kopf": "yes"})
def pod_created(name, patch, **_):
    patch.metadata.annotations[SEEN] = f"kopf:{name}"


@kopf.on.delete("pods", labels={"kopf": "yes"})
def pod_deleted(name, logger, **_):
    logger.info(f"pod {name} released")


@kopf.on.create("deployments.apps", labels={"kopf": "yes"})
def deployment_created(name, spec, patch, **_):
    patch.metadata.annotations[SEEN] = f"kopf:{name}:{spec.get('replicas')}"
