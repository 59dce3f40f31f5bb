"""k8s.io.api.discovery.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts
of kubernetes/api discovery/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "discovery"
API_VERSION = "discovery.k8s.io/v1"
KINDS = """EndpointSlice EndpointSliceList"""
MESSAGES = """
Endpoint addresses=1:[]s conditions=2:EndpointConditions hostname=3:s! targetRef=4:core.ObjectReference
  deprecatedTopology=5:{s} nodeName=6:s! zone=7:s! hints=8:EndpointHints
EndpointConditions ready=1:b serving=2:b terminating=3:b
EndpointHints forZones=1:[]ForZone forNodes=2:[]ForNode
EndpointPort name=1:s protocol=2:s port=3:i32! appProtocol=4:s
EndpointSlice metadata=1:meta.ObjectMeta addressType=4:s! endpoints=2:[]Endpoint ports=3:[]EndpointPort
EndpointSliceList metadata=1:meta.ListMeta items=2:[]EndpointSlice
ForNode name=1:s
ForZone name=1:s
"""
