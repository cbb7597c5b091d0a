package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/manifests"
)

// source reads a scenario of testdata/scenarios as cmd/karpsim would.
func source(t testing.TB, name string) Source {
	t.Helper()
	path := "../testdata/scenarios/" + name + ".yaml"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return Source{Path: path, Scenario: data}
}

// A scenario whose Deployment and NodePool live in a file of their own, to
// patch a file and not only inline manifests.
func fileSource(t *testing.T) Source {
	t.Helper()
	scenario := "name: from-files\nseed: 3\nduration: 20m\nsteps:\n- {at: 1m, scale: {deployment: web, replicas: 4}}\n" +
		"- {at: 0s, traffic: {deployment: web, every: 5m, replicas: [4, 6]}}\n"
	cluster := `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`
	return Source{Path: "from-files.yaml", Scenario: []byte(scenario),
		Manifests: []manifests.Stream{{Name: "cluster.yaml", Data: []byte(cluster)}}}
}

func TestParseRefusesBadSweeps(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"no scenarios", "variants: [{name: a}]", "scenarios: at least one"},
		{"unknown field", "scenarios: [a.yaml]\nvariant: []", `unknown field "variant"`},
		{"variant twice", "scenarios: [a.yaml]\nvariants: [{name: a}, {name: a}]", `variants[1].name: "a" is used twice`},
		{"unnamed variant", "scenarios: [a.yaml]\nvariants: [{workloadScale: 2}]", "variants[0].name: required"},
		{"scale", "scenarios: [a.yaml]\nvariants: [{name: a, workloadScale: 1000}]", "workloadScale: 1000 is outside"},
		{"interruptions", "scenarios: [a.yaml]\nvariants: [{name: a, interruptionsPerHour: -1}]", "interruptionsPerHour: -1 is outside"},
		{"seed twice", "scenarios: [a.yaml]\nseeds: [1, 1]", "seeds[1]: seed 1 is listed twice"},
		{"autoscaler", "scenarios: [a.yaml]\nvariants: [{name: a, autoscaler: keda}]", "variants[0].autoscaler: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("sweep.yaml", []byte(c.data))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), "sweep.yaml:")
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestPrepareAppliesEachKindOfVariant(t *testing.T) {
	src := fileSource(t)
	before := string(src.Manifests[0].Data)
	v := Variant{Name: "all", WorkloadScale: 2, InterruptionsPerHour: 1.5,
		Scenario:  map[string]any{"duration": "10m"},
		NodePools: map[string]map[string]any{"general": {"spec": map[string]any{"weight": 7.0}}}}
	sc, streams, err := Prepare(src, v, 9)
	require.NoError(t, err)
	assert.Equal(t, uint64(9), sc.Seed)
	assert.Equal(t, "10m0s", sc.Duration.Duration.String())
	require.Len(t, sc.Steps, 3)
	assert.Equal(t, int32(8), sc.Steps[0].Scale.Replicas)
	assert.Equal(t, []int32{8, 12}, sc.Steps[1].Traffic.Replicas)
	require.NotNil(t, sc.Steps[2].Interrupt)
	assert.Equal(t, 1.5, sc.Steps[2].Interrupt.PerHour)

	set, err := manifests.LoadWith(nil, streams...)
	require.NoError(t, err)
	require.Len(t, set.NodePools, 1)
	require.NotNil(t, set.NodePools[0].Spec.Weight)
	assert.Equal(t, int32(7), *set.NodePools[0].Spec.Weight)
	assert.Len(t, set.NodePools[0].Spec.Template.Spec.Requirements, 1, "a patch keeps what it does not name")
	require.Len(t, set.Deployments, 1)
	assert.Equal(t, int32(4), *set.Deployments[0].Spec.Replicas)
	src2 := fileSource(t)
	assert.Equal(t, before, string(src.Manifests[0].Data), "the source is not changed")
	assert.Equal(t, src2.Scenario, src.Scenario)
	assert.Equal(t, map[string]any{"spec": map[string]any{"weight": 7.0}}, v.NodePools["general"], "the variant is not changed")

	// Untouched documents keep their bytes.
	_, streams, err = Prepare(src, Variant{Name: "baseline"}, 0)
	require.NoError(t, err)
	assert.Equal(t, before, string(streams[0].Data))
}

func TestPrepareRefusesAMissingNodePool(t *testing.T) {
	_, _, err := Prepare(fileSource(t), Variant{Name: "typo", NodePools: map[string]map[string]any{"genral": {"spec": map[string]any{}}}}, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `from-files.yaml: variant typo: nodePools: the scenario has no NodePool "genral"`)
}

func sweepForTest(t *testing.T) (Spec, []Source) {
	spec, err := Parse("test", []byte(`
name: test
scenarios: [default.yaml, from-files.yaml]
seeds: [1, 2]
variants:
- {name: baseline}
- {name: double, workloadScale: 2}
- name: on-demand
  nodePools:
    "*": {spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]}}}}
- {name: broken, scenario: {duration: -1h}}
- {name: ca, autoscaler: cluster-autoscaler}
`))
	require.NoError(t, err)
	return spec, []Source{source(t, "default"), fileSource(t)}
}

func TestExecuteIsIndependentOfWorkersAndShards(t *testing.T) {
	spec, sources := sweepForTest(t)
	one, err := Execute(context.Background(), spec, sources, Options{Workers: 1})
	require.NoError(t, err)
	require.Len(t, one.Runs, 20)
	three, err := Execute(context.Background(), spec, sources, Options{Workers: 3})
	require.NoError(t, err)
	want, _ := json.Marshal(one)
	got, _ := json.Marshal(three)
	require.JSONEq(t, string(want), string(got))
	assert.Equal(t, string(want), string(got), "byte-identical")

	var parts []*Result
	for i := range 3 {
		part, err := Execute(context.Background(), spec, sources, Options{Workers: 2, Shard: Shard{Index: i, Count: 3}})
		require.NoError(t, err)
		require.NotNil(t, part.Shard)
		parts = append(parts, part)
	}
	merged, err := Merge(parts[2], parts[0], parts[1])
	require.NoError(t, err)
	got, _ = json.Marshal(merged)
	assert.Equal(t, string(want), string(got), "the merged shards are the whole sweep")

	_, err = Merge(parts[0], parts[1])
	assert.ErrorIs(t, err, ErrMerge)
	assert.Contains(t, err.Error(), "missing")
	_, err = Merge(parts[0], parts[0], parts[1], parts[2])
	assert.ErrorIs(t, err, ErrMerge)
}

func TestExecuteReportsFailedRunsAndMarksTheBest(t *testing.T) {
	spec, sources := sweepForTest(t)
	res, err := Execute(context.Background(), spec, sources, Options{})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Failed(), "the broken variant fails on both scenarios and seeds")
	require.Len(t, res.Rows, 10)
	best := map[string]string{}
	for _, r := range res.Rows {
		if r.Variant == "broken" {
			assert.Equal(t, 2, r.Failed)
			assert.Contains(t, r.Error, "duration must be positive")
			assert.False(t, r.Best)
			continue
		}
		assert.Zero(t, r.Failed, r.Error)
		assert.Positive(t, r.CostMean, "%s/%s", r.Scenario, r.Variant)
		assert.LessOrEqual(t, r.CostMin, r.CostMean)
		assert.GreaterOrEqual(t, r.CostMax, r.CostMean)
		if r.Best {
			best[r.Scenario] = r.Variant
		}
	}
	assert.Len(t, best, 2, "one best variant per scenario")
	for _, r := range res.Rows {
		if r.Best {
			for _, o := range res.Rows {
				if o.Scenario == r.Scenario && o.Failed == 0 {
					assert.LessOrEqual(t, r.CostMean, o.CostMean)
				}
			}
		}
	}
	// Doubling the workload costs more on the scaled scenario.
	cost := map[string]float64{}
	for _, r := range res.Rows {
		if strings.HasSuffix(r.Scenario, "from-files.yaml") {
			cost[r.Variant] = r.CostMean
		}
	}
	assert.Greater(t, cost["double"], cost["baseline"])
	assert.NotEqual(t, cost["baseline"], cost["ca"], "the ca variant runs the Cluster Autoscaler model")
}

func TestRunsAreBounded(t *testing.T) {
	seeds := make([]uint64, 0, 1001)
	for i := range 1001 {
		seeds = append(seeds, uint64(i+1))
	}
	spec := Spec{Scenarios: []string{"a"}, Seeds: seeds}
	for range 100 {
		spec.Variants = append(spec.Variants, Variant{Name: "v" + strings.Repeat("x", len(spec.Variants))})
	}
	_, err := Runs(spec, []Source{{Path: "a"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "100100 runs, more than 100000")

	// Variants × seeds past the bound are refused by Parse, before any
	// scenario is read.
	var file strings.Builder
	file.WriteString("scenarios: [a.yaml]\nseeds: [")
	for i := range 1001 {
		fmt.Fprintf(&file, "%d,", i+1)
	}
	file.WriteString("0]\nvariants:\n")
	for i := range 100 {
		fmt.Fprintf(&file, "- {name: v%d}\n", i)
	}
	_, err = Parse("sweep.yaml", []byte(file.String()))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "sweep.yaml: invalid sweep: 100 variants × 1002 seeds = 100200 runs for each scenario, more than 100000 in all")
}
