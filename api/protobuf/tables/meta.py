"""k8s.io.apimachinery.pkg.apis.meta.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's
notation. Facts of kubernetes/apimachinery pkg/apis/meta/v1/generated.proto at eed236ceee2c (field numbers, types),
with the JSON names and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "meta"
API_VERSION = "meta.k8s.io/v1"
KINDS = """Status DeleteOptions WatchEvent PartialObjectMetadata PartialObjectMetadataList"""
MESSAGES = """
Condition type=1:s! status=2:s! observedGeneration=3:i64 lastTransitionTime=4:time reason=5:s! message=6:s!
DeleteOptions gracePeriodSeconds=1:i64! preconditions=2:Preconditions orphanDependents=3:b! propagationPolicy=4:s!
  dryRun=5:[]s ignoreStoreReadErrorWithClusterBreakingPotential=6:b!
FieldSelectorRequirement key=1:s! operator=2:s! values=3:[]s
LabelSelector matchLabels=1:{s} matchExpressions=2:[]LabelSelectorRequirement
LabelSelectorRequirement key=1:s! operator=2:s! values=3:[]s
ListMeta selfLink=1:s resourceVersion=2:s continue=3:s remainingItemCount=4:i64! shardInfo=5:ShardInfo
ManagedFieldsEntry manager=1:s operation=2:s apiVersion=3:s time=4:time fieldsType=6:s fieldsV1=7:raw
  subresource=8:s
ObjectMeta name=1:s generateName=2:s namespace=3:s selfLink=4:s uid=5:s resourceVersion=6:s generation=7:i64
  creationTimestamp=8:time deletionTimestamp=9:time deletionGracePeriodSeconds=10:i64! labels=11:{s}
  annotations=12:{s} ownerReferences=13:[]OwnerReference finalizers=14:[]s managedFields=17:[]ManagedFieldsEntry
OwnerReference apiVersion=5:s! kind=1:s! name=3:s! uid=4:s! controller=6:b! blockOwnerDeletion=7:b!
PartialObjectMetadata metadata=1:ObjectMeta
PartialObjectMetadataList metadata=1:ListMeta items=2:[]PartialObjectMetadata
Preconditions uid=1:s! resourceVersion=2:s!
ShardInfo selector=1:s!
Status metadata=1:ListMeta status=2:s message=3:s reason=4:s details=5:StatusDetails code=6:i32
StatusCause reason=1:s message=2:s field=3:s
StatusDetails name=1:s group=2:s kind=3:s uid=6:s causes=4:[]StatusCause retryAfterSeconds=5:i32
WatchEvent type=1:s! object=2:raw
"""
