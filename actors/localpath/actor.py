"""The local-path provisioner actor (`kubus.io/local-path`, as rancher's local-path-provisioner): one active
instance, caches of claims, volumes, classes, nodes and its helper pods fed by events. In a fresh cluster it
makes the default class `local-path`; it provisions a volume for each claim the binder left to it once the
scheduler chose the claim's node, and removes a released Delete volume of its own with a helper pod on that
node, then deletes the volume (decide.py says what, this file writes it through the apiserver)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from actors.localpath import decide
from api import storage
from api.status import StatusError
from bus.declare import QueueSpec
from bus.rpc import unwrap
from runtime.actor import Actor
from runtime.cache import Delta

NAME = "controller.local-path-provisioner"  # the broker's controller role: its queue and lock
COMPONENT = storage.LOCAL_PATH_PROVISIONER
KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "Node", "Pod")


class LocalPathProvisioner(Actor):
    name = NAME
    singleton = True

    def __init__(self, settings, helper_image: str = decide.HELPER_IMAGE, **kw: Any):
        super().__init__(settings, **kw)
        self.kubelet_data = Path(settings.data_dir).resolve() / "kubelet"
        self.helper_image = helper_image
        self._reset()

    def _reset(self) -> None:
        self.objects: dict[str, dict[tuple[str, str], dict]] = {kind: {} for kind in KINDS}
        self.synced = False
        self.busy: set[str] = set()  # writes in flight, by what they are for

    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        keys = tuple((self.names.events, f"{kind.lower()}.#") for kind in KINDS)
        return [(QueueSpec(self.names.actor_queue(self.name), keys, single_active=True), self.on_delta)]

    def on_active(self) -> None:
        self._reset()

    def on_synced(self) -> None:
        self.synced = True
        self._make_class()
        for pvc in list(self.objects["PersistentVolumeClaim"].values()):
            self._claim(pvc)
        for pv in list(self.objects["PersistentVolume"].values()):
            self._volume(pv)
        self.log.info("localpath.synced", claims=len(self.objects["PersistentVolumeClaim"]),
                      volumes=len(self.objects["PersistentVolume"]))

    def on_delta(self, delta: Delta) -> None:
        obj, meta = delta.object, delta.object["metadata"]
        cache = self.objects[delta.kind]
        key = (meta.get("namespace") or "", meta["name"])
        if delta.type == "DELETED":
            cache.pop(key, None)
        else:
            cache[key] = obj
        if not self.synced:
            return
        if delta.kind == "PersistentVolumeClaim" and delta.type != "DELETED":
            self._claim(obj)
        elif delta.kind == "StorageClass":
            for pvc in list(self.objects["PersistentVolumeClaim"].values()):
                self._claim(pvc)
        elif delta.kind == "PersistentVolume" and delta.type != "DELETED":
            self._volume(obj)
        elif delta.kind == "Pod" and (meta.get("labels") or {}).get(decide.HELPER_LABEL):
            pv = self.objects["PersistentVolume"].get(("", meta["labels"][decide.HELPER_LABEL]))
            if pv is not None:
                self._volume(pv)
        elif delta.kind == "Node" and delta.type == "DELETED":
            for pv in list(self.objects["PersistentVolume"].values()):
                self._volume(pv)

    # ---- the default class ---------------------------------------------------------------------------
    def _make_class(self) -> None:
        classes = list(self.objects["StorageClass"].values())
        if any(sc["metadata"]["name"] == storage.LOCAL_PATH_CLASS for sc in classes):
            return
        made = decide.default_class(classes)
        self.ask({"verb": "create", "kind": "StorageClass", "object": made},
                 lambda reply: self.log.info("localpath.class_made", ok=bool(reply.get("ok")) if isinstance(
                     reply, dict) else False, default=bool(made["metadata"]["annotations"])))

    # ---- provisioning --------------------------------------------------------------------------------
    def _claim(self, pvc: dict) -> None:
        cls = self.objects["StorageClass"].get(("", storage.claim_class(pvc)))
        name = decide.pv_name(pvc)
        if not decide.wants_volume(pvc, cls) or ("", name) in self.objects["PersistentVolume"] or name in self.busy:
            return
        why = decide.refusal(pvc, {n for _, n in self.objects["Node"]})
        if why is not None:
            self._refused(pvc, why)
            return
        meta = pvc["metadata"]
        self.busy.add(name)
        self._event(pvc, "Provisioning",
                    f'External provisioner is provisioning volume for claim "{meta["namespace"]}/{meta["name"]}"')
        pv = decide.volume_for(pvc, cls, self.kubelet_data)
        self._write({"verb": "create", "kind": "PersistentVolume", "object": pv}, name,
                    lambda: self._event(pvc, "ProvisioningSucceeded", f"Successfully provisioned volume {name}"),
                    lambda why: self._refused(pvc, why))

    def _refused(self, pvc: dict, why: str) -> None:
        self.log.info("localpath.provisioning_failed", claim=f"{pvc['metadata']['namespace']}/"
                                                            f"{pvc['metadata']['name']}", why=why)
        self._event(pvc, "ProvisioningFailed",
                    f'failed to provision volume with StorageClass "{storage.claim_class(pvc)}": {why}', "Warning")

    # ---- removal -------------------------------------------------------------------------------------
    def _volume(self, pv: dict) -> None:
        if not decide.to_remove(pv):
            return
        name = pv["metadata"]["name"]
        helper = self.objects["Pod"].get((decide.HELPER_NAMESPACE, decide.helper_name(pv)))
        nodes = {n for _, n in self.objects["Node"]}
        step = decide.teardown(pv, nodes, helper)
        if step.failed and name not in self.busy:
            self.busy.add(name)  # told once a run: the helper stays for whoever looks
            self._event(pv, "VolumeFailedDelete", step.failed, "Warning")
        if step.helper is not None and f"helper:{name}" not in self.busy:
            step.helper["spec"]["containers"][0]["image"] = self.helper_image
            self._write({"verb": "create", "kind": "Pod", "namespace": decide.HELPER_NAMESPACE,
                         "object": step.helper}, f"helper:{name}")
        if step.delete and f"delete:{name}" not in self.busy:
            self._write({"verb": "delete", "kind": "PersistentVolume", "name": name,
                         "options": {"preconditions": {"uid": pv["metadata"]["uid"]}}}, f"delete:{name}",
                        lambda: self.log.info("localpath.volume_deleted", pv=name, node=decide.node_of(pv)))
        if step.remove and f"remove:{name}" not in self.busy:
            self._write({"verb": "delete", "kind": "Pod", "namespace": decide.HELPER_NAMESPACE,
                         "name": decide.helper_name(pv)}, f"remove:{name}")

    # ---- writing -------------------------------------------------------------------------------------
    def _write(self, body: dict, what: str, ok: Callable[[], None] = lambda: None,
               failed: Callable[[str], None] = lambda why: None) -> None:
        self.busy.add(what)

        def done(reply) -> None:
            self.busy.discard(what)
            try:
                unwrap(reply)
            except StatusError as exc:
                if exc.reason not in ("AlreadyExists", "NotFound"):
                    self.log.info("localpath.write_failed", what=what, verb=body["verb"], why=exc.message[:200])
                    failed(exc.message)
                return
            ok()

        self.ask(body, done)

    def _event(self, obj: dict, reason: str, message: str, type_: str = "Normal") -> None:
        self.record(obj, reason, message, type_, COMPONENT)
