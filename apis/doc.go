// Package apis holds the Go types of the Kubernetes objects karpsim reads
// and simulates: the karpenter.sh/v1 NodePool and NodeClaim and the
// karpenter.k8s.aws/v1 EC2NodeClass, with the defaults, validation rules and
// v1beta1 conversions that Karpenter's CRDs and webhooks apply, so that a
// manifest the API server would refuse is refused here too, with the field
// at fault and what would be accepted instead.
//
// It owns Karpenter's API types, their defaults and validation, the well-known
// labels, and the pod rules every other package shares (PodKey, the pod
// predicates, the disrupted taint). It imports no other karpsim package.
//
// The import rules between packages are checked by internal/layering.
package apis
