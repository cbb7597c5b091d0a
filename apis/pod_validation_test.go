package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// validationCase is a pod spec (or Node, or PDB) written as YAML and the
// problems its validation must report, each "path: start of message"; no
// problems means the object is valid.
type validationCase struct {
	name string
	yaml string
	want []string
}

func checkCases(t *testing.T, cases []validationCase, validate func(t *testing.T, text string) FieldErrors) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := validate(t, tc.yaml)
			require.Len(t, got, len(tc.want), "problems: %v", got)
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(got[i].Error(), w), "problem %d:\n got %q\nwant %q…", i, got[i].Error(), w)
			}
		})
	}
}

func validatePodSpecYAML(t *testing.T, text string) FieldErrors {
	var spec corev1.PodSpec
	require.NoError(t, yaml.UnmarshalStrict([]byte(text), &spec))
	before := spec.DeepCopy()
	got := ValidatePodSpec(&spec, "spec")
	assert.Equal(t, before, &spec, "the spec was changed")
	return got
}

func TestValidatePodSpecResources(t *testing.T) {
	checkCases(t, []validationCase{
		{name: "cpu and memory requests", yaml: `containers: [{name: c, resources: {requests: {cpu: 1500m, memory: 1Gi}}}]`},
		{name: "requests below limits", yaml: `containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "2", memory: 2Gi}}}]`},
		{name: "a GPU by its limit", yaml: `containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]`},
		{name: "a GPU requested and limited alike", yaml: `containers: [{name: c, resources: {requests: {nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}}]`},
		// Extended resources are counted in whole units.
		{name: "half a GPU", yaml: `containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1.5"}, limits: {nvidia.com/gpu: "1.5"}}}]`,
			want: []string{
				"spec.containers[0] (c).resources.limits[nvidia.com/gpu]: 1500m: nvidia.com/gpu is an extended resource, counted in whole units",
				"spec.containers[0] (c).resources.requests[nvidia.com/gpu]: 1500m: nvidia.com/gpu is an extended resource",
			}},
		{name: "a GPU request without a limit", yaml: `containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}}}]`,
			want: []string{"spec.containers[0] (c).resources.limits[nvidia.com/gpu]: required: nvidia.com/gpu cannot be overcommitted"}},
		{name: "a GPU request below its limit", yaml: `containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "2"}}}]`,
			want: []string{"spec.containers[0] (c).resources.requests[nvidia.com/gpu]: 1 must equal its limit 2"}},
		{name: "cpu request above its limit", yaml: `containers: [{name: c, resources: {requests: {cpu: "4"}, limits: {cpu: "2"}}}]`,
			want: []string{"spec.containers[0] (c).resources.requests[cpu]: 4 is more than its limit 2"}},
		{name: "memory request above its limit in an init container", yaml: `{initContainers: [{name: i, resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}], containers: [{name: c}]}`,
			want: []string{"spec.initContainers[0] (i).resources.requests[memory]: 2Gi is more than its limit 1Gi"}},
		{name: "a negative limit", yaml: `containers: [{name: c, resources: {limits: {cpu: "-1"}}}]`,
			want: []string{"spec.containers[0] (c).resources.limits[cpu]: -1: must be 0 or more"}},
		{name: "a resource name without a domain that is not a container resource", yaml: `containers: [{name: c, resources: {requests: {gpu: "1"}}}]`,
			want: []string{`spec.containers[0] (c).resources.requests[gpu]: "gpu" is not a container resource`}},
		{name: "a resource name that is not a qualified name", yaml: `containers: [{name: c, resources: {limits: {"has space/x": "1"}}}]`,
			want: []string{`spec.containers[0] (c).resources.limits[has space/x]: "has space/x" is not a valid resource name`}},
		{name: "huge pages with memory", yaml: `containers: [{name: c, resources: {requests: {memory: 1Gi, hugepages-2Mi: 4Mi}, limits: {hugepages-2Mi: 4Mi}}}]`},
		{name: "huge pages alone", yaml: `containers: [{name: c, resources: {requests: {hugepages-2Mi: 4Mi}, limits: {hugepages-2Mi: 4Mi}}}]`,
			want: []string{"spec.containers[0] (c).resources: huge pages require a cpu or memory request or limit"}},
		{name: "huge pages not a whole number of pages", yaml: `containers: [{name: c, resources: {requests: {cpu: "1", hugepages-2Mi: 3Mi}, limits: {hugepages-2Mi: 3Mi}}}]`,
			want: []string{"spec.containers[0] (c).resources.limits[hugepages-2Mi]: 3Mi is not a whole number of 2Mi pages"}},
		{name: "huge pages of no size", yaml: `containers: [{name: c, resources: {requests: {cpu: "1"}, limits: {hugepages-big: 2Mi}}}]`,
			want: []string{`spec.containers[0] (c).resources.limits[hugepages-big]: "hugepages-big" does not name a page size`}},
		{name: "pod-level requests above limits", yaml: `{resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}, containers: [{name: c}]}`,
			want: []string{"spec.resources.requests[cpu]: 2 is more than its limit 1"}},
		{name: "pod-level GPUs", yaml: `{resources: {limits: {nvidia.com/gpu: "1"}}, containers: [{name: c}]}`,
			want: []string{`spec.resources.limits[nvidia.com/gpu]: "nvidia.com/gpu" cannot be set for the whole pod`}},
		{name: "fractional extended overhead", yaml: `{overhead: {example.com/widget: 500m}, containers: [{name: c}]}`,
			want: []string{"spec.overhead[example.com/widget]: 500m: example.com/widget is an extended resource"}},
		{name: "host port out of range", yaml: `containers: [{name: c, ports: [{containerPort: 80, hostPort: 70000}]}]`,
			want: []string{"spec.containers[0] (c).ports[0].hostPort: 70000: must be from 0 to 65535"}},
		{name: "unknown protocol", yaml: `containers: [{name: c, ports: [{containerPort: 80, hostPort: 80, protocol: QUIC}]}]`,
			want: []string{`spec.containers[0] (c).ports[0].protocol: "QUIC" is not supported`}},
	}, validatePodSpecYAML)
}

