package simulator_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/karpsim/karpsim/simulator"
)

// Scale inflate up to 10 replicas and back to 0 on karpsim's default
// NodePool: one spot node is launched, the pods bind when it is ready, and
// emptiness consolidation deletes it once it is empty.
func ExampleRun() {
	sc, err := simulator.ParseScenario([]byte(`
seed: 1
duration: 10m
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
steps:
- {at: 0s, scale: {deployment: inflate, replicas: 10}}
- {at: 5m, scale: {deployment: inflate, replicas: 0}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := simulator.Run(context.Background(), sc, simulator.Config{CheckInvariants: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := res.InvariantError(); err != nil {
		fmt.Println(err) // a decision broke a rule of package invariants
	}
	for _, d := range res.Timeline {
		fmt.Println(strings.Join(strings.Fields(fmt.Sprint(d.At.Duration, " ", d.Kind, " ", d.Method, " ", strings.Join(d.Nodes, ","), " ", d.InstanceType, " ", d.CapacityType)), " "))
	}
	fmt.Printf("seed %d, $%.4f, p50 pending %v, %v\n", res.Seed, res.TotalCost, res.PendingTime.P50.Duration, res.DisruptionsByMethod)
	// Output:
	// 0s scale
	// 1s launch default-00001 c6a.4xlarge spot
	// 53s ready default-00001 c6a.4xlarge
	// 53s bind default-00001
	// 5m0s scale
	// 5m15s delete emptiness default-00001
	// seed 1, $0.0139, p50 pending 53s, map[emptiness:1]
}

// The same ten pods under Karpenter and under the Cluster Autoscaler's
// default node group (on-demand m5.xlarge): the ASG's launch makes the
// pods wait minutes instead of seconds, and three pods a node take four
// nodes where Karpenter launches one.
func ExampleConfig_autoscaler() {
	sc, err := simulator.ParseScenario([]byte(`
seed: 1
duration: 30m
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
steps:
- {at: 0s, scale: {deployment: inflate, replicas: 10}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, which := range simulator.Autoscalers() {
		res, err := simulator.Run(context.Background(), sc, simulator.Config{Autoscaler: which})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d nodes, pods bound after at most %v\n", which, res.Final.Nodes, res.PendingTime.Max.Duration)
	}
	// Output:
	// karpenter: 1 nodes, pods bound after at most 53s
	// cluster-autoscaler: 4 nodes, pods bound after at most 3m37s
}
