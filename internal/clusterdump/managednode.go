package clusterdump

import (
	"fmt"
	"io"
	"strings"
)

// managedNode is one Karpenter-managed node of a dump: its Node and its
// NodeClaim, initialized and Ready, which share the labels.
type managedNode struct {
	name, claim string
	// created is when both were created, RFC 3339.
	created  string
	provider string
	// labels are the labels both carry, each line indented four spaces.
	labels                string
	capacity, allocatable string
	// readyReason is the Ready condition's reason, "" for none.
	readyReason string
	// heartbeat is the Ready condition's last heartbeat.
	heartbeat string
	// expireNever sets the NodeClaim's expireAfter to Never.
	expireNever bool
	// requirements are the NodeClaim's requirements, as flow mappings.
	requirements []string
	lastPodEvent string
}

// write writes the Node and the NodeClaim, each document opened by ---.
func (n managedNode) write(w io.Writer) {
	reason := ""
	if n.readyReason != "" {
		reason = " reason: " + n.readyReason + ","
	}
	expire := ""
	if n.expireNever {
		expire = "  expireAfter: Never\n"
	}
	var reqs strings.Builder
	for _, r := range n.requirements {
		reqs.WriteString("    - " + r + "\n")
	}
	fmt.Fprintf(w, `---
apiVersion: v1
kind: Node
metadata:
  name: %[1]s
  creationTimestamp: "%[2]s"
  labels:
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
    kubernetes.io/hostname: %[1]s
%[3]sspec:
  providerID: %[4]s
status:
  capacity: %[5]s
  allocatable: %[6]s
  conditions:
    - {type: Ready, status: "True",%[7]s lastHeartbeatTime: "%[8]s", lastTransitionTime: "%[2]s"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: %[9]s
  creationTimestamp: "%[2]s"
  labels:
%[3]sspec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
%[10]s  requirements:
%[11]sstatus:
  nodeName: %[1]s
  providerID: %[4]s
  imageID: ami-0123456789abcdef0
  capacity: %[5]s
  allocatable: %[6]s
  lastPodEventTime: "%[12]s"
  conditions:
    - {type: Launched, status: "True", reason: Launched, lastTransitionTime: "%[2]s"}
    - {type: Registered, status: "True", reason: Registered, lastTransitionTime: "%[2]s"}
    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "%[2]s"}
`, n.name, n.created, n.labels, n.provider, n.capacity, n.allocatable, reason, n.heartbeat, n.claim, expire, reqs.String(), n.lastPodEvent)
}
