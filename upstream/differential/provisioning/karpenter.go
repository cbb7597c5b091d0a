package provisioning

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	cpfake "sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	kprov "sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	karptest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpsim/karpsim/upstream/differential/clustergen"
)

// apiClient is the fake client with the API server's handling of keys:
// Karpenter gets some cluster-scoped objects (PersistentVolumes) with the
// pod's namespace in the key, which a real API server ignores and the fake
// client does not.
type apiClient struct{ client.Client }

func (c apiClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch obj.(type) {
	case *corev1.PersistentVolume, *corev1.Node, *storagev1.StorageClass, *storagev1.CSINode, *karpv1.NodePool, *karpv1.NodeClaim, *awsv1.EC2NodeClass:
		key.Namespace = ""
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// awsCloud is Karpenter's fake cloud provider claiming the AWS provider's
// EC2NodeClass, so that the NodePools of a cluster (which reference
// EC2NodeClasses, as karpsim requires) are managed.
type awsCloud struct{ *cpfake.CloudProvider }

func (awsCloud) GetSupportedNodeClasses() []status.Object {
	return []status.Object{&awsv1.EC2NodeClass{}}
}

var reservationLabels sync.Once

// Now is the time both sides decide at.
var Now = time.Unix(1_700_001_000, 0).UTC()

// RunKarpenter runs Karpenter's Provisioner.Schedule once on the cluster
// and returns its decision.
func RunKarpenter(c *clustergen.Cluster) (Decision, error) {
	// The fake cloud provider's package names its own reservation label;
	// the offerings here are the AWS provider's, as its apis package sets.
	reservationLabels.Do(func() {
		cloudprovider.ReservationIDLabel = awsv1.LabelCapacityReservationID
		cloudprovider.ReservedCapacityLabels.Delete(cloudprovider.ReservedCapacityLabels.UnsortedList()...)
		cloudprovider.ReservedCapacityLabels.Insert(awsv1.LabelCapacityReservationID, awsv1.LabelCapacityReservationType)
	})
	var logged []string
	var mu sync.Mutex
	ctx := log.IntoContext(context.Background(), funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, "log: "+prefix+" "+args)
	}, funcr.Options{Verbosity: 1}))
	ctx = options.ToContext(ctx, karptest.Options())
	types := karpenterTypes(c.Types)
	cp := cpfake.NewCloudProvider()
	cp.InstanceTypes = types
	cloud := awsCloud{cp}

	var objs []client.Object
	for _, o := range c.Objects() {
		objs = append(objs, o.DeepCopyObject().(client.Object))
	}
	var kube client.Client = fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&karpv1.NodeClaim{}, "status.providerID", func(o client.Object) []string {
			return []string{o.(*karpv1.NodeClaim).Status.ProviderID}
		}).
		Build()
	kube = apiClient{kube}
	clk := clocktesting.NewFakeClock(Now)
	cluster := state.NewCluster(clk, kube, cloud)
	for _, nc := range c.NodeClaims {
		cluster.UpdateNodeClaim(nc.DeepCopy())
	}
	for _, n := range c.Nodes {
		if err := cluster.UpdateNode(ctx, n.DeepCopy()); err != nil {
			return Decision{}, fmt.Errorf("cluster state: node %s: %w", n.Name, err)
		}
	}
	for _, p := range c.Bound {
		if err := cluster.UpdatePod(ctx, p.DeepCopy()); err != nil {
			return Decision{}, fmt.Errorf("cluster state: pod %s: %w", p.Name, err)
		}
	}
	prov := kprov.NewProvisioner(kube, events.NewRecorder(&record.FakeRecorder{}), cloud, cluster, clk,
		deviceallocation.NewController(kube), virtualpods.NewVirtualPodCache(kube))
	results, err := prov.Schedule(ctx)
	if err != nil {
		return Decision{}, fmt.Errorf("Provisioner.Schedule: %w", err)
	}
	d := Decision{Pending: len(c.Pending)}
	placed := map[string]bool{}
	for _, nc := range results.NewNodeClaims {
		name, price := cheapest(nc.InstanceTypeOptions, nc.Requirements)
		var pods []string
		for _, p := range nc.Pods {
			placed[p.Namespace+"/"+p.Name] = true
			pods = append(pods, p.Name)
		}
		d.addClaim(nc.NodePoolName, name, price, zonesOf(nc.Requirements), len(nc.InstanceTypeOptions), pods)
	}
	for _, n := range results.ExistingNodes {
		for _, p := range n.Pods {
			placed[p.Namespace+"/"+p.Name] = true
			d.OnExisting++
		}
	}
	for _, p := range c.Pending {
		if key := p.Namespace + "/" + p.Name; !placed[key] {
			d.Unschedulable = append(d.Unschedulable, key)
		}
	}
	for p, err := range results.PodErrors {
		d.errors = append(d.errors, p.Namespace+"/"+p.Name+": "+err.Error())
	}
	d.errors = append(d.errors, logged...)
	d.finish()
	return d, nil
}
