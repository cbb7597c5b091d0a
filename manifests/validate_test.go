package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each kind reaches the rules of package apis that apply to it, and the
// error names the file, the object and the field from the object's root.
func TestEveryKindIsValidated(t *testing.T) {
	const badSpec = `{containers: [{name: c, image: x}], topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}`
	const badTemplate = `template: {metadata: {labels: {app: w}}, spec: ` + badSpec + `}`
	const selector = `selector: {matchLabels: {app: w}}`
	const skew = "topologySpreadConstraints[0].maxSkew: 0: must be at least 1"
	for _, tc := range []struct {
		yaml, want string
	}{
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: " + badSpec, "bad.yaml: Pod/d/p: spec." + skew},
		{"apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t, namespace: d}\n" + badTemplate, "bad.yaml: PodTemplate/d/t: template.spec." + skew},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: d}\nspec: {" + selector + ", " + badTemplate + "}", "bad.yaml: Deployment/d/w: spec.template.spec." + skew},
		{"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: w, namespace: d}\nspec: {" + selector + ", " + badTemplate + "}", "bad.yaml: ReplicaSet/d/w: spec.template.spec." + skew},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: w, namespace: d}\nspec: {" + selector + ", " + badTemplate + "}", "bad.yaml: StatefulSet/d/w: spec.template.spec." + skew},
		{"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: w, namespace: d}\nspec: {" + selector + ", " + badTemplate + "}", "bad.yaml: DaemonSet/d/w: spec.template.spec." + skew},
		{"apiVersion: batch/v1\nkind: Job\nmetadata: {name: w, namespace: d}\nspec: {" + badTemplate + "}", "bad.yaml: Job/d/w: spec.template.spec." + skew},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: d}\nspec: {selector: {matchExpressions: [{key: app, operator: Near}]}, template: {spec: {containers: [{name: c}]}}}",
			`bad.yaml: Deployment/d/w: spec.selector.matchExpressions[0].operator: "Near": not a valid selector operator`},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: d}\nspec: {template: {metadata: {labels: {app: \"a b\"}}, spec: {containers: [{name: c}]}}}",
			`bad.yaml: Deployment/d/w: spec.template.metadata.labels[app]: "a b" is not a valid label value`},
		{"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: Always}]}", `bad.yaml: Node/n1: spec.taints[0].effect: "Always" is not a taint effect`},
		{"apiVersion: v1\nkind: Node\nmetadata: {name: N_1}\n", `bad.yaml: Node/N_1: metadata.name: "N_1" is not a valid Node name`},
		{"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: d}\nspec: {minAvailable: 1, maxUnavailable: 1}", "bad.yaml: PodDisruptionBudget/d/b: spec: minAvailable and maxUnavailable cannot both be set"},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: My_NS}\nspec: {containers: [{name: c}]}", `bad.yaml: Pod/My_NS/p: metadata.namespace: "My_NS" is not a valid namespace name`},
	} {
		_, err := Decode("bad.yaml", []byte(tc.yaml))
		got := errorStrings(t, err)
		if assert.Len(t, got, 1, tc.want) {
			assert.True(t, strings.HasPrefix(got[0], tc.want), "got  %s\nwant %s…", got[0], tc.want)
		}
	}
}
