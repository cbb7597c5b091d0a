package scheduling

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// TestSkippedClaimsRejectThePod checks the quick reject of solver.add: over
// random pods with zone affinity (to their own app or another), zone
// selectors, zone spreads and hostname anti-affinity, placed on random
// pools and nodes, every claim that excludes the pod's affinity answers is
// one tryAdd refuses.
func TestSkippedClaimsRejectThePod(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	skipped := 0
	for round := range 40 {
		in := randomAffinityInput(rng, round)
		s := newSolver(in)
		queue := slices.Clone(s.pods)
		slices.SortStableFunc(queue, comparePods)
		for _, p := range queue {
			if p.invalid() != nil {
				continue
			}
			if s.topo != nil {
				answers := s.topo.affinityAnswers(p, nil)
				for _, c := range s.claims {
					if !c.excludes(answers) {
						continue
					}
					skipped++
					if c.tryAdd(p, s) {
						t.Fatalf("round %d: claim %s excludes %v but takes pod %s", round, c.name, answers, p.key)
					}
				}
			}
			if s.try(p) != nil {
				s.failed[p] = fmt.Errorf("unplaced")
			}
		}
	}
	if skipped < 1000 {
		t.Fatalf("only %d claims skipped: the workloads do not exercise the quick reject", skipped)
	}
}

var testZones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// randomAffinityInput draws pods of a few apps whose placement hinges on
// zones, pools that cover all or some zones, and sometimes nodes that
// already hold pods of those apps.
func randomAffinityInput(rng *rand.Rand, round int) Input {
	apps := []string{"a", "b", "c", "d"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var in Input
	for i := range 60 + rng.IntN(60) {
		app := pick(apps)
		cpu := fmt.Sprintf("%dm", []int{100, 250, 500, 1000, 1500, 3000}[rng.IntN(6)])
		memory := fmt.Sprintf("%dMi", []int{128, 512, 1024, 4096}[rng.IntN(4)])
		opts := []podOption{withLabels("app", app)}
		switch rng.IntN(7) {
		case 0:
			opts = append(opts, withPodAffinity(apis.LabelTopologyZone, app))
		case 1:
			opts = append(opts, withPodAffinity(apis.LabelTopologyZone, pick(apps)))
		case 2:
			opts = append(opts, withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
		case 3:
			opts = append(opts, withPodAntiAffinity(apis.LabelHostname, app))
		}
		switch rng.IntN(5) {
		case 0:
			opts = append(opts, withNodeSelector(apis.LabelTopologyZone, pick(testZones)))
		case 1:
			opts = append(opts, withRequiredTerms(corev1.NodeSelectorRequirement{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{pick(testZones)}}))
		case 2:
			opts = append(opts, withRequiredTerms(corev1.NodeSelectorRequirement{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(testZones), pick(testZones)}}))
		}
		in.Pods = append(in.Pods, newPod(fmt.Sprintf("p%d-%d", round, i), cpu, memory, opts...))
	}
	in.NodePools = []Pool{pool(newPool("default"))}
	if rng.IntN(2) == 0 {
		in.NodePools = append(in.NodePools, pool(newPool("zoned", withWeight(10),
			withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, pick(testZones), pick(testZones)))))
	}
	for i := range rng.IntN(3) {
		bound := newPod(fmt.Sprintf("bound%d-%d", round, i), "100m", "128Mi", withLabels("app", pick(apps)))
		node := makeNode(fmt.Sprintf("node%d-%d", round, i), "default", true, "1", "2Gi", bound)
		node.Labels[apis.LabelTopologyZone] = pick(testZones)
		in.Nodes = append(in.Nodes, node)
	}
	return in
}

// A new claim reads its pool's options in place while what it keeps is a
// run of them, and copies what it keeps otherwise; the pool's options stay
// as they were.
func TestClaimsShareRunsOfTheirPoolsOptions(t *testing.T) {
	gap := corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"12"}}
	// The host port keeps the pods apart.
	run := newPod("run", "2500m", "1Gi", withHostPort(80))
	gapped := newPod("gap", "1", "1Gi", withHostPort(80), withRequiredTerms(gap))
	in := Input{Pods: []*corev1.Pod{run, gapped}, NodePools: []Pool{pool(newPool("default"))}}
	s := newSolver(in)
	options := s.templates[0].options
	before := slices.Clone(options)
	s.run()
	assert.Equal(t, before, options)
	require.Len(t, s.claims, 2)
	for _, c := range s.claims {
		c.settle()
		assert.NotContains(t, c.options, options[0], "the smallest type holds neither pod")
		switch c.pods[0].key {
		case "default/run":
			assert.True(t, c.shared)
			assert.Same(t, options[2], c.options[0], "the run starts at the first type that holds the pod")
			assert.Equal(t, options[2:], c.options)
		case "default/gap":
			assert.False(t, c.shared, "a copy without fake-it-11")
			assert.Len(t, c.options, len(options)-2)
		}
	}
	assert.Equal(t, Solve(in), s.result())
}
