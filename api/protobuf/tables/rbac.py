"""k8s.io.api.rbac.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api rbac/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "rbac"
API_VERSION = "rbac.authorization.k8s.io/v1"
KINDS = """Role RoleList ClusterRole ClusterRoleList RoleBinding RoleBindingList ClusterRoleBinding
    ClusterRoleBindingList"""
MESSAGES = """
AggregationRule clusterRoleSelectors=1:[]meta.LabelSelector
ClusterRole metadata=1:meta.ObjectMeta rules=2:[]PolicyRule aggregationRule=3:AggregationRule
ClusterRoleBinding metadata=1:meta.ObjectMeta subjects=2:[]Subject roleRef=3:RoleRef
ClusterRoleBindingList metadata=1:meta.ListMeta items=2:[]ClusterRoleBinding
ClusterRoleList metadata=1:meta.ListMeta items=2:[]ClusterRole
PolicyRule verbs=1:[]s apiGroups=2:[]s resources=3:[]s resourceNames=4:[]s nonResourceURLs=5:[]s
Role metadata=1:meta.ObjectMeta rules=2:[]PolicyRule
RoleBinding metadata=1:meta.ObjectMeta subjects=2:[]Subject roleRef=3:RoleRef
RoleBindingList metadata=1:meta.ListMeta items=2:[]RoleBinding
RoleList metadata=1:meta.ListMeta items=2:[]Role
RoleRef apiGroup=1:s! kind=2:s! name=3:s!
Subject kind=1:s! apiGroup=2:s name=3:s! namespace=4:s
"""
