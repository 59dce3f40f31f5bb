"""k8s.io.api.policy.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api policy/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "policy"
API_VERSION = "policy/v1"
KINDS = """Eviction PodDisruptionBudget PodDisruptionBudgetList"""
MESSAGES = """
Eviction metadata=1:meta.ObjectMeta deleteOptions=2:meta.DeleteOptions
PodDisruptionBudget metadata=1:meta.ObjectMeta spec=2:PodDisruptionBudgetSpec status=3:PodDisruptionBudgetStatus
PodDisruptionBudgetList metadata=1:meta.ListMeta items=2:[]PodDisruptionBudget
PodDisruptionBudgetSpec minAvailable=1:ios selector=2:meta.LabelSelector maxUnavailable=3:ios
  unhealthyPodEvictionPolicy=4:s!
PodDisruptionBudgetStatus observedGeneration=1:i64 disruptedPods=2:{time} disruptionsAllowed=3:i32!
  currentHealthy=4:i32! desiredHealthy=5:i32! expectedPods=6:i32! conditions=7:[]meta.Condition
"""
