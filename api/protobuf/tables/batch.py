"""k8s.io.api.batch.v1 messages: the ones a Job and a CronJob reach, in api/protobuf/schema.py's notation. Facts of
kubernetes/api batch/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go (JobSpec.scheduling, alpha, is not served)."""
PACKAGE = "batch"
API_VERSION = "batch/v1"
KINDS = """Job JobList CronJob CronJobList"""
MESSAGES = """
CronJob metadata=1:meta.ObjectMeta spec=2:CronJobSpec status=3:CronJobStatus
CronJobList metadata=1:meta.ListMeta items=2:[]CronJob
CronJobSpec schedule=1:s! timeZone=8:s! startingDeadlineSeconds=2:i64! concurrencyPolicy=3:s suspend=4:b!
  jobTemplate=5:JobTemplateSpec successfulJobsHistoryLimit=6:i32! failedJobsHistoryLimit=7:i32!
CronJobStatus active=1:[]core.ObjectReference lastScheduleTime=4:time lastSuccessfulTime=5:time
Job metadata=1:meta.ObjectMeta spec=2:JobSpec status=3:JobStatus
JobCondition type=1:s! status=2:s! lastProbeTime=3:time lastTransitionTime=4:time reason=5:s message=6:s
JobList metadata=1:meta.ListMeta items=2:[]Job
JobSpec parallelism=1:i32! completions=2:i32! activeDeadlineSeconds=3:i64! selector=4:meta.LabelSelector
  manualSelector=5:b! template=6:core.PodTemplateSpec backoffLimit=7:i32! ttlSecondsAfterFinished=8:i32!
  completionMode=9:s! suspend=10:b! podFailurePolicy=11:PodFailurePolicy backoffLimitPerIndex=12:i32!
  maxFailedIndexes=13:i32! podReplacementPolicy=14:s! managedBy=15:s! successPolicy=16:SuccessPolicy
JobStatus conditions=1:[]JobCondition startTime=2:time completionTime=3:time active=4:i32 succeeded=5:i32
  failed=6:i32 completedIndexes=7:s uncountedTerminatedPods=8:UncountedTerminatedPods ready=9:i32!
  failedIndexes=10:s! terminating=11:i32!
PodFailurePolicy rules=1:[]PodFailurePolicyRule
PodFailurePolicyOnExitCodesRequirement containerName=1:s! operator=2:s! values=3:[]i32
PodFailurePolicyOnPodConditionsPattern type=1:s! status=2:s!
PodFailurePolicyRule action=1:s! onExitCodes=2:PodFailurePolicyOnExitCodesRequirement
  onPodConditions=3:[]PodFailurePolicyOnPodConditionsPattern
JobTemplateSpec metadata=1:meta.ObjectMeta spec=2:JobSpec
SuccessPolicy rules=1:[]SuccessPolicyRule
SuccessPolicyRule succeededIndexes=1:s! succeededCount=2:i32!
UncountedTerminatedPods succeeded=1:[]s failed=2:[]s
"""
