"""k8s.io.api.core.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api core/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "core"
API_VERSION = "v1"
KINDS = """Pod PodList Node NodeList Namespace NamespaceList Event EventList ServiceAccount ServiceAccountList
    LimitRange LimitRangeList ResourceQuota ResourceQuotaList Service ServiceList Endpoints
    EndpointsList Binding ConfigMap ConfigMapList Secret SecretList ReplicationController
    ReplicationControllerList PodTemplate PodTemplateList"""
MESSAGES = """
Affinity nodeAffinity=1:NodeAffinity podAffinity=2:PodAffinity podAntiAffinity=3:PodAntiAffinity
AppArmorProfile type=1:s! localhostProfile=2:s!
Binding metadata=1:meta.ObjectMeta target=2:ObjectReference
Capabilities add=1:[]s drop=2:[]s
ClientIPConfig timeoutSeconds=1:i32!
ConfigMap metadata=1:meta.ObjectMeta data=2:{s} binaryData=3:{y} immutable=4:b!
ConfigMapEnvSource ^=1:LocalObjectReference optional=2:b!
ConfigMapKeySelector ^=1:LocalObjectReference key=2:s! optional=3:b!
ConfigMapList metadata=1:meta.ListMeta items=2:[]ConfigMap
ConfigMapNodeConfigSource namespace=1:s! name=2:s! uid=3:s resourceVersion=4:s kubeletConfigKey=5:s!
Container name=1:s! image=2:s command=3:[]s args=4:[]s workingDir=5:s ports=6:[]ContainerPort
  envFrom=19:[]EnvFromSource env=7:[]EnvVar resources=8:ResourceRequirements resizePolicy=23:[]ContainerResizePolicy
  restartPolicy=24:s! restartPolicyRules=25:[]ContainerRestartRule volumeMounts=9:[]VolumeMount
  volumeDevices=21:[]VolumeDevice livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe
  lifecycle=12:Lifecycle terminationMessagePath=13:s terminationMessagePolicy=20:s imagePullPolicy=14:s
  securityContext=15:SecurityContext stdin=16:b stdinOnce=17:b tty=18:b
ContainerExtendedResourceRequest containerName=1:s resourceName=2:s requestName=3:s
ContainerImage names=1:[]s sizeBytes=2:i64
ContainerPort name=1:s hostPort=2:i32 containerPort=3:i32! protocol=4:s hostIP=5:s
ContainerResizePolicy resourceName=1:s! restartPolicy=2:s!
ContainerRestartRule action=1:s exitCodes=2:ContainerRestartRuleOnExitCodes
ContainerRestartRuleOnExitCodes operator=1:s values=2:[]i32
ContainerState waiting=1:ContainerStateWaiting running=2:ContainerStateRunning terminated=3:ContainerStateTerminated
ContainerStateRunning startedAt=1:time
ContainerStateTerminated exitCode=1:i32! signal=2:i32 reason=3:s message=4:s startedAt=5:time finishedAt=6:time
  containerID=7:s
ContainerStateWaiting reason=1:s message=2:s
ContainerStatus name=1:s! state=2:ContainerState lastState=3:ContainerState ready=4:b! restartCount=5:i32!
  image=6:s! imageID=7:s! containerID=8:s started=9:b! allocatedResources=10:{qty} resources=11:ResourceRequirements
  volumeMounts=12:[]VolumeMountStatus user=13:ContainerUser allocatedResourcesStatus=14:[]ResourceStatus
  stopSignal=15:s!
ContainerUser linux=1:LinuxContainerUser
DaemonEndpoint Port=1:i32!
EndpointAddress ip=1:s! hostname=3:s nodeName=4:s! targetRef=2:ObjectReference
EndpointPort name=1:s port=2:i32! protocol=3:s appProtocol=4:s!
EndpointSubset addresses=1:[]EndpointAddress notReadyAddresses=2:[]EndpointAddress ports=3:[]EndpointPort
Endpoints metadata=1:meta.ObjectMeta subsets=2:[]EndpointSubset
EndpointsList metadata=1:meta.ListMeta items=2:[]Endpoints
EnvFromSource prefix=1:s configMapRef=2:ConfigMapEnvSource secretRef=3:SecretEnvSource
EnvVar name=1:s! value=2:s valueFrom=3:EnvVarSource
EnvVarSource fieldRef=1:ObjectFieldSelector resourceFieldRef=2:ResourceFieldSelector
  configMapKeyRef=3:ConfigMapKeySelector secretKeyRef=4:SecretKeySelector fileKeyRef=5:FileKeySelector
