package invariants

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

var (
	fake = instancetypes.Fake(10)
	now  = time.Date(2026, time.January, 5, 12, 0, 0, 0, time.UTC)
)

type podOption func(*corev1.Pod)

func newPod(name, cpu string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": name}}}
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Mi")}}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func app(v string) podOption { return func(p *corev1.Pod) { p.Labels["app"] = v } }

func nodeSelector(k, v string) podOption {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{k: v} }
}

func toleration(key string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

func requiredNodeAffinity(key string, op corev1.NodeSelectorOperator, values ...string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}}}}}
	}
}

func podAffinity(anti bool, key, appValue string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		term := corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appValue}}}
		if anti {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
		} else {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
		}
	}
}

func spread(key, appValue string, maxSkew int32) podOption {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appValue}}})
	}
}

func annotate(k, v string) podOption {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
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

func poolRequirement(key string, op corev1.NodeSelectorOperator, minValues int, values ...string) poolOption {
	return func(np *apis.NodePool) {
		r := apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
		if minValues > 0 {
			r.MinValues = &minValues
		}
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
	}
}

func poolTaint(key string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
	}
}

func poolLimit(name corev1.ResourceName, q string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Limits = corev1.ResourceList{name: resource.MustParse(q)}
	}
}

func poolBudget(nodes string) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.Budgets = []apis.Budget{{Nodes: nodes}} }
}

// node is an existing node of type fake-it-(cpus-1) in zone, managed by
// pool, initialized.
func node(name, pool, zone string, cpus int, pods ...*corev1.Pod) *scheduling.Node {
	it, _ := fake.Get("fake-it-" + itoa(cpus-1))
	labels := it.Labels()
	labels[apis.LabelHostname] = name
	labels[apis.LabelTopologyZone] = zone
	labels[apis.LabelCapacityType] = apis.CapacityTypeOnDemand
	labels[apis.LabelInstanceType] = it.Name
	labels[apis.LabelNodePool] = pool
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	return &scheduling.Node{Name: name, NodePool: pool, Labels: labels, Capacity: it.Capacity.List(),
		Allocatable: it.Allocatable().List(), Pods: pods, Initialized: true}
}

func itoa(i int) string { return strconv.Itoa(i) }

// claim is a new NodeClaim of type fake-it-(cpus-1), on-demand in zone.
func claim(name, pool, zone string, cpus int, pods ...string) scheduling.NodeClaim {
	it, _ := fake.Get("fake-it-" + itoa(cpus-1))
	return scheduling.NodeClaim{Name: name, NodePool: pool, InstanceType: it.Name, CapacityType: apis.CapacityTypeOnDemand,
		Zone: zone, PricePerHour: it.Offerings[0].Price, InstanceTypeOptions: []string{it.Name}, Pods: pods}
}

func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}
