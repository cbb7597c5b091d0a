package scheduling

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Builders for test inputs: small, explicit, and defaulted as the API would.

type podOption func(*corev1.Pod)

func newPod(name, cpu, memory string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		}}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func pods(n int, prefix, cpu, memory string, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = newPod(fmt.Sprintf("%s-%d", prefix, i), cpu, memory, opts...)
	}
	return out
}

func withNodeSelector(kv ...string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func withToleration(key string, effect corev1.TaintEffect) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
}

func withRequest(name corev1.ResourceName, q string) podOption {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q) }
}

func withHostPort(port int32) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	}
}

func withPreferredNodeAffinity(weight int32, key string, op corev1.NodeSelectorOperator, values ...string) podOption {
	return func(p *corev1.Pod) {
		a := nodeAffinity(p)
		a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
			Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}},
		})
	}
}

func withRequiredTerms(terms ...corev1.NodeSelectorRequirement) podOption {
	return func(p *corev1.Pod) {
		a := nodeAffinity(p)
		if a.RequiredDuringSchedulingIgnoredDuringExecution == nil {
			a.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
		}
		for _, t := range terms {
			a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
				corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{t}})
		}
	}
}

func nodeAffinity(p *corev1.Pod) *corev1.NodeAffinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return p.Spec.Affinity.NodeAffinity
}

type poolOption func(*apis.NodePool)

func newPool(name string, opts ...poolOption) *apis.NodePool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: "EC2NodeClass", Name: "default"}
	for _, o := range opts {
		o(np)
	}
	np.SetDefaults()
	return np
}

func withWeight(w int32) poolOption { return func(np *apis.NodePool) { np.Spec.Weight = &w } }

func withRequirement(key string, op corev1.NodeSelectorOperator, values ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

func withTaint(key string, effect corev1.TaintEffect) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: key, Effect: effect})
	}
}

func withLabel(key, value string) poolOption {
	return func(np *apis.NodePool) {
		if np.Spec.Template.ObjectMeta.Labels == nil {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{}
		}
		np.Spec.Template.ObjectMeta.Labels[key] = value
	}
}

func withLimit(name corev1.ResourceName, q string) poolOption {
	return func(np *apis.NodePool) {
		if np.Spec.Limits == nil {
			np.Spec.Limits = corev1.ResourceList{}
		}
		np.Spec.Limits[name] = resource.MustParse(q)
	}
}

var fake = instancetypes.Fake(20)

func pool(np *apis.NodePool) Pool { return Pool{NodePool: np, InstanceTypes: fake} }

func makeNode(name, pool string, initialized bool, cpu, memory string, bound ...*corev1.Pod) *Node {
	list := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory), corev1.ResourcePods: resource.MustParse("110")}
	labels := map[string]string{apis.LabelHostname: name, apis.LabelArch: "amd64", apis.LabelOS: "linux", apis.LabelTopologyZone: "test-zone-1", apis.LabelCapacityType: "on-demand"}
	if pool != "" {
		labels[apis.LabelNodePool] = pool
	}
	return &Node{Name: name, NodePool: pool, Labels: labels, Capacity: list, Allocatable: list, Pods: bound, Initialized: initialized}
}

func daemonSet(name, cpu, memory string, opts ...podOption) *corev1.Pod {
	p := newPod(name, cpu, memory, opts...)
	p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: name}}
	return p
}

// claimsByType summarizes a result as "pool/type xN" lines for short asserts.
func claimsByType(r Result) []string {
	var out []string
	for _, c := range r.NodeClaims {
		out = append(out, fmt.Sprintf("%s %s %s %s %v", c.Name, c.InstanceType, c.CapacityType, c.Zone, c.Pods))
	}
	return out
}
