package simulator

import (
	"context"
	"strings"
	"testing"
	"time"
)

// caDeployment is a Deployment of pods requesting one cpu each.
const caDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: "1", memory: 1Gi}}
`

func runCA(t *testing.T, yaml string) *Result {
	t.Helper()
	sc, err := ParseScenario([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Config{Autoscaler: AutoscalerClusterAutoscaler, CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") + "\n"
}

func decisionsOf(r *Result, kind string) []Decision {
	var out []Decision
	for _, d := range r.Timeline {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

func TestCAScaleUpAndDownTimes(t *testing.T) {
	res := runCA(t, `
duration: 1h
inline: |
`+indent(caDeployment)+`
steps:
- {at: 1m, scale: {deployment: web, replicas: 6}}
- {at: 20m, scale: {deployment: web, replicas: 0}}
`)
	ups := decisionsOf(res, "scale-up")
	if len(ups) != 1 || !strings.Contains(ups[0].Reason, "node group default: 0 → 2 nodes") || !strings.Contains(ups[0].Reason, "least-waste") {
		t.Fatalf("scale-ups = %+v, want one of the default group to 2 nodes by least-waste", ups)
	}
	if p := res.PendingTime; p.Count != 6 || p.Max.Duration < 3*time.Minute || p.Max.Duration > 5*time.Minute {
		t.Errorf("pending time %+v, want 6 pods bound 3–5 minutes after they became pending", p)
	}
	downs := decisionsOf(res, "scale-down")
	if len(downs) != 2 || downs[0].At.Duration != 30*time.Minute || downs[0].Method != "empty" {
		t.Errorf("scale-downs = %+v, want both nodes removed empty at 30m, 10m after they emptied", downs)
	}
	if res.Autoscaler != "cluster-autoscaler" || res.DisruptionsByMethod["empty"] != 2 {
		t.Errorf("autoscaler %q, disruptions %v", res.Autoscaler, res.DisruptionsByMethod)
	}
}

func TestCAGroupAtMax(t *testing.T) {
	res := runCA(t, `
duration: 20m
inline: |
`+indent(caDeployment)+`
clusterAutoscaler:
  nodeGroups:
  - {name: small, instanceTypes: [m5.xlarge], min: 0, max: 2}
steps:
- {at: 1m, scale: {deployment: web, replicas: 9}}
`)
	if res.PendingTime.StillPending != 3 || len(res.StillPending) != 3 {
		t.Fatalf("still pending %d (%+v), want the 3 pods two nodes cannot hold", res.PendingTime.StillPending, res.StillPending)
	}
	if why := res.StillPending[0].Reason; !strings.Contains(why, "small: max node group size reached (2)") {
		t.Errorf("reason %q, want the group at max", why)
	}
	if len(decisionsOf(res, "no-scale-up")) == 0 {
		t.Errorf("no no-scale-up decision in the timeline")
	}
}

func TestCAPDBBlocksScaleDown(t *testing.T) {
	res := runCA(t, `
duration: 1h
inline: |
`+indent(caDeployment)+`
  ---
  apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web}
  spec:
    maxUnavailable: 0
    selector: {matchLabels: {app: web}}
steps:
- {at: 1m, scale: {deployment: web, replicas: 4}}
- {at: 10m, scale: {deployment: web, replicas: 1}}
`)
	if downs := decisionsOf(res, "scale-down"); len(downs) != 1 {
		t.Fatalf("scale-downs = %+v, want only the empty node removed", downs)
	}
	if res.Final.Nodes != 1 {
		t.Errorf("final nodes %d, want the node whose one pod the PDB keeps", res.Final.Nodes)
	}
}

func TestCABackoffAfterProvisionTimeout(t *testing.T) {
	res := runCA(t, `
duration: 40m
inline: |
`+indent(caDeployment)+`
cloud:
  capacity:
  - {instanceType: m5.xlarge, zone: us-east-1a, capacityType: on-demand, count: 0}
  - {instanceType: m5.xlarge, zone: us-east-1b, capacityType: on-demand, count: 0}
  - {instanceType: m5.xlarge, zone: us-east-1c, capacityType: on-demand, count: 0}
clusterAutoscaler:
  nodeGroups:
  - {name: scarce, instanceTypes: [m5.xlarge], min: 0, max: 10}
  - {name: plenty, instanceTypes: [m5.2xlarge], min: 0, max: 10}
  expander: priority
  priorities: {10: [scarce], 1: [plenty]}
steps:
- {at: 1m, scale: {deployment: web, replicas: 3}}
`)
	timeouts := decisionsOf(res, "scale-up-timeout")
	if len(timeouts) != 1 || timeouts[0].At.Duration != 16*time.Minute || !strings.Contains(timeouts[0].Reason, "backed off for 5m0s") {
		t.Fatalf("timeouts = %+v, want scarce backed off 15m after its scale-up", timeouts)
	}
	ups := decisionsOf(res, "scale-up")
	if len(ups) != 2 || !strings.Contains(ups[1].Reason, "node group plenty") {
		t.Fatalf("scale-ups = %+v, want scarce then, backed off, plenty", ups)
	}
	if res.PendingTime.StillPending != 0 || res.PendingTime.Max.Duration < 15*time.Minute {
		t.Errorf("pending %+v, want every pod bound after the backoff", res.PendingTime)
	}
}

func TestCASpotInterruptionIsReplacedByTheASG(t *testing.T) {
	res := runCA(t, `
