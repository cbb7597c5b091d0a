// Package manifests reads Kubernetes manifests (YAML or JSON files, as
// written by hand or printed by kubectl) into typed objects: Karpenter's
// NodePools, NodeClaims, EC2NodeClasses and NodeOverlays, kube-scheduler's
// KubeSchedulerConfiguration (for its default spread constraints), and the
// core kinds karpsim simulates (pods and their controllers, Services,
// PodDisruptionBudgets, nodes, volumes, storage classes).
//
// Load reads files and folders, LoadReader a stream (such as `kubectl get
// -o yaml` on standard input), Decode bytes already in memory; each returns
// a Set, which package snapshot turns into decision inputs. LoadLimited
// bounds what is read (Limits) for input that is not trusted.
//
// Karpenter objects are defaulted and validated the way the Kubernetes API
// server and Karpenter would (see package apis), and v1beta1 objects are
// converted to v1. Every problem in every object is reported, each naming
// its file, object and field, so that a manifest karpsim refuses is one
// Kubernetes would refuse too, for the same reason.
package manifests
