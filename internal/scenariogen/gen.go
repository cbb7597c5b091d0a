// Package scenariogen generates random, seeded scenarios for karpsim's
// invariant tests: several NodePools with weights, limits, taints,
// budgets, minValues and expiry; Deployments whose pods carry every kind
// of constraint, with PDBs and do-not-disrupt; DaemonSets; existing nodes
// with pods; and steps that scale workloads, interrupt spot nodes, release
// AMIs (drift) and make offerings fail (insufficient capacity). Check runs
// one through a plan, a disruption evaluation and a simulation with every
// invariant checked; Shrink reduces a failing case to a small one, whose
// scenario YAML is the reproducer.
//
// It imports simulator and the packages below; it is test tooling, used by
// its own tests, and nothing imports it.
package scenariogen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/simulator"
)

// Case is one generated scenario in a form that can be shrunk: each part
// can be dropped or made smaller and the scenario rendered again.
type Case struct {
	Seed        uint64
	Duration    time.Duration
	Pools       []Pool
	Deployments []Deployment
	DaemonSets  []DaemonSet
	Nodes       []Node
	Steps       []Step
	// ICE makes one offering always fail with insufficient capacity;
	// FailureRate makes any launch fail at that rate.
	ICE         *simulator.CapacityLimit
	FailureRate float64
}

// Pool is a NodePool.
type Pool struct {
	Name             string
	Weight           int // 0: none
	Families         []string
	CapacityTypes    []string
	Zones            []string // empty: any
	CPULimit         int      // 0: none
	Taint            bool     // dedicated=<name>:NoSchedule
	Budget           string   // "": the default
	BudgetReason     string   // "": every reason
	WhenEmpty        bool
	ConsolidateAfter string
	MinFamilies      int // minValues on the instance-family requirement
	ExpireAfter      string
}

// Deployment is a workload; its pods' constraints are named by Kinds.
type Deployment struct {
	Name     string
	Replicas int
	CPU      string
	Memory   string
	Kinds    []string
	// Target names what a constraint refers to: a pool (selector,
	// toleration) or another Deployment (affinity).
	Target string
	PDB    string // "", "maxUnavailable: 1", "minAvailable: 50%"
}

// DaemonSet is a DaemonSet; Everywhere tolerates every taint.
type DaemonSet struct {
	Name       string
	CPU        string
	Everywhere bool
}

// Node is an existing node of a pool with some pods bound to it.
type Node struct {
	Name, Pool, InstanceType, Zone, CapacityType string
	Pods                                         int
}

// Step is a scenario step: scale, interrupt or releaseAMI.
type Step struct {
	At         time.Duration
	Deployment string // scale
	Replicas   int
	Interrupt  bool
	ReleaseAMI bool
}

// The constraint kinds a Deployment's pods may carry.
const (
	KindSelectPool   = "select-pool"
	KindOnDemand     = "on-demand"
	KindNodeAffinity = "node-affinity"
	KindTolerate     = "tolerate"
	KindZoneSpread   = "zone-spread"
	KindHostSpread   = "hostname-spread"
	KindSoftSpread   = "soft-spread"
	KindAntiAffinity = "hostname-anti-affinity"
	KindZoneAffinity = "zone-self-affinity"
	KindAffinityTo   = "zone-affinity-to-target"
	KindPreferred    = "preferred"
	KindDoNotDisrupt = "do-not-disrupt"
)

var (
	kinds = []string{KindSelectPool, KindOnDemand, KindNodeAffinity, KindTolerate, KindZoneSpread, KindHostSpread,
		KindSoftSpread, KindAntiAffinity, KindZoneAffinity, KindAffinityTo, KindPreferred, KindDoNotDisrupt}
	families = []string{"c6a", "m6a", "r6a", "c7g", "m7g", "t3"}
	sizes    = []string{"large", "xlarge", "2xlarge"}
	zones    = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	cpus     = []string{"100m", "250m", "500m", "1", "1500m", "3"}
	memories = []string{"128Mi", "512Mi", "1Gi", "2Gi", "6Gi"}
	budgets  = []string{"", "0", "1", "50%", "100%"}
)

