package manifests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// nodeClassDoc is a valid EC2NodeClass that the NodePools below reference.
const nodeClassDoc = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
`

// nodePool returns a valid NodePool followed by nodeClassDoc, with parts
// replaced: keys are "labels", "requirements", "template" (extra template
// spec fields), "disruption" and "spec" (extra spec fields), written in
// flow style.
func nodePool(parts map[string]string) string {
	get := func(k, def string) string {
		if v, ok := parts[k]; ok {
			return v
		}
		return def
	}
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels: %s
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}
      requirements: %s
      %s
  disruption: %s
  %s
---
`, get("labels", "{team: a}"), get("class", "default"), get("requirements", "[{key: kubernetes.io/arch, operator: In, values: [amd64]}]"),
		get("template", ""), get("disruption", "{consolidateAfter: 0s}"), get("spec", "")) + nodeClassDoc
}

func req(r string) map[string]string { return map[string]string{"requirements": "[" + r + "]"} }

func budgets(b string) map[string]string {
	return map[string]string{"disruption": "{consolidateAfter: 0s, budgets: [" + b + "]}"}
}

func ec2NodeClass(spec string) string {
	return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n" + spec
}

const (
	np      = "bad.yaml: NodePool/default: "
	reqPath = np + "spec.template.spec.requirements[0]."
	ncPath  = "bad.yaml: EC2NodeClass/default: "
)

const restrictedDomains = `is reserved (karpenter.k8s.aws, karpenter.sh); use a well-known label or a key outside these domains`

