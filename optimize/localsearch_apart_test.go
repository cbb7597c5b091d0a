package optimize_test

import (
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// A neighbourhood's solve leaves out the claims that stand apart from
// its pods: on random clusters whose pods have no rule counting other
// pods, each solve of the local search's first pass comes out the same
// with every other claim standing as a full node beside it, and with only
// those of limited NodePools.
func TestLocalSearchApartSolvesAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	cases, solved := 200, 0
	if testing.Short() {
		cases = 40
	}
	for c := range cases {
		in := randomInput(rng)
		trial := in
		trial.Options.Packing = scheduling.PackCheapest
		n, err := optimize.CheckApart(in, scheduling.Solve(trial))
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		solved += n
	}
	if solved < cases/4 {
		t.Fatalf("only %d neighbourhoods solved over %d clusters", solved, cases)
	}
}

// The claims of a limited NodePool still count against its limits in a
// neighbourhood's solve, apart or not: here the limit leaves room for
// the dear small type the plan launches, not for the cheap large one.
func TestLocalSearchApartKeepsLimits(t *testing.T) {
	small, large := nodeType("small", 4, 16, 0.30), nodeType("large", 8, 32, 0.10)
	pool := nodePool("pool", catalog(small, large), corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")})
	in := scheduling.Input{Pods: pods(2, "p", "3", "1Gi"), NodePools: []scheduling.Pool{pool}}
	dear := in
	dear.NodePools = []scheduling.Pool{{NodePool: pool.NodePool, InstanceTypes: catalog(small)}}
	r := scheduling.Solve(dear)
	if len(r.NodeClaims) != 2 {
		t.Fatalf("the plan has %d claims, want 2 small ones", len(r.NodeClaims))
	}
	n, err := optimize.CheckApart(in, r)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no neighbourhood solved")
	}
}

// Claims stand apart from a neighbourhood only when no pod, to place or
// already bound, has a rule that counts other pods or shares a volume or
// device, and no default spread applies.
func TestStandApart(t *testing.T) {
	plain := func() *corev1.Pod { return newPod("p", "1", "1Gi") }
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	term := corev1.PodAffinityTerm{LabelSelector: selector, TopologyKey: corev1.LabelTopologyZone}
	for _, c := range []struct {
		name  string
		edit  func(*scheduling.Input)
		apart bool
	}{
		{"plain pods", func(*scheduling.Input) {}, true},
		{"a node selector", func(in *scheduling.Input) {
			in.Pods[0].Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: "test-1a"}
		}, true},
		{"pod affinity", func(in *scheduling.Input) {
			in.Pods[0].Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
		}, false},
		{"preferred pod anti-affinity", func(in *scheduling.Input) {
			in.Pods[0].Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}}}}
		}, false},
		{"a spread constraint", func(in *scheduling.Input) {
			in.Pods[0].Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector}}
		}, false},
		{"a bound pod's anti-affinity", func(in *scheduling.Input) {
			bound := plain()
			bound.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
			in.Nodes = []*scheduling.Node{{Name: "node", Pods: []*corev1.Pod{bound}}}
		}, false},
		{"a bound pod without rules", func(in *scheduling.Input) {
			in.Nodes = []*scheduling.Node{nil, {Name: "node", Pods: []*corev1.Pod{plain()}}}
		}, true},
		{"a volume claim", func(in *scheduling.Input) {
			in.Pods[0].Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
		}, false},
		{"an ephemeral volume", func(in *scheduling.Input) {
			in.Pods[0].Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}}
		}, false},
		{"a config map volume", func(in *scheduling.Input) {
			in.Pods[0].Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}}
		}, true},
		{"a resource claim", func(in *scheduling.Input) {
			in.Pods[0].Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}}
		}, false},
		{"default spread", func(in *scheduling.Input) {
			in.Options.DefaultSpread = &scheduling.DefaultSpread{Constraints: []corev1.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway}}}
		}, false},
		{"default spread without constraints", func(in *scheduling.Input) {
			in.Options.DefaultSpread = &scheduling.DefaultSpread{}
		}, true},
		{"a device allocator", func(in *scheduling.Input) {
			in.Options.Devices = noDevices{}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := scheduling.Input{Pods: []*corev1.Pod{plain(), nil, plain()}}
			c.edit(&in)
			if got := optimize.StandApart(in); got != c.apart {
				t.Errorf("standApart = %t, want %t", got, c.apart)
			}
		})
	}
}

// noDevices is a DeviceAllocator of pods that claim none.
type noDevices struct{}

func (noDevices) Claims(string) bool                         { return false }
func (noDevices) Node(string, string, map[string]string) any { return nil }
func (noDevices) Allocate(any, string, string, string, scheduling.DeviceHoldings, requirements.Requirements) (any, requirements.Requirements, bool) {
	return nil, requirements.Requirements{}, false
}
