// Package drift decides, as Karpenter v1 and its AWS provider do, whether a
// NodeClaim no longer matches its NodePool or EC2NodeClass and why, and when
// a NodeClaim expires or must finish draining. It computes the
// karpenter.sh/nodepool-hash and karpenter.k8s.aws/ec2nodeclass-hash values
// Karpenter stamps, bit for bit (Stamp puts them on a claim, Restamp models
// a hash-version upgrade), then runs Karpenter's drift checks in Karpenter's
// order and reports the first that fires, with what differed (Check).
//
// Stamp a claim when it is launched, then call Check with an Input (the
// claim, its NodePool and EC2NodeClass, the instance behind it) whenever
// they may have changed; Expiry and TerminationDeadline answer the time
// questions. Everything is pure: time is an argument, nothing is read from a
// cluster or a cloud, results depend only on the input, and no input is
// modified.
package drift
