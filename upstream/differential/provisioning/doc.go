// Package provisioning runs Karpenter's own scheduler (sigs.k8s.io/karpenter
// v1.15.0) and karpsim on the same random clusters (package clustergen) and
// compares their provisioning decisions.
//
// Karpenter's side is driven as its provisioning controller drives it:
// Provisioner.Schedule over a controller-runtime fake client holding the
// cluster's objects (with the spec.nodeName pod index Karpenter's operator
// registers), a state.Cluster fed the nodes, NodeClaims and bound pods as
// its informers would, and Karpenter's fake cloud provider selling the
// cluster's catalog as cloudprovider.InstanceTypes and claiming the AWS
// provider's EC2NodeClass, with the options of Karpenter's test suite
// (test.Options: MinValuesPolicy Strict, preferences respected, DRA requests
// ignored, ReservedCapacity on).
//
// karpsim's side goes through the door users use: the same objects
// serialized to one YAML stream, read by manifests.LoadReader, turned into a
// snapshot by snapshot.FromSet with the catalog read from its JSON form (as
// `karpsim plan -f - --catalog FILE` does), and solved by scheduling.Solve.
//
// A Decision is what is compared: the number of new NodeClaims, the
// instance type each would launch by NodePool, the pods left unschedulable,
// and the cost of the new NodeClaims. The type and cost of a claim are those
// of the cheapest available offering among its instance-type options that
// its requirements allow, computed by one function for both sides (Karpenter
// leaves the launch to the cloud provider; karpsim's own launch choice also
// models the AWS provider's CreateFleet filters, which are not compared
// here).
//
// Karpenter is not deterministic: it breaks ties between topology domains
// in map order. (Its sort.Slice of the new claims before each pod is
// pdqsort, unstable above 12 elements but deterministic, and karpsim follows
// its order.) So each seed runs Karpenter three times, and again, up to
// twelve times in all, while karpsim's Decision is not among theirs;
// karpsim agrees when its Decision equals one of them.
package provisioning