// Generate returns the case of a seed; sim says whether it runs in time
// (steps, a duration) or is only planned and evaluated once.
func Generate(seed uint64, sim bool) Case {
	r := rand.New(rand.NewPCG(seed, 0x7363656e6172696f))
	c := Case{Seed: seed}
	for i := range 1 + r.IntN(3) {
		c.Pools = append(c.Pools, genPool(r, fmt.Sprintf("pool%d", i)))
	}
	for i := range 1 + r.IntN(5) {
		c.Deployments = append(c.Deployments, genDeployment(r, fmt.Sprintf("d%d", i), c.Pools))
	}
	for i := range r.IntN(3) {
		c.DaemonSets = append(c.DaemonSets, DaemonSet{Name: fmt.Sprintf("ds%d", i), CPU: pick(r, []string{"50m", "100m", "200m"}), Everywhere: r.IntN(2) == 0})
	}
	for i := range r.IntN(4) {
		p := c.Pools[r.IntN(len(c.Pools))]
		z := zones
		if len(p.Zones) > 0 {
			z = p.Zones
		}
		c.Nodes = append(c.Nodes, Node{Name: fmt.Sprintf("existing-%d", i), Pool: p.Name,
			InstanceType: pick(r, p.Families) + "." + pick(r, sizes), Zone: pick(r, z), CapacityType: pick(r, p.CapacityTypes), Pods: r.IntN(3)})
	}
	if !sim {
		return c
	}
	c.Duration = time.Duration(20+r.IntN(41)) * time.Minute
	for range r.IntN(6) {
		at := time.Duration(r.Int64N(int64(c.Duration * 3 / 4))).Truncate(time.Second)
		switch x := r.IntN(10); {
		case x < 6:
			d := c.Deployments[r.IntN(len(c.Deployments))]
			c.Steps = append(c.Steps, Step{At: at, Deployment: d.Name, Replicas: r.IntN(9)})
		case x < 8:
			c.Steps = append(c.Steps, Step{At: at, Interrupt: true})
		default:
			c.Steps = append(c.Steps, Step{At: at, ReleaseAMI: true})
		}
	}
	slices.SortStableFunc(c.Steps, func(a, b Step) int { return int(a.At - b.At) })
	if r.IntN(4) == 0 {
		p := c.Pools[0]
		c.ICE = &simulator.CapacityLimit{InstanceType: p.Families[0] + ".large", Zone: pick(r, zones), CapacityType: pick(r, p.CapacityTypes)}
	}
	if r.IntN(5) == 0 {
		c.FailureRate = 0.1
	}
	return c
}

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// some returns a random non-empty subset of from, in from's order.
func some(r *rand.Rand, from []string) []string {
	for {
		var out []string
		for _, v := range from {
			if r.IntN(2) == 0 {
				out = append(out, v)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
}

func genPool(r *rand.Rand, name string) Pool {
	p := Pool{Name: name, Families: some(r, families), CapacityTypes: some(r, []string{"on-demand", "spot"}),
		Budget: pick(r, budgets), WhenEmpty: r.IntN(5) == 0, ConsolidateAfter: pick(r, []string{"0s", "30s", "2m"})}
	if len(p.Families) > 3 {
		p.Families = p.Families[:3]
	}
	if r.IntN(2) == 0 {
		p.Weight = 1 + r.IntN(100)
	}
	if r.IntN(3) == 0 {
		p.Zones = some(r, zones)
	}
	if r.IntN(3) == 0 {
		p.CPULimit = 4 + r.IntN(40)
	}
	p.Taint = r.IntN(4) == 0
	if p.Budget != "" && r.IntN(3) == 0 {
		p.BudgetReason = pick(r, []string{"Empty", "Drifted", "Underutilized"})
	}
	if len(p.Families) >= 2 && r.IntN(4) == 0 {
		p.MinFamilies = 2
	}
	if r.IntN(6) == 0 {
		p.ExpireAfter = "15m"
	}
	return p
}

func genDeployment(r *rand.Rand, name string, pools []Pool) Deployment {
	d := Deployment{Name: name, Replicas: r.IntN(7), CPU: pick(r, cpus), Memory: pick(r, memories)}
	for range r.IntN(3) {
		k := pick(r, kinds)
		if !slices.Contains(d.Kinds, k) {
			d.Kinds = append(d.Kinds, k)
		}
	}
	p := pools[r.IntN(len(pools))].Name
	d.Target = p
	if slices.Contains(d.Kinds, KindAffinityTo) {
		d.Target = fmt.Sprintf("d%d", r.IntN(5))
	}
	switch r.IntN(4) {
	case 0:
		d.PDB = "maxUnavailable: 1"
	case 1:
		d.PDB = "minAvailable: 50%"
	}
	return d
}

// Scenario renders the case: its manifests inline, its steps typed.
func (c Case) Scenario() simulator.Scenario {
	sc := simulator.Scenario{Name: fmt.Sprintf("random-%d", c.Seed), Seed: c.Seed, Inline: c.manifests()}
	sc.Duration.Duration = c.Duration
	if c.Duration == 0 {
		sc.Duration.Duration = time.Second
	}
	for _, s := range c.Steps {
		st := simulator.Step{}
		st.At.Duration = s.At
		switch {
		case s.Interrupt:
			st.Interrupt = &simulator.InterruptStep{Count: 1}
		case s.ReleaseAMI:
			st.ReleaseAMI = &simulator.ReleaseAMIStep{NodeClass: "default", ID: fmt.Sprintf("ami-%d", s.At/time.Second)}
		default:
			st.Scale = &simulator.ScaleStep{Deployment: s.Deployment, Replicas: int32(s.Replicas)}
		}
		sc.Steps = append(sc.Steps, st)
	}
	if c.ICE != nil {
		sc.Cloud.Capacity = []simulator.CapacityLimit{*c.ICE}
	}
	sc.Cloud.FailureRate = c.FailureRate
	return sc
}

const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: random}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: random}}]
  role: KarpenterNodeRole-random