func TestValidatePodSpecPlacement(t *testing.T) {
	checkCases(t, []validationCase{
		{name: "a nodeSelector", yaml: `{nodeSelector: {kubernetes.io/arch: arm64, team: ""}, containers: [{name: c}]}`},
		{name: "a nodeSelector key with a space", yaml: `{nodeSelector: {"has space/!!": x}, containers: [{name: c}]}`,
			want: []string{`spec.nodeSelector["has space/!!"]: "has space/!!" is not a valid label key`}},
		{name: "a nodeSelector value of 100,000 characters", yaml: `{nodeSelector: {team: ` + strings.Repeat("x", 100_000) + `}, containers: [{name: c}]}`,
			want: []string{`spec.nodeSelector["team"]: "` + strings.Repeat("x", maxShown) + `"… (100000 bytes) is not a valid label value: must be no more than 63 bytes`}},
		{name: "node affinity", yaml: `{affinity: {nodeAffinity: {
  requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [arm64]}, {key: example.com/gen, operator: Gt, values: ["4"]}]}]},
  preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, preference: {matchExpressions: [{key: team, operator: Exists}]}}]}},
 containers: [{name: c}]}`},
		{name: "no node selector terms", yaml: `{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}, containers: [{name: c}]}`,
			want: []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: required"}},
		{name: "node affinity operators", yaml: `{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [
  {key: a, operator: In}, {key: b, operator: Exists, values: [x]}, {key: c, operator: Gt, values: ["1", "2"]}, {key: d, operator: Like, values: [x]}, {key: "bad key", operator: Exists}]}]}}},
 containers: [{name: c}]}`,
			want: []string{
				"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: required when the operator is In or NotIn",
				"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: must be empty",
				"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: operator Gt takes exactly one value, got 2",
				`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: "Like" is not a node selector operator`,
				`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[4].key: "bad key" is not a valid label key`,
			}},
		{name: "a field selector on something other than the name", yaml: `{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.uid, operator: In, values: [a, b]}]}]}}}, containers: [{name: c}]}`,
			want: []string{
				`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: "metadata.uid" is not a supported field`,
				"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: a field selector takes exactly one value, got 2",
			}},
		{name: "a preference of weight 0", yaml: `{affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}, containers: [{name: c}]}`,
			want: []string{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0 is out of range (1 to 100)"}},
		{name: "pod anti-affinity", yaml: `{affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname, matchLabelKeys: [pod-template-hash]}]}}, containers: [{name: c}]}`},
		{name: "pod affinity terms", yaml: `{affinity: {podAffinity: {
  requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchExpressions: [{key: app, operator: Has}]}, namespaces: [Not_A_Namespace]}],
  preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: "zone key", matchLabelKeys: [app]}}]}},
 containers: [{name: c}]}`,
			want: []string{
				`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: "Has": not a valid selector operator`,
				`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[0]: "Not_A_Namespace" is not a namespace name`,
				"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required",
				"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101 is out of range",
				`spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: "zone key" is not a valid topology key`,
				`spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.matchLabelKeys[0]: "app" is already in labelSelector`,
			}},
		{name: "tolerations", yaml: `{tolerations: [{operator: Exists}, {key: a, operator: Equal, value: b, effect: NoExecute, tolerationSeconds: 30}, {key: c, effect: PreferNoSchedule}], containers: [{name: c}]}`},
		{name: "bad tolerations", yaml: `{tolerations: [{value: x}, {key: a, operator: Exists, value: b}, {key: "a b", operator: Equal, effect: Sometimes}, {key: d, operator: Gt, value: "1"}, {key: e, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}], containers: [{name: c}]}`,
			want: []string{
				"spec.tolerations[0].operator: must be Exists when key is empty",
				"spec.tolerations[1].value: must be empty when the operator is Exists",
				`spec.tolerations[2].key: "a b" is not a valid toleration key`,
				`spec.tolerations[2].effect: "Sometimes" is not a taint effect`,
				`spec.tolerations[3].operator: "Gt" is not a toleration operator`,
				"spec.tolerations[4].effect: must be NoExecute when tolerationSeconds is set",
			}},
		{name: "spread constraints", yaml: `{topologySpreadConstraints: [
  {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash], nodeTaintsPolicy: Honor},
  {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}],
 containers: [{name: c}]}`},
		{name: "maxSkew 0", yaml: `{topologySpreadConstraints: [{maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}], containers: [{name: c}]}`,
			want: []string{"spec.topologySpreadConstraints[0].maxSkew: 0: must be at least 1"}},
		{name: "bad spread constraints", yaml: `{topologySpreadConstraints: [
  {maxSkew: 1, topologyKey: "", whenUnsatisfiable: Maybe},
  {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 0, nodeAffinityPolicy: Sometimes, matchLabelKeys: [app]},
  {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {"a b": c}}}],
 containers: [{name: c}]}`,
			want: []string{
				"spec.topologySpreadConstraints[0].topologyKey: required",
				`spec.topologySpreadConstraints[0].whenUnsatisfiable: "Maybe" is not supported`,
				"spec.topologySpreadConstraints[1].minDomains: 0: must be at least 1",
				"spec.topologySpreadConstraints[1].minDomains: only allowed with whenUnsatisfiable DoNotSchedule",
				`spec.topologySpreadConstraints[1].nodeAffinityPolicy: "Sometimes" is not supported`,
				"spec.topologySpreadConstraints[1].matchLabelKeys: must be empty when labelSelector is not set",
				`spec.topologySpreadConstraints[2]: duplicate: spec.topologySpreadConstraints[1] already has topologyKey "zone"`,
				`spec.topologySpreadConstraints[2].labelSelector.matchLabels: "a b": name part must consist of alphanumeric characters`,
			}},
		{name: "scheduling gates", yaml: `{schedulingGates: [{name: example.com/wait}, {name: example.com/wait}, {name: "no way"}], containers: [{name: c}]}`,
			want: []string{
				`spec.schedulingGates[1].name: duplicate: "example.com/wait" is also gate 0`,
				`spec.schedulingGates[2].name: "no way" is not a valid scheduling gate name`,
			}},
	}, validatePodSpecYAML)
}

func TestValidateObjectName(t *testing.T) {
	for _, tc := range []struct {
		kind, namespace, name string
		want                  []string
	}{
		{"Pod", "default", "web-7d4b9c-x2x9z", nil},
		{"Pod", "", "", nil},
		{"Node", "", "ip-10-0-1-23.ec2.internal", nil},
		{"Pod", "default", "web\u200b", []string{`metadata.name: "web\u200b" is not a valid Pod name`}},
		{"Pod", "default", "web\u202egnp", []string{`metadata.name: "web\u202egnp" is not a valid Pod name`}},
		{"Deployment", "default", "Web", []string{`metadata.name: "Web" is not a valid Deployment name`}},
		{"Service", "default", "my.service", []string{`metadata.name: "my.service" is not a valid Service name`}},
		{"Pod", "my.namespace", "p", []string{`metadata.namespace: "my.namespace" is not a valid namespace name`}},
		{"Node", "", strings.Repeat("n", 254), []string{`metadata.name: "` + strings.Repeat("n", maxShown) + `"… (254 bytes) is not a valid Node name: must be no more than 253`}},
	} {
		got := ValidateObjectName(tc.kind, tc.namespace, tc.name)
		require.Len(t, got, len(tc.want), "%s %q: %v", tc.kind, tc.name, got)
		for i, w := range tc.want {
			assert.True(t, strings.HasPrefix(got[i].Error(), w), "got %q, want %q…", got[i].Error(), w)
		}
	}
}

func TestValidateNode(t *testing.T) {
	checkCases(t, []validationCase{
		{name: "a kubelet's node", yaml: `{spec: {taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]}, status: {capacity: {cpu: "2", memory: 8Gi, pods: "29", nvidia.com/gpu: "1"}, allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}}}`},
		// The API server does not compare allocatable with capacity:
		// package snapshot clamps it, with a warning.
		{name: "allocatable above capacity", yaml: `{status: {capacity: {cpu: "2"}, allocatable: {cpu: "64"}}}`},
		{name: "bad taints", yaml: `{spec: {taints: [{key: a, value: "x y", effect: NoSchedule}, {key: a, effect: NoSchedule}, {effect: NoExecute}, {key: b, effect: Never}]}}`,
			want: []string{
				`spec.taints[0].value: "x y" is not a valid taint value`,
				"spec.taints[1]: duplicate: taint spec.taints[0] already has key",
				"spec.taints[2].key: required",
				`spec.taints[3].effect: "Never" is not a taint effect`,
			}},
		{name: "half a GPU of capacity", yaml: `{status: {capacity: {nvidia.com/gpu: 500m}, allocatable: {cpu: "-1"}}}`,
			want: []string{
				"status.capacity[nvidia.com/gpu]: 500m: nvidia.com/gpu is an extended resource",
				"status.allocatable[cpu]: -1: must be 0 or more",
			}},
	}, func(t *testing.T, text string) FieldErrors {
		var node corev1.Node
		require.NoError(t, yaml.UnmarshalStrict([]byte(text), &node))
		return ValidateNode(&node)
	})
}

func TestValidatePodDisruptionBudget(t *testing.T) {
	checkCases(t, []validationCase{
		{name: "maxUnavailable 1", yaml: `{spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}}`},
		{name: "minAvailable 100%", yaml: `{spec: {minAvailable: 100%, selector: {matchExpressions: [{key: app, operator: In, values: [web]}]}, unhealthyPodEvictionPolicy: AlwaysAllow}}`},
		{name: "both set", yaml: `{spec: {minAvailable: 1, maxUnavailable: 1}}`, want: []string{"spec: minAvailable and maxUnavailable cannot both be set"}},
		{name: "negative", yaml: `{spec: {maxUnavailable: -1}}`, want: []string{"spec.maxUnavailable: -1: must be 0 or more"}},
		{name: "not a percentage", yaml: `{spec: {minAvailable: half}}`, want: []string{`spec.minAvailable: "half" is not a number or a percentage`}},
		{name: "over 100%", yaml: `{spec: {maxUnavailable: 150%}}`, want: []string{`spec.maxUnavailable: "150%": a percentage may not be more than 100%`}},
		{name: "a selector without values", yaml: `{spec: {maxUnavailable: 1, selector: {matchExpressions: [{key: app, operator: In}]}}}`,
			want: []string{"spec.selector.matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'"}},
		{name: "an unknown eviction policy", yaml: `{spec: {maxUnavailable: 1, unhealthyPodEvictionPolicy: Never}}`,
			want: []string{`spec.unhealthyPodEvictionPolicy: "Never" is not supported`}},
	}, func(t *testing.T, text string) FieldErrors {
		var pdb policyv1.PodDisruptionBudget
		require.NoError(t, yaml.UnmarshalStrict([]byte(text), &pdb))
		return ValidatePodDisruptionBudget(&pdb)
	})
}

// BenchmarkValidatePodSpec measures the check the loader runs on every pod
// of a dump, on a pod as kubectl prints it (a memory limit, the two
// tolerations the API server adds) with a nodeSelector. apimachinery's
// IsLabelKey splits each key it checks, which allocates; nothing else
// does on a pod that passes.
func BenchmarkValidatePodSpec(b *testing.B) {
	var spec corev1.PodSpec
	require.NoError(b, yaml.UnmarshalStrict([]byte(`{nodeSelector: {kubernetes.io/os: linux},
 tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}, {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}],
 containers: [{name: app, resources: {requests: {cpu: 250m, memory: 512Mi}, limits: {memory: 512Mi}}}]}`), &spec))
	b.ReportAllocs()
	for b.Loop() {
		if got := ValidatePodSpec(&spec, "spec"); got != nil {
			b.Fatal(got)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for name, want := range map[string]string{
		"web-7d4b9c":             "web-7d4b9c",
		"web\u200b":              `"web\u200b"`,
		"web\u202egnp.exe":       `"web\u202egnp.exe"`,
		"has space":              `"has space"`,
		strings.Repeat("a", 300): `"` + strings.Repeat("a", maxShown) + `"… (300 bytes)`,
	} {
		assert.Equal(t, want, DisplayName(name), "DisplayName(%q)", name)
	}
}
