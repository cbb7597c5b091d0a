package azure

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The suite's fake region and its region without zones: package azure
// embeds the provider's resource SKU tables of both.
const (
	fakeRegion     = "southcentralus"
	nonZonalRegion = "westcentralus"
	fakeZone1      = fakeRegion + "-1"
)

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func catalogOf(t *T, region string, s azure.Settings) instancetypes.Catalog {
	t.Helper()
	c, err := azure.Catalog(region, s)
	if err != nil {
		t.Fatalf("azure.Catalog(%s, %+v): %v", region, s, err)
	}
	// The suite's fake Azure API lists the sizes of its resource SKU
	// tables only: leave out those the wider table adds.
	c = slices.DeleteFunc(c, func(it *instancetypes.InstanceType) bool { return azure.DerivedFacts(it.Name) != nil })
	if len(c) == 0 {
		t.Fatalf("azure.Catalog(%s, %+v) is empty", region, s)
	}
	return c
}

// suiteCatalog is the suite's catalog: the fake region, a default
// AKSNodeClass.
func suiteCatalog(t *T) instancetypes.Catalog { return catalogOf(t, fakeRegion, azure.Settings{}) }

func sizeOf(t *T, c instancetypes.Catalog, name string) *instancetypes.InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	if !ok {
		t.Fatalf("%s is not in the catalog %v", name, c.Names())
	}
	return it
}

func expectSizes(t *T, c instancetypes.Catalog, in, out []string) {
	t.Helper()
	names := c.Names()
	for _, n := range in {
		if !slices.Contains(names, n) {
			t.Errorf("%s is not offered: %v", n, names)
		}
	}
	for _, n := range out {
		if slices.Contains(names, n) {
			t.Errorf("%s is offered", n)
		}
	}
}

type requirement = apis.NodeSelectorRequirementWithMinValues

func in(key string, values ...string) requirement {
	return requirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

// nodePool is the suite's NodePool: no requirements but the given ones,
// for the default AKSNodeClass.
func nodePool(reqs ...requirement) *apis.NodePool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: azure.Group, Kind: "AKSNodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = reqs
	np.SetDefaults()
	return np
}

type podOption func(*corev1.Pod)

// pendingPod is the suite's unschedulable pod: it asks for nothing but
// what opts add.
func pendingPod(name string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{},
			CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func selecting(key, value string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[key] = value
	}
}

func requesting(name corev1.ResourceName, q string) podOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
			c.Resources.Limits = corev1.ResourceList{}
		}
		c.Resources.Requests[name] = resource.MustParse(q)
		c.Resources.Limits[name] = resource.MustParse(q)
	}
}

func labelled(k, v string) podOption { return func(p *corev1.Pod) { p.Labels[k] = v } }

func spreadOverZones(app string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: apis.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		})
	}
}

// world is a catalog and the NodePool pods are provisioned from.
type world struct {
	catalog instancetypes.Catalog
	pool    *apis.NodePool
}

func (w world) solve(pods ...*corev1.Pod) scheduling.Result {
	return scheduling.Solve(scheduling.Input{
		Pods:      pods,
		NodePools: []scheduling.Pool{{NodePool: w.pool, InstanceTypes: w.catalog}},
	})
}

// launch provisions the pods and returns, for each, the labels of the node
// it lands on; the case fails when one is not placed on a new node.
func (w world) launch(t *T, pods ...*corev1.Pod) []map[string]string {
	t.Helper()
	res := w.solve(pods...)
	out := make([]map[string]string, len(pods))
	for i, p := range pods {
		key := apis.PodKey(p)
		found := false
		for _, c := range res.NodeClaims {
			if !slices.Contains(c.Pods, key) {
				continue
			}
			it := sizeOf(t, w.catalog, c.InstanceType)
			out[i] = c.LaunchLabels(it, w.pool)
			found = true
		}
		if !found {
			t.Fatalf("pod %s is on no new node: unschedulable %v", key, res.Unschedulable)
		}
	}
	return out
}

// expectNotScheduled provisions the pods and checks none is placed.
func (w world) expectNotScheduled(t *T, pods ...*corev1.Pod) {
	t.Helper()
	res := w.solve(pods...)
	if len(res.NodeClaims) != 0 || len(res.Bindings) != 0 {
		t.Errorf("placed: %+v %+v", res.NodeClaims, res.Bindings)
	}
}

func expectLabel(t *T, labels map[string]string, key, value string) {
	t.Helper()
	if got, ok := labels[key]; !ok || got != value {
		t.Errorf("node label %s = %q (set %v), want %q", key, got, ok, value)
	}
}
