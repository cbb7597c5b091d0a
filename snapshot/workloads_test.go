package snapshot

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, creationTimestamp: "2026-03-01T10:00:00Z"}
spec:
  %s
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {note: kept}}
    spec:
      containers: [{name: web, image: web, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
`

func deployment(replicas string) string {
	return replace(deploymentYAML, "%s", replicas)
}

func replace(s, old, new string) string { return strings.Replace(s, old, new, 1) }

func TestDeploymentReplicas(t *testing.T) {
	hash := templateHash(&decode(t, deployment("")).Deployments[0].Spec.Template)
	tests := []struct {
		name     string
		replicas string
		want     []string
	}{
		{"unset is 1, as the API server defaults it", "", []string{"default/web-" + hash + "-0"}},
		{"zero makes none", "replicas: 0", []string{}},
		{"three", "replicas: 3", []string{"default/web-" + hash + "-0", "default/web-" + hash + "-1", "default/web-" + hash + "-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, deployment(tt.replicas))
			assert.Equal(t, tt.want, names(s.Pending))
		})
	}
}

func TestDeploymentPodsAreShapedAsTheControllerMakesThem(t *testing.T) {
	s := build(t, deployment("replicas: 1"))
	require.Len(t, s.Pending, 1)
	p := s.Pending[0]
	hash := p.Labels["pod-template-hash"]
	assert.NotEmpty(t, hash)
	assert.Equal(t, map[string]string{"app": "web", "pod-template-hash": hash}, p.Labels)
	assert.Equal(t, map[string]string{"note": "kept"}, p.Annotations)
	assert.Equal(t, "default", p.Namespace)
	assert.Equal(t, derivedUID("Pod", "default", p.Name), p.UID)
	assert.Equal(t, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), p.CreationTimestamp.UTC())
	require.Len(t, p.OwnerReferences, 1)
	ref := p.OwnerReferences[0]
	assert.Equal(t, "ReplicaSet", ref.Kind)
	assert.Equal(t, "web-"+hash, ref.Name)
	assert.True(t, *ref.Controller)
	assert.Equal(t, corev1.PodPending, p.Status.Phase)
}

func TestGivenPodsCountAsReplicas(t *testing.T) {
	owned := func(name, rs string) string {
		return replace(podYAML(name, ""), "metadata: {name: "+name+"}",
			"metadata: {name: "+name+", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: "+rs+", uid: x}]}")
	}
	s := build(t, deployment("replicas: 3"), owned("web-abc-1", "web-abc"), owned("other-1", "web-api-abc"))
	// web-abc-1 is one of web's three replicas; web-api-abc is another
	// Deployment's ReplicaSet, so other-1 is not.
	assert.Len(t, s.Pending, 4)
	hash := templateHash(&decode(t, deployment("")).Deployments[0].Spec.Template)
	assert.Contains(t, names(s.Pending), "default/web-"+hash+"-1")
	assert.NotContains(t, names(s.Pending), "default/web-"+hash+"-2")
}

func TestReplicaSets(t *testing.T) {
	rs := `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: api-7c9, namespace: shop%s}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api, pod-template-hash: 7c9}}
    spec: {containers: [{name: api, image: api}]}
`
	t.Run("alone", func(t *testing.T) {
		s := build(t, replace(rs, "%s", ""))
		assert.Equal(t, []string{"shop/api-7c9-0", "shop/api-7c9-1"}, names(s.Pending))
		assert.Equal(t, "7c9", s.Pending[0].Labels["pod-template-hash"])
	})
	t.Run("owned by a given Deployment, which accounts for its pods", func(t *testing.T) {
		owned := replace(rs, "%s", ", ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: x}]")
		d := replace(replace(deployment("replicas: 1"), "name: web,", "name: api, namespace: shop,"), "app: web", "app: api")
		s := build(t, owned, d)
		assert.Len(t, s.Pending, 1)
	})
	t.Run("owned by a Deployment that was not given", func(t *testing.T) {
		s := build(t, replace(rs, "%s", ", ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: x}]"))
		assert.Len(t, s.Pending, 2)
	})
}

const statefulSetYAML = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db%s
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: db}]}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
`

