package optimize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// CheckColumns builds the model of the input on the plan r and holds its
// columns (every one, dominated or not) against a naive listing: each
// available offering of each type its pool lists, with the shapes whose
// pod's requirements in the pool the type and offering meet, asked whole
// of each. It returns how many columns it compared.
func CheckColumns(in scheduling.Input, r scheduling.Result) (int, error) {
	prep := scheduling.Prepare(in.NodePools, in.DaemonSets, in.Options)
	m, err := buildModelWith(in, r, prep)
	if err != nil {
		return 0, err
	}
	pools := prep.Capacity()
	slices.SortStableFunc(pools, func(a, b scheduling.PoolCapacity) int { return strings.Compare(a.Name, b.Name) })
	limits := readLimits(in, pools)
	// A pod of each shape the model grouped; the other shapes no column
	// takes.
	example := map[int]*corev1.Pod{}
	for pod, gi := range m.groupOf {
		example[m.groups[gi].shape] = pod
	}
	shapes := slices.Sorted(maps.Keys(example))
	width := 1
	if len(m.every) > 0 {
		width = len(m.every[0].shapes)
	}
	key := func(pool int, name, zone, capType string, price float64, set bitset) string {
		return fmt.Sprint(pool, name, zone, capType, price, []uint64(set))
	}
	want := map[string]int{}
	for pi, pc := range pools {
		for _, tc := range pc.Types {
			it := tc.InstanceType
			if limits[pi].exceeds(it.Capacity) {
				continue
			}
			for _, o := range it.Offerings {
				if !o.Available || o.Price < 0 {
					continue
				}
				set, any := make(bitset, width), false
				for _, si := range shapes {
					pod := example[si]
					reqs, err := pc.Requirements(pod)
					if err != nil {
						continue
					}
					requests, err := resources.PodRequests(pod)
					if err == nil && requests.Fits(tc.Room) && it.Requirements.IntersectsFast(reqs) && o.CompatibleUnder(it.LabelRules(), reqs) {
						set.set(si)
						any = true
					}
				}
				if any {
					want[key(pi, it.Name, o.Zone, o.CapacityType, o.Price, set)]++
				}
			}
		}
	}
	got := map[string]int{}
	for _, c := range m.every {
		got[key(c.pool, c.name, c.zone, c.capType, c.price, c.shapes)]++
	}
	if !maps.Equal(got, want) {
		for k, n := range got {
			if want[k] != n {
				return len(m.every), fmt.Errorf("column %s listed %d times, %d naively", k, n, want[k])
			}
		}
		for k, n := range want {
			if got[k] != n {
				return len(m.every), fmt.Errorf("column %s listed %d times, %d naively", k, got[k], n)
			}
		}
	}
	return len(m.every), nil
}
