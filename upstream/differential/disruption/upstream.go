package disruption

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/awslabs/operatorpkg/option"
	"github.com/awslabs/operatorpkg/status"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/controllers/state/informer"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	"sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpsim/karpsim/upstream/crds"
)

// Binaries are the paths of the API server and etcd the harness starts.
type Binaries struct {
	APIServer, Etcd string
}

// FindBinaries looks for kube-apiserver in ~/.cache/karpsim (as
// .ci/build-kube-apiserver leaves it) and etcd on the PATH. The error says
// how to get what is missing.
func FindBinaries() (Binaries, error) {
	var b Binaries
	home, _ := os.UserHomeDir()
	matches, _ := filepath.Glob(filepath.Join(home, ".cache", "karpsim", "kube-apiserver-v*"))
	if len(matches) == 0 {
		return b, errors.New("no kube-apiserver in ~/.cache/karpsim: build it with .ci/build-kube-apiserver")
	}
	slices.Sort(matches)
	b.APIServer = matches[len(matches)-1]
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return b, errors.New("no etcd on the PATH: apt-get install -y --no-install-recommends etcd-server")
	}
	b.Etcd = etcd
	return b, nil
}

// Upstream is Karpenter v1.15.0's disruption controller in its own test
// environment: envtest over a real kube-apiserver and etcd with
// Karpenter's CRDs, its fake cloud provider offering the harness's
// catalog, a fake clock, cluster state and a provisioner, wired as the
// disruption suite's BeforeSuite and BeforeEach wire them.
type Upstream struct {
	env    *envtest.Environment
	assets string
	client client.Client
	clock  *clocktesting.FakeClock
	cloud  *cloudProvider
	ctx    context.Context
	// Repair, when set, turns on node repair (the NodeRepair gate) with
	// these provider policies: the Repair method runs first.
	Repair []cloudprovider.RepairPolicy
}

// cloudProvider is Karpenter's fake cloud provider, managing NodePools and
// NodeClaims that name an EC2NodeClass (the fake one manages its
// TestNodeClass only), so that both sides read the same objects.
type cloudProvider struct {
	*fake.CloudProvider
}

func (cloudProvider) GetSupportedNodeClasses() []status.Object {
	return []status.Object{&awsv1.EC2NodeClass{}}
}

