package snapshot

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/manifests"
)

// Manifests shared by the tests: a small NodePool and its EC2NodeClass.
const (
	nodeClassYAML = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: general}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  role: KarpenterNodeRole
`
	nodePoolYAML = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    metadata:
      labels: {team: web}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: general}
      startupTaints: [{key: example.com/booting, effect: NoSchedule}]
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}
  disruption: {consolidateAfter: 30s}
`
)

// decode reads YAML documents into a Set, failing the test on any error.
func decode(t *testing.T, docs ...string) *manifests.Set {
	t.Helper()
	set, err := manifests.Decode("test.yaml", []byte(strings.Join(docs, "\n---\n")))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return set
}

// build decodes the documents and builds their snapshot.
func build(t *testing.T, docs ...string) *Snapshot {
	t.Helper()
	s, err := FromSet(decode(t, docs...), Options{})
	if err != nil {
		t.Fatalf("FromSet: %v", err)
	}
	return s
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

// podYAML is a pod requesting 1 CPU; extra is appended to its spec.
func podYAML(name, extra string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: "1"}}}]
` + extra
}