EphemeralContainer ephemeralContainerCommon=1:EphemeralContainerCommon targetContainerName=2:s
EphemeralContainerCommon name=1:s! image=2:s command=3:[]s args=4:[]s workingDir=5:s ports=6:[]ContainerPort
  envFrom=19:[]EnvFromSource env=7:[]EnvVar resources=8:ResourceRequirements resizePolicy=23:[]ContainerResizePolicy
  restartPolicy=24:s! restartPolicyRules=25:[]ContainerRestartRule volumeMounts=9:[]VolumeMount
  volumeDevices=21:[]VolumeDevice livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe
  lifecycle=12:Lifecycle terminationMessagePath=13:s terminationMessagePolicy=20:s imagePullPolicy=14:s
  securityContext=15:SecurityContext stdin=16:b stdinOnce=17:b tty=18:b
Event metadata=1:meta.ObjectMeta involvedObject=2:ObjectReference reason=3:s message=4:s source=5:EventSource
  firstTimestamp=6:time lastTimestamp=7:time count=8:i32 type=9:s eventTime=10:mtime series=11:EventSeries
  action=12:s related=13:ObjectReference reportingComponent=14:s! reportingInstance=15:s!
EventList metadata=1:meta.ListMeta items=2:[]Event
EventSeries count=1:i32 lastObservedTime=2:mtime
EventSource component=1:s host=2:s
EvictionResponder name=1:s! priority=2:i32!
ExecAction command=1:[]s
FileKeySelector volumeName=1:s! path=2:s! key=3:s! optional=4:b!
GRPCAction port=1:i32! service=2:s! mode=3:s!
HTTPGetAction path=1:s port=2:ios host=3:s scheme=4:s httpHeaders=5:[]HTTPHeader protocol=6:s!
HTTPHeader name=1:s! value=2:s!
HostAlias ip=1:s! hostnames=2:[]s
HostIP ip=1:s!
Lifecycle postStart=1:LifecycleHandler preStop=2:LifecycleHandler stopSignal=3:s!
LifecycleHandler exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction sleep=4:SleepAction
LimitRange metadata=1:meta.ObjectMeta spec=2:LimitRangeSpec
LimitRangeItem type=1:s! max=2:{qty} min=3:{qty} default=4:{qty} defaultRequest=5:{qty} maxLimitRequestRatio=6:{qty}
LimitRangeList metadata=1:meta.ListMeta items=2:[]LimitRange
LimitRangeSpec limits=1:[]LimitRangeItem
LinuxContainerUser uid=1:i64 gid=2:i64 supplementalGroups=3:[]i64
LoadBalancerIngress ip=1:s hostname=2:s ipMode=3:s! ports=4:[]PortStatus
LoadBalancerStatus ingress=1:[]LoadBalancerIngress
LocalObjectReference name=1:s
Namespace metadata=1:meta.ObjectMeta spec=2:NamespaceSpec status=3:NamespaceStatus
NamespaceCondition type=1:s! status=2:s! lastTransitionTime=4:time reason=5:s message=6:s
NamespaceList metadata=1:meta.ListMeta items=2:[]Namespace
NamespaceSpec finalizers=1:[]s
NamespaceStatus phase=1:s conditions=2:[]NamespaceCondition
Node metadata=1:meta.ObjectMeta spec=2:NodeSpec status=3:NodeStatus
NodeAddress type=1:s! address=2:s!
NodeAffinity requiredDuringSchedulingIgnoredDuringExecution=1:NodeSelector
  preferredDuringSchedulingIgnoredDuringExecution=2:[]PreferredSchedulingTerm
NodeAllocatableMappedResources name=1:s! quantity=2:qty
NodeAllocatableOverheadResources name=1:s! perPod=2:qty perContainer=3:qty
NodeAllocatableResourceClaimStatus resourceClaimName=1:s! containers=2:[]s
  mapping=4:[]NodeAllocatableMappedResources overhead=5:[]NodeAllocatableOverheadResources
