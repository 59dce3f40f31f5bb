"""What kube-apiserver's post-start hooks make: the default ClusterRoles and ClusterRoleBindings,
reconciled at every start (`rbac/bootstrap-roles`: missing ones are created, missing rules and
subjects added unless annotated `rbac.authorization.kubernetes.io/autoupdate: "false"`), and the
two system PriorityClasses (`scheduling/bootstrap-system-priority-classes`). Several apiservers may
race; the loser's AlreadyExists or Conflict is harmless."""
from __future__ import annotations

from actors.apiserver.admission import priority
from actors.apiserver.authz import bootstrap
from bus.messages import USER_HEADER
from config.answerers import store_answerers

HARMLESS = ("AlreadyExists", "Conflict")


def ensure_defaults(server) -> None:
    for default in priority.BUILTIN_CLASSES:
        if server.cache.get("PriorityClass", None, default["metadata"]["name"]) is None:
            _send(server, {"verb": "create", "kind": "PriorityClass", "object": default, "options": {}},
                  default["metadata"]["name"])
    for default in (*bootstrap.cluster_roles(), *bootstrap.cluster_role_bindings()):
        kind, name = default["kind"], default["metadata"]["name"]
        existing = server.cache.get(kind, None, name)
        wanted = bootstrap.reconcile(existing, default)
        if wanted is None:
            continue
        body = {"verb": "update" if existing else "create", "kind": kind, "name": name, "object": wanted,
                "resourceVersion": existing["metadata"]["resourceVersion"] if existing else None, "options": {}}
        _send(server, body, name)


def _send(server, body: dict, name: str) -> None:
    server.rpc.call(server.names.store, "store", body, lambda reply: _logged(server, name, reply),
                    server.settings.request_timeout_s, answerers=store_answerers(server.names.cluster),
                    headers={USER_HEADER: server.bus.user}, user_id=server.bus.user)


def _logged(server, name: str, reply) -> None:
    status = reply.get("status") if isinstance(reply, dict) else reply.to_dict()
    if status and status.get("reason") not in HARMLESS:
        server.log.warning("apiserver.rbac_default_failed", object=name, reason=status.get("reason"),
                           message=status.get("message"))
