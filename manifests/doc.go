// Package manifests reads Kubernetes manifests (YAML or JSON files, as
// written by hand or printed by kubectl) into typed objects: Karpenter's
// NodePools, NodeClaims, EC2NodeClasses and NodeOverlays, kube-scheduler's
// KubeSchedulerConfiguration (for its default spread constraints), and the
// core kinds karpsim simulates (pods and their controllers, Services,
// PodDisruptionBudgets, nodes, volumes, storage classes).
//
// Karpenter objects are defaulted and validated the way the Kubernetes API
// server and Karpenter would (see package apis), and v1beta1 objects are
// converted to v1. Every problem in every object is reported, each naming
// its file, object and field, so that a manifest karpsim refuses is one
// Kubernetes would refuse too, for the same reason.
//
// It owns reading files into typed objects and errors that locate them in the
// files. It imports only apis, and no decision package imports it: the
// decisions take plain structs.
//
// The import rules between packages are checked by internal/layering.
package manifests
