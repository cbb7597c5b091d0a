package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUnknownFieldExplainsError holds that an error caused by a misspelt
// field names the misspelling and the field meant, for every path an
// object takes (Karpenter kinds, core kinds checked across objects, List
// items, JSON), while an unknown field that explains nothing stays a
// warning only.
func TestUnknownFieldExplainsError(t *testing.T) {
	const buffer = "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: headroom}\nspec: "
	const podTemplate = "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: web}\ntemplate: {spec: {containers: [{name: a, image: x}]}}\n---\n"
	cases := []struct {
		name     string
		yaml     string
		errors   []string
		warnings []string
	}{
		{name: "misspelt requirements",
			yaml:     nodePool(map[string]string{"requirements": "null", "template": "requirments: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]"}),
			errors:   []string{np + "spec.template.spec.requirements: required (an empty list is allowed); unknown field requirments (did you mean requirements?)"},
			warnings: []string{np + "unknown field spec.template.spec.requirments ignored"}},
		{name: "misspelt field inside a reference",
			yaml:     strings.Replace(nodePool(nil), "name: default}", "nmae: default}", 1),
			errors:   []string{np + "spec.template.spec.nodeClassRef.name: required: the name of the EC2NodeClass to use; unknown field nmae (did you mean name?)"},
			warnings: []string{np + "unknown field spec.template.spec.nodeClassRef.nmae ignored"}},
		{name: "misspelt field of an EC2NodeClass",
			yaml:     ec2NodeClass("  amiSelectorTerms: [{alias: al2023@latest}]\n  role: R\n  subnetSelectorTerm: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n"),
			errors:   []string{ncPath + "spec.subnetSelectorTerms: required: at least one term, e.g. {tags: {karpenter.sh/discovery: my-cluster}}; unknown field subnetSelectorTerm (did you mean subnetSelectorTerms?)"},
			warnings: []string{ncPath + "unknown field spec.subnetSelectorTerm ignored"}},
		{name: "a core kind's field checked across objects",
			yaml:     podTemplate + buffer + "{podTemplateRef: {nmae: web}, replicas: 2}\n",
			errors:   []string{"bad.yaml: CapacityBuffer/headroom: spec.podTemplateRef.name: required; unknown field nmae (did you mean name?)"},
			warnings: []string{"bad.yaml: CapacityBuffer/headroom: unknown field spec.podTemplateRef.nmae ignored"}},
		{name: "an error about the parent that names the field meant",
			yaml:     podTemplate + buffer + "{podTemplatRef: {name: web}, replicas: 2}\n",
			errors:   []string{"bad.yaml: CapacityBuffer/headroom: spec: one of podTemplateRef and scalableRef is required: it gives the shape of a chunk; unknown field podTemplatRef (did you mean podTemplateRef?)"},
			warnings: []string{"bad.yaml: CapacityBuffer/headroom: unknown field spec.podTemplatRef ignored"}},
		{name: "a List item",
			yaml: "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.SplitN(strings.Replace(nodePool(nil), "name: default}", "nmae: default}", 1), "---", 2)[0], "\n", "\n  ") +
				"\n" + "---\n" + nodeClassDoc,
			errors:   []string{"bad.yaml: NodePool/default: spec.template.spec.nodeClassRef.name: required: the name of the EC2NodeClass to use; unknown field nmae (did you mean name?)"},
			warnings: []string{"bad.yaml: NodePool/default: unknown field spec.template.spec.nodeClassRef.nmae ignored"}},
		{name: "a misspelling far from the field meant is still named",
			yaml:     nodePool(map[string]string{"requirements": "null", "template": "reqs: []"}),
			errors:   []string{np + "spec.template.spec.requirements: required (an empty list is allowed); unknown field reqs"},
			warnings: []string{np + "unknown field spec.template.spec.reqs ignored"}},
		{name: "an unknown field that explains no error is a warning only",
			yaml:     nodePool(map[string]string{"template": "kubelet: {maxPods: 10}", "spec": "limits: {cpu: lots}"}),
			errors:   []string{np + `spec.limits[cpu]: "lots" is not a quantity (use e.g. "500m", "2" or "1.5Gi")`},
			warnings: []string{np + "unknown field spec.template.spec.kubelet ignored"}},
		{name: "another object's unknown field explains nothing",
			yaml:     strings.Replace(nodePool(map[string]string{"requirements": "null"}), "role: KarpenterNodeRole", "role: KarpenterNodeRole\n  requirments: []", 1),
			errors:   []string{np + "spec.template.spec.requirements: required (an empty list is allowed)"},
			warnings: []string{"bad.yaml: EC2NodeClass/default: unknown field spec.requirments ignored"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Decode("bad.yaml", []byte(c.yaml))
			assert.Equal(t, c.errors, errorStrings(t, err))
			assert.Equal(t, c.warnings, warningStrings(s))
		})
	}
}
