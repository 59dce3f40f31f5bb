"""k8s.io.api.core.v1 volume sources: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api core/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "core"
API_VERSION = "v1"
KINDS = """"""
MESSAGES = """
AWSElasticBlockStoreVolumeSource volumeID=1:s! fsType=2:s partition=3:i32 readOnly=4:b
AttachedVolume name=1:s! devicePath=2:s!
AzureDiskVolumeSource diskName=1:s! diskURI=2:s! cachingMode=3:s! fsType=4:s! readOnly=5:b! kind=6:s!
AzureFileVolumeSource secretName=1:s! shareName=2:s! readOnly=3:b
CSIVolumeSource driver=1:s! readOnly=2:b! fsType=3:s! volumeAttributes=4:{s}
  nodePublishSecretRef=5:LocalObjectReference
CephFSVolumeSource monitors=1:[]s path=2:s user=3:s secretFile=4:s secretRef=5:LocalObjectReference readOnly=6:b
CinderVolumeSource volumeID=1:s! fsType=2:s readOnly=3:b secretRef=4:LocalObjectReference
ClusterTrustBundleProjection name=1:s! signerName=2:s! labelSelector=3:meta.LabelSelector optional=5:b! path=4:s!
  user=6:i64!
ConfigMapProjection ^=1:LocalObjectReference items=2:[]KeyToPath optional=4:b!
ConfigMapVolumeSource ^=1:LocalObjectReference items=2:[]KeyToPath defaultMode=3:i32! optional=4:b!
  defaultUser=5:i64!
DownwardAPIProjection items=1:[]DownwardAPIVolumeFile
DownwardAPIVolumeFile path=1:s! fieldRef=2:ObjectFieldSelector resourceFieldRef=3:ResourceFieldSelector mode=4:i32!
  user=5:i64!
DownwardAPIVolumeSource items=1:[]DownwardAPIVolumeFile defaultMode=2:i32! defaultUser=3:i64!
EmptyDirVolumeSource medium=1:s sizeLimit=2:qty mode=3:i32!
EphemeralVolumeSource volumeClaimTemplate=1:PersistentVolumeClaimTemplate
FCVolumeSource targetWWNs=1:[]s lun=2:i32! fsType=3:s readOnly=4:b wwids=5:[]s
FlexVolumeSource driver=1:s! fsType=2:s secretRef=3:LocalObjectReference readOnly=4:b options=5:{s}
FlockerVolumeSource datasetName=1:s datasetUUID=2:s
GCEPersistentDiskVolumeSource pdName=1:s! fsType=2:s partition=3:i32 readOnly=4:b
GitRepoVolumeSource repository=1:s! revision=2:s directory=3:s
GlusterfsVolumeSource endpoints=1:s! path=2:s! readOnly=3:b
HostPathVolumeSource path=1:s! type=2:s!
ISCSIVolumeSource targetPortal=1:s! iqn=2:s! lun=3:i32! iscsiInterface=4:s fsType=5:s readOnly=6:b portals=7:[]s
  chapAuthDiscovery=8:b chapAuthSession=11:b secretRef=10:LocalObjectReference initiatorName=12:s!
ImageVolumeSource reference=1:s pullPolicy=2:s
ImageVolumeStatus imageRef=1:s
KeyToPath key=1:s! path=2:s! mode=3:i32! user=4:i64!
NFSVolumeSource server=1:s! path=2:s! readOnly=3:b
PersistentVolumeClaimSpec accessModes=1:[]s selector=4:meta.LabelSelector resources=2:VolumeResourceRequirements
  volumeName=3:s storageClassName=5:s! volumeMode=6:s! dataSource=7:TypedLocalObjectReference
  dataSourceRef=8:TypedObjectReference volumeAttributesClassName=9:s!
PersistentVolumeClaimTemplate metadata=1:meta.ObjectMeta spec=2:PersistentVolumeClaimSpec
PersistentVolumeClaimVolumeSource claimName=1:s! readOnly=2:b
PhotonPersistentDiskVolumeSource pdID=1:s! fsType=2:s
PodCertificateProjection signerName=1:s keyType=2:s maxExpirationSeconds=3:i32! credentialBundlePath=4:s keyPath=5:s
  certificateChainPath=6:s userAnnotations=7:{s} user=8:i64!
