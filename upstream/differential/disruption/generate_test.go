package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// A seed always gives the same cluster, and the pods bound to each node
// fit its allocatable, as a real scheduler would have bound them.
func TestGenerate(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for seed := uint64(1); seed <= 200; seed++ {
		a, err := yaml.Marshal(Generate(seed, at))
		require.NoError(t, err)
		b, err := yaml.Marshal(Generate(seed, at))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), "seed %d", seed)

		c := Generate(seed, at)
		require.NotEmpty(t, c.NodePools)
		require.Len(t, c.NodeClaims, len(c.Nodes))
		used := map[string]corev1.ResourceList{}
		for _, p := range c.Pods {
			u := used[p.Spec.NodeName]
			if u == nil {
				u = corev1.ResourceList{corev1.ResourceCPU: resource.Quantity{}, corev1.ResourceMemory: resource.Quantity{}}
				used[p.Spec.NodeName] = u
			}
			for name, q := range p.Spec.Containers[0].Resources.Requests {
				sum := u[name]
				sum.Add(q)
				u[name] = sum
			}
		}
		for _, n := range c.Nodes {
			for name, sum := range used[n.Name] {
				alloc := n.Status.Allocatable[name]
				assert.LessOrEqual(t, sum.Cmp(alloc), 0, "seed %d: %s's pods request %s of %s, allocatable %s", seed, n.Name, sum.String(), name, alloc.String())
			}
		}
	}
}

// The two sides price and size every type alike: karpsim's catalog, read
// from the JSON the harness writes, has Karpenter's capacity, allocatable
// and offering prices.
func TestCatalogsAgree(t *testing.T) {
	mine, err := karpsimCatalog()
	require.NoError(t, err)
	theirs := karpenterInstanceTypes()
	require.Len(t, mine, len(theirs))
	for _, it := range theirs {
		k, ok := mine.Get(it.Name)
		require.True(t, ok, it.Name)
		alloc, kAlloc := it.Allocatable(), k.Allocatable().List()
		assert.Equal(t, alloc.Cpu().MilliValue(), kAlloc.Cpu().MilliValue(), it.Name)
		assert.Equal(t, alloc.Memory().Value(), kAlloc.Memory().Value(), it.Name)
		require.Len(t, k.Offerings, len(it.Offerings), it.Name)
		for _, o := range it.Offerings {
			zone := o.Requirements.Get(corev1.LabelTopologyZone).Any()
			ct := o.Requirements.Get("karpenter.sh/capacity-type").Any()
			found := false
			for _, ko := range k.Offerings {
				if ko.Zone == zone && ko.CapacityType == ct {
					found = true
					assert.InDelta(t, o.Price, ko.Price, 1e-12, "%s %s %s", it.Name, zone, ct)
				}
			}
			assert.True(t, found, "%s %s %s", it.Name, zone, ct)
		}
	}
}
