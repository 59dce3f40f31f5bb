"""k8s.io.api.apps.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api apps/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "apps"
API_VERSION = "apps/v1"
KINDS = """Deployment DeploymentList ReplicaSet ReplicaSetList DaemonSet DaemonSetList ControllerRevision
  ControllerRevisionList StatefulSet StatefulSetList"""
MESSAGES = """
ControllerRevision metadata=1:meta.ObjectMeta data=2:raw revision=3:i64!
ControllerRevisionList metadata=1:meta.ListMeta items=2:[]ControllerRevision
DaemonSet metadata=1:meta.ObjectMeta spec=2:DaemonSetSpec status=3:DaemonSetStatus
DaemonSetCondition type=1:s! status=2:s! lastTransitionTime=3:time reason=4:s message=5:s
DaemonSetList metadata=1:meta.ListMeta items=2:[]DaemonSet
DaemonSetSpec selector=1:meta.LabelSelector template=2:core.PodTemplateSpec updateStrategy=3:DaemonSetUpdateStrategy
  minReadySeconds=4:i32 revisionHistoryLimit=6:i32!
DaemonSetStatus currentNumberScheduled=1:i32! numberMisscheduled=2:i32! desiredNumberScheduled=3:i32! numberReady=4:i32!
  observedGeneration=5:i64 updatedNumberScheduled=6:i32 numberAvailable=7:i32 numberUnavailable=8:i32
  collisionCount=9:i32! conditions=10:[]DaemonSetCondition
DaemonSetUpdateStrategy type=1:s rollingUpdate=2:RollingUpdateDaemonSet
Deployment metadata=1:meta.ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus
DeploymentCondition type=1:s! status=2:s! lastUpdateTime=6:time lastTransitionTime=7:time reason=4:s message=5:s
DeploymentList metadata=1:meta.ListMeta items=2:[]Deployment
DeploymentSpec replicas=1:i32! selector=2:meta.LabelSelector template=3:core.PodTemplateSpec
  strategy=4:DeploymentStrategy minReadySeconds=5:i32 revisionHistoryLimit=6:i32! paused=7:b
  progressDeadlineSeconds=9:i32!
DeploymentStatus observedGeneration=1:i64 replicas=2:i32 updatedReplicas=3:i32 readyReplicas=7:i32
  availableReplicas=4:i32 unavailableReplicas=5:i32 terminatingReplicas=9:i32! conditions=6:[]DeploymentCondition
  collisionCount=8:i32!
DeploymentStrategy type=1:s rollingUpdate=2:RollingUpdateDeployment
ReplicaSet metadata=1:meta.ObjectMeta spec=2:ReplicaSetSpec status=3:ReplicaSetStatus
ReplicaSetCondition type=1:s! status=2:s! lastTransitionTime=3:time reason=4:s message=5:s
ReplicaSetList metadata=1:meta.ListMeta items=2:[]ReplicaSet
ReplicaSetSpec replicas=1:i32! minReadySeconds=4:i32 selector=2:meta.LabelSelector template=3:core.PodTemplateSpec
ReplicaSetStatus replicas=1:i32! fullyLabeledReplicas=2:i32 readyReplicas=4:i32 availableReplicas=5:i32
  terminatingReplicas=7:i32! observedGeneration=3:i64 conditions=6:[]ReplicaSetCondition
RollingUpdateDaemonSet maxUnavailable=1:ios maxSurge=2:ios
RollingUpdateDeployment maxUnavailable=1:ios maxSurge=2:ios
RollingUpdateStatefulSetStrategy partition=1:i32! maxUnavailable=2:ios
StatefulSet metadata=1:meta.ObjectMeta spec=2:StatefulSetSpec status=3:StatefulSetStatus
StatefulSetCondition type=1:s! status=2:s! lastTransitionTime=3:time reason=4:s message=5:s
StatefulSetList metadata=1:meta.ListMeta items=2:[]StatefulSet
StatefulSetOrdinals start=1:i32!
StatefulSetPersistentVolumeClaimRetentionPolicy whenDeleted=1:s whenScaled=2:s
StatefulSetSpec replicas=1:i32! selector=2:meta.LabelSelector template=3:core.PodTemplateSpec
  volumeClaimTemplates=4:[]core.PersistentVolumeClaim serviceName=5:s podManagementPolicy=6:s
  updateStrategy=7:StatefulSetUpdateStrategy revisionHistoryLimit=8:i32! minReadySeconds=9:i32
  persistentVolumeClaimRetentionPolicy=10:StatefulSetPersistentVolumeClaimRetentionPolicy ordinals=11:StatefulSetOrdinals
StatefulSetStatus observedGeneration=1:i64 replicas=2:i32! readyReplicas=3:i32 currentReplicas=4:i32
  updatedReplicas=5:i32 currentRevision=6:s updateRevision=7:s collisionCount=9:i32! conditions=10:[]StatefulSetCondition
  availableReplicas=11:i32!
StatefulSetUpdateStrategy type=1:s rollingUpdate=2:RollingUpdateStatefulSetStrategy
"""