NodeCondition type=1:s! status=2:s! lastHeartbeatTime=3:time lastTransitionTime=4:time reason=5:s message=6:s
NodeConfigSource configMap=2:ConfigMapNodeConfigSource
NodeConfigStatus assigned=1:NodeConfigSource active=2:NodeConfigSource lastKnownGood=3:NodeConfigSource error=4:s
NodeDaemonEndpoints kubeletEndpoint=1:DaemonEndpoint
NodeFeatures supplementalGroupsPolicy=1:b!
NodeList metadata=1:meta.ListMeta items=2:[]Node
NodePodPreemptionPolicy disableResizePreemption=1:[]s
NodeRuntimeHandler name=1:s! features=2:NodeRuntimeHandlerFeatures
NodeRuntimeHandlerFeatures recursiveReadOnlyMounts=1:b! userNamespaces=2:b!
NodeSelector nodeSelectorTerms=1:[]NodeSelectorTerm
NodeSelectorRequirement key=1:s! operator=2:s! values=3:[]s
NodeSelectorTerm matchExpressions=1:[]NodeSelectorRequirement matchFields=2:[]NodeSelectorRequirement
NodeSpec podCIDR=1:s podCIDRs=7:[]s providerID=3:s unschedulable=4:b taints=5:[]Taint
  configSource=6:NodeConfigSource externalID=2:s podPreemptionPolicy=8:NodePodPreemptionPolicy
NodeStatus capacity=1:{qty} allocatable=2:{qty} phase=3:s conditions=4:[]NodeCondition addresses=5:[]NodeAddress
  daemonEndpoints=6:NodeDaemonEndpoints nodeInfo=7:NodeSystemInfo images=8:[]ContainerImage volumesInUse=9:[]s
  volumesAttached=10:[]AttachedVolume config=11:NodeConfigStatus runtimeHandlers=12:[]NodeRuntimeHandler
  features=13:NodeFeatures declaredFeatures=14:[]s
NodeSwapStatus capacity=1:i64!
NodeSystemInfo machineID=1:s! systemUUID=2:s! bootID=3:s! kernelVersion=4:s! osImage=5:s!
  containerRuntimeVersion=6:s! kubeletVersion=7:s! kubeProxyVersion=8:s! operatingSystem=9:s! architecture=10:s!
  swap=11:NodeSwapStatus
ObjectFieldSelector apiVersion=1:s fieldPath=2:s!
ObjectReference kind=1:s namespace=2:s name=3:s uid=4:s apiVersion=5:s resourceVersion=6:s fieldPath=7:s
Pod metadata=1:meta.ObjectMeta spec=2:PodSpec status=3:PodStatus
PodAffinity requiredDuringSchedulingIgnoredDuringExecution=1:[]PodAffinityTerm
  preferredDuringSchedulingIgnoredDuringExecution=2:[]WeightedPodAffinityTerm
PodAffinityTerm labelSelector=1:meta.LabelSelector namespaces=2:[]s topologyKey=3:s!
  namespaceSelector=4:meta.LabelSelector matchLabelKeys=5:[]s mismatchLabelKeys=6:[]s
PodAntiAffinity requiredDuringSchedulingIgnoredDuringExecution=1:[]PodAffinityTerm
  preferredDuringSchedulingIgnoredDuringExecution=2:[]WeightedPodAffinityTerm
PodCondition type=1:s! observedGeneration=7:i64 status=2:s! lastProbeTime=3:time lastTransitionTime=4:time
  reason=5:s message=6:s
PodDNSConfig nameservers=1:[]s searches=2:[]s options=3:[]PodDNSConfigOption
PodDNSConfigOption name=1:s value=2:s!
PodExtendedResourceClaimStatus requestMappings=1:[]ContainerExtendedResourceRequest resourceClaimName=2:s
PodIP ip=1:s!
PodList metadata=1:meta.ListMeta items=2:[]Pod
PodOS name=1:s!
PodReadinessGate conditionType=1:s!
PodResourceClaim name=1:s resourceClaimName=3:s! resourceClaimTemplateName=4:s!
PodResourceClaimStatus name=1:s resourceClaimName=2:s!
PodSchedulingGate name=1:s!
PodSchedulingGroup podGroupName=1:s!
PodSecurityContext seLinuxOptions=1:SELinuxOptions windowsOptions=8:WindowsSecurityContextOptions runAsUser=2:i64!
  runAsGroup=6:i64! runAsNonRoot=3:b! supplementalGroups=4:[]i64 supplementalGroupsPolicy=12:s! fsGroup=5:i64!
  sysctls=7:[]Sysctl fsGroupChangePolicy=9:s! seccompProfile=10:SeccompProfile appArmorProfile=11:AppArmorProfile
  seLinuxChangePolicy=13:s!
