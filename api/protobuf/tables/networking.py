"""k8s.io.api.networking.v1 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api networking/v1/generated.proto at 10b39a39bcee (field numbers, types), with the JSON names
and `omitempty`/pointer of its types.go; written by a script from those files, not by hand."""
PACKAGE = "networking"
API_VERSION = "networking.k8s.io/v1"
KINDS = """Ingress IngressList IngressClass IngressClassList"""
MESSAGES = """
HTTPIngressPath path=1:s pathType=3:s! backend=2:IngressBackend
HTTPIngressRuleValue paths=1:[]HTTPIngressPath
Ingress metadata=1:meta.ObjectMeta spec=2:IngressSpec status=3:IngressStatus
IngressBackend service=4:IngressServiceBackend resource=3:core.TypedLocalObjectReference
IngressClass metadata=1:meta.ObjectMeta spec=2:IngressClassSpec
IngressClassList metadata=1:meta.ListMeta items=2:[]IngressClass
IngressClassParametersReference apiGroup=1:s! kind=2:s! name=3:s! scope=4:s! namespace=5:s!
IngressClassSpec controller=1:s parameters=2:IngressClassParametersReference
IngressList metadata=1:meta.ListMeta items=2:[]Ingress
IngressLoadBalancerIngress ip=1:s hostname=2:s ports=4:[]IngressPortStatus
IngressLoadBalancerStatus ingress=1:[]IngressLoadBalancerIngress
IngressPortStatus port=1:i32! protocol=2:s! error=3:s!
IngressRule host=1:s ^=2:IngressRuleValue
IngressRuleValue http=1:HTTPIngressRuleValue
IngressServiceBackend name=1:s! port=2:ServiceBackendPort
IngressSpec ingressClassName=4:s! defaultBackend=1:IngressBackend tls=2:[]IngressTLS rules=3:[]IngressRule
IngressStatus loadBalancer=1:IngressLoadBalancerStatus
IngressTLS hosts=1:[]s secretName=2:s
ServiceBackendPort name=1:s number=2:i32
"""
