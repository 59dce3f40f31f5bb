"""k8s.io.api.authentication.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api authentication/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON
names and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "authentication"
API_VERSION = "authentication.k8s.io/v1"
KINDS = """TokenRequest TokenReview SelfSubjectReview"""
MESSAGES = """
AttestationValue[] items=1:[]s
BoundObjectReference kind=1:s apiVersion=2:s name=3:s uid=4:s
ExtraValue[] items=1:[]s
SelfSubjectReview metadata=1:meta.ObjectMeta status=2:SelfSubjectReviewStatus
SelfSubjectReviewStatus userInfo=1:UserInfo
TokenRequest metadata=1:meta.ObjectMeta spec=2:TokenRequestSpec status=3:TokenRequestStatus
TokenRequestSpec audiences=1:[]s expirationSeconds=4:i64! boundObjectRef=3:BoundObjectReference
  attestations=5:{AttestationValue}
TokenRequestStatus token=1:s! expirationTimestamp=2:time
TokenReview metadata=1:meta.ObjectMeta spec=2:TokenReviewSpec status=3:TokenReviewStatus
TokenReviewSpec token=1:s audiences=2:[]s
TokenReviewStatus authenticated=1:b user=2:UserInfo audiences=4:[]s error=3:s
UserInfo username=1:s uid=2:s groups=3:[]s extra=4:{ExtraValue}
"""