PodVolumeHealth name=1:s! healthConditions=2:[]VolumeHealthCondition lastTransitionTime=3:time
PortworxVolumeSource volumeID=1:s! fsType=2:s readOnly=3:b
ProjectedVolumeSource sources=1:[]VolumeProjection defaultMode=2:i32! defaultUser=3:i64!
QuobyteVolumeSource registry=1:s! volume=2:s! readOnly=3:b user=4:s group=5:s tenant=6:s
RBDVolumeSource monitors=1:[]s image=2:s! fsType=3:s pool=4:s user=5:s keyring=6:s secretRef=7:LocalObjectReference
  readOnly=8:b
ScaleIOVolumeSource gateway=1:s! system=2:s! secretRef=3:LocalObjectReference sslEnabled=4:b protectionDomain=5:s
  storagePool=6:s storageMode=7:s volumeName=8:s fsType=9:s readOnly=10:b
SecretProjection ^=1:LocalObjectReference items=2:[]KeyToPath optional=4:b!
SecretVolumeSource secretName=1:s items=2:[]KeyToPath defaultMode=3:i32! optional=4:b! defaultUser=5:i64!
ServiceAccountTokenProjection audience=1:s expirationSeconds=2:i64! path=3:s! user=4:i64!
StorageOSVolumeSource volumeName=1:s volumeNamespace=2:s fsType=3:s readOnly=4:b secretRef=5:LocalObjectReference
TypedLocalObjectReference apiGroup=1:s! kind=2:s! name=3:s!
TypedObjectReference apiGroup=1:s! kind=2:s! name=3:s! namespace=4:s!
Volume name=1:s! ^=2:VolumeSource
VolumeDevice name=1:s! devicePath=2:s!
VolumeHealthCondition status=1:s! reason=2:s! message=3:s
VolumeMount name=1:s! readOnly=2:b recursiveReadOnly=7:s! mountPath=3:s! subPath=4:s mountPropagation=5:s!
  subPathExpr=6:s bindMountOptions=8:[]s
VolumeMountStatus name=1:s! mountPath=2:s! readOnly=3:b recursiveReadOnly=4:s! volumeStatus=5:VolumeStatus
VolumeProjection secret=1:SecretProjection downwardAPI=2:DownwardAPIProjection configMap=3:ConfigMapProjection
  serviceAccountToken=4:ServiceAccountTokenProjection clusterTrustBundle=5:ClusterTrustBundleProjection
  podCertificate=6:PodCertificateProjection
VolumeResourceRequirements limits=1:{qty} requests=2:{qty}
VolumeSource hostPath=1:HostPathVolumeSource emptyDir=2:EmptyDirVolumeSource
  gcePersistentDisk=3:GCEPersistentDiskVolumeSource awsElasticBlockStore=4:AWSElasticBlockStoreVolumeSource
  gitRepo=5:GitRepoVolumeSource secret=6:SecretVolumeSource nfs=7:NFSVolumeSource iscsi=8:ISCSIVolumeSource
  glusterfs=9:GlusterfsVolumeSource persistentVolumeClaim=10:PersistentVolumeClaimVolumeSource
  rbd=11:RBDVolumeSource flexVolume=12:FlexVolumeSource cinder=13:CinderVolumeSource cephfs=14:CephFSVolumeSource
  flocker=15:FlockerVolumeSource downwardAPI=16:DownwardAPIVolumeSource fc=17:FCVolumeSource
  azureFile=18:AzureFileVolumeSource configMap=19:ConfigMapVolumeSource
  vsphereVolume=20:VsphereVirtualDiskVolumeSource quobyte=21:QuobyteVolumeSource azureDisk=22:AzureDiskVolumeSource
  photonPersistentDisk=23:PhotonPersistentDiskVolumeSource projected=26:ProjectedVolumeSource
  portworxVolume=24:PortworxVolumeSource scaleIO=25:ScaleIOVolumeSource storageos=27:StorageOSVolumeSource
  csi=28:CSIVolumeSource ephemeral=29:EphemeralVolumeSource image=30:ImageVolumeSource
VolumeStatus image=1:ImageVolumeStatus
VsphereVirtualDiskVolumeSource volumePath=1:s! fsType=2:s storagePolicyName=3:s storagePolicyID=4:s
"""
