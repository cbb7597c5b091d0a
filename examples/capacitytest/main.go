// Command capacitytest is capacity planning as a CI check: the same day of
// a workload runs on today's NodePool and on a proposed one, and the
// proposal must not raise the day's cost by more than 5%.
// capacity_test.go is the check itself, written with package plantest;
// this program prints the numbers it compares.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/karpsim/karpsim/simulator"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "capacitytest:", err)
		os.Exit(1)
	}
}

// day is the workload: an API Deployment over a weekday.
const day = `
name: api-day
seed: 3
duration: 24h
sampleEvery: 1h
steps:
- {at: 0s, scale: {deployment: api, replicas: 6}}
- {at: 8h, scale: {deployment: api, replicas: 24}}
- {at: 18h, scale: {deployment: api, replicas: 6}}
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api}
  spec:
    replicas: 0
    selector: {matchLabels: {app: api}}
    template:
      metadata: {labels: {app: api}}
      spec:
        containers: [{name: api, image: api, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    amiFamily: AL2023
    amiSelectorTerms: [{alias: al2023@latest}]
    role: KarpenterNodeRole-my-cluster
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  ---
`

// nodePool is the NodePool under test, with one extra requirement.
func nodePool(extra string) string {
	return `  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
` + extra + `    disruption:
      consolidationPolicy: WhenEmptyOrUnderutilized
      consolidateAfter: 2m
`
}

// Today's NodePool takes c, m and r types; the proposal drops r.
var (
	current  = nodePool("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}\n")
	proposed = nodePool("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}\n")
)

// scenario is the day on one NodePool.
func scenario(pool string) (simulator.Scenario, error) {
	return simulator.ParseScenario([]byte(day + pool))
}

func run(w io.Writer) error {
	var costs [2]float64
	for i, pool := range []string{current, proposed} {
		sc, err := scenario(pool)
		if err != nil {
			return err
		}
		res, err := simulator.Run(context.Background(), sc, simulator.Config{})
		if err != nil {
			return err
		}
		costs[i] = res.TotalCost
	}
	change := 100 * (costs[1] - costs[0]) / costs[0]
	fmt.Fprintf(w, "current NodePool: $%.4f a day\nproposed NodePool: $%.4f a day (%+.1f%%, allowed +5.0%%)\n", costs[0], costs[1], change)
	return nil
}
