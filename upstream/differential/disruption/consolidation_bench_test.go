package disruption

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/controllers/state/informer"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	"sigs.k8s.io/karpenter/pkg/test"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/internal/clusterdump"
)

var benchNodes = flag.String("bench-nodes", "100,1000", "the cluster sizes BenchmarkKarpenterConsolidation runs, comma-separated (one a process is what the measurement in docs/development.md runs)")

// BenchmarkKarpenterConsolidation times one pass of Karpenter v1.15.0's
// disruption controller on the cluster karpsim's BenchmarkKarpenterShape
// (package consolidation of the main module) evaluates: the same YAML
// (clusterdump.ConsolidationCluster) over the same 15 types, loaded into
// the harness's envtest (real kube-apiserver and etcd, Karpenter's CRDs,
// fake cloud provider and clock). A pass is what the disruption
// controller's disrupt step does once cluster state is built: every
// method in order, each listing its candidates, building its budgets and
// computing its commands, until one has commands. Building cluster state
// from the API server (its informer controllers' reconciles) is left out
// of the time, as karpsim's reading of the YAML is on its side, and
// reported as state-s/op.
//
// Karpenter reads through an informer cache (see cached), as in a real
// cluster. Metrics: cpu-s/op is this process's CPU time in the pass
// (Karpenter's code, the cache and the test binary), server-cpu-s/op that
// of kube-apiserver and etcd meanwhile; deleted and replacements are the
// decision, to compare with karpsim's. Multi-node consolidation stops after a minute of wall time
// (MultiNodeConsolidationTimeoutDuration, a real clock, not the fake one)
// and returns what it had found: a pass near 60 s on a loaded machine may
// have been cut short.
func BenchmarkKarpenterConsolidation(b *testing.B) {
	bin, err := FindBinaries()
	if err != nil {
		b.Skipf("Karpenter's side of the benchmark needs a real API server: %v", err)
	}
	sizes, err := benchSizes()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			u, err := StartUpstream(bin)
			if err != nil {
				b.Fatal(err)
			}
			defer u.Stop()
			if err := loadConsolidationCluster(u, n); err != nil {
				b.Fatal(err)
			}
			u, stop, err := u.cached()
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			var cmds []Command
			var state, cpu, server time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				mark := time.Now()
				p, err := u.prepare()
				if err != nil {
					b.Fatal(err)
				}
				state += time.Since(mark)
				cpu0, server0 := cpuTime(), serverCPUTime()
				b.StartTimer()
				cmds, err = p.run()
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
				server += serverCPUTime() - server0
			}
			b.ReportMetric(state.Seconds()/float64(b.N), "state-s/op")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(server.Seconds()/float64(b.N), "server-cpu-s/op")
			reportDecision(b, cmds)
		})
	}
}

