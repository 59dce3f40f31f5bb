"""k8s.io.api.core.v1 PersistentVolume and PersistentVolumeClaim, in api/protobuf/schema.py's notation. Facts of
kubernetes/api core/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go. The persistent sources kubus has no message for (glusterfs, rbd, iscsi,
cinder, cephfs, flexVolume, azureFile, scaleIO, storageos) are not listed."""
PACKAGE = "core"
API_VERSION = "v1"
KINDS = """PersistentVolume PersistentVolumeList PersistentVolumeClaim PersistentVolumeClaimList"""
MESSAGES = """
CSIPersistentVolumeSource driver=1:s! volumeHandle=2:s! readOnly=3:b fsType=4:s volumeAttributes=5:{s}
  controllerPublishSecretRef=6:SecretReference nodeStageSecretRef=7:SecretReference
  nodePublishSecretRef=8:SecretReference controllerExpandSecretRef=9:SecretReference
  nodeExpandSecretRef=10:SecretReference
LocalVolumeSource path=1:s! fsType=2:s!
ModifyVolumeStatus targetVolumeAttributesClassName=1:s status=2:s!
PersistentVolume metadata=1:meta.ObjectMeta spec=2:PersistentVolumeSpec status=3:PersistentVolumeStatus
PersistentVolumeClaim metadata=1:meta.ObjectMeta spec=2:PersistentVolumeClaimSpec
  status=3:PersistentVolumeClaimStatus
PersistentVolumeClaimCondition type=1:s! status=2:s! lastProbeTime=3:time lastTransitionTime=4:time reason=5:s
  message=6:s
PersistentVolumeClaimList metadata=1:meta.ListMeta items=2:[]PersistentVolumeClaim
PersistentVolumeClaimStatus phase=1:s accessModes=2:[]s capacity=3:{qty} conditions=4:[]PersistentVolumeClaimCondition
  allocatedResources=5:{qty} allocatedResourceStatuses=7:{s} currentVolumeAttributesClassName=8:s!
  modifyVolumeStatus=9:ModifyVolumeStatus healthStatus=10:VolumeHealthStatus
PersistentVolumeList metadata=1:meta.ListMeta items=2:[]PersistentVolume
PersistentVolumeSource gcePersistentDisk=1:GCEPersistentDiskVolumeSource
  awsElasticBlockStore=2:AWSElasticBlockStoreVolumeSource hostPath=3:HostPathVolumeSource nfs=5:NFSVolumeSource
  fc=10:FCVolumeSource flocker=11:FlockerVolumeSource vsphereVolume=14:VsphereVirtualDiskVolumeSource
  quobyte=15:QuobyteVolumeSource azureDisk=16:AzureDiskVolumeSource
  photonPersistentDisk=17:PhotonPersistentDiskVolumeSource portworxVolume=18:PortworxVolumeSource
  local=20:LocalVolumeSource csi=22:CSIPersistentVolumeSource
PersistentVolumeSpec capacity=1:{qty} ^=2:PersistentVolumeSource accessModes=3:[]s claimRef=4:ObjectReference
  persistentVolumeReclaimPolicy=5:s storageClassName=6:s mountOptions=7:[]s volumeMode=8:s!
  nodeAffinity=9:VolumeNodeAffinity volumeAttributesClassName=10:s!
PersistentVolumeStatus phase=1:s message=2:s reason=3:s lastPhaseTransitionTime=4:time
SecretReference name=1:s namespace=2:s
TopologySelectorLabelRequirement key=1:s! values=2:[]s
TopologySelectorTerm matchLabelExpressions=1:[]TopologySelectorLabelRequirement
VolumeHealthStatus healthConditions=1:[]VolumeHealthCondition lastTransitionTime=2:time
VolumeNodeAffinity required=1:NodeSelector
"""