PodSpec volumes=1:[]Volume initContainers=20:[]Container containers=2:[]Container
  ephemeralContainers=34:[]EphemeralContainer restartPolicy=3:s terminationGracePeriodSeconds=4:i64!
  activeDeadlineSeconds=5:i64! dnsPolicy=6:s nodeSelector=7:{s} serviceAccountName=8:s serviceAccount=9:s
  automountServiceAccountToken=21:b! nodeName=10:s hostNetwork=11:b hostPID=12:b hostIPC=13:b
  shareProcessNamespace=27:b! securityContext=14:PodSecurityContext imagePullSecrets=15:[]LocalObjectReference
  hostname=16:s subdomain=17:s affinity=18:Affinity schedulerName=19:s tolerations=22:[]Toleration
  hostAliases=23:[]HostAlias priorityClassName=24:s priority=25:i32! dnsConfig=26:PodDNSConfig
  readinessGates=28:[]PodReadinessGate runtimeClassName=29:s! enableServiceLinks=30:b! preemptionPolicy=31:s!
  overhead=32:{qty} topologySpreadConstraints=33:[]TopologySpreadConstraint setHostnameAsFQDN=35:b! os=36:PodOS
  hostUsers=37:b! schedulingGates=38:[]PodSchedulingGate resourceClaims=39:[]PodResourceClaim
  resources=40:ResourceRequirements hostnameOverride=41:s! schedulingGroup=43:PodSchedulingGroup
  evictionResponders=44:[]EvictionResponder
PodStatus observedGeneration=17:i64 phase=1:s conditions=2:[]PodCondition message=3:s reason=4:s
  nominatedNodeName=11:s hostIP=5:s hostIPs=16:[]HostIP podIP=6:s podIPs=12:[]PodIP startTime=7:time
  initContainerStatuses=10:[]ContainerStatus containerStatuses=8:[]ContainerStatus qosClass=9:s
  ephemeralContainerStatuses=13:[]ContainerStatus resize=14:s resourceClaimStatuses=15:[]PodResourceClaimStatus
  extendedResourceClaimStatus=18:PodExtendedResourceClaimStatus allocatedResources=19:{qty}
  resources=20:ResourceRequirements nodeAllocatableResourceClaimStatuses=21:[]NodeAllocatableResourceClaimStatus
  volumeHealth=22:[]PodVolumeHealth
PodTemplate metadata=1:meta.ObjectMeta template=2:PodTemplateSpec
PodTemplateList metadata=1:meta.ListMeta items=2:[]PodTemplate
PodTemplateSpec metadata=1:meta.ObjectMeta spec=2:PodSpec
PortStatus port=1:i32! protocol=2:s! error=3:s!
PreferredSchedulingTerm weight=1:i32! preference=2:NodeSelectorTerm
Probe ^=1:ProbeHandler initialDelaySeconds=2:i32 timeoutSeconds=3:i32 periodSeconds=4:i32 successThreshold=5:i32
  failureThreshold=6:i32 terminationGracePeriodSeconds=7:i64!
ProbeHandler exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction grpc=4:GRPCAction
ResourceClaim name=1:s! request=2:s
ResourceFieldSelector containerName=1:s resource=2:s! divisor=3:qty
ResourceHealth resourceID=1:s! health=2:s message=6:s!
ReplicationController metadata=1:meta.ObjectMeta spec=2:ReplicationControllerSpec
  status=3:ReplicationControllerStatus
ReplicationControllerCondition type=1:s! status=2:s! lastTransitionTime=3:time reason=4:s message=5:s
ReplicationControllerList metadata=1:meta.ListMeta items=2:[]ReplicationController
ReplicationControllerSpec replicas=1:i32! minReadySeconds=4:i32 selector=2:{s} template=3:PodTemplateSpec
ReplicationControllerStatus replicas=1:i32! fullyLabeledReplicas=2:i32 readyReplicas=4:i32 availableReplicas=5:i32
  observedGeneration=3:i64 conditions=6:[]ReplicationControllerCondition
