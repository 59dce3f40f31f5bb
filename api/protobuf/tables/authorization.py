"""k8s.io.api.authorization.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api authorization/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names
and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "authorization"
API_VERSION = "authorization.k8s.io/v1"
KINDS = """SelfSubjectAccessReview SubjectAccessReview LocalSubjectAccessReview SelfSubjectRulesReview"""
MESSAGES = """
ExtraValue[] items=1:[]s
FieldSelectorAttributes rawSelector=1:s requirements=2:[]meta.FieldSelectorRequirement
LabelSelectorAttributes rawSelector=1:s requirements=2:[]meta.LabelSelectorRequirement
LocalSubjectAccessReview metadata=1:meta.ObjectMeta spec=2:SubjectAccessReviewSpec
  status=3:SubjectAccessReviewStatus
NonResourceAttributes path=1:s verb=2:s
NonResourceRule verbs=1:[]s nonResourceURLs=2:[]s
ResourceAttributes namespace=1:s verb=2:s group=3:s version=4:s resource=5:s subresource=6:s name=7:s
  fieldSelector=8:FieldSelectorAttributes labelSelector=9:LabelSelectorAttributes
ResourceRule verbs=1:[]s apiGroups=2:[]s resources=3:[]s resourceNames=4:[]s
SelfSubjectAccessReview metadata=1:meta.ObjectMeta spec=2:SelfSubjectAccessReviewSpec
  status=3:SubjectAccessReviewStatus
SelfSubjectAccessReviewSpec resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes
SelfSubjectRulesReview metadata=1:meta.ObjectMeta spec=2:SelfSubjectRulesReviewSpec
  status=3:SubjectRulesReviewStatus
SelfSubjectRulesReviewSpec namespace=1:s
SubjectAccessReview metadata=1:meta.ObjectMeta spec=2:SubjectAccessReviewSpec status=3:SubjectAccessReviewStatus
SubjectAccessReviewSpec resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes
  user=3:s groups=4:[]s extra=5:{ExtraValue} uid=6:s
SubjectAccessReviewStatus allowed=1:b! denied=4:b reason=2:s evaluationError=3:s
SubjectRulesReviewStatus resourceRules=1:[]ResourceRule nonResourceRules=2:[]NonResourceRule incomplete=3:b!
  evaluationError=4:s
"""
