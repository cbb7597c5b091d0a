package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Karpenter v1.15's inputs: the Unhealthy budget reason, and the
// pod-deletion-cost the API server checks, which the eviction cost reads.
func TestV115Inputs(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		errors     []string
	}{
		{name: "a budget for Unhealthy (node repair) is accepted", yaml: nodePool(budgets(`{nodes: "1", reasons: [Unhealthy, Drifted]}`))},
		{name: "a pod-deletion-cost that is no 32-bit integer",
			yaml:   "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: prod, annotations: {controller.kubernetes.io/pod-deletion-cost: '1.5'}}\nspec:\n  containers:\n  - name: a\n    image: x\n",
			errors: []string{`bad.yaml: Pod/prod/web: metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: "1.5" must be a 32-bit integer, such as "100" or "-5"`}},
		{name: "a template's pod-deletion-cost with a plus sign",
			yaml:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}, annotations: {controller.kubernetes.io/pod-deletion-cost: '+10'}}\n    spec:\n      containers:\n      - name: a\n        image: x\n",
			errors: []string{`bad.yaml: Deployment/prod/web: spec.template.metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: "+10" must be a 32-bit integer, such as "100" or "-5"`}},
		{name: "a disruption-cost Karpenter cannot read is kept (Karpenter ignores it)",
			yaml: "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: prod, annotations: {karpenter.sh/disruption-cost: lots, controller.kubernetes.io/pod-deletion-cost: '-5'}}\nspec:\n  containers:\n  - name: a\n    image: x\n"},
		{name: "a NodeClaim condition status the CRD refuses",
			yaml:   "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: default-a1b2c}\nspec:\n  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n  requirements: []\nstatus:\n  conditions:\n    - {type: Rebooting, status: \"yes\", reason: RebootRequested}\n",
			errors: []string{`bad.yaml: NodeClaim/default-a1b2c: status.conditions[0].status: "yes" is not a condition status (use True, False or Unknown)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(c.yaml))
			assert.Equal(t, c.errors, errorStrings(t, err))
		})
	}
}