ResourceQuota metadata=1:meta.ObjectMeta spec=2:ResourceQuotaSpec status=3:ResourceQuotaStatus
ResourceQuotaList metadata=1:meta.ListMeta items=2:[]ResourceQuota
ResourceQuotaSpec hard=1:{qty} scopes=2:[]s scopeSelector=3:ScopeSelector
ResourceQuotaStatus hard=1:{qty} used=2:{qty}
ResourceRequirements limits=1:{qty} requests=2:{qty} claims=3:[]ResourceClaim
ResourceStatus name=1:s! resources=2:[]ResourceHealth
SELinuxOptions user=1:s role=2:s type=3:s level=4:s
ScopeSelector matchExpressions=1:[]ScopedResourceSelectorRequirement
ScopedResourceSelectorRequirement scopeName=1:s! operator=2:s! values=3:[]s
SeccompProfile type=1:s! localhostProfile=2:s!
Secret metadata=1:meta.ObjectMeta data=2:{y} type=3:s stringData=4:{s} immutable=5:b!
SecretEnvSource ^=1:LocalObjectReference optional=2:b!
SecretKeySelector ^=1:LocalObjectReference key=2:s! optional=3:b!
SecretList metadata=1:meta.ListMeta items=2:[]Secret
SecurityContext capabilities=1:Capabilities privileged=2:b! seLinuxOptions=3:SELinuxOptions
  windowsOptions=10:WindowsSecurityContextOptions runAsUser=4:i64! runAsGroup=8:i64! runAsNonRoot=5:b!
  readOnlyRootFilesystem=6:b! allowPrivilegeEscalation=7:b! procMount=9:s! seccompProfile=11:SeccompProfile
  appArmorProfile=12:AppArmorProfile
Service metadata=1:meta.ObjectMeta spec=2:ServiceSpec status=3:ServiceStatus
ServiceAccount metadata=1:meta.ObjectMeta secrets=2:[]ObjectReference imagePullSecrets=3:[]LocalObjectReference
  automountServiceAccountToken=4:b!
ServiceAccountList metadata=1:meta.ListMeta items=2:[]ServiceAccount
ServiceList metadata=1:meta.ListMeta items=2:[]Service
ServicePort name=1:s protocol=2:s appProtocol=6:s! port=3:i32! targetPort=4:ios nodePort=5:i32
ServiceSpec ports=1:[]ServicePort selector=2:{s} clusterIP=3:s clusterIPs=18:[]s type=4:s externalIPs=5:[]s
  sessionAffinity=7:s loadBalancerIP=8:s loadBalancerSourceRanges=9:[]s externalName=10:s externalTrafficPolicy=11:s
  healthCheckNodePort=12:i32 publishNotReadyAddresses=13:b sessionAffinityConfig=14:SessionAffinityConfig
  ipFamilies=19:[]s ipFamilyPolicy=17:s! allocateLoadBalancerNodePorts=20:b! loadBalancerClass=21:s!
  internalTrafficPolicy=22:s! trafficDistribution=23:s!
ServiceStatus loadBalancer=1:LoadBalancerStatus conditions=2:[]meta.Condition
SessionAffinityConfig clientIP=1:ClientIPConfig
SleepAction seconds=1:i64!
Sysctl name=1:s! value=2:s!
TCPSocketAction port=1:ios host=2:s
Taint key=1:s! value=2:s effect=3:s! timeAdded=4:time
Toleration key=1:s operator=2:s value=3:s effect=4:s tolerationSeconds=5:i64!
TopologySpreadConstraint maxSkew=1:i32! topologyKey=2:s! whenUnsatisfiable=3:s! labelSelector=4:meta.LabelSelector
  minDomains=5:i32! nodeAffinityPolicy=6:s! nodeTaintsPolicy=7:s! matchLabelKeys=8:[]s
WeightedPodAffinityTerm weight=1:i32! podAffinityTerm=2:PodAffinityTerm
WindowsSecurityContextOptions gmsaCredentialSpecName=1:s! gmsaCredentialSpec=2:s! runAsUserName=3:s!
  hostProcess=4:b!
"""
