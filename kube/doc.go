// Package kube connects karpsim to a real Kubernetes cluster through
// client-go: Watcher is a cloud.ClusterWatcher built on shared informers
// (Pods, Nodes, PodDisruptionBudgets, DaemonSets, the volume objects,
// Services, PodTemplates, Deployments, ReplicaSets, StatefulSets, DRA's
// DeviceClasses, ResourceClaims and ResourceClaimTemplates, and through the
// dynamic client Karpenter's NodePools, NodeClaims, EC2NodeClasses and
// NodeOverlays and the CapacityBuffers; the optional kinds, absent from
// many clusters, are skipped when not served), and Writer is a cloud.ClusterWriter that creates and updates
// NodeClaims, taints and cordons nodes, evicts pods through the Eviction
// API and deletes nodes, with server-side dry run on request.
//
// It is the only package of the module that links k8s.io/client-go, so
// that programs importing the decision packages (scheduling, consolidation,
// snapshot) or the loop (controller) do not carry a Kubernetes client
// unless they import kube; a test checks this with `go list -deps`.
//
// It owns the way between karpsim's seams and an API server. It imports
// apis and cloud; the decisions are made above it, by whoever drives the
// watcher and writer (controller.Runner, or karpsim's commands).
//
// The import rules between packages are checked by internal/layering.
package kube
