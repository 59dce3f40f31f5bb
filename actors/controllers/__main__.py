"""`python -m actors.controllers NAME [flags]`: run one controller (active, or a hot standby)."""
import argparse

from actors.controllers.aggregation import ClusterRoleAggregationController
from actors.controllers.crd import CRDController
from actors.controllers.cronjob import CronJobController
from actors.controllers.daemonset import DaemonSetController
from actors.controllers.deployment import DeploymentController
from actors.controllers.disruption import DisruptionController
from actors.controllers.endpoints import EndpointsController
from actors.controllers.endpointslice import EndpointSliceController
from actors.controllers.gc import GarbageCollector
from actors.controllers.hpa import HorizontalPodAutoscalerController
from actors.controllers.job import JobController
from actors.controllers.namespace import NamespaceController
from actors.controllers.nodehealth import Rates
from actors.controllers.nodeipam import NodeIpamController
from actors.controllers.nodelifecycle import NodeLifecycleController
from actors.controllers.persistentvolume import PersistentVolumeController
from actors.controllers.replicaset import ReplicaSetController
from actors.controllers.replication import ReplicationManager
from actors.controllers.resourcequota import ResourceQuotaController
from actors.controllers.rootca import RootCAPublisher
from actors.controllers.serviceaccount import ServiceAccountController
from actors.controllers.statefulset import StatefulSetController
from actors.controllers.ttlafterfinished import TTLAfterFinishedController
from config.settings import load_settings

CONTROLLERS = {"replicaset": ReplicaSetController, "deployment": DeploymentController, "gc": GarbageCollector,
               "nodelifecycle": NodeLifecycleController, "namespace": NamespaceController,
               "serviceaccount": ServiceAccountController, "resourcequota": ResourceQuotaController,
               "clusterrole-aggregation": ClusterRoleAggregationController, "nodeipam": NodeIpamController,
               "endpointslice": EndpointSliceController, "endpoints": EndpointsController,
               "root-ca-cert-publisher": RootCAPublisher, "job": JobController,
               "ttlafterfinished": TTLAfterFinishedController, "cronjob": CronJobController,
               "replication": ReplicationManager, "crd": CRDController, "disruption": DisruptionController,
               "persistentvolume": PersistentVolumeController, "daemonset": DaemonSetController,
               "statefulset": StatefulSetController, "hpa": HorizontalPodAutoscalerController}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("controller", choices=sorted(CONTROLLERS))
    parser.add_argument("--node-monitor-grace-period", type=float, default=50.0, help="seconds (nodelifecycle)")
    parser.add_argument("--node-monitor-period", type=float, default=5.0, help="seconds (nodelifecycle)")
    parser.add_argument("--node-startup-grace-period", type=float, default=60.0, help="seconds (nodelifecycle)")
    parser.add_argument("--node-eviction-rate", type=float, default=0.1, help="nodes per second (nodelifecycle)")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="cronjob: read time this many times faster than the wall clock (tests)")
    args = parser.parse_args()
    settings = load_settings()
    if args.controller == "nodelifecycle":
        controller = NodeLifecycleController(settings, grace=args.node_monitor_grace_period,
                                             startup_grace=args.node_startup_grace_period,
                                             period=args.node_monitor_period,
                                             rates=Rates(healthy=args.node_eviction_rate))
    elif args.controller == "cronjob":
        controller = CronJobController(settings, time_scale=args.time_scale)
    else:
        controller = CONTROLLERS[args.controller](settings)
    controller.run()


if __name__ == "__main__":
    main()