// StartUpstream starts the API server and etcd and installs Karpenter's
// CRDs. Stop it when done.
func StartUpstream(bin Binaries) (*Upstream, error) {
	log.SetLogger(logr.Discard())
	assets, err := os.MkdirTemp("", "karpsim-differential-")
	if err != nil {
		return nil, err
	}
	for name, target := range map[string]string{"kube-apiserver": bin.APIServer, "etcd": bin.Etcd} {
		if err := os.Symlink(target, filepath.Join(assets, name)); err != nil {
			os.RemoveAll(assets)
			return nil, err
		}
	}
	env := &envtest.Environment{Scheme: scheme.Scheme, CRDs: crds.All(), BinaryAssetsDirectory: assets, ErrorIfCRDPathMissing: false}
	cfg, err := env.Start()
	if err != nil {
		os.RemoveAll(assets)
		return nil, fmt.Errorf("starting kube-apiserver and etcd with envtest: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		_ = env.Stop()
		os.RemoveAll(assets)
		return nil, err
	}
	ctx := options.ToContext(context.Background(), test.Options())
	u := &Upstream{env: env, assets: assets, client: c, ctx: ctx, clock: clocktesting.NewFakeClock(time.Now())}
	u.cloud = &cloudProvider{CloudProvider: fake.NewCloudProvider()}
	if err := c.Create(ctx, nodeClass()); err != nil {
		u.Stop()
		return nil, fmt.Errorf("creating the EC2NodeClass: %w", err)
	}
	return u, nil
}

// Stop stops the API server and etcd and removes the temporary files.
func (u *Upstream) Stop() {
	_ = u.env.Stop()
	os.RemoveAll(u.assets)
}

// Load replaces the API server's NodePools, NodeClaims, Nodes, Pods and
// PDBs by the cluster's, writes their status, sets the clock to now and
// runs Karpenter's NodeClaim disruption controller over every NodeClaim,
// which sets the Consolidatable and Drifted conditions the disruption
// methods read.
func (u *Upstream) Load(c *Cluster, now time.Time) error {
	if err := u.clear(); err != nil {
		return err
	}
	u.clock.SetTime(now)
	u.cloud.Reset()
	u.cloud.InstanceTypes = karpenterInstanceTypes()
	for _, np := range c.NodePools {
		np = np.DeepCopy()
		if err := u.client.Create(u.ctx, np); err != nil {
			return fmt.Errorf("creating NodePool %s: %w", np.Name, err)
		}
		np.StatusConditions().SetTrue(status.ConditionReady)
		if err := u.client.Status().Update(u.ctx, np); err != nil {
			return fmt.Errorf("NodePool %s status: %w", np.Name, err)
		}
	}
	for _, pdb := range c.PDBs {
		if err := createWithStatus(u.ctx, u.client, pdb.DeepCopy(), func(o *policyv1.PodDisruptionBudget) {
			o.Status = pdb.Status
			o.Status.ObservedGeneration = o.Generation
		}); err != nil {
			return err
		}
	}
	// Claims, nodes and pods are created a few at a time: the API server
	// answers concurrent requests, and loading is most of a seed's time.
	var jobs []func() error
	for _, nc := range c.NodeClaims {
		jobs = append(jobs, func() error {
			return createWithStatus(u.ctx, u.client, nc.DeepCopy(), func(o *karpv1.NodeClaim) { o.Status = nc.Status })
		})
	}
	for _, n := range c.Nodes {
		jobs = append(jobs, func() error {
			return createWithStatus(u.ctx, u.client, n.DeepCopy(), func(o *corev1.Node) { o.Status = n.Status })
		})
	}
	for _, p := range c.Pods {
		jobs = append(jobs, func() error {
			return createWithStatus(u.ctx, u.client, p.DeepCopy(), func(o *corev1.Pod) { o.Status = p.Status })
		})
	}
	if err := parallel(8, jobs); err != nil {
		return err
	}
	ncd := nodeclaimdisruption.NewController(u.clock, u.client, u.cloud)
	for _, nc := range c.NodeClaims {
		obj := &karpv1.NodeClaim{}
		if err := u.client.Get(u.ctx, client.ObjectKeyFromObject(nc), obj); err != nil {
			return err
		}
		if _, err := ncd.Reconcile(u.ctx, obj); err != nil {
			return fmt.Errorf("NodeClaim disruption controller on %s: %w", nc.Name, err)
		}
	}
	return nil
}

// parallel runs the jobs on n goroutines and returns the first error.
func parallel(n int, jobs []func() error) error {
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := range next {
				errs[i] = jobs[i]()
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

func createWithStatus[T client.Object](ctx context.Context, c client.Client, obj T, setStatus func(T)) error {
	if err := c.Create(ctx, obj); err != nil {
		return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
	}
	setStatus(obj)
	if err := c.Status().Update(ctx, obj); err != nil {
		return fmt.Errorf("status of %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}

// clear deletes what Load created (the EC2NodeClass stays).
func (u *Upstream) clear() error {
	zero := int64(0)
	for _, obj := range []client.Object{&corev1.Pod{}, &policyv1.PodDisruptionBudget{}} {
		if err := u.client.DeleteAllOf(u.ctx, obj, client.InNamespace(Namespace), client.GracePeriodSeconds(zero)); err != nil {
			return fmt.Errorf("clearing %T: %w", obj, err)
		}
	}
	for _, obj := range []client.Object{&corev1.Node{}, &karpv1.NodeClaim{}, &karpv1.NodePool{}} {
		if err := u.client.DeleteAllOf(u.ctx, obj); err != nil {
			return fmt.Errorf("clearing %T: %w", obj, err)
		}
	}
	return nil
}

// Decide runs Karpenter's disruption methods once over what Load put in
// the API server, from fresh cluster state, as the disruption controller's
// Reconcile does (disruption.Controller.disrupt), with the suite's
// no-op validators in place of the consolidation wait, and returns the
// commands of the first method that has any. Nothing is executed.
func (u *Upstream) Decide() ([]Command, error) {
	cmds, _, err := u.decide()
	return cmds, err
}

// Explain is Decide with the events Karpenter published while deciding
// (why each node is not disrupted), one a line.
func (u *Upstream) Explain() ([]Command, []string, error) {
	return u.decide()
}

func (u *Upstream) decide() ([]Command, []string, error) {
	ctx := u.ctx
	var clusterOpts []option.Function[state.ClusterOptions]
	if u.Repair != nil {
		// As the operator and the disruption suite build it: one matcher,
		// compiled from the provider's policies, shared by cluster state.
		on := true
		ctx = options.ToContext(ctx, test.Options(test.OptionsFields{FeatureGates: test.FeatureGates{NodeRepair: &on}}))
		u.cloud.RepairPolicy = u.Repair
		matcher, err := health.NewRepairPolicyMatcher(ctx, u.cloud)
		if err != nil {
			return nil, nil, fmt.Errorf("repair policies: %w", err)
		}
		clusterOpts = append(clusterOpts, state.WithRepairPolicyMatcher(matcher))
	}
	clusterCost := cost.NewClusterCost(ctx, u.cloud, u.client)
	pricing := informer.NewPricingController(u.client, u.cloud, clusterCost)
	if _, err := pricing.Reconcile(ctx); err != nil {
		return nil, nil, fmt.Errorf("pricing controller: %w", err)
	}
	cluster := state.NewCluster(u.clock, u.client, u.cloud, clusterOpts...)
	nodes := informer.NewNodeController(u.client, cluster)
	claims := informer.NewNodeClaimController(u.client, u.cloud, cluster, clusterCost)
	if err := reconcileAll(ctx, u.client, &karpv1.NodeClaimList{}, claims); err != nil {
		return nil, nil, err
	}
	if err := reconcileAll(ctx, u.client, &corev1.NodeList{}, nodes); err != nil {
		return nil, nil, err
	}
	recorder := test.NewEventRecorder()
	prov := provisioning.NewProvisioner(u.client, recorder, u.cloud, cluster, u.clock, deviceallocation.NewController(u.client), virtualpods.NewVirtualPodCache(u.client))
	queue := disruption.NewQueue(u.client, recorder, cluster, u.clock, prov)
	cluster.MarkUnconsolidated()
	c := disruption.MakeConsolidation(u.clock, cluster, u.client, prov, u.cloud, recorder, queue)
	// The order of disruption.NewMethods at v1.15.0, Repair first when
	// NodeRepair is on.
	var methods []disruption.Method
	if u.Repair != nil {
		methods = append(methods, disruption.NewRepair(c))
	}
	methods = append(methods, []disruption.Method{
		disruption.NewEmptiness(c, disruption.WithValidator(nopValidator{})),
		disruption.NewStaticDrift(cluster, prov, u.cloud, recorder),
		disruption.NewDrift(u.client, cluster, prov, recorder, u.clock),
		disruption.NewMultiNodeConsolidation(c, disruption.WithValidator(nopValidator{})),
		disruption.NewSingleNodeConsolidation(c, disruption.WithValidator(nopValidator{})),
	}...)
	for _, m := range methods {
		candidates, totals, err := disruption.GetCandidatesWithTotals(ctx, cluster, u.client, recorder, u.clock, u.cloud, m.ShouldDisrupt, m.Class(), queue, clusterCost)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: candidates: %w", methodName(m), err)
		}
		if len(candidates) == 0 {
			continue
		}
		if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := disruption.BuildDisruptionBudgetMapping(ctx, cluster, u.clock, u.client, u.cloud, recorder, m.Reason())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: budgets: %w", methodName(m), err)
		}
		cmds, err := m.ComputeCommands(ctx, budgets, candidates...)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", methodName(m), err)
		}
		var out []Command
		for _, cmd := range cmds {
			if cmd.Decision() == disruption.NoOpDecision {
				continue
			}
			out = append(out, upstreamCommand(methodName(m), cmd))
		}
		if len(out) > 0 {
			return sortCommands(out), eventLines(recorder), nil
		}
	}
	return nil, eventLines(recorder), nil
}

type listReconciler interface {
	Reconcile(context.Context, reconcile.Request) (reconcile.Result, error)
}

func reconcileAll(ctx context.Context, c client.Client, list client.ObjectList, r listReconciler) error {
	if err := c.List(ctx, list); err != nil {
		return err
	}
	var names []string
	switch l := list.(type) {
	case *karpv1.NodeClaimList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	case *corev1.NodeList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	}
	for _, name := range names {
		if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
			return fmt.Errorf("state of %s: %w", name, err)
		}
	}
	return nil
}

type nopValidator struct{}

func (nopValidator) Validate(_ context.Context, cmd disruption.Command, _ time.Duration) (disruption.Command, error) {
	return cmd, nil
}

// methodName is karpsim's name of a Karpenter disruption method.
func methodName(m disruption.Method) string {
	switch m.(type) {
	case *disruption.Emptiness:
		return "emptiness"
	case *disruption.StaticDrift:
		return "static-drift"
	case *disruption.Drift:
		return "drift"
	case *disruption.MultiNodeConsolidation:
		return "multi-node-consolidation"
	case *disruption.SingleNodeConsolidation:
		return "single-node-consolidation"
	case *disruption.Repair:
		return "repair"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*disruption.")
}

func upstreamCommand(method string, cmd disruption.Command) Command {
	out := Command{Method: method}
	for _, c := range cmd.Candidates {
		out.Delete = append(out.Delete, c.Name())
	}
	for _, r := range cmd.Replacements {
		var types []string
		for _, it := range r.InstanceTypeOptions {
			types = append(types, it.Name)
		}
		out.Replacements = append(out.Replacements, replacement(r.NodePoolName, types))
	}
	return out.normalize()
}

func eventLines(r *test.EventRecorder) []string {
	var out []string
	for _, e := range r.Events() {
		name := ""
		if o, ok := e.InvolvedObject.(client.Object); ok {
			name = o.GetName()
		}
		out = append(out, fmt.Sprintf("%s %s: %s", name, e.Reason, e.Message))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
