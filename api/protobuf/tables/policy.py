"""k8s.io.api.policy.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api policy/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "policy"
API_VERSION = "policy/v1"
KINDS = """Eviction"""
MESSAGES = """
Eviction metadata=1:meta.ObjectMeta deleteOptions=2:meta.DeleteOptions
"""
