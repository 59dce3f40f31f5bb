"""k8s.io.api.autoscaling.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api autoscaling/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names
and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "autoscaling"
API_VERSION = "autoscaling/v1"
KINDS = """Scale"""
MESSAGES = """
Scale metadata=1:meta.ObjectMeta spec=2:ScaleSpec status=3:ScaleStatus
ScaleSpec replicas=1:i32
ScaleStatus replicas=1:i32! selector=2:s
"""