func TestStatefulSets(t *testing.T) {
	s := build(t, replace(statefulSetYAML, "%s", ""))
	assert.Equal(t, []string{"default/db-0", "default/db-1", "default/db-2"}, names(s.Pending))
	p := s.Pending[1]
	assert.Equal(t, "db-1", p.Labels["statefulset.kubernetes.io/pod-name"])
	assert.Equal(t, "1", p.Labels["apps.kubernetes.io/pod-index"])
	assert.Equal(t, "db-1", p.Spec.Hostname)
	assert.Equal(t, "db", p.Spec.Subdomain)
	require.Len(t, p.Spec.Volumes, 1)
	assert.Equal(t, "data-db-1", p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	assert.Equal(t, "StatefulSet", p.OwnerReferences[0].Kind)

	s = build(t, replace(statefulSetYAML, "%s", "\n  ordinals: {start: 5}"), replace(podYAML("db-6", ""), "name: db-6}", "name: db-6, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: x}]}"))
	assert.Equal(t, []string{"default/db-5", "default/db-6", "default/db-7"}, names(s.Pending), "db-6 was given; the others are created")
}

const jobYAML = `apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  %s
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: work}]
`

func TestJobs(t *testing.T) {
	tests := []struct {
		name, spec string
		extra      []string
		want       int
	}{
		{"parallelism defaults to 1", "backoffLimit: 1", nil, 1},
		{"parallelism pods at once", "parallelism: 4", nil, 4},
		{"bounded by completions", "parallelism: 5\n  completions: 3", nil, 3},
		{"bounded by the completions still missing", "parallelism: 5\n  completions: 4\n  suspend: false", nil, 4},
		{"zero parallelism", "parallelism: 0", nil, 0},
		{"suspended", "parallelism: 2\n  suspend: true", nil, 0},
		{"succeeded pods count against completions", "parallelism: 5\n  completions: 3", []string{succeededJobPod("batch-a"), succeededJobPod("batch-b")}, 1},
		{"without completions, a success ends the job", "parallelism: 5", []string{succeededJobPod("batch-a")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, append([]string{replace(jobYAML, "%s", tt.spec)}, tt.extra...)...)
			assert.Len(t, s.Pending, tt.want)
			for _, p := range s.Pending {
				assert.Equal(t, "batch", p.Labels["batch.kubernetes.io/job-name"])
				assert.Equal(t, "Job", p.OwnerReferences[0].Kind)
			}
		})
	}
	finished := replace(jobYAML, "%s", "parallelism: 2") + "status: {conditions: [{type: Complete, status: \"True\"}]}\n"
	assert.Empty(t, build(t, finished).Pending, "a complete Job runs nothing")

	indexed := build(t, replace(jobYAML, "%s", "parallelism: 2\n  completions: 2\n  completionMode: Indexed"))
	require.Len(t, indexed.Pending, 2)
	assert.Equal(t, "1", indexed.Pending[1].Annotations["batch.kubernetes.io/job-completion-index"])
}

func succeededJobPod(name string) string {
	return replace(podYAML(name, "status: {phase: Succeeded}\n"), "name: "+name+"}",
		"name: "+name+", ownerReferences: [{apiVersion: batch/v1, kind: Job, name: batch, uid: x}]}")
}

const daemonSetYAML = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      %s
      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
      containers: [{name: agent, image: agent, resources: {requests: {cpu: 100m}}}]
