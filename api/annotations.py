"""Well-known annotation keys."""

# kube-scheduler-simulator's: every node's filter verdicts and scores for one scheduling decision
FILTER_RESULT = "kube-scheduler-simulator.sigs.k8s.io/filter-result"
SCORE_RESULT = "kube-scheduler-simulator.sigs.k8s.io/score-result"
SELECTED_NODE = "kube-scheduler-simulator.sigs.k8s.io/selected-node"
