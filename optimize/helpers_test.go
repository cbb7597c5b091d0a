package optimize_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

const gib = int64(1) << 30

// nodeType is an instance type without overhead, sold on demand in one
// zone at the price.
func nodeType(name string, cpu, memoryGiB int64, price float64) *instancetypes.InstanceType {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:      name,
		Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, corev1.LabelOSStable: "linux"},
		Capacity:  resources.New(cpu*1000, memoryGiB*gib, 110),
		Offerings: []instancetypes.Offering{{Zone: "test-1a", CapacityType: apis.CapacityTypeOnDemand, Price: price, Available: true}},
	})
	if err != nil {
		panic(err)
	}
	return it
}

func catalog(types ...*instancetypes.InstanceType) instancetypes.Catalog {
	c, err := instancetypes.NewCatalog(types...)
	if err != nil {
		panic(err)
	}
	return c
}

func nodePool(name string, c instancetypes.Catalog, limits corev1.ResourceList) scheduling.Pool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Limits = limits
	np.SetDefaults()
	return scheduling.Pool{NodePool: np, InstanceTypes: c}
}

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

// withHostnameAntiAffinity labels the pod app=name and keeps other
// app=name pods off its node.
func withHostnameAntiAffinity(name string) podOption {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": name}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		}}}}
	}
}

func withNodeSelector(key, value string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[key] = value
	}
}
