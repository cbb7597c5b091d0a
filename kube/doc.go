// Package kube connects karpsim to a real Kubernetes cluster through
// client-go. Watcher is a cloud.ClusterWatcher built on shared informers
// (Pods, Nodes, PodDisruptionBudgets, DaemonSets, the volume objects,
// Services, PodTemplates, Deployments, ReplicaSets, StatefulSets, DRA's
// DeviceClasses, ResourceClaims, ResourceClaimTemplates and ResourceSlices, and through the
// dynamic client Karpenter's NodePools, NodeClaims, EC2NodeClasses and
// NodeOverlays and the CapacityBuffers; the optional kinds, absent from
// many clusters, are skipped when not served). Writer is a
// cloud.ClusterWriter that creates and updates NodeClaims, taints and
// cordons nodes, evicts pods through the Eviction API and deletes nodes,
// with server-side dry run on request.
//
// Start a Watcher to read a cluster (its Snapshot feeds snapshot.FromState,
// or simulator.Config.Cluster), and hand a Watcher and a Writer to
// controller.NewRunner to run Karpenter's loop against it;
// examples/kubecontroller does both. Package kube/kubeconfig reads a
// kubeconfig into the REST config these take.
//
// It is the only package of the module that links k8s.io/client-go: a
// program that imports the decision packages or the loop without kube
// carries no Kubernetes client.
package kube