duration: 30m
inline: |
`+indent(caDeployment)+`
clusterAutoscaler:
  nodeGroups:
  - {name: spot, instanceTypes: [m5.xlarge, m5a.xlarge], capacityType: spot, min: 0, max: 10}
steps:
- {at: 1m, scale: {deployment: web, replicas: 3}}
- {at: 10m, interrupt: {count: 1}}
`)
	in := decisionsOf(res, "interruption")
	if len(in) != 1 || !strings.Contains(in[0].Reason, "ASG spot launches a replacement (desired capacity stays 1)") {
		t.Fatalf("interruptions = %+v, want the ASG to replace the node", in)
	}
	if ups := decisionsOf(res, "scale-up"); len(ups) != 1 {
		t.Errorf("scale-ups = %+v, want only the first: the replacement is the ASG's, not CA's", ups)
	}
	if res.Launches != 2 || res.Final.Nodes != 1 || res.PendingTime.StillPending != 0 || res.DisruptionsByMethod["interruption"] != 1 {
		t.Errorf("launches %d, final nodes %d, still pending %d, disruptions %v", res.Launches, res.Final.Nodes, res.PendingTime.StillPending, res.DisruptionsByMethod)
	}
}

func TestCAStillPendingDuringBackoff(t *testing.T) {
	res := runCA(t, `
duration: 20m
inline: |
`+indent(caDeployment)+`
cloud:
  capacity:
  - {instanceType: m5.xlarge, zone: us-east-1a, capacityType: on-demand, count: 0}
  - {instanceType: m5.xlarge, zone: us-east-1b, capacityType: on-demand, count: 0}
  - {instanceType: m5.xlarge, zone: us-east-1c, capacityType: on-demand, count: 0}
clusterAutoscaler:
  nodeGroups:
  - {name: scarce, instanceTypes: [m5.xlarge], min: 0, max: 10}
steps:
- {at: 1m, scale: {deployment: web, replicas: 2}}
`)
	if len(res.StillPending) != 2 || !strings.Contains(res.StillPending[0].Reason, "scarce: node group backed off until +") {
		t.Fatalf("still pending %+v, want both pods waiting out the group's backoff", res.StillPending)
	}
	if got := decisionsOf(res, "launch-failed"); len(got) != 1 || !strings.Contains(got[0].Reason, "insufficient capacity") {
		t.Errorf("launch failures %+v, want the ASG's one attempt over every zone", got)
	}
}

func TestCAMaxNodesTotalAndBalancing(t *testing.T) {
	res := runCA(t, `
duration: 10m
inline: |
`+indent(caDeployment)+`
clusterAutoscaler:
  maxNodesTotal: 3
  balanceSimilarNodeGroups: true
  nodeGroups:
  - {name: zone-a, instanceTypes: [m5.xlarge], zones: [us-east-1a], min: 0, max: 10}
  - {name: zone-b, instanceTypes: [m5.xlarge], zones: [us-east-1b], min: 0, max: 10}
steps:
- {at: 1m, scale: {deployment: web, replicas: 12}}
`)
	ups := decisionsOf(res, "scale-up")
	both := len(ups) == 2 && strings.Contains(ups[0].Reason+ups[1].Reason, "group zone-a:") && strings.Contains(ups[0].Reason+ups[1].Reason, "group zone-b:")
	// The expander's pick (random between the tied groups) gets the odd node.
	if !both || !strings.Contains(ups[0].Reason, "0 → 2 nodes") ||
		!strings.Contains(ups[1].Reason, "0 → 1 nodes") || !strings.Contains(ups[0].Reason, "balanced over 2 similar node groups") {
		t.Fatalf("scale-ups = %+v, want three nodes balanced over the two zones' groups", ups)
	}
	if len(res.StillPending) != 3 || !strings.Contains(res.StillPending[0].Reason, "max total nodes in cluster reached (3)") {
		t.Errorf("still pending %+v, want three pods held back by maxNodesTotal", res.StillPending)
	}
}

func TestCANoGroupFits(t *testing.T) {
	res := runCA(t, `
duration: 5m
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big}
  spec:
    replicas: 1
    selector: {matchLabels: {app: big}}
    template:
      metadata: {labels: {app: big}}
      spec:
        containers: [{name: big, image: x, resources: {requests: {cpu: "20"}}}]
clusterAutoscaler:
  nodeGroups:
  - {name: general, instanceTypes: [m5.xlarge], min: 0, max: 5}
  - {name: tainted, instanceTypes: [m5.8xlarge], min: 0, max: 5, taints: [{key: dedicated, value: ml, effect: NoSchedule}]}
`)
	if len(res.StillPending) != 1 {
		t.Fatalf("still pending %+v, want the big pod", res.StillPending)
	}
	why := res.StillPending[0].Reason
	for _, want := range []string{"pod didn't trigger scale-up", "general: not enough resources: [cpu]", "tainted: did not tolerate taint dedicated=ml:NoSchedule"} {
		if !strings.Contains(why, want) {
			t.Errorf("reason %q, want %q", why, want)
		}
	}
}