`

func (c Case) manifests() string {
	var b strings.Builder
	b.WriteString(nodeClass)
	for _, p := range c.Pools {
		b.WriteString("---\n")
		p.render(&b)
	}
	for _, d := range c.Deployments {
		b.WriteString("---\n")
		d.render(&b)
	}
	for _, ds := range c.DaemonSets {
		b.WriteString("---\n")
		ds.render(&b)
	}
	for _, n := range c.Nodes {
		n.render(&b, c.poolOf(n.Pool))
	}
	return b.String()
}

func (c Case) poolOf(name string) *Pool {
	for i := range c.Pools {
		if c.Pools[i].Name == name {
			return &c.Pools[i]
		}
	}
	return nil
}

func list(vs []string) string { return "[" + strings.Join(vs, ", ") + "]" }

func (p Pool) render(b *strings.Builder) {
	fmt.Fprintf(b, "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\nspec:\n", p.Name)
	if p.Weight > 0 {
		fmt.Fprintf(b, "  weight: %d\n", p.Weight)
	}
	if p.CPULimit > 0 {
		fmt.Fprintf(b, "  limits: {cpu: %d}\n", p.CPULimit)
	}
	fmt.Fprintf(b, "  template:\n    metadata: {labels: {team: %s}}\n    spec:\n", p.Name)
	b.WriteString("      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n")
	if p.ExpireAfter != "" {
		fmt.Fprintf(b, "      expireAfter: %s\n", p.ExpireAfter)
	}
	if p.Taint {
		fmt.Fprintf(b, "      taints: [{key: dedicated, value: %s, effect: NoSchedule}]\n", p.Name)
	}
	b.WriteString("      requirements:\n")
	fmt.Fprintf(b, "      - {key: karpenter.k8s.aws/instance-family, operator: In, values: %s", list(p.Families))
	if p.MinFamilies > 0 {
		fmt.Fprintf(b, ", minValues: %d", p.MinFamilies)
	}
	b.WriteString("}\n")
	fmt.Fprintf(b, "      - {key: karpenter.sh/capacity-type, operator: In, values: %s}\n", list(p.CapacityTypes))
	b.WriteString("      - {key: karpenter.k8s.aws/instance-size, operator: In, values: [medium, large, xlarge, 2xlarge, 4xlarge]}\n")
	if len(p.Zones) > 0 {
		fmt.Fprintf(b, "      - {key: topology.kubernetes.io/zone, operator: In, values: %s}\n", list(p.Zones))
	}
	policy := "WhenEmptyOrUnderutilized"
	if p.WhenEmpty {
		policy = "WhenEmpty"
	}
	fmt.Fprintf(b, "  disruption:\n    consolidationPolicy: %s\n    consolidateAfter: %s\n", policy, p.ConsolidateAfter)
	if p.Budget != "" {
		fmt.Fprintf(b, "    budgets: [{nodes: %q", p.Budget)
		if p.BudgetReason != "" {
			fmt.Fprintf(b, ", reasons: [%s]", p.BudgetReason)
		}
		b.WriteString("}]\n")
	}
}

func (d Deployment) render(b *strings.Builder) {
	fmt.Fprintf(b, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  replicas: %d\n", d.Name, d.Replicas)
	fmt.Fprintf(b, "  selector: {matchLabels: {app: %s}}\n  template:\n    metadata:\n      labels: {app: %s}\n", d.Name, d.Name)
	if slices.Contains(d.Kinds, KindDoNotDisrupt) {
		b.WriteString("      annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n")
	}
	b.WriteString("    spec:\n")
	fmt.Fprintf(b, "      containers: [{name: app, image: pause, resources: {requests: {cpu: %q, memory: %s}}}]\n", d.CPU, d.Memory)
	var selector, tolerations, spread []string
	var nodeTerms, preferred, podAffinity, antiAffinity []string
	self := fmt.Sprintf("{matchLabels: {app: %s}}", d.Name)
	for _, k := range d.Kinds {
		switch k {
		case KindSelectPool:
			selector = append(selector, "team: "+d.Target)
			tolerations = append(tolerations, "{key: dedicated, operator: Exists}")
		case KindOnDemand:
			selector = append(selector, "karpenter.sh/capacity-type: on-demand")
		case KindNodeAffinity:
			nodeTerms = append(nodeTerms, "{key: karpenter.k8s.aws/instance-family, operator: In, values: [c6a, m6a, c7g]}")
		case KindTolerate:
			tolerations = append(tolerations, fmt.Sprintf("{key: dedicated, operator: Equal, value: %s, effect: NoSchedule}", d.Target))
		case KindZoneSpread:
			spread = append(spread, "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: "+self+"}")
		case KindHostSpread:
			spread = append(spread, "{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: "+self+"}")
		case KindSoftSpread:
			spread = append(spread, "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: "+self+"}")
		case KindAntiAffinity:
			antiAffinity = append(antiAffinity, "{topologyKey: kubernetes.io/hostname, labelSelector: "+self+"}")
		case KindZoneAffinity:
			podAffinity = append(podAffinity, "{topologyKey: topology.kubernetes.io/zone, labelSelector: "+self+"}")
		case KindAffinityTo:
			podAffinity = append(podAffinity, fmt.Sprintf("{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: %s}}}", d.Target))
		case KindPreferred:
			preferred = append(preferred, "{weight: 10, preference: {matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1b]}]}}")
		}
	}
	if len(selector) > 0 {
		fmt.Fprintf(b, "      nodeSelector: {%s}\n", strings.Join(selector, ", "))
	}
	if len(tolerations) > 0 {
		fmt.Fprintf(b, "      tolerations: %s\n", list(tolerations))
	}
	if len(spread) > 0 {
		fmt.Fprintf(b, "      topologySpreadConstraints: %s\n", list(spread))
	}
	if len(nodeTerms)+len(preferred)+len(podAffinity)+len(antiAffinity) > 0 {
		b.WriteString("      affinity:\n")
	}
	if len(nodeTerms)+len(preferred) > 0 {
		b.WriteString("        nodeAffinity:\n")
		if len(nodeTerms) > 0 {
			fmt.Fprintf(b, "          requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: %s}]}\n", list(nodeTerms))
		}
		if len(preferred) > 0 {
			fmt.Fprintf(b, "          preferredDuringSchedulingIgnoredDuringExecution: %s\n", list(preferred))
		}
	}
	if len(podAffinity) > 0 {
		fmt.Fprintf(b, "        podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: %s}\n", list(podAffinity))
	}
	if len(antiAffinity) > 0 {
		fmt.Fprintf(b, "        podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: %s}\n", list(antiAffinity))
	}
	if d.PDB != "" {
		fmt.Fprintf(b, "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: %s}\nspec:\n  %s\n  selector: {matchLabels: {app: %s}}\n", d.Name, d.PDB, d.Name)
	}
}

func (ds DaemonSet) render(b *strings.Builder) {
	fmt.Fprintf(b, "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: %s}\nspec:\n  selector: {matchLabels: {app: %s}}\n", ds.Name, ds.Name)
	fmt.Fprintf(b, "  template:\n    metadata: {labels: {app: %s}}\n    spec:\n", ds.Name)
	fmt.Fprintf(b, "      containers: [{name: agent, image: pause, resources: {requests: {cpu: %s, memory: 64Mi}}}]\n", ds.CPU)
	if ds.Everywhere {
		b.WriteString("      tolerations: [{operator: Exists}]\n")
	}
}

func (n Node) render(b *strings.Builder, p *Pool) {
	if p == nil {
		return
	}
	family, size, _ := strings.Cut(n.InstanceType, ".")
	labels := fmt.Sprintf("{karpenter.sh/nodepool: %s, karpenter.sh/initialized: \"true\", karpenter.sh/registered: \"true\", "+
		"karpenter.sh/capacity-type: %s, node.kubernetes.io/instance-type: %s, karpenter.k8s.aws/instance-family: %s, "+
		"karpenter.k8s.aws/instance-size: %s, kubernetes.io/hostname: %s, topology.kubernetes.io/zone: %s, team: %s}",
		n.Pool, n.CapacityType, n.InstanceType, family, size, n.Name, n.Zone, n.Pool)
	fmt.Fprintf(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: %s\n", n.Name, labels)
	if p.Taint {
		fmt.Fprintf(b, "spec:\n  taints: [{key: dedicated, value: %s, effect: NoSchedule}]\n", p.Name)
	}
	b.WriteString("status:\n  conditions: [{type: Ready, status: \"True\"}]\n")
	fmt.Fprintf(b, "---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: %s\n  labels: %s\n", n.Name, labels)
	b.WriteString("spec:\n  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n  requirements: []\n")
	fmt.Fprintf(b, "status:\n  nodeName: %s\n  conditions:\n  - {type: Initialized, status: \"True\", reason: Initialized, lastTransitionTime: \"2026-01-04T00:00:00Z\"}\n", n.Name)
	for i := range n.Pods {
		fmt.Fprintf(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-legacy-%d, labels: {app: legacy}}\n", n.Name, i)
		fmt.Fprintf(b, "spec:\n  nodeName: %s\n  tolerations: [{operator: Exists}]\n  containers: [{name: app, image: pause, resources: {requests: {cpu: 100m, memory: 128Mi}}}]\nstatus: {phase: Running}\n", n.Name)
	}
}
