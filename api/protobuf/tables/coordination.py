"""k8s.io.api.coordination.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api coordination/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names
and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "coordination"
API_VERSION = "coordination.k8s.io/v1"
KINDS = """Lease LeaseList"""
MESSAGES = """
Lease metadata=1:meta.ObjectMeta spec=2:LeaseSpec
LeaseList metadata=1:meta.ListMeta items=2:[]Lease
LeaseSpec holderIdentity=1:s! leaseDurationSeconds=2:i32! acquireTime=3:mtime renewTime=4:mtime
  leaseTransitions=5:i32! strategy=6:s! preferredHolder=7:s!
"""
