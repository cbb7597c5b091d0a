package controller

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/provider"
)

// poolsOnly is a Cluster of one NodePool and nothing else.
type poolsOnly struct {
	pool    *apis.NodePool
	catalog instancetypes.Catalog
}

func (p poolsOnly) NodePools() []*apis.NodePool               { return []*apis.NodePool{p.pool} }
func (p poolsOnly) NodeClass(string) provider.NodeClass       { return nil }
func (p poolsOnly) Catalog(string) instancetypes.Catalog      { return p.catalog }
func (p poolsOnly) DaemonSets() []*corev1.Pod                 { return nil }
func (p poolsOnly) PDBs() []*policyv1.PodDisruptionBudget     { return nil }
func (p poolsOnly) Pending() []*corev1.Pod                    { return nil }
func (p poolsOnly) Nodes(bool) []*Node                        { return nil }
func (p poolsOnly) Node(string) *Node                         { return nil }
func (p poolsOnly) Generation() uint64                        { return 0 }
func (p poolsOnly) AddNode(context.Context, *Node) error      { return nil }
func (p poolsOnly) Cordon(context.Context, *Node, bool) error { return nil }
func (p poolsOnly) Drain(context.Context, *Node, bool) (DrainStatus, error) {
	return DrainStatus{Deleted: true}, nil
}
func (noTimers) WakeAt(time.Time, Wake) {}
func (noLauncher) Create(context.Context, cloud.LaunchRequest) (cloud.Instance, error) {
	return cloud.Instance{}, nil
}
func (noLauncher) Delete(context.Context, string) error { return nil }

type noTimers struct{}
type noLauncher struct{}

// The catalogs with unavailable offerings cleared are made once per state
// of the marks, so that consolidation's cache keeps recognising them, and
// follow the marks as they are made and expire.
func TestUnavailableCatalogsFollowTheMarks(t *testing.T) {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Name: "default"}
	catalog := instancetypes.Fake(5)
	clock := cloud.NewManualClock(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	c, err := New(Config{Cluster: poolsOnly{np, catalog}, Launcher: noLauncher{}, Timers: noTimers{}})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b instancetypes.Catalog) bool { return len(a) == len(b) && &a[0] == &b[0] }
	if got := c.nodePools(clock.Now())[0].InstanceTypes; !same(got, catalog) {
		t.Fatal("with no marks the catalog is not the pool's")
	}
	it, o := catalog[0], catalog[0].Offerings[0]
	c.unavailable.MarkUnavailable(o.CapacityType, it.Name, o.Zone, clock.Now())
	first := c.nodePools(clock.Now())[0].InstanceTypes
	if same(first, catalog) || first[0].Offerings[0].Available || !catalog[0].Offerings[0].Available {
		t.Fatal("the marked offering is not cleared in a copy")
	}
	clock.Advance(time.Minute)
	if again := c.nodePools(clock.Now())[0].InstanceTypes; !same(again, first) {
		t.Error("unchanged marks gave a new catalog")
	}
	o2 := catalog[1].Offerings[0]
	c.unavailable.MarkUnavailable(o2.CapacityType, catalog[1].Name, o2.Zone, clock.Now())
	second := c.nodePools(clock.Now())[0].InstanceTypes
	if same(second, first) || second[1].Offerings[0].Available {
		t.Error("a new mark did not make a new catalog")
	}
	// The first mark expires, the second holds.
	clock.Advance(pricing.DefaultUnavailableTTL - 30*time.Second)
	third := c.nodePools(clock.Now())[0].InstanceTypes
	if !third[0].Offerings[0].Available || third[1].Offerings[0].Available {
		t.Error("an expired mark still clears its offering, or a holding one does not")
	}
	clock.Advance(time.Minute)
	if got := c.nodePools(clock.Now())[0].InstanceTypes; !same(got, catalog) {
		t.Error("once the marks expired the catalog is not the pool's")
	}
}