var badManifests = []struct {
	name     string
	yaml     string
	errors   []string
	warnings []string
}{
	{name: "valid baseline", yaml: nodePool(nil)},
	{name: "unknown kind is skipped with a warning",
		yaml:     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {a: b}\n",
		warnings: []string{"bad.yaml: ConfigMap/web: skipped: karpsim does not read kind ConfigMap (apiVersion v1)"}},
	{name: "unknown field is ignored with a warning",
		yaml:     nodePool(map[string]string{"template": "kubelet: {maxPods: 10}"}),
		warnings: []string{np + "unknown field spec.template.spec.kubelet ignored"}},
	{name: "bad quantity in limits",
		yaml:   nodePool(map[string]string{"spec": "limits: {cpu: lots, nvidia.com/gpu: 2}"}),
		errors: []string{np + `spec.limits[cpu]: "lots" is not a quantity (use e.g. "500m", "2" or "1.5Gi")`}},
	{name: "bad quantity in a pod's requests",
		yaml: "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: prod}\nspec:\n  containers:\n  - name: a\n    image: x\n  - name: b\n    image: x\n    resources: {requests: {cpu: lots, memory: 1Gi}, limits: {memory: 2 Gi}}\n",
		errors: []string{
			`bad.yaml: Pod/prod/web: spec.containers[1].resources.limits[memory]: "2 Gi" is not a quantity (use e.g. "500m", "2" or "1.5Gi")`,
			`bad.yaml: Pod/prod/web: spec.containers[1].resources.requests[cpu]: "lots" is not a quantity (use e.g. "500m", "2" or "1.5Gi")`,
		}},
	{name: "invalid operator", yaml: nodePool(req("{key: kubernetes.io/arch, operator: Equals, values: [amd64]}")),
		errors: []string{reqPath + `operator: "Equals" is not a supported operator (use In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)`}},
	{name: "Gt with two values", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ['4', '8']}")),
		errors: []string{reqPath + "values: operator Gt takes exactly one value, a non-negative integer; got 2 values"}},
	{name: "Gt with a non-integer", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: [four]}")),
		errors: []string{reqPath + `values[0]: operator Gt needs a non-negative integer, not "four"`}},
	{name: "Lte with a negative integer", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-cpu, operator: Lte, values: ['-1']}")),
		errors: []string{reqPath + `values[0]: operator Lte needs a non-negative integer, not "-1"`}},
	{name: "In without values", yaml: nodePool(req("{key: kubernetes.io/arch, operator: In}")),
		errors: []string{reqPath + "values: operator In needs at least one value"}},
	{name: "Exists with values", yaml: nodePool(req("{key: example.com/team, operator: Exists, values: [a]}")),
		errors: []string{reqPath + "values: operator Exists takes no values, got 1"}},
	{name: "minValues above the number of values", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], minValues: 3}")),
		errors: []string{reqPath + "minValues: 3 is more than the 2 values given; operator In needs at least minValues values"}},
	// The CRD bounds minValues for every operator but compares it with the
	// values only for In (issue 28).
	{name: "minValues with NotIn is allowed", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t2], minValues: 2}"))},
	{name: "minValues out of range", yaml: nodePool(req("{key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 51}")),
		errors: []string{reqPath + "minValues: 51 is out of range (1 to 50)"}},
	{name: "requirement on kubernetes.io/hostname", yaml: nodePool(req("{key: kubernetes.io/hostname, operator: In, values: [a]}")),
		errors: []string{reqPath + `key: label "kubernetes.io/hostname" is restricted: Karpenter sets it to each node's own name`}},
	{name: "requirement on karpenter.sh/nodepool", yaml: nodePool(req("{key: karpenter.sh/nodepool, operator: In, values: [a]}")),
		errors: []string{reqPath + `key: label "karpenter.sh/nodepool" is restricted: Karpenter sets it to the NodePool's name on every node`}},
	{name: "requirement on node-restriction.kubernetes.io is allowed", yaml: nodePool(req("{key: node-restriction.kubernetes.io/x, operator: Exists}"))},
	{name: "requirement on a deprecated well-known label is allowed", yaml: nodePool(req("{key: failure-domain.beta.kubernetes.io/zone, operator: In, values: [us-east-1a]}"))},
	{name: "requirement on karpenter.k8s.aws/foo", yaml: nodePool(req("{key: karpenter.k8s.aws/foo, operator: Exists}")),
		errors: []string{reqPath + `key: label "karpenter.k8s.aws/foo" is restricted: its domain "karpenter.k8s.aws" ` + restrictedDomains}},
	{name: "requirement key with bad syntax", yaml: nodePool(req("{key: 'example.com/a b', operator: Exists}")),
		errors: []string{reqPath + `key: "example.com/a b" is not a valid label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	{name: "restricted template label", yaml: nodePool(map[string]string{"labels": "{karpenter.k8s.aws/role: worker, node.kubernetes.io/role: worker}"}),
		errors: []string{np + `spec.template.metadata.labels[karpenter.k8s.aws/role]: label "karpenter.k8s.aws/role" is restricted: its domain "karpenter.k8s.aws" ` + restrictedDomains}},
	// Upstream's CRD and runtime validation reserve karpenter.sh and
	// karpenter.k8s.aws only (issue 28: found through the conformance door).
	{name: "kubernetes.io template label is allowed", yaml: nodePool(map[string]string{"labels": "{kubernetes.io/role: worker}"})},
	{name: "template label karpenter.sh/nodepool", yaml: nodePool(map[string]string{"labels": "{karpenter.sh/nodepool: other}"}),
		errors: []string{np + `spec.template.metadata.labels[karpenter.sh/nodepool]: label "karpenter.sh/nodepool" is restricted: Karpenter sets it to the NodePool's name on every node`}},
	{name: "template label value that YAML reads as a boolean", yaml: nodePool(map[string]string{"labels": "{spot: yes}"}),
		errors: []string{np + "spec.template.metadata.labels[spot]: expected a string, got true"}},
	{name: "budget nodes not a number", yaml: nodePool(budgets(`{nodes: "ten"}`)),
		errors: []string{np + `spec.disruption.budgets[0].nodes: "ten" is not a node count or a percentage (use e.g. "10" or "10%"; percentages go up to 100%)`}},
	{name: "budget nodes above 100%", yaml: nodePool(budgets(`{nodes: "150%"}`)),
		errors: []string{np + `spec.disruption.budgets[0].nodes: "150%" is not a node count or a percentage (use e.g. "10" or "10%"; percentages go up to 100%)`}},
	{name: "budget nodes as a YAML number", yaml: nodePool(budgets(`{nodes: 10}`)),
		errors: []string{np + "spec.disruption.budgets[0].nodes: expected a string, got the number 10"}},
	{name: "schedule without duration", yaml: nodePool(budgets(`{nodes: "0", schedule: "0 9 * * mon-fri"}`)),
		errors: []string{np + `spec.disruption.budgets[0].duration: required when schedule is set: how long the budget stays active after each schedule hit, e.g. "8h"`}},
	{name: "duration without schedule", yaml: nodePool(budgets(`{nodes: "0", duration: 8h}`)),
		errors: []string{np + `spec.disruption.budgets[0].schedule: required when duration is set: a cron expression in UTC such as "0 9 * * mon-fri" or "@daily"`}},
	{name: "invalid cron", yaml: nodePool(budgets(`{nodes: "0", schedule: "0 25 * * *", duration: 1h}`)),
		errors: []string{np + `spec.disruption.budgets[0].schedule: "0 25 * * *" is not a valid cron schedule: end of range (25) above maximum (23): 25`}},
	{name: "cron macro is accepted", yaml: nodePool(budgets(`{nodes: "0", schedule: "@daily", duration: 1h30m}`))},
	{name: "budget duration in seconds", yaml: nodePool(budgets(`{nodes: "0", schedule: "@daily", duration: 90s}`)),
		errors: []string{np + `spec.disruption.budgets[0].duration: "90s" is not a budget duration (use hours and minutes, e.g. "8h", "30m" or "1h30m")`}},
	{name: "bad reason", yaml: nodePool(budgets(`{nodes: "1", reasons: [Drifted, Expired]}`)),
		errors: []string{np + `spec.disruption.budgets[0].reasons[1]: "Expired" is not a disruption reason (use Empty, Drifted, Underutilized or Unhealthy)`}},
	{name: "51 budgets", yaml: nodePool(budgets(strings.Repeat(`{nodes: "1"}, `, 51))),
		errors: []string{np + "spec.disruption.budgets: 51 budgets, at most 50 are allowed"}},
	{name: "weight 0", yaml: nodePool(map[string]string{"spec": "weight: 0"}),
		errors: []string{np + "spec.weight: 0 is out of range (1 to 100; leave weight out to rank the NodePool lowest, as 0)"}},
	{name: "weight 101", yaml: nodePool(map[string]string{"spec": "weight: 101"}),
		errors: []string{np + "spec.weight: 101 is out of range (1 to 100; leave weight out to rank the NodePool lowest, as 0)"}},
	{name: "weight not a number", yaml: nodePool(map[string]string{"spec": "weight: high"}),
		errors: []string{np + `spec.weight: expected an integer, got the string "high"`}},
	{name: "v1beta1 consolidation policy in v1", yaml: nodePool(map[string]string{"disruption": "{consolidationPolicy: WhenUnderutilized, consolidateAfter: 0s}"}),
		errors: []string{np + `spec.disruption.consolidationPolicy: "WhenUnderutilized" is not a consolidation policy of karpenter.sh/v1 (use WhenEmpty, WhenEmptyOrUnderutilized or Balanced)`}},
	{name: "expireAfter in days", yaml: nodePool(map[string]string{"template": "expireAfter: 30d"}),
		errors: []string{np + `spec.template.spec.expireAfter: "30d" is not a duration (use whole numbers with units s, m or h, e.g. "30s", "720h" or "1h30m", or "Never")`}},
	{name: "fractional consolidateAfter", yaml: nodePool(map[string]string{"disruption": "{consolidateAfter: 1.5m}"}),
		errors: []string{np + `spec.disruption.consolidateAfter: "1.5m" is not a duration (use whole numbers with units s, m or h, e.g. "30s", "720h" or "1h30m", or "Never")`}},
	{name: "bad terminationGracePeriod", yaml: nodePool(map[string]string{"template": "terminationGracePeriod: Never"}),
		errors: []string{np + `spec.template.spec.terminationGracePeriod: "Never" is not a duration (use whole numbers with units s, m or h, e.g. "30s", "720h" or "1h30m")`}},
	{name: "bad taint effect", yaml: nodePool(map[string]string{"template": "taints: [{key: gpu, effect: NoScheduling}]"}),
		errors: []string{np + `spec.template.spec.taints[0].effect: "NoScheduling" is not a taint effect (use NoSchedule, PreferNoSchedule or NoExecute)`}},
	{name: "EC2NodeClass reference that does not exist", yaml: nodePool(map[string]string{"class": "gpu"}),
		errors: []string{np + `spec.template.spec.nodeClassRef.name: EC2NodeClass "gpu" not found (EC2NodeClasses given: default)`}},
	{name: "nodeClassRef to another provider's kind", yaml: strings.Replace(nodePool(nil), "kind: EC2NodeClass, name", "kind: AKSNodeClass, name", 1),
		errors: []string{np + "spec.template.spec.nodeClassRef: group karpenter.k8s.aws, kind AKSNodeClass is not a node class karpsim simulates (use group karpenter.k8s.aws, kind EC2NodeClass, or group karpenter.azure.com, kind AKSNodeClass)"}},
	{name: "every problem of one object is reported", yaml: nodePool(map[string]string{
		"requirements": "[{key: kubernetes.io/hostname, operator: In}, {key: a, operator: Gt, values: [x]}]",
		"spec":         "weight: 0", "disruption": `{consolidateAfter: 0s, budgets: [{nodes: "ten"}]}`}),
		errors: []string{
			np + `spec.disruption.budgets[0].nodes: "ten" is not a node count or a percentage (use e.g. "10" or "10%"; percentages go up to 100%)`,
			np + `spec.template.spec.requirements[0].key: label "kubernetes.io/hostname" is restricted: Karpenter sets it to each node's own name`,
			np + "spec.template.spec.requirements[0].values: operator In needs at least one value",
			np + `spec.template.spec.requirements[1].values[0]: operator Gt needs a non-negative integer, not "x"`,
			np + "spec.weight: 0 is out of range (1 to 100; leave weight out to rank the NodePool lowest, as 0)",
		}},
	{name: "NodePool without a name", yaml: strings.Replace(nodePool(nil), "  name: default\nspec:\n  template", "  labels: {a: b}\nspec:\n  template", 1),
		errors: []string{"bad.yaml: NodePool without a name in document 1 (line 1): metadata.name: required"}},
	{name: "EC2NodeClass without amiSelectorTerms", yaml: ec2NodeClass("  role: r\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"),
		errors: []string{
			ncPath + "spec.amiSelectorTerms: required: at least one term, e.g. {alias: al2023@latest}",
			ncPath + "spec.amiFamily: required when amiSelectorTerms has no alias (one of AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025)",
		}},
	{name: "alias combined with tags", yaml: ec2NodeClass("  role: r\n  amiSelectorTerms: [{alias: al2023@latest, tags: {a: b}}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"),
		errors: []string{ncPath + "spec.amiSelectorTerms[0]: alias may not be combined with tags, name or owner; an alias stands alone"}},
	{name: "unknown alias family", yaml: ec2NodeClass("  role: r\n  amiSelectorTerms: [{alias: ubuntu@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"),
		errors: []string{ncPath + `spec.amiSelectorTerms[0].alias: "ubuntu@latest" names an unknown family "ubuntu" (use al2, al2023, bottlerocket, windows2019, windows2022 or windows2025)`}},
	{name: "EC2NodeClass launch settings are read", yaml: ec2NodeClass("  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n" +
		"  networkInterfaces: [{networkCardIndex: 0, deviceIndex: 1, interfaceType: efa-only}]\n  placementGroupSelector: {name: hpc}\n" +
		"  connectionTracking: {udpTimeout: 20}\n  cpuOptions: {nestedVirtualization: enabled}\n"),
		errors: []string{
			ncPath + "spec.networkInterfaces: no primary interface: one must have networkCardIndex 0, deviceIndex 0 and interfaceType interface",
			ncPath + "spec.connectionTracking.udpTimeout: 20 is outside 30 to 60 seconds",
		}},
	{name: "role and instanceProfile both", yaml: ec2NodeClass("  role: r\n  instanceProfile: p\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"),
		errors: []string{ncPath + "spec: role and instanceProfile are mutually exclusive: set exactly one"}},
	{name: "empty role", yaml: ec2NodeClass("  role: ''\n  instanceProfile: p\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"),
		errors: []string{ncPath + `spec.role: "" is not allowed (role must not be empty; leave it out to use instanceProfile)`}},
	{name: "volume size as a number", yaml: ec2NodeClass("  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n  blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: 100}}]\n"),
		errors: []string{ncPath + `spec.blockDeviceMappings[0].ebs.volumeSize: "100" is not allowed (use Gi, G, Ti or T, from 1Gi up to 64T (e.g. "20Gi"))`}},
	{name: "soft eviction without grace period", yaml: ec2NodeClass("  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n  kubelet: {evictionSoft: {memory.available: 10%}}\n"),
		errors: []string{ncPath + "spec.kubelet.evictionSoft[memory.available]: has no matching evictionSoftGracePeriod; soft thresholds need a grace period"}},
	{name: "unknown apiVersion of a Karpenter kind", yaml: "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: a}\n---\napiVersion: karpenter.sh/v1alpha5\nkind: NodePool\nmetadata: {name: a}\n",
		errors:   []string{`bad.yaml: NodePool/a: apiVersion: "karpenter.sh/v1alpha5" is not supported for NodePool (use karpenter.sh/v1, or karpenter.sh/v1beta1, which karpsim converts)`},
		warnings: []string{"bad.yaml: Provisioner/a: skipped: karpsim does not read kind Provisioner (apiVersion karpenter.sh/v1alpha5)"}},
	{name: "unknown apiVersion of a core kind", yaml: "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: a, namespace: b}\n",
		errors: []string{`bad.yaml: PodDisruptionBudget/b/a: apiVersion: "policy/v1beta1" is not supported for PodDisruptionBudget (use policy/v1)`}},
	{name: "duplicate NodePool names", yaml: nodePool(nil) + "---\n" + strings.Split(nodePool(map[string]string{"spec": "weight: 5"}), "---")[0],
		errors: []string{np + `metadata.name: another NodePool named "default" is defined at bad.yaml:1; names must be unique`}},
	{name: "malformed YAML", yaml: nodePool(nil) + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   namespace: b\n",
		errors: []string{"bad.yaml: document 3: line 30: mapping values are not allowed in this context"}},
	{name: "duplicate key", yaml: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nmetadata: {name: b}\n",
		errors: []string{`bad.yaml: document 1: line 4: key "metadata" already set in map`}},
	{name: "duplicate key in JSON", yaml: `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "b"}, "metadata": {"name": "b"}}`,
		errors: []string{`bad.yaml: document 1 (line 1): duplicate field "metadata"`}},
	{name: "document without kind", yaml: "apiVersion: v1\nmetadata: {name: a}\n",
		errors: []string{"bad.yaml: document 1 (line 1): no kind: every object needs apiVersion and kind"}},
	{name: "document that is a list", yaml: "# a comment\n- a\n- b\n",
		errors: []string{"bad.yaml: document 1 (line 2): not an object with apiVersion and kind, but a list"}},
	{name: "bad item of a List", yaml: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {capacity: {cpu: many}}\n- 42\n",
		errors: []string{
			`bad.yaml: Node/n1: status.capacity[cpu]: "many" is not a quantity (use e.g. "500m", "2" or "1.5Gi")`,
			"bad.yaml: document 1 (line 1) item 2: not an object but the number 42",
		}},
	{name: "v1beta1 WhenEmpty without consolidateAfter", yaml: "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  disruption: {consolidationPolicy: WhenEmpty}\n  template: {spec: {requirements: [], nodeClassRef: {name: default}}}\n---\n" + nodeClassDoc,
		warnings: []string{
			np + "converted to v1: apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1",
			np + "converted to v1: spec.disruption.consolidateAfter: not set → 0s: v1beta1 required it with WhenEmpty, and v1 requires it",
			np + "converted to v1: spec.template.spec.nodeClassRef: {name: default} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
		}},
}

func TestBadManifests(t *testing.T) {
	errorCases := 0
	for _, c := range badManifests {
		t.Run(c.name, func(t *testing.T) {
			s, err := Decode("bad.yaml", []byte(c.yaml))
			assert.Equal(t, c.errors, errorStrings(t, err))
			assert.Equal(t, c.warnings, warningStrings(s))
			if len(c.errors) > 0 {
				assert.Equal(t, strings.Join(c.errors, "\n"), err.Error(), "the joined error lists one problem per line")
			}
		})
		if len(c.errors) > 0 {
			errorCases++
		}
	}
	assert.GreaterOrEqual(t, errorCases, 35)
}
