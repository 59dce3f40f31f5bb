"""k8s.io.api.admissionregistration.v1 messages: the webhook configurations, in api/protobuf/schema.py's
notation. Facts of kubernetes/api admissionregistration/v1 generated.proto (field numbers, types), with
the JSON names and pointers of its types.go (RuleWithOperations embeds Rule)."""
PACKAGE = "admissionregistration"
API_VERSION = "admissionregistration.k8s.io/v1"
KINDS = """MutatingWebhookConfiguration MutatingWebhookConfigurationList ValidatingWebhookConfiguration
  ValidatingWebhookConfigurationList"""
MESSAGES = """
MatchCondition name=1:s! expression=2:s!
MutatingWebhook name=1:s! clientConfig=2:WebhookClientConfig rules=3:[]RuleWithOperations failurePolicy=4:s!
  namespaceSelector=5:meta.LabelSelector sideEffects=6:s! timeoutSeconds=7:i32! admissionReviewVersions=8:[]s
  matchPolicy=9:s! reinvocationPolicy=10:s! objectSelector=11:meta.LabelSelector matchConditions=12:[]MatchCondition
MutatingWebhookConfiguration metadata=1:meta.ObjectMeta webhooks=2:[]MutatingWebhook
MutatingWebhookConfigurationList metadata=1:meta.ListMeta items=2:[]MutatingWebhookConfiguration
Rule apiGroups=1:[]s apiVersions=2:[]s resources=3:[]s scope=4:s!
RuleWithOperations operations=1:[]s ^=2:Rule
ServiceReference namespace=1:s! name=2:s! path=3:s! port=4:i32!
ValidatingWebhook name=1:s! clientConfig=2:WebhookClientConfig rules=3:[]RuleWithOperations failurePolicy=4:s!
  namespaceSelector=5:meta.LabelSelector sideEffects=6:s! timeoutSeconds=7:i32! admissionReviewVersions=8:[]s
  matchPolicy=9:s! objectSelector=10:meta.LabelSelector matchConditions=11:[]MatchCondition
ValidatingWebhookConfiguration metadata=1:meta.ObjectMeta webhooks=2:[]ValidatingWebhook
ValidatingWebhookConfigurationList metadata=1:meta.ListMeta items=2:[]ValidatingWebhookConfiguration
WebhookClientConfig url=3:s! service=1:ServiceReference caBundle=2:y
"""
