"""k8s.io.api.scheduling.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api scheduling/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names
and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "scheduling"
API_VERSION = "scheduling.k8s.io/v1"
KINDS = """PriorityClass PriorityClassList"""
MESSAGES = """
PriorityClass metadata=1:meta.ObjectMeta value=2:i32! globalDefault=3:b description=4:s preemptionPolicy=5:s!
PriorityClassList metadata=1:meta.ListMeta items=2:[]PriorityClass
"""
