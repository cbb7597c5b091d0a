package simulator

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// drainCluster is one NodePool whose nodes expire after 10 minutes
// (consolidation off, so expiration alone disrupts), a Deployment of
// replicas one-cpu pods on it, and extra manifests.
func drainCluster(pool string, replicas int, extra string) string {
	return `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  role: KarpenterNodeRole-demo
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.2xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      expireAfter: 10m
` + pool + `
  disruption:
    consolidateAfter: Never
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: ` + strconv.Itoa(replicas) + `
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
` + extra
}

const pdbMaxUnavailable1 = `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
`

// TestDrainEvictsOnePodAtATimeUnderAPDB: an expiring node's three pods,
// under a PDB allowing one unavailable, leave one at a time, each once the
// one before is running again; the node is deleted only when drained, and
// no instant sees two of them gone (the run is checked).
func TestDrainEvictsOnePodAtATimeUnderAPDB(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(20 * time.Minute), Inline: drainCluster("", 3, pdbMaxUnavailable1)})
	expired := kinds(res, KindExpire)
	if len(expired) == 0 || expired[0].Pods != 1 {
		t.Fatalf("want an expiration evicting one pod at once:\n%s", timeline(res))
	}
	blocked, drained := kinds(res, KindDrainBlocked), kinds(res, KindDrained)
	if len(blocked) == 0 || !strings.Contains(blocked[0].Reason, "PDB default/web") {
		t.Fatalf("want the drain blocked by PDB default/web:\n%s", timeline(res))
	}
	if len(drained) == 0 || drained[0].Nodes[0] != expired[0].Nodes[0] || drained[0].Pods != 3 {
		t.Fatalf("want %s drained of its 3 pods:\n%s", expired[0].Nodes[0], timeline(res))
	}
	if wait := drained[0].At.Duration - expired[0].At.Duration; wait < 30*time.Second {
		t.Errorf("drained %v after expiring; each pod must wait for the one before to be bound on a new node", wait)
	}
	if res.Final.PendingPods != 0 || res.Final.Pods != 3 {
		t.Errorf("final %+v, want the 3 pods bound again", res.Final)
	}
}

// TestDrainIsForcedAtTerminationGracePeriod: a PDB that allows no
// disruption holds an expiring node's drain until the NodeClaim's
// terminationGracePeriod is over; then its pods are deleted, and the
// checker does not count that as an eviction past the PDB.
func TestDrainIsForcedAtTerminationGracePeriod(t *testing.T) {
	pdb := strings.Replace(pdbMaxUnavailable1, "maxUnavailable: 1", "maxUnavailable: 0", 1)
	res := run(t, Scenario{Seed: 1, Duration: dur(30 * time.Minute),
		Inline: drainCluster("      terminationGracePeriod: 5m", 2, pdb)})
	expired, drained := kinds(res, KindExpire), kinds(res, KindDrained)
	if len(expired) == 0 || expired[0].Pods != 0 || len(drained) == 0 {
		t.Fatalf("want an expiration evicting nothing, then a forced drain:\n%s", timeline(res))
	}
	if got := drained[0].At.Duration - expired[0].At.Duration; got != 5*time.Minute {
		t.Errorf("drain forced %v after expiring, want the 5m terminationGracePeriod", got)
	}
	if !strings.Contains(drained[0].Reason, "2 deleted when its drain deadline passed") {
		t.Errorf("drained: %s", drained[0].Reason)
	}
	if res.Final.PendingPods != 0 || res.Final.Pods != 2 {
		t.Errorf("final %+v, want the 2 pods bound again", res.Final)
	}
}

// TestDrainWaitsForDoNotDisrupt: an expiring node whose pod is
// do-not-disrupt is not drained while the pod runs, without a
// terminationGracePeriod to force it: the node stays, cordoned.
func TestDrainWaitsForDoNotDisrupt(t *testing.T) {
	inline := strings.Replace(drainCluster("", 1, ""), "    metadata: {labels: {app: web}}",
		"    metadata: {labels: {app: web}, annotations: {karpenter.sh/do-not-disrupt: \"true\"}}", 1)
	res := run(t, Scenario{Seed: 1, Duration: dur(30 * time.Minute), Inline: inline})
	blocked := kinds(res, KindDrainBlocked)
	if len(blocked) != 1 || !strings.Contains(blocked[0].Reason, "do-not-disrupt") {
		t.Fatalf("want one drain blocked by do-not-disrupt:\n%s", timeline(res))
	}
	if len(kinds(res, KindDrained)) != 0 || res.Final.Nodes != 1 || res.Evictions != 0 {
		t.Fatalf("the node must stay with its pod, final %+v, %d evictions:\n%s", res.Final, res.Evictions, timeline(res))
	}
}

// TestInterruptedDrainEndsWithTheNotice: a spot node interrupted while a
// PDB allows none of its pods to go drains until its instance is gone, two
// minutes after the notice, and no longer.
func TestInterruptedDrainEndsWithTheNotice(t *testing.T) {
	pdb := strings.Replace(pdbMaxUnavailable1, "maxUnavailable: 1", "maxUnavailable: 0", 1)
	inline := strings.Replace(drainCluster("", 2, pdb), "values: [on-demand]", "values: [spot]", 1)
	res := run(t, Scenario{Seed: 1, Duration: dur(8 * time.Minute), Inline: inline,
		Steps: []Step{{At: dur(3 * time.Minute), Interrupt: &InterruptStep{Count: 1}}}})
	ints, drained := kinds(res, KindInterruption), kinds(res, KindDrained)
	if len(ints) != 1 || ints[0].Pods != 0 || len(drained) != 1 {
		t.Fatalf("want an interruption evicting nothing, then a forced drain:\n%s", timeline(res))
	}
	if got := drained[0].At.Duration - ints[0].At.Duration; got != 2*time.Minute {
		t.Errorf("drain ended %v after the notice, want the notice's 2m", got)
	}
	if res.Final.PendingPods != 0 || res.Final.Pods != 2 {
		t.Errorf("final %+v, want the 2 pods bound again", res.Final)
	}
}
