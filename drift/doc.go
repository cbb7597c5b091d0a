// Package drift decides, as Karpenter v1 and its AWS provider do, whether a
// NodeClaim no longer matches its NodePool or EC2NodeClass and why, and when
// a NodeClaim expires or must finish draining. It computes the
// karpenter.sh/nodepool-hash and karpenter.k8s.aws/ec2nodeclass-hash values
// Karpenter stamps, bit for bit (Stamp puts them on a claim, Restamp models
// a hash-version upgrade), then runs Karpenter's drift checks in Karpenter's
// order and reports the first that fires, with what differed (Check). It is
// pure: time is an argument, nothing is read from a cluster or a cloud,
// results depend only on the input, and no input is modified (reference
// §2-§3).
//
// It owns drift and expiry. It imports apis, instancetypes and requirements;
// never scheduling, consolidation or anything that does I/O.
//
// The import rules between packages are checked by internal/layering.
package drift
