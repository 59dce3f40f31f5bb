"""k8s.io.api.storage.v1 StorageClass, in api/protobuf/schema.py's notation. Facts of kubernetes/api
storage/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and `omitempty`/pointer
of its types.go."""
PACKAGE = "storage"
API_VERSION = "storage.k8s.io/v1"
KINDS = """StorageClass StorageClassList"""
MESSAGES = """
StorageClass metadata=1:meta.ObjectMeta provisioner=2:s! parameters=3:{s} reclaimPolicy=4:s! mountOptions=5:[]s
  allowVolumeExpansion=6:b! volumeBindingMode=7:s! allowedTopologies=8:[]core.TopologySelectorTerm
StorageClassList metadata=1:meta.ListMeta items=2:[]StorageClass
"""
