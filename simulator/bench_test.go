package simulator

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// dayScenario is 24 h of hourly traffic swings over three Deployments of
// differently sized pods: a sinusoid peaking mid-afternoon at peak replicas,
// with a spot interruption every six hours.
func dayScenario(peak int) Scenario {
	apps := []struct {
		name, cpu, mem string
		share          float64
	}{{"web", "2", "4Gi", 0.5}, {"api", "1", "2Gi", 0.3}, {"batch", "4", "8Gi", 0.2}}
	var inline strings.Builder
	inline.WriteString(benchPool)
	for _, a := range apps {
		fmt.Fprintf(&inline, `apiVersion: apps/v1
kind: Deployment
metadata: {name: %s}
spec:
  replicas: 0
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec:
      containers: [{name: c, image: pause, resources: {requests: {cpu: "%s", memory: %s}}}]
---
`, a.name, a.name, a.name, a.cpu, a.mem)
	}
	sc := Scenario{Name: "day", Seed: 1, Duration: dur(24 * time.Hour), Inline: inline.String(), SampleEvery: dur(15 * time.Minute)}
	for h := 0; h < 24; h++ {
		load := 0.55 - 0.45*math.Cos(2*math.Pi*float64(h-3)/24)
		for _, a := range apps {
			n := int32(math.Round(float64(peak) * a.share * load))
			sc.Steps = append(sc.Steps, Step{At: dur(time.Duration(h) * time.Hour), Scale: &ScaleStep{Deployment: a.name, Replicas: n}})
		}
		if h%6 == 5 {
			sc.Steps = append(sc.Steps, Step{At: dur(time.Duration(h)*time.Hour + 30*time.Minute), Interrupt: &InterruptStep{Count: 2}})
		}
	}
	return sc
}

// benchPool allows only 4- and 8-vCPU types, so that the day needs a few
// hundred nodes, and lifts the default limits.
const benchPool = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: ["4", "8"]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
  limits: {cpu: "100000"}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
`

func BenchmarkSimulateDay(b *testing.B) {
	sc := dayScenario(1700)
	var res *Result
	for b.Loop() {
		res = run(b, sc)
	}
	maxNodes := 0
	for _, s := range res.Samples {
		maxNodes = max(maxNodes, s.Nodes)
	}
	b.ReportMetric(float64(maxNodes), "peak-nodes")
	b.ReportMetric(float64(len(res.Timeline)), "decisions")
	b.ReportMetric(res.TotalCost, "USD/day")
}

// BenchmarkSimulateDailyTrafficCA runs the same day under the Cluster
// Autoscaler (its default node group), for comparison with
// BenchmarkSimulateDailyTraffic: the scans every 10 s and the scale-down
// simulations are its cost.
func BenchmarkSimulateDailyTrafficCA(b *testing.B) {
	sc, err := LoadScenario("../testdata/scenarios/daily-traffic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	for b.Loop() {
		res, err = Run(context.Background(), sc, Config{Autoscaler: AutoscalerClusterAutoscaler})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Timeline)), "decisions")
	b.ReportMetric(res.TotalCost, "USD/day")
	b.ReportMetric(float64(res.PendingTime.P90.Seconds()), "p90-pending-s")
}

// BenchmarkSimulateDailyTraffic runs testdata/scenarios/daily-traffic.yaml:
// a day of a cosine traffic curve and Poisson batch arrivals, where nearly
// every disruption poll has something new to evaluate.
func BenchmarkSimulateDailyTraffic(b *testing.B) {
	sc, err := LoadScenario("../testdata/scenarios/daily-traffic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	for b.Loop() {
		res = run(b, sc)
	}
	b.ReportMetric(float64(len(res.Timeline)), "decisions")
	b.ReportMetric(res.TotalCost, "USD/day")
}

// BenchmarkSimulateDailyTrafficOptimized runs the same day with the
// optimizing planner for provisioning and consolidation's replacements
// (simulate --optimize), for comparison with BenchmarkSimulateDailyTraffic:
// the planner's solves beside Karpenter's in every consolidation
// simulation that needs new nodes are its cost.
func BenchmarkSimulateDailyTrafficOptimized(b *testing.B) {
	sc, err := LoadScenario("../testdata/scenarios/daily-traffic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	for b.Loop() {
		res, err = Run(context.Background(), sc, Config{Planner: optimizingPlanner})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Timeline)), "decisions")
	b.ReportMetric(res.TotalCost, "USD/day")
}