`

func TestDaemonSetsMakeOneTemplatePodWithTheControllersTolerations(t *testing.T) {
	s := build(t, replace(daemonSetYAML, "%s", "hostNetwork: true"))
	assert.Empty(t, s.Pending, "daemon pods are overhead, never pending")
	require.Len(t, s.DaemonSets, 1)
	p := s.DaemonSets[0]
	assert.Equal(t, "kube-system/agent", p.Namespace+"/"+p.Name)
	assert.Equal(t, "DaemonSet", p.OwnerReferences[0].Kind)
	var keys []string
	for _, tol := range p.Spec.Tolerations {
		keys = append(keys, tol.Key+":"+string(tol.Effect))
		assert.Nil(t, tol.TolerationSeconds, "the controller's toleration replaces the one with tolerationSeconds")
	}
	assert.Equal(t, []string{
		"node.kubernetes.io/not-ready:NoExecute",
		"node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule",
		"node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule",
		"node.kubernetes.io/unschedulable:NoSchedule",
		"node.kubernetes.io/network-unavailable:NoSchedule",
	}, keys)

	s = build(t, replace(daemonSetYAML, "%s", "hostNetwork: false"))
	assert.False(t, slices.ContainsFunc(s.DaemonSets[0].Spec.Tolerations, func(tol corev1.Toleration) bool {
		return tol.Key == corev1.TaintNodeNetworkUnavailable
	}), "network-unavailable is only tolerated on the host network")
}

func TestTemplateHashIsStableAndDiffersByTemplate(t *testing.T) {
	a := decode(t, deployment("")).Deployments[0].Spec.Template
	b := a.DeepCopy()
	b.Labels["app"] = "other"
	assert.Equal(t, templateHash(&a), templateHash(&a))
	assert.NotEqual(t, templateHash(&a), templateHash(b))
	for _, c := range templateHash(&a) {
		assert.Contains(t, "bcdfghjklmnpqrstvwxz2456789", string(c))
	}
}

// TestDaemonSetOverheadIsItsNewestPod follows Karpenter's provisioning
// suite ("should account for overhead using daemonset pod spec instead of
// daemonset spec"): the DaemonSet asks 4 CPUs, its pods were made asking
// 2, and the newest pod it controls is its overhead, with the template's
// required node affinity.
func TestDaemonSetOverheadIsItsNewestPod(t *testing.T) {
	const objects = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: ds-uid}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]
      containers: [{name: agent, image: agent, resources: {requests: {cpu: "4", memory: 4Gi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-old
  namespace: kube-system
  creationTimestamp: "2026-03-01T10:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-uid, controller: true}]
spec:
  nodeName: node-a
  containers: [{name: agent, image: agent, resources: {requests: {cpu: "3", memory: 3Gi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-new
  namespace: kube-system
  creationTimestamp: "2026-03-02T10:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-uid, controller: true}]
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-b]}]}]
  containers: [{name: agent, image: agent, resources: {requests: {cpu: "2", memory: 2Gi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: impostor
  namespace: kube-system
  creationTimestamp: "2026-03-03T10:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: other-uid, controller: true}]
spec:
  containers: [{name: agent, image: agent, resources: {requests: {cpu: "1"}}}]
`
	s := build(t, objects)
	require.Len(t, s.DaemonSets, 1)
	p := s.DaemonSets[0]
	assert.Equal(t, "agent-new", p.Name, "the newest pod the DaemonSet controls (same UID)")
	assert.Equal(t, "2", p.Spec.Containers[0].Resources.Requests.Cpu().String())
	assert.Empty(t, p.Spec.NodeName)
	terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	assert.Equal(t, "kubernetes.io/arch", terms[0].MatchExpressions[0].Key, "the template's required affinity replaces the pod's")
	assert.Empty(t, terms[0].MatchFields)

	// Without a pod of its own, the template stands.
	s = build(t, strings.Split(objects, "---")[0])
	require.Len(t, s.DaemonSets, 1)
	assert.Equal(t, "4", s.DaemonSets[0].Spec.Containers[0].Resources.Requests.Cpu().String())
}
