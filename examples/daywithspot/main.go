// Command daywithspot simulates a day of traffic with spot interruptions:
// a web Deployment follows an hourly traffic curve (a traffic step) on a
// spot-first NodePool, spot interruption notices arrive at random during
// the working day (a seeded Poisson process, one every 3 hours on average,
// two nodes each), and the cost of each hour is printed with the day's
// total.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/simulator"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "daywithspot:", err)
		os.Exit(1)
	}
}

// replicasByHour is the traffic curve: web replicas from 00:00 to 23:00.
var replicasByHour = [24]int32{4, 3, 3, 3, 3, 4, 8, 14, 22, 28, 30, 32, 34, 32, 30, 28, 26, 24, 20, 16, 12, 9, 6, 5}

const manifests = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-my-cluster
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
      - {key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge, 2xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5m
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web, resources: {requests: {cpu: "1", memory: 2Gi}}}]
`

// scenario is the day: the traffic curve, random interruptions from 06:00
// to 20:00, and a sample every hour.
func scenario() simulator.Scenario {
	d := func(t time.Duration) metav1.Duration { return metav1.Duration{Duration: t} }
	return simulator.Scenario{Name: "day-with-spot", Seed: 11, Duration: d(24 * time.Hour), SampleEvery: d(time.Hour), Inline: manifests,
		Steps: []simulator.Step{
			{At: d(0), Traffic: &simulator.TrafficStep{Deployment: "web", Every: d(time.Hour), Replicas: replicasByHour[:]}},
			{At: d(6 * time.Hour), Interrupt: &simulator.InterruptStep{PerHour: 1.0 / 3, Count: 2, Until: d(20 * time.Hour)}},
		}}
}

func run(w io.Writer) error {
	res, err := simulator.Run(context.Background(), scenario(), simulator.Config{})
	if err != nil {
		return err
	}
	for _, dec := range res.Timeline {
		if dec.Kind == simulator.KindInterruption {
			fmt.Fprintf(w, "%s interruption of %s (%s %s)\n", clock(dec.At.Duration), dec.Nodes[0], dec.CapacityType, dec.InstanceType)
		}
	}
	fmt.Fprintln(w, "hour   replicas  nodes  $/hour (at the hour)")
	for _, s := range res.Samples {
		h := int(s.At.Hours())
		if h >= len(replicasByHour) {
			break
		}
		fmt.Fprintf(w, "%s  %8d  %5d  %6.4f %s\n", clock(s.At.Duration), replicasByHour[h], s.Nodes, s.CostPerHour, strings.Repeat("#", int(s.CostPerHour*20)))
	}
	fmt.Fprintf(w, "day: $%.2f, %d launches, disruptions %v, pending p99 %v\n",
		res.TotalCost, res.Launches, res.DisruptionsByMethod, res.PendingTime.P99.Duration)
	return nil
}

// clock prints an offset from midnight as hh:mm.
func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60)
}
