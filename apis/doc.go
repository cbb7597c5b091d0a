// Package apis holds the Go types of the Kubernetes objects karpsim reads
// and simulates: the karpenter.sh/v1 NodePool and NodeClaim and the
// karpenter.k8s.aws/v1 EC2NodeClass, with the defaults, validation rules and
// v1beta1 conversions that Karpenter's CRDs and webhooks apply, so that a
// manifest the API server would refuse is refused here too, with the field
// at fault and what would be accepted instead. It also holds the well-known
// labels, annotations and taints, and the pod rules every other package
// shares (PodKey, the pod predicates, the disrupted taint).
//
// Build objects as Go structs and call SetDefaults, as the API server would
// before any controller sees them; Validate reports what the API server
// would refuse. Package manifests does both for objects read from YAML.
package apis