func benchSizes() ([]int, error) {
	var out []int
	for _, f := range strings.Split(*benchNodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-bench-nodes %q: %q is not a number of nodes", *benchNodes, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func reportDecision(b *testing.B, cmds []Command) {
	deleted, replacements := 0, 0
	for _, c := range cmds {
		deleted += len(c.Delete)
		replacements += len(c.Replacements)
	}
	b.ReportMetric(float64(len(cmds)), "commands")
	b.ReportMetric(float64(deleted), "deleted")
	b.ReportMetric(float64(replacements), "replacements")
	if len(cmds) > 0 {
		b.Logf("Karpenter: %d %s commands, %d nodes deleted, %d replacements", len(cmds), cmds[0].Method, deleted, replacements)
	} else {
		b.Logf("Karpenter: no command")
	}
}

// TestConsolidationBenchDecisions checks that both sides of the
// consolidation benchmark decide alike on its 100-node cluster (and on
// the sizes -bench-nodes gives with -consolidation-bench-all): the same
// method, as many commands, nodes deleted and replacements. Which nodes
// differ is logged, not failed: Karpenter orders candidates of equal
// disruption cost with sort.Slice, which is not stable. karpsim decides
// both on the YAML as written and on the objects read back from the API
// server, and the two must be the same.
func TestConsolidationBenchDecisions(t *testing.T) {
	bin, err := FindBinaries()
	if err != nil {
		t.Skipf("the comparison needs a real API server: %v", err)
	}
	sizes := []int{100}
	if *allSizes {
		if sizes, err = benchSizes(); err != nil {
			t.Fatal(err)
		}
	}
	catalog, err := instancetypes.ReadJSON(bytes.NewReader(clusterdump.ConsolidationCatalog()), "consolidation-catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	u, err := StartUpstream(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	for _, n := range sizes {
		var buf bytes.Buffer
		if err := clusterdump.ConsolidationCluster(&buf, n); err != nil {
			t.Fatal(err)
		}
		mine, err := Karpsim(buf.Bytes(), catalog, clusterdump.ConsolidationNow)
		if err != nil {
			t.Fatalf("nodes=%d: karpsim on the YAML: %v", n, err)
		}
		if err := loadConsolidationCluster(u, n); err != nil {
			t.Fatal(err)
		}
		dump, err := u.Dump()
		if err != nil {
			t.Fatal(err)
		}
		fromServer, err := Karpsim(dump, catalog, clusterdump.ConsolidationNow)
		if err != nil {
			t.Fatalf("nodes=%d: karpsim on the API server's objects: %v", n, err)
		}
		if Outcome(mine) != Outcome(fromServer) {
			t.Errorf("nodes=%d: karpsim decides otherwise on the API server's objects:\n%s\nthan on the YAML:\n%s", n, Outcome(fromServer), Outcome(mine))
		}
		cu, stop, err := u.cached()
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := cu.Decide()
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if len(mine) == 0 || len(theirs) == 0 {
			t.Fatalf("nodes=%d: the cluster is built for consolidation to act on; karpsim: %s; Karpenter: %s", n, Outcome(mine), Outcome(theirs))
		}
		if a, b := shape(mine), shape(theirs); a != b {
			t.Errorf("nodes=%d: karpsim decides %s, Karpenter %s", n, a, b)
		}
		same := 0
		kDeleted := map[string]bool{}
		for _, c := range theirs {
			for _, name := range c.Delete {
				kDeleted[name] = true
			}
		}
		for _, c := range mine {
			for _, name := range c.Delete {
				if kDeleted[name] {
					same++
				}
			}
		}
		t.Logf("nodes=%d: karpsim %s, Karpenter %s; %d of Karpenter's %d deleted nodes are karpsim's too", n, shape(mine), shape(theirs), same, len(kDeleted))
	}
}

var allSizes = flag.Bool("consolidation-bench-all", false, "TestConsolidationBenchDecisions compares every size of -bench-nodes, not only 100 nodes")

// shape is what both sides must agree on: the method and how many
// commands, deleted nodes and replacements.
func shape(cmds []Command) string {
	deleted, replacements := 0, 0
	for _, c := range cmds {
		deleted += len(c.Delete)
		replacements += len(c.Replacements)
	}
	method := "none"
	if len(cmds) > 0 {
		method = cmds[0].Method
	}
	return fmt.Sprintf("%s: %d commands deleting %d nodes with %d replacements", method, len(cmds), deleted, replacements)
}

// The catalog karpsim's side reads is the harness's, which Karpenter's
// fake cloud provider offers: the benchmark's two sides price and size
// every type alike.
func TestConsolidationBenchCatalog(t *testing.T) {
	theirs, err := karpsimCatalogJSON()
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(clusterdump.ConsolidationCatalog(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(theirs, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("clusterdump.ConsolidationCatalog differs from the harness's catalog:\n%s\n%s", clusterdump.ConsolidationCatalog(), theirs)
	}
}

// loadConsolidationCluster loads the benchmark's cluster of n nodes into
// the API server, as Load loads a generated one, with the clock at
// clusterdump.ConsolidationNow.
func loadConsolidationCluster(u *Upstream, n int) error {
	var buf bytes.Buffer
	if err := clusterdump.ConsolidationCluster(&buf, n); err != nil {
		return err
	}
	c, err := readCluster(buf.Bytes())
	if err != nil {
		return fmt.Errorf("the consolidation benchmark's cluster of %d nodes: %w", n, err)
	}
	if err := u.Load(c, clusterdump.ConsolidationNow); err != nil {
		return err
	}
	// The API server's TaintNodesByCondition admission taints every new
	// Node node.kubernetes.io/not-ready:NoSchedule, which no kubelet lifts
	// here: the nodes get back the taints they were written with (none),
	// so that pods may move onto them, as onto the Ready nodes of a real
	// cluster.
	var jobs []func() error
	for _, want := range c.Nodes {
		jobs = append(jobs, func() error {
			n := &corev1.Node{}
			if err := u.client.Get(u.ctx, client.ObjectKeyFromObject(want), n); err != nil {
				return err
			}
			n.Spec.Taints = want.Spec.Taints
			if err := u.client.Update(u.ctx, n); err != nil {
				return fmt.Errorf("the taints of Node %s: %w", n.Name, err)
			}
			return nil
		})
	}
	return parallel(8, jobs)
}

// readCluster reads a YAML stream of NodePools, NodeClaims, Nodes, Pods
// and PDBs into a Cluster, strictly: a field Karpenter's or Kubernetes'
// types do not have is an error. EC2NodeClasses are checked and left out:
// the harness creates its own.
func readCluster(data []byte) (*Cluster, error) {
	c := &Cluster{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(raw, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		switch tm.Kind {
		case "EC2NodeClass":
			err = yaml.UnmarshalStrict(raw, &awsv1.EC2NodeClass{})
		case "NodePool":
			err = appendStrict(raw, &c.NodePools)
		case "NodeClaim":
			err = appendStrict(raw, &c.NodeClaims)
		case "Node":
			err = appendStrict(raw, &c.Nodes)
		case "Pod":
			err = appendStrict(raw, &c.Pods)
		case "PodDisruptionBudget":
			err = appendStrict(raw, &c.PDBs)
		default:
			err = fmt.Errorf("kind %q is not one the benchmark loads", tm.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", doc, tm.Kind, err)
		}
	}
}

func appendStrict[T any](raw []byte, to *[]*T) error {
	obj := new(T)
	if err := yaml.UnmarshalStrict(raw, obj); err != nil {
		return err
	}
	*to = append(*to, obj)
	return nil
}

// cached is u with a client that reads from an informer cache indexed as
// Karpenter's test environment indexes it when asked to (pods by
// spec.nodeName, nodes and claims by provider ID, claims and pools by
// node class), as the operator's manager reads in a real cluster. The
// disruption suite reads through a direct client, which lists each
// candidate's pods from the API server, every pod of the cluster each
// time: on 1,000 nodes one pass had not ended after 19 minutes here. Stop
// it when done.
func (u *Upstream) cached() (*Upstream, func(), error) {
	ctx, cancel := context.WithCancel(u.ctx)
	c, err := cache.New(u.env.Config, cache.Options{Scheme: scheme.Scheme})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	indexers := []func(cache.Cache) error{
		test.NodeProviderIDFieldIndexer(ctx), test.NodeClaimProviderIDFieldIndexer(ctx),
		test.NodeClaimNodeClassRefFieldIndexer(ctx), test.NodePoolNodeClassRefFieldIndexer(ctx),
		test.VolumeAttachmentFieldIndexer(ctx),
		func(c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
				return []string{o.(*corev1.Pod).Spec.NodeName}
			})
		},
	}
	for _, index := range indexers {
		if err := index(c); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	cl, err := client.New(u.env.Config, client.Options{Scheme: scheme.Scheme, Cache: &client.CacheOptions{Reader: c}})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		cancel()
		return nil, nil, errors.New("the informer cache did not sync")
	}
	// The informers start with the first read of each kind: read them all
	// now, so that no pass waits for a list.
	for _, l := range []client.ObjectList{&corev1.PodList{}, &corev1.NodeList{}, &karpv1.NodeClaimList{}, &karpv1.NodePoolList{}} {
		if err := cl.List(ctx, l); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	cu := *u
	cu.client = cl
	cu.ctx = ctx
	return &cu, cancel, nil
}

// upstreamPass is Karpenter's disruption pass with its cluster state built:
// what the controller has at hand when its disrupt step starts.
type upstreamPass struct {
	u           *Upstream
	clusterCost *cost.ClusterCost
	cluster     *state.Cluster
	recorder    *test.EventRecorder
	queue       *disruption.Queue
	methods     []disruption.Method
}

// prepare builds cluster state from the API server as decide does: the
// pricing controller, the NodeClaim and Node informer controllers over
// every object, a provisioner, the queue and the methods in
// disruption.NewMethods' order with the suite's no-op validators.
func (u *Upstream) prepare() (*upstreamPass, error) {
	ctx := u.ctx
	clusterCost := cost.NewClusterCost(ctx, u.cloud, u.client)
	pricing := informer.NewPricingController(u.client, u.cloud, clusterCost)
	if _, err := pricing.Reconcile(ctx); err != nil {
		return nil, fmt.Errorf("pricing controller: %w", err)
	}
	cluster := state.NewCluster(u.clock, u.client, u.cloud)
	nodes := informer.NewNodeController(u.client, cluster)
	claims := informer.NewNodeClaimController(u.client, u.cloud, cluster, clusterCost)
	if err := reconcileAll(ctx, u.client, &karpv1.NodeClaimList{}, claims); err != nil {
		return nil, err
	}
	if err := reconcileAll(ctx, u.client, &corev1.NodeList{}, nodes); err != nil {
		return nil, err
	}
	recorder := test.NewEventRecorder()
	prov := provisioning.NewProvisioner(u.client, recorder, u.cloud, cluster, u.clock, deviceallocation.NewController(u.client), virtualpods.NewVirtualPodCache(u.client))
	queue := disruption.NewQueue(u.client, recorder, cluster, u.clock, prov)
	cluster.MarkUnconsolidated()
	c := disruption.MakeConsolidation(u.clock, cluster, u.client, prov, u.cloud, recorder, queue)
	return &upstreamPass{u: u, clusterCost: clusterCost, cluster: cluster, recorder: recorder, queue: queue, methods: []disruption.Method{
		disruption.NewEmptiness(c, disruption.WithValidator(nopValidator{})),
		disruption.NewStaticDrift(cluster, prov, u.cloud, recorder),
		disruption.NewDrift(u.client, cluster, prov, recorder, u.clock),
		disruption.NewMultiNodeConsolidation(c, disruption.WithValidator(nopValidator{})),
		disruption.NewSingleNodeConsolidation(c, disruption.WithValidator(nopValidator{})),
	}}, nil
}

// run is the pass: the methods in order until one has commands, as
// decide runs them. Nothing is executed.
func (p *upstreamPass) run() ([]Command, error) {
	ctx, u := p.u.ctx, p.u
	for _, m := range p.methods {
		candidates, totals, err := disruption.GetCandidatesWithTotals(ctx, p.cluster, u.client, p.recorder, u.clock, u.cloud, m.ShouldDisrupt, m.Class(), p.queue, p.clusterCost)
		if err != nil {
			return nil, fmt.Errorf("%s: candidates: %w", methodName(m), err)
		}
		if len(candidates) == 0 {
			continue
		}
		if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := disruption.BuildDisruptionBudgetMapping(ctx, p.cluster, u.clock, u.client, u.cloud, p.recorder, m.Reason())
		if err != nil {
			return nil, fmt.Errorf("%s: budgets: %w", methodName(m), err)
		}
		cmds, err := m.ComputeCommands(ctx, budgets, candidates...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", methodName(m), err)
		}
		var out []Command
		for _, cmd := range cmds {
			if cmd.Decision() != disruption.NoOpDecision {
				out = append(out, upstreamCommand(methodName(m), cmd))
			}
		}
		if len(out) > 0 {
			return sortCommands(out), nil
		}
	}
	return nil, nil
}

// cpuTime is this process's user and system CPU time.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// serverCPUTime is the CPU time of this process's children (kube-apiserver
// and etcd, which envtest starts), read from /proc while they run: Linux
// counts a child's time in the parent's rusage only once it has exited.
// Ticks are taken as USER_HZ = 100, Linux's on every architecture Go
// supports.
func serverCPUTime() time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	var ticks int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces: the fields after it start at its last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		// fields[0] is the state (field 3), fields[1] the parent (4),
		// fields[11] and [12] utime and stime (14 and 15).
		if len(fields) < 13 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid != self {
			continue
		}
		for _, f := range fields[11:13] {
			t, _ := strconv.ParseInt(f, 10, 64)
			ticks += t
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
